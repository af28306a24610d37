"""Tests of the one model interface: prompts, schemas, records, repair, the settings it reads."""
