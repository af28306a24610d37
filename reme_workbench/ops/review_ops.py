"""What a person reads and decides in the workbench, as operations.

The review screens (`reme_workbench.widgets`) call these and nothing below them. The
read models — a proposal's story sections and diffs, the communities with their gates,
merge reviews, uncertain duplicates, the archive — come from `reme_workbench.review`;
the decisions are here, once: accept (with a person's edits), reject, revert and batch
accept go through the same operations as the CLI, HTTP and MCP (`accept_proposal`,
`reject_proposal`, `revert_proposal`), so one set of checks holds everywhere; re-planning a
stale proposal, thawing an archived note and the three routes of an uncertain duplicate
take their brains, embedder and index from the `Workspace`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import RemeError
from ..review.archive import THAW_EVENT, ArchiveOverview
from ..review.archive import archive_overview as _archive_overview
from ..review.communities import CommunitiesOverview, CommunityView, Drawing
from ..review.communities import communities_overview as _communities_overview
from ..review.communities import community_drawing as _community_drawing
from ..review.merges import MergeReview
from ..review.merges import merge_reviews as _merge_reviews
from ..review.proposals import (
    FileDiff,
    ReviewFilter,
    Section,
    bucket_of,
    checks_of,
    file_diffs,
    material_of,
    story_sections,
    tokens_of,
)
from ..review.uncertain import UncertainEntry
from ..review.uncertain import uncertain_entries as _uncertain_entries
from ..vault.layout import BUCKETS
from .models import AcceptRequest, ProposalRef, RejectRequest
from .operations import accept_proposal, reject_proposal, replan_stale
from .vault_ops import revert_proposal
from .workspace import Workspace

__all__ = [
    "Decision", "decide", "accept_many", "replan", "thaw", "merge_anyway", "keep_both",
    "hand_to_dream", "proposals", "load_proposal", "communities_overview", "community_drawing",
    "archive_overview", "merge_reviews", "uncertain_entries", "workspace_of", "writes_text",
    # the read models and their helpers, for the screens
    "ArchiveOverview", "CommunitiesOverview", "CommunityView", "Drawing", "MergeReview",
    "UncertainEntry", "FileDiff", "ReviewFilter", "Section", "bucket_of", "checks_of",
    "file_diffs", "material_of", "story_sections", "tokens_of", "BUCKETS", "THAW_EVENT",
]


def workspace_of(where) -> Workspace:
    """A workspace given a `Workspace`, an open `Vault` (its scan and clock are kept) or a
    vault's path: the screens and these operations take any of the three."""
    if isinstance(where, Workspace):
        return where
    if hasattr(where, "scan") and hasattr(where, "root"):  # an open Vault
        return Workspace.from_environment(where.root, vault=where, clock=where.clock)
    ws = Workspace.from_environment(Path(where))
    ws.keep_vault()
    return ws


# -- reading -----------------------------------------------------------------------------------

def proposals(ws: Workspace, state: str | None = None) -> list:
    """Every proposal (or those in `state`), oldest first, as the review models read them."""
    ws = workspace_of(ws)
    from ..proposals import ProposalQueue

    return ProposalQueue(ws.open_vault()).list(state)


def load_proposal(ws: Workspace, proposal_id: str):
    ws = workspace_of(ws)
    from ..proposals import ProposalQueue

    queue = ProposalQueue(ws.open_vault())
    return queue.load(queue.resolve(proposal_id))


def writes_text(proposal) -> dict[str, str]:
    """{path: the text it would write} for each file a proposal creates or edits (what a
    person may edit before accepting)."""
    from ..vault.store import Delete

    return {op.path: op.content.decode("utf-8", errors="replace")
            for op in proposal.ops if not isinstance(op, Delete)}


def communities_overview(ws: Workspace) -> CommunitiesOverview:
    ws = workspace_of(ws)
    return _communities_overview(ws.open_vault(), ws.settings)


def community_drawing(ws: Workspace, view: CommunityView, *, seed: int = 42) -> Drawing:
    ws = workspace_of(ws)
    return _community_drawing(ws.open_vault(), view, seed=seed)


def archive_overview(ws: Workspace) -> ArchiveOverview:
    ws = workspace_of(ws)
    return _archive_overview(ws.open_vault(), default_threshold=ws.settings.archive.threshold)


def merge_reviews(ws: Workspace, *, state: str | None = "pending") -> list[MergeReview]:
    ws = workspace_of(ws)
    return _merge_reviews(ws.open_vault(), state=state)


def uncertain_entries(ws: Workspace, *, include_decided: bool = False) -> list[UncertainEntry]:
    ws = workspace_of(ws)
    return _uncertain_entries(ws.open_vault(), include_decided=include_decided)


# -- deciding ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Decision:
    """What became of one proposal a person decided on: `state` is its state now
    (applied, rejected, stale, pending), `message` one line saying what happened and,
    when it did not apply, what to do."""

    proposal_id: str
    state: str
    message: str
    new_ids: tuple[str, ...] = ()  # a re-plan's new proposals
    note: str | None = None  # what else happened: the person's edits carried, or where kept

    @property
    def ok(self) -> bool:
        return self.state in ("applied", "rejected", "reverted") or bool(self.new_ids)


def _outcome(done, verb: str) -> Decision:
    if done.state == "applied" and done.note:  # applied already, by another accept
        return Decision(done.id, "applied", done.note, note=done.note)
    if done.state == "applied":
        return Decision(done.id, "applied", f"{done.id} {verb}: {done.summary}")
    if done.replanned_as:  # planned again: the new proposal waits
        return Decision(done.id, done.state, f"{done.id} {done.error}", tuple(done.replanned_as),
                        note=done.note)
    if done.state == "stale":
        return Decision(done.id, "stale", f"{done.id} is stale — {done.error} Re-plan it to "
                        "plan it again from the files as they are now.")
    if done.state == "rejected":
        return Decision(done.id, "rejected", f"{done.id} was refused by its checks: {done.error}")
    return Decision(done.id, done.state, f"{done.id} is {done.state}.")


def decide(ws: Workspace, proposal_id: str, decision: str, *,
           edited: Mapping[str, str] | None = None, reason: str = "") -> Decision:
    """`decision` is "accept" (with `edited`: {path: new text} — the person's version of
    some files, judged by the same checks before it applies), "reject" or "revert"; each
    through the operation every client calls."""
    ws = workspace_of(ws)
    if decision == "accept":
        done = accept_proposal(ws, AcceptRequest(id=proposal_id, edited=dict(edited) if edited else None))
        return _outcome(done, "edited and applied" if edited else "applied")
    if decision == "reject":
        done = reject_proposal(ws, RejectRequest(
            id=proposal_id, reason=reason or "rejected by a person in the workbench"))
        return Decision(done.id, "rejected", f"{done.id} rejected: {done.summary}")
    if decision == "revert":
        done = revert_proposal(ws, ProposalRef(id=proposal_id))
        return Decision(done.id, "reverted", f"{done.id} reverted: {done.summary}")
    raise RemeError(f"Unknown decision {decision!r}; use 'accept', 'reject' or 'revert'.")


def accept_many(ws: Workspace, proposal_ids: Sequence[str]) -> list[Decision]:
    """Accept each in turn (a batch of a filtered selection); one that cannot apply is
    reported and the rest go on."""
    ws = workspace_of(ws)
    out = []
    for pid in proposal_ids:
        try:
            out.append(decide(ws, pid, "accept"))
        except RemeError as exc:
            out.append(Decision(pid, "error", str(exc)))
    return out


def replan(ws: Workspace, proposal_id: str) -> Decision:
    """Plan a stale proposal again from the files as they are now (`operations.replan_stale`:
    dream proposals re-run Phase 2 for their unit; merge, split and hub proposals re-run
    that one action); the new proposal waits for the person and the stale one is rejected
    as superseded, a person's edits kept in it carried when they can be. The brains and
    the index are the workspace's (a test hands its own to `Workspace`)."""
    ws = workspace_of(ws)
    done = replan_stale(ws, proposal_id)
    return Decision(done.old_id, "rejected", done.message, done.new_ids, note=done.note)


def thaw(ws: Workspace, path: str, *, now: datetime | None = None) -> ArchiveOverview:
    """Take `path` out of the archive now (docs/spec.md §7.3.6, `consolidate.archive.thaw`):
    its recency starts again and recall finds it at once. No note is moved or edited.
    Returns the new overview."""
    ws = workspace_of(ws)
    from ..consolidate.archive import thaw as thaw_note

    if path not in archive_overview(ws).archived:
        raise RemeError(f"{path} is not archived (meta/archived.json does not list it, or it "
                        "was used since the batch); nothing to thaw.")
    vault = ws.open_vault()
    thaw_note(vault.root, path, now or vault.clock())
    return archive_overview(ws)


# -- the three routes of an uncertain duplicate (docs/spec.md §7.7.3) ---------------------------

def merge_anyway(ws: Workspace, entry: UncertainEntry) -> list[str]:
    """A `consolidate.merge` proposal for the pair as a person's decision: the three votes
    are asked and recorded as always, the proposal is made whatever they say, and it
    waits for the person; returns its id (the reason raised when the notes cannot be
    merged)."""
    ws = workspace_of(ws)
    from ..consolidate.candidates import MergeCandidate
    from ..consolidate.decisions import record_decision
    from ..consolidate.planning import plan_merge_pair
    from ..proposals import Policy

    vault = ws.open_vault()
    a, b = sorted((entry.a, entry.b))
    pair = MergeCandidate(a, b, entry.community or "?", entry.description_similarity,
                          entry.body_overlap)
    run = plan_merge_pair(vault, ws.get_consolidate_brain(), ws.settings, pair,
                          policy=Policy.hold_everything(), decided_by_person=True)
    if not run.proposals:
        why = "; ".join(p.reason for p in (*run.skipped, *run.rejected)) or "nothing to merge"
        raise RemeError(f"{a} and {b} cannot be merged: {why}. Merge them by hand or keep both.")
    ids = [p.id for p in run.proposals]
    record_decision(vault.root, a, b, "merge", now=vault.clock(), proposal=ids[0])
    return ids


def keep_both(ws: Workspace, entry: UncertainEntry):
    """Record in meta/merge_decisions.json that the two notes are distinct: the pair is not
    reported or voted on again while both are unchanged."""
    ws = workspace_of(ws)
    from ..consolidate.decisions import record_decision

    vault = ws.open_vault()
    return record_decision(vault.root, entry.a, entry.b, "keep_both", now=vault.clock())


def hand_to_dream(ws: Workspace, entry: UncertainEntry, *, into: str) -> str:
    """A `dream.refine` proposal of `into` (one of the pair) that lists the other note as an
    instance of it, waiting for the person (`consolidate.decisions.hand_to_dream`);
    returns its id."""
    ws = workspace_of(ws)
    from ..consolidate.decisions import hand_to_dream as instance_update

    return instance_update(ws.open_vault(), entry.a, entry.b, into, report=entry.report,
                           votes=[v.__dict__ for v in entry.votes])
