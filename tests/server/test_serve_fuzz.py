"""A property-based client (schemathesis) against the running server's OpenAPI document:
whatever it sends — valid, malformed, hostile — the server answers without a 5xx and
writes nothing outside the vault."""

from __future__ import annotations

import hashlib
import signal

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from reme_workbench.server.app import create_app

from .serving import start_serve as _start
from .serving import wait_for_serve_json as _wait_for
from .serving import write_vault


def _tree(folder):
    """Every file under `folder` with a hash of its bytes."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home = tmp_path_factory.mktemp("fuzz")
    root = home / "vault"
    write_vault(root)
    (home / "outside.md").write_text("a file beside the vault that no request may touch\n")
    proc = _start(root, "--port", "0")
    info = _wait_for(root / ".reme" / "serve.json", proc)
    outside_before = {k: v for k, v in _tree(home).items() if not k.startswith("vault/")}
    yield home, info
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    outside_after = {k: v for k, v in _tree(home).items() if not k.startswith("vault/")}
    assert outside_after == outside_before, "a request wrote outside the vault"


# the document the server serves, built from the same app without a vault: the routes only
# reach the workspace when they are called (the test below checks the two are the same)
DOCUMENT = create_app(None).openapi()
schema = schemathesis.openapi.from_dict(DOCUMENT)


def test_the_fuzzed_document_is_the_one_the_server_serves(served):
    _, info = served
    served_doc = httpx.get(info["url"] + "/openapi.json",
                           headers={"Authorization": f"Bearer {info['token']}"}).json()
    assert served_doc["paths"] == DOCUMENT["paths"]


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_crashes_the_server(case, served):
    _, info = served
    response = case.call(base_url=info["url"], headers={"Authorization": f"Bearer {info['token']}"})
    assert response.status_code < 500, (case.method, case.path, case.body, response.text[:500])
    # 202: a job started; 404: an id or note that does not exist; 405: a method the route does
    # not take (schemathesis tries them too); 409: a job still running
    assert response.status_code in (200, 202, 400, 404, 405, 409, 422), (case.method, case.path, response.status_code)
