"""A merge's checks as planned, the feedback a failing body gets, and applying a merge at
once (docs/spec.md §7.7.5). Split from `merge` so each stays short; used by it only.

* `run_checks` runs a changeset's checks on its planned before/after, as `Store.apply`
  runs them under the lock — except `STALE_CHECKS` (`retargets_every_link`), which ask
  whether the vault moved on since planning and so run only when it applies.
* `apply_now` applies a proposal the policy lets through, planning it again from fresh
  reads while a file changed meanwhile or a note came to link the loser (up to `[vault]
  max_replans` plans): the new plan retargets that note too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING

from ..errors import (
    ChangesetRejectedError,
    NoteExistsError,
    RemeError,
    StaleChangesetError,
    UnsafePathError,
)
from ..proposals.model import Proposal
from ..proposals.queue import ProposalQueue
from ..vault.checks import STALE_CHECKS, CheckSpec, build_check, only_stale
from ..vault.layout import is_digest_note
from ..vault.meta import log_access
from ..vault.store import Changeset, CheckContext, Delete, FileOp, is_vault_file

if TYPE_CHECKING:
    from ..vault.vault import Vault

__all__ = ["run_checks", "failures_of", "feedback", "apply_now", "GaveUp", "STATEMENTS"]

STATEMENTS = "keeps_statements"  # the failure a dropped sentence gives: a retry, then a person


class GaveUp(RemeError):
    """The files kept changing while the merge was planned again and again."""


def run_checks(vault: Vault, ops: list[FileOp], specs: list[CheckSpec],
               before: Mapping[str, bytes | None]) -> list[dict]:
    """Each spec with its failures, on the planned before/after (as Store.apply runs them);
    the checks of `STALE_CHECKS` run when the merge applies, not here."""
    after = {op.path: (None if isinstance(op, Delete) else op.content) for op in ops}
    ctx = CheckContext(Changeset(ops=tuple(ops)), dict(before), after,
                       exists=partial(is_vault_file, vault.root))
    results = []
    for spec in specs:
        if spec.name in STALE_CHECKS:
            continue
        try:
            failures = list(build_check(spec).fn(ctx) or [])
        except Exception as exc:  # a crashing check blocks, as under the lock
            failures = [f"the check itself raised {type(exc).__name__}: {exc}"]
        results.append({"name": spec.name, "failures": failures})
    return results


def failures_of(results: list[dict]) -> list[str]:
    return [f"{r['name']}: {f}" for r in results for f in r["failures"]]


def feedback(failures: list[str]) -> str:
    lines = "\n".join(f"- {f}" for f in failures[:30])
    return ("Your merged note broke these rules, which are checked mechanically "
            "(docs/spec.md §7.7.5). Send the whole note again: the winner's body plus every "
            "statement and every link of the loser's it lacks, each link exactly as written, "
            "every derived_from:: line of both, every number, name, identifier and command "
            "of both as written, every sentence of both word for word (a 'never', 'not' or "
            "'only' kept as it is), nothing reworded:\n" + lines)


def apply_now(vault: Vault, queue: ProposalQueue, first: Proposal,
              make: Callable[[bool], Proposal]) -> Proposal:
    """Apply `first` at once; plan it again (`make(True)`: fresh reads) while a file changed
    meanwhile or a note came to link the loser, up to [vault] max_replans plans. Returns
    the proposal as stored (applied, or rejected by the store's checks and path rules);
    GaveUp when the files kept changing, RemeError when planning again failed."""
    made: list[Proposal] = []
    when = vault.clock().isoformat()
    last: Exception | None = None
    for attempt in range(max(vault.max_replans, 1)):
        if attempt:
            vault.refresh()  # the scan sees the files written meanwhile
        try:
            made.append(first if not made else make(True))
            result = vault.apply(made[-1].changeset(read=vault.store.read))
        except StaleChangesetError as exc:
            last = exc
            continue
        except ChangesetRejectedError as exc:
            if only_stale(exc.failures):  # a note links the loser since it was planned
                last = exc
                continue
            done = made[-1].with_state("rejected", now=when, error="; ".join(
                f"{name}: {why}" for name, why in exc.failures))
            queue.save(done)
            return done
        except (UnsafePathError, NoteExistsError) as exc:  # the store's own path rules
            done = made[-1].with_state("rejected", now=when, error=str(exc))
            queue.save(done)
            return done
        done = made[-1].with_state("applied", now=when, inverse=result.inverse.ops)
        queue.save(done)
        _log_touched(vault, done)
        return done
    raise GaveUp(f"the files kept changing while it was planned {len(made)} times ({last})")


def _log_touched(vault: Vault, done: Proposal) -> None:
    for op in done.ops:  # as the queue logs an applied proposal (docs/spec.md §3.7.6)
        if not isinstance(op, Delete) and is_digest_note(op.path):
            try:
                log_access(vault.root, op.path, vault.clock(), done.action)
            except (OSError, RemeError):
                pass  # the change landed; a lost log line must not undo it
