"""Documentation that cannot drift: every command has help and is in the README, and
CI runs exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_every_command_has_help_and_is_in_the_readme(name):
    command = cli.commands[name]
    assert command.help and len(command.help.strip()) > 20, f"{name} needs a help text"
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0
    assert f"reme-workbench {name}" in README, f"README does not mention `reme-workbench {name}`"


def _readme_command(after_heading: str) -> str:
    section = README.split(after_heading, 1)[1]
    return re.search(r"```bash\n(.+?)\n```", section, re.S).group(1).strip()


def test_ci_runs_exactly_the_readme_test_command():
    test_command = _readme_command("Set up and run the tests")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines(), "README's test command and .ci/run disagree"


def test_readme_main_job_uses_the_sample_vault():
    main_job = _readme_command("Set up and run the main job")
    assert "init demo-vault --sample" in main_job
