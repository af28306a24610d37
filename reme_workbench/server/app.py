"""The local HTTP API: the operations layer over JSON, for an Obsidian plugin or any local
client (`reme-workbench serve`).

FastAPI on uvicorn: the operations' pydantic models become the request validation and
the OpenAPI document (`/openapi.json`) with no second description of them, and both are
small, well kept and pure Python. Every route is one call into `reme_workbench.ops`.

Who may call it (`guard`, a plain ASGI layer in front of every route, the OpenAPI
document included):

* a request must carry `Authorization: Bearer <token>` (the scheme in any case, RFC 7235)
  — the random token `serve` writes to `.reme/serve.json` (mode 0600), so only someone
  who can read the vault can call; without it: 401;
* the `Host` must be 127.0.0.1 or localhost (the server binds 127.0.0.1 only; this also
  turns away a web page that rebinds a name of its own to 127.0.0.1): else 403;
* a request with an `Origin` (a browser's) must come from an allowed origin —
  `app://obsidian.md` by default — else 403; CORS headers are sent for that origin only.

What it refuses before any of that — bodies, slow and idle connections, too many of
them — is in `limits.py`.
"""

from __future__ import annotations

import hmac
import inspect
import json
import re
from collections.abc import Iterable
from typing import Annotated

from fastapi import FastAPI, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.middleware.cors import CORSMiddleware

from ..config import ServerSettings
from ..errors import BusyError, NotFoundError, RemeError
from ..ops import JobRunner, JobStatus, Workspace, build_request, registry
from ..ops.registry import Operation, Route
from .limits import limit_body

__all__ = ["create_app", "guard", "status_of", "OBSIDIAN_ORIGIN", "LOCAL_HOSTS"]

OBSIDIAN_ORIGIN = "app://obsidian.md"
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("reme-workbench")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "source"


class ErrorBody(BaseModel):
    error: str


# every route may answer with one of these; the message says what to change
_ERRORS = {
    400: {"model": ErrorBody, "description": "Refused: the message says what to change."},
    401: {"model": ErrorBody, "description": "No token, or the wrong one (see .reme/serve.json)."},
    403: {"model": ErrorBody, "description": "Not from 127.0.0.1, or from an origin not allowed."},
    404: {"model": ErrorBody, "description": "The note, proposal or job named does not exist."},
    409: {"model": ErrorBody, "description": "The vault or the job runner is busy; retry later."},
}


def create_app(ws: Workspace) -> FastAPI:
    """The routes over `ws`; unguarded — `guard` wraps it for serving."""
    app = FastAPI(
        title="reme-workbench",
        version=_version(),
        description="The local API of a reme-workbench vault: every operation of its "
                    "registry that has a route ("
                    + ", ".join(op.name for op in registry.OPERATIONS if op.routes)
                    + "; the long ones as jobs). Every request needs the bearer token in "
                    "<vault>/.reme/serve.json.",
        responses=_ERRORS,
    )

    @app.exception_handler(RemeError)
    async def _refused(_request, exc: RemeError) -> JSONResponse:
        # the library's message says what to fix; a client shows it as it is
        return JSONResponse({"error": str(exc)}, status_code=status_of(exc))

    # every operation of the registry, as it declares its routes; long ones start a job
    # answered at once (202) with its id, which a client polls
    jobs = JobRunner(ws)
    app.state.jobs = jobs
    # a path that ends in a field takes the rest of the URL (`{id:path}`): an id with a
    # slash in it still reaches the request's check (400, saying what an id is) instead
    # of missing the route (404). Those go last, so `/proposals/{id}/files` is matched
    # before `/proposals/{id:path}` could take it
    declared = [(op, route) for op in registry.OPERATIONS for route in op.routes]
    for op, route in sorted(declared, key=lambda pair: pair[1].path.endswith("}")):
        path = re.sub(r"{(\w+)}$", r"{\1:path}", route.path)
        app.add_api_route(
            path, _endpoint(op, route, ws, jobs), methods=[route.method],
            response_model=JobStatus if op.long else op.response,
            status_code=202 if op.long else 200, summary=op.summary, name=op.name)

    @app.get("/jobs", response_model=list[JobStatus], summary="This server's jobs")
    def list_jobs() -> list[JobStatus]:
        return jobs.list()

    @app.get("/jobs/{job_id}", response_model=JobStatus, summary="One job: state, progress, result")
    def job(job_id: str) -> JobStatus:
        return jobs.status(job_id)

    return app


def _endpoint(op: Operation, route: Route, ws: Workspace, jobs: JobRunner):
    """A FastAPI endpoint calling `op` with its request taken from where `route` says —
    the body, the query string, the path, or nowhere (the request's defaults)."""

    def call(request):
        return jobs.start(op.name, request) if op.long else op.invoke(ws, request)

    kw = inspect.Parameter.KEYWORD_ONLY
    if route.params == "none":
        def endpoint():
            return call(op.request())
        params = []
    elif route.params == "path":
        names = re.findall(r"{(\w+)}", route.path)

        def endpoint(**fields):
            return call(build_request(op.request, **fields))  # a bad value: 400 with its field
        params = [inspect.Parameter(n, kw, annotation=str) for n in names]
    else:
        def endpoint(request):
            return call(request)
        where = Annotated[op.request, Query()] if route.params == "query" else op.request
        params = [inspect.Parameter("request", kw, annotation=where)]
    endpoint.__signature__ = inspect.Signature(params)
    endpoint.__name__ = f"{op.name}_{route.method.lower()}"
    return endpoint


def status_of(exc: RemeError) -> int:
    """404 for something named that does not exist (a note, proposal, job), 409 while the
    vault or the job runner is busy (retry later), else 400: the request must change."""
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, BusyError):
        return 409
    return 400


def _plain(status: int, message: str, extra: Iterable[tuple[bytes, bytes]] = ()):
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               *extra]

    async def respond(send) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    return respond


def _host_name(value: str) -> str:
    if value.startswith("["):  # [::1]:port
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _bearer_token(value: bytes) -> bytes:
    """The token of an `Authorization: Bearer <token>` header, or b"" for any other. The
    scheme is read in any case (RFC 7235 §2.1: `bearer` is `Bearer`); the token is not."""
    scheme, _, credentials = value.partition(b" ")
    return credentials.lstrip(b" ") if scheme.lower() == b"bearer" else b""


def guard(app, token: str, *, origins: Iterable[str] = (OBSIDIAN_ORIGIN,),
          max_body_bytes: int = ServerSettings().max_body_bytes):
    """`app` behind the token, Host and Origin rules of the module doc, with CORS for the
    allowed origins (the preflight carries no token, so CORS answers it first), and the
    body limit (`limits.limit_body`) before the rules: a body over it is refused unread
    even without a token, and an allowed origin's 413 carries the CORS headers."""
    allowed = frozenset(origins)
    expected = token.encode()

    async def checked(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        headers = {k.lower(): v for k, v in scope.get("headers", ())}
        host = _host_name(headers.get(b"host", b"").decode("latin-1"))
        if host not in LOCAL_HOSTS:
            return await _plain(403, "This API answers on 127.0.0.1 only.")(send)
        origin = headers.get(b"origin")
        if origin is not None and origin.decode("latin-1") not in allowed:
            return await _plain(403, "This origin may not call the API.")(send)
        if not hmac.compare_digest(_bearer_token(headers.get(b"authorization", b"")), expected):
            return await _plain(401, "Send the token in <vault>/.reme/serve.json as "
                                "'Authorization: Bearer <token>'.",
                                [(b"www-authenticate", b"Bearer")])(send)
        return await app(scope, receive, send)

    return CORSMiddleware(limit_body(checked, max_body_bytes), allow_origins=sorted(allowed),
                          allow_methods=["GET", "POST"],
                          allow_headers=["Authorization", "Content-Type"])
