"""Vectors that wait: what a keyword-only refresh leaves for later (a mixin of VaultIndex).

A keyword-only refresh (`VaultIndex.refresh(vectors=False)`) writes a file's chunks to
the database and FTS5 at once, so it is findable by keyword within a second of being
written, and leaves its vectors for later. The database's meta row `vectors_pending`
says chunks wait, and `vectors_generation` the generation vectors.faiss was last
written for, so an index knows its vectors may lag without reading vectors.faiss.
Searches never embed: they use the vectors there are. `embed_pending()` (the
background indexer's vector pass) or a refresh with vectors completes them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..errors import EmbedderMismatchError
from ..textrules.cjk import CJK_CHARS
from ..vault.layout import is_digest_note
from .chunking import description_text, embed_text
from .indexdb import batched, write_descriptions, write_meta
from .vectorcache import CACHE_TABLE, vector_key

__all__ = ["IndexCoverage", "PendingVectors", "PENDING_KEY", "SAVED_KEY", "embed_text",
           "approx_tokens", "embed_in_commits", "EmbedCount", "EmbedProgress", "COMMIT_BATCH",
           "cached_keys"]

EMBED_BATCH = 256
# Texts per call of the vector cache in a refresh: each call's vectors are committed in one
# transaction, so an interrupt loses at most this many texts' work (~1-2 s of MiniLM on 2
# cores), and the progress line moves this often.
COMMIT_BATCH = 64
_WORD = re.compile(rf"[{CJK_CHARS}]|\w+|[^\w\s]")
_PENDING_SAVE_S = 5.0  # embed_pending writes vectors.faiss this often (or 20x its write time)
PENDING_KEY = "vectors_pending"  # meta: "1" while chunks wait for a vector
SAVED_KEY = "vectors_generation"  # meta: the generation vectors.faiss was last written for


def approx_tokens(text: str) -> int:
    """About how many tokens an encoder reads in `text`: its words, punctuation marks and
    CJK characters (a word-piece model splits a few words more; the progress line's rate
    and time left are ratios of these counts, so the scale cancels out)."""
    return len(_WORD.findall(text))


@dataclass(frozen=True)
class EmbedCount:
    """Where a refresh's embedding stands: chunks and (approximate) tokens done of all, and
    how many of them were already in the vector cache (an interrupted run's work, kept)."""

    chunks: int
    total_chunks: int
    tokens: int
    total_tokens: int
    kept_chunks: int = 0
    kept_tokens: int = 0


EmbedProgress = Callable[[EmbedCount], None]


def cached_keys(conn, keys: list[bytes]) -> set[bytes]:
    """The keys of `keys` the vector cache already holds a vector for."""
    found: set[bytes] = set()
    for part in batched(list(dict.fromkeys(keys)), 500):
        marks = ",".join("?" * len(part))
        found.update(bytes(k) for (k,) in conn.execute(
            f"SELECT key FROM {CACHE_TABLE} WHERE key IN ({marks})", part))
    return found


def embed_in_commits(embed: Callable[[list[str]], np.ndarray], texts: list[str], dim: int,
                     report: EmbedProgress | None = None, kept: set[int] = frozenset()) -> np.ndarray:
    """The rows of `embed(texts)`, asked for `COMMIT_BATCH` texts at a time (each call of
    the vector cache commits its vectors, so an interrupted refresh keeps them): first the
    texts at the indices `kept` (in the cache already: read, not embedded), then the
    others shortest first so a batch pads little; `report` after each step."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    tokens = [approx_tokens(t) for t in texts]
    kept_rows = sorted(kept)
    order = sorted((i for i in range(len(texts)) if i not in kept), key=tokens.__getitem__)
    count = EmbedCount(0, len(texts), 0, sum(tokens))
    if kept_rows:
        out[kept_rows] = embed([texts[i] for i in kept_rows])
        kept_tokens = sum(tokens[i] for i in kept_rows)
        count = replace(count, chunks=len(kept_rows), tokens=kept_tokens,
                        kept_chunks=len(kept_rows), kept_tokens=kept_tokens)
    if report is not None and texts:
        report(count)
    for start in range(0, len(order), COMMIT_BATCH):
        rows = order[start : start + COMMIT_BATCH]
        out[rows] = embed([texts[i] for i in rows])
        count = replace(count, chunks=count.chunks + len(rows),
                        tokens=count.tokens + sum(tokens[i] for i in rows))
        if report is not None:
            report(count)
    return out


@dataclass(frozen=True)
class IndexCoverage:
    """Files indexed, those of them with every vector they get, chunks still waiting."""

    files: int
    vector_files: int
    pending_chunks: int

    @property
    def complete(self) -> bool:
        return self.pending_chunks == 0

    def describe(self) -> str:
        """"12/37 files": the files a vector search sees whole, of those indexed."""
        return f"{self.vector_files:,}/{self.files:,} files"




class PendingVectors:
    """VaultIndex's vectors that wait: what a keyword-only refresh left without one."""

    def _vectors_may_lag(self) -> bool:
        """Whether vectors.faiss may lack chunks of the database, known without reading
        it: chunks wait for a vector (a keyword-only refresh), or the file was last
        written for another generation (a deferred write, a crash), or it is gone."""
        return (self._meta(PENDING_KEY) == "1" or not self._vec_path.exists()
                or self._meta(SAVED_KEY) != str(self._generation))

    def _note_pending(self) -> None:
        """Record in the database whether chunks wait for a vector, so a refresh with
        vectors knows to embed them without reading vectors.faiss to find out."""
        pending = bool(self._missing_ids(self._vectors).size) if self._vectors is not None else True
        if (self._meta(PENDING_KEY) == "1") != pending:
            write_meta(self.conn, PENDING_KEY, "1" if pending else "0")

    def _wanted_ids(self) -> np.ndarray:
        """The ids of the chunks that get a vector (all but the keyword-only ones)."""
        keyword_only = self._keyword_only
        return np.fromiter(
            (i for i in self._chunk_layer if i not in keyword_only), dtype=np.int64,
            count=len(self._chunk_layer) - len(keyword_only),
        )

    def _missing_ids(self, vectors) -> np.ndarray:
        """The ids of chunks that should have a vector in `vectors` and have none, sorted."""
        import faiss

        have = faiss.vector_to_array(vectors.id_map) if vectors.ntotal else np.empty(0, np.int64)
        return np.setdiff1d(self._wanted_ids(), have, assume_unique=True)

    def vector_gaps(self) -> tuple[frozenset[int], float]:
        """(the chunks that should have a vector and have none yet, the share of those
        that should that have one): recall tells a chunk the vector search cannot see
        from one it ranked low. (empty, 1.0) when the vectors are complete; cached until
        the index or its vectors change."""
        self._sync()
        wanted = len(self._chunk_layer) - len(self._keyword_only)
        try:
            vectors = self._load_vectors(embed_missing=False)
        except EmbedderMismatchError:
            return frozenset(self._wanted_ids().tolist()), 0.0
        key = (self._generation, int(vectors.ntotal), wanted)
        if getattr(self, "_gaps_key", None) != key:
            gaps = frozenset(self._missing_ids(vectors).tolist()) if wanted else frozenset()
            self._gaps, self._gaps_key = (gaps, 1.0 - len(gaps) / wanted if wanted else 1.0), key
        return self._gaps

    def _embed_missing(self, vectors, limit: int | None = None, should_stop=None) -> int:
        """Embed the missing chunks of `vectors` (at most `limit`), a batch at a time,
        stopping between batches when `should_stop()` says so; the number embedded."""
        missing = self._missing_ids(vectors)
        if limit is not None:
            missing = missing[:limit]
        done = 0
        for ids in batched(missing.tolist(), EMBED_BATCH):
            if should_stop is not None and should_stop():
                break
            self._lock.set_status(f"embedding {done:,}/{missing.size:,} chunks without a vector")
            rows = self._chunk_rows(ids)
            texts = [embed_text(rows[i], self.rules) for i in ids]
            vectors.add_with_ids(self._embed_texts(texts), np.asarray(ids, dtype=np.int64))
            done += len(ids)
            self._unsaved += len(ids)
        return done

    # -- vectors after a keyword-only refresh ---------------------------------------------------
    def embed_pending(self, *, limit: int | None = None,
                      progress: Callable[[int, int], None] | None = None,
                      should_stop: Callable[[], bool] | None = None) -> int:
        """Embed the chunks that wait for a vector (a keyword-only refresh left them), at
        most `limit`, one batch per hold of the index lock, so a refresh (a new file to
        find by keyword) never waits long behind it; `should_stop()` is asked between
        batches. vectors.faiss is written every `_PENDING_SAVE_S` seconds, or twenty times
        as long as a write takes (what other readers see), and at the end; then the digest notes' missing description vectors.
        Returns the number of chunks embedded; `progress(done, total)` counts chunks."""
        done = 0
        stopped = False
        saved_at, save_cost = time.monotonic(), 0.0
        while limit is None or done < limit:
            with self._lock:
                self._sync()
                vectors = self._load_vectors(embed_missing=False)
                left = int(self._missing_ids(vectors).size)
                if not left:
                    break
                step = EMBED_BATCH if limit is None else min(EMBED_BATCH, limit - done)
                added = self._embed_missing(vectors, step, should_stop)
                done += added
                # other readers (a server's requests) see what is written: often enough
                # to follow, rarely enough that writing stays a small share of the time
                if time.monotonic() - saved_at >= max(_PENDING_SAVE_S, 20 * save_cost):
                    started = time.monotonic()
                    self._save_vectors()
                    saved_at = time.monotonic()
                    save_cost = saved_at - started
            if progress is not None:
                progress(done, done + left - added)
            stopped = should_stop is not None and should_stop()
            if stopped or not added:
                break
        with self._lock:
            self._sync()
            if self._vectors is not None:
                if self._unsaved:
                    self._save_vectors()
                self._note_pending()
            if not stopped:
                self._embed_missing_descriptions()
        return done

    def _embed_missing_descriptions(self) -> int:
        """Embed the description of every digest note the `descriptions` table lacks."""
        self._sync()
        have = {row[0] for row in self.conn.execute("SELECT path FROM descriptions")}
        todo = [(f.path, description_text(f.path, f.name, f.description))
                for f in self._files.values()
                if f.path not in have and f.chunks and is_digest_note(f.path)]
        if not todo:
            return 0
        vectors = self._embed_descriptions(todo)
        key = self._embedder_key()
        write_descriptions(self.conn, todo, vectors, [vector_key(key, text) for _, text in todo])
        return len(todo)

    def coverage(self) -> IndexCoverage:
        """How much of the index has its vectors: files whose every embedded chunk has
        one, of the files indexed, and the chunks still waiting."""
        self._sync()
        try:
            self._load_vectors(embed_missing=False)
        except EmbedderMismatchError:
            return IndexCoverage(len(self._files), 0, len(self._chunk_layer) - len(self._keyword_only))
        missing, _ = self.vector_gaps()  # cached: a recall asks twice, and fuses with it
        waiting: set[str] = set()
        for part in batched(sorted(missing)):
            marks = ",".join("?" * len(part))
            waiting.update(r[0] for r in self.conn.execute(
                f"SELECT DISTINCT path FROM chunks WHERE id IN ({marks})", part))
        return IndexCoverage(len(self._files), len(self._files) - len(waiting), len(missing))
