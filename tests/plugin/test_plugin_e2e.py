"""The Obsidian plugin's client end to end: the shipped main.js (what `reme-workbench
obsidian install` copies into a vault) run under Node against a real `reme-workbench
serve` on the demo vault — connect from serve.json, related notes, search, the
proposals listed, one accepted (the file changes) and one rejected, a note open reported
and found in the access log. Obsidian itself cannot run here; its `obsidian` module is a
stub in the driver (`drive_client.cjs`), which the client and the connection never use."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from tests.server.serving import start_serve, wait_for_serve_json

NODE = shutil.which("node")
DRIVER = Path(__file__).with_name("drive_client.cjs")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: the plugin's "
                                "client runs under Node (apt-get install nodejs)")


def main_js() -> Path:
    return Path(str(resources.files("reme_workbench") / "obsidian_plugin" / "main.js"))


@pytest.fixture(scope="module")
def served(demo_cache, tmp_path_factory):
    """A copy of the demo vault with a real server on it, for the whole module."""
    from tests.conftest import copy_demo

    root = copy_demo(demo_cache, tmp_path_factory.mktemp("plugin") / "reme-demo")
    proc = start_serve(root)
    try:
        wait_for_serve_json(root / ".reme" / "serve.json", proc)
        yield root
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def drive(root: Path, *steps: list) -> list[dict]:
    """Each step `[method, *args]` of the plugin's client, on one connection from serve.json."""
    done = subprocess.run([NODE, str(DRIVER), str(main_js()), str(root), json.dumps(steps)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def ok(step: dict):
    assert step["ok"], step
    return step["value"]


def a_note(root: Path) -> str:
    """A digest note of the demo with a description and a body."""
    for path in sorted((root / "digest" / "wiki").glob("*.md")):
        text = path.read_text()
        if "description:" in text and len(text) > 200:
            return path.relative_to(root).as_posix()
    raise AssertionError("the demo vault has no wiki note with a description")


def test_connects_from_serve_json_finds_related_notes_and_searches(served):
    note = a_note(served)
    status, related, found = drive(served, ["indexStatus"], ["related", note, 5],
                                   ["recall", "pgbouncer port", {"k": 5, "scope": "digest"}])
    assert ok(status)["background"] is True
    paths = [h["path"] for h in ok(related)["hits"]]
    assert paths and note not in paths and len(paths) <= 5
    assert all(p.startswith("digest/") for p in paths)
    hits = ok(found)["hits"]
    assert hits and any("6432" in (h["description"] or "") for h in hits)


def test_lists_accepts_and_rejects_proposals(served):
    (pending,) = drive(served, ["listProposals", "pending"])
    pending = ok(pending)
    assert len(pending) >= 2, pending
    # a dream update of a note if the demo left one, else a hub, else whatever waits
    rank = {"dream": 0, "consolidate.abstract": 1}
    accepted = min(pending, key=lambda p: rank.get(p["action"], rank.get(p["action"].split(".")[0], 2)))
    rejected = next(p for p in pending if p["id"] != accepted["id"])
    detail, files = drive(served, ["showProposal", accepted["id"]], ["proposalFiles", accepted["id"]])
    assert ok(detail)["diff"].startswith("---") and ok(detail)["story"]
    written = ok(files)
    before = {path: (served / path).read_text() for path in written if (served / path).exists()}
    decision, refusal = drive(served, ["accept", accepted["id"]],
                              ["reject", rejected["id"], "not what I meant"])
    assert ok(decision)["state"] == "applied", decision
    for path, text in written.items():  # the file is what the proposal said it would write
        assert (served / path).read_text() == text
        assert before.get(path) != text
    answer = ok(refusal)
    assert answer["state"] == "rejected" and answer["id"] == rejected["id"]
    (after,) = drive(served, ["listProposals"])
    states = {p["id"]: p["state"] for p in ok(after)}
    assert states[accepted["id"]] == "applied" and states[rejected["id"]] == "rejected"
    (again,) = drive(served, ["accept", rejected["id"]])  # decided once: the API says why not
    assert not again["ok"] and again["status"] == 400 and rejected["id"] in again["error"]


def test_a_note_open_is_in_the_access_log_once_an_hour(served):
    note = a_note(served)
    first, second = drive(served, ["noteOpened", note], ["noteOpened", note])
    assert ok(first)["logged"] is True and ok(second)["logged"] is False
    log = (served / "meta" / "access_log.jsonl").read_text().splitlines()
    opens = [json.loads(line) for line in log if f'"{note}"' in line and '"open"' in line]
    assert [(o["event"], o.get("via")) for o in opens] == [("open", "plugin")]
    (outside,) = drive(served, ["noteOpened", "../outside.md"])
    assert not outside["ok"] and outside["status"] == 422 and "'..'" in outside["error"]


def test_a_client_without_a_server_is_told_how_to_start_one(tmp_path):
    (tmp_path / ".reme").mkdir()
    (missing,) = drive(tmp_path, ["indexStatus"])
    assert not missing["ok"] and "reme-workbench serve" in missing["error"]
    (tmp_path / ".reme" / "serve.json").write_text(json.dumps({"port": 9, "token": "t", "pid": 1}))
    (refused,) = drive(tmp_path, ["indexStatus"])
    assert not refused["ok"] and refused["status"] == 0
    assert "No reme-workbench server answers at http://127.0.0.1:9" in refused["error"]


def test_the_plugin_starts_a_server_and_stops_what_it_started(tmp_path):
    """No server runs: the plugin's ServerProcess starts the real program, the connection
    finds it through serve.json, and stopping it (Obsidian closing) ends the server,
    which removes serve.json."""
    import sys

    from tests.server.serving import write_vault

    root = write_vault(tmp_path / "vault")
    program = Path(sys.executable).with_name("reme-workbench")
    if not program.is_file():
        pytest.skip(f"no reme-workbench program beside {sys.executable}")
    done = subprocess.run([NODE, str(DRIVER.with_name("start_server.cjs")), str(main_js()),
                           str(root), str(program)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"]["background"] is True
    assert answer["serve_json_left"] is False
