"""The `Embedder` interface and the embedders that need no model files.

An embedder turns texts into L2-normalised float32 rows. Its `name` and `dim` are
recorded in the index, so switching models forces a re-embed instead of mixing
vectors from two models.

Building one from a spec ("minilm", "e5", ...) is `factory.get_embedder`: this module
knows no concrete model, so the model modules can import it without a cycle.
"""

from __future__ import annotations

import hashlib
import re
from typing import Protocol, runtime_checkable

import numpy as np

from .specs import AUTO

__all__ = [
    "Embedder", "HashingEmbedder", "normalize_rows", "embed_query", "MAX_QUERY_CHARS", "AUTO",
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

# The spec meaning "the index's own embedder, else the best installed" (factory.auto_spec).


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

