"""The README's library example and the vault core's snippet (docs/architecture.md) run as
written on the vault the README's main job makes, and the main job's vault is ignored by
git."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _python_block(text: str, heading: str) -> str:
    section = text.split(f"\n{heading}\n", 1)[1]
    return re.search(r"```python\n(.+?)\n```", section, re.S).group(1)


@pytest.fixture
def demo_vault(demo_vault, monkeypatch):
    """The main job's vault as `reme-demo/` in the working folder, as after the main job."""
    monkeypatch.chdir(demo_vault.parent)
    return demo_vault


def test_the_readme_library_example_runs_on_the_main_jobs_vault(demo_vault, capsys):
    block = _python_block(README, "## Library")
    assert 'Workspace("reme-demo")' in block
    # the folder of Obsidian notes the example's dry-run import reads
    notes = demo_vault.parent / "my-notes"
    notes.mkdir()
    (notes / "Ledger DB.md").write_text("---\ntags: [db]\n---\n# Ledger DB\n\nSee [[Pooler]].\n",
                                        encoding="utf-8")
    (notes / "Pooler.md").write_text("# Pooler\n\nPgBouncer in transaction mode.\n", encoding="utf-8")
    exec(compile(block, "README.md (Library)", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    # what its comments say it prints: the appended how-to dreamt into a runbook, recalled
    assert "CREATE digest/procedure/" in out and " applied" in out, out
    assert re.search(r"^\d\.\d{3}  digest/procedure/rotate-the-keybox-api-token\.md$", out, re.M), out
    assert "health " in out and "2 notes would be imported" in out, out
    assert not (demo_vault / "digest" / "wiki" / "pooler.md").exists()  # a dry run


def test_the_vault_core_snippet_runs_on_the_main_jobs_vault(demo_vault, capsys):
    block = _python_block(ARCHITECTURE, "## The library and the module map")
    assert 'Vault.open("reme-demo")' in block
    exec(compile(block, "docs/architecture.md (library)", "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out.strip()  # it prints what it found


def test_the_main_jobs_vault_is_ignored_by_git():
    section = README.split("**The main job**", 1)[1]
    main_job = re.search(r"```bash\n(.+?)\n```", section, re.S).group(1)
    assert main_job.splitlines()[-1].strip().endswith("reme-workbench demo reme-demo")
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "reme-demo/" in ignored
