"""Every operation declared once: the HTTP routes, the MCP tools and the command line are
made from this list.

An `Operation` names its function, its request and response models, whether it writes,
whether it is long (then it runs as a background job over HTTP and reports progress over
MCP), its HTTP routes, whether agents get it as an MCP tool, its command on the command
line (`Command`: the words, which fields are positional arguments, the command line's own
defaults), and two texts: a one-line summary (the OpenAPI document, the command list of
`reme-workbench --help`) and a description written for an agent that never read our docs
(the MCP tool). `server/app.py`, `server/mcp_tools.py` and `cli/` hold no list of their
own: a new operation is one entry here, its function in `ops/`, its models in
`ops/models.py`, and — when it has a command — the few lines in `cli/` that print its
answer as text (`--json` prints the response model).

Commands that cannot be made from an operation — they run until stopped, or hand the
terminal to another program — are listed in `FRONT_END_COMMANDS` with the reason, so the
command line has no command this module does not know (tests/cli/test_cli_registry.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from . import indexing, jobs, operations, reading, vault_ops
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
    GraphPreviewRequest,
    GraphPreviewResponse,
    GraphRequest,
    GraphResponse,
    HealthRequest,
    HealthResponse,
    ImportRequest,
    ImportResponse,
    IndexRequest,
    IndexResponse,
    IndexStatusRequest,
    IndexStatusResponse,
    InitRequest,
    InitResponse,
    LinkModel,
    LinksRequest,
    NoteContext,
    NoteOpenedRequest,
    NoteOpenedResponse,
    NoteRequest,
    ProposalDetail,
    ProposalFiles,
    ProposalRef,
    ProposalsRequest,
    ProposalSummary,
    RecallBatchRequest,
    RecallBatchResponse,
    RecallRequest,
    RecallResponse,
    RecoverRequest,
    RecoverResponse,
    RejectRequest,
    RelatedRequest,
    RelatedResponse,
    RenameRequest,
    RenameResponse,
    StatusRequest,
    StatusResponse,
)

__all__ = ["Route", "Command", "Operation", "OPERATIONS", "FRONT_END_COMMANDS", "operation"]


@dataclass(frozen=True)
class Route:
    """One HTTP route of an operation. `params` says where the request comes from: the
    JSON body, the query string, the path (`{id}` fields), or nowhere (the defaults: a
    GET that must not write)."""

    method: Literal["GET", "POST"]
    path: str
    params: Literal["body", "query", "path", "none"] = "body"


@dataclass(frozen=True)
class Command:
    """The operation on the command line: `path` the words after `reme-workbench`; each
    field of the request is an option `--field-name` (a flag when it is a bool), help and
    type from the request model, except `arguments` (positional, in order; those also in
    `optional` may be left out), `names` (other spellings: `{"k": "-k"}`), `defaults` (the
    command line's own, where it differs from a client's: `recall --scope all`) and `hand`
    (fields the command fills from options of its own, e.g. `--edit PATH=FILE`). Several
    operations may share a command (`recall` and, with `--queries`, `recall_batch`)."""

    path: tuple[str, ...]
    arguments: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    names: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    hand: tuple[str, ...] = ()


@dataclass(frozen=True)
class Operation:
    name: str
    run: Callable[..., Any]  # (workspace, request[, progress]); (request[, progress]) when not on a vault
    request: type[BaseModel]
    response: Any  # a model, or list[model]
    summary: str
    description: str
    writes: bool
    long: bool = False
    routes: tuple[Route, ...] = ()
    mcp: bool = True
    cli: Command | None = None
    progress: bool = False  # run takes a progress callback (every long one does)
    on_vault: bool = True  # False: run takes no workspace (it makes a vault, or vaults of its own)

    def invoke(self, ws, request, progress=None):
        """Run the operation for a front end; after one that writes, wake the workspace's
        background indexer (a server's) so what was written is found at once."""
        args = (request,) if not self.on_vault else (ws, request)
        try:
            if progress is not None and (self.long or self.progress):
                return self.run(*args, progress)
            return self.run(*args)  # its own default progress: none
        finally:
            if self.writes and ws is not None and ws.background_index is not None:
                ws.background_index.poke()


def _show(ws, request: ProposalRef) -> ProposalDetail:
    return operations.show_proposal(ws, request.id)


def _status(ws, _request: StatusRequest) -> StatusResponse:
    return vault_ops.status(ws)


_K = {"k": "-k"}  # `recall -k 5`, as search tools spell it
_RECALL_CLI = {"names": _K}  # the command line searches the digest, as every client (spec §6.3.1)
_PROPOSAL_ID = {"id": "PROPOSAL_ID"}

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "recall", operations.recall, RecallRequest, RecallResponse,
        "Find the notes that answer a query",
        "Search the memory for notes (or, with scope 'sources'/'all', raw daily logs and "
        "resources) that answer a question, best first. Returns each file's path, name, "
        "description and matching passages. Read-mostly: records which notes were recalled.",
        writes=False, routes=(Route("POST", "/recall"),), progress=True,
        cli=Command(("recall",), arguments=("query",), optional=("query",), **_RECALL_CLI)),
    Operation(
        "recall_batch", operations.recall_batch, RecallBatchRequest, RecallBatchResponse,
        "Many queries with the same options, in one pass",
        "Search the memory for several questions at once (each with an id of yours), with "
        "the same options; answers come back under the same ids, best files first. "
        "Read-mostly: records which notes were recalled.",
        writes=False, routes=(Route("POST", "/recall/batch"),), progress=True,
        cli=Command(("recall",), hand=("queries",), **_RECALL_CLI)),  # recall --queries FILE
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
        writes=False, routes=(Route("POST", "/note"),), cli=Command(("note",), arguments=("path",))),
    Operation(
        "related", reading.related, RelatedRequest, RelatedResponse,
        "The notes related to a note (its own text as the query, itself left out)",
        "Find the notes related to one note of the memory, by its vault path: its "
        "description and body are the query and the note itself is left out. Returns each "
        "file's path, name, description and matching passages, best first. Changes "
        "nothing.",
        writes=False, routes=(Route("POST", "/related"),)),
    Operation(
        "proposal_files", reading.proposal_files, ProposalRef, ProposalFiles,
        "What a proposal would write, file by file",
        "Show the full text each file of a proposal would have once applied (by id or a "
        "unique prefix): what a person edits before accepting it with 'edited'. Changes "
        "nothing.",
        writes=False, routes=(Route("GET", "/proposals/{id}/files", "path"),), mcp=False),
    Operation(
        "note_opened", reading.note_opened, NoteOpenedRequest, NoteOpenedResponse,
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
        writes=True, routes=(Route("POST", "/daily"),),
        cli=Command(("append",), arguments=("text",), optional=("text",))),
    Operation(
        "status", _status, StatusRequest, StatusResponse,
        "Files per layer, notes per bucket, files that cannot be read",
        "Describe the memory: how many files each layer holds (daily logs, resources, "
        "notes), the notes per bucket (procedure, personal, wiki), and the files that "
        "could not be read, each with what to do. Changes nothing.",
        writes=False, routes=(Route("GET", "/status", "none"),), cli=Command(("status",))),
    Operation(
        "links", vault_ops.links, LinksRequest, list[LinkModel],
        "The wikilinks of one file, with their places",
        "List the links written in one file of the memory (a vault path, e.g. "
        "digest/wiki/pgbouncer-port.md): each link's target as written, alias, predicate "
        "(e.g. derived_from), heading anchor, whether it embeds, and its line and column. "
        "Changes nothing.",
        writes=False, routes=(Route("POST", "/links"),),
        cli=Command(("links",), arguments=("path",))),
    Operation(
        "graph", vault_ops.graph, GraphRequest, GraphResponse,
        "The link graph of the notes: counts, dangling links, hubs",
        "Describe how the notes link: notes and links per bucket, links to notes that do "
        "not exist, notes nothing links to or from, and the most linked-to notes (top of "
        "them). Changes nothing.",
        writes=False, routes=(Route("GET", "/graph", "query"),), cli=Command(("graph",))),
    Operation(
        "list_proposals", operations.list_proposals, ProposalsRequest, list[ProposalSummary],
        "List proposals",
        "List proposed changes to the notes, oldest first: id, state (pending, applied, "
        "rejected, stale, reverted; applying or reverting while one is written), action "
        "(e.g. consolidate.merge) and a one-line summary. Changes nothing, except that a "
        "proposal a stopped process left applying or reverting is settled from its files "
        "(docs/spec.md §3.7.7), as opening the vault finishes an interrupted write.",
        writes=False, routes=(Route("GET", "/proposals", "query"),),
        cli=Command(("proposals", "list"))),
    Operation(
        "show_proposal", _show, ProposalRef, ProposalDetail,
        "One proposal with its story and diff",
        "Show one proposal by id (or a unique prefix): why it was proposed (its story: "
        "inputs, votes, checks) and a diff of every file it would write. Changes nothing.",
        writes=False, routes=(Route("GET", "/proposals/{id}", "path"),),
        cli=Command(("proposals", "show"), arguments=("id",), names=_PROPOSAL_ID)),
    Operation(
        "accept_proposal", operations.accept_proposal, AcceptRequest, ProposalSummary,
        "Apply a proposal; its checks run again first",
        "Apply a pending proposal. Its checks run again first; the answer's state says "
        "what happened (applied; rejected with the failed checks in 'error'; stale when a "
        "file changed since). Only when the user asked for it.",
        writes=True, routes=(Route("POST", "/proposals/accept"),),
        cli=Command(("proposals", "accept"), arguments=("id",), names=_PROPOSAL_ID,
                    hand=("edited",))),
    Operation(
        "reject_proposal", operations.reject_proposal, RejectRequest, ProposalSummary,
        "Reject a proposal",
        "Reject a pending proposal, keeping the reason with it; no note changes. Only when "
        "the user asked for it.",
        writes=True, routes=(Route("POST", "/proposals/reject"),),
        cli=Command(("proposals", "reject"), arguments=("id",), names=_PROPOSAL_ID)),
    Operation(
        "revert_proposal", vault_ops.revert_proposal, ProposalRef, ProposalSummary,
        "Undo an applied proposal while its files are unchanged since",
        "Undo an applied proposal: every file it wrote goes back to what it was, as long as "
        "nobody changed those files since (else it is refused, saying which). The answer's "
        "state is then 'reverted'. Only when the user asked for it.",
        writes=True, routes=(Route("POST", "/proposals/revert"),),
        cli=Command(("proposals", "revert"), arguments=("id",), names=_PROPOSAL_ID)),
    Operation(
        "health", operations.health, HealthRequest, HealthResponse,
        "Broken links and provenance; with fix, repair what can be repaired",
        "Check the memory's links: broken links between notes and notes missing the link "
        "to the material they came from. With fix=true, short links are rewritten to full "
        "paths and links to nothing are proposed for removal (a proposal the user reviews).",
        writes=True, routes=(Route("GET", "/health", "none"), Route("POST", "/health")),
        cli=Command(("health",), defaults={"report": True})),  # a person gets the audit note
    Operation(
        "dream", jobs.dream, DreamRequest, DreamResponse,
        "Start dreaming material into notes (a background job)",
        "Turn raw material (daily logs, resources) into notes now, instead of waiting for "
        "the schedule: the files, folders or days (2026-10-05) given, or everything not yet "
        "dreamt. review=true holds every change as a proposal; dry_run=true writes nothing. "
        "Returns what was created or updated and what waits for review. Can take minutes; "
        "reports progress.",
        writes=True, long=True, routes=(Route("POST", "/jobs/dream"),),
        cli=Command(("dream",), arguments=("files",), names={"files": "[MATERIAL]..."})),
    Operation(
        "consolidate", jobs.consolidate, ConsolidateRequest, ConsolidateResponse,
        "Start the consolidate phases that are due (a background job)",
        "Tidy the notes: communities, archive, and proposals for hub notes, merges of "
        "duplicates and splits (which wait for a person). Runs what is due, or the phases "
        "in 'only' with force=true; dry_run=true writes nothing. Can take minutes; reports "
        "progress.",
        writes=True, long=True, routes=(Route("POST", "/jobs/consolidate"),),
        cli=Command(("consolidate",), hand=("only",))),  # --only communities,archive
    Operation(
        "bridge", jobs.bridge, BridgeRequest, BridgeResponse,
        "Start writing what Obsidian reads natively (a background job)",
        "Write what Obsidian shows natively: colour groups in the graph view "
        "(communities=true adds one per community), a JSON Canvas map of the communities "
        "(canvas=true), short links in notes rewritten to full paths (normalize=true). "
        "Never changes a note's frontmatter; dry_run=true writes nothing.",
        writes=True, long=True, routes=(Route("POST", "/jobs/bridge"),), cli=Command(("bridge",))),
    # -- the command line's only: each works on local paths or on the whole vault at once,
    #    which a client over HTTP or MCP has no business naming (docs/api.md says which)
    Operation(
        "graph_preview", vault_ops.graph_preview, GraphPreviewRequest, GraphPreviewResponse,
        "An HTML picture of what Obsidian's graph view shows",
        "Write one HTML file (inline SVG, nothing loaded) of what Obsidian's graph view "
        "shows of the vault: the notes it indexes, resolved links, notes not yet written, "
        "graph.json's colour groups. Writes a local file a client names: command line only.",
        writes=True, mcp=False, cli=Command(("bridge",), hand=("out",))),  # bridge --preview
    Operation(
        "rename", vault_ops.rename, RenameRequest, RenameResponse,
        "Move a note and retarget every link to it",
        "Move a digest note (or, with move_source, a daily log within daily/) and rewrite "
        "every link Obsidian resolves to it, in one atomic change. A person's act: Obsidian "
        "renames a note itself, and an agent changes notes through proposals.",
        writes=True, mcp=False, cli=Command(("rename",), arguments=("old", "new"))),
    Operation(
        "index", vault_ops.build_index, IndexRequest, IndexResponse,
        "Bring the keyword + vector index up to date",
        "Index every changed file by keyword and by meaning (vectors) in .reme/. A server "
        "keeps its index up to date in the background (index_status says how far), so "
        "this is the command line's only.",
        writes=True, mcp=False, progress=True, cli=Command(("index",))),
    Operation(
        "recover", vault_ops.recover, RecoverRequest, RecoverResponse,
        "Settle a change that was interrupted half written",
        "Finish a change a crash left half written, or undo it when its files were edited "
        "since (set_aside: keep the notes as they are and its files under audit/). A "
        "server does the first whenever it opens the vault; the rest is a person's call.",
        writes=True, mcp=False, cli=Command(("recover",))),
    Operation(
        "init", vault_ops.init_vault, InitRequest, InitResponse,
        "Make a vault (or add the missing layers to a folder)",
        "Create the layers of a vault at a local path, the review notebooks and a "
        ".gitignore entry; nothing existing is overwritten. Before any vault exists, so "
        "the command line's only.",
        writes=True, mcp=False, on_vault=False,
        cli=Command(("init",), arguments=("path",), optional=("path",))),
    Operation(
        "import_notes", operations.import_notes, ImportRequest, ImportResponse,
        "Adopt an Obsidian vault's notes as digest notes",
        "Bring the notes of another Obsidian vault, read from a local folder, into digest/ "
        "with their originals kept in resource/. Reads a folder a client names: the "
        "command line's only.",
        writes=True, mcp=False, cli=Command(("import",), arguments=("source",))),
)

# Commands made by hand, each with why it cannot be made from an operation: they run until
# stopped, hand the terminal to another program, or draw progress an operation does not
# report. The command line has no other command (tests/cli/test_cli_registry.py).
FRONT_END_COMMANDS: Mapping[tuple[str, ...], str] = {
    ("demo",): "builds a vault of its own from the bundled sample, week by week, with a "
               "progress bar: no vault to open and no request a client could send",
    ("workbench",): "starts JupyterLab in this process's place on the terminal",
    ("serve",): "runs the HTTP API until stopped (it is the HTTP client's front end)",
    ("mcp",): "serves MCP over stdio until the agent goes (it is MCP's front end)",
    ("obsidian", "install"): "copies the Obsidian plugin into a vault's .obsidian/plugins/",
}

def operation(name: str) -> Operation:
    for op in OPERATIONS:
        if op.name == name:
            return op
    raise KeyError(f"No operation {name!r}; there are {', '.join(o.name for o in OPERATIONS)}.")
