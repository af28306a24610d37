"""Long operations — dream, consolidate, bridge.

`dream`, `consolidate` and `bridge` are plain operations like the others (a request
model in, the library's report out as JSON), with a `progress(done, total, message)`
callback. `job_runner.JobRunner` runs them in the background for a server, from the
registry's list of long operations (so this module imports neither).
"""

from __future__ import annotations

from collections.abc import Callable

from .indexing import embedding_progress
from .models import (
    BridgeRequest,
    BridgeResponse,
    ConsolidateRequest,
    ConsolidateResponse,
    DreamRequest,
    DreamResponse,
)
from .operations import indexing_progress, require_writable
from .workspace import Workspace

__all__ = ["dream", "consolidate", "consolidate_phases", "bridge", "Progress"]

Progress = Callable[[int, int, str], None]


def _quiet(_done: int, _total: int, _message: str) -> None:
    return None


def dream(ws: Workspace, request: DreamRequest, progress: Progress = _quiet) -> DreamResponse:
    """Dream material into notes with the workspace's brain (reme.toml's, offline by
    default): `files` (files, folders or days), or everything not yet dreamt. What the
    policy holds — everything, with `review` — waits as proposals; `dry_run` writes no
    note. Returns the dream report as JSON (what `dream --json` prints)."""
    from ..dream.run import dream_vault

    vault = ws.open_vault()
    require_writable(vault, "dream (even a dry run: it brings the index in .reme/ up to date)")
    settings = ws.settings
    if request.review:  # the policy comes from the settings: hold every action for a person
        held = settings.proposals.model_copy(update={"auto_apply": ()})
        settings = settings.model_copy(update={"proposals": held})
    brain, ledger = ws.get_dream_brain()
    with ws.index(vault) as index:
        index.refresh(progress=indexing_progress(progress), embedding=embedding_progress(progress))
        report = dream_vault(vault, brain, index, settings, targets=list(request.files),
                             dry_run=request.dry_run, force=request.force,
                             progress=lambda where: progress(where.files_done, where.files_total,
                                                             _dream_progress_text(where)))
    data = report.to_json()
    if ledger is not None:  # the ledger also counts calls whose replies were unusable
        data["ledger"] = ledger.to_dict()
        data["tokens"] = {**ledger.totals().to_json(), "calls": sum(ledger.calls().values())}
    return DreamResponse(**data)


def _dream_progress_text(where) -> str:
    """One line for a person watching: the file being dreamt, and units done so far."""
    units = f", {where.units_done} unit(s) done" if where.units_done else ""
    in_file = f" ({where.units_in_file} units)" if where.units_in_file else ""
    return (f"dreaming: file {min(where.files_done + 1, where.files_total)}/{where.files_total} "
            f"{where.material}{in_file}{units}")


def consolidate_phases(only: str | None) -> list[str]:
    """`--only communities,archive` as the phases in run order; a name it does not know is
    refused with the list of phases, before anything runs."""
    from ..consolidate.run import parse_only

    return list(parse_only(only))


def consolidate(ws: Workspace, request: ConsolidateRequest,
                progress: Progress = _quiet) -> ConsolidateResponse:
    """Run the consolidate phases that are due (or `only` these; `force` ignores the
    schedule; `dry_run` writes nothing). Abstract, merge and split make proposals that
    wait for a person. When the vault is open in Obsidian (a .obsidian/ folder) and the
    communities were computed, the graph's colour groups and the community canvas follow
    (`bridge`). Returns the report as JSON (what `consolidate --json` prints)."""
    from ..consolidate.run import consolidate_vault

    vault = ws.open_vault()
    if not request.dry_run:
        require_writable(vault, "consolidate (it writes meta/, audit/ and fixes digest/)")
    from ..index.metered import MeteredEmbedder

    shown = {"done": 0, "total": 0, "text": "consolidate"}

    def tell(phase: str, done: int, total: int) -> None:
        text = "consolidate: done" if phase == "done" else f"consolidate: {phase} ({done + 1}/{total})"
        shown.update(done=done, total=total, text=text)
        progress(done, total, text)

    def embedded(texts: int) -> None:  # the phase's line, with what it has embedded so far
        progress(shown["done"], shown["total"], f"{shown['text']}, {texts} texts embedded")

    # counted, so each phase reports its embedding apart from the rest of its work
    embedder = MeteredEmbedder(ws.get_embedder(), on_embed=embedded)
    brain = ws.get_consolidate_brain(embedder=embedder)  # the offline one, unless a model is named
    report = consolidate_vault(vault, ws.settings, only=request.only, dry_run=request.dry_run,
                               force=request.force, brain=brain, embedder=embedder,
                               progress=tell)
    bridged = None
    if (vault.root / ".obsidian").is_dir() and "communities" in report.ran and not request.dry_run:
        from obsidian_bridge import run_bridge  # the vault is opened in Obsidian: keep its views

        bridged = run_bridge(vault, communities=True, canvas=True).to_json()
    return ConsolidateResponse(**report.to_json(), bridge=bridged)


def bridge(ws: Workspace, request: BridgeRequest, progress: Progress = _quiet) -> BridgeResponse:
    """What Obsidian reads natively: graph colour groups, the community canvas (one per
    community with `per_community`), and (with `normalize`) short links in digest/
    rewritten to vault paths; `dry_run` says what would change."""
    from obsidian_bridge import run_bridge

    vault = ws.open_vault()
    if not request.dry_run:
        require_writable(vault, "bridge")
    progress(0, 1, "bridge")
    report = run_bridge(vault, communities=request.communities, canvas=request.canvas,
                        per_community=request.per_community, normalize=request.normalize,
                        dry_run=request.dry_run)
    progress(1, 1, "bridge")
    return BridgeResponse(**report.to_json())
