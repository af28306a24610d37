"""recall(): relative and RRF fusion, per-file aggregation, link traversal, scopes, meta signals, access log."""

from __future__ import annotations

import json
import re
import shutil
import warnings

import pytest

from reme_workbench.errors import RemeError
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.recall import recall, recall_batch
from reme_workbench.index.store import VaultIndex
from reme_workbench.vault.meta import write_meta
from tests.conftest import FIXED_NOW


class SynonymEmbedder:
    """A HashingEmbedder that reads "automobile" as "car": a stand-in for a model that
    knows synonyms, so a note can be found by vector and not by keyword."""

    name = "synonym-hashing-4096"
    dim = 4096

    def __init__(self) -> None:
        self._inner = HashingEmbedder(self.dim)  # wide: no accidental hash collisions

    def embed(self, texts):
        return self._inner.embed([re.sub(r"(?i)automobile", "car", t) for t in texts])


K, V, B = "digest/wiki/fleet.md", "digest/procedure/garage.md", "digest/personal/driving.md"
CARS = {
    K: "---\nname: fleet\ndescription: Vehicles we run.\n---\nOur cars are serviced monthly.\n",
    V: "---\nname: garage\ndescription: Where vehicles park.\n---\nThe automobile lives in bay 3.\n",
    B: "---\nname: driving\ndescription: How I commute.\n---\nI drive a car to work.\n",
    "daily/2026-10-05/shopping.md": "Bought groceries.\n",
}

GRAPH = {
    "digest/wiki/seed.md": (
        "---\nname: seed\ndescription: Crossing rules.\n---\nZebra crossing rules.\n"
        "See [[digest/procedure/hop1-out.md]].\n"
        "derived_from:: [[daily/2026-10-05/log.md]]\n"
    ),
    "digest/procedure/hop1-out.md": "Alpha steps. Next [[digest/wiki/hop2.md]].\n",
    "digest/personal/hop1-in.md": "Beta preference, about [[digest/wiki/seed.md]].\n",
    "digest/wiki/hop2.md": "Gamma fact. More in [[digest/wiki/hop3.md]].\n",
    "digest/wiki/hop3.md": "Delta fact.\n",
    "digest/wiki/sibling.md": "Zeta fact.\nderived_from:: [[daily/2026-10-05/log.md]]\n",
    "digest/wiki/bridge.md": (
        "Eta fact.\nderived_from:: [[daily/2026-10-07/stripes.md]]\n"
        "derived_from:: [[daily/2026-10-08/far.md]]\n"
    ),
    "daily/2026-10-05/log.md": "Epsilon log.\n",
    "daily/2026-10-07/stripes.md": "Saw a zebra today.\n",
    "daily/2026-10-08/far.md": "Theta log.\n",
}


def open_index(root, embedder=None):
    index = VaultIndex(root, embedder or SynonymEmbedder())
    index.refresh()
    return index


@pytest.fixture
def cars(make_vault):
    index = open_index(make_vault(CARS, name="cars"))
    yield index
    index.close()


@pytest.fixture
def graph_index(make_vault):
    index = open_index(make_vault(GRAPH, name="graph"))
    yield index
    index.close()


def ask(index, query, **kw):
    kw.setdefault("log_access", False)
    return {h.path: h for h in recall(index, query, **kw)}


def test_fusion_keeps_keyword_only_and_vector_only_hits(cars):
    hits = recall(cars, "car", log_access=False, fusion="relative")
    found = {h.path: h for h in hits}
    assert set(found) == {K, V, B}
    assert hits[0].path == B  # in both lists beats either list alone
    # RRF by hand from the two candidate lists
    kw = [cars.chunk(c).path for c, _ in cars.keyword_search("car", scope="digest")]
    vec = [cars.chunk(c).path for c, s in cars.vector_search("car", scope="digest") if s > 0]
    assert K in kw and K not in vec and V in vec and V not in kw
    # relative fusion by hand: each list over its best score (a short vector list has
    # floor 0), 0.7 keyword + 0.3 vector, one chunk per file
    kw_s = {cars.chunk(c).path: s for c, s in cars.keyword_search("car", scope="digest")}
    vec_s = {cars.chunk(c).path: s
             for c, s in cars.vector_search("car", scope="digest") if s > 0}
    expected = {
        p: 0.7 * kw_s.get(p, 0.0) / max(kw_s.values())
        + 0.3 * vec_s.get(p, 0.0) / max(vec_s.values())
        for p in found
    }
    assert {p: h.score for p, h in found.items()} == pytest.approx(expected)
    assert all(h.via == "search" for h in hits)
    assert found[V].name == "garage" and found[V].description == "Where vehicles park."


def test_rrf_fusion_by_hand(cars):
    hits = recall(cars, "car", log_access=False)  # weighted RRF is the default
    assert hits == recall(cars, "car", log_access=False, fusion="rrf")
    found = {h.path: h for h in hits}
    assert set(found) == {K, V, B} and hits[0].path == B
    kw = [cars.chunk(c).path for c, _ in cars.keyword_search("car", scope="digest")]
    vec = [cars.chunk(c).path for c, s in cars.vector_search("car", scope="digest") if s > 0]
    expected = {p: 0.0 for p in found}
    for ranked, weight in ((kw, 1.0), (vec, 0.3)):  # the vector list weighs 0.3
        for rank, path in enumerate(ranked, 1):
            expected[path] += weight / (60 + rank)
    assert {p: h.score for p, h in found.items()} == pytest.approx(expected)
    with pytest.raises(RemeError, match="rrf, relative"):
        recall(cars, "car", fusion="sum")


def test_relative_fusion_keeps_the_lead_of_a_clear_keyword_winner():
    # bm25 10 vs 4: a clear winner that the vector list misses; C is second by keyword
    # and first by vector. Rank fusion lets C overtake; relative fusion does not.
    from types import SimpleNamespace

    from reme_workbench.index.recall import CANDIDATES, _Recaller

    a, c = 1, 2
    keyword = [(a, 10.0), (c, 4.0), *[(100 + i, 3.0) for i in range(5)]]
    vector = [(c, 0.60), *[(200 + i, 0.55 - 0.005 * i) for i in range(CANDIDATES - 1)]]
    rel = _Recaller._fuse(SimpleNamespace(fusion="relative"), keyword, vector)
    rrf = _Recaller._fuse(SimpleNamespace(fusion="rrf", rrf_k=60), keyword, vector)
    assert rrf[c] > rrf[a]
    assert rel[a] == pytest.approx(0.7) and rel[c] == pytest.approx(0.7 * 0.4 + 0.3)
    assert rel[a] > rel[c]
    floor = vector[-1][1]  # a full vector list is measured from its 50th cosine
    assert rel[200] == pytest.approx(0.3 * (0.55 - floor) / (0.60 - floor))
    assert rel[vector[-1][0]] == 0.0
    # one list alone: its own normalised score
    alone = _Recaller._fuse(SimpleNamespace(fusion="relative"), keyword, None)
    assert alone[a] == 1.0 and alone[c] == pytest.approx(0.4)


def test_rrf_k_changes_the_scores(cars):
    assert ask(cars, "car", rrf_k=1, fusion="rrf")[B].score > ask(cars, "car", fusion="rrf")[B].score


def test_at_most_two_chunks_per_file(make_vault):
    sections = "\n".join(f"## Part {i}\n\nThe car part {i} " + "filler " * 100 for i in range(4))
    root = make_vault({"digest/wiki/manual.md": f"---\nname: manual\n---\n{sections}\n"})
    with VaultIndex(root, SynonymEmbedder()) as index:
        assert index.refresh().chunks >= 4
        [hit] = recall(index, "car", log_access=False)
    assert len(hit.chunks) == 2
    assert hit.score == pytest.approx(hit.chunks[0].score)  # a file scores its best chunk
    assert hit.chunks[0].score >= hit.chunks[1].score > 0
    assert all(c.text.startswith("## Part") and c.line_start < c.line_end for c in hit.chunks)


def test_traverse_adds_linked_notes_both_ways_depth_two_decayed(graph_index):
    hits = ask(graph_index, "zebra", scope="digest")
    seed = hits["digest/wiki/seed.md"].score
    assert hits["digest/wiki/seed.md"].via == "search"
    assert {p: (h.via, h.score) for p, h in hits.items() if h.via == "link"} == {
        "digest/procedure/hop1-out.md": ("link", pytest.approx(seed * 0.5)),  # outbound
        "digest/personal/hop1-in.md": ("link", pytest.approx(seed * 0.5)),  # inbound
        "digest/wiki/hop2.md": ("link", pytest.approx(seed * 0.25)),  # two hops
    }
    # a link hit shows its opening chunk, marked as not matched
    assert hits["digest/wiki/hop2.md"].chunks[0].text.startswith("Gamma fact.")
    assert hits["digest/wiki/hop2.md"].chunks[0].score == 0.0
    assert "digest/wiki/hop2.md" not in ask(graph_index, "zebra", traverse_depth=1)
    assert set(ask(graph_index, "zebra", traverse_depth=0)) == {"digest/wiki/seed.md"}


def test_scopes_and_provenance_traversal(graph_index):
    digest = ask(graph_index, "zebra", scope="digest")
    assert all(p.startswith("digest/") for p in digest)
    assert "digest/wiki/sibling.md" not in digest  # reachable only through provenance

    sources = ask(graph_index, "zebra", scope="sources")
    log = sources["daily/2026-10-07/stripes.md"].score
    # stripes <- bridge (a digest note, out of scope) -> far: two hops
    assert {p: h.via for p, h in sources.items()} == {
        "daily/2026-10-07/stripes.md": "search", "daily/2026-10-08/far.md": "link",
    }
    assert sources["daily/2026-10-08/far.md"].score == pytest.approx(log * 0.25)

    everything = ask(graph_index, "zebra", scope="all", k=20)
    assert everything["daily/2026-10-05/log.md"].via == "link"  # seed's provenance
    assert everything["digest/wiki/sibling.md"].via == "link"  # seed -> log -> sibling
    assert everything["digest/wiki/bridge.md"].via == "link"


def test_an_unrelated_query_returns_nothing(graph_index, make_vault):
    assert recall(graph_index, "quokka", log_access=False) == []
    assert recall(graph_index, "   ", log_access=False) == []
    with VaultIndex(make_vault({}, name="empty"), HashingEmbedder()) as empty:
        assert recall(empty, "anything", log_access=False) == []


def write(root, name, payload, version=1):
    write_meta(root, name, payload, version=version, now=FIXED_NOW)


def scores(index, query="car", **kw):
    return {p: h.score for p, h in ask(index, query, **kw).items()}


def test_community_boost_only_with_its_file(cars):
    base = scores(cars)
    write(cars.root, "communities", {"communities": {B: "c1", V: "c1", K: "c2"}})
    boosted = scores(cars)
    assert boosted[V] == pytest.approx(base[V] * 1.2)  # same community as the top hit B
    assert boosted[B] == pytest.approx(base[B] * 1.2)
    assert boosted[K] == pytest.approx(base[K])


def test_recency_factor_only_with_its_file(cars):
    base = scores(cars)
    write(cars.root, "recency", {"scores": {B: 0.0, K: 0.5}})
    got = scores(cars)
    assert got[B] == pytest.approx(base[B] * 0.5)
    assert got[K] == pytest.approx(base[K] * 0.75)
    assert got[V] == pytest.approx(base[V])  # no score: factor 1


def test_archived_filter_only_with_its_file(cars):
    assert B in scores(cars)
    write(cars.root, "archived", {"archived": [B]})
    assert set(scores(cars)) == {K, V}
    assert set(scores(cars, include_archived=True)) == {K, V, B}


def test_archived_notes_are_not_traversal_targets(graph_index):
    write(graph_index.root, "archived", {"archived": ["digest/procedure/hop1-out.md"]})
    got = ask(graph_index, "zebra")
    assert "digest/procedure/hop1-out.md" not in got and "digest/wiki/hop2.md" in got


@pytest.mark.parametrize(
    "content, why",
    [("{not json", "not valid JSON"), (json.dumps({"version": 2, "communities": {}}), "version 2"),
     (json.dumps({"version": 1, "groups": {}}), "no valid 'communities'")],
)
def test_a_broken_meta_file_is_ignored_with_a_warning(cars, content, why):
    base = scores(cars)
    (cars.root / "meta/communities.json").write_text(content, encoding="utf-8")
    with pytest.warns(RuntimeWarning, match=why):
        assert scores(cars) == pytest.approx(base)


def test_missing_meta_files_are_silent(cars):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scores(cars)


def test_access_log_lines(cars):
    hits = recall(cars, "car", now=FIXED_NOW, k=2)
    lines = (cars.root / "meta/access_log.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x) for x in lines] == [
        {"ts": "2026-11-02T09:30:00Z", "path": h.path, "event": "recall", "query": "car",
         "rank": i}
        for i, h in enumerate(hits, 1)
    ]
    recall(cars, "car", log_access=False)
    assert len((cars.root / "meta/access_log.jsonl").read_text().splitlines()) == 2


def test_recall_batch_matches_recall(cars):
    queries = [("q1", "car"), ("q2", "automobile parking"), ("q3", "")]
    batch = list(recall_batch(cars, queries, k=2, log_access=False))
    assert [qid for qid, _ in batch] == ["q1", "q2", "q3"]
    for (_, hits), (_, query) in zip(batch, queries, strict=True):
        assert hits == recall(cars, query, k=2, log_access=False)
    with pytest.raises(RemeError, match="digest, sources, all"):
        recall_batch(cars, queries, scope="bad")  # checked before the first query


def test_to_json(cars):
    hit = recall(cars, "car", log_access=False)[0]
    data = hit.to_json()
    assert list(data) == ["path", "score", "name", "description", "via", "chunks"]
    assert data["chunks"][0] == {"text": "I drive a car to work.", "line_start": 5,
                                 "line_end": 5, "score": hit.chunks[0].score}
    json.dumps(data)


def test_deleting_reme_gives_the_same_recall(graph_index):
    root = graph_index.root
    before = [h.to_json() for h in recall(graph_index, "zebra", scope="all", log_access=False)]
    graph_index.close()
    shutil.rmtree(root / ".reme")
    with VaultIndex(root, SynonymEmbedder()) as again:
        again.refresh()
        after = [h.to_json() for h in recall(again, "zebra", scope="all", log_access=False)]
    assert after == before and len(before) > 3
