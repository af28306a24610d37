"""The main job's values: the demo's weeks and its report (`reme_workbench.ops.demo` replays
them through the operations layer; see its doc).

`ops.build_demo(path)` copies the sample vault to `path` and replays its weeks in order, as
an agent and a schedule would have: for each week (Monday to Sunday, by the folder date
of the material), dream that week's material with the offline brain, then consolidate
as the weekly schedule would at the week's end (every phase, `force`: the replay runs
the four weeks in minutes, not in four weeks of wall time). Then it places the review
notebooks in `path/workbench/`, writes what Obsidian reads natively (`obsidian_bridge`:
`.obsidian/graph.json` colour groups per bucket and community, and the community canvas
`meta/canvas/communities.canvas`), and counts what there is to look at: notes created
and updated per bucket, communities, proposals waiting per kind.

Dream applies what the offline brain makes at once (CREATE, CORROBORATE), as `dream`
does by default; consolidate's abstract, merge and split proposals wait for a person —
that is what the workbench is for.

The demo indexes with MiniLM unless told otherwise (`demo_embedder`): the main job
should show the product in under a minute, and e5 — what `auto` picks for a new index
when it is installed — takes about 2.5 times as long to embed the same 575 texts
(≈ 100 s in all against ≈ 40 s) for the same notes and proposals on this sample. The
vault's index records MiniLM, so later commands on the demo vault keep using it.

`ops.fresh_demo_copy(dest)` gives a notebook opened outside a vault a vault to work on: the
demo is built once per embedder and package version into the user's cache folder
(`$XDG_CACHE_HOME/reme-workbench/`, else `~/.cache/reme-workbench/`) and copied fresh for
each notebook, so only the first one waits for the replay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

__all__ = ["DemoWeek", "DemoReport", "material_weeks", "demo_embedder", "DEMO_EMBEDDER",
           "Progress"]

DEMO_EMBEDDER = "minilm"  # see the module doc: the main job's embedder unless one is asked for


def demo_embedder(requested: str | None = None) -> str:
    """The embedder spec the demo uses: `requested` when given (`auto` included), else
    MiniLM (see the module doc)."""
    return requested.strip() if requested and requested.strip() else DEMO_EMBEDDER


@dataclass(frozen=True)
class DemoWeek:
    first: date
    last: date
    materials: int
    created: int
    updated: int
    consolidate: str  # one line per phase that did something


@dataclass(frozen=True)
class DemoReport:
    path: Path
    weeks: tuple[DemoWeek, ...]
    created: dict[str, int]  # bucket -> notes created
    updated: dict[str, int]  # bucket -> notes updated (corroborated, refined, corrected)
    notes: dict[str, int]  # bucket -> notes in the digest now
    communities: int
    waiting: dict[str, int]  # proposal action -> proposals waiting for a person
    notebooks: tuple[str, ...]
    embedder: str
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"path": str(self.path), "embedder": self.embedder, "seconds": round(self.seconds, 1),
                "weeks": [{"first": w.first.isoformat(), "last": w.last.isoformat(),
                           "materials": w.materials, "created": w.created, "updated": w.updated,
                           "consolidate": w.consolidate} for w in self.weeks],
                "created": self.created, "updated": self.updated, "notes": self.notes,
                "communities": self.communities, "waiting": self.waiting,
                "notebooks": list(self.notebooks), **self.extra}


def material_weeks(root: Path) -> list[tuple[date, date, list[str]]]:
    """The vault's material grouped by calendar week (Monday first) of its folder date:
    [(monday, sunday, [paths])], oldest first. Material outside a dated folder is left out."""
    weeks: dict[date, list[str]] = {}
    for layer in ("daily", "resource"):
        for item in sorted((root / layer).glob("*/*")):
            try:
                day = date.fromisoformat(item.parent.name)
            except ValueError:
                continue
            if item.is_file():
                monday = day - timedelta(days=day.weekday())
                weeks.setdefault(monday, []).append(item.relative_to(root).as_posix())
    return [(m, m + timedelta(days=6), sorted(files)) for m, files in sorted(weeks.items())]


Progress = Callable[[str, int, int], None]  # (what, step done, steps)
