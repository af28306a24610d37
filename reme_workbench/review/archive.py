"""The soft archive as a person reviews it: every note's recency score, the cut, the
archived notes (thawing one by hand is the operation `ops.thaw`).

Reads `meta/recency.json` and `meta/archived.json` (docs/spec.md §7.3). The archived
notes are those of the last batch less the ones touched since (a dream update, an
opening, a thaw: `vault/archive_state.py`), as recall sees them. Thawing by hand is a
touch (§7.3.6): an access-log event `thaw` for the note (a change event: its recency
starts again from now, and the next batch sees it touched and keeps it out), and the note
taken off `meta/archived.json`. The archived file keeps its batch time and log offset,
which the next batch compares touches with. No note is moved or edited.

The stored score is clipped to [0, 1] (§7.3.4, recall reads it as a factor): a note used
or linked lately scores above 1 raw and is stored as 1.000, so in a young or busy vault
every note reads 1.000 and "when does it fall under the cut" has no answer. The screen
reads the raw scores too (`raw_scores`): §7.3.1's formula over the same inputs — the
access log up to the batch, the files' times, the links — at the batch's time, with the
batch's τ, scale and window; they spread, and a note's days until the cut are exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..config import ArchiveSettings
from ..consolidate.archive import (
    ARCHIVED_META,
    META_VERSION,
    RECENCY_META,
    THAW_EVENT,
    note_activity,
    read_access_log,
    recency_score,
)
from ..vault.archive_state import ArchiveBatch
from ..vault.meta import as_utc, read_meta
from ..vault.vault import Vault

__all__ = ["ArchiveOverview", "archive_overview", "raw_scores", "THAW_EVENT"]



@dataclass(frozen=True)
class ArchiveOverview:
    scores: dict[str, float]  # path -> stored recency (0..1)
    archived: tuple[str, ...]  # archived now: the batch's list less the notes touched since
    threshold: float
    computed_at: str | None  # the archive batch these come from
    tau_days: float | None
    warnings: tuple[str, ...] = ()
    raw: dict[str, float] = field(default_factory=dict)  # path -> unclipped score (module doc)

    def score(self, path: str) -> float | None:
        """`path`'s raw score when known, else its stored one."""
        return self.raw.get(path, self.scores.get(path))

    def days_left(self, path: str) -> tuple[float, bool] | None:
        """(days until `path` falls under the cut if nobody uses or changes it, whether
        that is only a lower bound), or None when it is under already or τ is unknown. A
        stored score of 1.0 without its raw one is clipped (§7.3.4): the raw one may be
        higher, so later."""
        score = self.score(path)
        if score is None or not self.tau_days or score < self.threshold or self.threshold <= 0:
            return None
        return self.tau_days * math.log(score / self.threshold), path not in self.raw and score >= 1.0

    def below(self) -> list[str]:
        """Notes under the cut (archived, or kept out by a touch since the batch)."""
        return sorted(p for p, s in self.scores.items() if s < self.threshold)


def archive_overview(vault: Vault, *,
                     default_threshold: float = ArchiveSettings().threshold) -> ArchiveOverview:
    recency = read_meta(vault.root, RECENCY_META, version=META_VERSION)
    archived = read_meta(vault.root, ARCHIVED_META, version=META_VERSION)
    warnings = tuple(r.warning for r in (recency, archived) if r.warning and r.exists)
    if not recency.exists:
        warnings += ("No recency scores yet: run `reme-workbench consolidate --only archive`.",)
    doc, arch = recency.data or {}, archived.data or {}
    scores = {p: float(s) for p, s in (doc.get("scores") or {}).items()
              if isinstance(p, str) and isinstance(s, int | float) and not isinstance(s, bool)}
    batch = ArchiveBatch.from_doc(arch)
    now = batch.archived_now(vault.root) if batch is not None else frozenset()
    listed = tuple(p for p in arch.get("archived") or [] if isinstance(p, str) and p in now)
    threshold = arch.get("threshold")
    return ArchiveOverview(
        scores, listed, float(threshold) if isinstance(threshold, int | float) else default_threshold,
        arch.get("computed_at") or doc.get("computed_at"), doc.get("tau_update_days"), warnings,
        raw_scores(vault, doc, scores))


def _number(doc: dict, key: str) -> float | None:
    value = doc.get(key)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return float(value) if ok else None


def raw_scores(vault: Vault, recency: dict, stored: dict[str, float]) -> dict[str, float]:
    """The unclipped §7.3.1 score of each stored note (module doc), as the batch of
    `recency` (meta/recency.json's content) computed it; {} when that file does not say
    its time and settings. A note gone since is left out."""
    tau, scale = _number(recency, "tau_update_days"), _number(recency, "centrality_scale")
    window = _number(recency, "hit_window_days")
    try:
        at = as_utc(datetime.fromisoformat(str(recency.get("computed_at"))))
    except ValueError:
        return {}
    if tau is None or scale is None or window is None or not stored:
        return {}
    graph = vault.graph.graph
    notes = [p for p in stored if p in graph]
    events = ((p, e, ts) for p, e, ts in read_access_log(vault.root) if ts <= at)
    activity = note_activity(events, now=at, window_days=window, paths=notes)
    records, pred, out = vault.scan.records, graph.pred, {}
    for path in notes:
        act = activity.get(path)
        updated = datetime.fromtimestamp(records[path].mtime_ns / 1e9, UTC)
        if act is not None and act.last_change is not None and act.last_change > updated:
            updated = act.last_change
        inbound = len(pred[path]) - (1 if path in pred[path] else 0)
        out[path] = round(recency_score((at - updated).total_seconds() / 86400.0,
                                        act.hits if act else 0, inbound,
                                        tau_days=tau, scale=scale), 6)
    return out
