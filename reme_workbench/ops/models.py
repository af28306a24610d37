"""What a client sends and gets back: the operations layer's pydantic models.

Everything a client sends is untrusted (an Obsidian plugin, an agent over MCP, a script
over HTTP), so each request model bounds its fields — lengths, ranges, the scopes and
states that exist — and refuses keys it does not know. Responses are models too, so the
HTTP API's OpenAPI document and the MCP tools' schemas come from one place.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..vault.layout import MAX_NAME_BYTES  # a file or folder name: the longest ext4 and APFS take

__all__ = [
    # recall
    "RecallRequest", "RecallChunk", "RecallHitModel", "RecallResponse",
    "RecallQuery", "RecallBatchRequest", "RecallBatchAnswer", "RecallBatchResponse",
    "IndexStatusRequest", "IndexStatusResponse",
    # a note, the proposals
    "NoteRequest", "LinkRef", "NoteContext",
    "ProposalsRequest", "ProposalSummary", "ProposalDetail", "ProposalRef", "AcceptRequest",
    "RejectRequest", "ProposalFiles",
    # what the Obsidian plugin asks as a person reads
    "RelatedRequest", "RelatedResponse", "NoteOpenedRequest", "NoteOpenedResponse",
    # health
    "HealthRequest", "HealthResponse", "BrokenLinkModel", "ResolvedLinkModel", "UnlinkModel",
    "NormalizeModel",
    # the vault's own operations
    "InitRequest", "InitResponse", "StatusRequest", "StatusResponse", "RecoverRequest",
    "RecoverResponse", "LinksRequest", "LinkModel", "GraphRequest", "GraphResponse",
    "GraphPreviewRequest", "GraphPreviewResponse", "RenameRequest", "RenameResponse",
    "IndexRequest", "IndexResponse",
    "ImportRequest", "ImportedNoteModel", "ImportResponse",
    # material, the long operations and their jobs
    "DailyEntryRequest", "DailyEntryResult",
    "DreamRequest", "DreamResponse", "ConsolidateRequest", "ConsolidateResponse", "PhaseReport",
    "BridgeRequest", "BridgeResponse", "JobProgress", "JobStatus",
    # the bounds every request keeps
    "MAX_QUERY_CHARS", "MAX_EDIT_BYTES", "MAX_ENTRY_CHARS", "MAX_BATCH_QUERIES",
    "MAX_NAME_BYTES", "MAX_PATH_BYTES",
]

MAX_QUERY_CHARS = 2000
MAX_EDIT_BYTES = 1 << 20  # an edited file of an accepted proposal; a note is far smaller
MAX_ENTRY_CHARS = 200_000  # one daily entry: a long agent transcript, not a data dump
MAX_BATCH_QUERIES = 50_000  # a benchmark's question set (LoCoMo has ~2,000) with room to spare
# a vault-relative path: leaves Linux's PATH_MAX (4,096 bytes) room for the vault's own folder
MAX_PATH_BYTES = 1000
ProposalState = Literal["pending", "applying", "applied", "rejected", "stale", "reverting",
                        "reverted"]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Response(BaseModel):
    model_config = ConfigDict(frozen=True)


def _vault_path(value: str) -> str:
    """A vault-relative POSIX path: no absolute path, no `..`, no backslash, no NUL, and
    no name or path longer than a file system takes (a longer one failed in the operations
    with the system's "File name too long", an answer of 500). The operations resolve it
    inside the vault again (symlinks refused); this only turns the obvious mistakes away
    with a message that says what was wrong."""
    text = value.strip()
    if not text:
        raise ValueError("give a vault-relative path, e.g. digest/wiki/note.md")
    if "\x00" in text or "\\" in text:
        raise ValueError("a path may not contain NUL or backslashes; use / between folders")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        raise ValueError("give the path relative to the vault, e.g. digest/wiki/note.md")
    if any(part in ("..", ".") for part in text.split("/")):
        raise ValueError("a path may not contain '.' or '..' parts")
    size = len(text.encode("utf-8"))
    if size > MAX_PATH_BYTES:
        raise ValueError(f"the path is {size:,} bytes in UTF-8; a path may have at most "
                         f"{MAX_PATH_BYTES:,} bytes: give a shorter one")
    for part in text.split("/"):
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise ValueError(f"the name {part[:40]!r}… is {len(part.encode('utf-8')):,} bytes in "
                             f"UTF-8; a file or folder name may have at most {MAX_NAME_BYTES} "
                             "bytes (the file system's limit): shorten it")
    return text


def _proposal_id(value):
    """A proposal id as `proposals list` shows it (or a prefix of one): the message of a
    malformed one says what an id looks like, before the length bounds answer in their
    own words."""
    if isinstance(value, str):
        text = value.strip()
        if not 3 <= len(text) <= 64 or not all(c.isalnum() or c == "-" for c in text):
            shown = f"{text[:40]!r}…" if len(text) > 40 else repr(text)
            raise ValueError(f"{shown} is not a proposal id; ids look like "
                             "p-20261203-101500-a1b2c3 (`proposals list` shows them)")
        return text
    return value


# -- recall ---------------------------------------------------------------------------------

class _RecallOptions(_Request):
    k: int = Field(10, ge=1, le=100, description="How many files to return.")
    scope: Literal["digest", "sources", "all"] = Field(
        "digest", description="digest: the notes; sources: daily/ and resource/; all: both.")
    include_archived: bool = Field(False, description="Also return notes the archive set aside.")
    mode: Literal["fused", "keyword", "vector"] = Field(
        "fused", description="fused: keyword and vector search together; or one of them alone.")


class _Query(_Request):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS,
                       description="What to look for, in any language.")

    @field_validator("query")
    @classmethod
    def _has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the query is empty")
        return value


class RecallRequest(_RecallOptions, _Query):
    """One query and how to search for it."""


class RecallQuery(_Query):
    id: str = Field(min_length=1, max_length=200, description="The caller's name for the query.")


class RecallBatchRequest(_RecallOptions):
    """Many queries with the same options, answered in one pass over the index."""

    queries: list[RecallQuery] = Field(min_length=1, max_length=MAX_BATCH_QUERIES)


class RecallChunk(_Response):
    text: str
    line_start: int
    line_end: int
    score: float


class RecallHitModel(_Response):
    path: str
    score: float
    name: str | None
    description: str | None
    via: Literal["search", "link"]
    chunks: list[RecallChunk]


class RecallResponse(_Response):
    query: str
    hits: list[RecallHitModel]
    vectors: str = Field(
        "", description="What the vector search saw: files with their vectors, of the files "
        "indexed (\"12/37 files\"); the others were found by keyword only.")
    note: str | None = Field(None, description="Why vectors are missing and what fills them.")
    notices: list[str] = Field(default_factory=list, description="Lines for the person, once per "
                               "call: e.g. a read-only vault's index kept in a cache folder.")


class RecallBatchAnswer(RecallResponse):
    id: str


class RecallBatchResponse(_Response):
    results: list[RecallBatchAnswer]
    vectors: str = ""
    note: str | None = None
    notices: list[str] = Field(default_factory=list, description="As RecallResponse's, once.")


class IndexStatusRequest(_Request):
    """No parameters: the index of the served vault."""


class IndexStatusResponse(_Response):
    background: bool = Field(description="Whether a background indexer runs (a server).")
    state: str = Field(description="starting, keyword, vectors, ready, failed, stopped; "
                       "without a background indexer: empty, vectors pending or ready.")
    keyword: str | None = Field(None, description="Files findable by keyword (\"300/1,000 files\").")
    vectors: str | None = Field(None, description="Files with every vector, of those indexed.")
    pending_chunks: int | None = None
    error: str | None = Field(None, description="Why indexing stopped, and what to run.")
    passes: int = 0


# -- note context ---------------------------------------------------------------------------

class NoteRequest(_Request):
    path: str = Field(max_length=1000, description="A digest note, vault-relative.")

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        return _vault_path(value)


class LinkRef(_Response):
    path: str
    predicate: str | None = None


class NoteContext(_Response):
    path: str
    name: str | None
    description: str | None
    frontmatter: dict[str, Any]
    outbound: list[LinkRef] = Field(description="Digest notes this note links to.")
    inbound: list[LinkRef] = Field(description="Digest notes that link to this note.")
    provenance: list[LinkRef] = Field(description="The material (daily/, resource/) it came from.")
    community: str | None = Field(description="Its community id in meta/communities.json.")
    community_size: int | None
    hub: str | None = Field(description="The community's hub note, if it has one.")
    recency: float | None = Field(description="meta/recency.json's score, 0-1.")
    archived: bool = Field(description="Whether the archive had set it aside when it was "
                                       "opened; opening it brings it back to recall at once.")


# -- proposals ------------------------------------------------------------------------------

class ProposalsRequest(_Request):
    state: ProposalState | None = Field(None, description="Only proposals in this state.")
    action: str | None = Field(None, max_length=64,
                               description="Only actions starting with this, e.g. consolidate.")


class ProposalSummary(_Response):
    id: str
    state: str
    action: str
    summary: str
    files: list[str]
    updated_at: str | None
    error: str | None
    replanned_as: list[str] = Field(
        default_factory=list, description="When accepting found that a note this proposal "
        "creates was created meanwhile: the proposals planning it again against that note.")
    note: str | None = Field(
        None, description="What the decision found instead of doing it, or did besides: "
        "e.g. the proposal was already applied by another accept, or where a person's edits "
        "went when it was planned again.")


class ProposalDetail(ProposalSummary):
    story: dict[str, Any]
    diff: str


class AcceptRequest(_Request):
    id: str = Field(min_length=3, max_length=64, description="A proposal id or a unique prefix.")
    check_id = field_validator("id", mode="before")(_proposal_id)
    edited: dict[str, str] | None = Field(
        None, description="A person's new contents for some of the proposal's files; the "
                          "proposal's checks run on them before anything is written.")

    @field_validator("edited")
    @classmethod
    def _bounded(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value is None:
            return None
        if len(value) > 64:
            raise ValueError("at most 64 edited files")
        for path, text in value.items():
            _vault_path(path)
            if len(text.encode("utf-8")) > MAX_EDIT_BYTES:
                raise ValueError(f"the edit of {path} is over {MAX_EDIT_BYTES} bytes")
        return value


class RejectRequest(_Request):
    id: str = Field(min_length=3, max_length=64, description="A proposal id or a unique prefix.")
    check_id = field_validator("id", mode="before")(_proposal_id)
    reason: str = Field("", max_length=2000, description="Why, kept with the proposal.")


# -- health ---------------------------------------------------------------------------------

class BrokenLinkModel(_Response):
    source: str
    target: str
    line: int
    column: int
    raw: str
    predicate: str | None
    reason: str


class ResolvedLinkModel(_Response):
    source: str
    target: str
    line: int
    column: int
    raw: str
    predicate: str | None
    resolved: str | None = Field(None, description="The one file Obsidian resolves it to.")
    candidates: list[str] = Field(default_factory=list,
                                  description="The files an ambiguous link could mean.")


class UnlinkModel(_Response):
    links: int = Field(description="Broken digest links the proposals turn into their text.")
    notes: int
    proposal: str | None = Field(None, description="The first note's proposal (none on a dry run).")
    state: str = Field(description="applied, pending (waits for a person), already pending, "
                                   "rejected, stale.")
    superseded: list[str] = Field(default_factory=list,
                                  description="Waiting unlink proposals these replace.")
    proposals: list[str] = Field(default_factory=list,
                                 description="One proposal per note with broken links.")


class NormalizeModel(_Response):
    links: int = Field(description="Short digest links the proposal writes as vault paths.")
    notes: int
    proposal: str | None = Field(None, description="The proposal's id (none on a dry run).")
    state: str = Field(description="pending (waits for a person), already pending, applied, "
                                   "rejected, stale.")
    superseded: list[str] = Field(default_factory=list,
                                  description="Waiting normalize proposals this one replaces.")


class HealthRequest(_Request):
    fix: bool = Field(False, description="Propose fixes for D1 in digest/, for a person to "
                                         "accept: short links written as vault paths "
                                         "(health.normalize; nothing is lost) and links that "
                                         "resolve to nothing replaced by their text "
                                         "(health.unlink). Both wait even when [proposals] "
                                         "auto_apply names them: they rewrite a person's lines. "
                                         "daily/ is only reported.")
    report: bool = Field(False, description="Also write audit/<date>/health_links.md and the "
                         "record of the links that resolve now (meta/resolved_links.json, which "
                         "tells a link that breaks later from one never written).")


class HealthResponse(_Response):
    ok: bool
    broken_links: list[BrokenLinkModel]
    broken_provenance: list[BrokenLinkModel]
    missing_provenance: list[str]
    short_links: list[ResolvedLinkModel] = Field(
        default_factory=list, description="Links that are not vault paths but resolve, by "
                                          "Obsidian's rules, to one file: not broken.")
    ambiguous_links: list[ResolvedLinkModel] = Field(
        default_factory=list, description="Links that resolve to several files: left for a person.")
    unwritten_links: list[BrokenLinkModel] = Field(
        default_factory=list, description="Links that resolve to nothing and did not at the "
                                          "last recorded health run either: notes the person "
                                          "means to write. Not broken; nothing is proposed.")
    normalized: int = Field(0, description="Short links rewritten to vault paths by `fix` "
                                           "(0 while the normalize proposal waits for a person).")
    normalize: NormalizeModel | None = Field(None, description="The proposal `fix` made to "
                                             "write the short digest links as vault paths, if any.")
    unlink: UnlinkModel | None = Field(None, description="The unlink proposal `fix` made for "
                                                         "the broken digest links, if any.")
    fixed: int = Field(0, description="Broken links replaced by their text (0 while the "
                                      "unlink proposal waits for a person).")
    left_in_daily: int = Field(0, description="Broken links in daily/, reported, never rewritten.")
    report: str | None = Field(None, description="The audit file written, with `report`.")
    notices: list[str] = Field(default_factory=list, description="What was not done, and why.")


# -- the vault's own operations: init, status, links, graph, rename, index -----------------------

class InitRequest(_Request):
    path: str = Field(min_length=1, max_length=4096, description="The folder to make a vault of.")
    sample: bool = Field(False, description="Also copy the bundled sample material.")


class InitResponse(_Response):
    vault: str
    created: list[str] = Field(description="Files and folders made (none is overwritten).")


class StatusRequest(_Request):
    """No parameters: the vault as it is."""


class StatusResponse(_Response):
    vault: str
    files: dict[str, int] = Field(description="Files per layer.")
    digest_notes: dict[str, int] = Field(description="Readable digest notes per bucket.")
    problems: list[dict[str, str]] = Field(description="Files that could not be read, with the fix.")


class RecoverRequest(_Request):
    set_aside: bool = Field(False, description=(
        "Give up on the interrupted change: leave every note as it is now and keep the "
        "change's files under audit/ (docs/spec.md §3.4.7)."))


class RecoverResponse(_Response):
    messages: list[str] = Field(description="What was finished, undone or set aside; empty "
                                "when nothing was interrupted.")


class LinksRequest(_Request):
    path: str = Field(max_length=1000, description="A file of the vault, vault-relative.")

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        return _vault_path(value)


class LinkModel(_Response):
    target: str
    alias: str | None
    predicate: str | None
    embed: bool
    anchor: str | None
    line: int
    column: int


class GraphRequest(_Request):
    top: int = Field(10, ge=0, le=1000, description="How many of the most linked-to notes.")


class GraphResponse(_Response):
    model_config = ConfigDict(frozen=True, extra="allow")
    nodes: int
    edges: int
    buckets: dict[str, dict[str, int]]
    dangling_links: list[dict[str, Any]]
    isolated_nodes: list[str]
    top_inbound: list[dict[str, Any]]
    provenance_links: int


class GraphPreviewRequest(_Request):
    out: str = Field(min_length=1, max_length=4096,
                     description="The .html file to write (a local path, outside the vault's "
                                 "notes; an earlier preview there is replaced).")
    labels: int = Field(24, ge=0, le=1000, description="How many of the most-linked notes "
                                                       "get their name written.")


class GraphPreviewResponse(_Response):
    path: str = Field(description="The file written.")
    notes: int
    unresolved: int = Field(description="Names linked but not yet written: faint nodes.")
    attachments: int
    edges: int
    excluded_notes: int = Field(description="Notes under Obsidian's Excluded files: not drawn.")
    excluded_links: int = Field(description="Links into them (provenance): not drawn.")
    ambiguous_links: int
    groups: list[dict[str, Any]] = Field(description="graph.json's colour groups in order, "
                                                     "each with the notes it colours.")
    settings: dict[str, bool]
    search: str = Field("", description="graph.json's filter, when the preview applied it.")
    notices: list[str]


class RenameRequest(_Request):
    old: str = Field(max_length=1000, description="The note (or, with move_source, daily log).")
    new: str = Field(max_length=1000, description="Where it goes.")
    dry_run: bool = False
    move_source: bool = Field(False, description="Allow moving a daily log within daily/.")


class RenameResponse(_Response):
    old: str
    new: str
    dry_run: bool
    links_rewritten: dict[str, int] = Field(description="File -> links retargeted in it.")
    left_alone: dict[str, int] = Field(description="Files in resource/ still linking the old path.")
    meta: list[str] = Field(default_factory=list, description="Derived signals (community, "
                            "recency, archive, cooldowns, queues) that now name the new path.")
    obsidian: list[str] = Field(default_factory=list, description="Obsidian's views brought up "
                                "to date (.obsidian/graph.json, the community canvas).")


class IndexRequest(_Request):
    rebuild: bool = Field(False, description="Drop the index and build it again from the files.")


class IndexResponse(_Response):
    indexed: list[str]
    removed: list[str]
    chunks_embedded: int
    reembedded_all: bool
    message: str | None
    stats: dict[str, Any]


# -- import ---------------------------------------------------------------------------------

class ImportRequest(_Request):
    source: str = Field(min_length=1, max_length=4096,
                        description="The folder of the Obsidian vault to adopt (a local path).")
    bucket: Literal["procedure", "personal", "wiki"] = Field(
        "wiki", description="The bucket its notes go to (move a note later with `rename`).")
    dry_run: bool = Field(False, description="Plan and report; write nothing.")


class ImportedNoteModel(_Response):
    source: str
    path: str
    snapshot: str
    renamed: bool


class ImportResponse(_Response):
    source: str
    folder: str = Field(description="resource/<day>/<vault name>: where the originals are kept.")
    notes: list[ImportedNoteModel]
    attachments: dict[str, str] = Field(description="Attachment -> its copy in resource/.")
    kept_as_files: list[dict] = Field(description="Drawings, templates and canvases: kept as "
                                                  "files (path, snapshot, why), not made notes.")
    skipped: list[dict] = Field(description="Files not brought as notes, each with why.")
    unresolved: list[dict] = Field(description="Links left as written (nothing or several "
                                               "files of the imported vault match them).")
    links_rewritten: int
    dry_run: bool
    excluded_in_obsidian: list[str] = Field(
        description="Folders added to Obsidian's Excluded files (.obsidian/app.json), so its "
                    "search and graph do not show the originals beside the notes.")
    notices: list[str] = Field(description="What the person should know, e.g. an app.json "
                                           "left alone because it does not parse.")


# -- material -------------------------------------------------------------------------------

class DailyEntryRequest(_Request):
    text: str = Field(min_length=1, max_length=MAX_ENTRY_CHARS,
                      description="The entry: what happened, what was learned, in Markdown.")
    title: str | None = Field(None, max_length=200, description="A heading for the entry.")
    log: str = Field("log", min_length=1, max_length=80,
                     description="Which log of the day: daily/<date>/<log>.md (made a slug).")
    day: date | None = Field(None, description="The day's folder; default today (UTC).")

    @field_validator("text")
    @classmethod
    def _has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the entry is empty")
        if "\x00" in value:
            raise ValueError("the entry contains a NUL character")
        return value


class DailyEntryResult(_Response):
    path: str
    created: bool = Field(description="True when this entry started the file.")
    appended_bytes: int
    size: int


# -- long operations ------------------------------------------------------------------------

Phase = Literal["communities", "abstract", "merge", "split", "archive", "cooldowns", "health"]


class DreamRequest(_Request):
    files: list[str] = Field(default_factory=list, max_length=1000,
                             description="Material: files or folders in daily/ or resource/, or "
                                         "days (2026-10-05); none: everything not yet dreamt.")
    force: bool = Field(False, description="Dream files again even when they are unchanged.")
    dry_run: bool = Field(False, description="Plan and report the proposals; write no note.")
    review: bool = Field(False, description="Apply nothing: every proposal waits for a person.")

    @field_validator("files")
    @classmethod
    def _material(cls, value: list[str]) -> list[str]:
        for item in value:
            if _is_day(item):
                continue
            if any(part in (".", "..") for part in item.strip().split("/")):
                raise ValueError(f"{item} is not material; give files or folders in daily/ or "
                                 "resource/ (relative to the vault), a day like 2026-10-05, or "
                                 "no material to dream everything not yet dreamt")
            path = _vault_path(item).rstrip("/")
            if path not in ("daily", "resource") and not path.startswith(("daily/", "resource/")):
                raise ValueError(f"{item} is not material; give files or folders in daily/ or "
                                 "resource/, or a day like 2026-10-05")
        return value


def _is_day(text: str) -> bool:
    try:
        date.fromisoformat(text.strip())
    except ValueError:
        return False
    return len(text.strip()) == 10


class ConsolidateRequest(_Request):
    only: list[Phase] | None = Field(None, description="Just these phases; default: what is due.")
    force: bool = Field(False, description="Run the phases even when they are not due.")
    dry_run: bool = Field(False, description="Compute and report; write nothing at all.")


class BridgeRequest(_Request):
    communities: bool = Field(False, description="A colour group per community in graph.json.")
    canvas: bool = Field(False, description="meta/canvas/communities.canvas.")
    per_community: bool = Field(False, description="With canvas: one canvas per community too.")
    normalize: bool = Field(False, description="Rewrite short links in digest/ to vault paths.")
    dry_run: bool = Field(False, description="Say what would change; write nothing.")


class ProposalRef(_Request):
    id: str = Field(min_length=3, max_length=64, description="A proposal id or a unique prefix.")
    check_id = field_validator("id", mode="before")(_proposal_id)


class DreamResponse(_Response):
    """What `dream --json` prints: each unit's outcome, what waits, what was set aside."""

    model_config = ConfigDict(frozen=True, extra="allow")  # a brain's ledger and new figures pass
    materials: list[str] = Field(description="The material files dreamt.")
    outcomes: list[dict[str, Any]] = Field(description="One per unit: action, state, paths, why.")
    skipped: list[str] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)
    tokens: dict[str, Any] = Field(default_factory=dict)
    pending: list[str] = Field(default_factory=list, description="Proposals waiting for a person.")
    split_candidates: list[str] = Field(default_factory=list)
    broken_links: list[str] = Field(default_factory=list)


class PhaseReport(_Response):
    phase: str
    ran: bool
    reason: str
    summary: str = Field("", description="The line a person reads.")
    changed: list[str] = Field(default_factory=list, description="Files written.")
    details: dict[str, Any] = Field(default_factory=dict, description="The phase's figures.")
    seconds: float = Field(0.0, description="Wall seconds.")
    cpu_seconds: float = Field(0.0, description="CPU seconds of the process, every thread.")
    embedding_seconds: float = Field(0.0, description="The part of cpu_seconds spent embedding.")


class BridgeResponse(_Response):
    graph: dict[str, Any] | None = Field(None, description=".obsidian/graph.json: what changed.")
    canvas: dict[str, Any] | None = Field(None, description="The canvases written.")
    normalize: dict[str, Any] | None = Field(None, description="Short links rewritten.")
    notices: list[str] = Field(default_factory=list)
    preview: GraphPreviewResponse | None = Field(
        None, description="The picture of the graph view written after it (the command "
                          "line's `bridge --preview FILE.html`); none otherwise.")


class ConsolidateResponse(_Response):
    dry_run: bool
    ran: list[str] = Field(description="The phases that ran, in order.")
    audit: str | None = Field(None, description="The audit file the run was recorded in.")
    phases: list[PhaseReport]
    bridge: BridgeResponse | None = Field(None, description="Obsidian's views brought up to date.")


class JobProgress(_Response):
    done: int = 0
    total: int = 0
    message: str = ""


class JobStatus(_Response):
    id: str
    kind: Literal["dream", "consolidate", "bridge"]
    state: Literal["running", "done", "failed"]
    started_at: str
    finished_at: str | None = None
    progress: JobProgress
    result: dict[str, Any] | None = Field(None, description="The operation's report, when done.")
    error: str | None = Field(None, description="Why it failed, when it did.")


# -- what the Obsidian plugin asks as a person reads (ops/reading.py) ------------------------

class RelatedRequest(_Request):
    """The notes related to one note of the vault."""

    path: str = Field(max_length=1000, description="A Markdown note, vault-relative: its "
                      "description and body are the query, and it is left out of the answer.")
    k: int = Field(8, ge=1, le=50, description="How many related files to return.")
    scope: Literal["digest", "sources", "all"] = Field(
        "digest", description="digest: the notes; sources: daily/ and resource/; all: both.")

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        return _vault_path(value)


class RelatedResponse(_Response):
    path: str
    hits: list[RecallHitModel]
    vectors: str = ""
    note: str | None = None


class NoteOpenedRequest(_Request):
    """A person opened a note (in Obsidian)."""

    path: str = Field(max_length=1000, description="The digest note opened, vault-relative.")

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        return _vault_path(value)


class NoteOpenedResponse(_Response):
    path: str
    logged: bool = Field(description="Whether an `open` line was written now.")
    last_open: str | None = Field(None, description="When not: the open of the last hour that "
                                  "already counts (ISO 8601 UTC).")
    reason: str | None = Field(None, description="Why nothing was written, when nothing was.")


class ProposalFiles(_Response):
    id: str
    files: dict[str, str] = Field(description="{path: the text the proposal would write} for "
                                  "each file it creates or edits (a deletion has none).")
