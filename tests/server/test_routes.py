"""How the registry's routes are matched: a route that ends in a field takes the rest of
the URL (a malformed id with a slash gets its 400), yet never a longer route's URL,
whatever the order the registry declares them in."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from reme_workbench.ops import Workspace, registry
from reme_workbench.server.app import create_app

from .serving import write_vault

UNKNOWN = "p-20260101-000000-abcdef"


@pytest.mark.parametrize("order", ["declared", "reversed"])
def test_a_longer_route_is_matched_before_one_that_takes_the_rest(tmp_path, monkeypatch, order):
    if order == "reversed":
        monkeypatch.setattr(registry, "OPERATIONS", tuple(reversed(registry.OPERATIONS)))
    client = TestClient(create_app(Workspace(write_vault(tmp_path / "vault"))),
                        base_url="http://127.0.0.1")
    files = client.get(f"/proposals/{UNKNOWN}/files")  # proposal_files': no such proposal
    assert files.status_code == 404 and "proposals list" in files.json()["error"], files.text
    slashed = client.get("/proposals/p-1%2Fx")  # show_proposal's check, not a missed route
    assert slashed.status_code == 400 and "ids look like" in slashed.json()["error"], slashed.text
