"""`reme-workbench mcp`: the operations as MCP tools, driven with the official SDK's
client (mcp 2.x) in-process, and once over stdio through the command line."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from mcp import Client, StdioServerParameters

from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.ops import Workspace
from reme_workbench.proposals import Policy, ProposalQueue
from reme_workbench.server.mcp_tools import create_mcp_server
from reme_workbench.vault.checks import CheckSpec
from reme_workbench.vault.store import Edit
from reme_workbench.vault.vault import Vault

MAT = "daily/2026-10-05/log.md"
POOL = "digest/wiki/pool-size.md"
POOL_TEXT = (f"---\nname: pool-size\ndescription: The payments-api DB pool size\n---\n"
             f"Pool is 10.\nderived_from:: [[{MAT}]]\n")
TOOLS = {"recall", "recall_batch", "note_context", "append_daily", "list_proposals",
         "show_proposal", "accept_proposal", "reject_proposal", "health", "dream", "consolidate",
         "bridge", "index_status", "related"}


@pytest.fixture
def ws(make_vault, clock):
    root = make_vault({MAT: "09:00 raised the pool to 40\n", POOL: POOL_TEXT,
                       "reme.toml": '[recall]\nembedder = "hashing"\n'})
    return Workspace(root, embedder=HashingEmbedder(), clock=clock)


def run(ws, calls):
    """Call tools in order on an in-process client; return their results."""
    async def go():
        async with Client(create_mcp_server(ws)) as client:
            out = []
            for name, args in calls:
                out.append(await (client.list_tools() if name == "list_tools"
                                  else client.call_tool(name, args)))
            return out
    return asyncio.run(go())


def test_every_operation_is_a_tool_with_a_description_an_agent_can_use(ws):
    [listed] = run(ws, [("list_tools", None)])
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert 60 <= len(tool.description) <= 400, tool.name
        assert tool.output_schema, tool.name  # every answer is a typed model
    assert tools["recall"].input_schema["required"] == ["query"]
    assert tools["recall"].input_schema["properties"]["scope"]["enum"] == ["digest", "sources", "all"]


def test_recall_then_read_then_record(ws):
    found, note, added = run(ws, [
        ("recall", {"query": "payments-api pool size", "k": 3}),
        ("note_context", {"path": POOL}),
        ("append_daily", {"text": "The pool is 40 now.", "title": "from the agent"}),
    ])
    assert not found.is_error and POOL in [h["path"] for h in found.structured_content["hits"]]
    assert note.structured_content["provenance"] == [{"path": MAT, "predicate": "derived_from"}]
    assert added.structured_content["path"] == "daily/2026-11-02/log.md"
    assert (ws.root / "daily/2026-11-02/log.md").read_text().endswith("The pool is 40 now.\n")


def test_a_refusal_reaches_the_agent_with_what_to_do(ws):
    outside, missing, bad_k, unknown = run(ws, [
        ("note_context", {"path": "../../etc/passwd"}),
        ("note_context", {"path": "digest/wiki/nope.md"}),
        ("recall", {"query": "pool", "k": 1000}),
        ("show_proposal", {"id": "p-20260101-000000-abcdef"}),
    ])
    for result in (outside, missing, bad_k, unknown):
        assert result.is_error
    assert "'.' or '..'" in outside.content[0].text
    assert "no note digest/wiki/nope.md" in missing.content[0].text
    assert "k:" in bad_k.content[0].text
    assert "No proposal 'p-20260101-000000-abcdef'" in unknown.content[0].text


def test_proposals_through_their_checks(ws):
    vault = Vault.open(ws.root, clock=ws.clock)
    queue = ProposalQueue(vault)
    _, stamp = vault.store.read(POOL)
    pid = queue.submit(queue.new(
        "dream.refine", "refine pool-size", [Edit(POOL, POOL_TEXT.replace("10", "40").encode(), stamp)],
        checks=[CheckSpec("only_paths", {"paths": [POOL]})], story={"flavor": "REFINE"}), Policy()).id
    listed, shown, accepted = run(ws, [
        ("list_proposals", {"state": "pending"}),
        ("show_proposal", {"id": pid}),
        ("accept_proposal", {"id": pid}),
    ])
    rows = listed.structured_content["result"]
    assert [r["id"] for r in rows] == [pid]
    assert "+Pool is 40." in shown.structured_content["diff"]
    assert accepted.structured_content["state"] == "applied"
    assert "Pool is 40." in (ws.root / POOL).read_text()


def test_the_command_serves_over_stdio(ws):
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "reme_workbench", "--vault", str(ws.root), "mcp"])

    async def go():
        async with Client(params) as client:
            return await client.call_tool("note_context", {"path": POOL})

    result = asyncio.run(go())
    assert not result.is_error and result.structured_content["name"] == "pool-size"
    assert json.loads(result.content[0].text)["path"] == POOL


def test_an_agent_records_then_dreams_it_into_notes(ws):
    added, dreamt = run(ws, [
        ("append_daily", {"title": "PgBouncer", "text": (
            "We checked the staging PgBouncer today: it listens on port 6432 in transaction "
            "mode, and the payments-api connects through it with a pool of 20 connections.\n\n"
            "Mei decided that schema migrations on staging run only between 02:00 and 05:00 "
            "UTC+8, after a fresh snapshot.")}),
        ("dream", {}),
    ])
    assert not dreamt.is_error, dreamt.content
    report = dreamt.structured_content or json.loads(dreamt.content[0].text)
    assert added.structured_content["path"] in report["materials"]
    # the entry became notes, or updated the one about the pool
    assert report["outcomes"] and all(o["action"] in ("CREATE", "UPDATE") for o in report["outcomes"])


def test_dream_reports_progress_to_a_client_that_asks(ws):
    (ws.root / "daily/2026-10-06").mkdir(parents=True)
    (ws.root / "daily/2026-10-06/log.md").write_text(
        "## Staging\n\nThe staging PgBouncer listens on port 6432 in transaction mode, and "
        "payments-api connects through it with a pool of twenty connections.\n")
    seen = []

    async def progress(done, total, message):
        seen.append((done, total, message))

    async def go():
        async with Client(create_mcp_server(ws)) as client:
            return await client.call_tool("dream", {"review": True}, progress_callback=progress)

    result = asyncio.run(go())
    assert not result.is_error, result.content
    report = result.structured_content or json.loads(result.content[0].text)
    assert report["materials"] and all(o["state"] in ("pending", "failed") for o in report["outcomes"])
    messages = [m for _, _, m in seen]
    assert any(m.startswith("indexing:") for m in messages)
    assert any(m.startswith("dreaming: file 1/2") for m in messages), messages
    assert all(total is None or done <= total for done, total, _ in seen)


def test_bridge_and_a_dry_run_consolidate(ws):
    (ws.root / ".obsidian").mkdir()
    dry, bridged = run(ws, [("consolidate", {"only": ["archive"], "force": True, "dry_run": True}),
                            ("bridge", {"dry_run": True})])
    report = dry.structured_content or json.loads(dry.content[0].text)
    assert report["dry_run"] and report["ran"] == ["archive"] and report["audit"] is None
    assert not (ws.root / "meta/recency.json").exists()
    graph = (bridged.structured_content or json.loads(bridged.content[0].text))["graph"]
    assert graph["path"] == ".obsidian/graph.json" and graph["changed"]
    assert not (ws.root / ".obsidian/graph.json").exists()  # a dry run
