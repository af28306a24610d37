"""Keyword first, vectors behind: the background indexer and recall that never waits on it."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from reme_workbench.index.background import BackgroundIndexer, first_batches
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.store import VaultIndex
from reme_workbench.ops import RecallRequest, Workspace, index_status, recall
from reme_workbench.ops.indexing import start_background_index, stop_background_index
from reme_workbench.vault.lock import IndexLock

TOML = '[recall]\nembedder = "hashing"\n'


def _hosts(n: int) -> dict[str, str]:
    files = {f"digest/wiki/host-{i:03d}.md": f"---\nname: host-{i:03d}\ndescription: Host {i}.\n---\n"
             f"Host {i} runs svc{i}.\n" for i in range(n)}
    files["daily/2026-10-05/log.md"] = "Moved svc3 to rack 9.\n"
    files["reme.toml"] = TOML
    return files


def test_first_batches_put_digest_notes_first():
    paths = ["resource/2026-10-05/a.txt", "daily/2026-10-05/log.md", "digest/wiki/b.md",
             "digest/wiki/a.md", "digest/wiki/notes.txt"]
    assert first_batches(paths, 2) == [["digest/wiki/a.md", "digest/wiki/b.md"],
                                      ["digest/wiki/notes.txt", "daily/2026-10-05/log.md"],
                                      ["resource/2026-10-05/a.txt"]]


def test_the_indexer_reads_in_batches_then_embeds_and_reports_each_step(make_vault):
    root = make_vault(_hosts(30))
    seen: list[tuple[int, int]] = []  # (files by keyword, chunks still waiting) at each batch

    class Watching(VaultIndex):
        def refresh(self, **kw):
            delta = super().refresh(**kw)
            seen.append((self.indexed_files, self.coverage().pending_chunks))
            return delta

    indexer = BackgroundIndexer(lambda: Watching(root, HashingEmbedder()), batch_files=10,
                                rescan_every=60).start()
    try:
        done = indexer.wait_for_pass(1, timeout=60)
    finally:
        indexer.stop()
    assert done.state == "ready" and done.passes == 1
    # three keyword batches (digest first), then the whole vault; no vector before the end
    assert [files for files, _ in seen[:4]] == [10, 20, 30, 31]
    assert all(waiting > 0 for _, waiting in seen[:4])
    assert done.coverage.complete and done.coverage.describe() == "31/31 files"
    assert done.to_json()["keyword"] == "31/31 files"
    assert indexer.progress().state == "stopped" and not indexer.running


def test_a_failing_index_is_reported_with_what_to_run(make_vault):
    root = make_vault(_hosts(3))
    with VaultIndex(root, HashingEmbedder(dim=64)) as other:  # built with another embedder
        other.refresh()
    indexer = BackgroundIndexer(lambda: VaultIndex(root, HashingEmbedder()), rescan_every=60).start()
    try:
        failed = indexer.wait_for_pass(1, timeout=30)
    finally:
        indexer.stop()
    assert failed.state == "failed" and "reme-workbench index --embedder" in failed.error


def test_a_served_recall_never_waits_for_the_indexer(make_vault):
    """While the background indexer holds the index (a batch), a request's recall takes
    the index as it is instead of queuing behind it."""
    root = make_vault(_hosts(5))
    ws = Workspace(root)
    start_background_index(ws, rescan_every=60)
    try:
        assert ws.background_index.wait_for_pass(1, timeout=30).state == "ready"
        (root / "digest/wiki/late.md").write_text("---\nname: late\n---\nThe zeppelin runbook.\n")
        lock = IndexLock(root, timeout=1)
        answered = threading.Event()
        with lock:  # the indexer's batch, as far as the request can tell
            def ask():
                recall(ws, RecallRequest(query="svc3", k=3))
                answered.set()
            worker = threading.Thread(target=ask)
            worker.start()
            worker.join(20)
            assert answered.is_set()  # it did not wait for the lock (nor time out on it)
        status = index_status(ws)
        assert status.background and status.state in ("ready", "keyword", "vectors")
    finally:
        stop_background_index(ws)
    assert index_status(ws).state == "stopped"


def test_status_without_a_server_reads_the_index_as_it_is(make_vault):
    root = make_vault(_hosts(4))
    ws = Workspace(root)
    assert index_status(ws).state == "empty"
    with VaultIndex(root, HashingEmbedder()) as index:
        index.refresh(vectors=False)
    pending = index_status(ws)
    assert (pending.state, pending.background, pending.vectors) == ("vectors pending", False, "0/5 files")
    with VaultIndex(root, HashingEmbedder()) as index:
        index.embed_pending()
    assert index_status(ws).vectors == "5/5 files" and index_status(ws).state == "ready"


def test_part_of_the_vectors_lifts_no_chunk_over_a_better_keyword_match():
    """With half the vectors embedded, a chunk the vector search cannot see is not
    outranked by a weaker keyword match only because that one has a vector."""
    from reme_workbench.index.recall import _Recaller

    recaller = SimpleNamespace(fusion="rrf", rrf_k=60)
    better, worse = 1, 2  # keyword ranks 1 and 2; only `worse` has a vector yet
    keyword, vector = [(better, 9.0), (worse, 8.0)], [(worse, 0.5)]
    naive = _Recaller._fuse(recaller, keyword, vector)
    assert naive[worse] > naive[better]  # what fusing a partial list would do
    aware = _Recaller._fuse(recaller, keyword, vector, frozenset({better}), 0.5)
    assert aware[better] > aware[worse]
    # complete vectors: unchanged; no vectors at all: the keyword order
    assert _Recaller._fuse(recaller, keyword, vector, frozenset(), 1.0) == naive
    none = _Recaller._fuse(recaller, keyword, [], frozenset({better, worse}), 0.0)
    assert none[better] > none[worse]


def test_vector_gaps_name_the_chunks_still_waiting(make_vault):
    root = make_vault(_hosts(20))
    with VaultIndex(root, HashingEmbedder()) as index:
        index.refresh(vectors=False)
        gaps, share = index.vector_gaps()
        assert share == 0.0 and len(gaps) == index.coverage().pending_chunks > 0
        index.embed_pending(limit=len(gaps) // 2)
        half, share = index.vector_gaps()
        assert half < gaps and 0.3 < share < 0.7
        index.embed_pending()
        assert index.vector_gaps() == (frozenset(), 1.0)
