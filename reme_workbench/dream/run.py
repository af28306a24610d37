"""Dream's face: a dream run from settings (the policy, the split threshold, the run
lock), and one unit of a stale proposal planned again, with the brain and index injected
(`ops.Workspace` builds them); the pipeline itself (`Dreamer`) takes everything injected.

* `dream_vault` — dream material into notes;
* `replan_unit` — Phase 2 once more for the unit a stale `dream.*` proposal planned
  (its story names it: `UnitOrigin`), against the vault as it is now.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..config import Settings
from ..errors import RemeError
from ..index.store import VaultIndex
from ..llm.base import Brain
from ..proposals import Policy
from ..proposals.model import Proposal
from ..vault.lock import RunLock
from ..vault.vault import Vault
from .pipeline import Dreamer, DreamProgress, DreamReport, UnitOrigin

__all__ = ["dream_vault", "replan_unit"]


def _dreamer(vault: Vault, brain: Brain, index: VaultIndex, settings: Settings, policy: Policy,
             progress: Callable[[DreamProgress], None] | None = None) -> Dreamer:
    return Dreamer(vault, brain, index, policy=policy,
                   split_threshold=settings.split.token_threshold,
                   traverse_depth=settings.recall.traverse_depth, progress=progress)


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

    dreamer = _dreamer(vault, brain, index, settings,
                       Policy(frozenset(settings.proposals.auto_apply)), progress=tell)
    if lock is None:
        return dreamer.run(list(targets or []) or None, dry_run=True, force=force)
    with lock:
        return dreamer.run(list(targets or []) or None, dry_run=False, force=force)


def replan_unit(vault: Vault, brain: Brain, index: VaultIndex, settings: Settings,
                proposal: Proposal, *, policy: Policy) -> list[str]:
    """The ids of the proposals planning `proposal`'s unit again made, under `policy`
    (empty: the note already holds what the unit says). The caller has rejected the stale
    proposal first."""
    origin = UnitOrigin.from_json(proposal.story, of=proposal.id)
    outcome = _dreamer(vault, brain, index, settings, policy).replan(origin.material, origin.unit)
    if outcome.state == "unchanged":  # the note already holds what the unit says
        return []
    if outcome.proposal_id is None:
        raise RemeError(f"Planning {proposal.id} again failed: {outcome.message or outcome.state}.")
    return [outcome.proposal_id]
