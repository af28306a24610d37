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

A person's edits given with `accept` are kept in the stale proposal (its ops, and its
story's `edited_by_person`). `carry_person_edits` takes them into the new plan when it
creates a note in their place — the person's text becomes the new create's content, its
`name` following the slug if the slug changed, checked by the new plan's checks when it
is accepted — and otherwise says why not and where they are kept (docs/spec.md §3.2.5).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import replace

from ..config import Settings
from ..errors import NoteError, RemeError
from ..proposals import Policy, ProposalQueue
from ..proposals.model import Proposal, op_kind
from ..vault.frontmatter import find_frontmatter
from ..vault.note import parse, render
from ..vault.store import Create, Delete
from ..vault.vault import Vault
from .workspace import Workspace

__all__ = ["replan_proposal", "person_edits", "carry_person_edits"]


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


# -- a person's edits, carried into the new plan ----------------------------------------------

def person_edits(proposal: Proposal) -> dict[str, bytes]:
    """{path: the person's text} for each file a person edited when accepting `proposal`
    (its story's `edited_by_person`; the text is the op's content, stored with it)."""
    edited = set(proposal.story.get("edited_by_person") or ())
    return {op.path: op.content for op in proposal.ops
            if op.path in edited and not isinstance(op, Delete)}


def carry_person_edits(queue: ProposalQueue, old: Proposal, new_ids: list[str]) -> str | None:
    """Take the person's edits kept in `old` into the proposal planning it again, when that
    proposal creates one note where `old` created the one the person edited: its content
    becomes the person's text, re-targeted to the new path. Returns what became of the
    edits, for the person (None when `old` carries none); edits that cannot be carried
    stay in `old` and the answer says so."""
    edits = person_edits(old)
    if not edits:
        return None
    kept = (f"they are kept in {old.id} (`reme-workbench proposals show {old.id}` shows your "
            "text as its diff)")
    created = {op.path for op in old.ops if isinstance(op, Create)}
    new = [queue.load(pid) for pid in new_ids]
    said: list[str] = []
    for path, text in sorted(edits.items()):
        if path not in created:  # made to a note as it was: it changed since
            said.append(f"your edits to {path} were not carried: they were made to the note as "
                        f"it was when planned, and it changed since; {kept}")
            continue
        if len(new) != 1 or [op_kind(op) for op in new[0].ops] != ["create"]:
            now = "; ".join(f"{p.id} {', '.join(f'{op_kind(op)}s {op.path}' for op in p.ops)}"
                            for p in new) or "it proposed nothing"
            said.append(f"your edits to {path} were not carried: planning it again {now}, "
                        f"which text written for a new note at {path} cannot become; {kept}. "
                        "Add them by hand to the note that is there now")
            continue
        proposal = new[0]
        (op,) = proposal.ops
        content = _retargeted(text, path, op.path)
        story = {**proposal.story, "edited_by_person": [op.path],
                 "edits_carried_from": {"proposal": old.id, "path": path}}
        queue.save(replace(proposal, ops=(Create(op.path, content),), story=story))
        moved = "" if op.path == path else f" (re-targeted to {op.path}: {path} was taken)"
        said.append(f"your edits to {path} are carried into {proposal.id}{moved}; its checks "
                    "run on them when you accept it")
    return "; ".join(said) + "."


def _retargeted(text: bytes, old_path: str, new_path: str) -> bytes:
    """The person's text for `old_path` as the note at `new_path`: its frontmatter `name`
    follows the file name (the `name` line alone is rewritten where it names the old
    one, so the rest of their frontmatter stays as they wrote it)."""
    if old_path == new_path:
        return text
    old_stem = posixpath.basename(old_path).removesuffix(".md")
    new_stem = posixpath.basename(new_path).removesuffix(".md")
    try:
        source = text.decode("utf-8")
        span = find_frontmatter(source)
        if span is not None:
            name = re.compile(rf"^name:[ \t]*([\'\"]?){re.escape(old_stem)}\1[ \t]*(?=\r?$)",
                              re.MULTILINE)
            block, found = name.subn(f"name: {new_stem}", source[:span.end], count=1)
            if found and parse(block + source[span.end:], new_path).name == new_stem:
                return (block + source[span.end:]).encode("utf-8")
        return render(parse(source, new_path).with_name_synced()).encode("utf-8")
    except (UnicodeDecodeError, NoteError):
        return text  # the checks say what is wrong with it when it is accepted
