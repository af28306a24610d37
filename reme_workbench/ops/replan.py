"""Planning a stale proposal again, one action at a time (see `review_ops.replan`).

A proposal goes stale when a file it would write changed after it was planned: its
plan is no longer about the files as they are. Planning it again runs the same action
for the same subject, from scratch:

* `dream.*` — Phase 2 for the proposal's unit of its material (`Dreamer.replan`);
* `consolidate.merge` — the three votes and the merge of the same pair;
* `consolidate.split` — the note is queued for split again and the queue is run;
* `consolidate.abstract` — the gates and the hub of the community that now best matches
  the proposal's members.

The caller has already rejected the stale proposal (each action skips a subject whose
proposal still waits), and passes a policy that holds everything for a person.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config import Settings
from ..errors import RemeError
from ..proposals import Policy
from ..proposals.model import Proposal
from ..vault.vault import Vault
from .workspace import Workspace

__all__ = ["replan_proposal"]


def replan_proposal(ws: Workspace, old: Proposal, *, policy: Policy, dream_brain=None,
                    consolidate_brain=None, index=None) -> list[str]:
    """The ids of the proposals planning `old` again made (empty: nothing to propose).
    Brains and index default to the workspace's."""
    vault, settings = ws.open_vault(), ws.settings
    action = old.action
    if action.startswith("dream."):
        if dream_brain is None:
            dream_brain, _ = ws.dream_brain()
        if index is not None:
            return _dream(vault, old, settings, policy, dream_brain, index)
        with ws.index(vault) as own:
            return _dream(vault, old, settings, policy, dream_brain, own)
    if action in ("consolidate.merge", "consolidate.split", "consolidate.abstract"):
        brain = consolidate_brain or ws.consolidate_brain()
        if action == "consolidate.merge":
            return _merge(vault, old, settings, policy, brain)
        if action == "consolidate.split":
            return _split(vault, old, settings, policy, brain)
        return _abstract(vault, old, settings, policy, brain)
    raise RemeError(f"{old.id} is a {action} proposal, which cannot be planned again here; "
                    "run the command that made it again.")


def _dream(vault: Vault, old: Proposal, settings: Settings, policy: Policy, brain, index) -> list[str]:
    from ..dream.pipeline import Dreamer
    from ..llm.schema import MemoryUnit

    material, unit = old.story.get("material"), old.story.get("unit")
    if not isinstance(material, str) or not isinstance(unit, Mapping):
        raise RemeError(f"{old.id} does not say which material and unit it came from; "
                        "dream the material again with `reme-workbench dream`.")
    dreamer = Dreamer(vault, brain, index, policy=policy,
                      split_threshold=settings.split.token_threshold,
                      traverse_depth=settings.recall.traverse_depth)
    outcome = dreamer.replan(material, MemoryUnit.model_validate(dict(unit)))
    if outcome.state == "unchanged":  # the note already holds what the unit says
        return []
    if outcome.proposal_id is None:
        raise RemeError(f"Planning {old.id} again failed: {outcome.message or outcome.state}.")
    return [outcome.proposal_id]


def _merge(vault: Vault, old: Proposal, settings: Settings, policy: Policy, brain) -> list[str]:
    from ..consolidate.candidates import MergeCandidate
    from ..consolidate.merge import MergeContext, plan_merges

    raw = old.story.get("candidate")
    if not isinstance(raw, Mapping):
        raise RemeError(f"{old.id} does not name its pair; run `reme-workbench consolidate "
                        "--only communities,merge --force` to mine the pairs again.")
    fields = ("a", "b", "community", "description_similarity", "body_overlap")
    cand = MergeCandidate(*(raw[k] for k in fields),
                          description_cosine=float(raw.get("description_cosine", 0.0)))
    ctx = MergeContext.from_settings(settings, now=vault.clock(), policy=policy)
    run = plan_merges(vault, brain, [cand], settings.merge, ctx)
    return [p.id for p in run.proposals]


def _split(vault: Vault, old: Proposal, settings: Settings, policy: Policy, brain) -> list[str]:
    from ..consolidate.split import run_split_queue
    from ..vault.note import decode_note_bytes, parse
    from ..vault.split_queue import enqueue_splits
    from ..vault.tokens import content_tokens

    plan = old.story.get("plan")
    path = plan.get("parent", {}).get("path") if isinstance(plan, Mapping) else None
    path = path or next((p for p in old.paths if p.startswith("digest/")), None)
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


def _abstract(vault: Vault, old: Proposal, settings: Settings, policy: Policy, brain) -> list[str]:
    from ..consolidate.abstract import load_communities, plan_abstracts

    communities, stability, _ = load_communities(vault.root)
    members = set(old.story.get("members") or [])
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
