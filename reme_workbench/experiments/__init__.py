"""Evaluation harnesses that run the product on public data sets (benchmarks import them)."""
