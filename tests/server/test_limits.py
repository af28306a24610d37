"""The local API refuses what it should, early: paths no file system takes get a 4xx
that says what to fix, never a 500. Against a real `reme-workbench serve`."""

from __future__ import annotations

import signal

import httpx
import pytest

from .serving import (
    POOL,
    start_serve,
    wait_for_serve_json,
    write_vault,
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = write_vault(tmp_path_factory.mktemp("limits") / "vault")
    proc = start_serve(root, "--port", "0")
    info = wait_for_serve_json(root / ".reme" / "serve.json", proc)
    yield root, info
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)


BAD_PATHS = {
    "a name over 255 bytes": ("digest/wiki/" + "a" * 300 + ".md", "255 bytes"),
    "a name over 255 bytes (UTF-8)": ("digest/wiki/" + "é" * 130 + ".md", "255 bytes"),
    "a path over 1,000 bytes": ("digest/wiki/" + ("é" * 100 + "/") * 5 + "x.md", "1,000 bytes"),
    "..": ("digest/wiki/../../etc/passwd", "'..'"),
    "absolute": ("/etc/passwd", "relative to the vault"),
    "NUL": ("digest/wiki/pool\x00.md", "NUL"),
    "not a note": ("digest/wiki/pool-size.txt", "not a digest note"),
}


@pytest.mark.parametrize("name", sorted(BAD_PATHS))
def test_a_bad_note_path_gets_a_4xx_that_says_what_to_fix(served, name):
    _, info = served
    path, says = BAD_PATHS[name]
    answer = httpx.post(info["url"] + "/note", json={"path": path}, timeout=30,
                        headers={"Authorization": f"Bearer {info['token']}"})
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    assert says in answer.text, answer.text[:300]


@pytest.mark.parametrize("route, body", [
    ("/jobs/dream", {"files": ["daily/" + "a" * 300 + ".md"]}),
    ("/proposals/accept", {"id": "p-20260101-000000-abcdef", "edited": {"a" * 300 + ".md": "x"}}),
])
def test_the_other_routes_that_take_a_path_refuse_an_impossible_one(served, route, body):
    _, info = served
    answer = httpx.post(info["url"] + route, json=body, timeout=30,
                        headers={"Authorization": f"Bearer {info['token']}"})
    assert answer.status_code == 422 and "255 bytes" in answer.text, answer.text[:300]


def test_the_good_path_still_answers(served):
    _, info = served
    answer = httpx.post(info["url"] + "/note", json={"path": POOL}, timeout=30,
                        headers={"Authorization": f"Bearer {info['token']}"})
    assert answer.status_code == 200 and answer.json()["name"] == "pool-size"
