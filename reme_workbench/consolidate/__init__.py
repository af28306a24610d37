"""Consolidate: keep the digest healthy over time — communities, archive, cooldowns, and
(next) abstract, merge and split. Mirrors `dream/`: one module per phase, a composition
root in `run.py`; every rule is stated in docs/spec.md."""
