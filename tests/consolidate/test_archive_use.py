"""Use is use (issue #31, docs/spec.md §7.3): a note that was not dreamt starts its recency
when it is adopted (imported, or first seen by a run when copied in by hand), not at its
file time; editing it, opening it (`note`, the local API) or opening it in Obsidian
(`.obsidian/workspace.json` `lastOpenFiles`) is use; and one archive run never takes more
than `[archive] max_share_per_run` of the live notes, saying so when it holds back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from tests.vault.persons_notes import OLD, days_pass, many_notes

LECTURES = 34  # with the six notes of a person's vault: 40 notes, so the cap is 4


def run(vault: Path, *args: str, code: int = 0):
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args])
    assert result.exit_code == code, result.output
    return result


def archive(vault: Path) -> dict:
    out = json.loads(run(vault, "consolidate", "--only", "archive", "--force", "--json").stdout)
    (phase,) = out["phases"]
    return phase


@pytest.fixture
def after_130_days(make_vault, tmp_path):
    vault = make_vault({})
    data = json.loads(run(vault, "import", str(many_notes(tmp_path / "course", LECTURES)),
                          "--json").stdout)
    days_pass(vault, 130)
    return vault, {n["source"]: n["path"] for n in data["notes"]}


def test_130_days_after_import_the_archive_takes_at_most_its_share(after_130_days):
    vault, paths = after_130_days
    phase = archive(vault)
    details = phase["details"]
    assert details["scored"] == len(paths) == 40
    assert len(details["newly_archived"]) == 4  # 10 % of the 40 live notes
    assert len(details["held_back"]) == 40 - 4 - len(details["kept_by_touch"])
    assert "36 more under the threshold held back: one run archives at most 10 % of the 40 " \
           "live notes ([archive] max_share_per_run)" in phase["summary"]
    audit = next((vault / "audit").rglob("consolidate_actions.md")).read_text(encoding="utf-8")
    assert "held back" in audit
    # the next day's run takes the next share of what is live then, coldest first
    second = archive(vault)["details"]
    assert len(second["newly_archived"]) == 3  # 10 % of 36, rounded down
    assert not set(second["newly_archived"]) & set(details["newly_archived"])


def test_a_note_opened_in_obsidian_edited_or_opened_through_the_api_is_in_use(after_130_days):
    vault, paths = after_130_days
    (vault / "reme.toml").write_text("[archive]\nmax_share_per_run = 1.0\n", encoding="utf-8")
    opened, edited, read = (paths["Course/Lecture 03.md"], paths["Course/Lecture 07.md"],
                            paths["Course/Lecture 11.md"])
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian/workspace.json").write_text(json.dumps({
        "main": {"id": "a", "type": "split", "children": []},
        "lastOpenFiles": [opened, "digest/wiki/gone.md", "Untitled.canvas", 7]}), encoding="utf-8")
    note = vault / edited
    note.write_text(note.read_text(encoding="utf-8") + "\nA line written in Obsidian.\n",
                    encoding="utf-8")
    run(vault, "note", read, "--json")  # the local API's and the CLI's note context
    details = archive(vault)["details"]
    archived = set(details["archived"])
    assert len(archived) >= 30
    assert not {opened, edited, read} & archived


def test_a_missing_or_malformed_obsidian_workspace_is_no_use_and_no_error(after_130_days):
    vault, _ = after_130_days
    (vault / "reme.toml").write_text("[archive]\nmax_share_per_run = 1.0\n", encoding="utf-8")
    (vault / ".obsidian").mkdir(exist_ok=True)
    for text in ("{not json", '{"lastOpenFiles": "digest/wiki/Budget.md"}', "[1, 2]"):
        (vault / ".obsidian/workspace.json").write_text(text, encoding="utf-8")
        assert "digest/wiki/Budget.md" in archive(vault)["details"]["archived"]


def test_a_vault_copied_in_by_hand_is_adopted_by_its_first_run(make_vault, tmp_path):
    source = many_notes(tmp_path / "copied", LECTURES)
    vault = make_vault({})
    for path in source.rglob("*.md"):  # digest/wiki/<name>.md, as a person copies them
        target = vault / "digest" / "wiki" / path.name
        target.write_bytes(path.read_bytes())
        os.utime(target, (OLD, OLD))
    details = archive(vault)["details"]
    assert details["scored"] == 40 and details["archived"] == []
    # ... and they age from that run on, not from 2022
    days_pass(vault, 130)
    later = archive(vault)["details"]
    assert len(later["newly_archived"]) == 4
