"""Keyword first, vectors behind: the index built in a thread while a server answers.

A long-running front end (`serve`, `mcp`) starts a `BackgroundIndexer` at start-up. It
brings the vault's index up to date in two passes, over and over:

1. **Keyword.** Every file's rows, chunks and FTS5 entries, no vectors
   (`VaultIndex.refresh(vectors=False)`). On an index with no file yet it goes in
   batches (50 files, doubling up to `batch_files`) — digest notes first, what recall
   searches by default — without reading the whole vault first, so the first files
   answer within a second while the rest are read.
2. **Vectors.** `VaultIndex.embed_pending()`, one batch per hold of the index lock;
   what it embedded is written to vectors.faiss every few seconds, which is when
   requests see it.

Then it sleeps until `poke()` (the server wrote something) or `rescan_every` seconds
(a person edited a file in Obsidian). `stop()` is seen between batches. A request never
waits for it: recall searches what is committed and reports `coverage`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..errors import RemeError
from ..vault.layout import is_digest_note
from .store import IndexCoverage, VaultIndex

__all__ = ["BackgroundIndexer", "IndexProgress", "first_batches"]

BATCH_FILES = 500  # files per keyword batch of a first index (at most)
FIRST_BATCH = 50  # the first batch: what answers first
RESCAN_EVERY_S = 30.0  # how often an idle indexer looks for files edited outside


@dataclass(frozen=True)
class IndexProgress:
    """Where the background index stands: `state` is "starting", "keyword" (files
    being read, `keyword_files` of `files_seen` so far), "vectors" (`coverage` says how
    far), "ready", "failed" (`error` says why and what to do) or "stopped"."""

    state: str = "starting"
    files_seen: int = 0
    keyword_files: int = 0
    coverage: IndexCoverage | None = None
    error: str | None = None
    passes: int = 0  # completed keyword + vector passes (tests and status wait on it)

    @property
    def first_read(self) -> bool:
        """Whether the vault is being read for the first time (no pass done, the keyword
        index not yet whole): a request then reads no file itself."""
        return self.passes == 0 and self.state in ("starting", "keyword")

    def to_json(self) -> dict:
        cov = self.coverage
        return {
            "state": self.state,
            "keyword": f"{self.keyword_files:,}/{self.files_seen:,} files" if self.files_seen else None,
            "vectors": cov.describe() if cov is not None else None,
            "pending_chunks": cov.pending_chunks if cov is not None else None,
            "error": self.error,
            "passes": self.passes,
        }


def first_batches(paths: list[str], size: int = BATCH_FILES) -> list[list[str]]:
    """`paths` in batches, digest notes first (recall's default scope), then the rest of
    digest/, daily logs, resources, each in path order. The first batches are small
    (`FIRST_BATCH` files, doubling up to `size`), so the first files answer soonest."""
    order = {"digest": 0, "daily": 1, "resource": 2}
    ranked = sorted(paths, key=lambda p: (0 if is_digest_note(p) else 1 + order.get(p.split("/", 1)[0], 3), p))
    out, start, step = [], 0, min(FIRST_BATCH, size)
    while start < len(ranked):
        out.append(ranked[start:start + step])
        start += step
        step = min(step * 2, size)
    return out


class BackgroundIndexer:
    """The thread described in the module doc. `open_index()` gives a fresh
    `VaultIndex` (its own database connection); the indexer closes it after each pass."""

    def __init__(self, open_index: Callable[[], VaultIndex], *, batch_files: int = BATCH_FILES,
                 rescan_every: float = RESCAN_EVERY_S) -> None:
        self._open_index = open_index
        self._batch_files = batch_files
        self._rescan_every = rescan_every
        self._progress = IndexProgress()
        self._guard = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # -- control ---------------------------------------------------------------------------
    def start(self) -> BackgroundIndexer:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="reme-index", daemon=True)
            self._thread.start()
        return self

    def poke(self) -> None:
        """Something was written: look again now rather than at the next rescan."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the thread to stop (seen between batches) and wait up to `timeout` s."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._set(state="stopped")

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def progress(self) -> IndexProgress:
        with self._guard:
            return self._progress

    def wait_for_pass(self, passes: int = 1, timeout: float = 60.0) -> IndexProgress:
        """Block until `passes` passes are complete (or it failed, or `timeout`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            now = self.progress()
            if now.passes >= passes or now.state == "failed":
                return now
            time.sleep(0.02)
        return self.progress()

    # -- the thread -----------------------------------------------------------------------------
    def _set(self, **changes) -> None:
        with self._guard:
            self._progress = replace(self._progress, **changes)

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                with self._open_index() as index:
                    self._keyword_pass(index)
                    if not self._stopping.is_set():
                        self._vector_pass(index)
                if not self._stopping.is_set():
                    self._set(state="ready", error=None, passes=self.progress().passes + 1)
            except RemeError as exc:  # e.g. an index of another embedder: say what to run
                self._set(state="failed", error=str(exc))
            except Exception as exc:  # noqa: BLE001 - a server must outlive its indexer
                self._set(state="failed", error=f"{type(exc).__name__}: {exc}; the index is "
                          "retried at the next change or rescan (`reme-workbench index` builds it now)")
            self._wake.wait(self._rescan_every)

    def _keyword_pass(self, index: VaultIndex) -> None:
        self._set(state="keyword")
        if not index.indexed_files:  # a first index: batches, so answers come at once
            paths = index.scan.list_files()
            self._set(files_seen=len(paths), keyword_files=0)
            done = 0
            for batch in first_batches(paths, self._batch_files):
                if self._stopping.is_set():
                    return
                index.refresh(paths=batch, vectors=False)
                done += len(batch)
                self._set(keyword_files=done)
        index.refresh(vectors=False)  # the whole vault: edits, removals, what batches missed
        files = index.indexed_files
        self._set(files_seen=files, keyword_files=files, coverage=index.coverage())

    def _vector_pass(self, index: VaultIndex) -> None:
        cov = index.coverage()
        self._set(state="vectors" if not cov.complete else "ready", coverage=cov)
        if cov.complete:
            return
        last = [0.0]

        def report(_done: int, _total: int) -> None:
            if time.monotonic() - last[0] > 1.0:  # a coverage count reads the database
                last[0] = time.monotonic()
                self._set(coverage=index.coverage())

        index.embed_pending(progress=report, should_stop=self._stopping.is_set)
        self._set(coverage=index.coverage())
