"""Issue 10 item 1: the cost of one large note is bounded, and none of its text is lost.

Behaviour only (timings are in benchmarks/bench_large_notes.py): a note over the
embedding budget gets a bounded sample of vectors, the rest of it stays in the keyword
index, and no chunk, context or embedded text outgrows its bound.
"""

from __future__ import annotations

import random
import sqlite3

import pytest

from reme_workbench.index import chunking
from reme_workbench.index.chunking import (
    EMBED_TOKEN_BUDGET,
    MAX_CHUNK_CHARS,
    MAX_CONTEXT_CHARS,
    chunk_file,
    estimate_tokens,
    plan_file,
)
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.recall import recall
from reme_workbench.index.store import VaultIndex
from reme_workbench.index.vectorcache import CACHE_TABLE

WORDS = ("deploy rollout staging canary payments ledger worker pool config restart health "
         "latency error timeout retry queue batch database migration backup cluster node "
         "alert incident review release build smoke patch branch merge token").split()
NEEDLE = "zanzibarquokka"
LOG = "daily/2026-10-05/log.md"


def daily_log(lines: int, needle_at: int | None = None, seed: int = 1) -> str:
    rng = random.Random(seed)
    out = ["# Log", ""]
    for i in range(lines):
        words = rng.choices(WORDS, k=rng.randint(4, 10))
        if i == needle_at:
            words.append(NEEDLE)
        out.append(f"{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d} INFO " + " ".join(words))
    return "\n".join(out) + "\n"


class CountingEmbedder(HashingEmbedder):
    """Hashing vectors, counting every text it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def embed(self, texts):
        self.texts += len(texts)
        return super().embed(texts)


def chunk_rows(root, path):
    db = sqlite3.connect(root / ".reme/index.db")
    try:
        return db.execute(
            "SELECT id, ordinal, text, context, tokens, embedded FROM chunks WHERE path = ? "
            "ORDER BY ordinal", (path,),
        ).fetchall()
    finally:
        db.close()


@pytest.fixture
def big_log(make_vault):
    # ~300 KB: far over the budget; the needle sits near the end
    return make_vault({LOG: daily_log(6000, needle_at=5900), "digest/wiki/a.md": "A small note.\n"})


def test_a_note_over_the_budget_embeds_a_bounded_sample(big_log):
    embedder = CountingEmbedder()
    with VaultIndex(big_log, embedder) as index:
        delta = index.refresh()
        stats = index.stats()
    assert delta.sampled == (LOG,)
    assert LOG in delta.message and "keyword index" in delta.message
    rows = chunk_rows(big_log, LOG)
    embedded = [r for r in rows if r[5]]
    assert 0 < len(embedded) < len(rows)
    cost = sum(r[4] + estimate_tokens(r[3]) + 1 for r in embedded)
    assert cost <= EMBED_TOKEN_BUDGET
    assert stats["vectors"] == stats["chunks"] - stats["keyword_only_chunks"]
    assert stats["keyword_only_chunks"] == len(rows) - len(embedded)
    # the other chunks were never embedded; the one more text is the digest note's
    # "name: description", which the index embeds on its own for merge candidates
    db = sqlite3.connect(big_log / ".reme/index.db")
    try:
        [(described,)] = db.execute("SELECT COUNT(*) FROM descriptions").fetchall()
    finally:
        db.close()
    assert described == 1
    assert embedder.texts == stats["vectors"] + described


def test_text_beyond_the_budget_is_found_by_keyword_recall(big_log):
    with VaultIndex(big_log, HashingEmbedder()) as index:
        index.refresh()
        [(cid, _)] = index.keyword_search(NEEDLE)
        assert index.chunk(cid).path == LOG
        rows = {r[0]: r for r in chunk_rows(big_log, LOG)}
        assert rows[cid][5] == 0  # a chunk with no vector...
        hits = recall(index, f"what about {NEEDLE}", k=3, scope="sources", log_access=False)
        assert hits[0].path == LOG  # ...still makes its file a recall hit
        vector_ids = {cid for cid, _ in index.vector_search(NEEDLE, limit=10_000)}
        assert vector_ids and all(rows[i][5] for i in vector_ids if i in rows)


def test_a_repaired_vectors_file_embeds_only_the_sample(big_log):
    with VaultIndex(big_log, HashingEmbedder()) as index:
        index.refresh()
        before = index.stats()
    (big_log / ".reme/vectors.faiss").unlink()
    with sqlite3.connect(big_log / ".reme/index.db") as conn:  # else the cache has them all
        conn.execute(f"DELETE FROM {CACHE_TABLE}")
    conn.close()
    embedder = CountingEmbedder()
    with VaultIndex(big_log, embedder) as index:
        assert index.vector_search("deploy canary") == []  # a search never waits for vectors
        assert index.refresh().indexed == ()  # nothing to re-read; the missing file is embedded
        assert index.vector_search("deploy canary")
        assert index.stats()["vectors"] == before["vectors"] < before["chunks"]
    assert embedder.texts == before["vectors"] + 1  # the sample, and the query


def test_editing_a_large_note_replaces_its_keyword_only_chunks(big_log):
    with VaultIndex(big_log, HashingEmbedder()) as index:
        index.refresh()
        (big_log / LOG).write_text(daily_log(6000, needle_at=None, seed=2), encoding="utf-8")
        index.refresh()
        assert index.keyword_search(NEEDLE) == []
        stats = index.stats()
        assert stats["vectors"] == stats["chunks"] - stats["keyword_only_chunks"]
        (big_log / LOG).write_text("Now a short log.\n", encoding="utf-8")
        assert index.refresh().sampled == ()
        assert index.stats()["keyword_only_chunks"] == 0


def test_a_large_file_is_chunked_without_line_windows():
    plan = plan_file(LOG, daily_log(6000))
    assert not plan.windowed and plan.sampled
    starts = [c.line_start for c in plan.chunks]
    ends = [c.line_end for c in plan.chunks]
    assert all(b > a for a, b in zip(ends, starts[1:], strict=False))  # each line once
    # a day's log of normal size keeps its overlapping windows, and all of its vectors
    small = plan_file(LOG, daily_log(60))
    assert small.windowed and not small.sampled
    assert len(small.embedded) == len(small.chunks) > 1
    assert small.chunks == tuple(chunk_file(LOG, daily_log(60)))


def test_the_opening_chunk_of_every_section_is_embedded_first():
    rng = random.Random(3)
    sections = []
    for s in range(20):  # 20 sections of ~600 words: several chunks each
        body = " ".join(" ".join(rng.choices(WORDS, k=12)).capitalize() + "." for _ in range(50))
        sections.append(f"## Section {s}\n\n{body}\n")
    plan = plan_file("digest/wiki/big.md", "\n".join(sections))
    assert plan.sampled
    openers = {c.ordinal for c in plan.chunks if c.text.startswith("## Section")}
    assert len(openers) == 20 and openers <= plan.embedded
    # the rest of the sample is spread over the file, not bunched at its start
    others = sorted(plan.embedded - openers)
    assert others and others[-1] > len(plan.chunks) * 3 // 4


def test_a_windowed_log_over_the_budget_still_embeds_every_line():
    """Line windows overlap, so a day's log of ~30 KB is over the budget three times
    over; the windows that hold each line once are embedded before the overlaps (a
    sample spread over all windows left 51 of these 450 lines with no vector)."""
    text = daily_log(450)
    plan = plan_file(LOG, text)
    assert plan.windowed and plan.sampled
    embedded = [plan.chunks[i] for i in sorted(plan.embedded)]
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip() and not line.startswith("#"):
            assert any(c.line_start <= number <= c.line_end for c in embedded), line


def test_a_normal_note_is_embedded_whole():
    rng = random.Random(4)
    text = "\n\n".join(" ".join(rng.choices(WORDS, k=80)) for _ in range(40))  # ~25 KB
    plan = plan_file("digest/wiki/normal.md", text)
    assert plan.windowed and plan.embedded == frozenset(range(len(plan.chunks)))


def test_one_5mb_line_is_cut_into_bounded_pieces_and_nothing_is_lost():
    rng = random.Random(5)
    words = rng.choices(WORDS, k=720_000)
    line = " ".join(words)
    assert len(line) > 5_000_000
    chunks = chunk_file(LOG, line + "\n")
    assert all(0 < c.tokens <= 256 and len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert all(c.line_start == c.line_end == 1 for c in chunks)
    assert len(chunks) < len(line) // 1000  # large pieces, not one per word
    assert [w for c in chunks for w in c.text.split()] == words


@pytest.mark.parametrize(
    "text",
    [
        "部署失败网络设置" * 300_000,  # 2.4M CJK characters, no punctuation
        ("x" * 3000 + " ") * 1000,  # 3 MB of long "words"
        "a" + " " * 100_000 + "b",  # whitespace is free for the estimator, not for a chunk
        "\n".join("a" + " " * 5000 + "b" for _ in range(300)),  # the same, over many lines
    ],
    ids=["cjk-run", "long-words", "space-run", "space-runs-on-lines"],
)
def test_no_chunk_outgrows_its_character_bound(text):
    chunks = chunk_file(LOG, text)
    assert chunks
    assert all(0 < c.tokens <= 256 and len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    if "\n" not in text:  # one line: its parts, in order, are all of it
        assert "".join("".join(c.text.split()) for c in chunks) == "".join(text.split())


def test_a_huge_heading_or_description_does_not_bloat_every_context():
    text = (f"---\nname: big\ndescription: {'long description ' * 10_000}\n---\n"
            f"# {'title ' * 100_000}\n\n" + "\n\n".join(f"Paragraph {i}." for i in range(50)))
    chunks = chunk_file("digest/wiki/big.md", text, max_tokens=32)
    assert len(chunks) > 2
    assert all(len(c.context) <= MAX_CONTEXT_CHARS and len(c.text) <= MAX_CHUNK_CHARS
               for c in chunks)
    assert chunks[-1].context.startswith("big — long description")


def test_a_5mib_note_is_indexed_with_a_bounded_sample(make_vault):
    text = daily_log(80_000, needle_at=75_000)
    assert 5_000_000 < len(text.encode()) <= 5 * 1024 * 1024  # the largest note accepted
    root = make_vault({LOG: text})
    embedder = CountingEmbedder()
    with VaultIndex(root, embedder) as index:
        delta = index.refresh()
        assert delta.sampled == (LOG,)
        assert index.chunk(index.keyword_search(NEEDLE)[0][0]).path == LOG
        stats = index.stats()
    # the sample is bounded by the budget, whatever the note's size
    assert embedder.texts == stats["vectors"] <= EMBED_TOKEN_BUDGET // 8
    assert stats["chunks"] < len(text) // 500  # no line windows: each line indexed once


def test_the_budget_is_read_when_a_file_is_planned(monkeypatch):
    monkeypatch.setattr(chunking, "EMBED_TOKEN_BUDGET", 100)
    plan = plan_file(LOG, daily_log(60))
    assert plan.sampled and sum(plan.chunks[i].tokens for i in plan.embedded) <= 100
