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


def pending_changes(vault: Path) -> list[tuple[str, str]]:
    """(action, summary) of every pending proposal, from the CLI as a person lists them."""
    rows = run("--vault", str(vault), "proposals", "list", "--state", "pending", "--json")
    return sorted((r["action"], r["summary"]) for r in rows)


def test_dreaming_again_files_no_second_copy_of_a_change_still_pending(tmp_path, monkeypatch):
    # the sample's first dream leaves corrections of 周报每周一上午发.md waiting for a person;
    # a re-dream that plans the same change again points at the waiting proposal instead of
    # filing its twin (the queue would hold two proposals that write the same bytes)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    vault = tmp_path / "v"
    run("init", str(vault), "--sample", "--json")
    run("--vault", str(vault), "dream", "--embedder", "hashing", "--json")
    waiting = pending_changes(vault)
    assert waiting, "the sample's dream leaves changes for a person (the test needs one)"

    again = run("--vault", str(vault), "dream", "--force", "--embedder", "hashing", "--json")

    twice = [o for o in again["outcomes"] if o["state"] == "pending"]
    assert set(pending_changes(vault)) >= set(waiting)
    known = {r["id"] for r in run("--vault", str(vault), "proposals", "list", "--json")}
    assert all(o["proposal_id"] in known for o in twice)
    now = pending_changes(vault)
    assert [c for c in set(now) if now.count(c) > 1] == []
