"""The votes on a merge pair and the uncertain-duplicates report (docs/spec.md §7.7.2).

A vote as the merge phase saw it (`Vote`), a pair a person should look at
(`UncertainPair`), and the sections of `audit/<date>/dups_uncertain.md` they make
(`render_uncertain`, appended by `append_uncertain`; review/uncertain.py reads them
back); and the audit line's account of the sentences a merge drops (`dropped_line`,
§7.7.5). Split from `merge` so each stays short; `merge` re-exports the first names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..vault.store import audit_path
from .candidates import MergeCandidate

if TYPE_CHECKING:
    from ..vault.vault import Vault

__all__ = ["UNCERTAIN_KIND", "Vote", "UncertainPair", "render_uncertain",
           "append_uncertain", "suggestion", "dropped_line"]

UNCERTAIN_KIND = "dups_uncertain"  # audit/<date>/dups_uncertain.md


@dataclass(frozen=True)
class Vote:
    """One judge's vote as the run saw it; `agrees` applies the confidence rule."""

    judge: int
    is_same: bool
    confidence: float
    reason: str
    agrees: bool
    raw: str = ""
    model: str = ""

    def to_json(self) -> dict:
        return {"judge": self.judge, "is_same": self.is_same,
                "confidence": round(self.confidence, 4), "reason": self.reason,
                "agrees": self.agrees, "raw": self.raw, "model": self.model}


@dataclass(frozen=True)
class UncertainPair:
    """A pair a person should look at: too few agreeing votes, or pinned by sources."""

    candidate: MergeCandidate
    names: tuple[str, str]
    votes: tuple[Vote, ...]
    why: str
    suggestion: str

    def to_json(self) -> dict:
        return {"candidate": self.candidate.to_json(), "names": list(self.names),
                "votes": [v.to_json() for v in self.votes], "why": self.why,
                "suggestion": self.suggestion}


def _judges(votes: Iterable[Vote]) -> str:
    """"judge 2", "judges 1 and 3" (numbered from 1 for a person; the story keeps 0-based)."""
    numbers = [str(v.judge + 1) for v in votes]
    if len(numbers) == 1:
        return f"judge {numbers[0]}"
    return "judges " + ", ".join(numbers[:-1]) + " and " + numbers[-1]


def suggestion(votes: tuple[Vote, ...], pinned: bool) -> str:
    yes = [v for v in votes if v.agrees]
    say = "says" if len(yes) == 1 else "say"
    if pinned:
        return (f"{_judges(yes).capitalize()} {say} duplicate, but daily/ or resource/ links to "
                "both notes and reme-workbench never rewrites sources: merge by hand and fix "
                "the source links yourself, or leave them.")
    if len(yes) == 1:
        return (f"Looks like a duplicate to {_judges(yes)} only: compare the bodies; merge by "
                "hand or leave them.")
    return f"Only {_judges(yes)} say duplicate: compare the bodies; merge by hand or leave them."


def _link_words(name: str) -> str:
    # a name is the person's text: brackets or a pipe would break the heading's link
    return " ".join(re.sub(r"[\[\]|#]", " ", name).split()) or "?"


def render_uncertain(pairs: Iterable[UncertainPair], *, min_confidence: float) -> str:
    """The sections of `audit/<date>/dups_uncertain.md`, one per pair (Markdown for
    Obsidian); `min_confidence` is the run's `[merge] min_confidence`, which a vote under
    it is said to miss."""
    sections = []
    for pair in pairs:
        c = pair.candidate
        lines = [
            _heading(pair),
            "",
            f"- community `{c.community_label}` · description similarity "
            f"{c.description_similarity:.2f} · body overlap {c.body_overlap:.2f}",
            f"- {pair.why}",
        ]
        for v in pair.votes:
            answer = "**yes**" if v.agrees else ("yes" if v.is_same else "no")
            under = f" (under {min_confidence:g}, does not count)" if v.is_same and not v.agrees else ""
            lines.append(f"- judge {v.judge + 1}: {answer}, confidence {v.confidence:.2f}{under} "
                         f"— {v.reason}")
        lines.append(f"- suggestion: {pair.suggestion}")
        sections.append("\n".join(lines) + "\n")
    return "\n".join(sections)


def append_uncertain(vault: Vault, pairs: list[UncertainPair], min_confidence: float
                     ) -> tuple[str | None, int]:
    """Append the pairs not yet in today's report (a second run the same day adds no
    duplicate sections); returns (the report's path, or None when there is none, and how
    many pairs were new — 0: nothing was written)."""
    rel = audit_path(UNCERTAIN_KIND, vault.clock())
    current = vault.store.read(rel)
    seen = current[0].decode("utf-8", errors="replace") if current else ""
    fresh = [p for p in pairs if _heading(p) not in seen]
    if fresh:
        vault.record_audit(UNCERTAIN_KIND, render_uncertain(fresh, min_confidence=min_confidence))
    return (rel if fresh or current else None), len(fresh)


def dropped_line(dropped: list[dict], shown: int = 5) -> str:
    """The audit line's tail for a merge that drops sentences (docs/spec.md §7.7.5):
    how many, and the first few as written, each with the note that said it."""
    if not dropped:
        return ""
    said = "; ".join(f"“{d['sentence']}” ({d['note']}"
                     + (f", now “{d['closest']}”" if d.get("closest") else "") + ")"
                     for d in dropped[:shown])
    more = f" and {len(dropped) - shown} more" if len(dropped) > shown else ""
    return (f"; held for a person: {len(dropped)} statement(s) dropped: {said}{more} — "
            "accept only if the merged note may say less")


def _heading(pair: UncertainPair) -> str:
    c = pair.candidate
    return (f"## [[{c.a}|{_link_words(pair.names[0])}]] ⟷ "
            f"[[{c.b}|{_link_words(pair.names[1])}]]")
