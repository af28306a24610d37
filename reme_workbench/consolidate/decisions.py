"""A person's decisions on uncertain duplicate pairs: `meta/merge_decisions.json`.

The merge phase reports a pair only one judge calls the same in
`audit/<date>/dups_uncertain.md` (docs/spec.md §7.7.3); a person then routes it — merge
anyway, keep both, or hand it to dream as an update. Without a record, the same pair
would be reported again every week. A decision holds while both notes are byte for byte
what they were when it was taken (their sha256): a change to either one may change the
answer, so the pair can be reported again.

    {"version": 1, "computed_at": "...Z",
     "pairs": [{"a", "b", "route", "decided_at", "sha256": {a: .., b: ..}, "proposal"}]}

The file is a trust boundary (a person may edit it): entries with the wrong shape are
dropped when read; a file of another version or broken JSON is ignored with a warning
and replaced by the next decision.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import RemeError
from ..vault.layout import is_digest_note
from ..vault.meta import iso_utc, read_meta, write_meta

__all__ = ["DECISIONS_META", "ROUTES", "PairDecision", "read_decisions", "record_decision",
           "decision_holds", "file_sha256"]

DECISIONS_META = "merge_decisions"
VERSION = 1
ROUTES = ("merge", "keep_both", "dream_update")


@dataclass(frozen=True)
class PairDecision:
    a: str
    b: str
    route: str  # one of ROUTES
    decided_at: str
    sha256: dict[str, str]  # path -> sha256 of the note when decided
    proposal: str | None = None  # the proposal the route made, if any

    @property
    def pair(self) -> frozenset[str]:
        return frozenset((self.a, self.b))

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "route": self.route, "decided_at": self.decided_at,
                "sha256": dict(self.sha256), "proposal": self.proposal}


def file_sha256(root: Path | str, path: str) -> str | None:
    try:
        return hashlib.sha256((Path(root) / path).read_bytes()).hexdigest()
    except OSError:
        return None


def read_decisions(root: Path | str) -> tuple[dict[frozenset[str], PairDecision], str | None]:
    """({pair: its latest decision}, a warning when the file could not be used)."""
    read = read_meta(Path(root), DECISIONS_META, version=VERSION)
    found: dict[frozenset[str], PairDecision] = {}
    for row in (read.data or {}).get("pairs") or []:
        try:
            d = PairDecision(str(row["a"]), str(row["b"]), str(row["route"]), str(row["decided_at"]),
                             {str(k): str(v) for k, v in dict(row["sha256"]).items()},
                             row.get("proposal") if isinstance(row.get("proposal"), str) else None)
        except (KeyError, TypeError, ValueError):
            continue
        if d.route in ROUTES and is_digest_note(d.a) and is_digest_note(d.b):
            found[d.pair] = d
    return found, (read.warning if read.exists else None)


def decision_holds(root: Path | str, decision: PairDecision) -> bool:
    """Both notes are still what they were when the person decided."""
    return all(file_sha256(root, p) == decision.sha256.get(p) for p in (decision.a, decision.b))


def record_decision(root: Path | str, a: str, b: str, route: str, *, now: datetime,
                    proposal: str | None = None) -> PairDecision:
    """Record (or replace) the decision on the pair {a, b}, with both notes' sha256 now."""
    if route not in ROUTES:
        raise RemeError(f"Unknown route {route!r}; use one of {', '.join(ROUTES)}.")
    if not (is_digest_note(a) and is_digest_note(b)) or a == b:
        raise RemeError(f"A decision is on two different digest notes, not {a!r} and {b!r}.")
    shas = {p: file_sha256(root, p) for p in (a, b)}
    missing = [p for p, s in shas.items() if s is None]
    if missing:
        raise RemeError(f"{', '.join(missing)} cannot be read; there is no pair to decide on.")
    decisions, _ = read_decisions(root)
    decision = PairDecision(a, b, route, iso_utc(now), {p: s for p, s in shas.items() if s},
                            proposal)
    decisions[decision.pair] = decision
    write_meta(Path(root), DECISIONS_META,
               {"pairs": [d.to_json() for d in sorted(decisions.values(), key=lambda d: (d.a, d.b))]},
               version=VERSION, now=now)
    return decision
