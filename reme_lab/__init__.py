"""The benchmark and sweep harness of reme-workbench, beside the product (issue #33.5).

Generated vaults with a planted truth (`generator.py` and the plan, kinds and templates it
uses; the course vault, the hub-like vault, sectioned notes), threshold sweeps over them
(`sweep.py`, asked for from a grid file or a notebook by `grid_sweep.py`, on the command
line as `reme-lab sweep`: `cli.py`), and what the benchmarks measure on public data
(LoCoMo in `locomo.py`, the dream-quality metrics in `dream_quality.py`, the measures of
notes about people in `people_notes.py`).

It uses `reme_workbench` and nothing of the product imports it
(tests/integration/test_architecture.py): only `benchmarks/`, the tests and the
threshold-experiments notebook do.
"""
