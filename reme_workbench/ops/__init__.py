"""The operations layer: what a client may do with a vault, defined once.

`reme_workbench.ops` is the one place the front ends — the CLI, the local HTTP API an
Obsidian plugin calls (`reme_workbench.server`) and the MCP server agents use — call
into: plain functions (`operations`, and the long ones in `jobs`) over the library, with
pydantic models in and out (`models`). A front end translates a request into a model,
calls the function and serialises or prints the answer; it adds no rule of its own.

    from reme_workbench.ops import Workspace, RecallRequest, recall
    ws = Workspace("my-vault")
    for hit in recall(ws, RecallRequest(query="pgbouncer port", k=5)).hits:
        print(hit.path, hit.score)
"""

from ..vault.layout import CACHE_DIR  # where a front end keeps its own files (.reme/)
from . import registry, review_ops
from .demo import build_demo, fresh_demo_copy, notebook_vault, notebook_workspace
from .indexing import index_status, start_background_index, stop_background_index
from .job_runner import JobRunner
from .jobs import bridge, consolidate, consolidate_phases, dream
from .models import (
    AcceptRequest,
    BridgeRequest,
    BridgeResponse,
    BrokenLinkModel,
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
    JobProgress,
    JobStatus,
    LinkModel,
    LinkRef,
    LinksRequest,
    NoteContext,
    NoteRequest,
    PhaseReport,
    ProposalDetail,
    ProposalRef,
    ProposalsRequest,
    ProposalSummary,
    RecallBatchAnswer,
    RecallBatchRequest,
    RecallBatchResponse,
    RecallChunk,
    RecallHitModel,
    RecallQuery,
    RecallRequest,
    RecallResponse,
    RecoverRequest,
    RecoverResponse,
    RejectRequest,
    RenameRequest,
    RenameResponse,
    StatusResponse,
)
from .operations import (
    accept_proposal,
    append_daily,
    build_request,
    health,
    import_notes,
    list_proposals,
    note_context,
    recall,
    recall_batch,
    reject_proposal,
    show_proposal,
)
from .review_ops import (
    ArchiveOverview,
    CommunitiesOverview,
    CommunityView,
    Decision,
    Drawing,
    FileDiff,
    MergeReview,
    ReviewFilter,
    Section,
    UncertainEntry,
    accept_many,
    archive_overview,
    communities_overview,
    community_drawing,
    decide,
    file_diffs,
    hand_to_dream,
    keep_both,
    load_proposal,
    merge_anyway,
    merge_reviews,
    proposals,
    replan,
    story_sections,
    thaw,
    uncertain_entries,
    workspace_of,
    writes_text,
)
from .vault_ops import (
    build_index,
    check_graph_preview,
    graph,
    graph_preview,
    init_vault,
    links,
    place_notebooks,
    recover,
    rename,
    revert_proposal,
    status,
)
from .workspace import Workspace

__all__ = [
    "Workspace", "build_request", "recall", "recall_batch", "note_context", "list_proposals", "show_proposal",
    "accept_proposal", "reject_proposal", "health", "import_notes", "ImportRequest",
    "ImportResponse", "append_daily",
    "DailyEntryRequest", "DailyEntryResult",
    "dream", "consolidate", "bridge", "JobRunner", "DreamRequest", "ConsolidateRequest",
    "BridgeRequest", "JobStatus", "JobProgress", "DreamResponse", "ConsolidateResponse",
    "BridgeResponse", "PhaseReport", "ProposalRef", "registry",
    "Decision", "decide", "accept_many", "replan", "thaw", "merge_anyway", "keep_both",
    "hand_to_dream", "proposals", "load_proposal", "communities_overview", "community_drawing",
    "archive_overview", "merge_reviews", "uncertain_entries", "workspace_of", "writes_text",
    "review_ops", "ArchiveOverview", "CommunitiesOverview", "CommunityView", "Drawing",
    "FileDiff", "MergeReview", "ReviewFilter", "Section", "UncertainEntry", "file_diffs",
    "story_sections",
    "CACHE_DIR", "consolidate_phases", "place_notebooks",
    "build_demo", "fresh_demo_copy", "notebook_workspace", "notebook_vault",
    "init_vault", "status", "links", "graph", "graph_preview", "check_graph_preview", "rename",
    "revert_proposal",
    "build_index",
    "recover", "RecoverRequest", "RecoverResponse",
    "InitRequest", "InitResponse", "StatusResponse", "LinksRequest", "LinkModel", "GraphRequest",
    "GraphResponse", "GraphPreviewRequest", "GraphPreviewResponse", "RenameRequest", "RenameResponse", "IndexRequest", "IndexResponse",
    "RecallRequest", "RecallResponse", "RecallHitModel", "RecallChunk", "NoteRequest",
    "NoteContext", "LinkRef", "ProposalsRequest", "ProposalSummary", "ProposalDetail",
    "AcceptRequest", "RejectRequest", "HealthRequest", "HealthResponse", "BrokenLinkModel",
    "RecallQuery", "RecallBatchRequest", "RecallBatchAnswer", "RecallBatchResponse",
    "index_status", "start_background_index", "stop_background_index", "IndexStatusRequest",
    "IndexStatusResponse",
]
