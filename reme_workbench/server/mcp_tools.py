"""The operations layer as MCP tools for agents (`reme-workbench mcp`, stdio).

Written against the official `mcp` SDK, major version 2 (`mcp.server.mcpserver.MCPServer`;
v1's FastMCP is gone). Each tool is one call into `reme_workbench.ops`: its arguments
are checked by the same request models as the HTTP API's, and its answer is the same
response model, so an agent gets structured output. A refusal (a bad path, an unknown
proposal, a check that fails) comes back as a tool error with the library's message,
which says what to do instead.

The descriptions are written for an agent that has never read our docs: what the tool
is for, when to call it, what it changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from typing import Literal

from mcp.server.mcpserver import Context

from ..errors import RemeError
from ..ops import (
    AcceptRequest,
    BridgeRequest,
    ConsolidateRequest,
    DailyEntryRequest,
    DailyEntryResult,
    DreamRequest,
    HealthResponse,
    NoteContext,
    NoteRequest,
    ProposalDetail,
    ProposalsRequest,
    ProposalSummary,
    RecallRequest,
    RecallResponse,
    RejectRequest,
    Workspace,
    build_request,
)
from ..ops import jobs as long_ops
from ..ops import operations as ops

__all__ = ["create_mcp_server", "INSTRUCTIONS"]

INSTRUCTIONS = (
    "Long-term memory kept as an Obsidian vault. Search it with `recall` before answering "
    "from memory; read one note with `note_context`. Record what happened or what you "
    "learned with `append_daily` (raw material: a background process turns it into notes). "
    "Changes to notes are proposals: list them with `list_proposals`, read one with "
    "`show_proposal`, and accept or reject only when the user asked you to."
)


@contextmanager
def _refusals() -> Iterator[None]:
    """A refusal of the library reaches the agent as a tool error with its message (any
    other exception is the SDK's "unexpected" error, logged, its text not shown)."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        yield
    except RemeError as exc:
        raise ToolError(str(exc)) from None


async def _with_progress(ctx: Context, operation, ws: Workspace, request) -> dict:
    """Run a long operation in a worker thread (the server keeps answering) and pass its
    progress on as MCP progress notifications — a no-op when the client asked for none."""
    import anyio
    import anyio.from_thread

    def progress(done: int, total: int, message: str) -> None:
        anyio.from_thread.run(ctx.report_progress, float(done), float(total) or None, message)

    return await anyio.to_thread.run_sync(lambda: operation(ws, request, progress))


def create_mcp_server(ws: Workspace):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="reme-workbench", instructions=INSTRUCTIONS)

    @server.tool(description=(
        "Search the memory for notes (or, with scope 'sources'/'all', raw daily logs and "
        "resources) that answer a question, best first. Returns each file's path, name, "
        "description and matching passages. Read-mostly: records which notes were recalled."))
    def recall(query: str, k: int = 10, scope: Literal["digest", "sources", "all"] = "digest",
               include_archived: bool = False) -> RecallResponse:
        with _refusals():
            return ops.recall(ws, build_request(RecallRequest,
                query=query, k=k, scope=scope, include_archived=include_archived))

    @server.tool(description=(
        "Read one note by its vault path (e.g. digest/wiki/pgbouncer-port.md, as recall "
        "returns it): its name, description, the notes it links to and that link to it, "
        "the material it came from, its community and that community's hub note, how "
        "recently it was used, and whether it is archived. Changes nothing."))
    def note_context(path: str) -> NoteContext:
        with _refusals():
            return ops.note_context(ws, build_request(NoteRequest, path=path))

    @server.tool(description=(
        "Record something in today's daily log (daily/<day>/<log>.md): an event, a "
        "decision, a fact learned, a preference the user stated. Appends only; never "
        "edits what is there. This is raw material, later turned into notes by 'dream'."))
    def append_daily(text: str, title: str | None = None, log: str = "log",
                     day: date | None = None) -> DailyEntryResult:
        with _refusals():
            return ops.append_daily(ws, build_request(DailyEntryRequest,
                text=text, title=title, log=log, day=day))

    @server.tool(description=(
        "List proposed changes to the notes, oldest first: id, state (pending, applied, "
        "rejected, stale, reverted), action (e.g. consolidate.merge) and a one-line "
        "summary. Changes nothing."))
    def list_proposals(state: Literal["pending", "applied", "rejected", "stale", "reverted"] | None = None,
                       action: str | None = None) -> list[ProposalSummary]:
        with _refusals():
            return ops.list_proposals(ws, build_request(ProposalsRequest, state=state,
                                                         action=action))

    @server.tool(description=(
        "Show one proposal by id (or a unique prefix): why it was proposed (its story: "
        "inputs, votes, checks) and a diff of every file it would write. Changes nothing."))
    def show_proposal(id: str) -> ProposalDetail:  # noqa: A002 - the name an agent sees
        with _refusals():
            return ops.show_proposal(ws, id)

    @server.tool(description=(
        "Apply a pending proposal. Its checks run again first; the answer's state says "
        "what happened (applied; rejected with the failed checks in 'error'; stale when a "
        "file changed since). Only when the user asked for it."))
    def accept_proposal(id: str) -> ProposalSummary:  # noqa: A002
        with _refusals():
            return ops.accept_proposal(ws, build_request(AcceptRequest, id=id))

    @server.tool(description=(
        "Reject a pending proposal, keeping the reason with it; no note changes. Only when "
        "the user asked for it."))
    def reject_proposal(id: str, reason: str = "") -> ProposalSummary:  # noqa: A002
        with _refusals():
            return ops.reject_proposal(ws, build_request(RejectRequest, id=id, reason=reason))

    @server.tool(description=(
        "Turn raw material (daily logs, resources) into notes now, instead of waiting for "
        "the schedule: the files, folders or days (2026-10-05) given, or everything not yet "
        "dreamt. review=true holds every change as a proposal; dry_run=true writes nothing. "
        "Returns what was created or updated and what waits for review. Can take minutes; "
        "reports progress."))
    async def dream(ctx: Context, files: list[str] | None = None, force: bool = False,
                    review: bool = False, dry_run: bool = False) -> dict:
        with _refusals():
            request = build_request(DreamRequest, files=files or [], force=force, review=review,
                                    dry_run=dry_run)
            return await _with_progress(ctx, long_ops.dream, ws, request)

    @server.tool(description=(
        "Tidy the notes: communities, archive, and proposals for hub notes, merges of "
        "duplicates and splits (which wait for a person). Runs what is due, or the phases "
        "in 'only' with force=true; dry_run=true writes nothing. Can take minutes; reports "
        "progress."))
    async def consolidate(ctx: Context, only: list[str] | None = None, force: bool = False,
                          dry_run: bool = False) -> dict:
        with _refusals():
            request = build_request(ConsolidateRequest, only=only, force=force, dry_run=dry_run)
            return await _with_progress(ctx, long_ops.consolidate, ws, request)

    @server.tool(description=(
        "Write what Obsidian shows natively: colour groups in the graph view "
        "(communities=true adds one per community), a JSON Canvas map of the communities "
        "(canvas=true), short links in notes rewritten to full paths (normalize=true). "
        "Never changes a note's frontmatter; dry_run=true writes nothing."))
    def bridge(communities: bool = False, canvas: bool = False, normalize: bool = False,
               dry_run: bool = False) -> dict:
        with _refusals():
            return long_ops.bridge(ws, build_request(BridgeRequest, communities=communities,
                                                        canvas=canvas, normalize=normalize,
                                                        dry_run=dry_run))

    @server.tool(description=(
        "Check the memory's links: broken links between notes and notes missing the "
        "link to the material they came from. Changes nothing."))
    def health() -> HealthResponse:
        with _refusals():
            return ops.health(ws)

    return server
