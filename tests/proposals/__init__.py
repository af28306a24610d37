"""Tests of proposals and their review."""
