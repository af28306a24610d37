"""Tests of the offline brains: dream rules, conversations, names, boilerplate, the consolidate judges."""
