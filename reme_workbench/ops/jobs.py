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

from ..errors import RemeError
from .models import BridgeRequest, ConsolidateRequest, DreamRequest, JobProgress, JobStatus
from .operations import Workspace, _writable

__all__ = ["dream", "consolidate", "bridge", "JobRunner", "Progress"]

Progress = Callable[[int, int, str], None]


def _quiet(_done: int, _total: int, _message: str) -> None:
    return None


def dream(ws: Workspace, request: DreamRequest, progress: Progress = _quiet) -> dict[str, Any]:
    """Dream material into notes with the brain reme.toml names (offline by default):
    `files`, or everything not yet dreamt. What the policy holds waits as proposals."""
    from ..dream.run import build_brain, dream_vault
    from ..index.store import VaultIndex

    vault = ws.open_vault()
    _writable(vault, "dream")
    brain, ledger = build_brain(ws.settings)

    def tell(where) -> None:
        progress(where.files_done, where.files_total,
                 f"{where.files_done}/{where.files_total} files, {where.units_done} units")

    with VaultIndex(vault.root, ws.get_embedder(), scan=vault.scan) as index:
        index.refresh()
        report = dream_vault(vault, brain, index, ws.settings, targets=list(request.files),
                             force=request.force, progress=tell)
    data = report.to_json()
    if ledger is not None:
        data["tokens"] = {**ledger.totals().to_json(), "calls": sum(ledger.calls().values())}
    return data


def consolidate(ws: Workspace, request: ConsolidateRequest,
                progress: Progress = _quiet) -> dict[str, Any]:
    """Run the consolidate phases that are due (or `only` these; `force` ignores the
    schedule). Abstract, merge and split make proposals that wait for a person."""
    from ..consolidate.run import consolidate_vault

    vault = ws.open_vault()
    _writable(vault, "consolidate")
    report = consolidate_vault(vault, ws.settings, only=request.only, force=request.force,
                               embedder=ws.get_embedder(),
                               progress=lambda phase, done, total: progress(done, total, phase))
    return report.to_json()


def bridge(ws: Workspace, request: BridgeRequest, progress: Progress = _quiet) -> dict[str, Any]:
    """What Obsidian reads natively: graph colour groups, the community canvas, and (with
    `normalize`) short links in digest/ rewritten to vault paths."""
    from obsidian_bridge import run_bridge

    vault = ws.open_vault()
    _writable(vault, "bridge")
    progress(0, 1, "bridge")
    report = run_bridge(vault, communities=request.communities, canvas=request.canvas,
                        normalize=request.normalize)
    progress(1, 1, "bridge")
    return report.to_json()


_OPERATIONS = {"dream": (dream, DreamRequest), "consolidate": (consolidate, ConsolidateRequest),
               "bridge": (bridge, BridgeRequest)}


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
        if kind not in _OPERATIONS:
            raise RemeError(f"No long operation {kind!r}; there are {', '.join(_OPERATIONS)}.")
        operation, model = _OPERATIONS[kind]
        if not isinstance(request, model):
            raise RemeError(f"{kind} takes a {model.__name__}, not {type(request).__name__}.")
        with self._lock:
            running = [j for j in self._jobs.values() if j["state"] == "running"]
            if running:
                raise RemeError(f"Job {running[0]['id']} ({running[0]['kind']}) is still running; "
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
                outcome = {"state": "done", "result": result}
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
                raise RemeError(f"No job {job_id!r}; GET /jobs lists the jobs of this server.")
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
