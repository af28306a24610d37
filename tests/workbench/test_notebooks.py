"""Every notebook runs headless, top to bottom, without an error — outside a vault (on a
fresh demo copy) and inside one (the vault-embedded copies) — and is stored without
outputs."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from reme_workbench.workbench.notebooks import MASTERS

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def execute(path: Path, cwd: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def outputs(nb) -> list:
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]


def text_of(nb) -> str:
    return "".join(o.get("text", "") for o in outputs(nb) if o.output_type == "stream")


def test_the_repository_notebooks_are_the_masters_and_hold_no_outputs():
    names = {p.name for p in NOTEBOOKS}
    assert set(MASTERS) <= names
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, (
                    f"{path.name} is stored with outputs; clear them before committing "
                    "(jupyter nbconvert --clear-output --inplace)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_outside_a_vault_and_leaves_nothing_behind(path, tmp_path, monkeypatch, demo_cache):
    monkeypatch.delenv("REME_VAULT", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(demo_cache))
    monkeypatch.setenv("REME_DEMO_EMBEDDER", "hashing")
    scratch = tmp_path / "tmp"  # the kernel's temp folder: whatever it makes shows here
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    nb = execute(path, tmp_path)
    assert not [o for o in outputs(nb) if o.output_type == "error"]
    # the demo copy went with the kernel (jieba keeps its dictionary cache in the temp
    # folder, as it does for every program that segments Chinese)
    assert [p.name for p in scratch.iterdir() if p.name != "jieba.cache"] == []


def test_the_review_notebooks_show_the_demo_content(tmp_path, monkeypatch, demo_cache):
    """On the demo vault the review screens have real content: proposals waiting of each
    consolidate kind, communities with gates, a merge with its votes, uncertain pairs."""
    monkeypatch.delenv("REME_VAULT", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(demo_cache))
    monkeypatch.setenv("REME_DEMO_EMBEDDER", "hashing")
    folder = dict((p.name, p) for p in NOTEBOOKS)
    queue = text_of(execute(folder["01_dream_review.ipynb"], tmp_path))
    assert "'consolidate.merge': 1" in queue and "'consolidate.split': 1" in queue
    assert "consolidate.abstract" in queue
    assert "passes every gate" in text_of(execute(folder["02_communities.ipynb"], tmp_path))
    merges = text_of(execute(folder["03_merge_votes.ipynb"], tmp_path))
    assert "ledger-worker-leader-stuck.md -> digest/procedure/settlement-batch-did-not-start.md, 2 of 3 votes" in merges
    assert "votes agree" in text_of(execute(folder["04_uncertain_duplicates.ipynb"], tmp_path))
    assert "notes scored" in text_of(execute(folder["05_archive.ipynb"], tmp_path))


def test_a_notebook_inside_a_vault_works_on_that_vault(tmp_path, monkeypatch):
    from reme_workbench.vault.vault import init_vault
    from reme_workbench.workbench.notebooks import place_notebooks

    monkeypatch.delenv("REME_VAULT", raising=False)
    vault = tmp_path / "my-vault"
    init_vault(vault)
    place_notebooks(vault)
    nb = execute(vault / "workbench" / "01_dream_review.ipynb", vault / "workbench")
    assert not [o for o in outputs(nb) if o.output_type == "error"]
    assert f"Vault: {vault.resolve()}" in text_of(nb)
    assert "proposals by state: {}" in text_of(nb)


def test_vault_tour_shows_the_sample_broken_link(tmp_path):
    nb = nbformat.read(Path(__file__).resolve().parents[2] / "notebooks" / "vault_tour.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    last = nb.cells[-1].outputs[0]["data"]["text/plain"]
    assert "missing-vendor-sla.md" in last


def test_the_threshold_notebook_sweeps_and_plots(tmp_path, monkeypatch):
    """06 runs its sweeps on a generated vault and shows one figure per sweep."""
    monkeypatch.delenv("REME_VAULT", raising=False)
    monkeypatch.setenv("REME_DEMO_EMBEDDER", "hashing")
    nb = execute(dict((p.name, p) for p in NOTEBOOKS)["06_threshold_experiments.ipynb"], tmp_path)
    text = text_of(nb)
    for value in (0.3, 0.45, 0.6, 0.75, 0.9):
        assert f"{{'merge.min_description_similarity': {value}}} candidates" in text
    figures = [o for o in outputs(nb) if "image/png" in o.get("data", {})]
    assert len(figures) == sum(c.source.count("show(sweep_figure(") for c in nb.cells) == 2
