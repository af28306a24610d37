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
from ..vault.lock import RunLock
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
    # Dreams on one vault queue (.reme/dream.lock): two at once would both read the same
    # material and each write its notes. A waiting dream then finds that material dreamt.
    # A dry run writes nothing, so it does not wait.
    lock = None if dry_run else RunLock(vault.root, "dream", doing="dreaming this vault")

    def tell(where: DreamProgress) -> None:
        if lock is not None:  # what a waiting dream shows, and waits on while it changes
            lock.set_status(f"dreaming {where.files_done}/{where.files_total} files, "
                            f"{where.units_done} units")
        if progress is not None:
            progress(where)

    dreamer = Dreamer(
        vault,
        brain,
        index,
        policy=Policy(frozenset(settings.proposals.auto_apply)),
        split_threshold=settings.split.token_threshold,
        traverse_depth=settings.recall.traverse_depth,
        progress=tell,
    )
    if lock is None:
        return dreamer.run(list(targets or []) or None, dry_run=True, force=force)
    with lock:
        return dreamer.run(list(targets or []) or None, dry_run=False, force=force)
