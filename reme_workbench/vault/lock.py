"""The vault lock: one OS file lock on `.reme/lock` serialises writers across processes.

`fcntl.flock` is tied to the open file description, so the kernel drops it when the
holder exits or is killed: a crashed writer never leaves a stale lock behind. Two
`VaultLock` objects in one process also exclude each other (each opens its own fd).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from pathlib import Path
from types import TracebackType

from ..errors import RemeError
from .layout import CACHE_DIR, resolve_inside

__all__ = ["LOCK_NAME", "VaultLock", "ensure_cache_dir", "read_only_message"]

LOCK_NAME = "lock"
# what the kernel says when this user may not write here (modes, a read-only mount)
_REFUSED = (errno.EACCES, errno.EPERM, errno.EROFS)


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


class VaultLock:
    """Exclusive lock on `<root>/.reme/lock`; wait up to `timeout` seconds, then fail clearly.

    Use as a context manager. Polls with `LOCK_NB` and short sleeps rather than blocking,
    so the wait can time out (a blocking flock cannot be interrupted portably).
    """

    def __init__(self, root: Path, *, timeout: float = 30.0, poll_interval: float = 0.05) -> None:
        self.root = Path(root)
        self.timeout = timeout
        self.poll_interval = poll_interval
        self.path = self.root / CACHE_DIR / LOCK_NAME
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            raise RemeError(
                f"The vault lock {str(self.path)!r} is already held by this object; "
                "release it before taking it again."
            )
        try:
            ensure_cache_dir(self.root)
            # O_NOFOLLOW: a symlinked lock file could make us create files elsewhere.
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            if exc.errno not in _REFUSED:
                raise
            raise RemeError(read_only_message(self.root, exc), path=f"{CACHE_DIR}/{LOCK_NAME}") from None
        deadline = time.monotonic() + max(self.timeout, 0.0)
        delay = 0.002
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RemeError(self._timeout_message(fd), path=f"{CACHE_DIR}/{LOCK_NAME}")
                # Start fast (most holds are short), back off to poll_interval.
                time.sleep(min(delay, remaining, self.poll_interval))
                delay = min(delay * 2, self.poll_interval)
        except BaseException:
            os.close(fd)
            raise
        # Record the holder so a waiter's timeout message can name it.
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # informational only
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _timeout_message(self, fd: int) -> str:
        holder = ""
        try:
            pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            if pid.isdigit():
                holder = f" (process {pid})"
        except OSError:
            pass
        return (
            f"Timed out after {self.timeout:g} s waiting for the vault lock "
            f"{str(self.path)!r}: another reme-workbench process{holder} is writing to "
            "this vault. Wait for it to finish and try again (the lock is released "
            "automatically when that process exits), or raise the lock timeout."
        )

    def __enter__(self) -> VaultLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
