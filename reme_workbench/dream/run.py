"""Compose a dream run from settings: brain, cassette, ledger, policy. Used by the CLI
and the notebooks; the pipeline itself (`Dreamer`) takes everything injected."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..config import Settings
from ..errors import RemeError
from ..index.store import VaultIndex
from ..llm.base import Brain
from ..llm.cassette import Cassette
from ..llm.factory import brain_from_spec
from ..llm.ledger import TokenLedger
from ..proposals import Policy
from ..vault.vault import Vault
from .pipeline import Dreamer, DreamProgress, DreamReport

__all__ = ["build_brain", "dream_vault"]


def build_brain(
    settings: Settings,
    *,
    brain_spec: str | None = None,
    api_base: str | None = None,
    record: str | None = None,
    replay: str | None = None,
) -> tuple[Brain, TokenLedger | None]:
    """The brain the settings (or the command line) name, with its token ledger.

    A replay cassette needs no model server; a record cassette wraps the real one.
    """
    from .offline import OfflineBrain  # the embedded default: rules, no model

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
        language=settings.llm.language,
        ledger=ledger,
        cassette=cassette,
        offline_factory=lambda: OfflineBrain(language=settings.llm.language),
        single_system=settings.llm.single_system,
    )
    return brain, ledger


def dream_vault(
    vault: Vault,
    brain: Brain,
    index: VaultIndex,
    settings: Settings,
    *,
    targets: Iterable[str] | None = None,
    dry_run: bool = False,
    force: bool = False,
    progress: Callable[[DreamProgress], None] | None = None,
) -> DreamReport:
    dreamer = Dreamer(
        vault,
        brain,
        index,
        policy=Policy(frozenset(settings.proposals.auto_apply)),
        split_threshold=settings.split.token_threshold,
        traverse_depth=settings.recall.traverse_depth,
        progress=progress,
    )
    return dreamer.run(list(targets or []) or None, dry_run=dry_run, force=force)
