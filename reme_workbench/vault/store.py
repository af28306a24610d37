"""Every vault write goes through here: a `Changeset` applied by `Store.apply`.

`apply` takes the vault lock, re-reads each target's `Stamp`, runs the changeset's
checks on the before/after contents, then writes through the journal (see
`journal.py`), so a crash at any instant leaves every file wholly old or wholly new.
The rules live here so every caller gets them: writable paths only, no symlinks, no
silent overwrite, one op per path.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from types import MappingProxyType

from ..errors import (
    ChangesetRejectedError,
    NoteExistsError,
    RemeError,
    StaleChangesetError,
    UnsafePathError,
)
from .journal import (
    JournalOp,
    journal_root,
    recover_all,
    set_aside_journal,
    settle,
    write_journal,
)
from .layout import check_writable, normalize_rel, resolve_inside
from .lock import VaultLock

__all__ = [
    "Stamp",
    "stamp_bytes",
    "read_with_stamp",
    "Create",
    "Edit",
    "Delete",
    "FileOp",
    "CheckContext",
    "is_vault_file",
    "NamedCheck",
    "AuditEntry",
    "Changeset",
    "ApplyResult",
    "Store",
    "apply_with_replan",
    "audit_path",
]

_KIND_RE = re.compile(r"[a-z0-9_]+")


# --------------------------------------------------------------------------- stamps


@dataclass(frozen=True)
class Stamp:
    """What a file looked like when a change was planned: content hash + mtime.

    The mtime is part of it on purpose: a file touched (even with equal bytes) since
    planning is treated as changed, because someone is working on it.
    """

    sha256: str
    mtime_ns: int


def stamp_bytes(data: bytes, mtime_ns: int) -> Stamp:
    return Stamp(hashlib.sha256(data).hexdigest(), int(mtime_ns))


def read_with_stamp(root: Path, rel: str) -> tuple[bytes, Stamp] | None:
    """Bytes and stamp of the file at `rel`, or None if absent; refuses symlinks."""
    target = resolve_inside(Path(root), rel)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:  # ELOOP: it became a symlink after resolve_inside looked
        raise UnsafePathError(
            f"{rel!r} cannot be opened as a plain file ({exc.strerror}); reme-workbench "
            "never reads through symlinks. Replace it with a real file.",
            path=rel,
        ) from None
    try:
        for _ in range(5):
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise RemeError(f"{rel!r} is a folder or a special file, not a note.", path=rel)
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            # A write racing the read would show as a new mtime: read again.
            if os.fstat(fd).st_mtime_ns == st.st_mtime_ns:
                data = b"".join(chunks)
                return data, stamp_bytes(data, st.st_mtime_ns)
        raise RemeError(
            f"{rel!r} keeps changing while it is read; stop whatever is writing it and retry.",
            path=rel,
        )
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- ops


def _as_bytes(value: object, what: str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    raise TypeError(f"{what} must be bytes or str, not {type(value).__name__}")


def _check_stamp(value: object) -> None:
    if not isinstance(value, Stamp):
        raise TypeError(f"expected must be a Stamp (from Store.read), not {type(value).__name__}")


@dataclass(frozen=True)
class Create:
    path: str
    content: bytes

    def __post_init__(self) -> None:
        object.__setattr__(self, "content", _as_bytes(self.content, "Create.content"))


@dataclass(frozen=True)
class Edit:
    path: str
    content: bytes
    expected: Stamp

    def __post_init__(self) -> None:
        object.__setattr__(self, "content", _as_bytes(self.content, "Edit.content"))
        _check_stamp(self.expected)


@dataclass(frozen=True)
class Delete:
    path: str
    expected: Stamp

    def __post_init__(self) -> None:
        _check_stamp(self.expected)


FileOp = Create | Edit | Delete


# --------------------------------------------------------------------------- changesets


def _exists_unknown(rel: str) -> bool:
    raise RemeError(
        "This check needs to know which vault files exist, but its CheckContext was "
        "built without exists=; pass a callable (Store.apply passes one)."
    )


def is_vault_file(root: Path, rel: str) -> bool:
    """Whether `rel` names a regular file inside the vault at `root`; never follows links."""
    try:
        return stat.S_ISREG(os.lstat(resolve_inside(Path(root), rel)).st_mode)
    except (UnsafePathError, OSError, ValueError):
        return False


def _files_unknown() -> list[str]:
    raise RemeError(
        "This check needs the vault's file list, but its CheckContext was built without "
        "files=; pass a callable (Store.apply passes one)."
    )


def vault_files(root: Path) -> list[str]:
    """Every regular file under resource/, daily/ and digest/ as a vault path (hidden
    names and symlinks skipped, as the scan does): what a short link may resolve to."""
    root = Path(root)
    found: list[str] = []
    for layer in ("resource", "daily", "digest"):
        top = root / layer
        if top.is_symlink() or not top.is_dir():
            continue
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if not d.startswith(".")
                       and not os.path.islink(os.path.join(folder, d))]
            rel = Path(folder).relative_to(root).as_posix()
            found += [f"{rel}/{name}" for name in files if not name.startswith(".")
                      and stat.S_ISREG(os.lstat(os.path.join(folder, name)).st_mode)]
    return found


@dataclass(frozen=True)
class CheckContext:
    changeset: Changeset
    before: Mapping[str, bytes | None]  # every op path -> current bytes (None if absent)
    after: Mapping[str, bytes | None]  # every op path -> bytes after the change (None if deleted)
    # Whether a vault path is a file now (before the change); checks that look beyond
    # the changeset's own paths use it. The default refuses, visibly, rather than guess.
    exists: Callable[[str], bool] = _exists_unknown
    # Every file of the vault now (for checks that resolve short links); walked on demand.
    files: Callable[[], list[str]] = _files_unknown

    def present_after(self, rel: str) -> bool:
        """Whether `rel` is a file once the change is applied (created, kept or edited)."""
        if rel in self.after:
            return self.after[rel] is not None
        return self.exists(rel)


@dataclass(frozen=True)
class NamedCheck:
    name: str
    fn: Callable[[CheckContext], list[str]]  # failure explanations; [] = pass


@dataclass(frozen=True)
class AuditEntry:
    kind: str  # file stem under audit/<date>/, e.g. "consolidate_actions"
    markdown: str

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or not _KIND_RE.fullmatch(self.kind):
            raise RemeError(
                f"Audit kind {self.kind!r} must be lowercase letters, digits and '_' "
                "(it becomes a file name), e.g. 'consolidate_actions'."
            )
        if not isinstance(self.markdown, str):
            raise TypeError("AuditEntry.markdown must be str")


@dataclass(frozen=True)
class Changeset:
    ops: tuple[FileOp, ...]
    checks: tuple[NamedCheck, ...] = ()
    description: str = ""
    allow_sources: bool = False  # daily/ and resource/ only for explicit user commands
    audit: AuditEntry | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ops", tuple(self.ops))
        object.__setattr__(self, "checks", tuple(self.checks))
        for op in self.ops:
            if not isinstance(op, Create | Edit | Delete):
                raise TypeError(f"Changeset ops must be Create/Edit/Delete, not {op!r}")

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(op.path for op in self.ops)


@dataclass(frozen=True)
class ApplyResult:
    changeset_id: str
    written: tuple[str, ...]  # op paths (+ the audit file if any)
    inverse: Changeset  # applying it reverts the change (the audit line stays)
    applied_at: datetime
    messages: tuple[str, ...] = field(default=())  # recovery notes, set-aside files


def audit_path(kind: str, when: datetime) -> str:
    """`audit/<YYYY-MM-DD>/<kind>.md` for the UTC date of `when`."""
    return f"audit/{_to_utc(when):%Y-%m-%d}/{kind}.md"


def _to_utc(when: datetime) -> datetime:
    # A naive datetime from an injected clock is taken to be UTC already.
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _append_audit(current: bytes | None, kind: str, date: str, markdown: str) -> bytes:
    entry = markdown.strip("\n").encode("utf-8") + b"\n"
    if current is None:
        return f"# {kind} {date}\n\n".encode() + entry
    base = current if current.endswith(b"\n") or not current else current + b"\n"
    return base + b"\n" + entry


def _utc_now() -> datetime:
    return datetime.now(UTC)


# --------------------------------------------------------------------------- store


class Store:
    """Reads with stamps, plans ops, and applies changesets to the vault at `root`."""

    def __init__(
        self,
        root: Path,
        *,
        clock: Callable[[], datetime] = _utc_now,
        lock_timeout: float = 30.0,
    ) -> None:
        self.root = Path(root)
        self.clock = clock
        self.lock_timeout = lock_timeout

    def lock(self) -> VaultLock:
        return VaultLock(self.root, timeout=self.lock_timeout)

    def recover(self, *, set_aside: bool = False) -> list[str]:
        """Settle what a crash left in the journal (docs/spec.md §3.4.4); return what was
        done, for the user. `set_aside`: give up on every committed journal instead,
        leaving the notes as they are and keeping its files under audit/ (§3.4.7).

        Raises RemeError, naming `reme-workbench recover`, when a journal can be neither
        finished nor undone."""
        try:
            if not os.listdir(journal_root(self.root)):
                return []  # nothing pending: no need to wait for the lock
        except FileNotFoundError:
            return []
        with self.lock():
            if not set_aside:
                return recover_all(self.root, now=self.clock())
            messages = []
            for jdir in sorted(journal_root(self.root).iterdir()):
                where = set_aside_journal(self.root, jdir, now=self.clock())
                messages.append(f"Set aside the interrupted change {jdir.name}: no note was "
                                f"touched; its files are kept in {where}.")
            return messages

    def read(self, rel: str) -> tuple[bytes, Stamp] | None:
        return read_with_stamp(self.root, rel)

    def plan_create(self, rel: str, content: bytes | str) -> Create:
        rel = normalize_rel(rel)
        if self.read(rel) is not None:
            raise NoteExistsError(
                f"{rel} already exists; a create never overwrites. Pick another slug "
                "(slug.free_slug finds a free one).",
                path=rel,
            )
        return Create(rel, content)

    def plan_edit(self, rel: str, content: bytes | str) -> Edit:
        rel = normalize_rel(rel)
        current = self.read(rel)
        if current is None:
            raise RemeError(f"Cannot edit {rel}: it does not exist. Plan a create.", path=rel)
        return Edit(rel, content, current[1])

    def plan_delete(self, rel: str) -> Delete:
        rel = normalize_rel(rel)
        current = self.read(rel)
        if current is None:
            raise RemeError(f"Cannot delete {rel}: it does not exist.", path=rel)
        return Delete(rel, current[1])

    # ------------------------------------------------------------------ apply

    def apply(self, changeset: Changeset) -> ApplyResult:
        """Apply `changeset` atomically, or raise and write nothing. See module docstring."""
        now = _to_utc(self.clock())
        rels = self._validate(changeset, now)
        audit_rel = audit_path(changeset.audit.kind, now) if changeset.audit else None
        pairs = list(zip(changeset.ops, rels, strict=True))
        with self.lock():
            # A crashed writer's journal must be settled before anything is re-read.
            messages = recover_all(self.root, now=now)
            current = {rel: read_with_stamp(self.root, rel) for rel in rels}
            self._check_stamps(pairs, current)
            before = {rel: (cur[0] if cur else None) for rel, cur in current.items()}
            after = {rel: (None if isinstance(op, Delete) else op.content) for op, rel in pairs}
            self._run_checks(changeset, before, after)

            jops = [self._journal_op(op, rel, before[rel]) for op, rel in pairs]
            if changeset.audit and audit_rel:
                cur = read_with_stamp(self.root, audit_rel)
                old = cur[0] if cur else None
                new = _append_audit(
                    old, changeset.audit.kind, f"{now:%Y-%m-%d}", changeset.audit.markdown
                )
                jops.append(
                    JournalOp(
                        "edit" if cur else "create",
                        audit_rel,
                        new,
                        old,
                        self._mode(audit_rel) if cur else None,
                    )
                )
            jid = f"{now:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:12]}"
            if jops:
                try:
                    messages += self._write_through_journal(jid, jops, changeset.description, now)
                except KeyboardInterrupt:
                    # Ctrl-C mid-write: finish (committed) or discard (staged) the journal
                    # now, under the lock, so the vault is settled before the process exits
                    recover_all(self.root, now=now)
                    raise
            inverse = self._inverse(changeset, pairs, before, jid)
        written = tuple(rels) + ((audit_rel,) if audit_rel else ())
        return ApplyResult(jid, written, inverse, now, tuple(messages))

    def _write_through_journal(self, jid: str, jops: list[JournalOp], description: str,
                               now: datetime) -> list[str]:
        """Stage, commit and settle; raise unless every op is in place (docs/spec.md §3.4.2:
        a file saved by someone while it is written makes the whole change wait)."""
        try:
            jdir = write_journal(self.root, jid, jops, description=description)
        except OSError as exc:
            raise RemeError(
                f"Could not stage change {jid} ({exc}); nothing was written. Check "
                "free disk space and permissions on .reme/journal, then retry."
            ) from exc
        done = settle(self.root, jdir, now=now, live=True)
        if done.applied:
            return [done.describe()] if done.set_aside else []
        if done.not_undone:  # a part of it stands: say exactly which
            raise RemeError(done.describe(), path=done.not_undone[0].rel)
        if done.io_error:
            raise RemeError(
                f"Change {jid} could not be written ({done.io_error}); it was undone and "
                "nothing of it stays. Check free disk space and permissions, then retry."
            )
        raise StaleChangesetError(
            f"{', '.join(done.conflict_paths)} changed while this change was being written "
            "(a save by a person or another program wins); the change was undone and "
            "nothing of it was applied. Re-read the files and plan again "
            "(apply_with_replan does this).",
            paths=done.conflict_paths,
        )

    def _validate(self, changeset: Changeset, now: datetime) -> list[str]:
        """Normalise op paths and enforce the path rules; raise before taking the lock."""
        if not isinstance(changeset, Changeset):
            raise TypeError(f"apply() takes a Changeset, not {type(changeset).__name__}")
        rels = [
            check_writable(op.path, allow_sources=changeset.allow_sources) for op in changeset.ops
        ]
        every = list(rels)
        if changeset.audit:
            every.append(check_writable(audit_path(changeset.audit.kind, now)))
        seen: dict[str, str] = {}
        for rel in every:
            # casefold: on macOS/Windows (where vaults get synced) these are one file.
            key = rel.casefold()
            if key in seen:
                raise RemeError(
                    f"The changeset touches {rel} twice (also as {seen[key]}); merge the two "
                    "ops into one edit per file.",
                    path=rel,
                )
            seen[key] = rel
        for rel in every:
            resolve_inside(self.root, rel)  # no symlinks on the way
        return rels

    def _check_stamps(
        self, pairs: list[tuple[FileOp, str]], current: Mapping[str, tuple[bytes, Stamp] | None]
    ) -> None:
        stale, exists = [], []
        for op, rel in pairs:
            cur = current[rel]
            if isinstance(op, Create):
                if cur is not None:
                    exists.append(rel)
            elif cur is None or cur[1] != op.expected:
                stale.append(rel)
        if stale:
            raise StaleChangesetError(
                f"{len(stale)} file(s) changed since this change was planned: "
                f"{', '.join(stale)}. Nothing was written; re-read them and plan again "
                "(apply_with_replan does this).",
                paths=stale,
            )
        if exists:
            raise NoteExistsError(
                f"Cannot create {', '.join(exists)}: already exists, and a create never "
                "overwrites. Nothing was written; pick another slug (slug.free_slug).",
                path=exists[0],
            )

    def _run_checks(
        self,
        changeset: Changeset,
        before: dict[str, bytes | None],
        after: dict[str, bytes | None],
    ) -> None:
        ctx = CheckContext(
            changeset,
            MappingProxyType(before),
            MappingProxyType(after),
            exists=partial(is_vault_file, self.root),  # under the lock: what is there now
            files=partial(vault_files, self.root),
        )
        failures: list[tuple[str, str]] = []
        for check in changeset.checks:
            try:
                found = check.fn(ctx) or []
            except Exception as exc:  # a crashing check must block the write, visibly
                found = [f"the check itself raised {type(exc).__name__}: {exc}"]
            failures.extend((check.name, str(why)) for why in found)
        if failures:
            lines = "\n".join(f"- {name}: {why}" for name, why in failures)
            raise ChangesetRejectedError(
                f"The change was rejected by {len(failures)} check failure(s); nothing was "
                f"written. Fix these and plan again:\n{lines}",
                failures=failures,
            )

    def _mode(self, rel: str) -> int | None:
        try:
            return stat.S_IMODE(os.lstat(resolve_inside(self.root, rel)).st_mode)
        except FileNotFoundError:
            return None

    def _journal_op(self, op: FileOp, rel: str, old: bytes | None) -> JournalOp:
        if isinstance(op, Create):
            return JournalOp("create", rel, op.content, None)
        if isinstance(op, Edit):
            return JournalOp("edit", rel, op.content, old, self._mode(rel))
        return JournalOp("delete", rel, None, old)

    def _inverse(
        self,
        changeset: Changeset,
        pairs: list[tuple[FileOp, str]],
        before: dict[str, bytes | None],
        jid: str,
    ) -> Changeset:
        """Creates <-> deletes, edits back to the old bytes, stamped with the new files."""

        def new_stamp(rel: str, content: bytes) -> Stamp:
            # Hash of what we wrote, not of what is there: if someone raced us, the
            # inverse goes stale instead of reverting their edit.
            try:
                mtime = os.lstat(resolve_inside(self.root, rel)).st_mtime_ns
            except FileNotFoundError:
                mtime = 0
            return stamp_bytes(content, mtime)

        ops: list[FileOp] = []
        for op, rel in reversed(pairs):
            old = before[rel]
            if isinstance(op, Create):
                ops.append(Delete(rel, new_stamp(rel, op.content)))
            elif isinstance(op, Edit):
                assert old is not None
                ops.append(Edit(rel, old, new_stamp(rel, op.content)))
            else:
                assert old is not None
                ops.append(Create(rel, old))
        desc = f"revert {jid}" + (f": {changeset.description}" if changeset.description else "")
        return Changeset(tuple(ops), description=desc, allow_sources=changeset.allow_sources)


def apply_with_replan(
    store: Store, plan: Callable[[], Changeset], *, max_attempts: int = 3
) -> ApplyResult:
    """Apply `plan()`; on StaleChangesetError plan again from fresh reads, `max_attempts` times."""
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    last: StaleChangesetError | None = None
    for _ in range(max_attempts):
        try:
            return store.apply(plan())
        except StaleChangesetError as exc:
            last = exc
    assert last is not None
    raise StaleChangesetError(
        f"Gave up after {max_attempts} attempts: the files keep changing while the change "
        f"is planned ({', '.join(last.paths)}). Something else is editing them (Obsidian, "
        "sync, another agent); let it finish and try again.",
        paths=last.paths,
    ) from last
