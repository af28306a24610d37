"""Every operation is declared once (`ops/registry.py`); the HTTP routes and MCP tools are
made from that one list, so a new declaration reaches every client."""

from __future__ import annotations

import asyncio
import dataclasses

from mcp import Client
from pydantic import BaseModel
from starlette.testclient import TestClient

from reme_workbench.ops import DailyEntryRequest, DailyEntryResult, Workspace, registry
from reme_workbench.server.app import create_app
from reme_workbench.server.mcp_tools import create_mcp_server

JOB_ROUTES = {("GET", "/jobs"), ("GET", "/jobs/{job_id}")}  # the job runner's own, not operations


def routes(app) -> set[tuple[str, str]]:
    doc = TestClient(app, base_url="http://127.0.0.1").get("/openapi.json").json()
    return {(method.upper(), path) for path, item in doc["paths"].items() for method in item}


def tools(ws) -> set[str]:
    async def go():
        async with Client(create_mcp_server(ws)) as client:
            return {t.name for t in (await client.list_tools()).tools}
    return asyncio.run(go())


def test_the_routes_and_tools_are_the_registry(make_vault):
    ws = Workspace(make_vault({}))
    declared = {(r.method, r.path) for op in registry.OPERATIONS for r in op.routes}
    assert routes(create_app(ws)) == declared | JOB_ROUTES
    assert tools(ws) == {op.name for op in registry.OPERATIONS if op.mcp}
    for op in registry.OPERATIONS:  # every operation says what it takes and gives
        assert issubclass(op.request, BaseModel) and op.response is not None, op.name
        assert op.summary and len(op.description) >= 60, op.name


def test_one_declaration_reaches_every_client(make_vault, monkeypatch):
    """A new operation added to the registry only: a route and a tool appear, both calling it."""
    ws = Workspace(make_vault({}))
    seen = []

    def echo(_ws, request: DailyEntryRequest) -> DailyEntryResult:
        seen.append(request.text)
        return DailyEntryResult(path="daily/x.md", created=False, appended_bytes=0, size=0)

    new = dataclasses.replace(registry.operation("append_daily"), name="echo", run=echo,
                              routes=(registry.Route("POST", "/echo"),), writes=False)
    monkeypatch.setattr(registry, "OPERATIONS", (*registry.OPERATIONS, new))
    app = create_app(ws)
    assert ("POST", "/echo") in routes(app)
    answer = TestClient(app, base_url="http://127.0.0.1").post("/echo", json={"text": "over http"})
    assert answer.status_code == 200 and answer.json()["path"] == "daily/x.md"
    assert "echo" in tools(ws)

    async def call():
        async with Client(create_mcp_server(ws)) as client:
            return await client.call_tool("echo", {"text": "over mcp"})
    assert not asyncio.run(call()).is_error
    assert seen == ["over http", "over mcp"]
