"""Build a brain from the `[llm] brain = "..."` setting: read once at the edge.

Specs: "offline" (deterministic rules; the dream module provides that brain and passes
its factory in) or "litellm:<model>", e.g. "litellm:openai/gpt-4o-mini",
"litellm:ollama/qwen2.5", "litellm:dashscope/qwen-plus".
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..errors import RemeError
from .base import Brain
from .cassette import Cassette
from .ledger import TokenLedger
from .litellm_brain import LLMBrain

__all__ = ["brain_from_spec", "API_BASE_ENV", "API_KEY_ENV"]

API_BASE_ENV = "REME_LLM_API_BASE"
API_KEY_ENV = "REME_LLM_API_KEY"


def brain_from_spec(
    spec: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    language: str = "auto",
    ledger: TokenLedger | None = None,
    cassette: Cassette | None = None,
    offline_factory: Callable[[], Brain] | None = None,
    single_system: bool = False,
) -> Brain:
    """The brain named by `spec`. The API base and key come from the arguments, else
    $REME_LLM_API_BASE / $REME_LLM_API_KEY, else litellm's provider variables
    (OPENAI_API_KEY, DASHSCOPE_API_KEY, ...). `offline_factory()` builds "offline"."""
    text = (spec or "").strip()
    if text == "offline":
        if offline_factory is None:
            raise RemeError(
                "The offline brain is provided by the dream module (reme_workbench.dream); "
                "pass its factory as brain_from_spec(..., offline_factory=...), or choose a "
                'model with brain = "litellm:<model>".'
            )
        return offline_factory()
    prefix, _, model = text.partition(":")
    if prefix == "litellm" and model.strip():
        return LLMBrain(
            model.strip(),
            api_base=api_base or os.environ.get(API_BASE_ENV) or None,
            api_key=api_key or os.environ.get(API_KEY_ENV) or None,
            language=language,
            ledger=ledger,
            cassette=cassette,
            single_system=single_system,
        )
    shown = text if len(text) <= 60 else text[:57] + "..."
    raise RemeError(
        f'Unknown brain {shown!r}; use "offline" or "litellm:<model>", for example '
        '"litellm:openai/gpt-4o-mini", "litellm:ollama/qwen2.5" or '
        '"litellm:dashscope/qwen-plus".'
    )
