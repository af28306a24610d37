"""Abstract: a hub note for a community that has none (docs/spec.md §7.6).

Weekly, after communities, every community goes through five gates, in the spec's
order, and every gate's value is recorded whether it passes or not (the workbench shows
why a community got a hub, or why not):

1. `no_hub` — no member already is its hub (`hub_rules.member_hub`): none links at least
   `hub_coverage` (0.6) of the *other* members (outbound, any predicate), nor — written
   as a list of links, an index or map of content the person wrote — more than half of
   them, while linking at least `hub_rules.HUB_LEAD` (0.25) more of them than the median
   member. A split parent, which links each of its children, is such a hub; so is the
   person's index of a course. A dense community in which every note links most of the
   others has none: no note stands out. The hub found is recorded by the communities
   run in meta/communities.json (`hubs`), and nothing is written for it.
2. `min_nodes` — at least `min_nodes` (5) members.
3. `stability` — at least `min_stability` (0.7), from meta/community_changes.json;
   unknown stability (no previous run) cannot pass: "stability unknown (no previous run)".
4. `active_members` — at least `min_active` (3) members with access-log events (any
   event: recalls and changes) in the last `active_window_days` (30).
5. `name_diversity` — at least `min_name_diversity` (0.5), see `name_diversity`: members
   whose names say the same thing are merge's business, not a hub's.

A community that passes all five gets one `write_hub` call, unless a hub proposal
waiting for review (or chosen earlier in this run) already holds most of its members:
more than `MAX_SHARED_MEMBERS` (half) of the smaller of the two member sets, so two
pending hubs never share most of their members. Before asking, the planner measures the
least the hub must hold — its members' sources on grouped `derived_from::` lines and a
bare link to as many members as `min_member_coverage` needs (`hub_floor_tokens`) — and
when that alone is not under `max_tokens` it asks nothing and reports the community
`too-large`, with the figures. Its members go to the brain central ones first
(`rank_central`), the most central `max_pillars` as pillar candidates, with the budget,
the share, and how many of the vault's digest notes hold each topic word (name,
description, headings; counted once a run) so the hub can be named by what sets the
community apart. The reply becomes one created note,
`digest/<bucket the brain picked>/<free slug of its name>.md`, whose body is the brain's
(links repaired as dream repairs them) plus the members' `derived_from::` links it
lacks, several to a line, so D10 holds. Checks, stored with the proposal so they run again at accept: the pillars
are 3–5 distinct members and the hub links each (`pillars_are_members`, `links_to`); it
links at least `min_member_coverage` (0.6) of the members (`links_share`); it carries
every member's provenance (`carries_provenance`, `keeps_some_provenance`); its body is
under `max_tokens` (1,500) by `vault/tokens.py` `content_tokens` (`body_under_tokens`);
and the note checks: `creates_in_bucket` (the bucket the brain picked), `links_resolve`,
`only_paths`, `no_sources_written`, `no_new_anchors`, `name_matches_basename`. A violation gets
the brain one retry with the violations as feedback; a second leaves the proposal
`rejected` with the reason. The proposal (`consolidate.abstract`) waits for a person by
default; its story holds the gates, the members, the brain's raw replies, the checks and
their results, the tokens, and `cooldowns` for the lead to start when it is applied.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..config import AbstractSettings
from ..errors import NoteError, RemeError
from ..llm.base import BrainError, Usage
from ..llm.consolidate import ConsolidateBrain, HubRequest, NoteView
from ..llm.planning import PlanRefused, plan_with_feedback
from ..llm.schema import HubNote
from ..proposals import Policy, ProposalQueue
from ..vault.checks import CheckSpec, build_checks
from ..vault.layout import is_digest_note, normalize_rel
from ..vault.links import is_provenance, parse_links
from ..vault.meta import read_meta
from ..vault.note import Note, decode_note_bytes, parse, render
from ..vault.resolve import LinkResolver, repair_links
from ..vault.slug import free_slug, note_path, slugify
from ..vault.store import Changeset, CheckContext, Create
from ..vault.tokens import content_tokens
from ..vault.vault import Vault
from .abstract_gates import (
    GATES,
    CommunityGates,
    Gate,
    _gates,
    _stem,
    community_has_hub,
    community_hub,
    hub_coverage,
    name_diversity,
    name_tokens,
    rank_central,
)
from .archive import note_activity, read_access_log
from .communities import CHANGES_META, COMMUNITIES_META, META_VERSION, REBUILD
from .hub_rules import (
    heading_key,
    hub_floor_tokens,
    own_headings,
    provenance_lines,
    template_headings,
    topic_words,
)

__all__ = [
    "ACTION",
    "GATES",
    "Gate",
    "CommunityGates",
    "HubOutcome",
    "AbstractRun",
    "hub_coverage",
    "community_has_hub",
    "community_hub",
    "name_tokens",
    "name_diversity",
    "rank_central",
    "load_communities",
    "hub_members",
    "plan_abstracts",
    "community_gates",
]

ACTION = "consolidate.abstract"
DEFAULT_POLICY = Policy()  # hub proposals wait for a person (docs/spec.md §3.7.3)
WAITING = ("pending", "stale")  # a proposal in these states still waits for a person
RAW_LIMIT = 20000  # characters of a raw reply kept in the story (MAX_BODY of the schema)
# Two hubs may not share more than this share of the smaller one's members (§7.6.1).
MAX_SHARED_MEMBERS = 0.5
# -- meta ----------------------------------------------------------------------------


def load_communities(root: Path | str) -> tuple[dict[str, str] | None, dict[str, float | None],
                                               list[str]]:
    """({path: community id} or None, {id: stability or None}, warnings) from the two
    meta files. No usable communities.json: None (abstract skips, docs/spec.md §8.2); no
    usable community_changes.json: every stability unknown."""
    warnings = []
    read = read_meta(Path(root), COMMUNITIES_META, version=META_VERSION, rebuild=REBUILD)
    if read.warning and read.exists:
        warnings.append(read.warning)
    found = (read.data or {}).get("communities")
    communities = None
    if isinstance(found, dict):
        communities = {k: str(v) for k, v in found.items()
                       if isinstance(k, str) and isinstance(v, str | int) and not isinstance(v, bool)}
    changes = read_meta(Path(root), CHANGES_META, version=META_VERSION, rebuild=REBUILD)
    if changes.warning and changes.exists:
        warnings.append(changes.warning)
    raw = (changes.data or {}).get("stability_per_community")
    stability: dict[str, float | None] = {}
    if isinstance(raw, dict):
        for cid, value in raw.items():
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            stability[str(cid)] = float(value) if ok and 0.0 <= value <= 1.0 else None
    return communities, stability, warnings


# -- the run -------------------------------------------------------------------------


def hub_members(story: Mapping) -> frozenset[str]:
    """The community a hub proposal's story names (`members`, as `plan` writes it)."""
    members = story.get("members")
    return frozenset(str(m) for m in members) if isinstance(members, list) else frozenset()


def waiting_hubs(proposals) -> list[tuple[str, frozenset[str]]]:
    """(id, members) of every hub proposal that waits for a person (pending or stale)."""
    return [(p.id, hub_members(p.story)) for p in proposals
            if p.action == ACTION and p.state in WAITING and hub_members(p.story)]


def hub_waiting_for(members: Iterable[str], waiting: Iterable[tuple[str, frozenset[str]]]
                    ) -> tuple[str, int, int] | None:
    """(id, members shared, its size) of the first waiting hub that holds more than
    MAX_SHARED_MEMBERS of the smaller of the two member sets (docs/spec.md §7.6.1): the
    same community again, or one that grew or shrank."""
    mine = frozenset(members)
    for pid, theirs in waiting:
        shared = len(mine & theirs)
        if mine and theirs and shared > MAX_SHARED_MEMBERS * min(len(mine), len(theirs)):
            return pid, shared, len(theirs)
    return None


@dataclass(frozen=True)
class HubOutcome:
    """What became of one community that passed the gates."""

    community: str
    state: str  # applied, pending, rejected, stale, dry-run, failed, already-pending, too-large
    path: str | None = None  # the hub note
    proposal_id: str | None = None
    error: str | None = None

    def to_json(self) -> dict:
        return {"community": self.community, "state": self.state, "path": self.path,
                "proposal": self.proposal_id, "error": self.error}


@dataclass(frozen=True)
class AbstractRun:
    considered: tuple[CommunityGates, ...]  # every community, gates recorded
    outcomes: tuple[HubOutcome, ...]  # the communities that passed every gate
    usage: Usage = Usage()
    calls: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def proposed(self) -> tuple[HubOutcome, ...]:
        return tuple(o for o in self.outcomes if o.state in ("pending", "applied", "dry-run"))

    def blocked_by(self) -> dict[str, int]:
        """How many communities each gate stopped (the first failing gate counts)."""
        counts = {g: 0 for g in GATES}
        for c in self.considered:
            if c.failed is not None:
                counts[c.failed.name] += 1
        return counts

    def summary(self) -> str:
        blocked = ", ".join(f"{n} {g}" + (" (a member is their hub)" if g == "no_hub" else "")
                            for g, n in self.blocked_by().items() if n)
        states: dict[str, int] = {}
        for o in self.outcomes:
            states[o.state] = states.get(o.state, 0) + 1
        done = ", ".join(f"{n} {s}" for s, n in sorted(states.items())) or "no hub"
        return (f"{len(self.considered)} communities, {len(self.outcomes)} passed the gates: "
                f"{done}" + (f"; stopped by {blocked}" if blocked else ""))

    def audit_markdown(self) -> str:
        """Lines for audit/<date>/consolidate_actions.md: every hub proposed or rejected."""
        lines = []
        for o in self.outcomes:
            where = f"[[{o.path}]]" if o.path else "no note"
            ref = f" ({o.proposal_id})" if o.proposal_id else ""
            why = f": {o.error}" if o.error else ""
            lines.append(f"- abstract {o.community}: {o.state} {where}{ref}{why}\n")
        return "".join(lines)

    def to_json(self) -> dict:
        return {"summary": self.summary(), "blocked_by": self.blocked_by(),
                "outcomes": [o.to_json() for o in self.outcomes],
                "considered": [c.to_json() for c in self.considered],
                "usage": self.usage.to_json(), "calls": self.calls,
                "warnings": list(self.warnings)}


class _PlanError(PlanRefused):
    """The reply cannot become a changeset; the message is the brain's feedback."""


@dataclass(frozen=True)
class _HubPlan:
    path: str
    ops: tuple
    checks: tuple[CheckSpec, ...]
    tokens: int
    repairs: tuple


def plan_abstracts(
    vault: Vault,
    brain: ConsolidateBrain,
    cfg: AbstractSettings,
    *,
    communities: Mapping[str, str],
    stability: Mapping[str, float | None],
    now: datetime,
    policy: Policy = DEFAULT_POLICY,
    language: str = "auto",
    dry_run: bool = False,
) -> AbstractRun:
    """Gate every community of `communities` ({path: id}, as meta/communities.json) and
    propose a hub for each that passes (see the module doc). `stability` is {id: value
    or None}, as meta/community_changes.json. Members no longer in the digest are left
    out. `dry_run` plans and checks, and submits or saves nothing."""
    considered = _considered(vault, communities, stability, now, cfg)
    planner = _Planner(vault, brain, policy, cfg, language, dry_run)
    outcomes = tuple(planner.propose(c) for c in considered if c.passed)
    return AbstractRun(considered, outcomes, planner.usage, planner.calls)


def community_gates(
    vault: Vault,
    cfg: AbstractSettings,
    *,
    communities: Mapping[str, str],
    stability: Mapping[str, float | None],
    now: datetime,
) -> tuple[CommunityGates, ...]:
    """The five gates of every community, each with its value — what `plan_abstracts`
    decides on, without a brain (the workbench's communities screen shows them)."""
    return _considered(vault, communities, stability, now, cfg)


def _considered(vault: Vault, communities: Mapping[str, str],
                stability: Mapping[str, float | None], now: datetime,
                cfg: AbstractSettings) -> tuple[CommunityGates, ...]:
    graph = vault.graph
    records = vault.scan.records
    groups: dict[str, list[str]] = {}
    for path, cid in communities.items():
        if path in graph.graph:
            groups.setdefault(cid, []).append(path)
    everyone = {p for ms in groups.values() for p in ms}
    activity = note_activity(read_access_log(vault.root), now=now,
                             window_days=cfg.active_window_days, paths=everyone)
    active = {p for p, a in activity.items() if a.hits > 0}
    names = {p: (records[p].name if p in records and records[p].name else _stem(p))
             for p in everyone}
    return tuple(
        _gates(cid, tuple(sorted(ms)), hub=community_hub(vault, ms, cfg.hub_coverage),
               names=names, stability=stability.get(cid), active=active, cfg=cfg)
        for cid, ms in sorted(groups.items())
    )


class _Planner:
    def __init__(self, vault: Vault, brain: ConsolidateBrain, policy: Policy, cfg: AbstractSettings,
                 language: str, dry_run: bool) -> None:
        self.vault, self.brain, self.policy, self.cfg = vault, brain, policy, cfg
        self.language, self.dry_run = language, dry_run
        self.queue = ProposalQueue(vault)
        self.usage = Usage()
        self.calls = 0
        # hubs waiting for review and chosen in this run: (proposal id, members)
        self._waiting: list[tuple[str, frozenset[str]]] | None = None
        self._words: tuple[int, dict[str, int], frozenset[str]] | None = None  # the vault's topic words
        # hub paths already promised (waiting proposals, this run's plans): two hubs
        # named alike must not both claim one free slug before either is on disk
        self._taken: set[str] = set()
        self._resolver: LinkResolver | None = None

    def propose(self, gates: CommunityGates) -> HubOutcome:
        cid, members = gates.community, gates.members
        waiting = self._already_waiting(members)
        if waiting is not None:
            pid, shared, theirs = waiting
            return HubOutcome(cid, "already-pending", proposal_id=pid,
                              error=f"the hub proposal {pid} holds {shared} of these "
                              f"{len(members)} members (it has {theirs}): more than "
                              f"{MAX_SHARED_MEMBERS:.0%} of the smaller community")
        ranked = rank_central(members, self.vault.graph)
        views = [v for v in (self._view(p) for p in ranked) if v is not None]
        central = tuple(v.path for v in views[: self.cfg.max_pillars])
        materials = self._materials(members)
        story: dict[str, Any] = {
            "community": cid,
            "members": list(members),
            "gates": [g.to_json() for g in gates.gates],
            "central": list(central),
            "provenance": materials,
            "attempts": [],
        }
        if not materials:  # D10 could not hold for the hub: ask nothing of the brain
            return HubOutcome(cid, "failed", error="no member carries a provenance link that "
                              "resolves, so a hub could not keep D10; see the health report")
        floor = hub_floor_tokens([v.path for v in views], materials,
                                 share=self.cfg.min_member_coverage, pillars=self.cfg.min_pillars)
        if floor >= self.cfg.max_tokens:  # what its own checks need cannot fit: ask nothing
            return HubOutcome(cid, "too-large", error=(
                f"a hub of these {len(members)} members cannot fit under [abstract] max_tokens "
                f"{self.cfg.max_tokens}: their {len(materials)} sources and links to "
                f"{self.cfg.min_member_coverage:.0%} of them alone take {floor} estimated "
                "tokens; a smaller community (communities resolution) or a larger budget "
                "would"))
        notes, words, template = self._vault_words()
        request = HubRequest(cid, tuple(views), central, language=self.language,
                             max_tokens=self.cfg.max_tokens,
                             min_member_coverage=self.cfg.min_member_coverage,
                             vault_notes=notes, vault_words=words,
                             template_headings=template)
        story["budget"] = {"floor_tokens": floor, "max_tokens": self.cfg.max_tokens}
        def make_plan(reply, record: dict):
            plan = self._plan(reply.value, members, materials)
            results, failures = self._precheck(plan)
            record.update(path=plan.path, tokens=plan.tokens, checks=results)
            return plan, failures

        loop = plan_with_feedback(  # one retry, with the violations as feedback (§4.5.3)
            self.brain.write_hub, request, make_plan,
            describe=lambda r: {"hub": r.value.model_dump(), "raw": _clip(r.raw),
                                "usage": r.usage.to_json(), "model": r.model},
            describe_error=lambda exc: {"error": str(exc), "raw": _clip(
                (exc.raw if isinstance(exc, BrainError) else None) or "")})
        story["attempts"] += loop.attempts
        self.calls += loop.calls
        self.usage += loop.usage
        if loop.error is not None:  # no usable answer at all: nothing to review
            return HubOutcome(cid, "failed", error=f"the brain gave no usable hub: {loop.error}")
        plan, failures, reply, usage = loop.plan, loop.failures, loop.reply, loop.usage
        story["usage"] = usage.to_json()
        if plan is None:
            return HubOutcome(cid, "failed", error="; ".join(failures))
        story["checks"] = story["attempts"][-1]["checks"]
        story["tokens"] = {"body": plan.tokens, "max": self.cfg.max_tokens}
        story["link_repairs"] = [r.to_json() for r in plan.repairs]
        story["cooldowns"] = [{"path": plan.path, "action": "abstract"}]
        hub = reply.value
        summary = (f"hub {plan.path} for community {cid} ({len(members)} notes; pillars: "
                   + ", ".join(dict.fromkeys(hub.pillars)) + ")")
        proposal = self.queue.new(ACTION, summary if not failures else f"REJECTED: {summary}",
                                  plan.ops, checks=plan.checks, story=story,
                                  before={plan.path: None})
        if failures:
            message = "; ".join(failures)
            if not self.dry_run:
                proposal = proposal.with_state("rejected", now=proposal.created_at, error=message)
                self.queue.save(proposal)
            return HubOutcome(cid, "rejected", plan.path,
                              None if self.dry_run else proposal.id, message)
        self._taken.add(plan.path.lower())
        self._waiting.append(("(this run)" if self.dry_run else proposal.id, frozenset(members)))
        if self.dry_run:
            return HubOutcome(cid, "dry-run", plan.path)
        proposal = self.queue.submit(proposal, self.policy)
        return HubOutcome(cid, proposal.state, plan.path, proposal.id, proposal.error)

    # -- reading -----------------------------------------------------------------------
    def _view(self, path: str) -> NoteView | None:
        current = self.vault.store.read(path)
        if current is None:
            return None
        try:
            note = parse(decode_note_bytes(current[0], path), path)
        except NoteError:
            return None
        return NoteView(path, note.name or _stem(path), note.description or "", note.body)

    def _materials(self, members: Iterable[str]) -> list[str]:
        """The members' provenance targets that resolve, deduped and sorted; a broken one
        is D10's (reported on its member), not copied into the hub."""
        found = set()
        provenance = self.vault.graph.provenance
        exists = self.vault.scan.exists
        for path in members:
            for link in provenance.get(path, ()):
                if is_provenance(link):
                    target = normalize_rel(link.target)
                    if exists(target):
                        found.add(target)
        return sorted(found)

    def _already_waiting(self, members: tuple[str, ...]) -> tuple[str, int, int] | None:
        """(id, members shared, its size) of a hub waiting for review or chosen in this
        run that holds more than MAX_SHARED_MEMBERS of the smaller of the two member sets
        (docs/spec.md §7.6.1): the same community again, or one that grew or shrank."""
        if self._waiting is None:
            every = self.queue.list()
            for p in every:
                if p.action == ACTION and p.state in WAITING:
                    self._taken.update(op.path.lower() for op in p.ops)
            self._waiting = waiting_hubs(every)
        return hub_waiting_for(members, self._waiting)

    def _vault_words(self) -> tuple[int, dict[str, int], frozenset[str]]:
        """(digest notes read, {topic word: notes holding it}, template heading keys)
        over the whole digest — names, descriptions and own headings
        (`hub_rules.topic_words`); a heading many notes share is a template's
        (`hub_rules.template_headings`) and counts no word; once a run."""
        if self._words is None:
            heading_counts: Counter[str] = Counter()
            read: list[tuple[str, str, list[str]]] = []
            records = self.vault.scan.records
            limit = self.vault.scan.max_note_bytes
            for path, record in records.items():
                if not record.readable or not is_digest_note(path):
                    continue
                try:  # only counted: read as the scan found it, never through a symlink
                    fd = os.open(self.vault.root / path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
                    with os.fdopen(fd, "rb") as f:
                        text = decode_note_bytes(f.read(limit + 1), path, max_bytes=limit)
                except (OSError, NoteError):
                    continue
                headings = own_headings(text)
                heading_counts.update({heading_key(h) for h in headings})
                read.append((record.name or _stem(path), record.description or "",
                             "\n".join(f"## {h}" for h in headings)))
            template = template_headings(heading_counts, len(read))
            counts: Counter[str] = Counter()
            for name, description, headings in read:
                counts.update(topic_words(name, description, headings, template))
            self._words = (len(read), dict(counts), template)
        return self._words

    # -- planning ----------------------------------------------------------------------
    def _plan(self, hub: HubNote, members: tuple[str, ...], materials: list[str]) -> _HubPlan:
        name = " ".join(hub.name.split())
        try:
            slug = slugify(name, keep_accents=True)  # the community's words as they are written
        except RemeError as exc:
            raise _PlanError(f"the hub's name cannot become a file name ({exc})") from None
        store, taken = self.vault.store, self._taken

        def exists(candidate: str) -> bool:
            path = note_path(hub.bucket, candidate)
            return path.lower() in taken or store.read(path) is not None

        path = note_path(hub.bucket, free_slug(slug, exists))
        if self._resolver is None:
            self._resolver = LinkResolver(self.vault.scan.records)
        body, repairs = repair_links(hub.body, path, self._resolver)
        body = _with_provenance(body, materials)
        note = Note.new(path, description=" ".join(hub.description.split()), body=body)
        ops = (Create(path, render(note).encode("utf-8")),)
        pillars = list(dict.fromkeys(hub.pillars))
        checks = (
            CheckSpec("creates_in_bucket", {"path": path, "bucket": hub.bucket}),
            CheckSpec("pillars_are_members", {"pillars": list(hub.pillars),
                                              "members": list(members),
                                              "min_pillars": self.cfg.min_pillars}),
            CheckSpec("links_to", {"paths": [path], "targets": pillars}),
            CheckSpec("links_share", {"path": path, "targets": list(members),
                                      "share": self.cfg.min_member_coverage}),
            CheckSpec("carries_provenance", {"paths": [path], "sources": materials}),
            CheckSpec("keeps_some_provenance", {"paths": [path]}),
            CheckSpec("links_resolve", {"path": path, "keep": []}),
            CheckSpec("only_paths", {"paths": [path]}),
            CheckSpec("no_sources_written", {}),
            CheckSpec("no_new_anchors", {"paths": [path]}),
            CheckSpec("name_matches_basename", {"paths": [path]}),
            CheckSpec("body_under_tokens", {
                "path": path, "max_tokens": self.cfg.max_tokens,
                "hint": f"an overview, {self.cfg.min_pillars}–{self.cfg.max_pillars} pillars with "
                        "one sentence each, what stays in the notes"}),
        )
        return _HubPlan(path, ops, checks, content_tokens(note.body), tuple(repairs))

    def _precheck(self, plan: _HubPlan) -> tuple[list[dict], list[str]]:
        """Run the plan's checks now, so the brain can be told what to fix (the body's
        token bound is one of them: `body_under_tokens`)."""
        after = {op.path: op.content for op in plan.ops}
        ctx = CheckContext(Changeset(ops=plan.ops), {plan.path: None}, after,
                           exists=self.vault.scan.exists)
        results, failures = [], []
        for spec, check in zip(plan.checks, build_checks(plan.checks), strict=True):
            try:
                found = check.fn(ctx)
            except Exception as exc:  # noqa: BLE001 — a check that raises is a failure (§3.3.1)
                found = [f"the check raised {type(exc).__name__}: {exc}"]
            results.append({"name": spec.name, "passed": not found, "failures": found})
            failures += [f"{spec.name}: {why}" for why in found]
        return results, failures


def _with_provenance(body: str, materials: Iterable[str]) -> str:
    """`body` plus the materials it does not carry yet, several to a `derived_from::`
    line (one line each would spend the budget on the predicate, §7.6.2)."""
    have = {normalize_rel(lk.target) for lk in parse_links(body) if is_provenance(lk)}
    missing = [m for m in materials if m not in have]
    body = body.rstrip("\n") + "\n"
    if missing:
        body += "\n" + "".join(f"{line}\n" for line in provenance_lines(missing))
    return body


def _clip(raw: str) -> str:
    if len(raw) <= RAW_LIMIT:
        return raw
    return raw[:RAW_LIMIT] + f"\n…(cut: {len(raw)} characters in all)"
