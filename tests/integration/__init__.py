"""Tests of whole-program tests: real vaults, the README and docs, the layer rules, Ctrl-C, concurrency."""
