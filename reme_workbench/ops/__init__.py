"""The operations layer: what a client may do with a vault, defined once.

`reme_workbench.ops` is the one place the front ends — the CLI, and the local HTTP API
and the MCP server an Obsidian plugin and agents will use (not built yet) — call into: plain functions (`operations`) over the
library, with pydantic models in and out (`models`). A front end translates a request
into a model, calls the function and serialises the answer; it adds no rule of its own.

    from reme_workbench.ops import Workspace, RecallRequest, recall
    ws = Workspace("my-vault")
    for hit in recall(ws, RecallRequest(query="pgbouncer port", k=5)).hits:
        print(hit.path, hit.score)
"""

from .jobs import JobRunner, bridge, consolidate, dream
from .models import (
    AcceptRequest,
    BridgeRequest,
    BrokenLinkModel,
    ConsolidateRequest,
    DailyEntryRequest,
    DailyEntryResult,
    DreamRequest,
    HealthResponse,
    JobProgress,
    JobStatus,
    LinkRef,
    NoteContext,
    NoteRequest,
    ProposalDetail,
    ProposalsRequest,
    ProposalSummary,
    RecallChunk,
    RecallHitModel,
    RecallRequest,
    RecallResponse,
    RejectRequest,
)
from .operations import (
    Workspace,
    accept_proposal,
    append_daily,
    build_request,
    health,
    list_proposals,
    note_context,
    recall,
    reject_proposal,
    show_proposal,
)

__all__ = [
    "Workspace", "build_request", "recall", "note_context", "list_proposals", "show_proposal",
    "accept_proposal", "reject_proposal", "health", "append_daily",
    "DailyEntryRequest", "DailyEntryResult",
    "dream", "consolidate", "bridge", "JobRunner", "DreamRequest", "ConsolidateRequest",
    "BridgeRequest", "JobStatus", "JobProgress",
    "RecallRequest", "RecallResponse", "RecallHitModel", "RecallChunk", "NoteRequest",
    "NoteContext", "LinkRef", "ProposalsRequest", "ProposalSummary", "ProposalDetail",
    "AcceptRequest", "RejectRequest", "HealthResponse", "BrokenLinkModel",
]
