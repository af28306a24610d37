"""`VaultScan`: one record per file under resource/, daily/ and digest/, kept fresh cheaply.

A refresh lstat()s every file; a file whose (mtime_ns, size) is unchanged keeps its
record, a changed one is read and hashed, and only a changed hash is decoded and parsed
again. Records persist in `.reme/scan.db` (SQLite, WAL) so a reopened vault re-reads
nothing that did not change. The database is only a cache: a schema change or a corrupt
file rebuilds it. The scan never modifies a vault file and never follows a symlink.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import operator
import os
import re
import sqlite3
import stat
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from ..errors import NoteError, UnsafePathError
from .frontmatter import field_text, find_frontmatter, read_frontmatter
from .layout import CACHE_DIR, is_markdown, resolve_inside
from .links import GRAMMAR_VERSION, Link, parse_links
from .note import MAX_NOTE_BYTES, decode_note_bytes
from .resolve import aliases_of

__all__ = ["FileRecord", "Problem", "ScanDelta", "VaultScan", "SCAN_LAYERS", "SCAN_DB"]

# The layers whose files are records; meta/ and audit/ are derived, not material.
SCAN_LAYERS: tuple[str, ...] = ("resource", "daily", "digest")
SCAN_DB = "scan.db"
# Bump when the table layout or the meaning of a column changes; the Link fields, the
# link grammar and the size limit are part of the version too, so a change to any of
# them rebuilds the cache.
_SCHEMA = 4  # 3: the frontmatter's aliases (links resolve through them, §2.4.8); 4: templates
_LINK_FIELDS = tuple(f.name for f in dataclasses.fields(Link))
_CACHE_FORMAT = f"{_SCHEMA}|g{GRAMMAR_VERSION}|{','.join(_LINK_FIELDS)}"  # + "|<size limit>"
_link_values = operator.attrgetter(*_LINK_FIELDS)
_encode_links = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False
).encode
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    size: int
    mtime_ns: int
    sha256: str  # "" when the bytes were not read (too large, unreadable)
    is_markdown: bool
    name: str | None  # from frontmatter (None when absent/unparseable)
    description: str | None
    links: tuple[Link, ...]  # () for non-markdown
    error: str | None  # why this file could not be (fully) read, with the fix
    # the bytes were read (and, for markdown, decoded as text): False for a file too
    # large, unreadable, binary or not UTF-8, which is a problem, not a note. A note with
    # bad frontmatter YAML is readable: its body and links are known.
    readable: bool = True
    aliases: tuple[str, ...] = ()  # the frontmatter's `aliases:`: names links may use


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    message: str


@dataclass(frozen=True, slots=True)
class ScanDelta:
    changed: tuple[str, ...]  # new files and files whose content (or read error) changed
    removed: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.changed or self.removed)


@contextmanager
def _paused_gc() -> Iterator[None]:
    """Hold off the cyclic GC while building many small objects that form no cycles.

    A bulk load of records or edges otherwise triggers repeated full collections over
    an ever larger heap, which measured as 30-50 % of a cold scan.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _symlink_problem(root: Path, rel: str) -> Problem:
    """What a skipped symlink points at, truly: inside the vault, outside it, or nowhere."""
    skipped = (
        f"{rel} is a symlink {{where}}; reme-workbench never follows symlinks (a write "
        "through one could land anywhere), so it was skipped. {fix}"
    )
    full = os.path.join(root, rel)
    try:
        target = os.path.realpath(full, strict=True)
    except (OSError, RuntimeError):
        return Problem(rel, skipped.format(
            where="to a path that does not exist", fix="Remove it, or replace it with the file."
        ))
    real_root = os.path.realpath(root)
    inside = os.path.relpath(target, real_root)
    if inside == "." or inside.startswith(".." + os.sep) or inside == "..":
        return Problem(rel, skipped.format(
            where="to a path outside the vault",
            fix="Move the real file or folder into the vault, or remove the link.",
        ))
    inside = Path(inside).as_posix()
    return Problem(rel, skipped.format(
        where=f"to {inside}, inside the vault",
        fix=f"Link to it with [[{inside}]] instead, or replace the symlink with the real file.",
    ))


def _too_large(rel: str, size: int, limit: int) -> str:
    return (
        f"{rel} is {size:,} bytes ({size / 1048576:.1f} MiB), over the {limit:,}-byte "
        "limit for a note, so it was not read. Split it into smaller notes or move it out "
        "of the vault."
    )


# Obsidian's core templates ({{date}}, {{title}}) and Templater (<% tp.date.now() %>)
_PLACEHOLDER = re.compile(r"\{\{[^{}\n]*\}\}|<%[^\n]*?%>")


def is_template(text: str) -> bool:
    """Whether the frontmatter of `text` holds a template's placeholders: a person's
    template is not a broken note, however its YAML reads before it is filled in."""
    span = find_frontmatter(text)
    return span is not None and _PLACEHOLDER.search(text, span.yaml_start, span.yaml_end) is not None


def _note_fields(text: str, rel: str) -> tuple[str | None, str | None, str | None, tuple[str, ...]]:
    """(name, description, error, aliases) from the frontmatter; the body's links never
    depend on it."""
    try:
        data, _ = read_frontmatter(text, rel)  # note.parse's rule for bad YAML, so they agree
    except NoteError as exc:
        if is_template(text):  # `created: {{date}}` is a template's, filled in when used
            return None, None, None, ()
        return None, None, str(exc), ()
    return (field_text(data.get("name")), field_text(data.get("description")), None,
            aliases_of(data))


def _read_file(full: str, rel: str, limit: int | None) -> tuple[bytes | None, str, os.stat_result]:
    """(data, sha256, fstat) of a regular file, never through a symlink.

    With `limit` the file is refused (data None, sha "") when fstat says it is larger,
    before any byte is read; without it the file is hashed in chunks and not kept.
    """
    fd = os.open(full, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(f"{rel} is not a regular file")
        if limit is not None:
            if st.st_size > limit:
                return None, "", st
            chunks = []
            remaining = limit + 1  # one byte more tells us the file grew past the limit
            while remaining > 0 and (chunk := os.read(fd, min(remaining, _CHUNK))):
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
            return data, hashlib.sha256(data).hexdigest(), st
        digest = hashlib.sha256()
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
        return None, digest.hexdigest(), st
    finally:
        os.close(fd)


def _build(rel: str, full: str, old: FileRecord | None, limit: int) -> FileRecord:
    """Read, hash and (when the hash changed) parse one file."""
    md = is_markdown(rel)
    try:
        data, sha, st = _read_file(full, rel, limit if md else None)
    except OSError as exc:
        try:
            st = os.lstat(full)
            size, mtime = st.st_size, st.st_mtime_ns
        except OSError:
            size = mtime = 0
        reason = exc.strerror or str(exc)
        return FileRecord(rel, size, mtime, "", md, None, None, (), (
            f"{rel} could not be read ({reason}). Check that it is a plain file you may read "
            "(permissions), then refresh."
        ), False)
    if not md:
        return FileRecord(rel, st.st_size, st.st_mtime_ns, sha, False, None, None, (), None)
    if data is None or len(data) > limit:
        size = max(st.st_size, len(data or b""))
        return FileRecord(
            rel, size, st.st_mtime_ns, "", True, None, None, (), _too_large(rel, size, limit), False
        )
    if old is not None and old.sha256 == sha:
        return dataclasses.replace(old, size=st.st_size, mtime_ns=st.st_mtime_ns)
    try:
        text = decode_note_bytes(data, rel, max_bytes=limit)
    except NoteError as exc:
        return FileRecord(rel, st.st_size, st.st_mtime_ns, sha, True, None, None, (), str(exc), False)
    name, description, error, aliases = _note_fields(text, rel)
    links = tuple(parse_links(text))
    return FileRecord(rel, st.st_size, st.st_mtime_ns, sha, True, name, description, links, error,
                      True, aliases)


def _stat_reusable(old: FileRecord, st: os.stat_result, limit: int) -> bool:
    """The cached record still holds: same stat, and its last read did not fail."""
    if old.mtime_ns != st.st_mtime_ns or old.size != st.st_size:
        return False
    # sha "" means the bytes were not read: only a refusal by size is decided by stat alone
    return bool(old.sha256) or (old.is_markdown and old.size > limit)


def _same_content(a: FileRecord, b: FileRecord) -> bool:
    return (a.sha256, a.error, a.name, a.description, a.links, a.readable, a.aliases) == (
        b.sha256, b.error, b.name, b.description, b.links, b.readable, b.aliases,
    )


def _scanned_rel(rel: object) -> str | None:
    """`rel` as a scanned path, or None when the scan has no business with it."""
    if not isinstance(rel, str):
        return None
    rel = rel[2:] if rel.startswith("./") else rel
    parts = rel.split("/")
    if len(parts) < 2 or parts[0] not in SCAN_LAYERS:
        return None
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts) or "\x00" in rel:
        return None
    return rel


def _is_corrupt(exc: Exception) -> bool:
    """A damaged cache file (rebuild it), as opposed to a locked or read-only one (skip it)."""
    if isinstance(exc, sqlite3.DatabaseError):
        name = getattr(exc, "sqlite_errorname", "")
        return name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or not isinstance(
            exc, sqlite3.OperationalError
        )
    # a row that does not decode into records: damaged in a way SQLite did not notice
    return isinstance(exc, ValueError | TypeError)


def _may_write(path: Path) -> bool:
    """Whether this process may write `path` (an existing file or folder), as the kernel
    decides for this user: a read-only mount or mode refuses even when the bits look open."""
    return os.access(path, os.W_OK | (os.X_OK if path.is_dir() else 0))


class _Cache:
    """The SQLite side of the scan; every failure degrades to "no cache" with a warning.

    In a vault this user may not write (a read-only mount, `chmod a-w`), the cache is
    read as it is and never written, without a warning: reading such a vault is normal.
    """

    def __init__(self, root: Path, max_note_bytes: int) -> None:
        self.path = root / CACHE_DIR / SCAN_DB
        self.conn: sqlite3.Connection | None = None
        self.read_only = False
        # records made under another size limit differ (refused vs read): rebuild on change
        self.version = f"{_CACHE_FORMAT}|{max_note_bytes}"

    def open(self) -> dict[str, FileRecord]:
        """Connect (creating `.reme/` and the schema) and load every cached record."""
        root = self.path.parents[1]
        folder = self.path.parent
        try:
            if not _may_write(folder if folder.is_dir() else root):
                return self._open_read_only()
        except Exception:  # noqa: BLE001 - a cache we cannot even read is no cache
            self.close()
            return {}
        try:
            return self._open()
        except Exception as exc:  # noqa: BLE001 - anything wrong with a cache degrades
            self.close()
            if not _is_corrupt(exc):
                self._give_up(exc)
                return {}
            warnings.warn(
                f"The scan cache {self.path} is damaged ({type(exc).__name__}: {exc}); it is "
                "only a cache, so it was deleted and is rebuilt from the files.",
                RuntimeWarning, stacklevel=4,
            )
            self._delete()
        try:
            return self._open()
        except Exception as exc:  # noqa: BLE001
            self._give_up(exc)
            return {}

    def _open_read_only(self) -> dict[str, FileRecord]:
        """Records from an existing cache that may not be written; {} when there is none.

        `immutable=1`: WAL mode needs a writable -shm file even to read. Records are only
        reused when a file's stat still matches, so a cache that lags costs re-reads only.
        """
        self.read_only = True
        resolve_inside(self.path.parents[1], f"{CACHE_DIR}/{SCAN_DB}")  # no symlinks
        if not self.path.is_file():
            return {}
        uri = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
        self.conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        row = self.conn.execute("SELECT version FROM version").fetchone()
        if row is None or row[0] != self.version:
            self.close()
            return {}
        return self._load(self.conn)

    def _open(self) -> dict[str, FileRecord]:
        from .lock import connect_sqlite  # waits for a busy file instead of failing

        folder = resolve_inside(self.path.parents[1], CACHE_DIR)  # refuses a symlinked .reme
        folder.mkdir(exist_ok=True)
        conn = connect_sqlite(self.path, check_same_thread=False)
        self.conn = conn
        conn.execute("PRAGMA synchronous=NORMAL")  # a lost cache row costs one re-read
        if not self._current(conn):
            # Decided again under the write lock: a process opening the same new cache
            # must not drop the table another one just made and filled.
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                if not self._current(conn):
                    conn.execute("CREATE TABLE IF NOT EXISTS version (version TEXT NOT NULL)")
                    conn.execute("DROP TABLE IF EXISTS files")
                    conn.execute("DELETE FROM version")
                    conn.execute("INSERT INTO version VALUES (?)", (self.version,))
                    conn.execute(
                        "CREATE TABLE files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                        "mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL, is_markdown INTEGER "
                        "NOT NULL, name TEXT, description TEXT, links TEXT NOT NULL, error TEXT, "
                        "readable INTEGER NOT NULL, aliases TEXT NOT NULL) WITHOUT ROWID"
                    )
        return self._load(conn)

    def _current(self, conn: sqlite3.Connection) -> bool:
        """Whether the cache already has this version's tables."""
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('version', 'files')"
        )}
        if tables != {"version", "files"}:
            return False
        row = conn.execute("SELECT version FROM version").fetchone()
        return row is not None and row[0] == self.version

    @staticmethod
    def _load(conn: sqlite3.Connection) -> dict[str, FileRecord]:
        records = {}
        for path, size, mtime, sha, md, name, desc, links, error, readable, aliases in conn.execute(
            "SELECT path, size, mtime_ns, sha256, is_markdown, name, description, links, error, "
            "readable, aliases FROM files"
        ):
            parsed = tuple(Link(*v) for v in json.loads(links)) if links else ()
            names = tuple(json.loads(aliases)) if aliases else ()
            records[path] = FileRecord(
                path, size, mtime, sha, bool(md), name, desc, parsed, error, bool(readable), names
            )
        return records

    def write(self, upserts: list[FileRecord], removed: Iterable[str]) -> None:
        if self.conn is None or self.read_only:
            return
        rows = [
            (r.path, r.size, r.mtime_ns, r.sha256, int(r.is_markdown), r.name, r.description,
             _encode_links([_link_values(lk) for lk in r.links]) if r.links else "", r.error,
             int(r.readable), _encode_links(list(r.aliases)) if r.aliases else "")
            for r in upserts
        ]
        try:
            with self.conn:  # one transaction per refresh
                # IMMEDIATE: wait (busy timeout) for the write lock before reading anything,
                # so another process's commit can never make this one fail half-way
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows
                )
                self.conn.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in removed])
        except sqlite3.Error as exc:
            self._give_up(exc)

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            finally:
                self.conn = None

    def _delete(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass
            except OSError:
                break

    def _give_up(self, exc: Exception) -> None:
        self.close()
        warnings.warn(
            f"The scan cache {self.path} cannot be used ({exc}); scanning without it. "
            "Check that .reme/ is a writable folder (not a symlink), or ignore this: the "
            "cache only saves time.",
            RuntimeWarning, stacklevel=4,
        )


class VaultScan:
    """Records for every file under resource/, daily/ and digest/ (hidden names skipped).

    Build it, then `refresh()`; reading `records` or `problems` before any full refresh
    runs one. `cache=False` keeps everything in memory (tests). A markdown file over
    `max_note_bytes` (reme.toml `[vault] max_note_bytes`) is not read: its record has
    no links and an error; readers of note bodies (the index) use the same limit.
    """

    def __init__(
        self, root: Path, *, cache: bool = True, max_note_bytes: int = MAX_NOTE_BYTES
    ) -> None:
        if max_note_bytes < 1:
            raise ValueError("max_note_bytes must be at least 1")
        self.root = Path(root)
        self.max_note_bytes = int(max_note_bytes)
        self._records: dict[str, FileRecord] = {}
        self._walk_problems: dict[str, Problem] = {}
        self._walked = False
        self._cache: _Cache | None = None
        if cache:
            self._cache = _Cache(self.root, self.max_note_bytes)
            with _paused_gc():
                self._records = self._cache.open()
            if self._cache.conn is None:
                self._cache = None

    # -- reading -----------------------------------------------------------------------
    @property
    def records(self) -> Mapping[str, FileRecord]:
        self._ensure_walked()
        return MappingProxyType(self._records)

    @property
    def problems(self) -> list[Problem]:
        """Files that could not be (fully) read, each with what to do, sorted by path."""
        self._ensure_walked()
        found = dict(self._walk_problems)
        for rec in self._records.values():
            if rec.error is not None:
                found[rec.path] = Problem(rec.path, rec.error)
        return [found[p] for p in sorted(found)]

    def known(self, rel: str) -> FileRecord | None:
        """The record of `rel` as last read (by a walk, `refresh(paths)` or the cache),
        without walking the vault; None when none was read."""
        return self._records.get(rel)

    def list_files(self) -> list[str]:
        """Every file a walk would record, found by listing folders only (no file is
        read): what a first index can start on before the whole vault is read."""
        return [rel for rel, _, _ in self._walk({})]

    def exists(self, rel: str) -> bool:
        """Whether `rel` names a regular file in the vault (any layer); never follows links."""
        if rel in self._records:
            return True
        try:
            full = resolve_inside(self.root, rel)
            return stat.S_ISREG(os.lstat(full).st_mode)
        except (UnsafePathError, OSError, ValueError):
            return False

    def close(self) -> None:
        """Close the cache database; the records stay readable, later refreshes are in memory."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def __enter__(self) -> VaultScan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- refreshing --------------------------------------------------------------------
    def refresh(self, paths: Iterable[str] | None = None) -> ScanDelta:
        """Bring the records up to date: every file (None) or only `paths` (present or
        gone). Only `paths` needs no walk of the vault first: a fresh index reads its
        first files before the whole vault is read (`records` walks when first read)."""
        if paths is None:
            return self._refresh_all()
        changed: list[str] = []
        removed: list[str] = []
        upserts: list[FileRecord] = []
        for raw in dict.fromkeys(paths):
            rel = _scanned_rel(raw)
            if rel is None:
                continue
            self._walk_problems.pop(rel, None)
            kind, where = self._lstat_inside(rel)
            if kind == "file":
                self._update(rel, str(self.root / rel), None, changed, upserts)
                continue
            if kind == "symlink":
                self._walk_problems[where] = _symlink_problem(self.root, where)
            elif kind == "other":
                self._walk_problems[rel] = _special_problem(rel)
            if self._records.pop(rel, None) is not None:
                removed.append(rel)
        self._write(upserts, removed)
        return ScanDelta(tuple(changed), tuple(removed))

    def _refresh_all(self) -> ScanDelta:
        changed: list[str] = []
        upserts: list[FileRecord] = []
        problems: dict[str, Problem] = {}
        seen: set[str] = set()
        with _paused_gc():
            for rel, full, st in self._walk(problems):
                seen.add(rel)
                self._update(rel, full, st, changed, upserts)
        removed = [p for p in self._records if p not in seen]
        for p in removed:
            del self._records[p]
        self._walk_problems = problems
        self._walked = True
        self._write(upserts, removed)
        return ScanDelta(tuple(changed), tuple(removed))

    def _update(
        self, rel: str, full: str, st: os.stat_result | None, changed: list, upserts: list
    ) -> None:
        old = self._records.get(rel)
        if old is not None and st is not None and _stat_reusable(old, st, self.max_note_bytes):
            return
        new = _build(rel, full, old, self.max_note_bytes)
        if new == old:
            return
        self._records[rel] = new
        upserts.append(new)
        if old is None or not _same_content(old, new):
            changed.append(rel)

    def _write(self, upserts: list[FileRecord], removed: list[str]) -> None:
        if self._cache is not None and (upserts or removed):
            self._cache.write(upserts, removed)
            if self._cache.conn is None:
                self._cache = None

    def _ensure_walked(self) -> None:
        if not self._walked:
            self._refresh_all()

    def _walk(self, problems: dict[str, Problem]) -> Iterator[tuple[str, str, os.stat_result]]:
        """(rel, absolute path, lstat) of every regular file; problems for everything else."""
        root = str(self.root)
        for layer in SCAN_LAYERS:
            kind, _ = self._lstat_inside(layer)
            if kind == "missing":
                continue
            if kind != "dir":
                problems[layer] = (
                    _symlink_problem(self.root, layer) if kind == "symlink" else _special_problem(layer)
                )
                continue
            stack = [(os.path.join(root, layer), layer)]
            while stack:
                folder, rel_folder = stack.pop()
                try:
                    it = os.scandir(folder)
                except OSError as exc:
                    problems[rel_folder] = Problem(
                        rel_folder,
                        f"The folder {rel_folder} could not be listed ({exc.strerror}); check "
                        "its permissions.",
                    )
                    continue
                with it:
                    for entry in it:
                        name = entry.name
                        if name.startswith("."):
                            continue
                        rel = f"{rel_folder}/{name}"
                        try:
                            if not name.isascii():  # the common ASCII name needs no check
                                name.encode("utf-8")
                        except UnicodeEncodeError:
                            shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                            problems[shown] = Problem(
                                shown,
                                f"The name of {shown!r} is not valid UTF-8, so it cannot be a "
                                "link target; rename it with UTF-8 characters.",
                            )
                            continue
                        try:
                            # most entries are plain files: test that first (d_type, no syscall)
                            if entry.is_file(follow_symlinks=False):
                                yield rel, entry.path, entry.stat(follow_symlinks=False)
                            elif entry.is_dir(follow_symlinks=False):
                                stack.append((entry.path, rel))
                            elif entry.is_symlink():
                                problems[rel] = _symlink_problem(self.root, rel)
                            else:
                                problems[rel] = _special_problem(rel)
                        except FileNotFoundError:
                            continue  # removed while we looked

    def _lstat_inside(self, rel: str) -> tuple[str, str]:
        """(kind, rel) with kind "file", "dir", "other" or "missing"; or ("symlink", the
        first symlinked component of `rel`), checking every component with lstat."""
        current = str(self.root)
        parts = rel.split("/")
        for i, part in enumerate(parts):
            current = os.path.join(current, part)
            try:
                st = os.lstat(current)
            except (FileNotFoundError, NotADirectoryError):
                return "missing", rel
            except OSError:
                return "other", rel
            if stat.S_ISLNK(st.st_mode):
                return "symlink", "/".join(parts[: i + 1])
            if i < len(parts) - 1 and not stat.S_ISDIR(st.st_mode):
                return "missing", rel
        if stat.S_ISREG(st.st_mode):
            return "file", rel
        return ("dir" if stat.S_ISDIR(st.st_mode) else "other"), rel


def _special_problem(rel: str) -> Problem:
    return Problem(
        rel,
        f"{rel} is not a regular file or folder (a device, socket or pipe); move it out of "
        "the vault.",
    )
