"""Putting one journal op in place so that a person's save always wins (docs/spec.md §3.4.2).

A person edits the vault in Obsidian while we write. Comparing a file's hash and then
replacing it leaves a window in which their save is overwritten, so no op here ever
replaces a file it has not checked *after* taking it out of the way:

* an **edit** swaps the new file in with one atomic exchange (`renameat2
  RENAME_EXCHANGE` on Linux, `renamex_np RENAME_SWAP` on macOS): the path never lacks a
  file, and what was swapped out — whatever the person saved last, whole — moves into
  the journal folder (`held-<i>`) and is compared with what the change was planned
  against. Where the file system cannot exchange, the file is moved into the journal
  first and the new one linked in after the check (a reader may then find the path
  empty for microseconds; nothing is overwritten either way);
* a **delete** moves the file into the journal and checks it;
* a **create** links the new file in, which fails if anything appeared at the path.

Anything else — what was taken out differs, the path is gone, a file appeared — is a
`Conflict`: the op is not done, and the caller (journal.py) undoes the whole changeset.
Undoing follows the same rule: a file is put back only where the path still holds what
the change wrote.

Every function is idempotent over the states a crash can leave (target, temp and
`held-<i>` present or not), so recovery calls them again. Steps are counted by
journal.py's crash hook (`step`), passed in so this module keeps no state of its own.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import UnsafePathError
from .layout import resolve_inside

__all__ = [
    "OpState", "Conflict", "precheck", "forward", "backward", "ensure_parents", "file_sha",
    "write_synced", "tmp_path", "exchange",
]

Step = Callable[[str], None]
SAVED = "was saved while the change was being written"
EDITED_AFTER = "was edited after the change wrote it"


@dataclass(frozen=True)
class OpState:
    """One manifest entry as the guarded functions need it."""

    index: int
    kind: str  # create | edit | delete
    rel: str
    new_sha: str | None
    old_sha: str | None
    mode: int | None


@dataclass(frozen=True)
class Conflict:
    """Why an op could not be done or undone: someone else wrote `rel`."""

    rel: str
    why: str


# --------------------------------------------------------------------------- primitives


def file_sha(path: Path, rel: str) -> str | None:
    """sha256 of the regular file at `path` (never through a symlink), None if absent."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnsafePathError(
            f"{rel!r} cannot be opened as a regular file ({exc.strerror}); fix or remove it.",
            path=rel,
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePathError(f"{rel!r} is not a regular file; move it away and try again.",
                                  path=rel)
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes, step: Step, *, mode: int = 0o600,
                 label: str = "fsync") -> None:
    """Write `data` to a new file at `path` (truncating a leftover; never through a
    symlink) and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        step(label)
    finally:
        os.close(fd)


def tmp_path(target: Path, journal_id: str, index: int) -> Path:
    """The temp file beside `target`: dot-prefixed (Obsidian hides it) and short whatever
    the note's name, so it fits the 255-byte limit of a file name."""
    return target.with_name(f".{journal_id}-{index}.reme-tmp")


def _rename_with_flags():
    """rename(a, b, flag) from the C library: Linux `renameat2`, macOS `renamex_np`; the
    flags are given as (Linux, macOS) pairs. None where there is neither."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform.startswith("linux"):
            fn = libc.renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                           ctypes.c_uint]
            return lambda a, b, flags: fn(-100, a, -100, b, flags[0])  # AT_FDCWD
        if sys.platform == "darwin":
            fn = libc.renamex_np
            fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
            return lambda a, b, flags: fn(a, b, flags[1])
    except (OSError, AttributeError):
        return None
    return None


_RENAME = _rename_with_flags()
EXCHANGE_FLAGS = (2, 2)  # RENAME_EXCHANGE, RENAME_SWAP
NOREPLACE_FLAGS = (1, 4)  # RENAME_NOREPLACE, RENAME_EXCL
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV}


def _rename_flagged(a: Path, b: Path, flags: tuple[int, int]) -> bool:
    """True when done, False where the system cannot (nothing moved); FileExistsError,
    FileNotFoundError and other refusals as OSError."""
    if _RENAME is None:
        return False
    if _RENAME(os.fsencode(a), os.fsencode(b), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(b))


def exchange(a: Path, b: Path) -> bool:
    """Swap the files at `a` and `b` atomically; False where the system cannot (then
    nothing moved). FileNotFoundError when either is missing."""
    return _rename_flagged(a, b, EXCHANGE_FLAGS)


def _unlink_quiet(path: Path, step: Step) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    step("unlink-tmp")


def ensure_parents(root: Path, rel: str, touched: set[Path], step: Step) -> None:
    """Create the folders of `rel` one by one, refusing symlinks and files on the way."""
    current = root
    for part in rel.split("/")[:-1]:
        parent, current = current, current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current)
            except FileExistsError:
                pass  # raced with another creator; re-checked below
            else:
                step("mkdir")
                touched.add(parent)  # the new entry must reach the disk
            st = os.lstat(current)
        if not stat.S_ISDIR(st.st_mode):  # lstat: a symlink is not a dir here
            raise UnsafePathError(
                f"Cannot create {rel!r}: {current.relative_to(root).as_posix()!r} is a "
                "symlink or a file, not a folder. Replace it with a real folder.",
                path=rel,
            )


def _stage_beside(target: Path, tmp: Path, op: OpState, data: bytes, step: Step) -> None:
    _unlink_quiet(tmp, step)  # a leftover temp may share its inode with a linked file
    write_synced(tmp, data, step, mode=op.mode if op.mode is not None else 0o666)
    if op.mode is not None:
        os.chmod(tmp, op.mode)  # the open() mode is filtered by the umask


# link() is refused where a file system has no hard links (FAT and exFAT drives, some
# synced and network folders): then a rename that refuses to replace does the same
_NO_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS}


def _link(source: Path, target: Path, touched: set[Path], step: Step, label: str) -> bool:
    """Put the file `source` at `target` unless something is there (a second name where
    the file system has hard links, else `source` itself moves); True when put."""
    try:
        os.link(source, target)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
        try:
            if not _rename_flagged(source, target, NOREPLACE_FLAGS):
                if os.path.lexists(target):  # no exclusive rename either: look, then move
                    return False
                os.rename(source, target)
        except FileExistsError:
            return False
    step(label)
    touched.add(target.parent)
    return True


def _move(source: Path, dest: Path, touched: set[Path], step: Step, label: str) -> bool:
    """Rename `source` to `dest` (a name of ours in the journal); False when absent."""
    try:
        os.rename(source, dest)
    except FileNotFoundError:
        return False
    step(label)
    touched.update((source.parent, dest.parent))
    return True


def _names(root: Path, jdir: Path, op: OpState, journal_id: str) -> tuple[Path, Path, Path]:
    target = resolve_inside(root, op.rel)
    return target, jdir / f"held-{op.index}", tmp_path(target, journal_id, op.index)


# --------------------------------------------------------------------------- forward


def precheck(root: Path, jdir: Path, op: OpState, journal_id: str) -> Conflict | None:
    """Whether `op` can start: its path holds what the change was planned against (or the
    new bytes of a create, after a crash). Asked of every op before the first is done, so
    a save seen by then touches nothing at all."""
    target, held, tmp = _names(root, jdir, op, journal_id)
    if held.exists() or (op.kind == "edit" and tmp.exists()):
        return None  # under way before a crash: `forward` decides
    current = file_sha(target, op.rel)
    if current == op.old_sha or (op.kind == "create" and current == op.new_sha):
        return None
    if current is None:
        return Conflict(op.rel, "was deleted")
    return Conflict(op.rel, "already exists" if op.kind == "create" else "changed")


def forward(root: Path, jdir: Path, op: OpState, new: Callable[[], bytes], touched: set[Path],
            step: Step, journal_id: str) -> Conflict | None:
    """Do `op`, or say why it cannot be done without losing someone's write. Idempotent:
    an op done before a crash is left as it is."""
    target, held, tmp = _names(root, jdir, op, journal_id)
    if op.kind == "create":
        current = file_sha(target, op.rel)
        if current == op.new_sha:
            _unlink_quiet(tmp, step)
            return None
        if current is not None:
            return Conflict(op.rel, "appeared while the change was being written")
        ensure_parents(root, op.rel, touched, step)
        _stage_beside(target, tmp, op, new(), step)
        try:
            if not _link(tmp, target, touched, step, "link"):
                return Conflict(op.rel, "appeared while the change was being written")
        finally:
            _unlink_quiet(tmp, step)
        return None
    if op.kind == "delete":
        return _forward_delete(target, held, op, touched, step)
    return _forward_edit(target, held, tmp, op, new, touched, step)


def _forward_delete(target: Path, held: Path, op: OpState, touched: set[Path],
                    step: Step) -> Conflict | None:
    if not held.exists():
        if not _move(target, held, touched, step, "rename-aside"):
            return Conflict(op.rel, "was deleted")
    if file_sha(held, "held") != op.old_sha:
        return Conflict(op.rel, SAVED)
    if target.exists() or target.is_symlink():  # a file appeared where we deleted one
        return Conflict(op.rel, SAVED)
    return None


def _forward_edit(target: Path, held: Path, tmp: Path, op: OpState, new: Callable[[], bytes],
                  touched: set[Path], step: Step) -> Conflict | None:
    if op.old_sha == op.new_sha:
        return None  # nothing to write; the precheck saw the file as planned
    if not held.exists() and tmp.exists():
        # a crash left our temp: the staged copy (not swapped yet), or the file it swapped out
        if file_sha(tmp, "temp") == op.new_sha:
            _unlink_quiet(tmp, step)
        else:
            _move(tmp, held, touched, step, "rename-aside")
    if not held.exists():
        current = file_sha(target, op.rel)
        if current != op.old_sha:
            return Conflict(op.rel, "was deleted" if current is None else "changed")
        _stage_beside(target, tmp, op, new(), step)
        try:
            swapped = exchange(tmp, target)
        except FileNotFoundError:
            _unlink_quiet(tmp, step)
            return Conflict(op.rel, "was deleted while the change was being written")
        if swapped:
            step("exchange")
            touched.add(target.parent)
            _move(tmp, held, touched, step, "rename-aside")  # what was swapped out
            if file_sha(held, "held") == op.old_sha:
                return None  # done: a save from now on lands on the new text, and stands
            # a save landed just before the swap: give it back at once, before anything
            # else, so the moment in which a further save could land on ours is tiny
            if file_sha(target, op.rel) == op.new_sha and exchange(held, target):
                step("exchange-back")
            return Conflict(op.rel, SAVED)
        if not _move(target, held, touched, step, "rename-aside"):
            _unlink_quiet(tmp, step)
            return Conflict(op.rel, "was deleted while the change was being written")
    if file_sha(held, "held") != op.old_sha:
        _unlink_quiet(tmp, step)
        return Conflict(op.rel, SAVED)
    current = file_sha(target, op.rel)
    if current == op.new_sha:
        _unlink_quiet(tmp, step)
        return None
    if current is not None:
        _unlink_quiet(tmp, step)
        return Conflict(op.rel, SAVED)
    # moved aside without an exchange (or a crash in between): link the new file in
    if not tmp.exists():
        _stage_beside(target, tmp, op, new(), step)
    try:
        if not _link(tmp, target, touched, step, "link"):
            return Conflict(op.rel, SAVED)
    finally:
        _unlink_quiet(tmp, step)
    return None


# --------------------------------------------------------------------------- backward


def backward(root: Path, jdir: Path, op: OpState, touched: set[Path], step: Step) -> Conflict | None:
    """Undo `op` where the path still holds what it wrote; idempotent. An edit or delete
    was done only if its old file sits in `held-<i>`. A conflict names a path someone
    wrote after the op: their file is left as it is."""
    target, held, _ = _names(root, jdir, op, "undo")
    undo = jdir / f"undo-{op.index}"
    current = file_sha(target, op.rel)
    if op.kind == "create":
        if current == op.new_sha and _move(target, undo, touched, step, "rename-undo") and (
                file_sha(undo, "undo") != op.new_sha):
            _link(undo, target, touched, step, "link-back")  # edited in between: theirs
        return None
    if not held.exists() or current == op.old_sha and op.old_sha != op.new_sha:
        return None  # never done, or undone already
    held_sha = file_sha(held, "held")
    if current is not None and current == held_sha:
        return None  # put back already
    if current is None:
        if _link(held, target, touched, step, "link-back"):
            return None
        return Conflict(op.rel, "was created again after the change")
    if held_sha == op.new_sha and op.kind == "edit":
        return None  # swapped back already: ours is in `held-<i>`, theirs at the path
    if current != op.new_sha:
        return Conflict(op.rel, "was created again after the change" if op.kind == "delete"
                        else EDITED_AFTER)
    if exchange(held, target):  # put the old file back with no moment without a file
        step("exchange-back")
        touched.add(target.parent)
        if file_sha(held, "held") != op.new_sha:  # edited in between: give theirs back
            exchange(held, target)
            return Conflict(op.rel, EDITED_AFTER)
        _move(held, undo, touched, step, "rename-undo")
        return None
    if not _move(target, undo, touched, step, "rename-undo"):
        current = None
    elif file_sha(undo, "undo") != op.new_sha:
        _link(undo, target, touched, step, "link-back")
        return Conflict(op.rel, EDITED_AFTER)
    if _link(held, target, touched, step, "link-back"):
        return None
    return Conflict(op.rel, "was created again after the change")
