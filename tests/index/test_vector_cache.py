"""Each text is embedded once: the vector cache (index/vectorcache.py) across refreshes."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from reme_workbench.index.chunking import ChunkRules
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.metered import MeteredEmbedder
from reme_workbench.index.pending import embed_text
from reme_workbench.index.store import VaultIndex

WORDS = "derivative limit integral series vector matrix proof lemma graph parser kernel cache".split()


def lecture(i: int) -> str:
    parts = "\n\n".join(f"## Part {p}\n\n" + " ".join(WORDS[(i + p + k) % len(WORDS)] for k in range(40))
                        + f" lecture{i}part{p}" for p in range(3))
    return f"---\nname: lecture-{i:02d}\ndescription: Lecture {i}.\n---\n{parts}\n"


@pytest.fixture
def course(make_vault):
    return make_vault({f"digest/wiki/course/lecture-{i:02d}.md": lecture(i) for i in range(30)})


def rows_of(root, sql):
    conn = sqlite3.connect(root / ".reme/index.db")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_a_moved_folder_is_not_embedded_again(course):
    with VaultIndex(course, HashingEmbedder()) as index:
        index.refresh()
        before = index.stats()
    (course / "digest/wiki/course").rename(course / "digest/wiki/maths")
    counted = MeteredEmbedder(HashingEmbedder())
    with VaultIndex(course, counted) as index:
        delta = index.refresh()
        assert len(delta.indexed) == len(delta.removed) == 30
        assert counted.texts == 0
        assert index.stats()["vectors"] == before["vectors"]
        [(cid, _)] = index.vector_search("lecture7part1", limit=1)  # the moved note's vector
        assert index.chunk(cid).path == "digest/wiki/maths/lecture-07.md"


def test_an_index_rebuilt_for_a_new_schema_embeds_nothing_when_the_text_is_the_same(course):
    with VaultIndex(course, HashingEmbedder()) as index:
        index.refresh()
        before = index.stats()
    conn = sqlite3.connect(course / ".reme/index.db")
    with conn:  # as an older version of the program left it
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    conn.close()
    counted = MeteredEmbedder(HashingEmbedder())
    with VaultIndex(course, counted) as index:
        assert index.stats()["files"] == 0  # the tables were rebuilt...
        index.refresh()
        assert index.stats()["vectors"] == before["vectors"]
    assert counted.texts == 0  # ...and no text embedded again


def test_a_rebuild_asked_for_embeds_afresh(course):
    with VaultIndex(course, HashingEmbedder()) as index:
        index.refresh()
        chunks = index.stats()["chunks"]
    counted = MeteredEmbedder(HashingEmbedder())
    with VaultIndex(course, counted) as index:
        index.refresh(rebuild=True)
    assert counted.texts == chunks + 30  # every chunk and every description


def test_the_same_text_in_two_files_is_embedded_once(make_vault):
    body = "## Notes\n\nthe same paragraph in both files about parser kernels\n"
    root = make_vault({"digest/wiki/a/readme.md": body, "digest/wiki/b/readme.md": body})
    counted = MeteredEmbedder(HashingEmbedder())
    with VaultIndex(root, counted) as index:
        index.refresh()
        assert index.stats()["vectors"] == 2
    assert counted.texts == 2  # one chunk text, one description text ("readme")


class Interrupted(BaseException):
    pass


class FailsAfter:
    """HashingEmbedder that stops the refresh (as Ctrl-C does) on its `calls`+1-th embed."""

    def __init__(self, calls: int) -> None:
        self.inner, self.calls = HashingEmbedder(), calls
        self.name, self.dim = self.inner.name, self.inner.dim

    def embed(self, texts):
        if self.calls == 0:
            raise Interrupted
        self.calls -= 1
        return self.inner.embed(texts)


def test_an_interrupted_refresh_keeps_right_vectors_and_the_next_goes_on(course, monkeypatch):
    from reme_workbench.index import pending, vectorcache

    monkeypatch.setattr(pending, "COMMIT_BATCH", 8)  # several committed batches in one refresh
    with VaultIndex(course, FailsAfter(3)) as index, pytest.raises(Interrupted):
        index.refresh()
    cached = rows_of(course, f"SELECT key, vector FROM {vectorcache.CACHE_TABLE}")
    counted = MeteredEmbedder(HashingEmbedder())
    with VaultIndex(course, counted) as index:
        index.refresh()
        assert index.coverage().complete
        texts = [embed_text(c) for c in index.chunks(range(1, 10_000)).values()]
    truth = HashingEmbedder()
    key_of = {vectorcache.vector_key((truth.name, truth.dim), t): t for t in texts}
    assert cached  # the batches embedded before the stop are kept...
    for key, blob in cached:  # ...each under the key of the very text it is the vector of
        text = key_of[bytes(key)]
        assert np.array_equal(np.frombuffer(blob, np.float32), truth.embed([text])[0])
    # the next refresh embeds the rest only: every other chunk text, and the descriptions
    assert counted.texts == len(key_of) + 30 - len(cached)


def test_vectors_no_chunk_uses_are_pruned_past_the_bound(course, monkeypatch):
    from reme_workbench.index import vectorcache

    monkeypatch.setattr(vectorcache, "PRUNE_MIN", 0)
    monkeypatch.setattr(vectorcache, "PRUNE_SLACK", 1.0)
    with VaultIndex(course, HashingEmbedder()) as index:
        index.refresh()
        for i in range(10):
            (course / f"digest/wiki/course/lecture-{i:02d}.md").unlink()
        index.refresh()
        stats = index.stats()
    cached = {bytes(k) for (k,) in rows_of(course, f"SELECT key FROM {vectorcache.CACHE_TABLE}")}
    used = {bytes(k) for (k,) in rows_of(course, "SELECT vkey FROM chunks UNION "
                                                 "SELECT vkey FROM descriptions")}
    assert cached == used and len(cached) == stats["vectors"] + 20


def test_an_index_of_the_previous_schema_gives_its_vectors_to_the_cache(course):
    from reme_workbench.index import vectorcache

    with VaultIndex(course, HashingEmbedder()) as index:
        index.refresh()
        before = index.stats()
    conn = sqlite3.connect(course / ".reme/index.db")
    with conn:  # as the previous version left it: no cache, schema 6, its vectors.faiss
        conn.execute(f"DELETE FROM {vectorcache.CACHE_TABLE}")
        conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema'")
    conn.close()
    counted = MeteredEmbedder(HashingEmbedder())
    with VaultIndex(course, counted) as index:
        index.refresh()
        assert counted.texts == 30  # the descriptions only: every chunk's vector was kept
        assert index.stats()["vectors"] == before["vectors"]
        [(cid, _)] = index.vector_search("lecture7part1", limit=1)
        assert index.chunk(cid).path == "digest/wiki/course/lecture-07.md"


def chat(lines: int, salt: str) -> str:
    return "# Chat\n\n" + "\n".join(
        f"**{'Mei' if i % 2 else 'Oskar'}** (D1:{i}): {salt} remark {i} about pgbouncer"
        + " and more" * 20 for i in range(lines)) + "\n"


@pytest.fixture
def chats(make_vault):
    return make_vault({f"daily/2026-10-0{d}/chat.md": chat(20, f"day{d}") for d in range(1, 6)})


@pytest.mark.parametrize("cut", ["pairs", "cover"])
def test_other_chunk_rules_rechunk_the_index_and_embed_no_text_it_had(chats, cut):
    """An index opened under other chunk rules (chunking.ChunkRules: fewer windows embedded)
    is re-chunked, and every text it embedded before is read from the vector cache."""
    with VaultIndex(chats, HashingEmbedder(), rules=ChunkRules(embed_windows="all")) as index:
        index.refresh()
        before = index.stats()
    counted = MeteredEmbedder(HashingEmbedder())
    with VaultIndex(chats, counted, rules=ChunkRules(embed_windows=cut)) as index:
        assert index.stats()["files"] == 0  # the tables were rebuilt for the new rules...
        index.refresh()
        assert counted.texts == 0  # ...and nothing embedded again: the texts are the same
        after = index.stats()
        hits = index.vector_search("day3 remark 11 about pgbouncer", limit=3)
        assert any("day3 remark 11 about" in index.chunk(cid).text for cid, _ in hits)
    assert after["chunks"] == before["chunks"]  # every window is still in the keyword index
    assert after["vectors"] == after["chunks"] - after["keyword_only_chunks"] < before["vectors"]
    assert rows_of(chats, "SELECT value FROM meta WHERE key = 'schema'")[0][0].endswith(cut + "-every")


def test_the_index_default_rules_keep_its_schema_so_nothing_is_rechunked(chats):
    from reme_workbench.index.indexdb import SCHEMA

    with VaultIndex(chats, HashingEmbedder()) as index:
        index.refresh()
        generation = index.generation
    assert rows_of(chats, "SELECT value FROM meta WHERE key = 'schema'") == [(SCHEMA,)]
    with VaultIndex(chats, HashingEmbedder(), rules=ChunkRules()) as index:  # the same rules
        assert index.stats()["files"] == 5 and index.generation == generation
        assert index.refresh().indexed == ()
