"""Long operations — dream, consolidate, bridge — and the runner that keeps a client from
waiting on them.

`dream`, `consolidate` and `bridge` are plain operations like the others (a request
model in, the library's report out as JSON), with a `progress(done, total, message)`
callback. `JobRunner` runs one of them at a time in a background thread and keeps its
status — state, progress, result or error — under an id a client polls, so an Obsidian
plugin never blocks on a dream. One job at a time per runner: dream and consolidate take
the vault's own locks anyway, and a second request while one runs is refused with the
running job's id rather than queued behind it.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ..errors import BusyError, NotFoundError, RemeError
from .indexing import embedding_progress
from .models import (
    BridgeRequest,
    BridgeResponse,
    ConsolidateRequest,
    ConsolidateResponse,
    DreamRequest,
    DreamResponse,
    JobProgress,
    JobStatus,
)
from .operations import indexing_progress, require_writable
from .workspace import Workspace

__all__ = ["dream", "consolidate", "consolidate_phases", "bridge", "JobRunner", "Progress"]

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
    brain, ledger = ws.dream_brain(settings)
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
    brain = ws.consolidate_brain(embedder=embedder)  # the offline one, unless a model is named
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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class JobRunner:
    """Long operations on `ws` in a background thread, one at a time (see the module doc).
    Keeps the last `keep` finished jobs."""

    def __init__(self, ws: Workspace, *, keep: int = 50) -> None:
        self.ws = ws
        self.keep = keep
        self._jobs: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._threads: dict[str, threading.Thread] = {}

    def start(self, kind: str, request) -> JobStatus:
        from . import registry  # the long operations are declared there

        long_ops = {op.name: op for op in registry.OPERATIONS if op.long}
        if kind not in long_ops:
            raise RemeError(f"No long operation {kind!r}; there are {', '.join(long_ops)}.")
        operation, model = long_ops[kind].invoke, long_ops[kind].request
        if not isinstance(request, model):
            raise RemeError(f"{kind} takes a {model.__name__}, not {type(request).__name__}.")
        with self._lock:
            running = [j for j in self._jobs.values() if j["state"] == "running"]
            if running:
                raise BusyError(f"Job {running[0]['id']} ({running[0]['kind']}) is still running; "
                                "wait for it (GET /jobs/<id>) and start this one then.")
            job_id = f"j-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
            job = {"id": job_id, "kind": kind, "state": "running", "started_at": _now(),
                   "finished_at": None, "progress": {"done": 0, "total": 0, "message": ""},
                   "result": None, "error": None}
            self._jobs[job_id] = job
            self._forget_old()

        def progress(done: int, total: int, message: str) -> None:
            with self._lock:
                job["progress"] = {"done": int(done), "total": int(total), "message": str(message)}

        def work() -> None:
            try:
                result = operation(self.ws, request, progress)
            except RemeError as exc:
                outcome = {"state": "failed", "error": str(exc)}
            except Exception as exc:  # noqa: BLE001 - a job must end, and say why
                outcome = {"state": "failed", "error": f"{type(exc).__name__}: {exc}"}
            else:
                outcome = {"state": "done", "result": result.model_dump(mode="json")}
            with self._lock:
                job.update(outcome, finished_at=_now())

        thread = threading.Thread(target=work, name=f"reme-job-{job_id}", daemon=True)
        self._threads[job_id] = thread
        thread.start()
        return self.status(job_id)

    def status(self, job_id: str) -> JobStatus:
        with self._lock:
            job = self._jobs.get(str(job_id))
            if job is None:
                raise NotFoundError(f"No job {job_id!r}; GET /jobs lists the jobs of this server.")
            return JobStatus(**{**job, "progress": JobProgress(**job["progress"])})

    def list(self) -> list[JobStatus]:
        with self._lock:
            ids = list(self._jobs)
        return [self.status(i) for i in ids]

    def wait(self, job_id: str, timeout: float | None = None) -> JobStatus:
        """Block until the job ends (tests, and clients that want to)."""
        thread = self._threads.get(job_id)
        if thread is not None:
            thread.join(timeout)
        return self.status(job_id)

    def _forget_old(self) -> None:
        finished = [i for i, j in self._jobs.items() if j["state"] != "running"]
        for job_id in finished[: max(0, len(finished) - self.keep)]:
            self._jobs.pop(job_id, None)
            self._threads.pop(job_id, None)
