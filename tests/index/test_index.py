"""VaultIndex: FTS5 (Chinese + English), safe queries, incremental refresh, the cache contract."""

from __future__ import annotations

import shutil
import sqlite3

import faiss
import pytest

from reme_workbench.errors import EmbedderMismatchError, RemeError
from reme_workbench.index import keyword
from reme_workbench.index.chunking import description_text
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.store import VaultIndex

FILES = {
    "digest/wiki/deploy-window.md": (
        "---\nname: deploy-window\ndescription: When prod deploys happen.\n---\n"
        "We deployed payments-api on Tuesday; no deploys on Fridays.\n"
        "derived_from:: [[daily/2026-10-05/deploy.md]]\n"
    ),
    "digest/personal/home-network.md": (
        "---\nname: home-network\ndescription: 家庭网络的设置\n---\n"
        "家里的路由器把物联网设备放在单独的网段。\n"
    ),
    "digest/procedure/meeting.md": (
        "---\nname: meeting\ndescription: 部门例会\n---\n每周一上午开部门会议。\n"
    ),
    "daily/2026-10-05/deploy.md": "# Deploy\n\nRolled out v2.14 to staging, then prod.\n",
    "resource/2026-10-16/rollout-sync.txt": "pgbouncer rollout sync notes\n\npool size 20\n",
    "resource/2026-10-05/diagram.png": b"\x89PNG\r\n\x1a\n\x00\x00",
}


@pytest.fixture
def vault(make_vault):
    return make_vault(FILES)


@pytest.fixture
def index(vault):
    with VaultIndex(vault, HashingEmbedder()) as ix:
        ix.refresh()
        yield ix


def paths(index, hits):
    return [index.chunk(cid).path for cid, _ in hits]


def test_first_refresh_indexes_md_and_txt_and_skips_others(vault):
    seen = []
    with VaultIndex(vault, HashingEmbedder()) as ix:
        delta = ix.refresh(progress=lambda done, total: seen.append((done, total)))
        stats = ix.stats()
    assert set(delta.indexed) == {p for p in FILES if not p.endswith(".png")}
    assert delta.removed == () and not delta.reembedded_all and delta.message is None
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
    assert stats["files"] == 5 and stats["chunks"] == delta.chunks == stats["vectors"]
    assert stats["embedder"] == "hashing-256" and stats["dim"] == 256
    assert stats["layers"]["digest"]["files"] == 3 and stats["layers"]["resource"]["files"] == 1
    assert (vault / ".reme/index.db").exists() and (vault / ".reme/vectors.faiss").exists()


def test_two_character_chinese_word_finds_its_note(index):
    assert paths(index, index.keyword_search("部署")) == []  # 部门 shares one character only
    assert paths(index, index.keyword_search("部门")) == ["digest/procedure/meeting.md"]
    assert paths(index, index.keyword_search("网络")) == ["digest/personal/home-network.md"]
    assert paths(index, index.keyword_search("路由器怎么设置")) == ["digest/personal/home-network.md"]


def test_english_stemming(index):
    found = paths(index, index.keyword_search("deploying"))
    assert found[0] == "digest/wiki/deploy-window.md"
    assert paths(index, index.keyword_search("pools")) == ["resource/2026-10-16/rollout-sync.txt"]


@pytest.mark.parametrize(
    "query",
    ['AND OR "(', 'NEAR(a b', "*", '"', "col:val", "^x", ")", "''", "NOT", "", "   ", "a AND",
     "{layer}: digest", "deploy*", "\x00", "-deploy"],
)
@pytest.mark.filterwarnings("error")  # a query that broke FTS syntax would warn
def test_hostile_queries_never_raise(index, query):
    assert isinstance(index.keyword_search(query), list)
    assert isinstance(index.vector_search(query), list)


def test_queries_are_quoted_terms_ored():
    assert keyword.match_expression(keyword.query_terms('AND OR "(')) == '"and" OR "or"'
    assert keyword.query_terms("部署失败 now") == ["部署", "署失", "失败", "now"]
    assert keyword.match_expression([]) is None
    assert keyword.segment("用VPN连接") == " 用 VPN 连接 连 接 "


def test_scope_filters_keyword_and_vector_search(index):
    for search in (index.keyword_search, index.vector_search):
        digest = paths(index, search("deploy prod staging", scope="digest"))
        sources = paths(index, search("deploy prod staging", scope="sources"))
        assert digest and all(p.startswith("digest/") for p in digest)
        assert sources and all(p.startswith(("daily/", "resource/")) for p in sources)
    with pytest.raises(RemeError, match="digest, sources, all"):
        index.keyword_search("x", scope="everything")


def test_vector_search_is_cosine_best_first(index):
    hits = index.vector_search("pgbouncer rollout sync notes")
    assert index.chunk(hits[0][0]).path == "resource/2026-10-16/rollout-sync.txt"
    assert hits[0][1] > 0.5 and hits == sorted(hits, key=lambda h: -h[1])


def chunk_ids(vault, path):
    db = sqlite3.connect(vault / ".reme/index.db")
    try:
        return [r[0] for r in db.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
    finally:
        db.close()


def test_edit_reindexes_only_that_file(vault, index):
    other = chunk_ids(vault, "digest/personal/home-network.md")
    old = chunk_ids(vault, "digest/wiki/deploy-window.md")
    (vault / "digest/wiki/deploy-window.md").write_text(
        "---\nname: deploy-window\n---\nDeploys are frozen over the holidays.\n", encoding="utf-8"
    )
    delta = index.refresh()
    assert delta.indexed == ("digest/wiki/deploy-window.md",) and delta.removed == ()
    assert delta.chunks == 1 and not delta.reembedded_all
    assert paths(index, index.keyword_search("holidays")) == ["digest/wiki/deploy-window.md"]
    assert paths(index, index.keyword_search("Tuesday")) == []
    assert chunk_ids(vault, "digest/personal/home-network.md") == other  # untouched
    new = chunk_ids(vault, "digest/wiki/deploy-window.md")
    assert min(new) > max(old)  # ids are never reused
    assert index.stats()["vectors"] == index.stats()["chunks"]
    assert index.refresh().indexed == ()  # nothing changed: nothing re-read


class CountingEmbedder(HashingEmbedder):
    def __init__(self):
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return super().embed(texts)


def test_an_edit_embeds_only_the_chunks_and_descriptions_it_changed(make_vault):
    """A long note gets a line appended (as a corroboration does): its unchanged chunks and
    its description keep their vectors; the index equals one built from scratch."""
    sections = "".join(f"## Part {k}\n\n" + f"Step {k} of the runbook says to check the pool. " * 40 + "\n\n"
                       for k in range(4))
    note = "digest/procedure/runbook.md"
    vault = make_vault({note: f"---\nname: runbook\ndescription: The pool runbook\n---\n{sections}"})
    counting = CountingEmbedder()
    with VaultIndex(vault, counting) as ix:
        ix.refresh()
        chunks = ix.stats()["chunks"]
        assert chunks >= 4
        counting.texts.clear()
        with (vault / note).open("a", encoding="utf-8") as fh:
            fh.write("\nderived_from:: [[daily/2026-10-07/pool.md]]\n")
        assert ix.refresh().indexed == (note,)
        assert 1 <= len(counting.texts) < chunks  # the last chunk only; no description
        hits = ix.vector_search("check the pool", limit=chunks)
    shutil.rmtree(vault / ".reme")
    with VaultIndex(vault, HashingEmbedder()) as fresh:
        fresh.refresh()
        again = fresh.vector_search("check the pool", limit=chunks)
    assert [round(score, 5) for _, score in hits] == [round(score, 5) for _, score in again]


def test_delete_leaves_no_rows_and_no_vectors(vault, index):
    before = index.stats()
    gone = chunk_ids(vault, "resource/2026-10-16/rollout-sync.txt")
    assert gone
    (vault / "resource/2026-10-16/rollout-sync.txt").unlink()
    delta = index.refresh()
    assert delta.removed == ("resource/2026-10-16/rollout-sync.txt",) and delta.indexed == ()
    after = index.stats()
    assert after["vectors"] == after["chunks"] == before["chunks"] - len(gone)
    db = sqlite3.connect(vault / ".reme/index.db")
    for table in ("files", "chunks"):
        assert db.execute(f"SELECT count(*) FROM {table} WHERE path LIKE 'resource/%'").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'pgbouncer'").fetchone() == (0,)
    index.close()
    assert faiss.read_index(str(vault / ".reme/vectors.faiss")).ntotal == after["chunks"]


def test_refresh_of_given_paths_only(vault, index):
    (vault / "daily/2026-10-05/deploy.md").write_text("Rolled back.\n", encoding="utf-8")
    (vault / "digest/procedure/meeting.md").unlink()
    delta = index.refresh(paths=["digest/procedure/meeting.md"])
    assert delta.removed == ("digest/procedure/meeting.md",) and delta.indexed == ()
    assert index.refresh().indexed == ("daily/2026-10-05/deploy.md",)


def test_another_embedder_is_refused_and_nothing_is_rebuilt(vault, index):
    """Issue 10 item 3: an index built with one embedder is not silently re-embedded by
    a command that uses another; it says which and how to fix it."""
    index.close()
    on_disk = (vault / ".reme/vectors.faiss").read_bytes()
    with VaultIndex(vault, HashingEmbedder(dim=64)) as ix:
        with pytest.raises(EmbedderMismatchError) as info:
            ix.refresh()
        err = info.value
        assert isinstance(err, RemeError)
        assert (err.stored, err.requested, err.files, err.chunks) == ("hashing-256", "hashing-64", 5, 5)
        message = str(err)
        assert "\n" not in message
        assert "built with the hashing embedder" in message and "would use hashing:64" in message
        assert "`reme-workbench index --embedder hashing:64` to re-embed 5 chunks" in message
        assert "or pass `--embedder hashing`" in message
        with pytest.raises(EmbedderMismatchError):
            ix.vector_search("deploy")  # old vectors are never searched with another model
        # keyword search reads no vectors: it still answers
        assert paths(ix, ix.keyword_search("部门")) == ["digest/procedure/meeting.md"]
        assert ix.stats()["embedder"] == "hashing-256"
    assert (vault / ".reme/vectors.faiss").read_bytes() == on_disk  # untouched
    with VaultIndex(vault, HashingEmbedder()) as ix:  # the right embedder: nothing to redo
        assert ix.refresh().indexed == () and ix.vector_search("pgbouncer")


def test_reembed_mode_rebuilds_with_the_new_embedder_and_says_why(vault, index):
    index.close()
    with VaultIndex(vault, HashingEmbedder(dim=64), on_embedder_change="reembed") as ix:
        with pytest.raises(EmbedderMismatchError):
            ix.vector_search("deploy")  # before the refresh the vectors are the old model's
        delta = ix.refresh()
        assert delta.reembedded_all and len(delta.indexed) == 5
        assert "built with the hashing-256 embedder" in delta.message
        assert "re-embedded all 5 files (5 chunks) with hashing-64" in delta.message
        assert ix.stats()["dim"] == 64 and ix.vector_search("pgbouncer")
        assert not ix.refresh().reembedded_all
    with VaultIndex(vault, HashingEmbedder()) as ix:  # and now the old one is refused
        with pytest.raises(EmbedderMismatchError, match="built with the hashing:64 embedder"):
            ix.refresh()


def test_an_explicit_rebuild_may_switch_the_embedder(vault, index):
    index.close()
    with VaultIndex(vault, HashingEmbedder(dim=64)) as ix:
        delta = ix.refresh(rebuild=True)
        assert delta.reembedded_all and ix.stats()["embedder"] == "hashing-64"


def test_unknown_embedder_change_mode_is_refused(vault):
    with pytest.raises(RemeError, match="error, reembed"):
        VaultIndex(vault, HashingEmbedder(), on_embedder_change="silently")


def test_rebuild_starts_from_scratch(index):
    delta = index.refresh(rebuild=True)
    assert delta.reembedded_all and len(delta.indexed) == 5 and "Rebuilt" in delta.message
    assert index.stats()["chunks"] == index.stats()["vectors"] == delta.chunks


def test_reopen_reads_nothing_again(vault, index):
    index.close()
    with VaultIndex(vault, HashingEmbedder()) as ix:
        assert ix.refresh().indexed == ()
        assert paths(ix, ix.keyword_search("部门")) == ["digest/procedure/meeting.md"]


def test_lagging_or_missing_vectors_file_is_repaired(vault, index):
    """A search never waits for an embedding: a file that lags its database (a deferred
    write) is searched as it is, the lag is counted, and the next refresh completes it."""
    query = "home network router"
    on_disk = faiss.read_index(str(vault / ".reme/vectors.faiss")).ntotal
    (vault / "digest/wiki/extra.md").write_text("A router note.\n", encoding="utf-8")
    index.refresh()  # a small change: vectors.faiss is written at close(), not now
    assert faiss.read_index(str(vault / ".reme/vectors.faiss")).ntotal == on_disk
    with VaultIndex(vault, HashingEmbedder()) as other:  # the file lags its database
        assert "digest/wiki/extra.md" not in paths(other, other.vector_search("router", limit=100))
        assert other.coverage().pending_chunks == 1
        assert other.refresh().indexed == ()  # nothing to re-index, but the lag is embedded
        assert "digest/wiki/extra.md" in paths(other, other.vector_search("router", limit=100))
        assert other.stats()["vectors"] == other.stats()["chunks"] == on_disk + 1
        assert other.coverage().complete
        expected = paths(other, other.vector_search(query))
    index.close()
    (vault / ".reme/vectors.faiss").unlink()
    with VaultIndex(vault, HashingEmbedder()) as ix:
        assert ix.vector_search(query) == [] and ix.coverage().vector_files == 0
        ix.refresh()
        assert paths(ix, ix.vector_search(query)) == expected
        assert ix.stats()["vectors"] == ix.stats()["chunks"]
    assert faiss.read_index(str(vault / ".reme/vectors.faiss")).ntotal == on_disk + 1


def test_a_keyword_only_refresh_answers_by_keyword_and_embeds_later(vault):
    """`refresh(vectors=False)` makes every file findable by keyword at once; its
    vectors wait, counted by `coverage()`, until `embed_pending()` (a batch at a time,
    stoppable) or a refresh with vectors."""
    with VaultIndex(vault, HashingEmbedder()) as ix:
        delta = ix.refresh(vectors=False)
        assert len(delta.indexed) == 5
        cov = ix.coverage()
        assert (cov.files, cov.vector_files, cov.complete) == (5, 0, False)
        assert cov.describe() == "0/5 files"
        assert ix.keyword_search("pgbouncer")  # found at once, by keyword
        assert ix.vector_search("pgbouncer") == []  # no vector yet: nothing waits for one
        asked = []
        assert ix.embed_pending(limit=1, should_stop=lambda: asked.append(1) or False) == 1
        assert ix.coverage().pending_chunks == cov.pending_chunks - 1
        assert ix.embed_pending(should_stop=lambda: True) <= 1  # stopped after one batch
        ix.embed_pending()
        assert ix.coverage().complete and ix.coverage().describe() == "5/5 files"
        assert ix.vector_search("pgbouncer")
        assert ix.description_vectors({"digest/wiki/deploy-window.md": description_text(
            "digest/wiki/deploy-window.md", *_name_and_description(ix, "digest/wiki/deploy-window.md"))})
    with VaultIndex(vault, HashingEmbedder()) as again:  # what it embedded was written
        assert again.coverage().complete


def _name_and_description(ix, path):
    f = ix.file(path)
    return f.name, f.description


def test_damaged_database_is_rebuilt_with_a_warning(vault, index):
    index.close()
    (vault / ".reme/index.db").write_bytes(b"this is not a database" * 100)
    with pytest.warns(RuntimeWarning, match="damaged"):
        ix = VaultIndex(vault, HashingEmbedder())
    with ix:
        assert ix.stats()["files"] == 0
        assert len(ix.refresh().indexed) == 5


def test_empty_index_answers_empty(make_vault):
    root = make_vault({})
    with VaultIndex(root, HashingEmbedder()) as ix:
        assert ix.keyword_search("anything") == [] and ix.vector_search("anything") == []
        assert ix.refresh().indexed == ()
        assert ix.vector_search("anything") == []
        with pytest.raises(RemeError, match="not in the index"):
            ix.chunk(1)


def test_undecodable_text_is_recorded_without_chunks(make_vault):
    root = make_vault({"resource/2026-10-05/latin1.txt": "caf\xe9".encode("latin-1")})
    with VaultIndex(root, HashingEmbedder()) as ix:
        with pytest.warns(RuntimeWarning, match="not UTF-8"):
            delta = ix.refresh()
        assert delta.indexed == ("resource/2026-10-05/latin1.txt",) and delta.chunks == 0
        assert ix.refresh().indexed == ()  # not re-read until it changes


def test_terms_in_most_chunks_are_skipped_in_a_large_index(index, monkeypatch):
    monkeypatch.setattr(keyword, "COMMON_MIN_CHUNKS", 1)
    assert paths(index, index.keyword_search("prod"))  # in 2 of 5 chunks: kept
    for i in range(6):  # now "prod" is in 8 of 11 chunks
        (index.root / f"digest/wiki/filler-{i}.md").write_text("prod prod\n", encoding="utf-8")
    index.refresh()
    # bm25 gives such a term idf ~0, so it is dropped: alone it finds nothing...
    assert index.keyword_search("prod") == []
    # ...and beside an informative term it does not drag in the fillers
    assert paths(index, index.keyword_search("prod pgbouncer")) == [
        "resource/2026-10-16/rollout-sync.txt"
    ]
    monkeypatch.setattr(keyword, "COMMON_MIN_CHUNKS", 1000)  # a small index keeps every term
    assert len(index.keyword_search("prod")) == 8


def test_deleting_reme_rebuilds_the_same_index(vault, index):
    before = [(index.chunk(c).path, round(s, 5)) for c, s in index.vector_search("deploy network")]
    kw = [(index.chunk(c).path, round(s, 5)) for c, s in index.keyword_search("deploy network")]
    index.close()
    shutil.rmtree(vault / ".reme")
    with VaultIndex(vault, HashingEmbedder()) as ix:
        ix.refresh()
        assert [(ix.chunk(c).path, round(s, 5)) for c, s in ix.vector_search("deploy network")] == before
        assert [(ix.chunk(c).path, round(s, 5)) for c, s in ix.keyword_search("deploy network")] == kw


def test_vector_query_drops_words_found_in_most_chunks(tmp_path):
    """A word on every chunk (the owner's name) tells none apart; the vector query
    leaves it out once the index is big enough to judge, keeping stop words."""
    from reme_workbench.index.embeddings import HashingEmbedder
    from reme_workbench.index.store import VaultIndex

    root = tmp_path / "v"
    for i in range(60):
        path = root / "daily" / "2026-10-05" / f"log-{i:02d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        topic = "kayak" if i == 7 else f"topic{i}"
        path.write_text(f"Melanie talked about {topic} today.\n", encoding="utf-8")
    with VaultIndex(root, HashingEmbedder()) as index:
        index.refresh()
        assert index.vector_query("what did Melanie say about the kayak") == "what did say about the kayak"
        # nothing informative left: the query is kept as it is
        assert index.vector_query("Melanie") == "Melanie"
    small = tmp_path / "small"
    (small / "daily").mkdir(parents=True)
    (small / "daily" / "a.md").write_text("Melanie kayak\n", encoding="utf-8")
    with VaultIndex(small, HashingEmbedder()) as index:
        index.refresh()
        assert index.vector_query("Melanie kayak") == "Melanie kayak"  # too small to judge


def test_the_index_reads_notes_only_up_to_the_vaults_size_limit(make_vault):
    from reme_workbench.vault.vault import Vault

    root = make_vault({"digest/wiki/big.md": "---\nname: big\n---\n" + "word " * 600 + "\n",
                       "digest/wiki/small.md": "---\nname: small\n---\nA small note.\n"})
    vault = Vault.open(root, max_note_bytes=1000)  # reme.toml [vault] max_note_bytes
    with VaultIndex(vault.root, HashingEmbedder(), scan=vault.scan) as idx:
        delta = idx.refresh()
    assert "digest/wiki/small.md" in delta.indexed and "digest/wiki/big.md" not in delta.indexed
