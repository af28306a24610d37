"""What an apply needs recorded before it writes, and what the files say after a stop.

docs/spec.md §3.7.7: a proposal is saved `applying`, with the inverse a revert needs, before
its changeset is written, and `applied` after. A Ctrl-C, a kill or a power cut between the
two leaves an `applying` record; the journal (§3.4.4) leaves each file, and the changeset
as a whole, wholly old or wholly new, so the files tell which it was.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from ..vault.store import Create, Delete, Edit, FileOp, Stamp, stamp_bytes

__all__ = ["Landed", "planned_inverse", "what_landed"]

# (bytes, stamp) of a vault file, or None when there is none: `Store.read`
Reader = Callable[[str], tuple[bytes, Stamp] | None]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def planned_inverse(ops: tuple[FileOp, ...], read: Reader) -> tuple[tuple[FileOp, ...], tuple[str, ...]]:
    """The ops that undo `ops`, from the files as they are now, and the files that no longer
    hold what `ops` were planned on (the store refuses the change then: nothing of it is
    written, so no inverse is needed).

    The same inverse `Store.apply` returns, in the same order, stamped with mtime 0: a
    revert renews the mtime of a file whose bytes are what it expects (`_restamped`), so
    only the content of a stamp matters here."""
    undo: list[FileOp] = []
    changed: list[str] = []
    for op in reversed(ops):
        if isinstance(op, Create):
            undo.append(Delete(op.path, stamp_bytes(op.content, 0)))
            continue
        current = read(op.path)
        if current is None or current[1].sha256 != op.expected.sha256:
            changed.append(op.path)
            continue
        if isinstance(op, Edit):
            undo.append(Edit(op.path, current[0], stamp_bytes(op.content, 0)))
        else:
            undo.append(Create(op.path, current[0]))
    return tuple(undo), tuple(reversed(changed))


@dataclass(frozen=True)
class Landed:
    """Each file of an interrupted apply, by what it holds now."""

    written: tuple[str, ...]  # what the change writes (and not what it was planned on)
    untouched: tuple[str, ...]  # what it was planned on (and not what it writes)
    changed: tuple[str, ...]  # neither: edited by someone since

    @property
    def applied(self) -> bool:
        """The journal writes a changeset whole or not at all, so one file holding what the
        change writes means it landed; the files that differ were edited after."""
        return bool(self.written)


def what_landed(ops: tuple[FileOp, ...], read: Reader) -> Landed:
    written, untouched, changed = [], [], []
    for op in ops:
        current = read(op.path)
        sha = None if current is None else current[1].sha256
        if isinstance(op, Delete):
            is_new = sha is None
        else:
            is_new = sha == _sha(op.content)
        is_old = sha is None if isinstance(op, Create) else sha == op.expected.sha256
        if is_new and not is_old:
            written.append(op.path)
        elif is_old and not is_new:
            untouched.append(op.path)
        elif not is_new:
            changed.append(op.path)
        # a file that holds both (an edit that writes the bytes it found) says nothing
    return Landed(tuple(written), tuple(untouched), tuple(changed))
