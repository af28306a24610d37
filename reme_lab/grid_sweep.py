"""The threshold sweep as a person asks for it — from a grid file (`reme-lab sweep`,
`cli.py`) or the threshold-experiments notebook: generate a vault with a planted truth,
consolidate a copy of it at every point of a grid, score each (`sweep.py`). Every copy is
opened through the product's `Workspace` with the point's settings, so `[vault]` limits act
as they do for every command; the brain comes from the workspace as well.

The request is pydantic: it is what a grid file or a notebook cell says, checked before any
work (unknown fields refused)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reme_workbench.errors import RemeError

__all__ = ["SweepRequest", "SweepPoint", "SweepResponse", "sweep_generated_vault"]


class SweepRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    vault: dict[str, Any] = Field(default_factory=dict,
                                  description="The generated vault (VaultSpec fields: notes, duplicates, …).")
    grid: dict[str, list[Any]] = Field(description='"section.key" -> the values to try.')
    out: str | None = Field(None, description="A CSV to write, one row per grid point.")
    keep: str | None = Field(None, description="Keep the generated vault and the copies here.")
    only: list[str] | None = Field(None, description="Just these consolidate phases.")
    embedder: str | None = Field(None, description="The embedder spec (default auto).")
    brain_spec: str | None = Field(None, description="offline (default) or litellm:<model>.")
    replay: str | None = Field(None, description="Answer the model brain from this cassette.")


class SweepPoint(BaseModel):
    model_config = ConfigDict(frozen=True)

    point: dict[str, Any] = Field(description="The grid point: \"section.key\" -> value.")
    metrics: dict[str, Any] = Field(description="Its scores against the planted truth.")

    def to_json(self) -> dict[str, Any]:
        """One flat row, as the CSV and the sweep plots read it."""
        return {**self.point, **self.metrics}


class SweepResponse(BaseModel):
    model_config = ConfigDict(frozen=True)

    out: str | None
    rows: list[SweepPoint] = Field(description="One per grid point.")


def sweep_generated_vault(request: SweepRequest,
                          progress: Callable[[int, int, dict], None] | None = None) -> SweepResponse:
    """Run the sweep the request describes (see the module doc) and write its CSV."""
    from reme_workbench.consolidate.run import parse_only
    from reme_workbench.ops import Workspace

    from .generator import VaultSpec, generate_vault
    from .sweep import sweep as run_sweep
    from .sweep import write_csv

    fields = set(VaultSpec.__dataclass_fields__)
    bad = set(request.vault) - fields
    if bad:
        raise RemeError(f"[vault] names {', '.join(sorted(bad))}; the generator knows "
                        f"{', '.join(sorted(fields - {'start', 'now'}))}.")
    spec = VaultSpec(**request.vault)
    spec.check()
    parse_only(request.only)  # a phase it does not know is refused before any work
    scratch = None if request.keep else tempfile.TemporaryDirectory(prefix="reme-sweep-")
    workdir = Path(request.keep) if request.keep else Path(scratch.name)
    try:
        truth_path = generate_vault(workdir / "template", spec).truth_path
        ws = Workspace(workdir / "template", brain_spec=request.brain_spec, replay=request.replay)
        # a model's brain (or a cassette's); the offline one is the sweep's own, built at
        # each point with the point's settings (its split cut is one of them)
        spec = request.brain_spec or ws.settings.llm.brain
        brain = ws.get_consolidate_brain() if request.replay or spec != "offline" else None

        def open_vault(root: Path, clock, settings):
            return Workspace(root, settings=settings, clock=clock).open_vault()

        rows = run_sweep(lambda _path: truth_path, request.grid, brain=brain,
                         embedder=request.embedder or "auto", workdir=workdir, only=request.only,
                         progress=progress, open_vault=open_vault)
    finally:
        if scratch is not None:
            scratch.cleanup()
    if request.out:
        write_csv(rows, request.out)
    return SweepResponse(out=request.out,
                         rows=[SweepPoint(point=r.point, metrics=r.metrics) for r in rows])
