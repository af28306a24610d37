"""Tests of whole-program tests: real vaults, LoCoMo, the README and docs, the layer rules, Ctrl-C, concurrency."""
