"""Derived data in `meta/`: versioned JSON snapshots and append-only JSONL logs.

docs/spec.md §8.1: every meta file carries `version` and `computed_at`; a reader that finds
another version (or a broken file) ignores it with a warning and degrades, instead of
crashing — meta is rebuildable, notes are the truth. Meta files are written directly
(atomic temp + fsync + rename), not through a changeset: they are derived, and a
last-writer-wins snapshot is all they need.
"""

from __future__ import annotations

import json
import os
import re
import stat
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RemeError, UnsafePathError
from .layout import resolve_inside

if TYPE_CHECKING:
    from .store import ApplyResult, Store

__all__ = [
    "MetaRead", "write_meta", "read_meta", "append_jsonl", "rewrite_jsonl", "append_audit", "meta_path",
    "log_access", "as_utc", "iso_utc", "parse_utc", "rename_in_meta", "RENAMED_WITH_NOTES",
]

# one optional sub-folder, for collections such as meta/proposals/<id>.json
_NAME_RE = re.compile(r"[a-z0-9_]+(?:/[a-z0-9_-]+)?")
_RESERVED = ("version", "computed_at")


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise RemeError(
            f"Meta name {name!r} must be lowercase letters, digits and '_' with at most "
            "one sub-folder (it becomes meta/<name>.json), e.g. 'communities' or "
            "'proposals/p-20261202-ab12'."
        )
    return name


def meta_path(root: Path, name: str, suffix: str = ".json") -> Path:
    """`<root>/meta/<name><suffix>`, refusing symlinks on the way."""
    return resolve_inside(Path(root), f"meta/{_check_name(name)}{suffix}")


def _ensure_meta_dir(root: Path) -> Path:
    folder = resolve_inside(Path(root), "meta")
    try:
        os.mkdir(folder)
    except FileExistsError:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            raise UnsafePathError(
                f"{str(folder)!r} is not a real folder; replace it with one.", path="meta"
            ) from None
    return folder


def _ensure_sub_dir(root: Path, sub: str) -> Path:
    folder = resolve_inside(Path(root), f"meta/{sub}")
    try:
        os.mkdir(folder)
    except FileExistsError:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            raise UnsafePathError(
                f"{str(folder)!r} is not a real folder; replace it with one.", path=f"meta/{sub}"
            ) from None
    return folder


def as_utc(when: datetime) -> datetime:
    """`when` in UTC; a naive datetime (an injected clock) is taken to be UTC already."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def iso_utc(when: datetime) -> str:
    """The timestamp meta files and the access log carry: ISO 8601 UTC with `Z`."""
    return as_utc(when).replace(tzinfo=None).isoformat() + "Z"


def parse_utc(value: object) -> datetime | None:
    """A timestamp read from a meta file, in UTC (naive taken as UTC); None when unusable."""
    if not isinstance(value, str):
        return None
    try:
        return as_utc(datetime.fromisoformat(value))
    except ValueError:
        return None



def write_meta(
    root: Path, name: str, payload: Mapping[str, Any], *, version: int, now: datetime
) -> Path:
    """Write `meta/<name>.json` atomically with `version` and `computed_at` first.

    Keys `version` / `computed_at` in `payload` are replaced by the given values (so a
    dict read back from `read_meta` can be written again).
    """
    path = meta_path(root, name)
    folder = _ensure_meta_dir(root)
    if "/" in name:
        folder = _ensure_sub_dir(root, name.split("/", 1)[0])
    doc: dict[str, Any] = {"version": version, "computed_at": iso_utc(now)}
    doc.update((k, v) for k, v in payload.items() if k not in _RESERVED)
    data = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    _replace_atomically(path, folder / f".{path.stem}.json.{uuid.uuid4().hex[:8]}.tmp", data)
    return path


def _replace_atomically(path: Path, tmp: Path, data: bytes) -> None:
    """`path` holds `data`, written whole to `tmp` (created new, never through a link),
    synced, renamed over `path` and its folder synced: readers see the old file or the new
    one, never half; on any failure `tmp` is gone and `path` untouched."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    dfd = os.open(tmp.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


# the derived signals that name notes by path (docs/spec.md §8.2); history — proposals,
# the access log, audit — keeps the paths it had when it was written
RENAMED_WITH_NOTES = ("communities", "community_changes", "misfiled", "recency", "archived",
                      "cooldowns", "split_queue", "merge_decisions")


def _renamed(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    if isinstance(value, dict):
        return {(new if k == old else k): _renamed(v, old, new) for k, v in value.items()}
    return value


def rename_in_meta(root: Path, old: str, new: str) -> list[str]:
    """After a note moved from `old` to `new` (`rename`), the meta files that name it by
    path name it by its new one, so its community, recency, archive state, cooldowns and
    queue entries follow it. Each file keeps its version and `computed_at` (the next
    batch compares touches with it); an unreadable file is left as it is. Returns the
    files rewritten."""
    done = []
    for name in RENAMED_WITH_NOTES:
        path = meta_path(root, name)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("version"), int):
            continue
        renamed = _renamed(doc, old, new)
        if renamed == doc:
            continue
        when = parse_utc(doc.get("computed_at")) or datetime.now(UTC)
        write_meta(root, name, renamed, version=doc["version"], now=when)
        done.append(f"meta/{name}.json")
    return done


@dataclass(frozen=True)
class MetaRead:
    data: dict | None  # None when absent, unreadable, bad JSON, or another version
    warning: str | None  # why it was ignored and what to do
    exists: bool = True  # False when the file is simply not there yet (nothing to warn about)


def read_meta(root: Path, name: str, *, version: int, rebuild: str | None = None) -> MetaRead:
    """Read `meta/<name>.json` if it has `version`; otherwise data None and a warning.

    `rebuild` names the command that recomputes the file (e.g. "reme-workbench
    communities"); it goes into the warning so the user knows the fix.
    """
    rel = f"meta/{_check_name(name)}.json"
    fix = (
        f"run `{rebuild}` to rebuild it"
        if rebuild
        else "it is rebuilt the next time it is computed"
    )

    def degrade(why: str, *, exists: bool = True) -> MetaRead:
        return MetaRead(None, f"{rel} {why}; ignoring it — {fix}.", exists)

    try:
        path = meta_path(root, name)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return degrade("does not exist yet", exists=False)
    except UnsafePathError as exc:
        return degrade(f"is not safe to read ({exc})")
    except OSError as exc:
        return degrade(f"cannot be opened ({exc.strerror})")
    try:
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        return degrade(f"cannot be read ({exc.strerror})")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return degrade(f"is not valid JSON ({exc})")
    if not isinstance(doc, dict):
        return degrade("is not a JSON object")
    found = doc.get("version")
    if found != version or isinstance(found, bool):
        return degrade(f"has version {found!r} but this reme-workbench reads version {version}")
    return MetaRead(doc, None)


def append_jsonl(root: Path, name: str, record: Mapping[str, Any]) -> None:
    """Append `record` as one line to `meta/<name>.jsonl` (e.g. the access log).

    One `write()` on an O_APPEND fd: concurrent appenders never interleave inside a
    line. Not fsynced — a log entry lost to a power cut is acceptable for a log. The write
    holds a shared `flock` on the file and lands only in the file the path names then: a
    compaction (`rewrite_jsonl`) replaces the file under an exclusive one, so a line is
    never written into a file that was just replaced (an appender that waited for it
    opens the new one). Where the file system has no locks, it appends without one: a
    log line never costs the work.
    """
    import fcntl

    path = meta_path(root, name, ".jsonl")
    _ensure_meta_dir(root)
    # json.dumps escapes newlines inside strings, so the record is exactly one line.
    line = (json.dumps(dict(record), ensure_ascii=False, separators=(",", ":")) + "\n").encode(
        "utf-8"
    )
    while True:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH)
            except OSError:  # a file system without locks: append as before (no compaction waits)
                pass
            else:
                if not _names(path, fd):
                    continue  # replaced while we waited: append to the file there now
            written = os.write(fd, line)
            if written != len(line):  # only on a full disk; report instead of tearing silently
                raise RemeError(
                    f"Only {written} of {len(line)} bytes were appended to {path}; "
                    "free disk space and check the last line of the file."
                )
            return
        finally:
            os.close(fd)


def _names(path: Path, fd: int) -> bool:
    """Whether `path` still names the file open as `fd`."""
    try:
        now = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    was = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (was.st_dev, was.st_ino)


def rewrite_jsonl(root: Path, name: str, rewrite: Callable[[bytes], bytes | None], *,
                  wait_s: float = 5.0) -> bool:
    """Replace `meta/<name>.jsonl` by `rewrite(its bytes)` (None: leave it), safe against
    appenders in other processes: under an exclusive `flock` on the file, which every
    `append_jsonl` takes shared, so no line is appended between the read and the replace,
    and none after it into the old file. `rewrite` runs under the lock (what it writes
    besides, e.g. a meta file that records an offset in the log, lands before the new
    log does). The new file is written beside it, fsynced and renamed over it. Returns
    whether it was replaced; False too when there is no log, or the lock was not had
    within `wait_s` (appenders hold it for one write: a compaction can wait for the next
    batch), or the file system has no locks."""
    import fcntl
    import time

    path = meta_path(root, name, ".jsonl")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        give_up = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > give_up:
                    return False
                time.sleep(0.01)
            except OSError:  # a file system without locks: appenders take none, so never rewrite
                return False
        if not _names(path, fd):  # another rewrite replaced it first
            return False
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        data = rewrite(b"".join(chunks))
        if data is None:
            return False
        _replace_atomically(path, path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp"), data)
        return True
    finally:
        os.close(fd)  # and with it the lock: waiting appenders find the new file


def log_access(root: Path, path: str, when: datetime, event: str, **fields: Any) -> None:
    """One line of `meta/access_log.jsonl`: {"ts", "path", "event", **fields}.

    docs/spec.md §7.3: the archive batch reads this log to compute recency, and anything that
    touches a note counts — a recall hit (event "recall", with its query and rank), a
    dream or consolidate change that applied (event = the proposal's action, e.g.
    "dream.create"). Callers treat a failure as a warning: a log never costs the work.
    """
    append_jsonl(root, "access_log", {"ts": iso_utc(when), "path": path, "event": event, **fields})


def append_audit(store: Store, kind: str, markdown: str, *, description: str = "") -> ApplyResult:
    """Append an entry to `audit/<date>/<kind>.md` on its own, through the journal.

    To record an audit entry together with a change, put `audit=AuditEntry(...)` on
    that change's Changeset instead, so both land atomically.
    """
    from .store import AuditEntry, Changeset  # local: store is the heavier module

    return store.apply(
        Changeset((), description=description or f"audit {kind}", audit=AuditEntry(kind, markdown))
    )
