"""The index of a long-running front end: built in the background, reported on a route.

`start_background_index(ws)` starts the thread `index/background.py` describes (keyword
first, vectors behind) on its own index connection and its own embedder, so a request's
query embedding never queues behind a batch; `ws.background_index` then tells `recall`
not to wait on the index, and every write operation wakes the thread
(`registry.Operation.invoke`). `index_status` is the status route's answer, with or
without a thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .models import IndexStatusRequest, IndexStatusResponse
from .workspace import Workspace

__all__ = ["start_background_index", "stop_background_index", "index_status", "open_unread_index",
           "embedding_progress", "embedding_line"]


def embedding_line(count, seconds: float) -> str:
    """'embedding: 640/2,310 chunks, 41k/150k tokens, 5,200 tokens/s, 0:21 left' for an
    index.pending.EmbedCount; the rate (of what this run embedded, over `seconds` since
    its first batch began) and the time left once there is one; '(N done before)' when
    the vector cache had N of the chunks (an interrupted run's work)."""
    kept = f" ({count.kept_chunks:,} done before)" if count.kept_chunks else ""
    line = (f"embedding: {count.chunks:,}/{count.total_chunks:,} chunks{kept}, "
            f"{_thousands(count.tokens)}/{_thousands(count.total_tokens)} tokens")
    embedded = count.tokens - count.kept_tokens
    if embedded and seconds > 0.05:
        rate = embedded / seconds
        left = round((count.total_tokens - count.tokens) / rate)
        line += f", {rate:,.0f} tokens/s, {left // 60}:{left % 60:02d} left"
    return line


def _thousands(n: int) -> str:
    return f"{n / 1000:.0f}k" if n >= 10_000 else f"{n:,}"


def embedding_progress(progress: Callable[[int, int, str], None] | None):
    """VaultIndex.refresh's `embedding(EmbedCount)` as the operations' `progress(done,
    total, text)`: chunks counted, with tokens/s since this run's first batch began."""
    if progress is None:
        return None
    started: list[float] = []

    def report(count) -> None:
        if not started:
            started.append(time.monotonic())
        progress(count.chunks, count.total_chunks,
                 embedding_line(count, time.monotonic() - started[0]))

    return report


def open_unread_index(ws: Workspace, embedder=None):
    """The vault's index with a scan of its own that reads no file until asked (a Vault's
    scan reads every file when first used): what a request uses while a first index is
    being read, and what the background indexer works on."""
    from ..index.store import VaultIndex

    return VaultIndex(ws.root, embedder if embedder is not None else ws.get_embedder(),
                      max_note_bytes=ws.settings.vault.max_note_bytes, home=ws.index_home().root)


def start_background_index(ws: Workspace, *, rescan_every: float | None = None):
    """Start (once) the background indexer of `ws` and return it."""
    from ..index.background import RESCAN_EVERY_S, BackgroundIndexer

    if ws.background_index is not None and ws.background_index.running:
        return ws.background_index
    embedder = ws.new_embedder()  # its own: it embeds beside the requests' one

    ws.background_index = BackgroundIndexer(
        lambda: open_unread_index(ws, embedder), rescan_every=RESCAN_EVERY_S if rescan_every is None else rescan_every).start()
    return ws.background_index


def stop_background_index(ws: Workspace, timeout: float = 10.0) -> None:
    if ws.background_index is not None:
        ws.background_index.stop(timeout)


def index_status(ws: Workspace, request: IndexStatusRequest | None = None) -> IndexStatusResponse:
    """Where the index stands: the background indexer's progress when one runs (a
    server), else the index as it is on disk (nothing is indexed by asking)."""
    background = ws.background_index
    if background is not None and (background.running or background.progress().passes):
        return IndexStatusResponse.model_validate(
            {"background": background.running, **background.progress().to_json()})
    with ws.index() as index:
        cov = index.coverage()
    state = "ready" if cov.complete and cov.files else ("empty" if not cov.files else "vectors pending")
    return IndexStatusResponse(background=False, state=state, keyword=f"{cov.files:,} files",
                               vectors=cov.describe(), pending_chunks=cov.pending_chunks)
