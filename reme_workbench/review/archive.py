"""The soft archive as a person reviews it: every note's recency score, the cut, the
archived notes (thawing one by hand is the operation `ops.thaw`).

Reads `meta/recency.json` and `meta/archived.json` (docs/spec.md §7.3). The archived
notes are those of the last batch less the ones touched since (a dream update, an
opening, a thaw: `vault/archive_state.py`), as recall sees them. Thawing by hand is a
touch (§7.3.6): an access-log event `thaw` for the note (a change event: its recency
starts again from now, and the next batch sees it touched and keeps it out), and the note
taken off `meta/archived.json`. The archived file keeps its batch time and log offset,
which the next batch compares touches with. No note is moved or edited.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..config import ArchiveSettings
from ..consolidate.archive import ARCHIVED_META, META_VERSION, RECENCY_META
from ..vault.archive_state import ArchiveBatch
from ..vault.meta import read_meta
from ..vault.vault import Vault

__all__ = ["ArchiveOverview", "archive_overview", "THAW_EVENT"]

THAW_EVENT = "thaw"


@dataclass(frozen=True)
class ArchiveOverview:
    scores: dict[str, float]  # path -> stored recency (0..1)
    archived: tuple[str, ...]  # archived now: the batch's list less the notes touched since
    threshold: float
    computed_at: str | None  # the archive batch these come from
    tau_days: float | None
    warnings: tuple[str, ...] = ()

    def days_left(self, path: str) -> tuple[float, bool] | None:
        """(days until `path` falls under the cut if nobody uses or changes it, whether
        that is only a lower bound), or None when it is under already or τ is unknown. A
        stored score of 1.0 is clipped (§7.3.4): the raw one may be higher, so later."""
        score = self.scores.get(path)
        if score is None or not self.tau_days or score < self.threshold or self.threshold <= 0:
            return None
        return self.tau_days * math.log(score / self.threshold), score >= 1.0

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
        arch.get("computed_at") or doc.get("computed_at"), doc.get("tau_update_days"), warnings)
