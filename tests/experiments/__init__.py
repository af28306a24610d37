"""Tests of the benchmark and sweep harness (reme_lab/): generated vaults, threshold sweeps and `reme-lab sweep`, LoCoMo, the dream-quality metrics, notes about people."""
