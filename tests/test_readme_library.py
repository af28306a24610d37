"""The README's Library snippet runs as written on the vault the README's main job makes,
and the main job's vault is ignored by git."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from reme_workbench.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _library_block() -> str:
    section = README.split("\n## Library\n", 1)[1]
    return re.search(r"```python\n(.+?)\n```", section, re.S).group(1)


def test_the_readme_library_snippet_runs_on_the_main_jobs_vault(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    # the main job: the demo (the hashing embedder keeps it quick)
    result = CliRunner().invoke(cli, ["demo", "reme-demo", "--embedder", "hashing", "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    block = _library_block()
    assert 'Vault.open("reme-demo")' in block
    exec(compile(block, "README.md (Library)", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.strip()  # it prints what it found


def test_the_main_jobs_vault_is_ignored_by_git():
    main_job = re.search(r"```bash\n(.+?)\n```", README.split("Set up and run the main job", 1)[1], re.S)
    assert "reme-workbench demo reme-demo" in main_job.group(1)
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "reme-demo/" in ignored
