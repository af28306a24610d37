"""Every notebook in notebooks/ runs headless, top to bottom, without an error."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_and_leaves_no_vault_behind(path, tmp_path, monkeypatch):
    monkeypatch.delenv("REME_VAULT", raising=False)
    scratch = tmp_path / "tmp"  # the kernel's temp folder: whatever it makes shows here
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert [p.name for p in scratch.iterdir()] == []  # the sample copy went with the kernel


def test_vault_tour_shows_the_sample_broken_link(tmp_path):
    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / "vault_tour.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    last = nb.cells[-1].outputs[0]["data"]["text/plain"]
    assert "missing-vendor-sla.md" in last
