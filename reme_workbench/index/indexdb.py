"""`.reme/index.db`, the SQLite side of `VaultIndex` (store.py): its tables and how they are written.

This module holds everything that knows the database's layout: its file name and
schema version, opening it (creating the tables, or replacing a damaged or old-schema
file), the `meta` table, read snapshots, the read-only look at the embedder an index
was built with (`recorded_embedder`), and the one transaction that writes a refresh
(`write_refresh`). store.py plans and embeds; what lands in the database is written here.

Tables: `files` (the indexed files, with the content hash they were indexed at),
`chunks` (`embedded = 0` for a chunk kept in the keyword index only), `fts` (FTS5 over
the CJK-segmented chunk text, see keyword.py), `descriptions` (one vector per digest
note) and `meta` (schema, embedder name and dim, next chunk id, generation counter).
A chunk's and a description's `vkey` is the key of its vector in the vector cache
(vectorcache.py), a table that outlives these: a schema change rebuilds them, not it.
"""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import RemeError
from ..vault.layout import CACHE_DIR
from .chunking import Chunk
from .factory import embedder_spec
from .keyword import FTS_SCHEMA, fts_rows
from .vectorcache import SAME_TEXT_SCHEMAS, create_cache, keep_old_vectors

__all__ = [
    "INDEX_DB", "SCHEMA", "SQL_BATCH", "IndexedFile", "ReadSnapshot", "batched", "connect",
    "read_meta", "recorded_embedder", "write_descriptions", "write_meta", "write_refresh",
]

INDEX_DB = "index.db"
SCHEMA = "8"  # bump when a table or the chunk/segment rules change: the cache rebuilds
# (8: textrules' one CJK range: ideographs past U+20000 are CJK for the chunk scan and
# the keyword segmentation too)
SQL_BATCH = 500


@dataclass(frozen=True, slots=True)
class IndexedFile:
    path: str
    sha256: str
    layer: str
    name: str | None
    description: str | None
    chunks: int


def recorded_embedder(root: Path | str) -> str | None:
    """The spec of the embedder the vault's index was built with, or None (no index yet,
    or one that cannot be read: it is rebuilt anyway). Read-only; opens nothing for write."""
    path = Path(root) / CACHE_DIR / INDEX_DB
    if not path.is_file():
        return None
    from ..vault.lock import connect_sqlite

    try:
        conn = connect_sqlite(f"{path.resolve().as_uri()}?mode=ro", uri=True, wal=False)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return None if row is None else embedder_spec(row[0])


def batched(items: list, size: int = SQL_BATCH):
    for i in range(0, len(items), size):
        yield items[i : i + size]


class ReadSnapshot:
    """One read transaction (WAL): every SELECT inside sees the same commit."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn, self.began = conn, not conn.in_transaction

    def __enter__(self) -> None:
        if self.began:
            self.conn.execute("BEGIN")

    def __exit__(self, *exc: object) -> None:
        if self.began:
            self.conn.execute("COMMIT")


def read_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def write_descriptions(conn: sqlite3.Connection, described: Sequence[tuple[str, str]],
                       vectors: np.ndarray, keys: Sequence[bytes]) -> None:
    """Store description vectors ((path, description_text) with its row and its vector
    cache key) outside a refresh; a later refresh of the file deletes its row, and a
    reader compares the text."""
    with conn:
        conn.executemany("INSERT OR REPLACE INTO descriptions VALUES (?,?,?,?)",
                         [(path, text, vector.tobytes(), key)
                          for (path, text), vector, key in zip(described, vectors, keys, strict=True)])


def write_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    """Set one `meta` value on its own (not a refresh: the generation stays)."""
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))


# -- opening -------------------------------------------------------------------------------
def connect(path: Path, vec_path: Path, rules_key: str = "") -> sqlite3.Connection:
    """Open (or create) the database at `path`; a damaged one is deleted and created
    anew. `vec_path` (vectors.faiss) is deleted whenever the tables are (re)created.
    `rules_key` (chunking.ChunkRules.key, "" for the index's own rules) is recorded with
    the schema: an index chunked by other rules is re-chunked, its vector cache kept."""
    schema = f"{SCHEMA}+{rules_key}" if rules_key else SCHEMA
    try:
        return _setup(path, vec_path, schema)
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorname", "") not in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
            raise RemeError(
                f"The index {path} cannot be opened ({exc}); check that .reme/ is a "
                "writable folder, or wait for the other process using it."
            ) from None
        warnings.warn(
            f"The index {path} is damaged ({exc}); it is only a cache, so it was deleted "
            "and is rebuilt by the next refresh (`reme-workbench index`).",
            RuntimeWarning, stacklevel=3,
        )
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return _setup(path, vec_path, schema)


def _setup(path: Path, vec_path: Path, schema: str) -> sqlite3.Connection:
    from ..vault.lock import connect_sqlite

    conn = connect_sqlite(path, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA synchronous=NORMAL")  # a lost cache row costs one re-index
        conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None or row[0] != schema:
            _create(conn, vec_path, schema)
        create_cache(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _create(conn: sqlite3.Connection, vec_path: Path, schema: str) -> None:
    conn.execute("BEGIN IMMEDIATE")
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is not None and row[0] == schema:
        conn.execute("COMMIT")  # another process opening it too was first: keep its work
        return
    if row is not None and row[0] in SAME_TEXT_SCHEMAS:  # its vectors outlive its tables
        create_cache(conn)
        keep_old_vectors(conn, vec_path)
    for table in ("files", "chunks", "fts", "descriptions"):
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.execute("DELETE FROM meta")
    conn.execute(
        "CREATE TABLE files (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, layer TEXT NOT "
        "NULL, name TEXT, description TEXT, chunks INTEGER NOT NULL) WITHOUT ROWID"
    )
    conn.execute(
        "CREATE TABLE chunks (id INTEGER PRIMARY KEY, path TEXT NOT NULL, ordinal INTEGER "
        "NOT NULL, layer TEXT NOT NULL, text TEXT NOT NULL, context TEXT NOT NULL, "
        "line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, tokens INTEGER NOT NULL, "
        "embedded INTEGER NOT NULL, vkey BLOB)"
    )
    conn.execute("CREATE INDEX chunks_path ON chunks (path, ordinal)")
    conn.execute("CREATE INDEX chunks_vkey ON chunks (vkey)")  # the cache's prune reads it
    # one float32 vector per digest note, of description_text (see store.py's module doc)
    conn.execute(
        "CREATE TABLE descriptions (path TEXT PRIMARY KEY, text TEXT NOT NULL, "
        "vector BLOB NOT NULL, vkey BLOB) WITHOUT ROWID"
    )
    conn.execute(FTS_SCHEMA)
    conn.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [("schema", schema), ("next_id", "1"), ("generation", "0")],
    )
    conn.execute("COMMIT")
    # vectors from an earlier database would share its ids: they must not survive it
    vec_path.unlink(missing_ok=True)


# -- writing a refresh ---------------------------------------------------------------------
def write_refresh(
    conn: sqlite3.Connection,
    *,
    generation: int,
    full: bool,
    chunk_ids: Iterable[int],
    indexed: Container[str],
    changed: Sequence[str],
    removed: Sequence[str],
    new_files: Sequence[IndexedFile],
    new_chunks: Sequence[tuple[Chunk, str]],
    embedded: Sequence[bool],
    chunk_keys: Sequence[bytes | None],
    described: Sequence[tuple[str, str]],
    described_vectors: np.ndarray,
    described_keys: Sequence[bytes],
    embedder: tuple[str, int],
) -> tuple[list[int], list[int], int] | None:
    """Commit one refresh in one transaction: drop the rows of `changed` and `removed`
    (everything when `full`), insert `new_files`, `new_chunks` (with their `embedded`
    flags and vector cache keys), their FTS rows and the `described` description
    vectors (with their keys), and record the
    `embedder` (name, dim), the next chunk id and the next generation.

    `generation` is the one the refresh planned against, `chunk_ids` the chunk ids of
    the index then (the old ids when `full`) and `indexed` its files. Returns (old chunk
    ids, new chunk ids, new generation), or None when another process refreshed since
    `generation` (nothing is written: plan again)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if int(read_meta(conn, "generation") or 0) != generation:
            conn.execute("ROLLBACK")  # another process refreshed meanwhile: plan again
            return None
        if full:
            old_ids = list(chunk_ids)
            for table in ("fts", "chunks", "files", "descriptions"):
                conn.execute(f"DELETE FROM {table}")
        else:
            touched = [p for p in (*changed, *removed) if p in indexed]
            old_ids = []
            for part in batched(touched):
                marks = ",".join("?" * len(part))
                old_ids += [r[0] for r in conn.execute(
                    f"SELECT id FROM chunks WHERE path IN ({marks})", part)]
            conn.executemany("DELETE FROM fts WHERE rowid = ?", [(i,) for i in old_ids])
            conn.executemany("DELETE FROM chunks WHERE path = ?", [(p,) for p in touched])
            conn.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in touched])
            conn.executemany("DELETE FROM descriptions WHERE path = ?",
                             [(p,) for p in (*changed, *removed)])
        first = int(read_meta(conn, "next_id") or 1)
        ids = list(range(first, first + len(new_chunks)))
        conn.executemany(
            "INSERT INTO files VALUES (?,?,?,?,?,?)",
            [(f.path, f.sha256, f.layer, f.name, f.description, f.chunks) for f in new_files],
        )
        conn.executemany(
            "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [(i, c.path, c.ordinal, layer, c.text, c.context, c.line_start, c.line_end,
              c.tokens, int(e), key)
             for i, (c, layer), e, key in zip(ids, new_chunks, embedded, chunk_keys, strict=True)],
        )
        conn.executemany(
            "INSERT INTO fts (rowid, context, body, layer) VALUES (?,?,?,?)",
            fts_rows(ids, new_chunks),
        )
        conn.executemany(
            "INSERT OR REPLACE INTO descriptions VALUES (?,?,?,?)",
            [(path, text, vector.tobytes(), key) for (path, text), vector, key
             in zip(described, described_vectors, described_keys, strict=True)],
        )
        generation = generation + 1
        conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
            ("embedder", embedder[0]), ("dim", str(embedder[1])),
            ("next_id", str(first + len(new_chunks))), ("generation", str(generation)),
        ])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return old_ids, ids, generation
