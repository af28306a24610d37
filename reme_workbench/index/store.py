"""`VaultIndex`: the keyword (SQLite FTS5) and vector (faiss) index of a vault, in `.reme/`.

`.reme/index.db` holds the indexed files (with the content hash they were indexed at),
their chunks, an FTS5 table over the CJK-segmented chunk text (see keyword.py) and the
embedder's name and dim. `.reme/vectors.faiss` is an IndexIDMap2 over IndexFlatIP whose
ids are chunk ids; rows are L2-normalised, so inner product is cosine similarity.

It is a cache of the markdown files. `refresh()` re-indexes only files whose sha256
(from the VaultScan records) differs from the one stored, in one transaction, then
updates the in-memory faiss index (remove_ids / add_with_ids) and writes it to disk
atomically (temp + rename) — at once after a big change, else at close(). Chunk ids
only grow (never reused while the database lives, not even by a rebuild), so a vectors
file that lags the database is found by comparing id sets: ids the database lacks are
dropped on load; chunks that lack a vector wait (searches use the vectors there are,
they never embed) until a refresh with vectors or `embed_pending()` embeds them. A
new, corrupt or old-schema database starts empty and drops the vectors file. A
generation counter in the database tells an open VaultIndex that another process
refreshed, so it reloads instead of using stale state.

Keyword first. `refresh(vectors=False)` chunks and writes FTS5 but embeds nothing, so
a new file is findable by keyword at once; pending.py keeps track of what waits and
embeds it later, a batch per hold of the lock (the background indexer's vector pass,
background.py). `refresh(wait=False)` returns None instead of queueing behind a
refresh another process holds.

Concurrent processes. A refresh holds `.reme/index.lock` (`vault.lock.IndexLock`) from
its plan to its commit, so refreshers queue: a second one waits while the first reports
progress, then finds the index up to date. It is not the vault's writer lock, so a long
refresh never holds up a write. Readers take no lock (SQLite WAL); every connection
waits for a busy database (`vault.lock.connect_sqlite`) instead of failing.

Descriptions. Each digest note's `"<name>: <description>"` (`chunking.description_text`)
is embedded once more, on its own, into the `descriptions` table, kept with the note's
chunks (same refresh, same transaction). Merge candidates compare notes by it
(`description_vectors`), so a consolidate run reads the vectors dream's refreshes wrote
instead of embedding every note again: at 10k notes that is ~100 s of MiniLM saved.

Large files (see chunking.py): `plan_file` bounds a file's chunks and picks the ones
to embed; the others are rows with `embedded = 0`, in FTS5 but with no vector, so a
file's cost is bounded and all of its text stays findable by keyword.

The embedder. The database records the embedder's name and dim. An index opened with
another embedder is not silently re-embedded: with `on_embedder_change="error"` (the
default) `refresh()` and `vector_search()` raise `EmbedderMismatchError`, which names
both embedders and the command that re-embeds; `"reembed"` (what `reme-workbench
index` passes) re-embeds every file and says so in `IndexDelta.message`. An explicit
`refresh(rebuild=True)` re-embeds in either mode: it asks to drop the index anyway.
Keyword search reads no vectors, so it works whatever the embedder.

The database side (its tables, opening and repairing it, the transaction that writes a
refresh, `recorded_embedder`) is in indexdb.py; this module plans, embeds and searches.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import EmbedderMismatchError, NoteError, RemeError
from ..vault.graph import LinkGraph
from ..vault.layout import CACHE_DIR, is_digest_note, resolve_inside
from ..vault.note import MAX_NOTE_BYTES, decode_note_bytes
from ..vault.scan import FileRecord, ScanDelta, VaultScan
from .chunking import (
    DEFAULT_RULES,
    Chunk,
    ChunkRules,
    description_text,
    embed_text,
    is_indexable,
    plan_file,
)
from .embeddings import AUTO, Embedder, embed_query, normalize_rows
from .factory import auto_spec, embedder_spec
from .indexdb import (
    INDEX_DB,
    IndexedFile,
    ReadSnapshot,
    batched,
    connect,
    read_meta,
    recorded_embedder,
    write_meta,
    write_refresh,
)
from .keyword import KeywordSearch
from .pending import (
    EMBED_BATCH,
    PENDING_KEY,
    SAVED_KEY,
    EmbedCount,
    EmbedProgress,
    IndexCoverage,
    PendingVectors,
    cached_keys,
    embed_in_commits,
)
from .vectorcache import embed_cached, prune_if_over, vector_key

__all__ = [
    "VaultIndex", "IndexDelta", "IndexedFile", "SCOPES", "scope_layers", "EMBEDDER_CHANGE_MODES",
    "recorded_embedder", "choose_embedder", "IndexCoverage",
]

VECTORS_FILE = "vectors.faiss"
SCOPES: dict[str, tuple[str, ...]] = {
    "digest": ("digest",),  # dream's RECALL
    "sources": ("daily", "resource"),
    "all": ("digest", "daily", "resource"),
}
_SAVE_AFTER = 256  # unsaved vector changes that make a refresh write vectors.faiss now
EMBEDDER_CHANGE_MODES = ("error", "reembed")


def scope_layers(scope: str) -> tuple[str, ...]:
    try:
        return SCOPES[scope]
    except (KeyError, TypeError):
        raise RemeError(
            f"Unknown scope {scope!r}; use one of {', '.join(SCOPES)}."
        ) from None


@dataclass(frozen=True)
class IndexDelta:
    indexed: tuple[str, ...]  # files (re)chunked and embedded by this refresh
    removed: tuple[str, ...]  # files whose rows and vectors were dropped
    chunks: int  # chunks written
    reembedded_all: bool  # rebuild requested, or the embedder changed
    message: str | None  # why everything was re-embedded, or which files were sampled
    # files over the embedding budget: some of their chunks are in the keyword index only
    sampled: tuple[str, ...] = ()


def choose_embedder(spec: str, root: Path | str, *, fresh: bool = False) -> str:
    """The embedder spec to use for `spec` in the vault whose index is under `root` (its
    home, location.py): `auto` becomes the index's own embedder when it has one and it is
    available, else e5 or MiniLM (`factory.auto_spec`); `fresh` (a rebuild) ignores the
    index's. Any other spec is itself."""
    if (spec or "").strip().lower() != AUTO:
        return spec
    return auto_spec(None if fresh else recorded_embedder(root))


def _wanted(rec: FileRecord, max_bytes: int = MAX_NOTE_BYTES) -> bool:
    """Files the index covers: digest notes, .md/.txt in daily/ and resource/, readable
    (the scan already warned about the others) and within [vault] max_note_bytes."""
    layer = rec.path.split("/", 1)[0]
    if not rec.sha256 or rec.size > max_bytes or not getattr(rec, "readable", True):
        return False
    if layer == "digest":
        return is_digest_note(rec.path)
    return layer in ("daily", "resource") and is_indexable(rec.path)


def _sampled_note(paths: list[str]) -> str:
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3:,} more" if len(paths) > 3 else "")
    return (
        f"{len(paths):,} file(s) over the embedding budget ({shown}): a sample of their "
        "chunks is embedded, and all of their text is in the keyword index."
    )


def _search_one(vectors, q: np.ndarray, k: int):
    """One query on one thread: OpenMP start-up and spinning made a single-query flat
    search ~20x slower with 2 threads (24 ms vs 1 ms at 20k vectors)."""
    import faiss

    threads = faiss.omp_get_max_threads()
    if threads == 1:
        return vectors.search(q, k)
    faiss.omp_set_num_threads(1)
    try:
        return vectors.search(q, k)
    finally:
        faiss.omp_set_num_threads(threads)


class VaultIndex(PendingVectors):
    """Open (or create) `<root>/.reme/index.db`; `refresh()` brings it up to date.

    `lock_timeout` (s): how long a refresh waits for another process's refresh that
    reports no progress (`vault.lock.RUN_LOCK_STALL_S` when None). Without `scan` it
    keeps its own (reading notes up to `max_note_bytes`), closed with it. `home`: the
    folder whose `.reme/` holds the index (default `root`; location.py's cache folder
    for a vault this user may only read).
    """

    def __init__(
        self, root: Path, embedder: Embedder, *, scan: VaultScan | None = None,
        on_embedder_change: str = "error", lock_timeout: float | None = None,
        max_note_bytes: int = MAX_NOTE_BYTES, home: Path | None = None,
        rules: ChunkRules = DEFAULT_RULES,
    ) -> None:
        from ..vault.lock import RUN_LOCK_STALL_S, IndexLock

        if on_embedder_change not in EMBEDDER_CHANGE_MODES:
            raise RemeError(
                f"on_embedder_change must be one of {', '.join(EMBEDDER_CHANGE_MODES)}, "
                f"not {on_embedder_change!r}."
            )
        self.root = Path(root)
        # where `.reme/` (and a recall's access log) is written: the vault, or a cache
        # folder outside a read-only one (location.py)
        self.home = Path(home) if home is not None else self.root
        self.embedder = embedder
        self.rules = rules
        self.on_embedder_change = on_embedder_change
        self._own_scan = scan is None
        self.scan = scan if scan is not None else VaultScan(self.root, max_note_bytes=max_note_bytes)
        self._max_bytes = self.scan.max_note_bytes  # [vault] max_note_bytes, as the scan reads it
        folder = resolve_inside(self.home, CACHE_DIR)  # refuses a symlinked .reme
        folder.mkdir(exist_ok=True)
        self._folder = folder
        self._vec_path = folder / VECTORS_FILE
        self._lock = IndexLock(
            self.home, timeout=RUN_LOCK_STALL_S if lock_timeout is None else lock_timeout
        )
        self.conn = connect(folder / INDEX_DB, self._vec_path, rules.key)
        self._generation: int | None = None
        self._files: dict[str, IndexedFile] = {}
        self._chunk_layer: dict[int, str] = {}
        self._keyword_only: set[int] = set()  # chunk ids with no vector (large files)
        self._vectors = None  # faiss index, loaded on first use
        self._graph: LinkGraph | None = None
        self._keyword = KeywordSearch()
        self._unsaved = 0  # chunk vectors added or removed since vectors.faiss was written
        self._sync()

    # -- database ------------------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        return read_meta(self.conn, key)

    def _stored_embedder(self) -> tuple[str, int] | None:
        name, dim = self._meta("embedder"), self._meta("dim")
        return None if name is None or dim is None else (name, int(dim))

    def _embedder_key(self) -> tuple[str, int]:
        """(name, dim) of this index's embedder; a provider that learns its dim from its
        first response (litellm) is asked for it here."""
        dim = getattr(self.embedder, "dim", None)
        if dim is None and callable(resolve := getattr(self.embedder, "resolve_dim", None)):
            dim = resolve()
        if dim is None:
            raise RemeError(f"The embedder {self.embedder.name} has no dim; pass one.")
        return self.embedder.name, int(dim)

    def _mismatch(self) -> EmbedderMismatchError | None:
        """The error for an index built with another embedder than this one (else None).

        Names are compared first, so a provider is not asked for its dim when the name
        already differs."""
        stored = self._stored_embedder()
        if stored is None:
            return None
        if stored[0] == self.embedder.name and stored == self._embedder_key():
            return None
        mine_dim = getattr(self.embedder, "dim", None)
        files = len(self._files)
        chunks = len(self._chunk_layer) - len(self._keyword_only)
        return EmbedderMismatchError(
            stored=stored[0], requested=self.embedder.name, files=files, chunks=chunks,
            stored_spec=embedder_spec(stored[0]), requested_spec=embedder_spec(self.embedder.name),
            stored_dim=stored[1], requested_dim=None if mine_dim is None else int(mine_dim),
        )

    def _sync(self) -> None:
        """Reload the in-memory view when the database changed under us (or on open)."""
        if int(self._meta("generation") or 0) == self._generation:
            return
        with ReadSnapshot(self.conn):  # the counter and the rows of one commit
            self._reload()

    def _reload(self) -> None:
        generation = int(self._meta("generation") or 0)
        self._files = {
            row[0]: IndexedFile(*row)
            for row in self.conn.execute(
                "SELECT path, sha256, layer, name, description, chunks FROM files"
            )
        }
        self._chunk_layer = dict(self.conn.execute("SELECT id, layer FROM chunks"))
        self._keyword_only = {
            row[0] for row in self.conn.execute("SELECT id FROM chunks WHERE embedded = 0")
        }
        self._vectors = None
        self._unsaved = 0
        self._graph = None
        self._generation = generation

    # -- vectors -------------------------------------------------------------------------
    def _new_vectors(self):
        import faiss

        return faiss.IndexIDMap2(faiss.IndexFlatIP(self._embedder_key()[1]))

    def _load_vectors(self, *, embed_missing: bool = True):
        """The faiss index matching the database, read once (ids the database lacks
        removed). `embed_missing`: embed, now, the chunks it should hold and does not (a
        crash, a deferred write, a keyword-only refresh); else they stay pending
        (`coverage`, `embed_pending`) and searches use the vectors there are."""
        unsaved = self._unsaved
        if self._vectors is None:
            if self._lock.held:  # in a refresh: no other process changes the database now
                self._vectors = self._read_vectors(embed_missing)
            else:
                # Another process's refresh may commit at any moment: the chunk ids and the
                # rows of the missing ones are read from one commit.
                with ReadSnapshot(self.conn):
                    if int(self._meta("generation") or 0) != self._generation:
                        self._reload()
                    self._vectors = self._read_vectors(embed_missing)
        elif embed_missing and self._missing_ids(self._vectors).size:
            if self._lock.held:
                self._embed_missing(self._vectors)
            else:
                with ReadSnapshot(self.conn):
                    if int(self._meta("generation") or 0) != self._generation:
                        self._reload()
                        self._vectors = self._read_vectors(embed_missing)
                    else:
                        self._embed_missing(self._vectors)
        if self._unsaved > unsaved:  # repaired or completed here: worth keeping at once
            self._save_unless_refreshing()
        return self._vectors

    def _read_vectors(self, embed_missing: bool):
        """vectors.faiss as read, made to hold no chunk the view lacks (and, with
        `embed_missing`, every embedded chunk it has)."""
        import faiss

        mismatch = self._mismatch()
        if mismatch is not None:
            raise mismatch  # old vectors are never mixed with (or searched by) new ones
        dim = self._embedder_key()[1]
        vectors = None
        if self._vec_path.exists():
            try:
                vectors = faiss.read_index(str(self._vec_path))
                if not isinstance(vectors, faiss.IndexIDMap2) or vectors.d != dim:
                    vectors = None
            except Exception as exc:  # noqa: BLE001 - a damaged cache file is re-embedded
                warnings.warn(
                    f"{self._vec_path} cannot be read ({exc}); re-embedding it from the index.",
                    RuntimeWarning, stacklevel=3,
                )
        if vectors is None:
            vectors = self._new_vectors()
        have = faiss.vector_to_array(vectors.id_map) if vectors.ntotal else np.empty(0, np.int64)
        extra = np.setdiff1d(have, self._wanted_ids(), assume_unique=True)
        if extra.size:
            vectors.remove_ids(extra)
            self._unsaved += int(extra.size)
        if embed_missing:
            self._embed_missing(vectors)
        return vectors

    def _save_vectors(self) -> None:
        import faiss

        tmp = self._folder / f".{VECTORS_FILE}.{uuid.uuid4().hex[:8]}.tmp"
        try:
            faiss.write_index(self._vectors, str(tmp))
            os.replace(tmp, self._vec_path)  # readers see the old file or the new one
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        self._unsaved = 0
        write_meta(self.conn, SAVED_KEY, str(self._generation))

    def _save_unless_refreshing(self) -> None:
        """Write vectors.faiss from outside a refresh only when no other process is
        refreshing (it writes its own, as new or newer) and the database is still the one
        these vectors match. A skipped write costs a re-embed of the lag on a later load."""
        if self._lock.held:
            return self._save_vectors()
        if not self._lock.acquire(blocking=False):
            return
        try:
            if int(self._meta("generation") or 0) == self._generation:
                self._save_vectors()
        finally:
            self._lock.release()

    # -- refreshing ----------------------------------------------------------------------
    def refresh(
        self,
        *,
        rebuild: bool = False,
        progress: Callable[[int, int], None] | None = None,
        paths: Iterable[str] | None = None,
        vectors: bool = True,
        wait: bool = True,
        embedding: EmbedProgress | None = None,
    ) -> IndexDelta | None:
        """Index what changed since the last refresh (everything with `rebuild=True`).

        `progress(done, total)` counts files to (re)index as they are read and chunked;
        then `embedding(EmbedCount)` counts the chunks and tokens embedded
        (pending.embed_in_commits: committed a batch at a time, kept if interrupted). `paths` limits the look to
        those files (present or deleted) — for a caller that knows what it wrote; it
        saves the stat walk of the whole vault. `vectors=False` writes the files' rows,
        chunks and keyword index only: what keyword search needs, at a fraction of the
        cost; their vectors (and any a crash left missing) stay pending until
        `embed_pending()` or a refresh with vectors. `wait=False`: when another refresh
        holds the index (a server's background indexer), return None at once.
        """
        wanted_paths = None if paths is None else [p.removeprefix("./") for p in paths]

        def report(done: int, total: int) -> None:
            self._lock.set_status(f"indexing {done:,}/{total:,} files")  # a waiter waits on
            if progress is not None:
                progress(done, total)

        def report_embedding(count: EmbedCount) -> None:
            self._lock.set_status(f"embedding {count.chunks:,}/{count.total_chunks:,} chunks")
            if embedding is not None:
                embedding(count)

        # Another process's refresh is waited for, then this one plans against its result
        # (mostly: nothing left to do). Under the lock the database cannot change between
        # plan and commit; the re-plan stays for a process that refreshes without it.
        if not self._lock.acquire(blocking=wait):
            return None  # `wait=False` and another refresh (a background indexer) runs
        try:
            for _ in range(3):
                delta = self._refresh_once(rebuild, report, wanted_paths, vectors, report_embedding)
                if delta is not None:
                    return delta
        finally:
            self._lock.release()
        raise RemeError(
            f"Another process re-indexed this vault without taking {self._lock.path} (an "
            "older reme-workbench?) three times while this refresh ran; stop it or wait for "
            "it, then run this again."
        )

    def _refresh_once(self, rebuild: bool, progress, paths: list[str] | None,
                      with_vectors: bool = True, embedding=None) -> IndexDelta | None:
        self._sync()
        stored = self._stored_embedder()
        mismatch = self._mismatch()
        if mismatch is not None and not rebuild and self.on_embedder_change == "error":
            raise mismatch
        mine = self._embedder_key()
        switched = mismatch is not None
        full = rebuild or switched
        if full or paths is None:
            paths = None
            self._lock.set_status("scanning the vault")
            self.scan.refresh()
        else:
            self.scan.refresh(paths)
        if paths is None:
            records = self.scan.records
        else:  # only these: no walk of the whole vault (a first index's first batches)
            records = {p: r for p in paths if (r := self.scan.known(p)) is not None}
        files = self._files
        if full:
            changed = sorted(p for p, r in records.items() if _wanted(r, self._max_bytes))
        else:  # the common case, an unchanged indexed file, costs one dict lookup
            look = records
            changed = sorted(
                p for p, r in look.items()
                if (p not in files or files[p].sha256 != r.sha256) and _wanted(r, self._max_bytes)
            )
        indexed = files if paths is None else {p: files[p] for p in paths if p in files}
        removed = sorted(
            p for p, f in indexed.items()
            if (r := records.get(p)) is None or (r.sha256 != f.sha256 and not _wanted(r, self._max_bytes))
        )
        if not (full or changed or removed or stored is None):
            if with_vectors and self._vectors_may_lag():
                self._load_vectors()  # what a keyword-only refresh, a deferred write or a crash left
                self._note_pending()
            return IndexDelta((), (), 0, False, None)
        vectors = self._new_vectors() if full else self._load_vectors(embed_missing=with_vectors)
        # Every text already embedded with this embedder (an edit's unchanged chunks, a moved
        # note, a template's chunks) is read from the vector cache; `rebuild` embeds afresh.
        fresh = rebuild

        # read, chunk and embed outside the transaction: a slow model never blocks readers
        new_files: list[IndexedFile] = []
        new_chunks: list[tuple[Chunk, str]] = []
        embedded: list[bool] = []  # per new chunk: does it get a vector
        chunk_keys: list[bytes | None] = []  # per new chunk: its vector's key in the cache
        sampled: list[str] = []
        matrices: list[np.ndarray] = []
        pending: list[str] = []
        described: list[tuple[str, str]] = []  # (digest note, description_text)
        total = len(changed)
        if progress is not None:
            progress(0, total)
        for done, path in enumerate(changed, 1):
            got = self._read(path)
            if got is None:  # vanished since the scan: drop whatever we had
                if path in files:
                    removed.append(path)
            else:
                sha, text = got
                plan = plan_file(path, text, rules=self.rules) if text is not None else None
                chunks = plan.chunks if plan is not None else ()
                rec, layer = records[path], path.split("/", 1)[0]
                new_files.append(
                    IndexedFile(path, sha, layer, rec.name, rec.description, len(chunks))
                )
                if text is not None and with_vectors and is_digest_note(path):
                    described.append((path, description_text(path, rec.name, rec.description)))
                new_chunks.extend((c, layer) for c in chunks)
                embedded.extend(c.ordinal in plan.embedded for c in chunks)
                chunk_keys.extend(vector_key(mine, embed_text(c, self.rules))
                                  if c.ordinal in plan.embedded else None for c in chunks)
                if with_vectors:
                    pending.extend(embed_text(c, self.rules) for c in chunks
                                   if c.ordinal in plan.embedded)
                if plan is not None and plan.sampled:
                    sampled.append(path)
            if progress is not None:
                progress(done, total)
        # every file read and chunked first (a small cost beside the encoder's), so the
        # progress line counts chunks and tokens of the whole refresh as they are embedded
        if pending:
            known = set() if fresh else cached_keys(self.conn, [vector_key(mine, t) for t in pending])
            matrices.append(embed_in_commits(
                lambda part: self._embed_texts(part, fresh=fresh), pending, mine[1], embedding,
                kept={i for i, t in enumerate(pending) if vector_key(mine, t) in known}))
        removed.sort()
        described_vectors = self._embed_descriptions(described, fresh=fresh)

        self._lock.set_status("writing the index")
        written = write_refresh(
            self.conn, generation=self._generation, full=full, chunk_ids=self._chunk_layer,
            indexed=files, changed=changed, removed=removed, new_files=new_files,
            new_chunks=new_chunks, embedded=embedded, chunk_keys=chunk_keys, described=described,
            described_vectors=described_vectors,
            described_keys=[vector_key(mine, text) for _, text in described], embedder=mine,
        )
        if written is None:  # another process refreshed meanwhile: plan again
            return None
        old_ids, ids, generation = written

        # the database is committed; bring memory and the vectors file in line with it
        if old_ids and not full:
            vectors.remove_ids(np.asarray(old_ids, dtype=np.int64))
            for i in old_ids:
                self._chunk_layer.pop(i, None)
                self._keyword_only.discard(i)
        if full:
            self._chunk_layer = {}
            self._keyword_only = set()
            self._files = {}
        vector_ids = [i for i, e in zip(ids, embedded, strict=True) if e] if with_vectors else []
        self._keyword_only.update(i for i, e in zip(ids, embedded, strict=True) if not e)
        if vector_ids:
            vectors.add_with_ids(np.vstack(matrices), np.asarray(vector_ids, dtype=np.int64))
        self._vectors = vectors
        for p in removed:
            self._files.pop(p, None)
        for f in new_files:
            self._files[f.path] = f
        self._chunk_layer.update((i, layer) for i, (_, layer) in zip(ids, new_chunks, strict=True))
        self._generation = generation
        # The vectors file may lag the database (a crash costs only a re-embed of the lag,
        # see _load_vectors), so a small refresh leaves the write of the whole file to
        # close() or a later refresh: it costs ~30 ms at 20k vectors.
        self._unsaved += len(old_ids) + len(vector_ids)
        if full or self._unsaved >= _SAVE_AFTER or not self._vec_path.exists():
            self._save_vectors()
        if not with_vectors and any(embedded) or self._meta(PENDING_KEY) == "1":
            self._note_pending()
        self._update_graph(full, [f.path for f in new_files], removed)
        if old_ids:  # vectors no chunk uses any more may be dropped (vectorcache.py's bound)
            prune_if_over(self.conn, len(self._chunk_layer) - len(self._keyword_only)
                          + sum(f.chunks > 0 for f in self._files.values()))

        notes = []
        if switched:
            notes.append(
                f"The index was built with the {stored[0]} embedder (dim {stored[1]}); "
                f"re-embedded all {len(new_files)} files ({len(vector_ids):,} chunks) with "
                f"{mine[0]} (dim {mine[1]})."
            )
        elif rebuild:
            notes.append(f"Rebuilt the index from scratch: {len(new_files)} files.")
        if sampled:
            notes.append(_sampled_note(sampled))
        return IndexDelta(
            tuple(f.path for f in new_files), tuple(removed), len(new_chunks), full,
            " ".join(notes) or None, tuple(sampled),
        )

    def _embed_texts(self, texts: list[str], *, fresh: bool = False) -> np.ndarray:
        """The rows for `texts`: each text's cached vector (vectorcache.py), else embedded;
        `fresh`: embed them all again (a rebuild), replacing what the cache had."""
        return embed_cached(self.conn, self.embedder, self._embedder_key(), texts, fresh=fresh)

    def _embed_descriptions(self, described: list[tuple[str, str]], *, fresh: bool = False
                            ) -> np.ndarray:
        """Unit float32 rows for the (path, description_text) of a refresh, through the
        vector cache like every text, a batch at a time."""
        dim = self._embedder_key()[1]
        if not described:
            return np.zeros((0, dim), dtype=np.float32)
        self._lock.set_status(f"embedding {len(described):,} note descriptions")
        texts = [text for _, text in described]
        return normalize_rows(np.vstack([self._embed_texts(part, fresh=fresh)
                                         for part in batched(texts, EMBED_BATCH)]))

    def description_vectors(self, texts: Mapping[str, str]) -> dict[str, np.ndarray]:
        """{path: unit vector} for the digest notes of `texts` ({path: description_text})
        whose description the index embedded from that very text, with this embedder.
        Notes it lacks (not indexed yet, changed since, or an index of another embedder)
        are left out: the caller embeds those itself."""
        self._sync()
        if not texts or self._stored_embedder() is None or self._mismatch() is not None:
            return {}
        dim = self._embedder_key()[1]
        found: dict[str, np.ndarray] = {}
        for part in batched(list(texts)):
            marks = ",".join("?" * len(part))
            for path, text, blob in self.conn.execute(
                f"SELECT path, text, vector FROM descriptions WHERE path IN ({marks})", part,
            ):
                if text == texts[path] and len(blob) == 4 * dim:
                    found[path] = np.frombuffer(blob, dtype=np.float32)
        return found

    def _read(self, rel: str) -> tuple[str, str | None] | None:
        """(sha256, text or None when undecodable) of a file, or None when it is gone."""
        try:
            fd = os.open(resolve_inside(self.root, rel), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(self._max_bytes + 1)
        except (OSError, RemeError):
            return None
        sha = hashlib.sha256(data).hexdigest()
        try:
            return sha, decode_note_bytes(data, rel, max_bytes=self._max_bytes)
        except NoteError as exc:
            warnings.warn(f"Not indexed: {exc}", RuntimeWarning, stacklevel=4)
            return sha, None  # recorded with no chunks, so it is not re-read until it changes

    def _update_graph(self, full: bool, changed: list[str], removed: list[str]) -> None:
        if self._graph is None:
            return
        if full:
            self._graph = None  # rebuilt lazily
            return
        delta = ScanDelta(
            tuple(p for p in changed if is_digest_note(p)),
            tuple(p for p in removed if is_digest_note(p)),
        )
        if delta:
            self._graph.update(self.scan, delta)

    # -- searching -----------------------------------------------------------------------
    def keyword_search(
        self, query: str, *, limit: int = 50, scope: str = "all"
    ) -> list[tuple[int, float]]:
        """(chunk id, -bm25) of the best keyword matches, best first."""
        layers = scope_layers(scope)
        if not isinstance(query, str) or not query.strip():
            return []
        self._sync()
        return self._keyword.search(
            self.conn, query, layers=None if scope == "all" else layers, limit=limit,
            total=len(self._chunk_layer), generation=self._generation,
        )

    def vector_query(self, query: str) -> str:
        """The text to embed for `query`: without words found in most chunks (keyword.py)."""
        self._sync()
        return self._keyword.vector_query(
            self.conn, query, total=len(self._chunk_layer), generation=self._generation
        )

    def vector_search(
        self, query: str, *, limit: int = 50, scope: str = "all"
    ) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) of the nearest chunks, best first."""
        layers = scope_layers(scope)
        if not (query or "").strip() or limit < 1:
            return []
        self._sync()
        vectors = self._load_vectors(embed_missing=False)  # what there is: never waits
        total = vectors.ntotal
        if total == 0:
            return []
        q = embed_query(self.embedder, query).reshape(1, -1)
        layer_of = self._chunk_layer
        # a scope filter over-fetches, then widens until enough chunks of the scope are found
        fetch = min(total, limit if scope == "all" else max(4 * limit, 64))
        while True:
            scores, ids = _search_one(vectors, q, fetch)
            hits = [
                (int(i), float(s)) for s, i in zip(scores[0], ids[0], strict=True)
                if i >= 0 and layer_of.get(int(i)) in layers
            ]
            if len(hits) >= limit or fetch >= total:
                return hits[:limit]
            fetch = min(total, fetch * 4)

    # -- reading -------------------------------------------------------------------------
    def _chunk_rows(self, ids: Iterable[int]) -> dict[int, Chunk]:
        out: dict[int, Chunk] = {}
        for part in batched(list(ids)):
            marks = ",".join("?" * len(part))
            for row in self.conn.execute(
                "SELECT id, path, ordinal, text, context, line_start, line_end, tokens "
                f"FROM chunks WHERE id IN ({marks})", part,
            ):
                out[row[0]] = Chunk(*row[1:])
        return out

    def chunk(self, chunk_id: int) -> Chunk:
        found = self._chunk_rows([chunk_id])
        if chunk_id not in found:
            raise RemeError(
                f"Chunk {chunk_id} is not in the index (it was re-indexed or removed); "
                "search again."
            )
        return found[chunk_id]

    def chunks(self, chunk_ids: Iterable[int]) -> dict[int, Chunk]:
        """Several chunks in one query; ids no longer in the index are left out."""
        return self._chunk_rows(chunk_ids)

    def first_chunk(self, path: str) -> Chunk | None:
        row = self.conn.execute(
            "SELECT path, ordinal, text, context, line_start, line_end, tokens FROM chunks "
            "WHERE path = ? ORDER BY ordinal LIMIT 1", (path,),
        ).fetchone()
        return None if row is None else Chunk(*row)

    def file(self, path: str) -> IndexedFile | None:
        """The indexed file at `path` (name, description, layer), as of the last search
        or refresh; None when it is not indexed."""
        return self._files.get(path)

    def link_graph(self) -> LinkGraph:
        """The digest link graph of this index's scan, built on first use and kept in
        step by `refresh()`. Pass your own (`vault.graph`) when you share a scan."""
        if self._graph is None:
            self._graph = LinkGraph.from_scan(self.scan)
        return self._graph

    @property
    def indexed_files(self) -> int:
        """How many files the index holds (no vectors read)."""
        self._sync()
        return len(self._files)

    @property
    def generation(self) -> int:
        """A counter that changes whenever a refresh changes the index (or its graph)."""
        return self._generation

    def stats(self) -> dict:
        self._sync()
        layers = {layer: {"files": 0, "chunks": 0} for layer in SCOPES["all"]}
        for f in self._files.values():
            layers[f.layer]["files"] += 1
            layers[f.layer]["chunks"] += f.chunks
        stored = self._stored_embedder()
        try:
            vectors = int(self._load_vectors(embed_missing=False).ntotal) if stored else 0
        except RemeError:  # built with another embedder: refresh() re-embeds
            vectors = None
        return {
            "files": len(self._files),
            "chunks": len(self._chunk_layer),
            "keyword_only_chunks": len(self._keyword_only),
            "vectors": vectors,
            "embedder": stored[0] if stored else None,
            "dim": stored[1] if stored else None,
            "layers": layers,
        }

    def close(self) -> None:
        """Write unsaved vectors (unless another process refreshed since) and close."""
        if self.conn is not None:
            try:
                if self._unsaved and self._vectors is not None:
                    self._save_unless_refreshing()
            except (sqlite3.Error, OSError, RuntimeError, RemeError) as exc:
                warnings.warn(f"{self._vec_path} not written ({exc}); it is repaired on the "
                              "next open.", RuntimeWarning, stacklevel=2)
            self.conn.close()
            self.conn = None
        if self._own_scan:
            self.scan.close()

    def __enter__(self) -> VaultIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
