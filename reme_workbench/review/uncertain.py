"""Uncertain duplicates as a person reviews them: the entries of every
`audit/<date>/dups_uncertain.md`. The three routes (docs/spec.md §7.7.3) are operations
(`ops.merge_anyway`, `ops.keep_both`, `ops.hand_to_dream`), each a real action:

* **merge anyway** — the merge phase runs for the pair as a person's decision: the three
  votes are asked and recorded as always, the proposal is made whatever they say, and it
  waits in the queue (`consolidate.merge`) for the person to accept it;
* **keep both** — recorded in `meta/merge_decisions.json`: the pair is not reported or
  voted on again while both notes are unchanged;
* **hand to dream as an update** — the other note becomes an instance of this one: a
  `dream.refine` proposal of `into` that adds a link to the other note with its
  description under `**Instances:**` (both notes stay; every old link of `into` stays,
  as E-1 demands), waiting for the person. It has no material, so its stored checks are
  `keeps_outbound` (E-1), `only_paths`, `no_sources_written` and `links_resolve` (the
  note's old links included), not a dream update's provenance, anchor and name checks.

An entry a decision still holds for is shown with it (`UncertainEntry.decision`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..consolidate.decisions import (
    INSTANCES_LABEL,
    PairDecision,
    decision_holds,
    read_decisions,
)
from ..vault.vault import Vault

__all__ = ["Vote", "UncertainEntry", "uncertain_entries", "parse_uncertain", "INSTANCES_LABEL"]

_HEADING = re.compile(r"^## \[\[([^\]|]+)(?:\|([^\]]*))?\]\] ⟷ \[\[([^\]|]+)(?:\|([^\]]*))?\]\]\s*$")
_META = re.compile(r"^- community `([^`]*)` · description similarity ([\d.]+) · body overlap ([\d.]+)")
_VOTE = re.compile(r"^- judge (\d+): (\*\*yes\*\*|yes|no), confidence ([\d.]+)(?: \([^)]*\))? — (.*)$")


@dataclass(frozen=True)
class Vote:
    judge: int  # 1-based, as the report numbers them
    is_same: bool
    agrees: bool
    confidence: float
    reason: str


@dataclass(frozen=True)
class UncertainEntry:
    """One section of a dups_uncertain report."""

    report: str  # the audit file, vault-relative
    a: str
    b: str
    names: tuple[str, str]
    community: str
    description_similarity: float
    body_overlap: float
    why: str
    votes: tuple[Vote, ...]
    suggestion: str
    decision: PairDecision | None = None  # a person's decision that still holds

    @property
    def pair(self) -> frozenset[str]:
        return frozenset((self.a, self.b))


def parse_uncertain(text: str, report: str = "") -> list[UncertainEntry]:
    """The sections of one report (the format `consolidate.merge.render_uncertain`
    writes; a section it cannot read is skipped)."""
    entries = []
    for chunk in re.split(r"(?m)^(?=## )", text):
        lines = [ln.rstrip() for ln in chunk.strip().splitlines()]
        head = _HEADING.match(lines[0]) if lines else None
        if head is None:
            continue
        a, an, b, bn = head.groups()
        community, sim, overlap, why, suggestion, votes = "", 0.0, 0.0, "", "", []
        for line in lines[1:]:
            if m := _META.match(line):
                community, sim, overlap = m.group(1), float(m.group(2)), float(m.group(3))
            elif m := _VOTE.match(line):
                yes = m.group(2) != "no"
                votes.append(Vote(int(m.group(1)), yes, m.group(2) == "**yes**",
                                  float(m.group(3)), m.group(4)))
            elif line.startswith("- suggestion: "):
                suggestion = line.removeprefix("- suggestion: ")
            elif line.startswith("- ") and not why:
                why = line[2:]
        entries.append(UncertainEntry(report, a, b, (an or a, bn or b), community, sim, overlap,
                                      why, tuple(votes), suggestion))
    return entries


def uncertain_entries(vault: Vault, *, include_decided: bool = False) -> list[UncertainEntry]:
    """Every pair of every report, newest report first, each pair once (its latest
    report); pairs whose notes are gone are left out, and so are pairs a person decided
    on that still holds, unless `include_decided`."""
    decisions, _ = read_decisions(vault.root)
    seen: set[frozenset[str]] = set()
    out = []
    for path in sorted((vault.root / "audit").glob("*/dups_uncertain.md"), reverse=True):
        rel = path.relative_to(vault.root).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for entry in parse_uncertain(text, rel):
            if entry.pair in seen:
                continue
            seen.add(entry.pair)
            if not all((vault.root / p).is_file() for p in (entry.a, entry.b)):
                continue
            decided = decisions.get(entry.pair)
            holds = decided is not None and decision_holds(vault.root, decided)
            if holds and not include_decided:
                continue
            out.append(entry if not holds else _with(entry, decided))
    return out


def _with(entry: UncertainEntry, decision: PairDecision) -> UncertainEntry:
    from dataclasses import replace

    return replace(entry, decision=decision)
