"""Merge: three votes per candidate pair, one changeset per agreed pair (docs/spec.md §7.7).

For each candidate (`candidates.mine_candidates`, best score first):

0. **Distinct.** A pair whose notes state the same label with different values (another
   repository, id, version or developer: `identity.identity_conflict`, the values a
   large share of the digest states left out) is never voted on nor proposed: it is
   reported among `distinct` with the reason ("repository differs (a vs b)"). Mining
   marks the pairs it finds so; the pairs given otherwise are checked here (not "merge
   anyway": a person decided).
1. **Votes.** `JUDGES` (3) independent votes `{is_same, confidence, reason}`
   (`llm.consolidate.vote_all`). A vote *agrees* when it says is_same with confidence ≥
   `[merge] min_confidence`. At least `[merge] min_agree` agreeing → a merge; some but fewer →
   an *uncertain* pair, written to `audit/<date>/dups_uncertain.md` for a person; none →
   dropped (counted), unless both notes state one repository or id and no other of that
   label (`MergeCandidate.sole_identifier`: a wiki's stub page beside the full page of
   the same plugin) — then uncertain too, naming it. The judges read each body less the lines a large share of the
   digest holds (`common_text.DigestText.strip`: a template's badges, labels, footer),
   so what the two notes say of their own decides; the merge itself keeps every line.
2. **Winner.** Sources are never written (§3.6), so a note that daily/ or resource/
   links to may not be deleted: when one of the two has such links it wins; when both
   have them the pair becomes uncertain. Otherwise the note with more inbound links
   (distinct digest notes other than itself whose link resolves to it), then the shorter
   path, then the first path in order.
3. **Body.** `brain.merge` writes the winner's new body ("merge, do not refine"). It is
   made safe mechanically before any check: its links are repaired (§2.4.4: a link that
   resolves becomes its full path, one that leads nowhere or outside the vault becomes
   its words; old links of either note that resolve nowhere are kept as written), and
   every link to the winner or the loser — a self-link once the loser is gone — is
   replaced by its words (a line holding only such links goes). The old links of each
   note are compared as they resolve from that note. The frontmatter stays, with the
   reply's description.
4. **One changeset** (§7.7.5): the winner edited, every digest file linking to the loser
   (exact path or a short link that resolves to it) retargeted to the winner — only the
   link spans change (`merge_links`): no line or list item goes, alias and predicate
   stay, and a heading or block anchor is pointed at where the loser's text is in the
   merged body (`merge_anchors`: `[[loser#Steps]]` → `[[winner#From loser#Steps]]`,
   the loser's block ids carried) — and the loser deleted.
   Checks: `keeps_outbound` (winner ⊇ A.out ∪ B.out less the self-links),
   `keeps_values` (every value the statements of either note give — numbers,
   identifiers, names, commands, dates, addresses: `textrules.values` — is in the merged
   body, or the failure names the missing ones),
   `carries_provenance` (every `derived_from::` source of both), `links_resolve`,
   `retargeted_links` (each retargeted file links the loser in no form, and keeps
   every other edge key `(target, predicate)` exactly: none dropped, none gained),
   `retargets_only_links` (its new text is the old with only those links changed),
   `only_paths`, `no_sources_written`, and, when it applies, `retargets_every_link`
   (under the lock, no file outside the changeset links the loser: one that does was
   written after planning and makes the proposal stale, to be planned again). They run
   before the proposal is made (`merge_apply.run_checks`): a failure
   on the brain's body gets one retry with the failures as feedback
   (`llm.planning.plan_with_feedback`), then the pair is rejected (stored as a rejected
   proposal) and audited; it is never applied. A file linking the loser that cannot be
   read skips the pair before the brain is asked: it could not be retargeted.
   *Every statement*: each sentence of both bodies must be in the merged body
   (`merge_statements`); a sentence missing gets the brain the same one retry, then is
   listed in the story (`dropped_statements`), the review and the audit line, and the
   merge waits for a person whatever the policy — it is held, not rejected.
5. **Submit.** Through the proposal queue under the given policy (default: everything
   waits for a person). A proposal the policy applies at once is planned again from
   fresh reads when a file changed meanwhile or a note came to link the loser, up to
   the vault's `max_replans` plans (`merge_apply.apply_now`), then audited and skipped. A pair whose own notes changed while the brain wrote is
   skipped (the body was written from the old texts). A note already merged within
   `[cooldowns] merge_to_merge_days` makes the proposal wait for a person whatever the
   policy, with an alarm line (§7.4.2); so does one that drops a sentence. A body over
   the split threshold is flagged in
   the story (and queued for split when the merge applies here).

`plan_merges(vault, brain, candidates, cfg, ctx)` takes the `[merge]` settings and a
`MergeContext`: the clock, the policy, the cooldowns and how the run is done.

Each note takes part in at most one merge per run (greedy by candidate score). Every
proposal's story holds the candidate figures, the votes with the raw replies, the winner
rule, the checks and their results, the tokens, and `cooldowns: [{path: winner, action:
merge}]` for the run to start when it applies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..config import LLMSettings, MergeSettings, Settings, SplitSettings
from ..errors import RemeError
from ..llm.base import BrainError, BrainReply, Usage
from ..llm.consolidate import JUDGES, ConsolidateBrain, MergeRequest, NoteView, vote_all
from ..llm.planning import plan_with_feedback
from ..llm.schema import PairVote
from ..proposals.model import Proposal
from ..proposals.queue import Policy, ProposalQueue
from ..textrules.values import statement_values
from ..vault.checks import CheckSpec
from ..vault.layout import is_digest_note
from ..vault.links import is_provenance, parse_links
from ..vault.note import render
from ..vault.split_queue import enqueue_splits
from ..vault.store import (
    Delete,
    Edit,
    FileOp,
)
from ..vault.tokens import content_tokens
from .candidates import MergeCandidate, digest_text
from .common_text import DigestText
from .decisions import decision_holds, read_decisions
from .identity import identifiers_of, identity_conflict
from .merge_anchors import HeadingMap
from .merge_apply import STATEMENTS, GaveUp, apply_now, failures_of, feedback, run_checks
from .merge_links import (
    LinkIndex,
    MergeRetargets,
    NoteRead,
    Retargeted,
    key_list,
    merged_body,
    read_note_at,
)
from .merge_report import (
    UNCERTAIN_KIND,
    UncertainPair,
    Vote,
    append_uncertain,
    dropped_line,
    render_uncertain,
    suggestion,
)
from .merge_statements import dropped_statements

if TYPE_CHECKING:
    from ..vault.vault import Vault
    from .cooldowns import Cooldowns

__all__ = [
    "ACTION",
    "UNCERTAIN_KIND",
    "MERGE_SLACK_CHARS",
    "MergeContext",
    "Vote",
    "WinnerChoice",
    "UncertainPair",
    "MergeProblem",
    "MergeRun",
    "pick_winner",
    "plan_merges",
    "render_uncertain",
    "judged_view",
]

ACTION = "consolidate.merge"
ACTIONS_KIND = "consolidate_actions"
# "Merge, do not refine": the new body holds both bodies and little glue. A reply longer
# than both bodies together plus this many characters is refused (a 1 MB body).
MERGE_SLACK_CHARS = 2000
DISTINCT_LISTED = 100  # distinct pairs a run's details list (all are counted)


# -- values ----------------------------------------------------------------------------------

_SPLIT, _LLM = SplitSettings(), LLMSettings()  # config.py's defaults, for a context built by hand


@dataclass(frozen=True)
class MergeContext:
    """What a merge run works with besides its `[merge]` settings.

    `now` is the run's time (cooldowns, decisions, the split queue); `policy` decides
    which proposals apply at once (default: none); `cooldowns` are the live cooldowns
    (None: no merge-to-merge alarm). `split_threshold` and `language` are other
    sections' settings, `[split] token_threshold` and `[llm] language`
    (`from_settings`). `parallel_votes` asks the three judges at once. `audit` appends
    the run's lines to `audit/<date>/consolidate_actions.md` (False: the caller writes
    `MergeRun.audit_lines`); `dry_run` votes and plans but stores and writes nothing.
    `decided_by_person` is "merge anyway" from the uncertain report. `digest` is the
    digest's text as mining read it (`candidates.digest_text`; read when None).
    """

    now: datetime
    policy: Policy = field(default_factory=Policy.hold_everything)
    cooldowns: Cooldowns | None = None
    split_threshold: int = _SPLIT.token_threshold
    language: str = _LLM.language
    parallel_votes: bool = True
    audit: bool = True
    dry_run: bool = False
    decided_by_person: bool = False
    digest: DigestText | None = None

    @classmethod
    def from_settings(cls, settings: Settings, *, now: datetime, **how: Any) -> MergeContext:
        """The context of a run under `settings` (its split threshold and language)."""
        return cls(now=now, split_threshold=settings.split.token_threshold,
                   language=settings.llm.language, **how)



@dataclass(frozen=True)
class WinnerChoice:
    winner: str
    loser: str
    rule: str  # which rule decided, with its figures, for the story


@dataclass(frozen=True)
class MergeProblem:
    """A pair that was rejected (its checks failed twice) or skipped, and why."""

    candidate: MergeCandidate
    reason: str
    proposal: str | None = None  # the rejected proposal's id, when one was stored

    def to_json(self) -> dict:
        return {"a": self.candidate.a, "b": self.candidate.b, "reason": self.reason,
                "proposal": self.proposal}


@dataclass(frozen=True)
class MergeRun:
    """What one merge phase did. `proposals` are pending, or applied by the policy."""

    proposals: tuple[Proposal, ...] = ()
    uncertain: tuple[UncertainPair, ...] = ()
    distinct: tuple[MergeCandidate, ...] = ()  # identifiers differ: never proposed
    dropped: tuple[MergeCandidate, ...] = ()
    rejected: tuple[MergeProblem, ...] = ()
    skipped: tuple[MergeProblem, ...] = ()
    alarms: tuple[str, ...] = ()
    audit_lines: tuple[str, ...] = ()  # for audit/<date>/consolidate_actions.md
    uncertain_report: str | None = None  # the audit file the uncertain pairs went to
    usage: Usage = field(default_factory=Usage)
    uncertain_new: int = 0  # pairs this run added to it (a pair already there is not again)

    def summary(self) -> str:
        applied = sum(p.state == "applied" for p in self.proposals)
        return (f"{len(self.proposals)} merge proposal(s) ({applied} applied), "
                f"{len(self.uncertain)} uncertain, {len(self.dropped)} dropped, "
                f"{len(self.rejected)} rejected, {len(self.skipped)} skipped"
                + (f", {len(self.distinct)} distinct (identifiers differ)" if self.distinct else ""))

    def to_json(self) -> dict:
        return {
            "proposals": [{"id": p.id, "state": p.state, "summary": p.summary}
                          for p in self.proposals],
            "uncertain": [u.to_json() for u in self.uncertain],
            # a wiki of one template has thousands: the best-scoring are listed, all counted
            "distinct": [{"a": c.a, "b": c.b, "communities": list(c.communities),
                          "reason": f"distinct: {c.distinct}"}
                         for c in self.distinct[:DISTINCT_LISTED]],
            "distinct_total": len(self.distinct),
            "dropped": [c.to_json() for c in self.dropped],
            "rejected": [r.to_json() for r in self.rejected],
            "skipped": [s.to_json() for s in self.skipped],
            "alarms": list(self.alarms),
            "uncertain_report": self.uncertain_report,
            "tokens": self.usage.to_json(),
        }


# -- the winner ------------------------------------------------------------------------------


def pick_winner(
    a: str, b: str, *, inbound: Mapping[str, int], source_linked: Mapping[str, Iterable[str]]
) -> WinnerChoice | None:
    """The winner rule of docs/spec.md §7.7.3; None when sources link to both (uncertain)."""
    sa, sb = tuple(source_linked.get(a, ())), tuple(source_linked.get(b, ()))
    if sa and sb:
        return None
    if sa or sb:
        winner, loser = (a, b) if sa else (b, a)
        first = (sa or sb)[0]
        return WinnerChoice(winner, loser,
                            f"sources link to {winner} ({first}) and are never rewritten, so it stays")
    na, nb = inbound.get(a, 0), inbound.get(b, 0)
    if na != nb:
        winner, loser = (a, b) if na > nb else (b, a)
        return WinnerChoice(winner, loser, f"more inbound links: {winner} has "
                            f"{max(na, nb)}, {loser} has {min(na, nb)}")
    if len(a) != len(b):
        winner, loser = (a, b) if len(a) < len(b) else (b, a)
        return WinnerChoice(winner, loser, f"equal inbound links ({na}); the shorter path")
    winner, loser = min(a, b), max(a, b)
    return WinnerChoice(winner, loser, f"equal inbound links ({na}) and path length; the "
                        "first path in order")


# -- planning one merge ----------------------------------------------------------------------


class _PairChanged(RemeError):
    """The winner or the loser changed after the brain read them: its body is outdated."""


@dataclass
class _Plan:
    """Everything one merge needs to (re)build its changeset."""

    winner: NoteRead
    loser: NoteRead
    new_text: str
    required: list  # winner keys to keep: A.out ∪ B.out less the self-links
    provenance: list  # derived_from:: targets of both notes
    kept: list  # old links that resolve nowhere, kept as written (links_resolve exempts them)
    values: dict  # {note: the values its statements give}, for keeps_values
    headings: HeadingMap  # where the loser's headings and blocks are in the merged body

    def body_specs(self) -> list[CheckSpec]:
        w = self.winner.path
        return [
            CheckSpec("keeps_outbound", {"path": w, "keys": self.required}),
            CheckSpec("keeps_values", {"path": w, "values": self.values}),
            CheckSpec("carries_provenance", {"paths": [w], "sources": self.provenance}),
            CheckSpec("links_resolve", {"path": w, "keep": self.kept}),
        ]

    def changeset_parts(self, retargets: MergeRetargets
                        ) -> tuple[list[FileOp], list[CheckSpec], dict, Retargeted]:
        """(ops, checks, before, the retarget): the winner edited, the files linking the
        loser retargeted (`retargets`, read for this winner and loser; heading and block
        links to where the loser's text is now), the loser deleted."""
        w, lo = self.winner.path, self.loser.path
        moved = retargets.build(self.headings.anchors(retargets.anchors))
        ops: list[FileOp] = [Edit(w, self.new_text.encode("utf-8"), self.winner.stamp),
                             *moved.edits, Delete(lo, self.loser.stamp)]
        before: dict[str, bytes | None] = {w: self.winner.data, lo: self.loser.data,
                                           **moved.before}
        specs = [
            CheckSpec("only_paths", {"paths": [op.path for op in ops]}),
            CheckSpec("no_sources_written", {}),
            *self.body_specs(),
            # under the lock when it applies: a link to the loser written since is stale
            CheckSpec("retargets_every_link", {"old": lo, "new": w}),
        ]
        if moved.files:
            specs += [CheckSpec("retargeted_links", {"old": lo, "new": w, "files": dict(moved.files)}),
                      CheckSpec("retargets_only_links", {"old": lo, "new": w,
                                                         "files": dict(moved.files)})]
        return ops, specs, before, moved


# -- voting ----------------------------------------------------------------------------------


def judged_view(view: NoteView, digest: DigestText | None) -> tuple[NoteView, tuple[str, ...]]:
    """What the judges read of a note: its body less the digest's common lines, and the
    targets of all its links (the structure judge weighs links itself)."""
    targets = tuple(sorted({lk.target for lk in parse_links(view.body) if lk.target}))
    if digest is None or not digest.lines:
        return view, targets
    return replace(view, body=digest.strip(view.body)), targets


def _votes(brain: ConsolidateBrain, a: NoteRead, b: NoteRead, *, min_confidence: float,
           language: str, parallel: bool, digest: DigestText | None
           ) -> tuple[list[Vote], Usage]:
    (va, la), (vb, lb) = judged_view(a.view, digest), judged_view(b.view, digest)
    replies: list[BrainReply[PairVote]] = vote_all(
        brain, va, vb, a_links=la, b_links=lb, language=language, parallel=parallel)
    usage = Usage()
    votes = []
    for judge, reply in enumerate(replies[:JUDGES]):
        v = reply.value
        usage = usage + reply.usage
        votes.append(Vote(judge, bool(v.is_same), float(v.confidence), " ".join(v.reason.split()),
                          bool(v.is_same) and float(v.confidence) >= min_confidence,
                          reply.raw, reply.model))
    return votes, usage


# -- the phase -------------------------------------------------------------------------------


def _read_ahead(vault: Vault, brain: ConsolidateBrain, candidates: list[MergeCandidate],
                digest: DigestText) -> None:
    """Let the brain prepare, in one go, the notes of the pairs it may be asked about (the
    offline brain embeds them in one batch instead of a call per pair)."""
    views = []
    for path in dict.fromkeys(p for c in candidates if not c.distinct and not c.skipped
                              for p in (c.a, c.b)):
        try:
            note = read_note_at(vault, path)
        except RemeError:
            continue  # the loop says why it cannot be read
        if note is not None:
            views.append(judged_view(note.view, digest)[0])
    brain.read_ahead(views)


def plan_merges(
    vault: Vault,
    brain: ConsolidateBrain,
    candidates: Iterable[MergeCandidate],
    cfg: MergeSettings,
    ctx: MergeContext,
) -> MergeRun:
    """Vote on every candidate and propose the merges (see the module doc) under the
    `[merge]` settings `cfg`, in the run `ctx` describes.

    A pair a person decided on (`meta/merge_decisions.json`, `consolidate.decisions`) is
    skipped while both notes are unchanged since. `ctx.decided_by_person` is "merge
    anyway" from the uncertain report: the votes are asked and recorded as always, but
    the proposal is made whatever they say.

    The judges read bodies less the common lines of `ctx.digest` (read here when not
    given), and a pair whose identifiers differ is reported `distinct`, never voted on.
    The uncertain pairs are always written to `dups_uncertain.md` (unless
    `ctx.dry_run`).
    """
    queue = ProposalQueue(vault)
    state = _RunState()
    index: LinkIndex | None = None
    digest = ctx.digest
    person = ctx.decided_by_person
    ordered = sorted(candidates, key=lambda c: (-round(c.score, 9), c.a, c.b))
    waiting = _waiting_merges(queue)
    decisions, _ = read_decisions(vault.root)
    if ordered:
        digest = digest if digest is not None else digest_text(vault)
        _read_ahead(vault, brain, ordered, digest)
    parallel = ctx.parallel_votes and brain.votes_in_parallel
    for cand in ordered:
        if cand.distinct and not person:
            state.distinct.append(cand)
            continue
        if cand.skipped:
            state.skip(cand, cand.skipped)
            continue
        decided = decisions.get(frozenset((cand.a, cand.b)))
        if decided is not None and not person and decision_holds(vault.root, decided):
            state.skip(cand, f"a person decided on {decided.decided_at[:10]} to "
                       f"{decided.route.replace('_', ' ')}; asked again when either note changes")
            continue
        held = waiting.get(cand.a) or waiting.get(cand.b)
        if held is not None:  # a person has not decided yet: do not ask the same twice
            what = "this pair" if held[1] == {cand.a, cand.b} else "one of these notes"
            state.skip(cand, f"a merge proposal of {what} waits for review ({held[0]})")
            continue
        if not (is_digest_note(cand.a) and is_digest_note(cand.b)) or cand.a == cand.b:
            state.skip(cand, "merge pairs two different digest notes")
            continue
        busy = next((p for p in (cand.a, cand.b) if p in state.used), None)
        if busy is not None:
            state.skip(cand, f"{busy} is already in a merge of this run ({state.used[busy]})")
            continue
        try:
            a, b = read_note_at(vault, cand.a), read_note_at(vault, cand.b)
        except RemeError as exc:
            state.skip(cand, f"cannot be read: {exc}")
            continue
        if a is None or b is None:
            state.skip(cand, f"{cand.a if a is None else cand.b} no longer exists")
            continue
        if digest is None:
            digest = digest_text(vault)
        if not person:
            why = identity_conflict(identifiers_of(_text(a)), identifiers_of(_text(b)),
                                    digest.identifiers)
            if why is not None:
                state.distinct.append(replace(cand, distinct=why))
                continue
        try:
            votes, usage = _votes(brain, a, b, min_confidence=cfg.min_confidence,
                                  language=ctx.language, parallel=parallel,
                                  digest=digest)
        except BrainError as exc:
            state.skip(cand, f"a judge gave no usable answer ({exc})", audit=True)
            continue
        state.usage = state.usage + usage
        agree = sum(v.agrees for v in votes)
        if agree == 0 and not person and cand.sole_identifier:
            # both pages are about one repository or id and nothing tells them apart:
            # what the judges read differs (a stub beside a full page), the thing does not
            state.uncertain.append(UncertainPair(
                cand, (a.view.name, b.view.name), tuple(votes),
                f"no vote says duplicate, but both notes state {cand.shared_identifier} "
                "and no other of its kind: one page of that thing may be enough",
                f"Both are about {cand.shared_identifier}: merge by hand what the shorter "
                "adds, or leave them; 'merge anyway' proposes the merge."))
            continue
        if agree == 0 and not person:
            state.dropped.append(cand)
            continue
        names = (a.view.name, b.view.name)
        if agree < cfg.min_agree and not person:
            state.uncertain.append(UncertainPair(
                cand, names, tuple(votes),
                f"{agree} of {len(votes)} votes agree (a vote agrees when it says the same "
                f"concept with confidence ≥ {cfg.min_confidence:g}; {cfg.min_agree} make a "
                "merge)",
                suggestion(tuple(votes), pinned=False)))
            continue
        if index is None:
            index = LinkIndex(vault)
        choice = pick_winner(
            cand.a, cand.b,
            inbound={p: index.digest_inbound(p) for p in (cand.a, cand.b)},
            source_linked={p: index.source_inbound(p) for p in (cand.a, cand.b)})
        if choice is None:
            linked = "; ".join(f"{_first(index.source_inbound(p))} links to {n}"
                               for p, n in zip((cand.a, cand.b), names, strict=True))
            state.uncertain.append(UncertainPair(
                cand, names, tuple(votes),
                f"{agree} of {len(votes)} votes agree, but sources link to both notes "
                f"({linked}); sources are never rewritten, so neither may be deleted",
                suggestion(tuple(votes), pinned=True)))
            continue
        reads = {a.path: a, b.path: b}
        agreed = _Agreed(cand, tuple(votes), usage, choice, reads[choice.winner],
                         reads[choice.loser])
        outcome = _merge_pair(vault, brain, queue, index, state, cfg, ctx, agreed)
        if outcome == "applied":  # the files it wrote are indexed again for the next pair
            index.update(vault, state.proposals[-1].paths)
    return state.finish(vault, audit=ctx.audit, dry_run=ctx.dry_run,
                        min_confidence=cfg.min_confidence)


def _waiting_merges(queue: ProposalQueue) -> dict[str, tuple[str, set[str]]]:
    """path -> (id, the pair) of every merge proposal still waiting (pending or stale)."""
    found: dict[str, tuple[str, set[str]]] = {}
    for proposal in queue.list():
        if proposal.action != ACTION or proposal.state not in ("pending", "stale"):
            continue
        pair = {p for p in (proposal.story.get("winner"), proposal.story.get("loser"))
                if isinstance(p, str)}
        for path in pair:
            found.setdefault(path, (proposal.id, pair))
    return found


def _text(read: NoteRead) -> str:
    return read.data.decode("utf-8", errors="replace")


def _first(paths: tuple[str, ...]) -> str:
    return f"[[{paths[0]}]]" + (f" (and {len(paths) - 1} more)" if len(paths) > 1 else "")


@dataclass
class _RunState:
    proposals: list[Proposal] = field(default_factory=list)
    uncertain: list[UncertainPair] = field(default_factory=list)
    distinct: list[MergeCandidate] = field(default_factory=list)
    dropped: list[MergeCandidate] = field(default_factory=list)
    rejected: list[MergeProblem] = field(default_factory=list)
    skipped: list[MergeProblem] = field(default_factory=list)
    alarms: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    used: dict[str, str] = field(default_factory=dict)  # note -> the merge it is in
    usage: Usage = field(default_factory=Usage)

    def skip(self, cand: MergeCandidate, reason: str, *, audit: bool = False) -> None:
        self.skipped.append(MergeProblem(cand, reason))
        if audit:
            self.lines.append(f"- merge skipped: `{cand.a}` + `{cand.b}`: {reason}")

    def reject(self, cand: MergeCandidate, reason: str, proposal: str | None) -> None:
        self.rejected.append(MergeProblem(cand, reason, proposal))
        self.lines.append(f"- merge rejected: `{cand.a}` + `{cand.b}`"
                          + (f" ({proposal})" if proposal else "") + f": {reason}")

    def finish(self, vault: Vault, *, audit: bool, dry_run: bool, min_confidence: float
               ) -> MergeRun:
        report, new = None, 0
        if self.uncertain and not dry_run:
            report, new = append_uncertain(vault, self.uncertain, min_confidence)
            if new:
                self.lines.append(f"- {new} uncertain pair(s): [[{report}]]")
        if audit and self.lines and not dry_run:
            heading = f"## merge {vault.clock():%H:%M:%S} UTC"
            vault.record_audit(ACTIONS_KIND, heading + "\n\n" + "\n".join(self.lines) + "\n")
        return MergeRun(tuple(self.proposals), tuple(self.uncertain), tuple(self.distinct),
                        tuple(self.dropped), tuple(self.rejected), tuple(self.skipped),
                        tuple(self.alarms), tuple(self.lines), report, self.usage, new)


@dataclass(frozen=True)
class _Agreed:
    """A pair to merge: enough votes agreed (or a person decided), the winner chosen."""

    candidate: MergeCandidate
    votes: tuple[Vote, ...]
    vote_usage: Usage
    choice: WinnerChoice
    winner: NoteRead
    loser: NoteRead


@dataclass(frozen=True)
class _Checked:
    """A merged body made into a changeset, with its checks' results."""

    plan: _Plan
    ops: list[FileOp]
    specs: list[CheckSpec]
    before: dict
    moved: Retargeted
    results: list[dict]
    body_tokens: int
    dropped: list[dict]  # the sentences of either note the body does not keep

    @property
    def hard_failures(self) -> list[str]:
        """What refuses the body; a dropped sentence only holds it for a person."""
        return failures_of(self.results)


def _merge_pair(vault: Vault, brain: ConsolidateBrain, queue: ProposalQueue, index: LinkIndex,
                state: _RunState, cfg: MergeSettings, ctx: MergeContext, agreed: _Agreed) -> str:
    """Ask for the body, check it (one retry), then propose. Returns what happened."""
    cand, votes, choice = agreed.candidate, agreed.votes, agreed.choice
    winner, loser = agreed.winner, agreed.loser
    pair = (winner.path, loser.path)
    try:
        retargets = MergeRetargets.read(vault, index, winner.path, loser.path)
    except RemeError as exc:  # a linking file cannot be read, so it cannot be retargeted
        state.skip(cand, f"a note linking {loser.path} cannot be retargeted: {exc}", audit=True)
        return "skipped"
    # A.out ∪ B.out, each link resolved from its own note (a short link of the loser means
    # what it meant there); the links to either note become self-links and are not kept.
    both = {(index.resolves_to(t, r.path) or t, p) for r in (winner, loser) for t, p in r.keys}
    required = key_list(k for k in both if k[0] not in pair)
    provenance = sorted({lk.target for r in (winner, loser) for lk in parse_links(r.note.body)
                         if is_provenance(lk)})
    # links that resolve nowhere are kept as written (E-1); the rest are repaired (§2.4.4)
    keep = frozenset((t, p) for t, p in required if t not in index.resolver)
    limit = len(winner.note.body) + len(loser.note.body) + MERGE_SLACK_CHARS
    said = {r.path: list(statement_values(r.note.body)) for r in (winner, loser)}
    names = {r.path: r.view.name for r in (winner, loser)}
    asked: list[str | None] = []  # the feedback of each request, for the story
    checked: list[_Checked] = []  # every body that became a changeset; the last is stored

    def ask(request: MergeRequest):
        asked.append(request.feedback)
        return brain.merge(request)

    def make_plan(reply, record: dict) -> tuple[_Checked | None, list[str]]:
        body = reply.value.body
        if len(body) > limit:
            return None, [f"merged_body_size: the body has {len(body)} characters, more than "
                          f"both bodies together plus {MERGE_SLACK_CHARS} ({limit}); merge, do "
                          "not add"]
        new_body, repairs, removed, blocks = merged_body(reply.value, winner, loser, index,
                                                         keep)
        description = " ".join(reply.value.description.split()) or winner.view.description
        note = winner.note.with_frontmatter(description=description).with_body(new_body)
        plan = _Plan(winner, loser, render(note), required, provenance, key_list(keep), said,
                     HeadingMap(new_body, loser.note.body, blocks))
        ops, specs, before, moved = plan.changeset_parts(retargets)
        results = run_checks(vault, ops, specs, before)
        dropped = dropped_statements({w.path: w.note.body for w in (winner, loser)}, new_body,
                                     names)
        checked.append(_Checked(plan, ops, specs, before, moved, results,
                                content_tokens(new_body), dropped))
        record.update(link_repairs=repairs, self_links_removed=removed)
        return checked[-1], checked[-1].hard_failures + [
            f"{STATEMENTS}: {d['note']} said “{d['sentence']}”, which the merged body does "
            "not say; carry it over word for word" for d in dropped]

    loop = plan_with_feedback(
        ask, MergeRequest(winner.view, loser.view, ctx.language), make_plan,
        describe=lambda r: {"feedback": asked[-1], "raw": r.raw, "model": r.model,
                            "attempts": r.attempts},
        describe_error=lambda exc: {"feedback": asked[-1], "error": str(exc),
                                    "raw": exc.raw if isinstance(exc, BrainError) else None},
        explain=feedback)
    attempts, merge_usage = loop.attempts, loop.usage
    # the last body its checks pass, dropped sentences or not (they hold it for a person;
    # a retry asked only for them that failed leaves the body before it standing)
    built = next((c for c in reversed(checked) if not c.hard_failures),
                 checked[-1] if checked else None)
    passed = built is not None and not built.hard_failures
    state.usage = state.usage + merge_usage
    agree = sum(v.agrees for v in votes)
    decided, split_threshold = ctx.decided_by_person, ctx.split_threshold
    summary = (f"merge {loser.path} into {winner.path} ({agree} of {len(votes)} votes"
               + ("; a person decided to merge)" if decided else ")"))
    tokens = built.body_tokens if built else 0
    story = {
        "candidate": cand.to_json(),
        "notes": {r.path: {"name": r.view.name, "inbound": index.digest_inbound(r.path),
                           "source_inbound": list(index.source_inbound(r.path))}
                  for r in (winner, loser)},
        "votes": [v.to_json() for v in votes],
        "agree": agree,
        "rule": {"min_confidence": cfg.min_confidence, "min_agree": cfg.min_agree},
        "decided_by_person": decided,
        "winner": winner.path,
        "loser": loser.path,
        "winner_rule": choice.rule,
        "merge": attempts,
        "checks": built.results if built else [],
        "retargeted": dict(built.moved.counts) if built else {},
        "anchors": _anchor_story(built.moved) if built else [],
        "dropped_statements": built.dropped if built else [],
        "body_tokens": tokens,
        "split_threshold": split_threshold,
        "over_split_threshold": tokens > split_threshold,
        "tokens": (agreed.vote_usage + merge_usage).to_json(),
        "cooldowns": [{"path": winner.path, "action": "merge"}],
    }
    if not passed:
        reason = (str(loop.error) if loop.error is not None else "; ".join(
            built.hard_failures if built is not None else loop.failures)) or "no answer"
        pid = None
        if built is not None and not ctx.dry_run:  # stored, so the workbench shows why
            rejected = queue.new(ACTION, summary, built.ops, checks=built.specs, story=story,
                                 before=built.before)
            rejected = rejected.with_state("rejected", now=vault.clock().isoformat(),
                                           error=reason)
            queue.save(rejected)
            pid = rejected.id
        state.reject(cand, f"no merged body passed its checks ({len(attempts)} answer(s)): "
                     f"{reason}", pid)
        return "rejected"

    plan, ops, specs, before = built.plan, built.ops, built.specs, built.before
    alarm = None
    if ctx.cooldowns is not None:
        recent = next((c for p in pair if (c := ctx.cooldowns.merged_recently(p, ctx.now))),
                      None)
        if recent is not None:
            alarm = (f"- ⚠ alarm: [[{recent.path}]] was merged on "
                     f"{recent.entry.started_at:%Y-%m-%d}, within [cooldowns] {recent.key}; the "
                     f"merge of `{loser.path}` into [[{winner.path}]] waits for a person "
                     "(docs/spec.md §7.4.2)")
    story["alarm"] = alarm
    dropped = built.dropped
    story["held_for_person"] = alarm is not None or bool(dropped)

    def make(fresh: bool) -> Proposal:
        """The proposal from the files as they are now (fresh: read again)."""
        if not fresh:
            return queue.new(ACTION, summary, ops, checks=specs, story=story, before=before)
        for old in (plan.winner, plan.loser):
            current = vault.store.read(old.path)
            if current is None or current[0] != old.data:
                raise _PairChanged(f"{old.path} changed while it was merged; the next run "
                                   "considers the pair again")
            if old is plan.winner:
                plan.winner = NoteRead(old.path, old.data, current[1], old.note)
            else:
                plan.loser = NoteRead(old.path, old.data, current[1], old.note)
        fresh_links = MergeRetargets.read(vault, LinkIndex(vault), plan.winner.path, plan.loser.path)
        new_ops, new_specs, new_before, moved = plan.changeset_parts(fresh_links)
        fresh_story = {**story, "retargeted": dict(moved.counts), "anchors": _anchor_story(moved)}
        return queue.new(ACTION, summary, new_ops, checks=new_specs, story=fresh_story,
                         before=new_before)

    proposal = make(False)
    if alarm:
        state.alarms.append(alarm)
        state.lines.append(alarm)
    if ctx.dry_run:
        state.used.update({winner.path: proposal.id, loser.path: proposal.id})
        state.proposals.append(proposal)
        return "planned"
    held = alarm is not None or bool(dropped)  # a person decides (§7.4.2, §7.7.5)
    if not held and ctx.policy.should_apply(ACTION):
        try:
            done = apply_now(vault, queue, proposal, make)
        except (GaveUp, _PairChanged) as exc:
            state.skip(cand, f"not applied, the files kept changing: {exc}", audit=True)
            return "skipped"
        except RemeError as exc:  # planning again failed: a linking note became unreadable
            state.skip(cand, f"not applied: {exc}", audit=True)
            return "skipped"
        if done.state == "applied" and tokens > split_threshold:
            enqueue_splits(vault.root, [(winner.path, tokens)], by=ACTION, now=ctx.now)
    else:
        done = queue.submit(proposal, Policy.hold_everything() if held else ctx.policy)
    if done.state == "rejected":  # the store's own checks refused it under the lock
        state.reject(cand, done.error or "rejected", done.id)
        return "rejected"
    state.used.update({winner.path: done.id, loser.path: done.id})
    state.proposals.append(done)
    state.lines.append(f"- merge {done.state}: `{loser.path}` into [[{winner.path}]] "
                       f"({agree} of {len(votes)} votes; {done.id})"
                       + (f": {done.error}" if done.error else "") + dropped_line(dropped))
    return done.state


def _anchor_story(moved: Retargeted) -> list[dict]:
    """The heading and block links the retarget rewrites: {from, to (None: the note),
    files}, for the story and the review."""
    rows: dict[tuple, list[str]] = {}
    for path, spec in sorted(moved.files.items()):
        for old, new in (spec.get("anchors") or {}).items():
            rows.setdefault((old, new), []).append(path)
    return [{"from": old, "to": new, "files": files} for (old, new), files in rows.items()]
