"""`proposals show` as a person reads it: the story's fields, the diff."""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.cli import cli

BETA = "---\nname: beta\ndescription: The beta note.\n---\nBeta.\n"


def test_show_text_marks_a_field_it_cuts(make_vault):
    # thirty short links Obsidian resolves: health --fix proposes writing them as vault
    # paths, and the proposal's story lists every one (far over a line)
    alpha = ("---\nname: alpha\ndescription: The alpha note.\n---\n"
             + "".join(f"Line {i} links [[beta]].\n" for i in range(30)))
    vault = make_vault({"digest/wiki/alpha.md": alpha, "digest/wiki/beta.md": BETA})
    fixed = json.loads(CliRunner().invoke(cli, ["--vault", str(vault), "health", "--fix",
                                                "--no-report", "--json"]).stdout)
    pid = fixed["normalize"]["proposal"]
    whole = json.loads(CliRunner().invoke(cli, ["--vault", str(vault), "proposals", "show", pid,
                                                "--json"]).stdout)["story"]
    links = json.dumps(whole["links"], ensure_ascii=False)
    assert len(links) > 300
    shown = CliRunner().invoke(cli, ["--vault", str(vault), "proposals", "show", pid, "--text"])
    assert shown.exit_code == 0, shown.output
    (line,) = [ln for ln in shown.stdout.splitlines() if ln.startswith("  links: ")]
    cut = line.removeprefix("  links: ")
    assert cut.endswith("…") and links.startswith(cut[:-1]) and len(cut) <= 300
    assert "--json" in shown.stdout  # where to read it whole
    (rule,) = [ln for ln in shown.stdout.splitlines() if ln.startswith("  rule: ")]
    assert not rule.endswith("…")  # a short field is shown whole, unmarked


def test_a_malformed_id_is_one_line_saying_what_an_id_looks_like(make_vault):
    vault = make_vault({"digest/wiki/beta.md": BETA})
    for words in (["show"], ["accept"], ["reject"], ["revert"]):
        for bad in ("x", "p 1", "a" * 65):
            result = CliRunner().invoke(cli, ["--vault", str(vault), "proposals", *words, bad])
            assert result.exit_code == 1, (words, bad, result.output)
            (line,) = result.output.strip().splitlines()
            assert line.startswith("Error: ") and "ids look like p-" in line, (words, bad, line)
