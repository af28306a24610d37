"""The workbench's plumbing below the operations layer: the demo's weeks and report, the
vault-embedded review notebooks and finding the vault from inside one. Building the demo
and the vault a notebook works on are operations (`reme_workbench.ops.build_demo`,
`notebook_workspace`); the screens are `reme_workbench.widgets`."""

from .demo import DemoReport, material_weeks
from .notebooks import MASTERS, PlaceReport, find_vault, place_notebooks

__all__ = ["DemoReport", "MASTERS", "PlaceReport", "find_vault", "material_weeks", "place_notebooks"]
