"""The demo's closing lines, as a person reads them after the main job: each "Next:"
command works as printed and shows what it promises."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from reme_workbench.cli import cli


def test_the_demos_next_line_lists_the_proposals_that_wait(tmp_path):
    path = tmp_path / "reme-demo"
    result = CliRunner().invoke(cli, ["demo", str(path), "--embedder", "hashing", "--text"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    waiting = re.search(r"^Proposals waiting for you: (.+)$", result.output, re.M).group(1)
    count = sum(int(n) for n in re.findall(r" (\d+)(?:,|$)", waiting))
    (line,) = [ln for ln in result.output.splitlines() if " proposals list" in ln]
    args = line.split(f"--vault {path} ", 1)[1].split()
    assert args == ["proposals", "list", "--state", "pending"], line
    rows = json.loads(CliRunner().invoke(cli, ["--vault", str(path), *args, "--json"]).stdout)
    assert {row["state"] for row in rows} == {"pending"} and len(rows) == count
    every = json.loads(CliRunner().invoke(cli, ["--vault", str(path), "proposals", "list",
                                                "--json"]).stdout)
    assert len(every) > len(rows)  # the applied ones the bare list would show first
