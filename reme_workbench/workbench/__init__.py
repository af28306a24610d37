"""The workbench's plumbing: the demo vault (the main job), the vault-embedded review
notebooks and finding the vault from inside one. The screens themselves are
`reme_workbench.widgets`."""

from .demo import DemoReport, build_demo, fresh_demo_copy, material_weeks
from .notebooks import MASTERS, PlaceReport, find_vault, notebook_vault, place_notebooks

__all__ = ["DemoReport", "MASTERS", "PlaceReport", "build_demo", "find_vault", "fresh_demo_copy",
           "material_weeks", "notebook_vault", "place_notebooks"]
