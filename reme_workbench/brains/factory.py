"""Build a brain from the `[llm] brain = "..."` setting: read once at the edge
(`ops.Workspace` calls these).

Specs: "offline" (deterministic rules: `brains.offline_dream` for dream,
`brains.offline_consolidate` on the vault's embedder for consolidate; the default) or
"litellm:<model>", e.g. "litellm:openai/gpt-4o-mini",
"litellm:ollama/qwen2.5", "litellm:dashscope/qwen-plus".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..config import Settings, litellm_model
from ..errors import RemeError
from ..llm.base import Brain
from ..llm.cassette import Cassette
from ..llm.ledger import TokenLedger
from .model import LLMBrain

if TYPE_CHECKING:
    from ..index.embeddings import Embedder
    from ..llm.consolidate import ConsolidateBrain

__all__ = ["brain_from_spec", "build_brain", "build_consolidate_brain",
           "offline_consolidate_brain"]


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
    """The brain named by `spec`. The API base and key come from the arguments (the
    workspace reads $REME_LLM_API_BASE / $REME_LLM_API_KEY at the edge), else litellm's
    provider variables (OPENAI_API_KEY, DASHSCOPE_API_KEY, ...). `offline_factory()`
    builds "offline"."""
    text = (spec or "").strip()
    if text == "offline":
        if offline_factory is None:
            raise RemeError(
                "The offline brain is built by build_brain (reme_workbench.brains.factory); "
                "pass its factory as brain_from_spec(..., offline_factory=...), or choose a "
                'model with brain = "litellm:<model>".'
            )
        return offline_factory()
    model = litellm_model(text)
    if model is not None:
        return LLMBrain(
            model,
            api_base=api_base or None,
            api_key=api_key or None,
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


def build_brain(
    settings: Settings,
    *,
    brain_spec: str | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    record: str | None = None,
    replay: str | None = None,
) -> tuple[Brain, TokenLedger | None]:
    """The brain the settings (or the command line) name, with its token ledger.

    A replay cassette needs no model server; a record cassette wraps the real one.
    """
    from .offline_dream import OfflineBrain  # the embedded default: rules, no model

    spec = brain_spec or settings.llm.brain
    if (record or replay) and spec == "offline":
        raise RemeError(
            "--record / --replay capture a model's replies; the offline brain calls no model. "
            "Add --brain litellm:<model> (the one the cassette was recorded with)."
        )
    cassette = Cassette(record, "record") if record else Cassette(replay, "replay") if replay else None
    ledger = None if spec == "offline" else TokenLedger()
    brain = brain_from_spec(
        spec,
        api_base=api_base or settings.llm.api_base,
        api_key=api_key,
        language=settings.llm.language,
        ledger=ledger,
        cassette=cassette,
        offline_factory=lambda: OfflineBrain(language=settings.llm.language),
        single_system=settings.llm.single_system,
    )
    return brain, ledger


def offline_consolidate_brain(embedder: Embedder, settings: Settings) -> ConsolidateBrain:
    """The offline consolidate brain on `embedder` (the vault's: its judges read cosines
    against that embedder's chance level), with what `settings` set: the language, the
    split cut, the hub's budget and pillars."""
    from .offline_consolidate import OfflineConsolidateBrain  # rules, no model

    return OfflineConsolidateBrain(embedder, settings)


def build_consolidate_brain(settings: Settings, *, embedder: Embedder | None = None,
                            brain_spec: str | None = None, replay: str | None = None,
                            record: str | None = None, api_base: str | None = None,
                            api_key: str | None = None) -> ConsolidateBrain:
    """The brain of abstract, merge and split the settings (or the command line) name: a
    model's, or the offline one on `embedder` (which it then needs)."""

    spec = brain_spec or settings.llm.brain
    if spec == "offline":
        if record or replay:
            raise RemeError(
                "--replay answers a model brain from a cassette; the offline brain calls no "
                "model. Add --brain litellm:<model> (the one the cassette was recorded with).")
        if embedder is None:
            raise RemeError("The offline consolidate brain reads cosines of the vault's "
                            "embedder: pass it as build_consolidate_brain(..., embedder=...).")
        return offline_consolidate_brain(embedder, settings)
    cassette = (Cassette(record, "record") if record else
                Cassette(replay, "replay") if replay else None)
    return brain_from_spec(spec, api_base=api_base or settings.llm.api_base, api_key=api_key,
                           language=settings.llm.language,
                           cassette=cassette, single_system=settings.llm.single_system)
