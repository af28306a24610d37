"""Dreaming material again that the digest already holds adds nothing (docs/spec.md §5.5).

`dream --force` re-dreams material whose notes were written from it: each unit must find
its own note — the one that cites this material in `derived_from` and already says what
the unit says — and leave it as it is, never write a `-2` twin beside it. Before the fix
ten sample notes got a twin ("digest/wiki/deploy-canary-2.md", "prod-rotation-2.md"…):
the offline brain took its own note, which says "obsolete" or "no longer", for a note
the unit changes, or did not see it as covering the unit at all.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reme_workbench.cli import cli


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def digest_bytes(vault: Path) -> dict[str, bytes]:
    return {str(p.relative_to(vault)): p.read_bytes() for p in sorted((vault / "digest").rglob("*.md"))}


def test_dreaming_the_sample_again_adds_no_note_and_changes_none(tmp_path, monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    vault = tmp_path / "v"
    run("init", str(vault), "--sample", "--json")
    first = run("--vault", str(vault), "dream", "--embedder", "hashing", "--json")
    assert any(o["action"] == "CREATE" for o in first["outcomes"])
    before = digest_bytes(vault)

    again = run("--vault", str(vault), "dream", "--force", "--embedder", "hashing", "--json")

    after = digest_bytes(vault)
    assert sorted(set(after) - set(before)) == []  # no twin, no new note
    assert [p for p in before if after[p] != before[p]] == []  # no note rewritten
    created = [o["target_path"] for o in again["outcomes"] if o["action"] == "CREATE"]
    assert created == []
