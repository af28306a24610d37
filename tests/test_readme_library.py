"""The library snippets run as written on the vault the README's main job makes — the
vault core's in docs/architecture.md — and the main job's vault is ignored by git."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _python_block(text: str, heading: str) -> str:
    section = text.split(f"\n{heading}\n", 1)[1]
    return re.search(r"```python\n(.+?)\n```", section, re.S).group(1)


@pytest.fixture
def demo_vault(tmp_path, monkeypatch):
    """The main job's vault, `reme-demo/` in the working folder (the hashing embedder keeps
    it quick)."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["demo", "reme-demo", "--embedder", "hashing", "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return tmp_path / "reme-demo"


def test_the_vault_core_snippet_runs_on_the_main_jobs_vault(demo_vault, capsys):
    block = _python_block(ARCHITECTURE, "## The library and the module map")
    assert 'Vault.open("reme-demo")' in block
    exec(compile(block, "docs/architecture.md (library)", "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out.strip()  # it prints what it found


def test_the_main_jobs_vault_is_ignored_by_git():
    main_job = re.search(r"```bash\n(.+?)\n```", README.split("Set up and run the main job", 1)[1], re.S)
    assert "reme-workbench demo reme-demo" in main_job.group(1)
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "reme-demo/" in ignored
