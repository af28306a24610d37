"""Each text is embedded once: vectors kept by the hash of exactly what was embedded.

A vector depends on the embedder and on the text given to `embed`, nothing else — not
the file's path, nor its chunk id, nor the index's schema. So `index.db` keeps a
content-addressed table, `vector_cache_v1 (key, vector)`, keyed by
`vector_key(embedder, text)` = sha256(name NUL dim NUL text); every embedding of the
index goes through `embed_cached`, which embeds only the texts the table lacks. A
renamed or moved note, an imported original under `resource/` byte-identical to its
digest copy, fifty notes made from one template, and an index whose tables were rebuilt
for a new schema with the same chunk text all find their vectors there.

The table is created outside the index's schema (`indexdb._create` drops every other
table and keeps this one), so a schema change re-chunks but does not re-embed. A change
of how vectors are stored gets a new table name. An index of an older schema whose
vectors are of the same texts (`SAME_TEXT_SCHEMAS`) gives them to the table before its
tables are dropped (`keep_old_vectors`), so an upgrade does not re-embed either.

Bounded. `chunks.vkey` and `descriptions.vkey` record the key each row's vector is
under; after a refresh, when the table holds more than `PRUNE_SLACK` times the rows
the index refers to plus `PRUNE_MIN`, the rows no chunk and no description refers to
are deleted (`prune_if_over`). The slack keeps a file deleted and written back soon (an
editor's save by rename, a folder moved out and back) from being embedded again.

Crash-safe. A key is computed from the very text whose vector is stored with it, and a
batch's rows are written in one transaction, so an interrupted refresh leaves either no
row or a right one (and the next refresh reuses it instead of embedding again).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import RemeError

__all__ = [
    "CACHE_TABLE", "PRUNE_MIN", "PRUNE_SLACK", "create_cache", "vector_key", "embed_cached",
    "prune_if_over", "cache_rows", "keep_old_vectors", "SAME_TEXT_SCHEMAS",
]

CACHE_TABLE = "vector_cache_v1"
PRUNE_SLACK = 1.25  # rows kept, at most, per vector the index refers to ...
PRUNE_MIN = 1024  # ... plus this many, before the unreferenced ones are deleted
_LOOKUP_BATCH = 500


def create_cache(conn: sqlite3.Connection) -> None:
    """Create the table if it is not there (it outlives the index's own tables)."""
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {CACHE_TABLE} (id INTEGER PRIMARY KEY, "
        "key BLOB NOT NULL UNIQUE, vector BLOB NOT NULL)"
    )


def vector_key(embedder: tuple[str, int], text: str) -> bytes:
    """The cache key of `text` embedded by `embedder` (its name, dim)."""
    name, dim = embedder
    return hashlib.sha256(f"{name}\0{dim}\0{text}".encode("utf-8", "surrogatepass")).digest()


def _lookup(conn: sqlite3.Connection, keys: Sequence[bytes], dim: int) -> dict[bytes, np.ndarray]:
    found: dict[bytes, np.ndarray] = {}
    for start in range(0, len(keys), _LOOKUP_BATCH):
        part = keys[start : start + _LOOKUP_BATCH]
        marks = ",".join("?" * len(part))
        for key, blob in conn.execute(
            f"SELECT key, vector FROM {CACHE_TABLE} WHERE key IN ({marks})", part
        ):
            if len(blob) == 4 * dim:  # a row of another length is never used
                found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
    return found


def _store(conn: sqlite3.Connection, rows: dict[bytes, np.ndarray], *, replace: bool) -> None:
    if not rows or conn.in_transaction:  # inside a reader's snapshot: used, not kept
        return
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            f"INSERT OR {'REPLACE' if replace else 'IGNORE'} INTO {CACHE_TABLE} (key, vector) VALUES (?, ?)",
            [(key, np.ascontiguousarray(vector, dtype=np.float32).tobytes())
             for key, vector in rows.items()],
        )


def embed_cached(conn: sqlite3.Connection, embedder, embedder_key: tuple[str, int],
                 texts: Sequence[str], *, fresh: bool = False) -> np.ndarray:
    """float32 rows for `texts` (shape (len(texts), dim)): the cached vector of each text
    the table has, the others embedded (each distinct text once) and stored. `fresh`
    (a rebuild): embed every distinct text and replace its row."""
    dim = embedder_key[1]
    if not texts:
        return np.zeros((0, dim), dtype=np.float32)
    keys = [vector_key(embedder_key, t) for t in texts]
    found = {} if fresh else _lookup(conn, list(dict.fromkeys(keys)), dim)
    todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
    if todo:
        made = np.asarray(embedder.embed(list(todo.values())), dtype=np.float32)
        if made.shape != (len(todo), dim):
            raise RemeError(f"The embedder {embedder_key[0]} returned vectors of shape {made.shape} "
                            f"for {len(todo)} texts of dim {dim}; check its settings (model, dim).")
        rows = dict(zip(todo, made, strict=True))
        _store(conn, rows, replace=fresh)
        found.update(rows)
    return np.vstack([found[k] for k in keys]).astype(np.float32, copy=False)


# Schemas of the index whose chunk vectors are of `f"{context}\n{text}"` as today's: an
# index of one of them gives its vectors to the cache before its tables are dropped.
SAME_TEXT_SCHEMAS = ("6",)


def keep_old_vectors(conn: sqlite3.Connection, vec_path: Path) -> int:
    """Inside the transaction that drops an old index's tables: put the vectors of its
    chunks (vectors.faiss, by chunk id) in the cache under their texts' keys, so an
    upgrade re-chunks but does not re-embed. Anything unreadable is left out (it is then
    embedded again). Returns the rows added."""
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embedder', 'dim')"))
    if len(meta) < 2 or not str(meta["dim"]).isdigit() or not vec_path.is_file():
        return 0
    import faiss

    try:
        vectors = faiss.read_index(str(vec_path))
    except Exception:  # noqa: BLE001 - a damaged file only means those texts are embedded again
        return 0
    embedder = (meta["embedder"], int(meta["dim"]))
    if not isinstance(vectors, faiss.IndexIDMap2) or vectors.d != embedder[1] or not vectors.ntotal:
        return 0
    ids = faiss.vector_to_array(vectors.id_map).tolist()
    rows = []
    for start in range(0, len(ids), _LOOKUP_BATCH):
        part = ids[start : start + _LOOKUP_BATCH]
        marks = ",".join("?" * len(part))
        for i, context, text in conn.execute(
            f"SELECT id, context, text FROM chunks WHERE embedded = 1 AND id IN ({marks})", part
        ):
            rows.append((vector_key(embedder, f"{context}\n{text}"),
                         np.ascontiguousarray(vectors.reconstruct(int(i)), dtype=np.float32).tobytes()))
    conn.executemany(f"INSERT OR IGNORE INTO {CACHE_TABLE} (key, vector) VALUES (?, ?)", rows)
    return len(rows)


def cache_rows(conn: sqlite3.Connection) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {CACHE_TABLE}").fetchone()[0])


def prune_if_over(conn: sqlite3.Connection, referenced: int) -> int:
    """Delete the rows no chunk or description refers to, when the table has grown past
    `PRUNE_SLACK * referenced + PRUNE_MIN` rows (`referenced`: the vectors the index
    refers to, an upper bound of its distinct keys). Returns the rows deleted."""
    if cache_rows(conn) <= PRUNE_SLACK * referenced + PRUNE_MIN:
        return 0
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        cur = conn.execute(
            f"DELETE FROM {CACHE_TABLE} WHERE key NOT IN "
            "(SELECT vkey FROM chunks WHERE vkey IS NOT NULL) AND key NOT IN "
            "(SELECT vkey FROM descriptions WHERE vkey IS NOT NULL)"
        )
    return cur.rowcount
