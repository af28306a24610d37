"""Consolidate's face besides its scheduled run (`run.consolidate_vault`): one merge pair
planned, and a stale proposal planned again — what `ops` calls for a person's decision.

* `plan_merge_pairs` — the merge set-up, written once: the `MergeContext` of `settings`
  and `plan_merges` under its `[merge]` section. The merge phase of a run, a pair a person
  decided to merge and a re-plan all go through it.
* `plan_merge_pair` — one pair, outside a run (a person's "merge anyway", a re-plan).
* `replan_proposal` — a stale proposal planned again from the files as they are now: a
  proposal goes stale when a file it would write changed after it was planned, so its
  plan is no longer about the files as they are. The same action runs for the same
  subject, from scratch:

  - `consolidate.merge` — the three votes and the merge of the pair its story names
    (`MergeCandidate.from_json`), as a person's decision when it was one;
  - `consolidate.split` — the note (`split.split_parent`) is queued for split again and
    the queue is run for it alone;
  - `consolidate.abstract` — the gates and the hub of the community that now best
    matches the proposal's members (`abstract.hub_members`).

  The caller has already rejected the stale proposal (each action skips a subject whose
  proposal still waits), and passes a policy that holds everything for a person.

Each phase reads its own story format beside the code that writes it; this module only
says which.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ..config import Settings
from ..errors import RemeError
from ..llm.consolidate import ConsolidateBrain
from ..proposals import Policy
from ..proposals.model import Proposal
from ..vault.vault import Vault
from .candidates import MergeCandidate
from .merge import MergeContext, MergeRun, plan_merges

__all__ = ["REPLANNED_ACTIONS", "plan_merge_pairs", "plan_merge_pair", "replan_proposal"]

REPLANNED_ACTIONS = ("consolidate.merge", "consolidate.split", "consolidate.abstract")


def plan_merge_pairs(vault: Vault, brain: ConsolidateBrain, candidates: Iterable[MergeCandidate],
                     settings: Settings, *, now: datetime, **how: Any) -> MergeRun:
    """Vote on `candidates` and propose their merges under `settings` (`how`: the rest of
    the `MergeContext` — policy, cooldowns, audit, dry_run, decided_by_person)."""
    ctx = MergeContext.from_settings(settings, now=now, **how)
    return plan_merges(vault, brain, list(candidates), settings.merge, ctx)


def plan_merge_pair(vault: Vault, brain: ConsolidateBrain, settings: Settings,
                    candidate: MergeCandidate, *, policy: Policy,
                    decided_by_person: bool = False) -> MergeRun:
    """One pair voted on and, when the votes (or a person) say so, a merge proposal under
    `policy`; `decided_by_person` makes it whatever the votes say (docs/spec.md §7.7.3)."""
    return plan_merge_pairs(vault, brain, [candidate], settings, now=vault.clock(),
                            policy=policy, decided_by_person=decided_by_person)


def replan_proposal(vault: Vault, brain: ConsolidateBrain, settings: Settings,
                    proposal: Proposal, *, policy: Policy) -> list[str]:
    """The ids of the proposals planning `proposal` again made (empty: nothing to
    propose); see the module doc."""
    if proposal.action == "consolidate.merge":
        return _merge(vault, brain, settings, proposal, policy)
    if proposal.action == "consolidate.split":
        return _split(vault, brain, settings, proposal, policy)
    if proposal.action == "consolidate.abstract":
        return _abstract(vault, brain, settings, proposal, policy)
    raise RemeError(f"{proposal.id} is a {proposal.action} proposal, which consolidate cannot "
                    "plan again; run the command that made it again.")


def _merge(vault: Vault, brain, settings: Settings, old: Proposal, policy: Policy) -> list[str]:
    candidate = MergeCandidate.from_json(old.story.get("candidate"), of=old.id)
    run = plan_merge_pair(vault, brain, settings, candidate, policy=policy,
                          decided_by_person=old.story.get("decided_by_person") is True)
    return [p.id for p in run.proposals]


def _split(vault: Vault, brain, settings: Settings, old: Proposal, policy: Policy) -> list[str]:
    from ..vault.note import decode_note_bytes, parse
    from ..vault.split_queue import enqueue_splits
    from ..vault.tokens import content_tokens
    from .split import run_split_queue, split_parent

    path = split_parent(old.story, old.paths)
    current = vault.store.read(path) if path else None
    if current is None:
        raise RemeError(f"The note {old.id} would split ({path}) is gone; nothing to plan again.")
    text = decode_note_bytes(current[0], path, max_bytes=vault.max_note_bytes)
    enqueue_splits(vault.root, [(path, content_tokens(parse(text, path).body))], by="review",
                   now=vault.clock())
    run = run_split_queue(vault, brain, threshold=settings.split.token_threshold,
                          now=vault.clock(), policy=policy, language=settings.llm.language,
                          only=[path])
    return [o.proposal_id for o in run.outcomes if o.path == path and o.proposal_id
            and o.state in ("pending", "applied")]


def _abstract(vault: Vault, brain, settings: Settings, old: Proposal, policy: Policy) -> list[str]:
    from .abstract import hub_members, load_communities, plan_abstracts

    communities, stability, _ = load_communities(vault.root)
    members = hub_members(old.story)
    if not communities or not members:
        raise RemeError("No communities to plan the hub for; run `reme-workbench consolidate "
                        "--only communities --force` first.")
    groups: dict[str, set[str]] = {}
    for path, cid in communities.items():
        groups.setdefault(cid, set()).add(path)
    best = max(groups, key=lambda c: len(groups[c] & members) / len(groups[c] | members))
    run = plan_abstracts(
        vault, brain, settings.abstract,
        communities={p: c for p, c in communities.items() if c == best},
        stability=stability, now=vault.clock(), policy=policy, language=settings.llm.language)
    return [o.proposal_id for o in run.outcomes if o.proposal_id and o.state in ("pending", "applied")]
