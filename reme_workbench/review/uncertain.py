"""Uncertain duplicates as a person reviews them: the entries of every
`audit/<date>/dups_uncertain.md`, and the three routes (docs/spec.md §7.7.3) — each a
real action:

* **merge anyway** — the merge phase runs for the pair as a person's decision: the three
  votes are asked and recorded as always, the proposal is made whatever they say, and it
  waits in the queue (`consolidate.merge`) for the person to accept it;
* **keep both** — recorded in `meta/merge_decisions.json`: the pair is not reported or
  voted on again while both notes are unchanged;
* **hand to dream as an update** — the other note becomes an instance of this one: a
  `dream.refine` proposal of `into` that adds a link to the other note with its
  description under `**Instances:**` (both notes stay; every old link of `into` stays,
  as E-1 demands), checked like every dream update and waiting for the person.

An entry a decision still holds for is shown with it (`UncertainEntry.decision`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..config import Settings
from ..consolidate.decisions import (
    PairDecision,
    decision_holds,
    read_decisions,
    record_decision,
)
from ..errors import RemeError
from ..proposals import Policy, ProposalQueue
from ..vault.checks import CheckSpec
from ..vault.links import format_link, outbound_keys, parse_links
from ..vault.note import decode_note_bytes, parse, render
from ..vault.store import Edit
from ..vault.vault import Vault

__all__ = ["Vote", "UncertainEntry", "uncertain_entries", "parse_uncertain", "merge_anyway",
           "keep_both", "hand_to_dream", "INSTANCES_LABEL"]

INSTANCES_LABEL = "**Instances:**"
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


# -- the routes -----------------------------------------------------------------------------


def merge_anyway(vault: Vault, entry: UncertainEntry, *, settings: Settings | None = None,
                 brain=None, embedder=None) -> list[str]:
    """A `consolidate.merge` proposal for the pair, waiting for the person (see the module
    doc); returns its id (empty when the notes cannot be merged, with the reason raised)."""
    from ..consolidate.candidates import MergeCandidate
    from ..consolidate.merge import plan_merges
    from .replan import _offline_consolidate_brain

    settings = settings or Settings()
    brain = brain or _offline_consolidate_brain(vault, settings, embedder)
    a, b = sorted((entry.a, entry.b))
    cand = MergeCandidate(a, b, entry.community or "?", entry.description_similarity,
                          entry.body_overlap)
    run = plan_merges(vault, brain, [cand], min_confidence=settings.merge.min_confidence,
                      min_agree=settings.merge.min_agree,
                      split_threshold=settings.split.token_threshold, now=vault.clock(),
                      language=settings.llm.language, policy=Policy.hold_everything(),
                      decided_by_person=True)
    if not run.proposals:
        why = "; ".join(p.reason for p in (*run.skipped, *run.rejected)) or "nothing to merge"
        raise RemeError(f"{a} and {b} cannot be merged: {why}. Merge them by hand or keep both.")
    ids = [p.id for p in run.proposals]
    record_decision(vault.root, a, b, "merge", now=vault.clock(), proposal=ids[0])
    return ids


def keep_both(vault: Vault, entry: UncertainEntry) -> PairDecision:
    """Record that the two notes are distinct (see the module doc)."""
    return record_decision(vault.root, entry.a, entry.b, "keep_both", now=vault.clock())


def hand_to_dream(vault: Vault, entry: UncertainEntry, *, into: str) -> str:
    """A `dream.refine` proposal of `into` (one of the pair) that lists the other note as
    an instance of it (see the module doc); returns its id."""
    if into not in entry.pair:
        raise RemeError(f"{into} is not one of the pair ({entry.a}, {entry.b}).")
    other = entry.b if into == entry.a else entry.a
    current = vault.store.read(into)
    if current is None:
        raise RemeError(f"{into} is gone; there is nothing to update.")
    text = decode_note_bytes(current[0], into, max_bytes=vault.max_note_bytes)
    note = parse(text, into)
    if any(lk.target == other for lk in parse_links(note.body)):
        raise RemeError(f"{into} already links {other}; open both notes and edit them by hand.")
    other_note = vault.scan.records.get(other)
    name = other_note.name if other_note and other_note.name else Path(other).stem
    description = (other_note.description or "").strip() if other_note else ""
    bullet = f"- {format_link(other, alias=name)}" + (f" — {description}" if description else "")
    body = note.body.rstrip("\n")
    if INSTANCES_LABEL in body:  # add to the list this route made before
        head, _, tail = body.partition(INSTANCES_LABEL)
        block, sep, rest = tail.partition("\n\n")
        body = f"{head}{INSTANCES_LABEL}{block}\n{bullet}{sep}{rest}"
    else:
        body, prov = _before_provenance(body)
        body = f"{body}\n\n{INSTANCES_LABEL}\n\n{bullet}" + (f"\n\n{prov}" if prov else "")
    new_text = render(note.with_body(body + "\n"))
    keys = [[t, p] for t, p in sorted(outbound_keys(text), key=lambda k: (k[0], k[1] or ""))]
    checks = [CheckSpec("keeps_outbound", {"path": into, "keys": keys}),
              CheckSpec("only_paths", {"paths": [into]}),
              CheckSpec("no_sources_written", {}),
              CheckSpec("links_resolve", {"path": into, "keep": []})]
    queue = ProposalQueue(vault)
    proposal = queue.new(
        "dream.refine", f"update {into}: {other} is an instance of it (from the uncertain report)",
        [Edit(into, new_text.encode("utf-8"), current[1])], checks=checks,
        story={"route": "uncertain duplicate handed to dream as an update", "report": entry.report,
               "pair": [entry.a, entry.b], "instance": other, "votes": [v.__dict__ for v in entry.votes],
               "checks_passed": [c.name for c in checks]},
        before={into: current[0]})
    queue.save(proposal)
    record_decision(vault.root, entry.a, entry.b, "dream_update", now=vault.clock(),
                    proposal=proposal.id)
    return proposal.id


def _before_provenance(body: str) -> tuple[str, str]:
    """(the body without its closing `derived_from::` lines, those lines)."""
    lines = body.split("\n")
    end = len(lines)
    while end and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("derived_from::")):
        end -= 1
    return "\n".join(lines[:end]).rstrip(), "\n".join(ln for ln in lines[end:] if ln.strip())
