"""Threshold experiments: consolidate on copies of a generated vault, one copy per point
of a grid over the settings, scored against the planted truth.

`sweep(vault_factory, {"merge.min_description_similarity": [0.5, 0.6, 0.7], …})` builds
the vault once (`vault_factory(path)` writes it and returns its truth file, as
`generator.generate_vault` does), indexes it once with the embedder (its description
vectors are what merge mining reads), then for every point of the grid — every
combination of the values, keys `section.key` of `reme_workbench.config.Settings` —
copies it and runs consolidate on the copy as a weekly schedule would find it:

1. the split queue holds every note whose body is over `[split] token_threshold` (what
   dream's writes would have queued);
2. a communities run a week before the vault's `now`, on the vault as it was then (the
   notes the truth lists as written this week — the forming communities' — are moved
   aside for it), so communities have a stability;
3. every phase at `now` (communities too, when `only` leaves them out, so the other
   phases read this week's) (the clock is the truth's `now`, so recency sees the planted
   ages), with the brain counted call by call.

Each point gives one row of a tidy table (`SweepRow.to_json()`), the parameters first:
communities found and their NMI against the planted ones; merge candidates with their
recall and precision against the planted duplicate pairs, merge proposals with theirs,
distinct pairs proposed (near misses and others), uncertain pairs; hub proposals,
those for a community that already had its hub and those for a community still forming; split proposals against the overloaded
notes; archived notes against the stale ones; brain calls and tokens. The offline brain
is the default; pass `brain` (a model's, or one replaying a cassette: then a sweep is
reproducible and costs nothing) to measure another.
"""

from __future__ import annotations

import csv
import itertools
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from reme_workbench.config import Settings
from reme_workbench.errors import RemeError
from reme_workbench.llm.base import Usage
from reme_workbench.llm.consolidate import ConsolidateBrain
from reme_workbench.vault.vault import Vault

__all__ = ["PlantedTruth", "SweepRow", "grid_points", "settings_at", "CountingBrain", "run_point",
           "sweep", "write_csv", "read_csv", "SECTIONS"]

# the settings a sweep may vary: the thresholds of consolidate
SECTIONS = ("merge", "abstract", "archive", "split", "communities", "cooldowns")


@dataclass(frozen=True)
class PlantedTruth:
    communities: dict[str, int]
    duplicates: frozenset[frozenset[str]]
    near_misses: frozenset[frozenset[str]]
    stale: frozenset[str]
    hubs: dict[str, str]  # community -> its hub note
    overloaded: frozenset[str]
    now: datetime
    forming: dict[str, frozenset[str]] = field(default_factory=dict)  # community -> new notes

    @classmethod
    def read(cls, path: Path | str) -> PlantedTruth:
        from .generator import read_truth

        planted = read_truth(Path(path))["planted"]
        pairs = lambda rows: frozenset(frozenset((r["a"], r["b"])) for r in rows)  # noqa: E731
        return cls(dict(planted["communities"]["notes"]), pairs(planted["duplicates"]),
                   pairs(planted["near_misses"]), frozenset(planted["stale"]),
                   dict(planted["hubs"]), frozenset(planted["overloaded"]),
                   datetime.fromisoformat(planted["now"]),
                   {c: frozenset(paths) for c, paths in planted.get("forming", {}).items()})


def grid_points(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, keys in the grid's order, the first key
    varying slowest; refuses a key that is no consolidate setting."""
    for key in grid:
        section, _, name = key.partition(".")
        if section not in SECTIONS or name not in type(getattr(Settings(), section)).model_fields:
            raise RemeError(f"{key!r} is not a consolidate setting; use section.key with a "
                            f"section of {', '.join(SECTIONS)} (as in reme.toml), e.g. "
                            "merge.min_description_similarity.")
        if isinstance(grid[key], str) or not isinstance(grid[key], Sequence) or not grid[key]:
            raise RemeError(f"The grid's {key} needs a list of values, e.g. [0.5, 0.6].")
    keys = list(grid)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*grid.values())]


def settings_at(base: Settings, point: Mapping[str, Any]) -> Settings:
    """`base` with the point's values, validated as reme.toml would be."""
    doc = base.model_dump()
    for key, value in point.items():
        section, _, name = key.partition(".")
        doc[section][name] = value
    try:
        return Settings.model_validate(doc)
    except Exception as exc:  # pydantic says which value is out of range
        raise RemeError(f"The grid point {dict(point)} is not a valid setting: {exc}") from None


class CountingBrain(ConsolidateBrain):
    """A consolidate brain that counts its calls per task and adds up their tokens."""

    def __init__(self, inner: ConsolidateBrain) -> None:
        self.inner = inner
        self.model = getattr(inner, "model", "?")
        self.calls: dict[str, int] = {}
        self.usage = Usage()

    def _count(self, task: str, reply):
        self.calls[task] = self.calls.get(task, 0) + 1
        self.usage = self.usage + reply.usage
        return reply

    def vote(self, request):
        return self._count("vote", self.inner.vote(request))

    def merge(self, request):
        return self._count("merge", self.inner.merge(request))

    def plan_split(self, request):
        return self._count("split", self.inner.plan_split(request))

    def write_hub(self, request):
        return self._count("hub", self.inner.write_hub(request))


@dataclass(frozen=True)
class SweepRow:
    point: dict[str, Any]
    metrics: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {**self.point, **self.metrics}


def _ratio(hit: int, total: int) -> float | None:
    return round(hit / total, 4) if total else None


def _queue_overloaded(vault: Vault, threshold: int, now: datetime) -> int:
    """Queue every digest note over the split threshold, as dream's writes would have."""
    from reme_workbench.vault.layout import is_digest_note
    from reme_workbench.vault.note import parse
    from reme_workbench.vault.split_queue import enqueue_splits
    from reme_workbench.vault.tokens import content_tokens

    over = []
    for path, rec in vault.scan.records.items():
        if is_digest_note(path) and rec.readable:
            tokens = content_tokens(parse((vault.root / path).read_text(encoding="utf-8"), path).body)
            if tokens > threshold:
                over.append((path, tokens))
    if over:
        enqueue_splits(vault.root, sorted(over), by="experiment", now=now)
    return len(over)


VaultOpener = Callable[[Path, Callable[[], datetime], Settings], Vault]


def plain_vault(root: Path, clock: Callable[[], datetime], settings: Settings) -> Vault:
    """The vault at `root` on `clock`, with the library's default limits (a caller with a
    workspace passes its own opener, which applies the settings' [vault] limits)."""
    return Vault.open(root, clock=clock)


def _communities_a_week_before(vault_root: Path, truth: PlantedTruth, settings: Settings,
                               embedder, open_vault: VaultOpener = plain_vault) -> None:
    """The previous weekly communities run, on the vault as it was: the notes written
    this week (the forming communities') are moved out of it for the run, then back."""
    from reme_workbench.consolidate.run import Consolidator

    week_before = truth.now - timedelta(days=7)
    new = sorted(p for paths in truth.forming.values() for p in paths)
    # beside the vault: a rename, which keeps the files' times
    with tempfile.TemporaryDirectory(prefix=".reme-sweep-new-", dir=vault_root.parent) as aside:
        for k, path in enumerate(new):
            shutil.move(vault_root / path, Path(aside) / f"{k}.md")
        try:
            vault = open_vault(vault_root, lambda: week_before, settings)
            Consolidator(vault, settings, embedder=embedder, clock=lambda: week_before).run(
                "communities", force=True)
        finally:
            for k, path in enumerate(new):
                shutil.move(Path(aside) / f"{k}.md", vault_root / path)


def run_point(vault_root: Path, truth: PlantedTruth, settings: Settings, *, brain: ConsolidateBrain,
              embedder, only: str | Iterable[str] | None = None,
              open_vault: VaultOpener = plain_vault) -> dict[str, Any]:
    """Consolidate the vault at `vault_root` (a copy: it is written) with `settings`, and
    score it against `truth` (see the module doc). `only` names the phases to run (all by
    default); the measures of a phase not run are left out."""
    from reme_workbench.consolidate.run import Consolidator, parse_only
    from reme_workbench.proposals import ProposalQueue

    from .generator import normalized_mutual_info

    started = time.monotonic()
    now = truth.now
    vault = open_vault(vault_root, lambda: now, settings)
    queued = _queue_overloaded(vault, settings.split.token_threshold, now)
    _communities_a_week_before(vault_root, truth, settings, embedder, open_vault)
    vault = open_vault(vault_root, lambda: now, settings)
    if "communities" not in parse_only(only):  # the other phases read this week's
        Consolidator(vault, settings, embedder=embedder, clock=lambda: now).run("communities", force=True)
    counting = CountingBrain(brain)
    report = Consolidator(vault, settings, brain=counting, embedder=embedder,
                          clock=lambda: now).run(parse_only(only), force=True)
    phases = {p.phase: p for p in report.phases}
    queue = {p.id: p for p in ProposalQueue(vault).list()}
    out: dict[str, Any] = {}

    from reme_workbench.consolidate.abstract import load_communities

    communities, _, _ = load_communities(vault_root)  # this run's, or the week before's
    out["communities"] = len(set(communities.values())) if communities else 0
    out["nmi"] = round(normalized_mutual_info(truth.communities, communities or {}), 4) if communities else None

    if "merge" in phases:
        out.update(_merge_measures(phases["merge"].details or {}, queue, truth))
    if "abstract" in phases:
        out.update(_hub_measures(phases["abstract"].details or {}, queue, truth))
    if "split" in phases:
        out.update(_split_measures(phases["split"].details or {}, truth, queued))
    if "archive" in phases:
        out.update(_archive_measures(vault_root, truth))
    out.update({
        "brain_calls": sum(counting.calls.values()),
        **{f"calls_{k}": v for k, v in sorted(counting.calls.items())},
        "prompt_tokens": counting.usage.prompt_tokens,
        "completion_tokens": counting.usage.completion_tokens,
        "seconds": round(time.monotonic() - started, 2),
    })
    return out


def _merge_measures(merge: dict, queue: dict, truth: PlantedTruth) -> dict[str, Any]:
    proposed = set()
    for row in merge.get("proposals", []):
        story = queue[row["id"]].story
        proposed.add(frozenset((story["winner"], story["loser"])))
    uncertain = {frozenset((u["candidate"]["a"], u["candidate"]["b"])) for u in merge.get("uncertain", [])}
    others = {frozenset((c["a"], c["b"])) for c in merge.get("dropped", [])}
    others |= {frozenset((c["a"], c["b"])) for c in (*merge.get("rejected", []), *merge.get("skipped", []))}
    candidates = proposed | uncertain | others
    planted = truth.duplicates
    return {
        "merge_candidates": len(candidates),
        "candidate_recall": _ratio(len(candidates & planted), len(planted)),
        "candidate_precision": _ratio(len(candidates & planted), len(candidates)),
        "merge_proposals": len(proposed),
        "merge_precision": _ratio(len(proposed & planted), len(proposed)),
        "merge_recall": _ratio(len(proposed & planted), len(planted)),
        "distinct_proposed": len(proposed - planted),
        "near_misses_proposed": len(proposed & truth.near_misses),
        "uncertain": len(uncertain),
    }


def _hub_measures(abstract: dict, queue: dict, truth: PlantedTruth) -> dict[str, Any]:
    hub_members = {c: {p for p, cc in truth.communities.items() if str(cc) == c} for c in truth.hubs}
    hubs = [queue[o["proposal"]] for o in abstract.get("outcomes", []) if o.get("proposal") in queue]
    redundant = 0
    for proposal in hubs:
        members = set(proposal.story.get("members") or [])
        redundant += any(truth.hubs[c] in members for c in hub_members)
    # a hub over a community still forming: most of its members belong to one of them
    forming = 0
    for proposal in hubs:
        members = proposal.story.get("members") or []
        top = Counter(str(truth.communities.get(m)) for m in members).most_common(1)
        forming += bool(top) and top[0][0] in truth.forming and top[0][1] * 2 > len(members)
    return {"hub_proposals": len(hubs), "hubs_where_one_existed": redundant,
            "hubs_for_forming": forming}


def _split_measures(split: dict, truth: PlantedTruth, queued: int) -> dict[str, Any]:
    made = [o for o in split.get("outcomes", []) if o.get("state") in ("pending", "applied")]
    split_paths = {o["path"] for o in made}
    return {
        "split_queued": queued,
        "split_proposals": len(split_paths),
        "split_recall": _ratio(len(split_paths & truth.overloaded), len(truth.overloaded)),
        "split_precision": _ratio(len(split_paths & truth.overloaded), len(split_paths)),
    }


def _archive_measures(vault_root: Path, truth: PlantedTruth) -> dict[str, Any]:
    from reme_workbench.consolidate.archive import ARCHIVED_META, META_VERSION
    from reme_workbench.vault.meta import read_meta

    archived = set((read_meta(vault_root, ARCHIVED_META, version=META_VERSION).data or {})
                   .get("archived") or [])
    return {
        "archived": len(archived),
        "archive_recall": _ratio(len(archived & truth.stale), len(truth.stale)),
        "archive_precision": _ratio(len(archived & truth.stale), len(archived)),
    }


def _offline(vault_root: Path, embedder, settings: Settings) -> ConsolidateBrain:
    """The offline brain as consolidate builds it from `settings` (its split cut is one):
    the workspace's, the one place brains are built."""
    from reme_workbench.ops import Workspace

    ws = Workspace(vault_root, settings=settings, embedder=embedder, brain_spec="offline")
    return ws.get_consolidate_brain()


def sweep(vault_factory: Callable[[Path], Path], grid: Mapping[str, Sequence[Any]], *,
          brain: ConsolidateBrain | None = None, embedder: str | Any = "auto",
          base: Settings | None = None, workdir: Path | None = None,
          only: str | Iterable[str] | None = None,
          progress: Callable[[int, int, dict], None] | None = None,
          open_vault: VaultOpener = plain_vault) -> list[SweepRow]:
    """One row per grid point (see the module doc). `embedder` is a spec ("auto": as for a
    new index, docs/benchmarks.md) or an embedder; `only` the consolidate phases to run (all by
    default: the archive cut needs no merge votes); `workdir` keeps the copies (else a
    temporary folder, removed at the end); `open_vault` opens each copy (`grid_sweep.py` passes
    the workspace's, so [vault] limits act)."""
    from reme_workbench.consolidate.run import parse_only
    from reme_workbench.index.factory import get_embedder
    from reme_workbench.index.store import VaultIndex

    points = grid_points(grid)
    phases = parse_only(only)  # refused before any work when a name is wrong
    base = base or Settings()
    emb = get_embedder(embedder) if isinstance(embedder, str) else embedder
    scratch = None
    if workdir is None:
        scratch = tempfile.TemporaryDirectory(prefix="reme-sweep-")
        workdir = Path(scratch.name)
    try:
        template = Path(workdir) / "template"
        truth_path = Path(vault_factory(template))
        truth = PlantedTruth.read(truth_path)
        vault = open_vault(template, lambda: truth.now, base)
        with VaultIndex(template, emb, scan=vault.scan) as index:  # descriptions embedded once
            index.refresh()
        rows = []
        for k, point in enumerate(points):
            if progress is not None:
                progress(k, len(points), point)
            copy = Path(workdir) / f"point-{k:03d}"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(template, copy)
            settings = settings_at(base, point)
            rows.append(SweepRow(point, run_point(copy, truth, settings, embedder=emb, only=phases,
                                                  brain=brain or _offline(copy, emb, settings),
                                                  open_vault=open_vault)))
            if scratch is not None:
                shutil.rmtree(copy, ignore_errors=True)
        if progress is not None:
            progress(len(points), len(points), {})
        return rows
    finally:
        if scratch is not None:
            scratch.cleanup()


def read_csv(path: Path | str) -> list[dict]:
    """The rows `write_csv` wrote, as dicts with numbers parsed back (an empty cell is None)."""
    def value(cell: str):
        if cell == "":
            return None
        for kind in (int, float):
            try:
                return kind(cell)
            except ValueError:
                pass
        return cell

    with Path(path).open(newline="", encoding="utf-8") as fh:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def write_csv(rows: Iterable[SweepRow], path: Path | str) -> Path:
    """The rows as CSV, every column any row has, parameters first."""
    rows = list(rows)
    columns: list[str] = []
    for row in rows:
        for key in row.to_json():
            if key not in columns:
                columns.append(key)
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow(row.to_json())
    return path
