"""Tests of the command line, through its entry point."""
