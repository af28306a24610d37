"""The operations on the vault itself: make one, describe it, list a file's links, the link
graph, rename a note, undo a proposal, bring the index up to date. Plain functions over the
library with models in and out, like every operation (`ops/operations.py`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import RemeError
from .indexing import embedding_progress
from .models import (
    GraphPreviewRequest,
    GraphPreviewResponse,
    GraphRequest,
    GraphResponse,
    IndexRequest,
    IndexResponse,
    InitRequest,
    InitResponse,
    LinkModel,
    LinksRequest,
    ProposalRef,
    ProposalSummary,
    RecoverRequest,
    RecoverResponse,
    RenameRequest,
    RenameResponse,
    StatusResponse,
)
from .operations import checked_proposal_id, indexing_progress, proposal_fields, require_writable
from .workspace import Workspace

__all__ = ["init_vault", "status", "links", "graph", "graph_preview", "check_graph_preview",
           "rename", "revert_proposal", "build_index",
           "place_notebooks", "recover"]


def init_vault(request: InitRequest) -> InitResponse:
    """Make a vault at `path` (or add the missing layers to a folder): the layers, the review
    notebooks in workbench/ and a .gitignore entry for .reme/. Existing files are never
    overwritten; an existing folder's reme.toml is checked first, as every command does."""
    from ..vault.vault import init_vault as make
    from ..workbench.notebooks import place_notebooks

    path = Path(request.path).expanduser()
    if path.is_dir():
        Workspace.settings_of(path)  # a typo in reme.toml is refused before anything is made
    created = make(path, sample=request.sample)
    placed = place_notebooks(path)  # the review notebooks (Obsidian ignores workbench/)
    return InitResponse(vault=str(path), created=[*created, *(f"workbench/{n}" for n in placed.placed)])


def status(ws: Workspace) -> StatusResponse:
    """Files per layer, readable digest notes per bucket, and the files that cannot be read."""
    from ..vault.layout import BUCKETS, bucket_of, is_digest_note, layer_of

    vault = ws.open_vault()
    layers: dict[str, int] = {}
    buckets = {b: 0 for b in BUCKETS}
    for path, record in vault.scan.records.items():
        layer = layer_of(path) or "other"
        layers[layer] = layers.get(layer, 0) + 1
        if is_digest_note(path) and record.readable:  # an unreadable file is a problem
            buckets[bucket_of(path)] += 1
    return StatusResponse(vault=str(vault.root.resolve()), files=dict(sorted(layers.items())),
                          digest_notes=buckets,
                          problems=[{"path": p.path, "message": p.message}
                                    for p in vault.scan.problems])


def links(ws: Workspace, request: LinksRequest) -> list[LinkModel]:
    """The wikilinks of one file of the vault, in order."""
    from ..vault.layout import resolve_inside
    from ..vault.links import parse_links
    from ..vault.note import decode_note_bytes

    vault = ws.open_vault()
    full = resolve_inside(vault.root, request.path)
    if not full.is_file():
        raise RemeError(f"{request.path} is not a file in the vault {vault.root.resolve()}; "
                        "check the path.", path=request.path)
    limit = vault.max_note_bytes
    with full.open("rb") as fh:
        data = fh.read(limit + 1)  # one byte more tells a file over the limit
    return [LinkModel(**link.to_json())
            for link in parse_links(decode_note_bytes(data, request.path, max_bytes=limit))]


def graph(ws: Workspace, request: GraphRequest) -> GraphResponse:
    """The digest link graph: notes and links per bucket, dangling links, isolated notes,
    the most linked-to notes (short links read as Obsidian reads them)."""
    return GraphResponse(**ws.open_vault().graph.stats(top=request.top))


def check_graph_preview(ws: Workspace, request: GraphPreviewRequest) -> str:
    """Where `graph_preview` would write, or the error saying where to write instead — for
    a command that writes other things first and must not start when the file is refused."""
    from obsidian_bridge.graph_preview import check_preview_target

    return str(check_preview_target(Path(request.out), ws.open_vault().root))


def graph_preview(ws: Workspace, request: GraphPreviewRequest) -> GraphPreviewResponse:
    """Write an HTML preview of what Obsidian's graph view shows of the vault — its notes
    (not the files under Excluded files), resolved links, notes not yet written, coloured
    by graph.json's groups — to `request.out`: never into the vault's notes, and never over
    a file that is not an earlier preview (obsidian_bridge/graph_preview.py). Reads the
    vault only. A CLI operation: it writes where its caller names, so no HTTP route."""
    from obsidian_bridge.graph_preview import (
        build_preview,
        check_preview_target,
        render_html,
        write_preview,
    )

    vault = ws.open_vault()
    check_preview_target(Path(request.out), vault.root)  # before the layout's seconds
    preview = build_preview(vault, labels=request.labels)
    written = write_preview(Path(request.out), render_html(preview), vault.root)
    return GraphPreviewResponse(path=str(written), **preview.to_json())


def rename(ws: Workspace, request: RenameRequest) -> RenameResponse:
    """Move a note and retarget every link to it, in one atomic changeset (see
    `vault.vault.rename_note`); `dry_run` says what would change. The note keeps what was
    derived about it — its community, recency, archive state, cooldowns — under its new
    path, and Obsidian's views (graph colour groups, the community canvas) follow when the
    vault has a .obsidian/ folder."""
    from ..vault.meta import rename_in_meta
    from ..vault.vault import rename_note

    vault = ws.open_vault()
    if not request.dry_run:
        require_writable(vault, "rename")
    plan = rename_note(vault, request.old, request.new, dry_run=request.dry_run,
                       move_source=request.move_source)
    meta, obsidian = [], []
    if not request.dry_run:
        meta = rename_in_meta(vault.root, plan.old, plan.new)
        if meta and (vault.root / ".obsidian").is_dir():
            from obsidian_bridge import run_bridge

            views = run_bridge(vault, communities=True, canvas=True)
            obsidian = [*(["graph.json"] if views.graph and views.graph.changed else []),
                        *(views.canvas.written if views.canvas else [])]
    return RenameResponse(old=plan.old, new=plan.new, dry_run=request.dry_run,
                          links_rewritten=plan.counts, left_alone=plan.left_alone, meta=meta,
                          obsidian=obsidian)


def revert_proposal(ws: Workspace, request: ProposalRef) -> ProposalSummary:
    """Undo an applied proposal while its files still hold what it wrote."""
    from ..proposals import ProposalQueue

    vault = ws.open_vault()
    require_writable(vault, "proposals revert")
    queue = ProposalQueue(vault)
    reverted = queue.revert(queue.resolve(checked_proposal_id(request.id)))
    return ProposalSummary(**proposal_fields(reverted))


def build_index(ws: Workspace, request: IndexRequest,
                progress: Callable[[int, int, str], None] | None = None) -> IndexResponse:
    """Bring the keyword + vector index up to date (only changed files are read again). The
    one operation that re-embeds everything when the workspace's embedder is not the one
    the index was built with (and says so)."""
    vault = ws.open_vault()
    require_writable(vault, "index (it keeps the index in .reme/)")
    with ws.index(vault, on_embedder_change="reembed", rebuild=request.rebuild) as idx:
        delta = idx.refresh(rebuild=request.rebuild, progress=indexing_progress(progress),
                            embedding=embedding_progress(progress))
        stats = idx.stats()
    return IndexResponse(indexed=list(delta.indexed), removed=list(delta.removed),
                         chunks_embedded=delta.chunks, reembedded_all=delta.reembedded_all,
                         message=delta.message, stats=stats)


def place_notebooks(ws: Workspace, *, refresh: bool = False) -> list[str]:
    """Bring the review notebooks in workbench/ up to date from the package's masters (a
    copy a person edited is kept, unless `refresh`: then it is saved beside the new one);
    returns what was done, one line per kind."""
    from ..workbench.notebooks import place_notebooks as place

    return place(ws.open_vault().root, refresh=refresh).lines()


def recover(ws: Workspace, request: RecoverRequest) -> RecoverResponse:
    """Settle a change a crash or a refusing file system left half written
    (docs/spec.md §3.4.7): finish it, or undo it when someone edited its files since.
    `set_aside`: give up on it instead — every note stays as it is now and the change's
    files are kept under audit/. Opening the vault already tries the first; this says
    what happened, or why it cannot, once the cause is fixed."""
    vault = ws.open_vault()
    require_writable(vault, "recover")
    done = vault.store.recover(set_aside=request.set_aside)
    return RecoverResponse(messages=[*vault.recovery_messages, *done])
