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
from ..review.uncertain import INSTANCES_LABEL, UncertainEntry
from ..review.uncertain import uncertain_entries as _uncertain_entries
from ..vault.layout import BUCKETS
from .models import AcceptRequest, ProposalRef, RejectRequest
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
    from .operations import accept_proposal, reject_proposal
    from .vault_ops import revert_proposal

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


def replan(ws: Workspace, proposal_id: str, *, dream_brain=None, consolidate_brain=None,
           index=None) -> Decision:
    """Plan a stale proposal again from the files as they are now; the new proposal waits
    for the person (whatever `[proposals] auto_apply` says) and the stale one is
    rejected as superseded. Dream proposals re-run Phase 2 for their unit; merge, split
    and hub proposals re-run that one action. Brains and index default to the
    workspace's (the offline brains on the vault's embedder).

    A person's edits kept in the stale proposal (given with `accept`) are carried into the
    new one when it creates the note they wrote, else `note` says why not and where they
    are kept (`replan.carry_person_edits`)."""
    ws = workspace_of(ws)
    from ..proposals import Policy, ProposalQueue
    from .replan import carry_person_edits, replan_proposal

    vault = ws.open_vault()
    queue = ProposalQueue(vault)
    old = queue.load(queue.resolve(proposal_id))
    if old.state != "stale":
        raise RemeError(f"{old.id} is {old.state}; only a stale proposal is planned again "
                        "(accept or reject a pending one).")
    # every action skips a subject whose proposal still waits: the stale one goes first;
    # only while still stale (another process may have planned it again meanwhile)
    queue.reject(old.id, "superseded: planned again from the files as they are now",
                 only_if=("stale",))
    new = replan_proposal(ws, old, policy=Policy.hold_everything(), dream_brain=dream_brain,
                          consolidate_brain=consolidate_brain, index=index)
    note = carry_person_edits(queue, old, new)
    told = f" {note[0].upper()}{note[1:]}" if note else ""
    if not new:
        return Decision(old.id, "rejected", f"{old.id} rejected: planning it again proposed "
                        "nothing (the change is no longer needed, or its gates no longer "
                        f"pass).{told}", note=note)
    return Decision(old.id, "rejected", f"{old.id} planned again as {', '.join(new)}; "
                    f"review the new proposal.{told}", tuple(new), note=note)


def thaw(ws: Workspace, path: str, *, now: datetime | None = None) -> ArchiveOverview:
    """Take `path` out of the archive now (docs/spec.md §7.3.6): an access-log `thaw` event
    (its recency starts again; recall counts it as a touch since the batch and finds the
    note at once, and the next batch keeps it out) and the note taken off
    meta/archived.json. The archived file keeps its batch time and log offset. No note is
    moved or edited. Returns the new overview."""
    ws = workspace_of(ws)
    from ..consolidate.archive import ARCHIVED_META, META_VERSION
    from ..vault.meta import log_access, parse_utc, read_meta, write_meta

    vault = ws.open_vault()
    read = read_meta(vault.root, ARCHIVED_META, version=META_VERSION)
    doc = read.data or {}
    listed = [p for p in doc.get("archived") or [] if isinstance(p, str)]
    if path not in archive_overview(ws).archived:
        raise RemeError(f"{path} is not archived (meta/archived.json does not list it, or it "
                        "was used since the batch); nothing to thaw.")
    when = now or vault.clock()
    log_access(vault.root, path, when, THAW_EVENT)
    batch = parse_utc(doc.get("computed_at")) or when
    kept = {k: v for k, v in doc.items() if k not in ("archived", "threshold")}
    write_meta(vault.root, ARCHIVED_META,
               {**kept, "archived": [p for p in listed if p != path],
                "threshold": doc.get("threshold", 0.15)},
               version=META_VERSION, now=batch)
    return archive_overview(ws)


# -- the three routes of an uncertain duplicate (docs/spec.md §7.7.3) ---------------------------

def merge_anyway(ws: Workspace, entry: UncertainEntry, *, brain=None) -> list[str]:
    """A `consolidate.merge` proposal for the pair as a person's decision: the three votes
    are asked and recorded as always, the proposal is made whatever they say, and it
    waits for the person; returns its id (the reason raised when the notes cannot be
    merged)."""
    ws = workspace_of(ws)
    from ..consolidate.candidates import MergeCandidate
    from ..consolidate.decisions import record_decision
    from ..consolidate.merge import MergeContext, plan_merges
    from ..proposals import Policy

    vault, settings = ws.open_vault(), ws.settings
    brain = brain or ws.consolidate_brain()
    a, b = sorted((entry.a, entry.b))
    cand = MergeCandidate(a, b, entry.community or "?", entry.description_similarity,
                          entry.body_overlap)
    ctx = MergeContext.from_settings(settings, now=vault.clock(),
                                     policy=Policy.hold_everything(), decided_by_person=True)
    run = plan_merges(vault, brain, [cand], settings.merge, ctx)
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
    instance of it, under `**Instances:**` (both notes stay; every old link of `into`
    stays, as E-1 demands), waiting for the person, with the stored checks
    `keeps_outbound` (E-1), `only_paths`, `no_sources_written` and `links_resolve` (every
    link of the note, old ones included, must name an existing file by its vault path);
    returns its id."""
    ws = workspace_of(ws)
    from ..consolidate.decisions import record_decision
    from ..proposals import ProposalQueue
    from ..vault.checks import CheckSpec
    from ..vault.links import format_link, outbound_keys, parse_links
    from ..vault.note import decode_note_bytes, parse, render
    from ..vault.store import Edit

    if into not in entry.pair:
        raise RemeError(f"{into} is not one of the pair ({entry.a}, {entry.b}).")
    vault = ws.open_vault()
    other = entry.b if into == entry.a else entry.a
    current = vault.store.read(into)
    if current is None:
        raise RemeError(f"{into} is gone; there is nothing to update.")
    text = decode_note_bytes(current[0], into, max_bytes=vault.max_note_bytes)
    note = parse(text, into)
    if any(lk.target == other for lk in parse_links(note.body)):
        raise RemeError(f"{into} already links {other}; open both notes and edit them by hand.")
    other_note = vault.scan.records.get(other)
    name = other_note.name if other_note and other_note.name else Path(other).stem
    description = (other_note.description or "").strip() if other_note else ""
    bullet = f"- {format_link(other, alias=name)}" + (f" — {description}" if description else "")
    body = note.body.rstrip("\n")
    if INSTANCES_LABEL in body:  # add to the list this route made before
        head, _, tail = body.partition(INSTANCES_LABEL)
        block, sep, rest = tail.partition("\n\n")
        body = f"{head}{INSTANCES_LABEL}{block}\n{bullet}{sep}{rest}"
    else:
        body, prov = _before_provenance(body)
        body = f"{body}\n\n{INSTANCES_LABEL}\n\n{bullet}" + (f"\n\n{prov}" if prov else "")
    new_text = render(note.with_body(body + "\n"))
    keys = [[t, p] for t, p in sorted(outbound_keys(text), key=lambda k: (k[0], k[1] or ""))]
    checks = [CheckSpec("keeps_outbound", {"path": into, "keys": keys}),
              CheckSpec("only_paths", {"paths": [into]}),
              CheckSpec("no_sources_written", {}),
              CheckSpec("links_resolve", {"path": into, "keep": []})]
    queue = ProposalQueue(vault)
    proposal = queue.new(
        "dream.refine", f"update {into}: {other} is an instance of it (from the uncertain report)",
        [Edit(into, new_text.encode("utf-8"), current[1])], checks=checks,
        story={"route": "uncertain duplicate handed to dream as an update", "report": entry.report,
               "pair": [entry.a, entry.b], "instance": other, "votes": [v.__dict__ for v in entry.votes],
               "checks_passed": [c.name for c in checks]},
        before={into: current[0]})
    queue.save(proposal)
    record_decision(vault.root, entry.a, entry.b, "dream_update", now=vault.clock(),
                    proposal=proposal.id)
    return proposal.id


def _before_provenance(body: str) -> tuple[str, str]:
    """(the body without its closing `derived_from::` lines, those lines)."""
    lines = body.split("\n")
    end = len(lines)
    while end and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("derived_from::")):
        end -= 1
    return "\n".join(lines[:end]).rstrip(), "\n".join(ln for ln in lines[end:] if ln.strip())
