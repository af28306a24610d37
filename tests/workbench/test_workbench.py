"""The workbench's plumbing through the CLI: `demo` (the main job), the notebooks `init`
places and `workbench` keeps up to date without losing a person's edits."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.workbench import notebooks as nbm
from reme_workbench.workbench.demo import material_weeks


def run(*args, ok=True):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_init_places_the_review_notebooks(tmp_path):
    vault = tmp_path / "v"
    data = json.loads(run("init", str(vault), "--json").stdout)
    assert {f"workbench/{n}" for n in nbm.MASTERS} <= set(data["created"])
    for name in nbm.MASTERS:
        assert (vault / "workbench" / name).read_bytes() == nbm.masters()[name]


def _with_cell_source(data: bytes, index: int, extra: str) -> bytes:
    nb = json.loads(data)
    nb["cells"][index]["source"] = "".join(nb["cells"][index]["source"]) + extra
    return json.dumps(nb, indent=1).encode("utf-8")


def test_workbench_updates_untouched_copies_and_keeps_edited_ones(tmp_path, monkeypatch):
    vault = tmp_path / "v"
    run("init", str(vault))
    edited = vault / "workbench" / "02_communities.ipynb"
    edited.write_bytes(_with_cell_source(edited.read_bytes(), 0, "\n# my note"))  # a person's change
    # a newer package: every master's first cell says something new
    newer = {n: _with_cell_source(data, 0, "\n# newer") for n, data in nbm.masters().items()}
    monkeypatch.setattr(nbm, "masters", lambda: newer)
    out = run("--vault", str(vault), "workbench", "--place-only").output
    assert "updated: 01_dream_review.ipynb, 03_merge_votes.ipynb" in out
    assert "kept (you edited them; --refresh replaces them): 02_communities.ipynb" in out
    assert "# my note" in edited.read_text()  # the person's copy is untouched
    assert (vault / "workbench" / "01_dream_review.ipynb").read_bytes() == newer["01_dream_review.ipynb"]
    # --refresh replaces it, keeping the edited copy beside it
    out = run("--vault", str(vault), "workbench", "--place-only", "--refresh").output
    assert "your edited 02_communities.ipynb was saved as workbench/02_communities.edited-" in out
    backups = list((vault / "workbench").glob("02_communities.edited-*.ipynb"))
    assert len(backups) == 1 and "# my note" in backups[0].read_text()
    assert edited.read_bytes() == newer["02_communities.ipynb"]
    assert "notebooks up to date" in run("--vault", str(vault), "workbench", "--place-only").output


def test_a_notebook_that_was_only_run_is_not_an_edit(tmp_path, monkeypatch):
    """Running a notebook fills outputs and execution counts, and Jupyter's autosave writes
    its metadata: none of it is something a person wrote, so a newer master replaces it."""
    vault = tmp_path / "v"
    run("init", str(vault))
    copy = vault / "workbench" / "05_archive.ipynb"
    nb = json.loads(copy.read_bytes())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["execution_count"] = 3
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["107 notes"]}]
    nb["metadata"]["widgets"] = {"state": {}}
    copy.write_text(json.dumps(nb, indent=1))
    assert "notebooks up to date" in run("--vault", str(vault), "workbench", "--place-only").output
    newer = {n: _with_cell_source(data, 0, "\n# newer") for n, data in nbm.masters().items()}
    monkeypatch.setattr(nbm, "masters", lambda: newer)
    out = run("--vault", str(vault), "workbench", "--place-only").output
    assert "kept" not in out and "05_archive.ipynb" in out.split("updated:")[1]
    assert copy.read_bytes() == newer["05_archive.ipynb"]


def test_workbench_refuses_a_folder_that_is_no_vault(tmp_path):
    result = run("--vault", str(tmp_path / "nothing"), "workbench", "--place-only", ok=False)
    assert result.exit_code != 0


def test_find_vault_walks_up_from_the_notebook_folder(tmp_path, monkeypatch):
    vault = tmp_path / "v"
    run("init", str(vault))
    assert nbm.find_vault(vault / "workbench") == vault.resolve()
    assert nbm.find_vault(tmp_path) is None
    monkeypatch.setenv("REME_VAULT", str(vault))
    from reme_workbench.ops import notebook_vault

    assert notebook_vault(tmp_path).root == vault


def test_the_sample_material_falls_in_four_weeks(tmp_path):
    vault = tmp_path / "v"
    run("init", str(vault), "--sample")
    weeks = material_weeks(vault)
    assert [(a.isoformat(), b.isoformat()) for a, b, _ in weeks] == [
        ("2026-10-05", "2026-10-11"), ("2026-10-12", "2026-10-18"),
        ("2026-10-19", "2026-10-25"), ("2026-10-26", "2026-11-01")]
    assert sum(len(files) for _, _, files in weeks) == 37


def test_demo_builds_the_main_job_and_says_where_to_look(tmp_path):
    path = tmp_path / "reme-demo"
    result = run("demo", str(path), "--embedder", "hashing", "--text")
    out = result.output
    assert f"Demo vault at {path}" in out
    assert out.count("week ") == 4 and "Notes created: procedure" in out
    assert "Proposals waiting for you: consolidate.abstract" in out and "consolidate.merge 1" in out
    assert "consolidate.split 1" in out
    assert f"reme-workbench workbench {path}" in out
    assert {p.name for p in (path / "workbench").iterdir()} >= set(nbm.MASTERS)
    # what Obsidian reads: colour groups per bucket and community, a valid community canvas
    from obsidian_bridge import validate_canvas

    graph = json.loads((path / ".obsidian" / "graph.json").read_text())
    assert {g["query"] for g in graph["colorGroups"]} >= {'path:"digest/procedure"', 'path:"digest/wiki"'}
    assert len(graph["colorGroups"]) > 3
    assert validate_canvas(json.loads((path / "meta/canvas/communities.canvas").read_text())) == []
    data = json.loads(run("--vault", str(path), "proposals", "list", "--state", "pending", "--json").stdout)
    # the weekly report moved from Monday to Friday: a changed value waits as a correction
    assert {p["action"] for p in data} == {"consolidate.abstract", "consolidate.merge",
                                           "consolidate.split", "dream.correct"}
    # a second demo into the same folder is refused: nothing is overwritten
    again = run("demo", str(path), "--embedder", "hashing", ok=False)
    assert again.exit_code != 0 and "already exists and is not empty" in again.output


@pytest.mark.parametrize("when", [datetime(2026, 12, 3, tzinfo=UTC)])
def test_place_report_lines(tmp_path, when):
    (tmp_path / "digest").mkdir()
    report = nbm.place_notebooks(tmp_path, now=when)
    assert report.placed == nbm.MASTERS and report.lines() == [f"placed: {', '.join(nbm.MASTERS)}"]


@pytest.mark.parametrize("asked, used", [(None, "minilm"), ("e5", "e5"), ("auto", "auto")])
def test_the_demo_indexes_with_minilm_unless_told_otherwise(tmp_path, monkeypatch, asked, used):
    # the main job should run in about a minute: e5 embeds 2.5x slower for the same output
    from reme_workbench.errors import RemeError
    from reme_workbench.index import factory

    def stop_at_the_embedder(spec, *args, **kwargs):
        raise RemeError(f"embedder asked for: {spec}")

    monkeypatch.setattr(factory, "get_embedder", stop_at_the_embedder)
    args = ["demo", str(tmp_path / "d")] + (["--embedder", asked] if asked else [])
    result = CliRunner().invoke(cli, args)
    assert result.exit_code != 0
    wanted = used if used != "auto" else factory.auto_spec(None)
    assert f"embedder asked for: {wanted}" in result.output
    help_text = CliRunner().invoke(cli, ["demo", "--help"]).output
    assert "minilm (the demo's default" in help_text


def test_a_demo_with_an_unknown_embedder_writes_nothing(tmp_path):
    """The retry must not be refused "already exists and is not empty"."""
    target = tmp_path / "new-dir"
    result = CliRunner().invoke(cli, ["demo", str(target), "--embedder", "e6"])
    assert result.exit_code == 1 and "e6" in result.output
    assert not target.exists() or not any(target.iterdir())
