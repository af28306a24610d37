"""The index of a long-running front end: built in the background, reported on a route.

`start_background_index(ws)` starts the thread `index/background.py` describes (keyword
first, vectors behind) on its own index connection and its own embedder, so a request's
query embedding never queues behind a batch; `ws.background_index` then tells `recall`
not to wait on the index, and every write operation wakes the thread
(`registry.Operation.invoke`). `index_status` is the status route's answer, with or
without a thread.
"""

from __future__ import annotations

from .models import IndexStatusRequest, IndexStatusResponse
from .workspace import Workspace

__all__ = ["start_background_index", "stop_background_index", "index_status", "open_unread_index"]


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
    from ..index.factory import get_embedder

    if ws.background_index is not None and ws.background_index.running:
        return ws.background_index
    embedder = get_embedder(ws.embedder_name(), api_base=ws.api_base, api_key=ws.api_key)

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
