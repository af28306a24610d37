"""The runner that keeps a client from waiting on a long operation.

`JobRunner` runs one long operation (`registry.OPERATIONS` with `long`: dream,
consolidate, bridge, in `jobs`) at a time in a background thread and keeps its status —
state, progress, result or error — under an id a client polls, so an Obsidian plugin
never blocks on a dream. One job at a time per runner: dream and consolidate take the
vault's own locks anyway, and a second request while one runs is refused with the
running job's id rather than queued behind it. It reads the registry, which declares
the operations of `jobs`: kept apart from them, so no module of `ops` imports one that
imports it back.
"""

from __future__ import annotations

import secrets
import threading
from datetime import UTC, datetime
from typing import Any

from ..errors import BusyError, NotFoundError, RemeError
from . import registry
from .models import JobProgress, JobStatus
from .workspace import Workspace

__all__ = ["JobRunner"]


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
