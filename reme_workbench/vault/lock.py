"""Cross-process exclusion in `.reme/`: processes on one vault queue, they do not fail.

- `VaultLock` (`.reme/lock`) serialises writers: `Store.apply` holds it for one
  changeset (docs/spec.md §3.5), milliseconds, never while a brain thinks, so a writer
  waits at most `timeout` (`[vault] lock_timeout_s`) and then stops with one line
  naming the process that holds it.
- `RunLock` (`.reme/<kind>.lock`) serialises long runs of one kind, which can take
  minutes: `IndexLock` (`.reme/index.lock`) every refresh of the index
  (`index.store.VaultIndex.refresh`), "dream" every dream run. They are not the writer
  lock, so a long run never holds up a write, nor a write a recall. A waiter waits as
  long as the holder keeps reporting progress and gives up only after `timeout` without
  any; it then starts from what the holder finished.
- `connect_sqlite` opens the caches' SQLite files (scan.db, index.db) so that a busy
  database is waited for, not reported as "database is locked".

`fcntl.flock` is tied to the open file description, so the kernel drops it when the
holder exits or is killed: a crashed process never leaves a stale lock behind. Two lock
objects in one process also exclude each other (each opens its own fd). While it holds
a lock a process writes who it is into the file (pid, since when, its command, what it
is doing), so a waiter can say what it waits for.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sqlite3
import stat
import sys
import time
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from ..errors import BusyError, RemeError
from .layout import CACHE_DIR, resolve_inside

__all__ = [
    "LOCK_NAME", "VaultLock", "RunLock", "IndexLock", "LockHolder",
    "connect_sqlite", "RUN_LOCK_STALL_S",
    "ensure_cache_dir", "read_only_message",
]

LOCK_NAME = "lock"
# how long a busy SQLite cache is waited for; its write transactions last milliseconds
SQLITE_BUSY_TIMEOUT_S = 30.0
# a refresh reports progress every embedding batch, a dream every unit; this long without
# any and the holder is taken to hang (a remote model that retries can be slow: generous)
RUN_LOCK_STALL_S = 600.0
NOTICE_AFTER_S = 2.0  # a wait this long is told to the user, with what it waits for
_TOLD: set[str] = set()  # lock files whose wait this process told already: once is enough
# what the kernel says when this user may not write here (modes, a read-only mount)
_REFUSED = (errno.EACCES, errno.EPERM, errno.EROFS)
_HELD = (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK)
_SQLITE_BUSY = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED (primary codes)


def read_only_message(root: Path, exc: OSError) -> str:
    where = exc.filename or root
    return (
        f"The vault {root} is read-only for this user ({where}: {exc.strerror}); make it "
        f"writable (e.g. `chmod -R u+w {root}`) to change it, or only read it."
    )


def ensure_cache_dir(root: Path) -> Path:
    """Create `<root>/.reme` if needed and return it; refuse a symlinked `.reme`."""
    root = Path(root)
    if not root.is_dir():
        raise RemeError(
            f"Vault root {str(root)!r} is not an existing folder; create it or pass the right path."
        )
    cache = resolve_inside(root, CACHE_DIR)  # refuses a symlinked .reme
    try:
        os.mkdir(cache)
    except FileExistsError:
        if not stat.S_ISDIR(os.lstat(cache).st_mode):
            raise RemeError(
                f"{str(cache)!r} is not a folder; remove it so reme-workbench can keep its "
                "cache there."
            ) from None
    return cache


@dataclass(frozen=True)
class LockHolder:
    """Who holds a lock, as it wrote into the lock file (any field may be unknown)."""

    pid: int | None
    since: float | None  # time.time() when it took the lock
    command: str | None  # its command line, shortened
    status: str | None  # what it is doing now (a refresh: "indexing 120/3,000 files")

    def describe(self) -> str:
        """"process 1234 (`reme-workbench dream`; holding the lock for 12 s; indexing 3/9
        files)", or "" when unknown."""
        if self.pid is None:
            return ""
        parts = [f"`{self.command}`"] if self.command else []
        if self.since is not None:
            parts.append(f"holding the lock for {max(time.time() - self.since, 0):.0f} s")
        if self.status:
            parts.append(self.status)
        return f"process {self.pid}" + (f" ({'; '.join(parts)})" if parts else "")


def _command_line() -> str:
    """This process's command as a person typed it, shortened: what a waiter is told."""
    argv = list(sys.argv) or ["python"]
    program = Path(argv[0]).name
    if program == "__main__.py":  # python -m reme_workbench
        program = f"python -m {Path(argv[0]).parent.name}"
    elif program == "-c":
        program = "python -c"
    text = " ".join([program or "python", *argv[1:]]).replace("\n", " ")
    return text if len(text) <= 100 else text[:99] + "…"


def _parse_holder(raw: bytes) -> LockHolder | None:
    lines = raw.decode("utf-8", "replace").split("\n")
    if not lines or not lines[0].strip().isdigit():
        return None
    field = [line.strip() or None for line in (lines + [""] * 4)[1:4]]
    try:
        since = float(field[0]) if field[0] else None
    except ValueError:
        since = None
    return LockHolder(int(lines[0]), since, field[1], field[2])


class _FileLock(ABC):
    """An exclusive `flock` on `<root>/.reme/<name>`; wait up to `timeout` s, then fail clearly.

    Use as a context manager. Polls with `LOCK_NB` and short sleeps rather than blocking,
    so the wait can time out (a blocking flock cannot be interrupted portably).
    `progress_extends`: every change in what the holder reports (its status, or another
    holder) starts the `timeout` anew, so a wait is bounded by a holder that stalls.
    """

    name = LOCK_NAME
    progress_extends = False

    def __init__(self, root: Path, *, timeout: float, poll_interval: float = 0.05) -> None:
        self.root = Path(root)
        self.timeout = timeout
        self.poll_interval = poll_interval
        self.path = self.root / CACHE_DIR / self.name
        self._fd: int | None = None
        self._since = 0.0
        self.waited = 0.0  # seconds the last acquire() waited for another process

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, *, blocking: bool = True) -> bool:
        """Take the lock; with `blocking=False` try once and return whether it was taken."""
        if self._fd is not None:
            raise RemeError(
                f"The lock {str(self.path)!r} is already held by this object; "
                "release it before taking it again."
            )
        fd = self._open()
        started = time.monotonic()
        deadline = started + max(self.timeout, 0.0)
        delay = 0.002
        seen = None  # what the holder last reported, to notice progress
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in _HELD:
                        raise
                if not blocking:
                    os.close(fd)
                    return False
                now = time.monotonic()
                if self.progress_extends:
                    report = _read_holder_bytes(fd)
                    if report != seen:
                        seen, deadline = report, now + max(self.timeout, 0.0)
                if now >= deadline:
                    raise BusyError(
                        self._timeout_message(_holder(fd), now - started),
                        path=f"{CACHE_DIR}/{self.name}",
                    )
                if now - started >= NOTICE_AFTER_S and str(self.path) not in _TOLD:
                    _TOLD.add(str(self.path))
                    warnings.warn(self._waiting_message(_holder(fd)), RuntimeWarning, stacklevel=3)
                # Start fast (most holds are short), back off to poll_interval.
                time.sleep(min(delay, deadline - now, self.poll_interval))
                delay = min(delay * 2, self.poll_interval)
        except BaseException:
            os.close(fd)
            raise
        self.waited = time.monotonic() - started
        self._fd, self._since = fd, time.time()
        self.set_status(None)  # records who holds it, so a waiter's message can name it
        return True

    def _open(self) -> int:
        try:
            ensure_cache_dir(self.root)
            # O_NOFOLLOW: a symlinked lock file could make us create files elsewhere.
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            if exc.errno not in _REFUSED:
                raise
            raise RemeError(
                read_only_message(self.root, exc), path=f"{CACHE_DIR}/{self.name}"
            ) from None

    def set_status(self, status: str | None) -> None:
        """Say what the holder is doing now; a waiter shows it (and, for a lock whose
        wait is bounded by progress, waits on while it changes). Only while held."""
        if self._fd is None:
            return
        text = f"{os.getpid()}\n{self._since:.3f}\n{_command_line()}\n{status or ''}\n"
        data = text.encode("utf-8", "replace")
        try:
            os.pwrite(self._fd, data, 0)
            os.ftruncate(self._fd, len(data))
        except OSError:
            pass  # informational only

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            try:
                os.ftruncate(fd, 0)  # no stale holder for the next waiter to name
            except OSError:
                pass
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    @abstractmethod
    def _timeout_message(self, holder: LockHolder | None, waited: float) -> str:
        """The one line a waiter that gave up raises: who holds the lock, what to do."""

    @abstractmethod
    def _waiting_message(self, holder: LockHolder | None) -> str:
        """The one notice a waiter shows after NOTICE_AFTER_S."""

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _read_holder_bytes(fd: int) -> bytes:
    try:
        return os.pread(fd, 4096, 0)
    except OSError:
        return b""


def _holder(fd: int) -> LockHolder | None:
    return _parse_holder(_read_holder_bytes(fd))


class VaultLock(_FileLock):
    """The writer lock `<root>/.reme/lock`, held by `Store.apply` for one changeset.

    A writer waits at most `timeout` seconds (reme.toml `[vault] lock_timeout_s`, 30 by
    default: another writer holds it for milliseconds per changeset, so a long wait
    means a process that hangs or a huge changeset), then fails with one line.
    """

    name = LOCK_NAME

    def __init__(self, root: Path, *, timeout: float = 30.0, poll_interval: float = 0.05) -> None:
        super().__init__(root, timeout=timeout, poll_interval=poll_interval)

    def _timeout_message(self, holder: LockHolder | None, waited: float) -> str:
        who = f", {holder.describe()}" if holder is not None and holder.pid else ""
        return (
            f"Timed out after {self.timeout:g} s waiting for the vault lock "
            f"{str(self.path)!r}: another reme-workbench process is writing to this "
            f"vault{who}. Wait for it to finish and run this again (the lock is released "
            "automatically when that process exits), or let writers wait longer with "
            "`lock_timeout_s` under [vault] in reme.toml."
        )

    def _waiting_message(self, holder: LockHolder | None) -> str:
        who = (holder and holder.describe()) or "another process"
        return (
            f"Waiting for the vault lock: {who} is writing to this vault; this write goes "
            f"on when it is done (at most {self.timeout:g} s)."
        )


class RunLock(_FileLock):
    """`<root>/.reme/<kind>.lock`, held for the whole of a long run that two processes
    must not do at once on one vault (`kind` "dream": both would dream the same material
    and write each note twice).

    A second run waits while the holder reports progress (`set_status`), then starts on
    what the first left; it gives up after `timeout` seconds without any progress.
    `doing` says what the holder does, for the waiter's messages ("dreaming this vault").
    """

    progress_extends = True

    def __init__(
        self, root: Path, kind: str, *, doing: str, timeout: float = RUN_LOCK_STALL_S,
        poll_interval: float = 0.05,
    ) -> None:
        self.kind, self.doing = kind, doing
        self.name = f"{kind}.lock"
        super().__init__(root, timeout=timeout, poll_interval=poll_interval)

    def _timeout_message(self, holder: LockHolder | None, waited: float) -> str:
        who = (holder and holder.describe()) or "another reme-workbench process"
        return (
            f"Waited {waited:.0f} s for the {self.kind} lock {str(self.path)!r}: {who} is "
            f"{self.doing} and reported no progress for {self.timeout:g} s. Wait for it to "
            "finish and run this again, or stop that process if it hangs (the lock is "
            "released automatically when it exits)."
        )

    def _waiting_message(self, holder: LockHolder | None) -> str:
        who = (holder and holder.describe()) or "another process"
        return f"Waiting: {who} is {self.doing}; this run goes on when it is done."


class IndexLock(RunLock):
    """`<root>/.reme/index.lock`, held for the whole of an index refresh: a second
    refresher waits, then finds the index the first one finished."""

    def __init__(
        self, root: Path, *, timeout: float = RUN_LOCK_STALL_S, poll_interval: float = 0.05
    ) -> None:
        super().__init__(root, "index", doing="re-indexing this vault", timeout=timeout,
                         poll_interval=poll_interval)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _SQLITE_BUSY
    return "locked" in str(exc) or "busy" in str(exc)


def connect_sqlite(
    database: str | Path, *, timeout: float = SQLITE_BUSY_TIMEOUT_S, wal: bool = True, **kwargs
) -> sqlite3.Connection:
    """`sqlite3.connect` with a busy timeout (`timeout`: another process's write is waited
    for, not reported as "database is locked") and,
    with `wal`, WAL journaling (readers never wait for a writer).

    Switching a new database to WAL takes an exclusive lock and SQLite answers "database
    is locked" at once, without its busy handler, when another process opens the same new
    file: so the switch is retried until `timeout`.
    """
    conn = sqlite3.connect(database, timeout=timeout, **kwargs)
    try:
        if wal:
            deadline = time.monotonic() + timeout
            delay = 0.005
            while True:
                try:
                    conn.execute("PRAGMA journal_mode=WAL")
                    break
                except sqlite3.OperationalError as exc:
                    if not _is_busy(exc) or time.monotonic() >= deadline:
                        raise
                    time.sleep(delay)
                    delay = min(delay * 2, 0.1)
    except BaseException:
        conn.close()
        raise
    return conn
