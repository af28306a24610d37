"""The main job: the bundled sample vault's four weeks, replayed (`reme-workbench demo`).

`build_demo(path)` copies the sample vault to `path` and replays its weeks in order, as
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

`fresh_demo_copy(dest)` gives a notebook opened outside a vault a vault to work on: the
demo is built once per embedder and package version into the user's cache folder
(`$XDG_CACHE_HOME/reme-workbench/`, else `~/.cache/reme-workbench/`) and copied fresh for
each notebook, so only the first one waits for the replay.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from ..config import Settings, load_settings
from ..errors import RemeError
from ..vault.layout import CACHE_DIR

__all__ = ["DemoWeek", "DemoReport", "material_weeks", "build_demo", "fresh_demo_copy",
           "demo_embedder", "DEMO_EMBEDDER"]

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


def build_demo(path: Path | str, *, embedder: str | None = None, settings: Settings | None = None,
               progress: Progress | None = None, notebooks: bool = True) -> DemoReport:
    """Copy the sample to `path` (which must not exist, or be an empty folder) and replay
    its weeks (see the module doc)."""
    import time

    from ..consolidate.run import consolidate_vault
    from ..dream.run import build_brain, dream_vault
    from ..index.factory import embedder_spec, get_embedder
    from ..index.store import VaultIndex, choose_embedder
    from ..proposals import ProposalQueue
    from ..vault.layout import BUCKETS, bucket_of, is_digest_note
    from ..vault.vault import Vault, init_vault
    from .notebooks import place_notebooks

    started = time.monotonic()
    path = Path(path)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise RemeError(f"{path} already exists and is not empty; give the demo a new folder "
                        "(e.g. `reme-workbench demo reme-demo-2`) or remove it first.")
    init_vault(path, sample=True)
    settings = settings or load_settings(path)
    vault = Vault.open(path)
    configured = settings.recall.embedder if settings.recall.embedder != "auto" else None
    spec = choose_embedder(demo_embedder(embedder or configured), path)
    emb = get_embedder(spec)
    brain, _ = build_brain(settings)
    weeks = material_weeks(path)
    steps = 2 * len(weeks) + 1
    created: Counter = Counter()
    updated: Counter = Counter()
    done_weeks = []
    with VaultIndex(path, emb, scan=vault.scan) as index:
        for k, (first, last, files) in enumerate(weeks):
            if progress:
                progress(f"week of {first:%b %d}: dream {len(files)} files", 2 * k, steps)
            report = dream_vault(vault, brain, index, settings, targets=files)
            failed = [o for o in report.outcomes if o.state == "failed"]
            if failed:
                raise RemeError(f"Dream failed on {failed[0].material}: {failed[0].message}")
            week_created = week_updated = 0
            for o in report.outcomes:
                if o.state != "applied" or not o.target_path:
                    continue
                if o.action == "CREATE":
                    created[bucket_of(o.target_path)] += 1
                    week_created += 1
                else:
                    updated[bucket_of(o.target_path)] += 1
                    week_updated += 1
            if progress:
                progress(f"week of {first:%b %d}: consolidate", 2 * k + 1, steps)
            run = consolidate_vault(vault, settings, force=True, embedder=emb, index=index)
            lines = "; ".join(f"{o.phase}: {o.summary}" for o in run.phases
                              if o.ran and o.phase in ("abstract", "merge", "split"))
            done_weeks.append(DemoWeek(first, last, len(report.materials), week_created,
                                       week_updated, lines))
    if progress:
        progress("placing the notebooks and the Obsidian views", steps - 1, steps)
    placed = place_notebooks(path).placed if notebooks else ()
    from obsidian_bridge import run_bridge  # the demo is meant to be opened in Obsidian too

    bridge = run_bridge(vault, communities=True, canvas=True)
    vault.refresh()
    notes = Counter(bucket_of(p) for p, r in vault.scan.records.items()
                    if is_digest_note(p) and r.readable)
    waiting = Counter(p.action for p in ProposalQueue(vault).list("pending"))
    from ..consolidate.abstract import load_communities

    communities, _, _ = load_communities(path)
    if progress:
        progress("done", steps, steps)
    return DemoReport(
        path, tuple(done_weeks), {b: created[b] for b in BUCKETS}, {b: updated[b] for b in BUCKETS},
        {b: notes[b] for b in BUCKETS}, len(set((communities or {}).values())),
        dict(sorted(waiting.items())), tuple(placed), embedder_spec(emb.name),
        time.monotonic() - started,
        {"bridge": bridge.to_json()})


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "reme-workbench"


def _template_key(embedder: str) -> str:
    from importlib import metadata, resources

    try:
        version = metadata.version("reme-workbench")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        version = "source"
    digest = hashlib.sha256(f"{version}|{embedder}".encode())
    sample = resources.files("reme_workbench") / "samples" / "vault"
    with resources.as_file(sample) as folder:
        for item in sorted(Path(folder).rglob("*")):
            if item.is_file():
                digest.update(item.relative_to(folder).as_posix().encode())
                digest.update(item.read_bytes())
    return digest.hexdigest()[:16]


def fresh_demo_copy(dest: Path | str, *, embedder: str | None = None) -> Path:
    """A fresh copy of the demo vault at `dest` (see the module doc)."""
    spec = demo_embedder(embedder)
    template = _cache_root() / f"demo-{spec.replace(':', '_')}-{_template_key(spec)}"
    if not (template / "workbench").is_dir():
        template.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=".demo-build-", dir=template.parent))
        try:
            print(f"Building the demo vault once ({spec} embedder); later notebooks copy it.")
            build_demo(building / "vault", embedder=spec)
            try:
                os.replace(building / "vault", template)  # another kernel may have won
            except OSError:
                pass
        finally:
            shutil.rmtree(building, ignore_errors=True)
    dest = Path(dest)
    shutil.copytree(template, dest, ignore=shutil.ignore_patterns(".reme/*.lock"))
    shutil.rmtree(dest / CACHE_DIR / "journal", ignore_errors=True)
    return dest
