"""A dream run from settings (the policy, the split threshold, the run lock) with the
brain and index injected (`ops.Workspace` builds them); the pipeline itself (`Dreamer`)
takes everything injected."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..config import Settings
from ..index.store import VaultIndex
from ..llm.base import Brain
from ..proposals import Policy
from ..vault.lock import RunLock
from ..vault.vault import Vault
from .pipeline import Dreamer, DreamProgress, DreamReport

__all__ = ["dream_vault"]


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
