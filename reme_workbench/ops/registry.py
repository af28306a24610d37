"""Every operation declared once: the HTTP routes and the MCP tools are made from this list.

An `Operation` names its function, its request and response models, whether it writes,
whether it is long (then it runs as a background job over HTTP and reports progress over
MCP), its HTTP routes, and two texts: a one-line summary (the OpenAPI document) and a
description written for an agent that never read our docs (the MCP tool). A new
operation reaches every client by adding one entry here; `server/app.py` and
`server/mcp_tools.py` hold no list of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from . import indexing, jobs, operations, reading
from .models import (
    AcceptRequest,
    BridgeRequest,
    BridgeResponse,
    ConsolidateRequest,
    ConsolidateResponse,
    DailyEntryRequest,
    DailyEntryResult,
    DreamRequest,
    DreamResponse,
    HealthRequest,
    HealthResponse,
    IndexStatusRequest,
    IndexStatusResponse,
    NoteContext,
    NoteRequest,
    ProposalDetail,
    ProposalRef,
    ProposalsRequest,
    ProposalSummary,
    RecallBatchRequest,
    RecallBatchResponse,
    RecallRequest,
    RecallResponse,
    RejectRequest,
)

__all__ = ["Route", "Operation", "OPERATIONS", "operation"]


@dataclass(frozen=True)
class Route:
    """One HTTP route of an operation. `params` says where the request comes from: the
    JSON body, the query string, the path (`{id}` fields), or nowhere (the defaults: a
    GET that must not write)."""

    method: Literal["GET", "POST"]
    path: str
    params: Literal["body", "query", "path", "none"] = "body"


@dataclass(frozen=True)
class Operation:
    name: str
    run: Callable[..., Any]  # (workspace, request) or, when long, (workspace, request, progress)
    request: type[BaseModel]
    response: Any  # a model, or list[model]
    summary: str
    description: str
    writes: bool
    long: bool = False
    routes: tuple[Route, ...] = ()
    mcp: bool = True

    def invoke(self, ws, request, progress=None):
        """Run the operation for a front end; after one that writes, wake the workspace's
        background indexer (a server's) so what was written is found at once."""
        try:
            return self.run(ws, request, progress) if self.long else self.run(ws, request)
        finally:
            if self.writes and ws.background_index is not None:
                ws.background_index.poke()


def _show(ws, request: ProposalRef) -> ProposalDetail:
    return operations.show_proposal(ws, request.id)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "recall", operations.recall, RecallRequest, RecallResponse,
        "Find the notes that answer a query",
        "Search the memory for notes (or, with scope 'sources'/'all', raw daily logs and "
        "resources) that answer a question, best first. Returns each file's path, name, "
        "description and matching passages. Read-mostly: records which notes were recalled.",
        writes=False, routes=(Route("POST", "/recall"),)),
    Operation(
        "recall_batch", operations.recall_batch, RecallBatchRequest, RecallBatchResponse,
        "Many queries with the same options, in one pass",
        "Search the memory for several questions at once (each with an id of yours), with "
        "the same options; answers come back under the same ids, best files first. "
        "Read-mostly: records which notes were recalled.",
        writes=False, routes=(Route("POST", "/recall/batch"),)),
    Operation(
        "index_status", indexing.index_status, IndexStatusRequest, IndexStatusResponse,
        "How far the index is: files by keyword, files with vectors",
        "How much of the memory is searchable: files found by keyword, files whose "
        "meaning (vectors) is indexed too, and whether indexing is still running. recall "
        "answers at once either way; this says how complete its answers are. Changes nothing.",
        writes=False, routes=(Route("GET", "/index/status", "none"),)),
    Operation(
        "note_context", operations.note_context, NoteRequest, NoteContext,
        "A note with its links, community and recency",
        "Read one note by its vault path (e.g. digest/wiki/pgbouncer-port.md, as recall "
        "returns it): its name, description, the notes it links to and that link to it, "
        "the material it came from, its community and that community's hub note, how "
        "recently it was used, and whether it was archived. Read-mostly: records that the "
        "note was opened, so an archived note is found by recall again at once.",
        writes=False, routes=(Route("POST", "/note"),)),
    Operation(
        "related", reading.related, reading.RelatedRequest, reading.RelatedResponse,
        "The notes related to a note (its own text as the query, itself left out)",
        "Find the notes related to one note of the memory, by its vault path: its "
        "description and body are the query and the note itself is left out. Returns each "
        "file's path, name, description and matching passages, best first. Changes "
        "nothing.",
        writes=False, routes=(Route("POST", "/related"),)),
    Operation(
        "proposal_files", reading.proposal_files, ProposalRef, reading.ProposalFiles,
        "What a proposal would write, file by file",
        "Show the full text each file of a proposal would have once applied (by id or a "
        "unique prefix): what a person edits before accepting it with 'edited'. Changes "
        "nothing.",
        writes=False, routes=(Route("GET", "/proposals/{id}/files", "path"),), mcp=False),
    Operation(
        "note_opened", reading.note_opened, reading.NoteOpenedRequest, reading.NoteOpenedResponse,
        "Report that a person opened a digest note (reading is use)",
        "Record that the user opened a digest note, so the archive counts it as used: an "
        "'open' line in the access log, at most one per note per hour. For a plugin that "
        "sees a person read; an agent's reading is note_context's, so it is no MCP tool.",
        writes=False, routes=(Route("POST", "/note/opened"),), mcp=False),
    Operation(
        "append_daily", operations.append_daily, DailyEntryRequest, DailyEntryResult,
        "Append an entry to a daily log (the one way to add material)",
        "Record something in today's daily log (daily/<day>/<log>.md): an event, a "
        "decision, a fact learned, a preference the user stated. Appends only; never "
        "edits what is there. This is raw material, later turned into notes by 'dream'.",
        writes=True, routes=(Route("POST", "/daily"),)),
    Operation(
        "list_proposals", operations.list_proposals, ProposalsRequest, list[ProposalSummary],
        "List proposals",
        "List proposed changes to the notes, oldest first: id, state (pending, applied, "
        "rejected, stale, reverted), action (e.g. consolidate.merge) and a one-line "
        "summary. Changes nothing.",
        writes=False, routes=(Route("GET", "/proposals", "query"),)),
    Operation(
        "show_proposal", _show, ProposalRef, ProposalDetail,
        "One proposal with its story and diff",
        "Show one proposal by id (or a unique prefix): why it was proposed (its story: "
        "inputs, votes, checks) and a diff of every file it would write. Changes nothing.",
        writes=False, routes=(Route("GET", "/proposals/{id}", "path"),)),
    Operation(
        "accept_proposal", operations.accept_proposal, AcceptRequest, ProposalSummary,
        "Apply a proposal; its checks run again first",
        "Apply a pending proposal. Its checks run again first; the answer's state says "
        "what happened (applied; rejected with the failed checks in 'error'; stale when a "
        "file changed since). Only when the user asked for it.",
        writes=True, routes=(Route("POST", "/proposals/accept"),)),
    Operation(
        "reject_proposal", operations.reject_proposal, RejectRequest, ProposalSummary,
        "Reject a proposal",
        "Reject a pending proposal, keeping the reason with it; no note changes. Only when "
        "the user asked for it.",
        writes=True, routes=(Route("POST", "/proposals/reject"),)),
    Operation(
        "health", operations.health, HealthRequest, HealthResponse,
        "Broken links and provenance; with fix, repair what can be repaired",
        "Check the memory's links: broken links between notes and notes missing the link "
        "to the material they came from. With fix=true, short links are rewritten to full "
        "paths and links to nothing are proposed for removal (a proposal the user reviews).",
        writes=True, routes=(Route("GET", "/health", "none"), Route("POST", "/health"))),
    Operation(
        "dream", jobs.dream, DreamRequest, DreamResponse,
        "Start dreaming material into notes (a background job)",
        "Turn raw material (daily logs, resources) into notes now, instead of waiting for "
        "the schedule: the files, folders or days (2026-10-05) given, or everything not yet "
        "dreamt. review=true holds every change as a proposal; dry_run=true writes nothing. "
        "Returns what was created or updated and what waits for review. Can take minutes; "
        "reports progress.",
        writes=True, long=True, routes=(Route("POST", "/jobs/dream"),)),
    Operation(
        "consolidate", jobs.consolidate, ConsolidateRequest, ConsolidateResponse,
        "Start the consolidate phases that are due (a background job)",
        "Tidy the notes: communities, archive, and proposals for hub notes, merges of "
        "duplicates and splits (which wait for a person). Runs what is due, or the phases "
        "in 'only' with force=true; dry_run=true writes nothing. Can take minutes; reports "
        "progress.",
        writes=True, long=True, routes=(Route("POST", "/jobs/consolidate"),)),
    Operation(
        "bridge", jobs.bridge, BridgeRequest, BridgeResponse,
        "Start writing what Obsidian reads natively (a background job)",
        "Write what Obsidian shows natively: colour groups in the graph view "
        "(communities=true adds one per community), a JSON Canvas map of the communities "
        "(canvas=true), short links in notes rewritten to full paths (normalize=true). "
        "Never changes a note's frontmatter; dry_run=true writes nothing.",
        writes=True, long=True, routes=(Route("POST", "/jobs/bridge"),)),
)


def operation(name: str) -> Operation:
    for op in OPERATIONS:
        if op.name == name:
            return op
    raise KeyError(f"No operation {name!r}; there are {', '.join(o.name for o in OPERATIONS)}.")
