"""`reme-workbench serve`: the local HTTP API, driven over real HTTP on a free port as a
plugin would — the token, Host and Origin rules, serve.json, one server per vault, and
the operations behind the routes."""

from __future__ import annotations

import json
import re
import signal
import stat
import time

import httpx
import pytest

from .serving import MAT, POOL, write_vault
from .serving import start_serve as _start
from .serving import wait_for_serve_json as _wait_for


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("served") / "vault"
    write_vault(root)
    proc = _start(root, "--port", "0")
    info = _wait_for(root / ".reme" / "serve.json", proc)
    client = httpx.Client(base_url=info["url"], timeout=30,
                          headers={"Authorization": f"Bearer {info['token']}"})
    yield root, info, client, proc
    client.close()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)


def test_serve_json_is_private_and_names_a_local_port(server):
    root, info, _, proc = server
    path = root / ".reme" / "serve.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert info["pid"] == proc.pid and info["url"] == f"http://127.0.0.1:{info['port']}"
    assert len(info["token"]) >= 32


def test_every_route_needs_the_token(server):
    _, info, client, _ = server
    for method, path in (("GET", "/health"), ("GET", "/openapi.json"), ("GET", "/proposals"),
                         ("POST", "/recall"), ("GET", "/docs")):
        bare = httpx.request(method, info["url"] + path, json={"query": "pool"})
        assert bare.status_code == 401 and bare.headers["www-authenticate"] == "Bearer"
        wrong = httpx.request(method, info["url"] + path,
                              headers={"Authorization": "Bearer " + "x" * 43})
        assert wrong.status_code == 401
    assert client.get("/health").status_code == 200


def test_only_local_hosts_and_obsidian_may_call(server):
    _, _, client, _ = server
    assert client.get("/health", headers={"Host": "evil.example"}).status_code == 403
    assert client.get("/health", headers={"Origin": "https://evil.example"}).status_code == 403
    ok = client.get("/health", headers={"Origin": "app://obsidian.md"})
    assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == "app://obsidian.md"
    preflight = httpx.options(str(client.base_url) + "/recall", headers={
        "Origin": "app://obsidian.md", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type"})
    assert preflight.status_code == 200
    assert "authorization" in preflight.headers["access-control-allow-headers"].lower()
    refused = httpx.options(str(client.base_url) + "/recall", headers={
        "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in refused.headers


def test_the_openapi_document_lists_every_operation(server):
    _, _, client, _ = server
    doc = client.get("/openapi.json").json()
    assert set(doc["paths"]) == {"/recall", "/recall/batch", "/note", "/daily", "/proposals",
                                 "/proposals/{id}", "/proposals/accept",
                                 "/proposals/reject", "/health", "/jobs", "/jobs/{job_id}",
                                 "/jobs/dream", "/jobs/consolidate", "/jobs/bridge",
                                 "/index/status", "/related", "/note/opened",
                                 "/proposals/{id}/files"}
    assert doc["components"]["schemas"]["RecallRequest"]["properties"]["k"]["maximum"] == 100


def test_the_routes_call_the_operations(server):
    root, _, client, _ = server
    hits = client.post("/recall", json={"query": "payments-api pool size", "k": 3}).json()["hits"]
    assert POOL in [h["path"] for h in hits]
    note = client.post("/note", json={"path": POOL}).json()
    assert note["name"] == "pool-size" and note["provenance"][0]["path"] == MAT
    added = client.post("/daily", json={"text": "PgBouncer stays on 6432.", "title": "check"}).json()
    assert added["created"] and (root / added["path"]).read_text().endswith("PgBouncer stays on 6432.\n")
    assert client.get("/proposals", params={"state": "pending"}).json() == []
    assert client.get("/health").json()["ok"] is True


def test_bad_requests_say_what_is_wrong_and_write_nothing(server):
    root, _, client, _ = server
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".reme" not in p.parts)
    assert client.post("/note", json={"path": "../../etc/passwd"}).status_code == 422
    assert client.post("/recall", json={"query": "x", "k": 5000}).status_code == 422
    assert client.post("/recall", json={"query": "x", "extra": 1}).status_code == 422
    assert client.get("/proposals", params={"state": "everything"}).status_code == 422
    missing = client.post("/note", json={"path": "digest/wiki/nope.md"})
    assert missing.status_code == 404 and "no note digest/wiki/nope.md" in missing.json()["error"]
    unknown = client.get("/proposals/p-20260101-000000-abcdef")
    assert unknown.status_code == 404 and "proposals list" in unknown.json()["error"]
    not_a_note = client.post("/note", json={"path": "daily/2026-10-05/log.md"})
    assert not_a_note.status_code == 400 and "not a digest note" in not_a_note.json()["error"]
    after = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".reme" not in p.parts)
    assert [p for p in after if p not in before and not p.startswith(("meta/", "daily/"))] == []


def test_a_second_server_on_the_vault_says_one_is_running(server):
    root, info, _, _ = server
    second = _start(root, "--port", "0")
    _, err = second.communicate(timeout=60)
    assert second.returncode == 1
    assert f"already running for this vault (pid {info['pid']}" in err


def test_stopping_the_server_removes_serve_json(tmp_path):
    root = tmp_path / "vault"
    for layer in ("daily", "digest/wiki", "meta"):
        (root / layer).mkdir(parents=True)
    # a file left by a server that died is replaced, not obeyed
    (root / ".reme").mkdir()
    (root / ".reme" / "serve.json").write_text(json.dumps({"port": 1, "token": "t", "pid": 999_999_999}))
    proc = _start(root, "--port", "0")
    info = _wait_for(root / ".reme" / "serve.json", proc)
    while info["pid"] != proc.pid:
        time.sleep(0.1)
        info = json.loads((root / ".reme" / "serve.json").read_text())
    assert httpx.get(info["url"] + "/health",
                     headers={"Authorization": f"Bearer {info['token']}"}).status_code == 200
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    assert not (root / ".reme" / "serve.json").exists()


def test_sigterm_stops_the_server_and_removes_serve_json(tmp_path):
    """A service manager (systemd, kill) stops it with SIGTERM: a plugin must not read a
    dead port and token afterwards."""
    root = tmp_path / "vault"
    write_vault(root)
    proc = _start(root, "--port", "0")
    info = _wait_for(root / ".reme" / "serve.json", proc)
    assert httpx.get(info["url"] + "/health",
                     headers={"Authorization": f"Bearer {info['token']}"}).status_code == 200
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert not (root / ".reme" / "serve.json").exists()


def test_a_dream_runs_as_a_job_the_client_polls(server):
    root, _, client, _ = server
    log = root / "daily" / "2026-10-06" / "agent.md"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("# Log\n\n## Pool\n\nThe payments-api pool is 40 connections since the "
                   "incident; PgBouncer listens on 6432.\n")
    started = client.post("/jobs/dream", json={"files": ["daily/2026-10-06/agent.md"]})
    assert started.status_code == 202 and started.json()["state"] == "running"
    job_id = started.json()["id"]
    deadline = time.monotonic() + 120
    while (status := client.get(f"/jobs/{job_id}").json())["state"] == "running":
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["state"] == "done", status
    assert "daily/2026-10-06/agent.md" in status["result"]["materials"]
    assert job_id in [j["id"] for j in client.get("/jobs").json()]
    assert client.get("/jobs/j-nope").status_code == 404
    assert client.post("/jobs/dream", json={"files": ["digest/wiki/pool-size.md"]}).status_code == 422


def test_a_busy_runner_answers_409_and_the_document_names_the_errors(tmp_path, monkeypatch):
    import dataclasses
    import threading

    from starlette.testclient import TestClient

    from reme_workbench.ops import BridgeResponse, Workspace, registry
    from reme_workbench.server.app import create_app

    root = tmp_path / "vault"
    write_vault(root)
    release = threading.Event()

    def slow(_ws, _request, progress):
        progress(0, 1, "waiting")
        release.wait(30)
        return BridgeResponse()

    monkeypatch.setattr(registry, "OPERATIONS", tuple(
        dataclasses.replace(op, run=slow) if op.name == "bridge" else op
        for op in registry.OPERATIONS))
    app = create_app(Workspace(root))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        first = client.post("/jobs/bridge", json={})
        second = client.post("/jobs/bridge", json={})
        release.set()
        assert first.status_code == 202
        assert second.status_code == 409 and first.json()["id"] in second.json()["error"]
        assert app.state.jobs.wait(first.json()["id"], 30).state == "done"
        doc = client.get("/openapi.json").json()
    for code in ("400", "401", "403", "404", "409"):
        assert code in doc["paths"]["/recall"]["post"]["responses"], code


def test_a_plugin_records_dreams_for_review_then_accepts(server):
    """The plugin's flow over HTTP: append an entry, dream it with every change held for a
    person, read the proposal, accept it — and the note is written by its checked changeset."""
    root, _, client, _ = server
    added = client.post("/daily", json={"text": "Mei prefers code reviews on Tuesday mornings.",
                                        "title": "review day", "log": "plugin"}).json()
    started = client.post("/jobs/dream", json={"files": [added["path"]], "review": True}).json()
    deadline = time.monotonic() + 120
    while (status := client.get(f"/jobs/{started['id']}").json())["state"] == "running":
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["state"] == "done", status
    [outcome] = status["result"]["outcomes"]
    assert outcome["state"] == "pending" and not (root / outcome["target_path"]).exists()
    pending = client.get("/proposals", params={"state": "pending", "action": "dream"}).json()
    assert outcome["proposal_id"] in [p["id"] for p in pending]
    shown = client.get(f"/proposals/{outcome['proposal_id']}").json()
    assert "+Mei prefers code reviews on Tuesday mornings." in shown["diff"]
    accepted = client.post("/proposals/accept", json={"id": outcome["proposal_id"]}).json()
    assert accepted["state"] == "applied"
    assert added["path"] in (root / outcome["target_path"]).read_text()  # its provenance


def test_a_vault_never_indexed_answers_at_once_and_reports_its_index(tmp_path):
    """Keyword first, vectors behind: the server indexes from start-up in the background;
    a recall answers from what is indexed and says how much has vectors; the status
    route follows the index to "ready"; an appended entry is found once the write wakes
    the indexer."""
    root = write_vault(tmp_path / "vault")
    for i in range(620):  # more than one first batch (500 files)
        (root / f"digest/wiki/host-{i:03d}.md").write_text(
            f"---\nname: host-{i:03d}\ndescription: Host {i}.\n---\nHost {i} runs svc{i}.\n")
    proc = _start(root, "--port", "0")
    try:
        info = _wait_for(root / ".reme" / "serve.json", proc)
        client = httpx.Client(base_url=info["url"], timeout=30,
                              headers={"Authorization": f"Bearer {info['token']}"})
        first = client.post("/recall", json={"query": "svc7", "k": 5})
        assert first.status_code == 200
        assert re.fullmatch(r"[\d,]+/[\d,]+ files", first.json()["vectors"])
        deadline, status = time.monotonic() + 60, {}
        while time.monotonic() < deadline:
            status = client.get("/index/status").json()
            if status["state"] in ("ready", "failed"):
                break
            time.sleep(0.1)
        assert status["state"] == "ready" and status["background"], status
        assert status["vectors"] == status["keyword"] == "622/622 files"
        assert status["pending_chunks"] == 0 and status["passes"] >= 1
        answer = client.post("/recall", json={"query": "svc7", "k": 5}).json()
        assert answer["hits"][0]["path"] == "digest/wiki/host-007.md"
        assert answer["vectors"] == "622/622 files" and answer["note"] is None
        passes = status["passes"]
        assert client.post("/daily", json={"text": "Rotated the zeppelin token."}).status_code == 200
        while time.monotonic() < deadline:  # the write woke the indexer: no 30 s rescan wait
            if client.get("/index/status").json()["passes"] > passes:
                break
            time.sleep(0.1)
        found = client.post("/recall", json={"query": "zeppelin", "scope": "sources"}).json()
        assert found["hits"] and found["hits"][0]["path"].startswith("daily/")
        client.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    assert not (root / ".reme" / "serve.json").exists()
