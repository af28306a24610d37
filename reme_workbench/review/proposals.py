"""Reviewing proposals: what a person reads about one.

Pure library code (no widgets, no decisions): the operations layer hands these read
models to the proposal-queue screen (`widgets.ProposalQueueView`) and any other front end.

* `ReviewFilter` picks proposals by state, action family (`dream.`, `consolidate.merge`
  …), bucket and material.
* `story_sections(proposal)` turns a proposal's story into what a person reads, per kind:
  a dream proposal's material, unit, recall evidence with scores and the brain's
  decision; a merge's three votes and its winner; a hub's gates with their values; a
  split's plan — then the checks with their results and the tokens spent.
* `file_diffs(proposal)` is a diff per file with the links it adds and removes (the
  `(target, predicate)` edges, as the conservation checks count them).

The decisions — accept (with a person's edits), reject, revert, batch, re-plan a stale
proposal — are operations (`reme_workbench.ops.decide`, `accept_many`, `replan`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..proposals.model import Proposal, op_kind
from ..vault.layout import BUCKETS
from ..vault.links import outbound_keys
from ..vault.store import Delete

__all__ = [
    "ReviewFilter",
    "Section",
    "FileDiff",
    "bucket_of",
    "material_of",
    "story_sections",
    "checks_of",
    "tokens_of",
    "file_diffs",
]


# -- picking -------------------------------------------------------------------------------


def bucket_of(proposal: Proposal) -> str | None:
    """The bucket of the first digest note the proposal writes, else None."""
    for path in proposal.paths:
        parts = path.split("/")
        if len(parts) > 2 and parts[0] == "digest" and parts[1] in BUCKETS:
            return parts[1]
    return None


def material_of(proposal: Proposal) -> str | None:
    """The material a dream proposal came from; for consolidate proposals the first
    source their story names (a merge's, a split's or a hub's provenance), else None."""
    story = proposal.story
    if isinstance(story.get("material"), str):
        return story["material"]
    for key in ("provenance",):
        got = story.get(key)
        if isinstance(got, list) and got and isinstance(got[0], str):
            return got[0]
    return None


@dataclass(frozen=True)
class ReviewFilter:
    """Which proposals a review screen shows. `actions` are prefixes (`"dream."`,
    `"consolidate.merge"`); empty means every action. `state=None` means every state."""

    state: str | None = "pending"
    actions: tuple[str, ...] = ()
    bucket: str | None = None
    material: str | None = None

    def matches(self, proposal: Proposal) -> bool:
        if self.state is not None and proposal.state != self.state:
            return False
        if self.actions and not any(proposal.action.startswith(a) for a in self.actions):
            return False
        if self.bucket is not None and bucket_of(proposal) != self.bucket:
            return False
        return self.material is None or material_of(proposal) == self.material

    def pick(self, proposals: Iterable[Proposal]) -> list[Proposal]:
        return [p for p in proposals if self.matches(p)]


# -- the story -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One titled part of what a person reads about a proposal: lines of text, or rows
    of a small table (`header` names the columns)."""

    title: str
    lines: tuple[str, ...] = ()
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value else "0"
    if value is None:
        return "—"
    return str(value)


def checks_of(proposal: Proposal) -> list[tuple[str, bool, str]]:
    """(check name, passed, why it failed) of the checks the story recorded when the
    proposal was planned; a stored check with no recorded result counts as passed at
    planning (its plan was refused otherwise) and runs again at accept."""
    story = proposal.story
    out: list[tuple[str, bool, str]] = []
    recorded = story.get("checks")
    if isinstance(recorded, list):
        for item in recorded:
            if isinstance(item, Mapping) and "name" in item:
                failures = item.get("failures") or []
                out.append((str(item["name"]), not failures, "; ".join(map(str, failures))))
    seen = {name for name, _, _ in out}
    passed = story.get("checks_passed")
    for name in passed if isinstance(passed, list) else [c.name for c in proposal.checks]:
        if str(name) not in seen:
            out.append((str(name), True, ""))
            seen.add(str(name))
    return out


def tokens_of(proposal: Proposal) -> dict[str, int]:
    """Prompt / completion / cached tokens the proposal cost (0 with the offline brain)."""
    total = {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0}
    story = proposal.story
    sources: list[Mapping] = []
    for key in ("tokens", "tokens_used", "usage"):
        if isinstance(story.get(key), Mapping) and "prompt_tokens" in story[key]:
            sources.append(story[key])
            break
    else:
        for attempt in story.get("attempts") or []:
            if isinstance(attempt, Mapping) and isinstance(attempt.get("usage"), Mapping):
                sources.append(attempt["usage"])
    for usage in sources:
        for key in total:
            value = usage.get(key)
            if isinstance(value, int):
                total[key] += value
    return total


def story_sections(proposal: Proposal) -> list[Section]:
    """What a person reads about why the proposal was made (see the module doc)."""
    story, action = proposal.story, proposal.action
    sections = [Section("Proposal", (f"{proposal.action} · {proposal.state}", proposal.summary)
                        + ((f"error: {proposal.error}",) if proposal.error else ()))]
    if action.startswith("dream."):
        sections += _dream_sections(story)
    elif action == "consolidate.merge":
        sections += _merge_sections(story)
    elif action == "consolidate.abstract":
        sections += _abstract_sections(story)
    elif action == "consolidate.split":
        sections += _split_sections(story)
    checks = checks_of(proposal)
    if checks:
        sections.append(Section("Checks", header=("check", "result", "why"), rows=tuple(
            (name, "pass" if ok else "FAIL", why) for name, ok, why in checks)))
    tokens = tokens_of(proposal)
    sections.append(Section("Tokens", (
        f"prompt {tokens['prompt_tokens']:,} · completion {tokens['completion_tokens']:,} · "
        f"cached {tokens['cached_tokens']:,}",)))
    return sections


def _last_decision(story: Mapping) -> Mapping:
    for attempt in reversed(story.get("attempts") or []):
        if isinstance(attempt, Mapping) and isinstance(attempt.get("decision"), Mapping):
            return attempt["decision"]
    return {}


def _dream_sections(story: Mapping) -> list[Section]:
    unit = story.get("unit") if isinstance(story.get("unit"), Mapping) else {}
    out = [Section("Material", (_fmt(story.get("material")),)),
           Section("Unit", (f"{unit.get('name', '?')} ({unit.get('bucket', '?')})",
                            _fmt(unit.get("summary"))))]
    recall = [r for r in story.get("recall") or [] if isinstance(r, Mapping)]
    shown = set(story.get("candidates") or [])
    if recall:
        out.append(Section("Recall evidence", header=("note", "score", "via", "shown to the brain"),
                           rows=tuple((str(r.get("path")), _fmt(r.get("score")), _fmt(r.get("via")),
                                       "yes" if r.get("path") in shown else "")
                                      for r in recall)))
    else:
        out.append(Section("Recall evidence", ("nothing in the digest matched: a new note",)))
    decision = _last_decision(story)
    if decision:
        head = decision.get("action", "?") + (f" {decision['flavor']}" if decision.get("flavor") else "")
        target = decision.get("target_path") or decision.get("name") or ""
        out.append(Section("The brain's decision", (f"{head} {target}".strip(),
                                                    _fmt(decision.get("rationale")))))
    attempts = story.get("attempts") or []
    retried = [a for a in attempts if isinstance(a, Mapping) and (a.get("violations") or a.get("error"))]
    if retried:
        out.append(Section("Retries", tuple(
            "; ".join(a.get("violations") or []) or str(a.get("error")) for a in retried)))
    repairs = story.get("link_repairs") or []
    if repairs:
        out.append(Section("Links repaired", tuple(_fmt(r) for r in repairs)))
    return out


def _merge_sections(story: Mapping) -> list[Section]:
    out = []
    cand = story.get("candidate") if isinstance(story.get("candidate"), Mapping) else {}
    if cand:
        out.append(Section("Candidate", (
            f"{cand.get('a')} ⟷ {cand.get('b')}",
            f"community {cand.get('community')} · description similarity "
            f"{_fmt(cand.get('description_similarity'))} · body overlap {_fmt(cand.get('body_overlap'))}")))
    votes = [v for v in story.get("votes") or [] if isinstance(v, Mapping)]
    if votes:
        out.append(Section("Votes", header=("judge", "same?", "confidence", "agrees", "reason"), rows=tuple(
            (str((v["judge"] if isinstance(v.get("judge"), int) else i) + 1),
             "yes" if v.get("is_same") else "no", _fmt(v.get("confidence")),
             "✓" if v.get("agrees") else "", _fmt(v.get("reason")))
            for i, v in enumerate(votes))))
    lines = [f"winner {story.get('winner')} · loser {story.get('loser')}", _fmt(story.get("winner_rule"))]
    if story.get("alarm"):
        lines.append(f"alarm: {story['alarm']}")
    out.append(Section("Winner", tuple(lines)))
    moved = story.get("retargeted")
    if isinstance(moved, Mapping) and moved:
        out.append(Section("Inbound links that move to the winner", header=("file", "links"),
                           rows=tuple((str(k), str(n)) for k, n in sorted(moved.items()))))
    anchors = [a for a in story.get("anchors") or [] if isinstance(a, Mapping)]
    if anchors:
        out.append(Section("Heading and block links to the loser's text", header=(
            "anchor", "becomes", "in"), rows=tuple(
            (f"#{a.get('from')}", f"#{a['to']}" if a.get("to") else "the note itself",
             ", ".join(map(str, a.get("files") or ()))) for a in anchors)))
    dropped = [d for d in story.get("dropped_statements") or [] if isinstance(d, Mapping)]
    if dropped:  # docs/spec.md §7.7.5: why the merge waits for a person
        out.append(Section("Sentences the merged note drops", header=("note", "sentence", "closest now"),
                           rows=tuple((str(d.get("note")), str(d.get("sentence")),
                                       _fmt(d.get("closest"))) for d in dropped)))
    return out


def _abstract_sections(story: Mapping) -> list[Section]:
    out = [Section("Community", (f"{story.get('community')} · {len(story.get('members') or [])} members",))]
    gates = [g for g in story.get("gates") or [] if isinstance(g, Mapping)]
    if gates:
        out.append(Section("Gates", header=("gate", "value", "needs", "passed"), rows=tuple(
            (str(g.get("name")), _fmt(g.get("value")), _fmt(g.get("threshold")),
             "✓" if g.get("passed") else "✗") for g in gates)))
    if story.get("central"):
        out.append(Section("Pillars (most central members)", tuple(map(str, story["central"]))))
    return out


def _split_sections(story: Mapping) -> list[Section]:
    plan = story.get("plan") if isinstance(story.get("plan"), Mapping) else {}
    out = [Section("Size", (f"{story.get('tokens')} tokens (threshold {story.get('threshold')})",))]
    if plan:
        out.append(Section("The brain's judgement", (_fmt(plan.get("reason")),)))
        children = [c for c in plan.get("children") or [] if isinstance(c, Mapping)]
        out.append(Section("New notes", header=("note", "name", "tokens"), rows=tuple(
            (str(c.get("path")), str(c.get("name")), _fmt(c.get("tokens"))) for c in children)))
    return out


# -- diffs ----------------------------------------------------------------------------------


def _link_text(key: tuple[str, str | None]) -> str:
    target, predicate = key
    return f"{predicate}:: [[{target}]]" if predicate else f"[[{target}]]"


@dataclass(frozen=True)
class FileDiff:
    """One file of a proposal: how it changes, line by line (unified diff lines, each
    starting with ' ', '+', '-' or '@'), and the link edges it gains and loses."""

    path: str
    kind: str  # create, edit, delete
    lines: tuple[str, ...]
    links_added: tuple[str, ...] = ()
    links_removed: tuple[str, ...] = ()
    old: str = field(default="", repr=False)
    new: str = field(default="", repr=False)


def file_diffs(proposal: Proposal, *, context: int = 3) -> list[FileDiff]:
    """A `FileDiff` per file of the proposal, from what the plan saw to what it writes."""
    out = []
    for op in proposal.ops:
        old_bytes = proposal.before.get(op.path)
        new_bytes = None if isinstance(op, Delete) else op.content
        old = "" if old_bytes is None else old_bytes.decode("utf-8", errors="replace")
        new = "" if new_bytes is None else new_bytes.decode("utf-8", errors="replace")
        lines = tuple(
            line.rstrip("\n") for line in difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True), n=context)
            if not line.startswith(("---", "+++")))
        before, after = outbound_keys(old), outbound_keys(new)
        out.append(FileDiff(
            op.path, op_kind(op), lines,
            tuple(_link_text(k) for k in sorted(after - before, key=_key_order)),
            tuple(_link_text(k) for k in sorted(before - after, key=_key_order)),
            old, new))
    return out


def _key_order(key: tuple[str, str | None]) -> tuple[str, str]:
    return key[0], key[1] or ""
