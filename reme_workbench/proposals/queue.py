"""The proposal queue: submit under a policy, then list / show / accept / reject / revert.

Confident proposals apply at once (docs/spec.md §3.7, as `Policy`) when they only add —
every line of every note they edit kept byte for byte; the rest wait in
`meta/proposals/` for a person. Accepting re-runs the stored checks against the files
as they are now, so a held proposal can never land on top of a changed note. A decision
(accept, reject, revert) loads, checks the state, applies and saves under
`.reme/proposals.lock`, so two processes deciding on one proposal decide once (§3.7.4).
An apply saves the proposal `applying`, with the inverse a revert needs, before it writes
and `applied` after; an `applying` record a stop left is settled from the files the next
time it is loaded (§3.7.7, `interrupted.py`).
"""

from __future__ import annotations

import difflib
import json
import uuid
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from ..errors import (
    ChangesetRejectedError,
    NoteExistsError,
    NotFoundError,
    RemeError,
    StaleChangesetError,
    UnsafePathError,
)
from ..vault.additions import lines_not_kept
from ..vault.checks import CheckSpec, only_stale
from ..vault.journal import journal_root
from ..vault.layout import is_digest_note
from ..vault.lock import RunLock
from ..vault.meta import log_access, meta_path, write_meta
from ..vault.store import AuditEntry, Changeset, Create, Delete, Edit, FileOp
from ..vault.vault import Vault
from .interrupted import planned_inverse, what_landed
from .model import FORMAT_VERSION, STATES, Proposal, op_kind

__all__ = ["Policy", "ProposalQueue", "Acceptance", "DEFAULT_AUTO_APPLY", "JUDGED_BY_OWN_CHECKS"]

# docs/spec.md §4.7.1: CREATE and CORROBORATE are confident; REFINE and CORRECT
# rewrite meaning, so a person looks first.
DEFAULT_AUTO_APPLY = frozenset({"dream.create", "dream.corroborate"})
# docs/spec.md §3.7.3: a merge removes its loser and rewrites its winner by nature, so it
# never only adds; what it must keep is ruled by its own checks (§7.7.5)
JUDGED_BY_OWN_CHECKS = frozenset({"consolidate.merge"})
# saved before a change is written, settled from the files after a stop (docs/spec.md §3.7.7)
UNSETTLED = ("applying", "reverting")
# a decision holds `.reme/proposals.lock` while its changeset waits for the vault lock and
# is written: this much longer than the vault lock's wait before a waiter gives up
DECISION_WAIT_S = 30.0


@dataclass(frozen=True)
class Policy:
    auto_apply: frozenset[str] = DEFAULT_AUTO_APPLY

    def should_apply(self, action: str) -> bool:
        return action in self.auto_apply

    @classmethod
    def hold_everything(cls) -> Policy:
        return cls(frozenset())


@dataclass(frozen=True)
class Acceptance:
    """What an accept did: the proposal as stored now, and whether it was applied
    before this accept took the decision lock (another process, or an earlier accept)."""

    proposal: Proposal
    already_applied: bool = False


class ProposalQueue:
    def __init__(self, vault: Vault) -> None:
        self.vault = vault

    # -- making -------------------------------------------------------------------
    def new(
        self,
        action: str,
        summary: str,
        ops: Iterable[FileOp],
        *,
        checks: Iterable[CheckSpec] = (),
        story: Mapping | None = None,
        before: Mapping[str, bytes | None] | None = None,
    ) -> Proposal:
        """A pending proposal; `before` records what each target held when planned
        (read now unless the planner, which read them already, passes it)."""
        now = self._now()
        ops = tuple(ops)
        before = dict(before) if before is not None else {}
        for op in ops:
            if op.path not in before:
                current = self.vault.store.read(op.path)
                before[op.path] = None if current is None else current[0]
        stamp = self.vault.clock().strftime("%Y%m%d-%H%M%S")
        return Proposal(
            id=f"p-{stamp}-{uuid.uuid4().hex[:6]}",
            action=action,
            summary=summary,
            ops=ops,
            checks=tuple(checks),
            before=before,
            story=json.loads(json.dumps(dict(story or {}), default=str)),  # JSON-able, detached
            created_at=now,
            updated_at=now,
        )

    def submit(self, proposal: Proposal, policy: Policy) -> Proposal:
        """Apply now if the policy trusts this action and the change only adds (docs/spec.md
        §3.7.3), else store it as pending; one the policy trusts that rewrites lines keeps
        the reason in its story (`held`)."""
        if not policy.should_apply(proposal.action):
            self.save(proposal)
            return proposal
        held = self.needs_a_person(proposal)
        if held is not None:
            proposal = replace(proposal, story={**proposal.story, "held": held})
            self.save(proposal)
            return proposal
        with self.deciding():  # the `applying` window is this process's alone (§3.7.7)
            return self._apply(proposal, previous=None)

    def needs_a_person(self, proposal: Proposal) -> str | None:
        """Why this proposal may not be applied without a person, or None when it only
        adds: every line of every note it edits kept byte for byte, in order, and no file
        deleted (new files are additions). A merge is ruled by its own checks."""
        if proposal.action in JUDGED_BY_OWN_CHECKS:
            return None
        found = []
        for op in proposal.ops:
            if isinstance(op, Create):
                continue
            if op.path in proposal.before:
                old = proposal.before[op.path]
            else:
                current = self.vault.store.read(op.path)
                old = None if current is None else current[0]
            if isinstance(op, Delete):
                found.append(f"deletes {op.path}")
                continue
            lost = lines_not_kept(old, op.content)
            if lost:
                found.append(f"rewrites {lost} line{'s' if lost > 1 else ''} of {op.path}")
        if not found:
            return None
        return (f"{', '.join(found)}: held for a person (what applies without one only adds "
                "lines, docs/spec.md §3.7.3; accept it to apply it)")

    def is_current(self, proposal: Proposal) -> bool:
        """Whether every file the proposal edits or deletes still holds the bytes it was
        planned on (only the mtime may have moved): accepting it would not go stale."""
        for op in proposal.ops:
            if isinstance(op, Edit | Delete):
                current = self.vault.store.read(op.path)
                if current is None or current[1].sha256 != op.expected.sha256:
                    return False
        return True

    # -- storage ------------------------------------------------------------------
    def save(self, proposal: Proposal) -> None:
        write_meta(
            self.vault.root,
            f"proposals/{proposal.id}",
            proposal.to_json(),
            version=FORMAT_VERSION,
            now=self.vault.clock(),
        )

    def load(self, proposal_id: str) -> Proposal:
        """The proposal as stored; one a stopped apply left `applying` is settled from its
        files first (docs/spec.md §3.7.7), under the decision lock, so an apply still
        running in another process is waited for, not judged half-way."""
        proposal = self._read(proposal_id)
        if proposal.state not in UNSETTLED:
            return proposal
        lock = self.deciding()
        try:
            lock.acquire()
        except RemeError:  # a read-only vault (§3.8), or a lock not had in time: show, save nothing
            return self._settled(proposal, save=False)
        try:
            return self._settled(self._read(proposal.id), save=True)
        finally:
            lock.release()

    def _read(self, proposal_id: str) -> Proposal:
        path = meta_path(self.vault.root, f"proposals/{self.resolve(proposal_id)}")
        data = json.loads(path.read_text(encoding="utf-8"))
        return Proposal.from_json(data, source=str(path))

    def ids(self) -> list[str]:
        folder = self.vault.root / "meta" / "proposals"
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("p-*.json"))

    def resolve(self, prefix: str) -> str:
        """A full id from a unique prefix (as git does for commits)."""
        ids = self.ids()
        if prefix in ids:
            return prefix
        matches = [i for i in ids if i.startswith(prefix)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise NotFoundError(
                f"No proposal {prefix!r}; run `reme-workbench proposals list` to see them."
            )
        raise RemeError(
            f"{prefix!r} matches {len(matches)} proposals ({', '.join(matches[:5])}); give more of the id."
        )

    def list(self, state: str | None = None) -> list[Proposal]:
        if state is not None and state not in STATES:
            raise RemeError(f"Unknown state {state!r}; use one of {', '.join(STATES)}.")
        out = []
        for pid in self.ids():
            try:
                proposal = self.load(pid)
            except (RemeError, ValueError) as exc:  # one bad file must not hide the rest
                out.append(
                    Proposal(
                        id=pid, action="?", summary=f"unreadable: {exc}", ops=(), state="rejected"
                    )
                )
                continue
            if state is None or proposal.state == state:
                out.append(proposal)
        return out

    # -- decisions ----------------------------------------------------------------
    def deciding(self) -> RunLock:
        """`.reme/proposals.lock`: held from loading a proposal to saving its new state,
        so two processes deciding on one proposal decide once (docs/spec.md §3.7.4). Not
        the vault lock: `Store.apply` takes that one itself, inside."""
        return RunLock(self.vault.root, "proposals", doing="deciding on a proposal",
                       timeout=self.vault.store.lock_timeout + DECISION_WAIT_S)

    def accept(self, proposal_id: str, *, edited: Mapping[str, str] | None = None) -> Proposal:
        """Apply a pending (or stale) proposal, optionally with a person's edits to the
        new contents of some of its files; the stored checks still apply. One already
        applied is returned as it is (see `accept_once`)."""
        return self.accept_once(proposal_id, edited=edited).proposal

    def accept_once(self, proposal_id: str, *,
                    edited: Mapping[str, str] | None = None) -> Acceptance:
        """`accept`, saying whether the proposal was applied already — by another process
        that took the decision first, or an earlier accept: then nothing is written."""
        with self.deciding():
            proposal = self._load_deciding(proposal_id)
            if proposal.state == "applied":
                return Acceptance(proposal, already_applied=True)
            if proposal.state not in ("pending", "stale"):
                raise RemeError(
                    f"{proposal.id} is {proposal.state}; only pending proposals can be accepted"
                    + (f" ({proposal.error})." if proposal.error else ".")
                )
            previous = proposal
            if edited:
                proposal = self._with_edits(proposal, edited)
            return Acceptance(self._apply(proposal, previous=previous))

    def reject(self, proposal_id: str, reason: str = "", *,
               only_if: tuple[str, ...] = ("pending", "stale")) -> Proposal:
        """Keep a pending (or stale) proposal as rejected, with the reason; nothing in the
        notes changes. `only_if` narrows the states it may be rejected from."""
        with self.deciding():
            proposal = self._load_deciding(proposal_id)
            if proposal.state not in only_if:
                hint = (f" `reme-workbench proposals revert {proposal.id}` undoes it."
                        if proposal.state == "applied" else "")
                raise RemeError(
                    f"{proposal.id} is {proposal.state}; only {' or '.join(only_if)} "
                    f"proposals can be rejected.{hint}"
                )
            done = proposal.with_state(
                "rejected", now=self._now(), error=reason or "rejected by a person"
            )
            self.save(done)
            return done

    def revert(self, proposal_id: str) -> Proposal:
        """Undo an applied proposal, while its files are unchanged since. Saved `reverting`
        before the inverse is written, as an apply is `applying` (docs/spec.md §3.7.7)."""
        with self.deciding():
            proposal = self._load_deciding(proposal_id)
            if proposal.state != "applied":
                raise RemeError(
                    f"{proposal.id} is {proposal.state}; only applied proposals can be reverted."
                )
            reverting = proposal.with_state(
                "reverting", now=self._now(),
                error="being reverted; if no reme-workbench command is running, one was "
                "stopped while reverting it: `reme-workbench proposals list` settles it.")
            self.save(reverting)
            try:
                self.vault.apply(
                    Changeset(
                        ops=self._restamped(proposal.inverse),
                        description=f"revert {proposal.id}",
                        audit=AuditEntry(
                            "proposals", f"- {proposal.id} reverted: {proposal.summary}\n"
                        ),
                    )
                )
            except StaleChangesetError as exc:
                self.save(proposal)  # nothing was written: applied, as it was
                raise RemeError(
                    f"Cannot revert {proposal.id}: {', '.join(exc.paths)} changed since it was "
                    "applied. Undo it by hand, or edit the notes and keep the change."
                ) from None
            except (Exception, KeyboardInterrupt, SystemExit):
                self._settle_stopped(reverting, proposal)
                raise
            done = proposal.with_state("reverted", now=self._now())
            self.save(done)
            return done

    # -- showing ------------------------------------------------------------------
    def diff(self, proposal: Proposal) -> str:
        """A unified diff per file, from what the plan saw to what it would write."""
        chunks = []
        for op in proposal.ops:
            old = proposal.before.get(op.path)
            new = None if isinstance(op, Delete) else op.content
            chunks.append(_unified(op.path, old, new, op_kind(op)))
        return "".join(chunks)

    # -- internals ----------------------------------------------------------------
    def _restamped(self, ops: tuple[FileOp, ...]) -> tuple[FileOp, ...]:
        """`ops` with each expected stamp renewed where only the mtime moved on.

        A stamp holds the content hash and the mtime; `touch`, `cp -r`, a sync tool or a
        git checkout change the mtime of a file whose bytes are exactly what the proposal
        expects. Content decides: the store still refuses a file whose bytes differ, and
        one that changes between this read and the write (its mtime moves again).
        """
        out: list[FileOp] = []
        for op in ops:
            if isinstance(op, Edit | Delete):
                current = self.vault.store.read(op.path)
                if current is not None and current[1].sha256 == op.expected.sha256:
                    op = replace(op, expected=current[1])
            out.append(op)
        return tuple(out)

    def _apply(self, proposal: Proposal, *, previous: Proposal | None) -> Proposal:
        """Write the proposal's changeset and save what came of it; the caller holds the
        decision lock. `previous` is its record before this apply (None: it had none), kept
        again when a stop comes before anything is written.

        docs/spec.md §3.7.7: the record says `applying`, with the inverse, before the first
        byte is written, so a stop at any instant leaves a record that names the files."""
        now = self._now()
        proposal = replace(proposal, ops=self._restamped(proposal.ops))
        undo, moved = planned_inverse(proposal.ops, self.vault.store.read)
        if moved:  # the store would refuse it: nothing to record as being applied
            return self._finish(proposal.with_state(
                "stale", now=now,
                error=f"{', '.join(moved)} changed after planning; re-run the pipeline to re-plan."))
        applying = proposal.with_state(
            "applying", now=now, inverse=undo,
            error="being applied; if no reme-workbench command is running, one was stopped "
            "while applying it: `reme-workbench proposals list` settles it from its files.")
        self.save(applying)
        try:
            result = self.vault.apply(proposal.changeset())
        except StaleChangesetError as exc:
            done = proposal.with_state(
                "stale",
                now=now,
                error=f"{', '.join(exc.paths)} changed after planning; re-run the pipeline to re-plan.",
            )
        except ChangesetRejectedError as exc:
            if only_stale(exc.failures):  # the vault moved on since planning (checks.py)
                done = proposal.with_state(
                    "stale", now=now, error="; ".join(why for _, why in exc.failures),
                    story={**proposal.story, "stale_by": sorted({n for n, _ in exc.failures})})
            else:
                done = proposal.with_state(
                    "rejected",
                    now=now,
                    error="; ".join(f"{name}: {why}" for name, why in exc.failures),
                )
        except NoteExistsError as exc:  # a file it creates appeared after planning (§3.2.5)
            done = proposal.with_state(
                "stale",
                now=now,
                error=f"{exc.path} was created after this proposal was planned, and a create "
                "never overwrites; plan it again against that note (`proposals accept` does "
                "for a dream proposal, the workbench's re-plan for any).",
            )
        except UnsafePathError as exc:  # the store's own rules refused it
            done = proposal.with_state("rejected", now=now, error=str(exc))
        except (Exception, KeyboardInterrupt, SystemExit):
            # Ctrl-C, an exit or an error of the write itself: the store has settled its
            # journal, so the files say whether the change landed; the record says the same
            # before the stop goes on. A kill skips this; the next load settles it then.
            self._settle_stopped(applying, previous)
            raise
        else:
            done = proposal.with_state("applied", now=now, inverse=result.inverse.ops)
        return self._finish(done)

    def _finish(self, done: Proposal, *, logged: bool = True) -> Proposal:
        """Save the outcome; `logged`: an applied one logs the notes it touched (not one
        that is applied again because its revert wrote nothing)."""
        self.save(done)
        if done.state == "applied" and logged:
            self._log_touched(done)
        return done

    def _settle_stopped(self, stopped: Proposal, previous: Proposal | None) -> None:
        """The record after an apply or revert this process stopped: as the files say when
        the change landed, else as it was before (or none, as before a submit saved it)."""
        settled, wrote = self._verdict(stopped)
        if settled.state in UNSETTLED:  # the journal is not settled: the next load will
            return
        if wrote:
            self._finish(settled, logged=stopped.state == "applying")
        elif previous is not None:
            self.save(previous)
        else:
            meta_path(self.vault.root, f"proposals/{stopped.id}").unlink(missing_ok=True)

    def _load_deciding(self, proposal_id: str) -> Proposal:
        """`load` for a caller that holds the decision lock already."""
        return self._settled(self._read(proposal_id), save=True)

    def _settled(self, proposal: Proposal, *, save: bool) -> Proposal:
        """An `applying` or `reverting` proposal as its files say (docs/spec.md §3.7.7); any
        other comes back as it is. `save` (with the decision lock held) settles the journal
        first and stores the result."""
        if proposal.state not in UNSETTLED:
            return proposal
        if save:
            try:
                self.vault.store.recover()
            except RemeError as exc:
                return self._unsettled(proposal, exc)
        elif self.vault.recovery_error or self._journal_waiting():
            return self._unsettled(
                proposal, self.vault.recovery_error or "a change waits in .reme/journal")
        done, _ = self._verdict(proposal)
        if save:
            return self._finish(done, logged=proposal.state == "applying")
        return done

    def _unsettled(self, proposal: Proposal, why: object) -> Proposal:
        doing = "applied" if proposal.state == "applying" else "reverted"
        return replace(proposal, error=(
            f"stopped while being {doing}, and its change is not settled yet: {why}. "
            "Run `reme-workbench recover`, then `reme-workbench proposals list`."))

    def _verdict(self, proposal: Proposal) -> tuple[Proposal, bool]:
        """What the files say of a stopped apply or revert (the journal settled), and
        whether it wrote: an apply that landed is `applied`, one that wrote nothing
        `pending`, one whose files hold neither what it was planned on nor what it writes
        `stale`; a revert that landed is `reverted`, else `applied` as before."""
        now = self._now()
        if proposal.state == "reverting":
            landed = what_landed(proposal.inverse, self.vault.store.read)
            if landed.applied:
                return proposal.with_state("reverted", now=now, story={
                    **proposal.story, "interrupted": "a revert was stopped after it wrote; "
                    "recorded as reverted"}), True
            return proposal.with_state("applied", now=now), False
        landed = what_landed(proposal.ops, self.vault.store.read)
        if landed.applied:
            why = "an apply was stopped after it wrote this change; recorded as applied"
            if landed.changed:
                why += f" ({', '.join(landed.changed)} edited since: revert refuses those)"
            return proposal.with_state("applied", now=now,
                                       story={**proposal.story, "interrupted": why}), True
        if landed.changed:
            return proposal.with_state(
                "stale", now=now, inverse=(),
                error=f"an apply was stopped, and {', '.join(landed.changed)} now "
                f"{'holds' if len(landed.changed) == 1 else 'hold'} neither what it was "
                "planned on nor what it writes (edited since); nothing of it can be reverted. "
                "Re-run the pipeline to re-plan."), False
        return proposal.with_state(
            "pending", now=now, inverse=(),
            story={**proposal.story, "interrupted": "an apply was stopped before it wrote "
                   "anything; accept it to apply it"}), False

    def _journal_waiting(self) -> bool:
        folder = journal_root(self.vault.root)
        return folder.is_dir() and any(folder.iterdir())

    def _log_touched(self, proposal: Proposal) -> None:
        """docs/spec.md §7.3.6: a note a dream or consolidate change touched is in use again —
        one access-log event per created or edited digest note (deleted ones are gone)."""
        when = self.vault.clock()
        try:
            for op in proposal.ops:
                if not isinstance(op, Delete) and is_digest_note(op.path):
                    log_access(self.vault.root, op.path, when, proposal.action)
        except (OSError, RemeError) as exc:  # the change landed; a lost log line must not undo it
            warnings.warn(f"meta/access_log.jsonl not written ({exc}).", RuntimeWarning,
                          stacklevel=3)

    def _with_edits(self, proposal: Proposal, edited: Mapping[str, str]) -> Proposal:
        ops = []
        unknown = set(edited) - set(proposal.paths)
        if unknown:
            raise RemeError(f"Edits name files outside the proposal: {', '.join(sorted(unknown))}.")
        for op in proposal.ops:
            if op.path not in edited:
                ops.append(op)
            elif isinstance(op, Create):
                ops.append(Create(op.path, edited[op.path].encode("utf-8")))
            elif isinstance(op, Edit):
                ops.append(Edit(op.path, edited[op.path].encode("utf-8"), op.expected))
            else:
                raise RemeError(
                    f"{op.path} is deleted by this proposal; it has no content to edit."
                )
        story = {**proposal.story, "edited_by_person": sorted(edited)}
        return Proposal(**{**proposal.__dict__, "ops": tuple(ops), "story": story})

    def _now(self) -> str:
        return self.vault.clock().isoformat()


def _unified(path: str, old: bytes | None, new: bytes | None, kind: str) -> str:
    def lines(data: bytes | None) -> list[str]:
        return (
            [] if data is None else data.decode("utf-8", errors="replace").splitlines(keepends=True)
        )

    a, b = lines(old), lines(new)
    header_a = "/dev/null" if old is None else f"a/{path}"
    header_b = "/dev/null" if new is None else f"b/{path}"
    body = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        for line in difflib.unified_diff(a, b, header_a, header_b)
    )
    return body or f"--- {path} ({kind}: no textual change)\n"
