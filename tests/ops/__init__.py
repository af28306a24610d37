"""Tests of the application layer: operations, registry, the settings they act on."""
