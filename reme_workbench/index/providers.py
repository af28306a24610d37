"""Embeddings from a hosted or local provider through litellm (`litellm:<model>`).

e.g. `litellm:openai/text-embedding-3-small`, `litellm:ollama/nomic-embed-text`, or
`litellm:openai/<name>` with an api_base for any OpenAI-compatible server.
litellm is imported only when the first request is made.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import RemeError
from .embeddings import normalize_rows

__all__ = ["LiteLLMEmbedder"]

_FIX = "check REME_LLM_API_KEY / --api-base and that the model name is right"
_PROBE_TEXT = "dimension probe"


def _import_litellm() -> Any:
    # Without this, importing litellm fetches a model price list over the network.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise RemeError(
            "litellm is not installed; `pip install litellm`, or use the default offline "
            "embedder (`minilm`)."
        ) from None
    litellm.suppress_debug_info = True  # our RemeError says what to do; no banner on stdout
    return litellm


class LiteLLMEmbedder:
    """Vectors from `litellm.embedding`, sent in batches and L2-normalised here (providers
    differ on whether they normalise).

    `dim` may be given; otherwise it is None until the first response sets it.
    `resolve_dim()` (and `embed([])`) send one short probe request when it is still
    unknown. dim is a plain attribute, not a probing property, on purpose: Python 3.11's
    `isinstance(x, Embedder)` reads every protocol attribute, and must not hit the network.
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        dim: int | None = None,
        *,
        batch_size: int = 64,
        timeout: float = 60.0,
    ) -> None:
        if not model or not model.strip():
            raise RemeError("LiteLLMEmbedder needs a model, e.g. 'openai/text-embedding-3-small'.")
        if dim is not None and dim < 1:
            raise RemeError(f"dim must be a positive int, got {dim}.")
        self.model = model.strip()
        self.name = f"litellm:{self.model}"
        self.api_base = api_base
        self._api_key = api_key  # never in repr or messages
        self.dim: int | None = dim
        self.batch_size = max(1, batch_size)
        self.timeout = timeout

    def resolve_dim(self) -> int:
        """The vector size, asking the provider once if it is not known yet."""
        if self.dim is None:
            self._request([_PROBE_TEXT])
        assert self.dim is not None
        return self.dim

    def _scrub(self, text: str) -> str:
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return text

    def _request(self, batch: list[str]) -> np.ndarray:
        litellm = _import_litellm()
        try:
            response = litellm.embedding(
                model=self.model,
                input=batch,
                api_base=self.api_base,
                api_key=self._api_key,
                timeout=self.timeout,
            )
            data = list(response.data)
            # "index" says which input a row belongs to; trust it over list order
            if all(isinstance(d, dict) and "index" in d for d in data):
                data.sort(key=lambda d: d["index"])
            rows = np.asarray([d["embedding"] for d in data], dtype=np.float32)
        except Exception as exc:  # provider, network, auth or malformed-response errors
            detail = self._scrub(f"{type(exc).__name__}: {exc}")
            if len(detail) > 500:
                detail = detail[:500] + "..."
            raise RemeError(f"Embedding with {self.name} failed ({detail}); {_FIX}.") from None
        if rows.ndim != 2 or rows.shape[0] != len(batch) or rows.shape[1] == 0:
            raise RemeError(
                f"{self.name} returned {rows.shape[0] if rows.ndim else 0} vectors of shape "
                f"{rows.shape[1:]} for {len(batch)} texts; {_FIX}."
            )
        if self.dim is None:
            self.dim = int(rows.shape[1])
        elif rows.shape[1] != self.dim:
            raise RemeError(
                f"{self.name} returned {rows.shape[1]}-d vectors but dim={self.dim} was "
                "expected; pass the right dim (or none, to learn it) and re-embed."
            )
        return normalize_rows(rows)

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.resolve_dim()), dtype=np.float32)
        # Some providers reject empty strings; a lone space embeds as "nothing".
        cleaned = [t if t.strip() else " " for t in texts]
        parts = [
            self._request(cleaned[i : i + self.batch_size])
            for i in range(0, len(cleaned), self.batch_size)
        ]
        return np.concatenate(parts, axis=0)

    def __repr__(self) -> str:
        return f"LiteLLMEmbedder(model={self.model!r}, api_base={self.api_base!r})"
