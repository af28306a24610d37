"""Split (docs/spec.md §7.8): an overloaded note becomes a parent overview and children.

Dream and consolidate queue every note a write left over `[split] token_threshold`
(`vault/split_queue.py`; the count is `body_tokens`: `vault/tokens.py` `content_tokens`,
the estimate of the body after the frontmatter without its provenance-only lines).
`run_split_queue` drains the queue, and then looks at every other readable digest note
(§7.8.4): a note imported, written by hand or written when a
person accepted a proposal was never queued. That look is cheap (`split_scan.py`: the
byte size, the scan's sha256 and a token cache rule out nearly every note unread).
What it finds over the threshold is handled as a queued note, without being written to
the queue:

* a queued note no longer over the threshold, gone, or unreadable is dropped (counted);
* one in a merge → split cooldown (§7.4) stays queued and is reported;
* one whose bytes are those of an earlier rejected split, of an earlier "not
  overloaded", or of a split proposal still waiting for a person, is dropped: nothing
  new to decide until the note changes (a note the look found is then not reported);
* otherwise the brain judges it (`ConsolidateBrain.plan_split`). Not overloaded (unsure
  counts as not, F-5): dropped, remembered by sha256 in the queue file, audited in one
  summary line. Overloaded: one proposal
  `consolidate.split`, one changeset — the parent edited in place (path, frontmatter and
  so every inbound link unchanged) and N children created exclusively in the parent's
  bucket, under free slugs of the names the brain gave.

The brain cannot know the children's paths, so the plan links by name: a link in any of
the new bodies whose target is a child's (or the parent's) name or slug is pointed at
that note, and the rest are repaired as dream repairs them (§2.4.4). Then what the
structure needs is completed mechanically and recorded in the story (`completed`): the
parent links every child (so abstract's gate (1) sees a hub, §7.6.5), every child links
the parent and carries each of the parent's `derived_from::` links. The conservation
rules are checks (§3.3), run at planning — a violation gets the brain one retry with the
failures as feedback, a second one leaves a rejected proposal and keeps the note out of
the queue until it changes — and again when the proposal is applied or accepted:

| rule | check |
|---|---|
| E-2: outbound(parent_new) ∪ ⋃ outbound(children) ⊇ outbound(parent_old), as edge keys `(target, predicate)` | `union_keeps_outbound` |
| every child links the parent; the parent links every child | `links_to` |
| every child carries the parent's provenance; each note keeps some | `carries_provenance`, `keeps_some_provenance` |
| inbound files untouched: only the parent and the children change | `only_paths` |
| children in the parent's bucket, named after their file | `creates_in_bucket`, `name_matches_basename` |
| links resolve (the parent's old ones exempt), no new anchor in the parent, no source written | `links_resolve`, `no_new_anchors`, `no_sources_written` |
| the parent's new body is not over the threshold (else the split did not unload it and the next write would queue it again) | `body_under_tokens` |

The provenance checks are left out for a parent that has no provenance (D10: it has
none to hand down). One rule is enforced at planning only: a child name that looks like
a path (`..`, `/abs`, `digest/…`, `….md`) is refused rather than slugified. The proposal's story
lists `cooldowns` for the parent and each child (started when it applies, §7.4.3).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from ..config import SplitSettings
from ..errors import NoteError, NoteExistsError, RemeError
from ..llm.base import Usage
from ..llm.consolidate import ConsolidateBrain, NoteView, SplitRequest
from ..llm.planning import PlanRefused, plan_with_feedback
from ..llm.prompts import detect_language
from ..llm.schema import SplitPlan
from ..proposals import Policy, ProposalQueue
from ..vault.checks import CheckSpec, build_checks
from ..vault.layout import bucket_of, normalize_rel
from ..vault.links import (
    PROVENANCE_PREDICATE,
    format_link,
    is_provenance,
    outbound_keys,
    parse_links,
)
from ..vault.meta import iso_utc
from ..vault.note import Note, decode_note_bytes, parse, render_bytes
from ..vault.resolve import LinkRepair, LinkResolver, repair_links
from ..vault.slug import free_slug, note_path, slugify
from ..vault.split_queue import (
    SPLIT_QUEUE_META,
    JudgedSplit,
    QueuedSplit,
    RejectedSplit,
    enqueue_splits,
    read_split_queue,
    settle_split_queue,
)
from ..vault.store import Changeset, CheckContext, Edit, Stamp
from ..vault.tokens import content_tokens
from ..vault.vault import Vault
from .cooldowns import Cooldowns, CooldownWindows
from .split_scan import SCAN, find_over_threshold

__all__ = [
    "SPLIT_ACTION",
    "DEFAULT_THRESHOLD",
    "body_tokens",
    "queue_overloaded",
    "SplitOutcome",
    "SplitRun",
    "run_split_queue",
    "split_parent",
]

SPLIT_ACTION = "consolidate.split"
DEFAULT_THRESHOLD = SplitSettings().token_threshold  # [split] token_threshold, from config.py
MAX_RAW_IN_STORY = 200_000  # the schema bounds a plan to ~140k characters; this is a backstop
# the labels of the lines the plan completes mechanically
_LABELS = {"en": {"part_of": "Part of", "parts": "Split into"},
           "zh": {"part_of": "属于", "parts": "拆分为"}}
# "../x", "/etc/x", "C:\\x", "digest/wiki/x", "x.md": a name that tries to be a path
_PATH_LIKE = re.compile(
    r"(^|[/\\])\.\.([/\\]|$)|^[/\\]|^[A-Za-z]:[/\\]"
    r"|^\s*(digest|daily|resource|meta|audit|\.reme)\s*[/\\]|\.md\s*$",
    re.IGNORECASE,
)
# states after which the entry leaves the queue; the others keep it for the next run
_DEQUEUED = frozenset({"pending", "applied", "rejected", "not-overloaded", "under-threshold",
                       "missing", "unreadable", "not-a-note", "waiting", "rejected-before",
                       "judged-before"})
# not-overloaded notes named in the audit's one summary line; the rest are counted
_AUDIT_NAMES = 10


def body_tokens(text: str, path: str) -> int:
    """The split trigger's count (docs/spec.md §7.8.1): estimated tokens of the body
    after the frontmatter. NoteError when the frontmatter cannot be read."""
    return content_tokens(parse(text, path).body)


def queue_overloaded(
    vault: Vault, paths: Iterable[str], *, by: str, threshold: int = DEFAULT_THRESHOLD,
    now: datetime | None = None,
) -> tuple[str, ...]:
    """After a consolidate write: queue every written digest note whose body is over
    `threshold` (what dream does after its writes). Returns the paths queued."""
    over: list[tuple[str, int]] = []
    for path in dict.fromkeys(paths):
        if bucket_of(path) is None:
            continue
        current = vault.store.read(path)
        if current is None:
            continue
        try:
            tokens = body_tokens(decode_note_bytes(current[0], path,
                                                   max_bytes=vault.scan.max_note_bytes), path)
        except NoteError:
            continue
        if tokens > threshold:
            over.append((path, tokens))
    if over:
        enqueue_splits(vault.root, over, by=by, now=now or vault.clock())
    return tuple(p for p, _ in over)


@dataclass(frozen=True)
class SplitOutcome:
    """What became of one queued note."""

    path: str
    # pending, applied, stale or refused (when applied; stays queued), rejected (by the
    # checks at planning), dry-run, failed (the brain gave no answer; stays queued),
    # not-overloaded, under-threshold, missing, unreadable, not-a-note, cooldown,
    # waiting (a split proposal for these bytes waits for a person), rejected-before,
    # judged-before (these bytes were judged not overloaded)
    state: str
    tokens: int | None = None
    reason: str = ""
    proposal_id: str | None = None
    children: tuple[str, ...] = ()
    by: str = ""  # who queued it ("dream", "consolidate.merge", …), SCAN when the look found it

    @property
    def dequeued(self) -> bool:
        return self.state in _DEQUEUED

    def to_json(self) -> dict:
        return {"path": self.path, "state": self.state, "tokens": self.tokens,
                "reason": self.reason, "proposal_id": self.proposal_id,
                "children": list(self.children), "by": self.by}


@dataclass(frozen=True)
class SplitRun:
    """A run over the split queue and the digest: an outcome per note over the
    threshold (queued or found), and what waits for a later run."""

    outcomes: tuple[SplitOutcome, ...] = ()
    remaining: tuple[str, ...] = ()  # still queued after the run, or found and kept for later
    threshold: int = DEFAULT_THRESHOLD
    usage: Usage = field(default_factory=Usage)
    calls: int = 0
    notices: tuple[str, ...] = ()
    audit: str | None = None  # the audit file the run appended to
    dry_run: bool = False
    written: tuple[str, ...] = ()  # meta files the run wrote (the queue file)

    def count(self, *states: str) -> int:
        return sum(1 for o in self.outcomes if o.state in states)

    @property
    def proposed(self) -> tuple[SplitOutcome, ...]:
        return tuple(o for o in self.outcomes if o.state in ("pending", "applied", "dry-run"))

    def summary(self) -> str:
        if not self.outcomes:
            return f"no note to split (none queued, none new over {self.threshold} tokens)"
        found = sum(1 for o in self.outcomes if o.by == SCAN)
        parts = [f"{len(self.outcomes) - found} queued, {found} found over the threshold"]
        for label, states in (("proposed", ("pending", "dry-run")), ("applied", ("applied",)),
                              ("not overloaded", ("not-overloaded",)),
                              ("rejected", ("rejected",)),
                              ("under the threshold now", ("under-threshold",)),
                              ("in a merge → split cooldown", ("cooldown",)),
                              ("waiting for review", ("waiting",)),
                              ("unchanged since rejected", ("rejected-before",)),
                              ("unchanged since judged not overloaded", ("judged-before",)),
                              ("gone or unreadable", ("missing", "unreadable", "not-a-note")),
                              ("stale or refused when applied", ("stale", "refused")),
                              ("failed", ("failed",))):
            n = self.count(*states)
            if n:
                parts.append(f"{n} {label}")
        return ", ".join(parts) + f"; {len(self.remaining)} left for a later run"

    def audit_lines(self) -> list[str]:
        """Markdown lines a person may want to read: one per split proposed, rejected or
        held back, and one for all the notes judged not overloaded."""
        lines = []
        for o in self.outcomes:
            link = f"[[{o.path}]]"
            kids = ", ".join(f"[[{c}]]" for c in o.children)
            if o.state in ("pending", "applied"):
                lines.append(f"- split {o.state}: {link} ({o.tokens} tokens > {self.threshold}) "
                             f"into {kids} — proposal `{o.proposal_id}`")
            elif o.state == "rejected":
                pid = f" — proposal `{o.proposal_id}`" if o.proposal_id else ""
                lines.append(f"- split rejected: {link}: {o.reason}{pid}")
            elif o.state in ("cooldown", "failed", "stale", "refused"):
                lines.append(f"- split {o.state}, stays queued: {link}: {o.reason}")
        calm = [o for o in self.outcomes if o.state == "not-overloaded"]
        if calm:  # one line, however many: a first look at a big vault judges hundreds
            named = ", ".join(f"[[{o.path}]] ({o.tokens} tokens: {_short(o.reason)})"
                              for o in calm[:_AUDIT_NAMES])
            more = f" and {len(calm) - _AUDIT_NAMES} more" if len(calm) > _AUDIT_NAMES else ""
            lines.append(f"- split not needed for {len(calm)} note(s) over {self.threshold} "
                         f"tokens, judged not overloaded (asked again when they change): "
                         f"{named}{more}")
        return lines

    def to_json(self) -> dict:
        return {"outcomes": [o.to_json() for o in self.outcomes],
                "remaining": list(self.remaining), "threshold": self.threshold,
                "tokens": {**self.usage.to_json(), "calls": self.calls},
                "notices": list(self.notices), "audit": self.audit, "dry_run": self.dry_run,
                "written": list(self.written)}


def _short(reason: str, limit: int = 120) -> str:
    text = " ".join(reason.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _PlanError(PlanRefused):
    """The brain's plan cannot become a changeset; the message is its feedback."""


@dataclass(frozen=True)
class _Plan:
    parent: str
    children: tuple[tuple[str, str], ...]  # (name, path)
    ops: tuple
    checks: tuple[CheckSpec, ...]
    before: dict
    repairs: tuple[LinkRepair, ...]
    completed: tuple[dict, ...]
    tokens: dict  # path -> body tokens after the split

    @property
    def paths(self) -> list[str]:
        return [self.parent, *(p for _, p in self.children)]


def split_parent(story: Mapping, paths: Iterable[str]) -> str | None:
    """The note a split proposal splits: its story's plan's `parent` (as `_split` writes
    it), else the first digest note among its `paths` (a plan the checks refused)."""
    plan = story.get("plan")
    parent = plan.get("parent") if isinstance(plan, Mapping) else None
    path = parent.get("path") if isinstance(parent, Mapping) else None
    return path if isinstance(path, str) and path else next(
        (p for p in paths if p.startswith("digest/")), None)


def run_split_queue(
    vault: Vault,
    brain: ConsolidateBrain,
    *,
    threshold: int = DEFAULT_THRESHOLD,
    cooldowns: Cooldowns | None = None,
    now: datetime | None = None,
    policy: Policy | None = None,
    language: str = "auto",
    dry_run: bool = False,
    audit: bool = True,
    only: Iterable[str] | None = None,
) -> SplitRun:
    """Run the split queue once, and look at every other digest note over the threshold
    (see the module doc).

    `cooldowns` defaults to meta/cooldowns.json with the default windows; `policy` to the
    default, which holds `consolidate.split` for a person. `dry_run` asks the brain and
    checks the plans but writes nothing (no proposal, queue or audit). `audit=False`
    leaves the audit to the caller (`SplitRun.audit_lines()`). `only` limits the run to
    those paths (re-planning one proposal must not plan the rest of the vault).
    """
    return _Splitter(vault, brain, threshold=threshold, cooldowns=cooldowns, now=now,
                     policy=policy, language=language, dry_run=dry_run, audit=audit,
                     only=None if only is None else frozenset(only)).run()


def _key(text: str) -> str:
    """How a link target is compared with a note's name or slug."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    return text[:-3] if text.endswith(".md") else text


def _alias(text: str | None) -> str | None:
    """`text` usable as a link alias, or None."""
    if not text:
        return None
    clean = re.sub(r"[\[\]\r\n]+", " ", text).strip()
    return clean or None


def _in_table_row(text: str, pos: int) -> bool:
    start = text.rfind("\n", 0, pos) + 1
    return text[start:pos].lstrip().startswith("|")


def _link_by_name(text: str, names: dict[str, str], keep: frozenset) -> str:
    """Point every link whose target is a planned note's name or slug at its path; the
    parent's old links (`keep`) stay as they are written."""
    out = text
    for link in reversed(parse_links(text)):
        path = names.get(_key(link.target)) if link.target else None
        if path is None or link.embed or link.target == path or link.key in keep:
            continue
        alias = _alias(link.alias) or _alias(link.target)
        try:
            new = format_link(path, alias=alias)
        except ValueError:
            continue  # left for repair_links: it resolves or writes the text
        if _in_table_row(out, link.start):
            new = new.replace("|", "\\|", 1)
        out = out[: link.start] + new + out[link.end :]
    return out


class _Splitter:
    def __init__(self, vault, brain, *, threshold, cooldowns, now, policy, language, dry_run,
                 audit, only) -> None:
        self.vault = vault
        self.brain = brain
        self.threshold = threshold
        self.cooldowns = cooldowns if cooldowns is not None else Cooldowns.load(
            vault.root, CooldownWindows())
        self.now = now or vault.clock()
        self.policy = policy or Policy()
        self.language = language
        self.dry_run = dry_run
        self.write_audit = audit
        self.only = only
        self.proposals = ProposalQueue(vault)
        self.usage = Usage()
        self.calls = 0

    # -- the run ------------------------------------------------------------------------
    def run(self) -> SplitRun:
        self.vault.refresh()
        queue = read_split_queue(self.vault.root)
        notices = [queue.warning] if queue.warning else []
        if self.cooldowns.warning:
            notices.append(self.cooldowns.warning)
        # a rejection or a "not overloaded" is forgotten once its note changed or went away
        forget = [r.path for r in queue.rejected if self._changed(r.path, r.sha256)]
        remembered = {r.path: r.sha256 for r in queue.rejected if r.path not in forget}
        unjudge = [j.path for j in queue.not_overloaded if self._changed(j.path, j.sha256)]
        judged = {j.path: j.sha256 for j in queue.not_overloaded if j.path not in unjudge}
        entries = [e for e in queue.entries if self.only is None or e.path in self.only]
        found = find_over_threshold(
            self.vault, self.threshold, now=self.now, queued={e.path for e in queue.entries},
            decided={**judged, **remembered}, only=self.only, cache=not self.dry_run)
        waiting = self._waiting() if entries or found else {}
        # a note the look found whose bytes a split proposal holds is that proposal's
        found = [e for e in found if not self._waits(e.path, waiting)]
        outcomes: list[SplitOutcome] = []
        handled: list[QueuedSplit] = []
        rejected: list[RejectedSplit] = []
        calm: list[JudgedSplit] = []
        later: list[str] = []  # found, not decided: looked at again next run
        for entry in [*entries, *found]:
            outcome, memo = self._one(entry, remembered, judged, waiting)
            outcomes.append(outcome)
            if entry.by == SCAN:
                if not outcome.dequeued:
                    later.append(entry.path)
            elif outcome.dequeued:
                handled.append(entry)
            if isinstance(memo, RejectedSplit):
                rejected.append(memo)
            elif isinstance(memo, JudgedSplit):
                calm.append(memo)
        remaining = tuple(e.path for e in queue.entries if e not in handled)
        written: tuple[str, ...] = ()
        if not self.dry_run and (handled or rejected or forget or calm or unjudge):
            before = read_split_queue(self.vault.root).to_json()
            settled = settle_split_queue(self.vault.root, handled, rejected=rejected,
                                         forget_rejected=forget, not_overloaded=calm,
                                         forget_judged=unjudge, now=self.now)
            remaining = settled.paths
            if settled.to_json() != before:
                written = (f"meta/{SPLIT_QUEUE_META}.json",)
        run = SplitRun(tuple(outcomes), tuple(dict.fromkeys([*remaining, *later])),
                       self.threshold, self.usage, self.calls, tuple(notices), None,
                       self.dry_run, written)
        if not self.dry_run and self.write_audit and run.audit_lines():
            text = f"## split {self.now.strftime('%H:%M:%S')} UTC\n\n" + "\n".join(
                run.audit_lines()) + "\n"
            result = self.vault.record_audit("consolidate_actions", text)
            audit_rel = next((p for p in result.written if p.startswith("audit/")), None)
            run = replace(run, audit=audit_rel)
        return run

    def _changed(self, path: str, sha256: str) -> bool:
        """Whether `path` is gone or holds other bytes than `sha256` (by the scan, which
        `run` refreshed: no file is read)."""
        record = self.vault.scan.records.get(path)
        return record is None or record.sha256 != sha256

    def _waits(self, path: str, waiting: dict) -> bool:
        wait = waiting.get(path)
        if wait is None or wait[1] is None:
            return False
        record = self.vault.scan.records.get(path)
        return record is not None and record.sha256 == hashlib.sha256(wait[1]).hexdigest()

    def _waiting(self) -> dict[str, tuple[str, bytes | None]]:
        """parent path -> (proposal id, the bytes it was planned from) of split proposals
        waiting for a person."""
        out = {}
        for proposal in self.proposals.list():
            if proposal.action != SPLIT_ACTION or proposal.state not in ("pending", "stale"):
                continue
            edits = [op.path for op in proposal.ops if isinstance(op, Edit)]
            if len(edits) == 1:
                out[edits[0]] = (proposal.id, proposal.before.get(edits[0]))
        return out

    def _one(self, entry: QueuedSplit, remembered: dict, judged: dict, waiting: dict):
        """(what became of the entry, a RejectedSplit or JudgedSplit to remember, or None)"""
        outcome, memo = self._decide(entry, remembered, judged, waiting)
        return replace(outcome, by=entry.by), memo

    def _decide(self, entry: QueuedSplit, remembered: dict, judged: dict, waiting: dict):
        path = entry.path
        try:
            current = self.vault.store.read(path)
        except RemeError as exc:  # a symlink or an unsafe path put there by hand
            return SplitOutcome(path, "unreadable", reason=str(exc)), None
        if current is None:
            return SplitOutcome(path, "missing", reason="the note no longer exists"), None
        data, stamp = current
        bucket = bucket_of(path)
        if bucket is None:
            return SplitOutcome(path, "not-a-note", reason="not a digest note"), None
        try:
            text = decode_note_bytes(data, path, max_bytes=self.vault.scan.max_note_bytes)
            note = parse(text, path)
        except NoteError as exc:
            return SplitOutcome(path, "unreadable", reason=str(exc)), None
        tokens = content_tokens(note.body)
        if tokens <= self.threshold:
            return SplitOutcome(path, "under-threshold", tokens,
                                f"{tokens} tokens, not over {self.threshold} any more"), None
        if remembered.get(path) == stamp.sha256:
            why = "a split of these very bytes was rejected; it waits for the note to change"
            return SplitOutcome(path, "rejected-before", tokens, why), None
        if judged.get(path) == stamp.sha256:
            why = "these very bytes were judged not overloaded; asked again when the note changes"
            return SplitOutcome(path, "judged-before", tokens, why), None
        cool = self.cooldowns.active(path, "split", self.now)
        if cool is not None:
            return SplitOutcome(path, "cooldown", tokens,
                                f"merged {cool.entry.started_at.date().isoformat()}: no split "
                                f"until {cool.until.date().isoformat()} ([cooldowns] {cool.key})"
                                ), None
        wait = waiting.get(path)
        if wait is not None and wait[1] == data:
            return SplitOutcome(path, "waiting", tokens, f"proposal {wait[0]} waits for review",
                                wait[0]), None
        outcome, rejection = self._split(path, data, stamp, text, note, tokens, bucket)
        if outcome.state == "not-overloaded" and not self.dry_run:
            return outcome, JudgedSplit(path, stamp.sha256, iso_utc(self.now), tokens,
                                        outcome.reason[:2000])
        return outcome, rejection

    # -- asking the brain -----------------------------------------------------------------
    def _split(self, path, data, stamp, text, note, tokens, bucket):
        view = NoteView(path, note.name or "", note.description or "", note.body)
        request = SplitRequest(view, tokens, self.threshold, bucket, self.language)
        lang = self.language if self.language in _LABELS else detect_language(note.body)
        story: dict = {"tokens": tokens, "threshold": self.threshold, "bucket": bucket,
                       "language": lang, "attempts": []}
        def make_plan(reply, _record: dict):
            plan = self._plan(path, data, stamp, text, note, reply.value, bucket, lang)
            return plan, self._precheck(plan)

        # unsure counts as not overloaded (F-5); one retry with the violations (§4.5.3)
        loop = plan_with_feedback(
            self.brain.plan_split, request, make_plan,
            describe=lambda r: {"plan": r.value.model_dump(), "raw": r.raw[:MAX_RAW_IN_STORY],
                                "usage": r.usage.to_json(), "model": r.model},
            stop=lambda r: None if r.value.overloaded else r.value.reason)
        self.calls += loop.calls + (1 if loop.error is not None else 0)
        self.usage += loop.usage
        story["attempts"] += loop.attempts
        if loop.error is not None:
            raw = loop.raw_error
            return SplitOutcome(path, "failed", tokens,
                                f"the brain gave no usable plan: {str(loop.error)[:500]}"
                                + (f" (raw: {raw[:200]!r})" if raw else "")), None
        if loop.stopped is not None:
            return SplitOutcome(path, "not-overloaded", tokens, loop.stopped), None
        plan, failures, usage = loop.plan, loop.failures, loop.usage
        value: SplitPlan | None = loop.reply.value if loop.reply is not None else None
        story["tokens_used"] = usage.to_json()
        if plan is not None:
            story["plan"] = {
                "reason": value.reason if value else "",
                "parent": {"path": path, "tokens_before": tokens,
                           "tokens_after": plan.tokens[path]},
                "children": [{"name": n, "path": p, "tokens": plan.tokens[p]}
                             for n, p in plan.children],
            }
            story["link_repairs"] = [r.to_json() for r in plan.repairs]
            story["completed"] = list(plan.completed)
            story["checks"] = [c.to_json() for c in plan.checks]
            story["cooldowns"] = [{"path": p, "action": "split"} for p in plan.paths]
        if failures:
            return self._rejected(path, stamp, tokens, plan, failures, story)
        story["checks_passed"] = [c.name for c in plan.checks]
        kids = tuple(p for _, p in plan.children)
        proposal = self.proposals.new(
            SPLIT_ACTION,
            f"split {path} ({tokens} tokens) into {len(kids)} notes: {', '.join(kids)}",
            plan.ops, checks=plan.checks, story=story, before=plan.before)
        if self.dry_run:
            return SplitOutcome(path, "dry-run", tokens, value.reason, None, kids), None
        proposal = self.proposals.submit(proposal, self.policy)
        if proposal.state == "applied":
            self.vault.refresh(plan.paths)
            queue_overloaded(self.vault, kids, by=SPLIT_ACTION, threshold=self.threshold,
                             now=self.now)  # a child still over the threshold waits its turn
            return SplitOutcome(path, "applied", tokens, value.reason, proposal.id, kids), None
        if proposal.state == "rejected":  # the vault changed between plan and apply
            return SplitOutcome(path, "refused", tokens, f"refused when applied: {proposal.error}",
                                proposal.id, kids), None
        reason = value.reason if proposal.state == "pending" else (proposal.error or "")
        return SplitOutcome(path, proposal.state, tokens, reason, proposal.id, kids), None

    def _rejected(self, path, stamp, tokens, plan, failures, story):
        message = "; ".join(failures)
        pid = None
        if plan is not None and not self.dry_run:  # kept for a person to read
            proposal = self.proposals.new(SPLIT_ACTION, f"REJECTED: split {path}", plan.ops,
                                          checks=plan.checks, story=story, before=plan.before)
            proposal = proposal.with_state("rejected", now=proposal.created_at, error=message)
            self.proposals.save(proposal)
            pid = proposal.id
        rejection = RejectedSplit(path, stamp.sha256, self.now.isoformat(), pid, message[:2000])
        kids = tuple(p for _, p in plan.children) if plan else ()
        return SplitOutcome(path, "rejected", tokens, message, pid, kids), rejection

    # -- the plan ---------------------------------------------------------------------------
    def _child_paths(self, plan: SplitPlan, bucket: str) -> list[tuple[str, str, str]]:
        """(name, slug, path) per child: a plain name, a free slug in the parent's bucket."""
        taken: set[str] = set()
        out = []
        for child in plan.children:
            name = child.name.strip()
            if _PATH_LIKE.search(name):
                raise _PlanError(
                    f"the child name {name!r} looks like a file path; give a plain name (the "
                    f"file is made from it in digest/{bucket}/, the parent's bucket)")
            try:
                slug = slugify(name)
            except RemeError as exc:
                raise _PlanError(f"the child name {name!r} cannot become a file name ({exc})"
                                 ) from None
            slug = free_slug(slug, lambda s: s in taken or self.vault.store.read(
                note_path(bucket, s)) is not None)  # a create never overwrites (§1.3.3)
            taken.add(slug)
            out.append((name, slug, note_path(bucket, slug)))
        return out

    def _plan(self, path, data, stamp: Stamp, text, note, value: SplitPlan, bucket, lang) -> _Plan:
        labels = _LABELS.get(lang, _LABELS["en"])
        kids = self._child_paths(value, bucket)
        kid_paths = [p for _, _, p in kids]
        old_keys = outbound_keys(text)
        old_links = {lk.key for lk in parse_links(text)}  # kept as written, even if broken
        sources: dict[str, str] = {}  # normalised provenance target -> as written
        for lk in parse_links(text):
            if is_provenance(lk):
                sources.setdefault(normalize_rel(lk.target), lk.target)
        names: dict[str, str] = {}
        for name, slug, kid in kids:
            names.setdefault(_key(name), kid)
            names.setdefault(_key(slug), kid)
            # the path the brain may have guessed, before a taken slug moved it to -2
            names.setdefault(_key(note_path(bucket, slugify(name))), kid)
        for alias in (note.name, path.rsplit("/", 1)[-1]):
            if alias:
                names.setdefault(_key(alias), path)
        resolver = LinkResolver([*self.vault.scan.records, *kid_paths])
        repairs: list[LinkRepair] = []

        def fix(body: str) -> str:
            body = _link_by_name(body if body.endswith("\n") else body + "\n", names,
                                 frozenset(old_links))
            new, found = repair_links(body, path, resolver, keep=frozenset(old_links))
            repairs.extend(found)
            return new

        completed: list[dict] = []
        parent_body = fix(value.parent_body or "")
        linked = {t for t, _ in outbound_keys(parent_body)}
        missing = [(n, k) for n, _, k in kids if k not in linked]
        if missing:
            lines = [f"- {format_link(k, alias=_alias(n))}" for n, k in missing]
            parent_body = parent_body.rstrip("\n") + f"\n\n**{labels['parts']}:**\n" + "\n".join(
                lines) + "\n"
            completed.append({"path": path, "added": lines})
        parent_name = _alias(note.name) or _alias(path.rsplit("/", 1)[-1][:-3])
        bodies = []
        for (_name, _slug, kid), child in zip(kids, value.children, strict=True):
            body = fix(child.body)
            added = []
            if path not in {t for t, _ in outbound_keys(body)}:
                added.append(f"**{labels['part_of']}:** {format_link(path, alias=parent_name)}")
            links = parse_links(body)
            for clean, written in sources.items():
                if not any(is_provenance(lk, clean) for lk in links):
                    added.append(f"{PROVENANCE_PREDICATE}:: [[{written}]]")
            if added:
                body = body.rstrip("\n") + "\n\n" + "\n".join(added) + "\n"
                completed.append({"path": kid, "added": added})
            bodies.append(body)
        tokens = {path: content_tokens(parent_body)}
        tokens.update((kid, content_tokens(b)) for kid, b in zip(kid_paths, bodies, strict=True))
        if tokens[path] > self.threshold:
            raise _PlanError(
                f"the parent's new body has {tokens[path]} tokens, over the split threshold "
                f"{self.threshold}: keep only an overview there and move the details into the "
                "children")
        ops: list = [Edit(path, render_bytes(note.with_body(parent_body)), stamp)]
        for (_name, _slug, kid), child, body in zip(kids, value.children, bodies, strict=True):
            content = render_bytes(Note.new(kid, description=child.description.strip(), body=body))
            try:
                ops.append(self.vault.store.plan_create(kid, content))  # exclusive
            except NoteExistsError as exc:
                raise _PlanError(str(exc)) from None
        every = [path, *kid_paths]
        keys = sorted(([t, p] for t, p in old_keys), key=lambda k: (k[0], k[1] or ""))
        kept = sorted(([t, p] for t, p in old_links), key=lambda k: (k[0], k[1] or ""))
        checks = [
            CheckSpec("union_keeps_outbound", {"paths": every, "keys": keys}),  # E-2
            CheckSpec("links_to", {"paths": kid_paths, "targets": [path]}),
            CheckSpec("links_to", {"paths": [path], "targets": kid_paths}),
        ]
        if sources:  # a parent without provenance (D10) has none to hand down
            checks += [
                CheckSpec("carries_provenance", {"paths": kid_paths, "sources": list(sources)}),
                CheckSpec("keeps_some_provenance", {"paths": every}),
            ]
        checks += [
            CheckSpec("only_paths", {"paths": every}),  # inbound files are not touched
            *(CheckSpec("creates_in_bucket", {"path": k, "bucket": bucket}) for k in kid_paths),
            CheckSpec("name_matches_basename", {"paths": kid_paths}),
            *(CheckSpec("links_resolve", {"path": p, "keep": kept}) for p in every),
            CheckSpec("no_new_anchors", {"paths": [path]}),
            CheckSpec("no_sources_written", {}),
            # stored, so a person's edit before accepting is held to it too (≤ threshold)
            CheckSpec("body_under_tokens", {
                "path": path, "max_tokens": self.threshold + 1,
                "hint": "the parent keeps only an overview; the details go to the children"}),
        ]
        before = {path: data, **{k: None for k in kid_paths}}
        return _Plan(path, tuple((n, k) for n, _, k in kids), tuple(ops), tuple(checks), before,
                     tuple(repairs), tuple(completed), tokens)

    def _precheck(self, plan: _Plan) -> list[str]:
        """Run the plan's checks now, so the brain can be told what to fix."""
        after = {op.path: getattr(op, "content", None) for op in plan.ops}
        ctx = CheckContext(Changeset(ops=plan.ops), plan.before, after,
                           exists=self.vault.scan.exists)
        return [f"{c.name}: {why}" for c in build_checks(plan.checks) for why in c.fn(ctx)]
