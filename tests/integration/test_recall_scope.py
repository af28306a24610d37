"""Recall's default scope is one rule for every client (docs/spec.md §6.3.1): `digest`,
the organised notes, on the command line as in the library, the HTTP API and MCP — what a
person typing `recall` sees is what their agent gets. Tested as a user meets it: the CLI
through its entry point, and the request model every other client is built on."""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.ops import RecallRequest

NOTE = "digest/procedure/rotate-keybox-token.md"
LOG = "daily/2026-10-05/keybox.md"


def _recall(vault, *args) -> list[str]:
    result = CliRunner().invoke(cli, ["--vault", str(vault), "recall", "rotate the keybox token",
                                      *args, "--embedder", "hashing", "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [h["path"] for h in json.loads(result.stdout)["hits"]]


def test_recall_searches_the_digest_unless_told_otherwise(make_vault):
    vault = make_vault({
        NOTE: "---\nname: rotate-keybox-token\ndescription: How to rotate the Keybox token.\n---\n"
              f"Run `keybox rotate --env prod` to rotate the keybox token.\n\nderived_from:: [[{LOG}]]\n",
        LOG: "---\nname: keybox\ndescription: A log.\n---\nRotated the keybox token with keybox rotate.\n",
    })
    assert _recall(vault) == [NOTE]
    assert set(_recall(vault, "--scope", "all")) == {NOTE, LOG}
    assert _recall(vault, "--scope", "sources") == [LOG]
    assert RecallRequest(query="x").scope == "digest"
