"""Dream (docs/spec.md §4): material → Phase 1 extract → Phase 2 integrate, per unit.

Each unit becomes exactly one proposal (CREATE in the unit's bucket, or UPDATE of a
recalled note with a flavor). The proposal carries the mechanical rules as checks, so
whatever the brain says — including text planted in the material to steer it — only
a change that passes them can land. A violated rule gets the brain one retry with
the violation explained; a second violation leaves a rejected proposal for review.
A dry run is the run itself on a scratch copy of the vault (`rehearsal.py`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from ..config import RecallSettings, SplitSettings
from ..errors import NoteError, RemeError
from ..index.recall import RecallHit, recall
from ..index.store import VaultIndex
from ..llm.base import (
    Brain,
    BrainError,
    CandidateNote,
    IntegrateRequest,
    Material,
    Usage,
    order_units_for_cache,
)
from ..llm.planning import PlanRefused, plan_with_feedback
from ..llm.schema import IntegrateDecision, MemoryUnit
from ..proposals import Policy, ProposalQueue
from ..proposals.model import Proposal
from ..vault.checks import CheckSpec, build_checks
from ..vault.links import outbound_keys, parse_links
from ..vault.note import Note, decode_note_bytes, parse, render
from ..vault.resolve import LinkRepair, LinkResolver, repair_links
from ..vault.slug import free_slug, note_path, slugify
from ..vault.store import Changeset, CheckContext, Create, Edit
from ..vault.tokens import content_tokens
from ..vault.vault import Vault
from .keys import owner_prefix, relation, topic_key
from .material import DreamtRecord, select_material
from .meaning import Meaning
from .resume import Extracted, FileResume, ResumeRecord, piece_key, unit_key

__all__ = ["Dreamer", "DreamReport", "DreamProgress", "UnitOutcome", "UnitOrigin"]


@dataclass(frozen=True)
class DreamProgress:
    """Where a run is: sent to `Dreamer(progress=...)` after Phase 1 and after each unit."""

    files_done: int  # material files finished before the current one
    files_total: int
    material: str  # the file being dreamt
    units_done: int  # units integrated so far in this run (all files)
    units_in_file: int  # units Phase 1 found in the current file (0 until it answered)

@dataclass(frozen=True)
class UnitOrigin:
    """The unit of material a dream proposal plans: its story's `material` and `unit`
    (`to_json`, as Phase 2 writes them; `from_json` reads them back to plan it again)."""

    material: str
    unit: MemoryUnit

    def to_json(self) -> dict:
        return {"material": self.material, "unit": self.unit.model_dump()}

    @classmethod
    def from_json(cls, story: Mapping, *, of: str = "The proposal") -> UnitOrigin:
        """The origin a proposal's story names; a story without one (or one edited out of
        shape: the proposal file is a trust boundary) is refused, saying what to do."""
        from pydantic import ValidationError

        material, unit = story.get("material"), story.get("unit")
        refused = RemeError(f"{of} does not say which material and unit it came from; "
                            "dream the material again with `reme-workbench dream`.")
        if not isinstance(material, str) or not isinstance(unit, Mapping):
            raise refused
        try:
            return cls(material, MemoryUnit.model_validate(dict(unit)))
        except ValidationError:
            raise refused from None


@dataclass(frozen=True)
class UnitOutcome:
    """The brain's IntegrateOutcome {action, target_path}, plus what became of it."""

    material: str
    unit: str
    bucket: str
    action: str  # CREATE, UPDATE, or FAILED when no valid plan came out
    flavor: str | None
    target_path: str | None
    proposal_id: str | None
    state: str  # applied, pending, rejected, stale, dry-run, failed
    message: str | None = None

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class DreamReport:
    materials: tuple[str, ...]
    outcomes: tuple[UnitOutcome, ...]
    skipped: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()
    usage: Usage = field(default_factory=Usage)
    calls: int = 0
    split_candidates: tuple[str, ...] = ()
    broken_links: tuple[str, ...] = ()
    # parts of the material that gave no unit: (material, part, reason), §4.2.5
    set_aside: tuple[tuple[str, str, str], ...] = ()

    @property
    def failed(self) -> int:
        return sum(1 for o in self.outcomes if o.state == "failed")

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(o.proposal_id for o in self.outcomes if o.state == "pending" and o.proposal_id)

    def to_json(self) -> dict:
        return {
            "materials": list(self.materials),
            "outcomes": [o.to_json() for o in self.outcomes],
            "skipped": list(self.skipped),
            "notices": list(self.notices),
            "tokens": {**self.usage.to_json(), "calls": self.calls},
            "pending": list(self.pending),
            "split_candidates": list(self.split_candidates),
            "broken_links": list(self.broken_links),
            "set_aside": [{"material": m, "part": p, "reason": r} for m, p, r in self.set_aside],
        }


KEYED_CANDIDATES = 3  # notes on the unit's person and topic shown first, at most

# "../x", "/etc/x", "a\\..\\b": a name that tries to be a path is refused, not repaired
_PATH_LIKE = re.compile(r"(^|[/\\])\.\.([/\\]|$)|^[/\\]|^[A-Za-z]:[/\\]")


def _sorted_keys(keys: Iterable[tuple[str, str | None]]) -> list[list]:
    """Edge keys as a JSON list in a stable order (check parameters are stored)."""
    return sorted(([t, p] for t, p in keys), key=lambda k: (k[0], k[1] or ""))


def _change_key(action: str, ops) -> tuple:
    """A change by what it writes: its action and each file's path and bytes (a deletion by
    its path). Two proposals with one key make the same change."""
    return (action, tuple((type(op).__name__, op.path, getattr(op, "content", None)) for op in ops))


def _unchanged(plan: _Plan) -> bool:
    """An UPDATE that would write the bytes the note has (a CORROBORATE of a note that
    already cites the material and says what it says)."""
    return bool(plan.ops) and all(isinstance(op, Edit) and plan.before.get(op.path) == op.content
                                  for op in plan.ops)


def _kept_lead(old_body: str, new_body: str) -> str:
    """`new_body` with the blank lines `old_body` opens with: a model is shown the body
    stripped and answers without them, which would rewrite the note's first lines."""
    lead = old_body[: len(old_body) - len(old_body.lstrip("\r\n"))]
    if not lead or new_body.startswith(lead):
        return new_body
    return lead + new_body.lstrip("\r\n")


def _in_line_ends_of(old_body: str, new_body: str) -> str:
    """`new_body` with the line ends of `old_body` when that one is CRLF throughout: a
    model answers with `\n`, which would rewrite every line of a note saved on Windows."""
    if "\r\n" not in old_body or old_body.count("\n") != old_body.count("\r\n"):
        return new_body
    return new_body.replace("\r\n", "\n").replace("\n", "\r\n")


class _PlanError(PlanRefused):
    """The brain's decision cannot become a changeset; the message is its feedback."""


def _retypes(decision: IntegrateDecision, target: str, keys: set
             ) -> list[tuple[str, str | None, str | None]]:
    """The links whose predicate the UPDATE changes, as `[target, old, new]`; each must
    name a link of the old body as written (else the brain is told which ones it has)."""
    retypes = [(c.target, c.old, c.new) for c in decision.predicate_changes]
    unknown = [(t, old) for t, old, _ in retypes if (t, old) not in keys]
    if unknown:
        had = ", ".join(f"{'' if p is None else p + ':: '}[[{t}]]"
                        for t, p in sorted(keys, key=lambda k: (k[0], k[1] or ""))) or "none"
        named = ", ".join(f"{'' if p is None else p + ':: '}[[{t}]]" for t, p in unknown)
        raise _PlanError(f"predicate_changes names {named}, which {target} does not link; "
                         f"its links are: {had}")
    return retypes


@dataclass
class _Plan:
    action: str  # dream.create / dream.corroborate / ...
    path: str
    ops: tuple
    checks: tuple[CheckSpec, ...]
    before: dict  # path -> bytes the plan was made from (None: absent); read once, reused
    repairs: tuple[LinkRepair, ...] = ()  # links rewritten so that every one resolves
    retypes: tuple = ()  # (target, old, new) of each link whose predicate the UPDATE changes


class Dreamer:
    """Runs dream over a vault with one brain, one index and one proposal policy."""

    def __init__(
        self,
        vault: Vault,
        brain: Brain,
        index: VaultIndex,
        *,
        policy: Policy | None = None,
        recall_k: int = 20,
        traverse_depth: int = RecallSettings().traverse_depth,
        max_candidates: int = 5,
        split_threshold: int = SplitSettings().token_threshold,
        progress: Callable[[DreamProgress], None] | None = None,
    ) -> None:
        self.vault = vault
        self.brain = brain
        self.index = index
        self.policy = policy or Policy()
        self.queue = ProposalQueue(vault)
        self.recall_k = recall_k
        self.traverse_depth = traverse_depth  # link hops from the search hits ([recall])
        self.max_candidates = max_candidates
        self.split_threshold = split_threshold  # docs/spec.md §4.9.1 split trigger
        self.progress = progress
        self._usage = Usage()
        self._calls = 0
        self._links: LinkResolver | None = None  # the vault's files, for repair_links
        self._set_aside: list[tuple[str, str, str]] = []  # what gave no unit, and why
        self._pending: dict[tuple, str] | None = None  # _waiting's: pending changes, read once

    # -- the run -------------------------------------------------------------------
    def run(
        self, targets: Iterable[str] | None = None, *, dry_run: bool = False, force: bool = False
    ) -> DreamReport:
        self.vault.refresh()  # scan and graph see the files as they are now
        self.index.refresh()
        if dry_run:
            return self._rehearse(targets, force)
        self._links = LinkResolver(self.vault.scan.records)
        record = DreamtRecord(self.vault)
        resume = ResumeRecord(self.vault)  # where a stopped run left off (§4.1.8)
        files, skipped = select_material(self.vault, targets, record, force=force)
        notices = [w for w in (record.warning, resume.warning) if w]
        outcomes: list[UnitOutcome] = []
        written: list[str] = []
        self._where = (0, len(files), "", 0)
        for done, mf in enumerate(files):
            self._where = (done, len(files), mf.path, 0)
            self._tell(len(outcomes))
            pieces = mf.pieces()
            if len(pieces) > 1:
                notices.append(f"{mf.path} is long; dreamt in {len(pieces)} pieces.")
            failed = False
            where = resume.for_file(mf.path, mf.sha256)
            resumed: list[str] = []  # notes of units a stopped run did
            for material in pieces:
                for outcome in self._dream_material(material, len(outcomes), where, resumed):
                    outcomes.append(outcome)
                    failed = failed or outcome.state == "failed"
                    if outcome.state == "applied" and outcome.target_path:
                        written.append(outcome.target_path)
            written += [path for path in resumed if path]
            if resumed:
                notices.append(f"{mf.path}: {len(resumed)} unit(s) done by a run that stopped "
                               "were not dreamt again.")
            if failed:
                notices.append(
                    f"{mf.path}: the brain gave no usable answer for some units; it stays "
                    "un-dreamt and is tried again on the next run."
                )
            else:
                record.mark(mf.path, mf.sha256, mf.parts)
                resume.forget(mf.path)
        set_aside = tuple(dict.fromkeys(self._set_aside))
        notices += [f"{m}: {p} gave no unit ({r})" for m, p, r in set_aside]
        if set_aside:
            self._audit_set_aside(set_aside)
        return DreamReport(
            materials=tuple(mf.path for mf in files),
            outcomes=tuple(outcomes),
            skipped=tuple(skipped),
            notices=tuple(notices),
            usage=self._usage,
            calls=self._calls,
            split_candidates=self._overloaded(written),
            broken_links=self._broken(written),
            set_aside=set_aside,
        )

    def _audit_set_aside(self, set_aside: tuple[tuple[str, str, str], ...]) -> None:
        """docs/spec.md §4.2.5: what gave no unit is in the day's audit, with the reason."""
        import warnings

        lines = ["## Material that gave no unit", ""]
        lines += [f"- [[{m}]] — {p}: {r}" for m, p, r in set_aside]
        try:
            self.vault.record_audit("dream", "\n".join(lines) + "\n")
        except (OSError, RemeError) as exc:  # the notes are written; the audit is a warning
            warnings.warn(f"audit/…/dream.md not written ({exc})", RuntimeWarning, stacklevel=2)

    def _rehearse(self, targets: Iterable[str] | None, force: bool) -> DreamReport:
        """docs/spec.md §4.7.2: the run on a scratch copy, so that what it reports is what
        the run would do — later units recall, corroborate and link to the notes earlier
        units write — while the vault stays as it is. Proposals are not kept: an outcome
        that would apply or wait is `dry-run`, one the checks reject `failed`."""
        from .rehearsal import scratch_copy

        with scratch_copy(self.vault, self.index) as (vault, index):
            stage = Dreamer(
                vault, self.brain, index, policy=self.policy, recall_k=self.recall_k,
                traverse_depth=self.traverse_depth, max_candidates=self.max_candidates,
                split_threshold=self.split_threshold, progress=self.progress,
            )
            report = stage.run(targets, force=force)
        self._usage, self._calls = self._usage + report.usage, self._calls + report.calls
        said = {"applied": "dry-run", "pending": "dry-run", "rejected": "failed"}
        outcomes = tuple(replace(o, proposal_id=None, state=said.get(o.state, o.state))
                         for o in report.outcomes)
        return replace(report, outcomes=outcomes)

    def replan(self, material_path: str, unit: MemoryUnit) -> UnitOutcome:
        """Phase 2 once more for one unit of `material_path`, against the vault as it is
        now: what a person asks for when the proposal of that unit went stale (the note
        it would write changed since). The new proposal goes through this dreamer's
        policy (a reviewer's dreamer holds everything)."""
        self.vault.refresh()
        self.index.refresh()
        self._links = LinkResolver(self.vault.scan.records)
        files, skipped = select_material(self.vault, [material_path], DreamtRecord(self.vault),
                                         force=True)
        if not files:
            why = "; ".join(skipped) or "it is gone"
            raise RemeError(f"Cannot plan {unit.name!r} again: its material {material_path} "
                            f"cannot be read ({why}). Reject the stale proposal instead.")
        pieces = files[0].pieces()
        head = unit.summary[:60]
        material = next((m for m in pieces if head and head in m.text), pieces[0])
        return self._integrate(material, unit)

    def _decode(self, data: bytes, path: str) -> str:
        """A note's text, refused above the vault's [vault] max_note_bytes like the scan."""
        return decode_note_bytes(data, path, max_bytes=self.vault.scan.max_note_bytes)

    def _tell(self, units_done: int) -> None:
        if self.progress is not None:
            done, total, path, in_file = self._where
            self.progress(DreamProgress(done, total, path, units_done, in_file))

    def _extract(self, material: Material, piece: str, where: FileResume) -> Extracted:
        """Phase 1 for one piece, or what it gave a stopped run (§4.1.8), kept before any
        unit of it writes. A BrainError passes through: the piece has no units yet."""
        found = where.extracted(piece)
        if found is not None:
            return found
        reply = self.brain.extract(material)
        self._count(reply.usage)
        units = order_units_for_cache(reply.value.units)  # same-bucket calls share a prefix
        found = Extracted(tuple(units), tuple((s.part, s.reason) for s in reply.set_aside))
        where.keep_extracted(piece, found)
        return found

    def _dream_material(self, material: Material, units_before: int, where: FileResume,
                        resumed: list[str]) -> list[UnitOutcome]:
        """Phase 1 and 2 for one piece; a unit a stopped run did is not done again, its
        note goes to `resumed` instead."""
        piece = piece_key(material.text)
        try:
            found = self._extract(material, piece, where)
        except BrainError as exc:
            return [
                UnitOutcome(material.path, "-", "-", "FAILED", None, None, None, "failed", str(exc))
            ]
        # Phase 1 is the gate: an empty list means nothing here is worth remembering.
        units = list(found.units)
        self._set_aside += [(material.path, part, reason) for part, reason in found.set_aside]
        if not units and not found.set_aside:
            self._set_aside.append((material.path, "the whole file",
                                    "the brain found nothing worth remembering"))
        done, total, path, in_file = self._where
        self._where = (done, total, path, in_file + len(units))
        self._tell(units_before)
        out = []
        for place, unit in enumerate(units):
            key = unit_key(piece, place, unit)
            note = where.done(key)
            if note is not None:
                resumed.append(note)
                continue

            def about_to_write(plan: _Plan, proposal: Proposal, key: str = key) -> None:
                op = plan.ops[0] if len(plan.ops) == 1 else None
                where.about_to_write(key, proposal, plan.path, getattr(op, "content", None))

            out.append(self._integrate(material, unit, before_write=about_to_write))
            self._tell(units_before + len(out))
        return out

    # -- Phase 2 -------------------------------------------------------------------
    def _integrate(self, material: Material, unit: MemoryUnit, *, replanned: bool = False,
                   before_write: Callable[[_Plan, Proposal], None] | None = None) -> UnitOutcome:
        """Phase 2 for one unit. `before_write(plan, proposal)` is called before the
        unit's proposal is submitted or kept (the resume record, §4.1.8)."""
        hits = self._recall(unit)
        candidates = self._candidates(hits, unit.bucket, unit.name)
        request = IntegrateRequest(material, unit, tuple(candidates),
                                   meaning=Meaning(self.index, unit, candidates))
        story: dict = {
            **UnitOrigin(material.path, unit).to_json(),
            "recall": [{"path": h.path, "score": round(h.score, 6), "via": h.via} for h in hits],
            "candidates": [c.path for c in candidates],
            "attempts": [],
        }
        def make_plan(reply, _record: dict):
            plan = self._plan(material, unit, reply.value, candidates)
            return plan, self._precheck(plan)

        loop = plan_with_feedback(  # the brain gets one retry with the violation explained
            self.brain.integrate, request, make_plan,
            describe=lambda r: {"decision": r.value.model_dump(), "raw": r.raw[:4000],
                                "usage": r.usage.to_json()})
        story["attempts"] += loop.attempts
        self._usage = self._usage + loop.usage
        self._calls += loop.calls  # one per usable reply
        plan = loop.plan
        decision: IntegrateDecision | None = loop.reply.value if loop.reply is not None else None
        brain_failed = loop.error is not None
        failures = [str(loop.error)] if brain_failed else loop.failures
        if plan is not None:
            story["link_repairs"] = [r.to_json() for r in plan.repairs]
            if plan.retypes:  # the audited predicate upgrade (docs/spec.md §4.5.5)
                story["predicate_changes"] = [{"target": t, "old": old, "new": new}
                                              for t, old, new in plan.retypes]
        if plan is None or failures:
            return self._failed(material, unit, decision, plan, failures, story, brain_failed,
                                before_write)
        if _unchanged(plan):  # the note already cites this material and says it: no proposal
            return UnitOutcome(material.path, unit.name, unit.bucket, decision.action,
                               decision.flavor, plan.path, None, "unchanged",
                               "the note already holds what this material says")
        waiting = self._waiting(plan)
        if waiting is not None:  # a re-dream planned a change a person has not decided yet
            return UnitOutcome(material.path, unit.name, unit.bucket, decision.action,
                               decision.flavor, plan.path, waiting, "pending",
                               f"the same change already waits for a person ({waiting})")
        story["checks_passed"] = [c.name for c in plan.checks]
        proposal = self.queue.new(
            plan.action,
            self._summary(plan, unit, decision),
            plan.ops,
            checks=plan.checks,
            story=story,
            before=plan.before,
        )
        if before_write is not None:
            before_write(plan, proposal)
        proposal = self.queue.submit(proposal, self.policy)
        if (proposal.state == "stale" and plan.action == "dream.create" and not replanned
                and self.vault.store.read(plan.path) is not None):
            return self._lost_create(material, unit, proposal, plan.path, before_write)
        state, pid = proposal.state, proposal.id
        if state == "pending" and self._pending is not None:
            self._pending[_change_key(plan.action, plan.ops)] = pid
        if state == "applied":
            self.index.refresh(paths=[plan.path])  # later units must recall this note
            self._resolver().add(plan.path)  # ... and may link to it
        return UnitOutcome(
            material.path,
            unit.name,
            unit.bucket,
            decision.action,
            decision.flavor,
            plan.path,
            pid,
            state,
            proposal.error or proposal.story.get("held"),  # why a trusted change waits
        )

    def _waiting(self, plan: _Plan) -> str | None:
        """The id of a pending proposal that makes exactly this change, if one waits: a
        material dreamt again (`--force`) plans the corrections its first run left for a
        person once more, and the queue must not hold their twins. The pending proposals
        are read once per run; the ones this run files are added as it goes."""
        if self._pending is None:
            self._pending = {_change_key(p.action, p.ops): p.id
                             for p in self.queue.list("pending")}
        return self._pending.get(_change_key(plan.action, plan.ops))

    def _lost_create(self, material: Material, unit: MemoryUnit, lost, path: str,
                     before_write: Callable[[_Plan, Proposal], None] | None = None) -> UnitOutcome:
        """docs/spec.md §3.2.5: another writer (another dream, a person) created `path`
        between this unit's planning and its apply, and a create never overwrites. The
        unit is planned again at once against the vault as it is now — its recall finds
        the winner's note, so the brain corroborates it or creates under another slug —
        instead of being lost; the lost proposal is kept as superseded by the new one.
        Once: a unit that loses its slug a second time stays `stale` for a person."""
        self.vault.refresh()
        self.index.refresh(paths=[path])  # the winner's note is recalled and shown
        self._resolver().add(path)
        outcome = self._integrate(material, unit, replanned=True, before_write=before_write)
        again = (f"as {outcome.proposal_id} ({outcome.state})" if outcome.proposal_id
                 else f"({outcome.state}: {outcome.message or 'nothing to write'})")
        self.queue.save(lost.with_state(
            "rejected", now=self.vault.clock().isoformat(),
            error=f"superseded: {path} was created by another writer after this was planned "
                  f"(a create never overwrites); planned again against it {again}"))
        told = f"{path} was created meanwhile by another writer; planned again against it"
        return replace(outcome, message=f"{told}: {outcome.message}" if outcome.message else told)

    def _recall(self, unit: MemoryUnit) -> list[RecallHit]:
        # docs/spec.md §4.3.1: search digest; any hit → traverse both ways, across buckets.
        # Archived notes included (§7.3.6): dream must be able to update, and so thaw,
        # them; dropping them would make it write duplicates of them instead.
        return recall(
            self.index,
            f"{unit.name}\n{unit.summary}",
            k=self.recall_k,
            scope="digest",
            graph=self.vault.graph,
            traverse_depth=self.traverse_depth,
            include_archived=True,
            log_access=False,
            now=self.vault.clock(),
        )

    def _candidates(self, hits: list[RecallHit], bucket: str, name: str) -> list[CandidateNote]:
        """HIT: frontmatter triage (name/description carried by the hit), then the full
        body of the best few — an UPDATE is only ever decided on the body.

        Recall stays cross-bucket (docs/spec.md §4.3.2), but the best two notes of the
        unit's own bucket always get a place: long notes of another bucket otherwise
        crowd out the one note this unit repeats. So does the note already named as the
        unit is (`digest/<bucket>/<slug of its name>.md`): a long note on one person and
        topic may rank below shorter ones for a new statement on it, and a create would
        then write `<slug>-2` beside it.
        """
        top = hits[: self.max_candidates]
        own = [h for h in hits if h.path.startswith(f"digest/{bucket}/") and h not in top][:2]
        paths = [h.path for h in top + own]
        try:
            named = note_path(bucket, slugify(name)) if name.strip() else None
        except RemeError:
            named = None
        if named is not None and named not in paths:
            paths.append(named)
        keyed = self._keyed(bucket, name, [h.path for h in hits])
        paths = keyed + [p for p in paths if p not in keyed]
        out = []
        for path in paths:
            current = self.vault.store.read(path)
            if current is None:
                continue
            try:
                note = parse(self._decode(current[0], path), path)
            except NoteError:
                continue
            out.append(CandidateNote(path, note.name or "", note.description or "", note.body))
        return out

    def _keyed(self, bucket: str, name: str, recalled: list[str]) -> list[str]:
        """The notes of `bucket` on the person and topic the unit's `name` names, in
        other words (`dream/keys.py`: a lemma, a spelling, a phrase inside another with
        the same head, a word cut short), best first: the same phrase, then one inside the
        other, then one cut short, each kind in recall's order. They lead the candidates,
        recalled or not — a person's notes crowd recall's top with notes on their other
        topics, and a create would then write a second note on one topic (docs/spec.md
        §4.3.2)."""
        prefix = owner_prefix(name)
        if prefix is None:
            return []
        folder = self.vault.root / "digest" / bucket
        try:
            stems = sorted(e.name[:-3] for e in os.scandir(folder)  # a person's file may
                           if e.name.lower().startswith(prefix)  # be named "Jon-s-…"
                           and e.name.endswith(".md") and e.is_file())
        except OSError:  # no such bucket folder yet: no note of theirs
            return []
        mine = topic_key(name, prefix) if stems else None
        if mine is None:
            return []
        order = {p: i for i, p in enumerate(recalled)}
        ranked = []
        for stem in stems:
            theirs = topic_key(stem, prefix)
            rank = relation(mine, theirs) if theirs is not None else None
            if rank is not None:
                path = f"digest/{bucket}/{stem}.md"
                ranked.append((rank, order.get(path, len(order)), path))
        return [path for *_, path in sorted(ranked)[:KEYED_CANDIDATES]]

    def _plan(
        self, material: Material, unit: MemoryUnit, decision: IntegrateDecision, candidates
    ) -> _Plan:
        body = decision.body if decision.body.endswith("\n") else decision.body + "\n"
        if decision.action == "CREATE":
            name = decision.name or unit.name
            if _PATH_LIKE.search(name):
                raise _PlanError(
                    f"the note name {name!r} looks like a file path; give a plain name "
                    "(the file name is made from it, inside the unit's bucket)"
                )
            try:
                slug = slugify(name)
            except RemeError as exc:
                raise _PlanError(f"the note name cannot become a file name ({exc})") from None
            slug = free_slug(
                slug, lambda s: self.vault.store.read(note_path(unit.bucket, s)) is not None
            )
            path = note_path(unit.bucket, slug)  # CREATE goes to the unit's bucket, always
            note = Note.new(path, description=decision.description.strip(), body=body)
            content, repairs = self._repair_links(render(note), material.path)
            ops = (Create(path, content.encode("utf-8")),)
            checks = (
                CheckSpec("creates_in_bucket", {"path": path, "bucket": unit.bucket}),
                *self._common_checks(path, material.path),
            )
            return _Plan("dream.create", path, ops, checks, {path: None}, repairs)
        target = decision.target_path
        if target not in {c.path for c in candidates}:
            raise _PlanError(
                f"target_path {target!r} is not one of the recalled candidates; UPDATE only those, or CREATE"
            )
        current = self.vault.store.read(target)
        if current is None:
            raise _PlanError(f"{target} no longer exists; CREATE instead")
        data, stamp = current
        text = self._decode(data, target)
        old_note = parse(text, target)
        if decision.flavor == "CORROBORATE":  # one more instance: the note only grows
            body = _kept_lead(old_note.body, _in_line_ends_of(old_note.body, body))
        note = old_note.with_body(body)
        if decision.flavor != "CORROBORATE" or not (old_note.description or "").strip():
            # a corroborate keeps the note's own description: what it covers is unchanged,
            # and a rewritten line would hold it for a person (docs/spec.md §3.7.3)
            note = note.with_frontmatter(description=decision.description.strip())
        note = note.with_name_synced()
        old_keys = _sorted_keys(outbound_keys(text))
        old_links = {lk.key for lk in parse_links(text)}  # kept as they are, even if broken
        retypes = _retypes(decision, target, set(outbound_keys(text)))
        old_links |= {(t, new) for t, old, new in retypes if (t, old) in old_links}  # same link
        content, repairs = self._repair_links(render(note), material.path, old_links)
        ops = (Edit(target, content.encode("utf-8"), stamp),)
        e1 = {"path": target, "keys": old_keys}
        if retypes:  # the audited predicate upgrade (docs/spec.md §4.5.5)
            e1["retypes"] = [list(r) for r in retypes]
        checks = (
            CheckSpec("keeps_outbound", e1),  # E-1, mechanical
            *self._common_checks(target, material.path, old_links),
        )
        action = f"dream.{decision.flavor.lower()}"
        return _Plan(action, target, ops, checks, {target: data}, repairs, tuple(retypes))

    def _resolver(self) -> LinkResolver:
        if self._links is None:
            self._links = LinkResolver(self.vault.scan.records)
        return self._links

    def _repair_links(
        self, text: str, material: str, keep: frozenset | set = frozenset()
    ) -> tuple[str, tuple[LinkRepair, ...]]:
        """Every link resolves before the note is written, whichever brain wrote it: the
        material's short links are resolved from the material file, the rest become text."""
        new, repairs = repair_links(text, material, self._resolver(), keep=frozenset(keep))
        return new, tuple(repairs)

    @staticmethod
    def _common_checks(
        path: str, material: str, keep: Iterable[tuple[str, str | None]] = ()
    ) -> tuple[CheckSpec, ...]:
        return (
            CheckSpec("links_resolve", {"path": path, "keep": _sorted_keys(keep)}),
            CheckSpec("has_provenance", {"path": path, "material": material}),
            CheckSpec("only_paths", {"paths": [path]}),  # F-2: only the subject changes
            CheckSpec("no_sources_written", {}),
            CheckSpec("no_new_anchors", {"paths": [path]}),
            CheckSpec("name_matches_basename", {"paths": [path]}),
        )

    def _precheck(self, plan: _Plan) -> list[str]:
        """Run the plan's checks now, so the brain can be told what to fix."""
        after = {op.path: getattr(op, "content", None) for op in plan.ops}
        exists = self.vault.scan.exists  # what D1 asks too; Store.apply asks the disk
        ctx = CheckContext(Changeset(ops=plan.ops), plan.before, after, exists=exists)
        return [f"{c.name}: {why}" for c in build_checks(plan.checks) for why in c.fn(ctx)]

    def _failed(
        self, material, unit, decision, plan, failures, story, brain_failed=False,
        before_write: Callable[[_Plan, Proposal], None] | None = None,
    ) -> UnitOutcome:
        message = "; ".join(failures) or "no usable decision"
        pid = None
        if brain_failed:  # no answer at all: nothing to review, the material is retried
            return UnitOutcome(
                material.path, unit.name, unit.bucket, "FAILED", None, None, None, "failed", message
            )
        if plan is not None:  # keep it for a person to look at
            proposal = self.queue.new(
                plan.action,
                f"REJECTED: {unit.name}",
                plan.ops,
                checks=plan.checks,
                story=story,
                before=plan.before,
            )
            proposal = proposal.with_state("rejected", now=proposal.created_at, error=message)
            if before_write is not None:
                before_write(plan, proposal)
            self.queue.save(proposal)
            pid = proposal.id
        return UnitOutcome(
            material.path,
            unit.name,
            unit.bucket,
            "FAILED",
            decision.flavor if decision else None,
            plan.path if plan else None,
            pid,
            "rejected" if pid else "failed",
            message,
        )

    @staticmethod
    def _summary(plan: _Plan, unit: MemoryUnit, decision: IntegrateDecision) -> str:
        verb = "create" if decision.action == "CREATE" else decision.flavor.lower()
        return f"{verb} {plan.path} from unit '{unit.name}' ({unit.bucket})"

    # -- after writes ---------------------------------------------------------------
    def _count(self, usage: Usage) -> None:
        self._usage = self._usage + usage
        self._calls += 1

    def _overloaded(self, written: list[str]) -> tuple[str, ...]:
        """Split trigger (docs/spec.md §4.9.1, §7.8.1): a written note whose BODY (the
        text after the frontmatter, by the index's token estimate) is over the threshold
        is queued in meta/split_queue.json for `consolidate`; dream never waits for it."""
        import warnings

        from ..vault.split_queue import enqueue_splits

        over: list[tuple[str, int]] = []
        for path in dict.fromkeys(written):
            current = self.vault.store.read(path)
            if current is None:
                continue
            try:
                body = parse(self._decode(current[0], path), path).body
            except NoteError:
                continue  # unreadable now: nothing a split could read either
            tokens = content_tokens(body)
            if tokens > self.split_threshold:
                over.append((path, tokens))
        if over:
            try:
                enqueue_splits(self.vault.root, over, by="dream", now=self.vault.clock())
            except (OSError, RemeError) as exc:  # the notes are written; a lost entry is a warning
                warnings.warn(f"meta/split_queue.json not written ({exc}); the notes are "
                              "queued again the next time a write leaves them over the "
                              "threshold.", RuntimeWarning, stacklevel=2)
        return tuple(path for path, _ in over)

    def _broken(self, written: list[str]) -> tuple[str, ...]:
        """D1 on the written files, inline (docs/spec.md §4.9.2, §7.5)."""
        if not written:
            return ()
        report = self.vault.health(list(dict.fromkeys(written)))
        return tuple(
            f"{b.source}:{b.line}:{b.column} {b.raw} ({b.reason})" for b in report.broken_links
        )
