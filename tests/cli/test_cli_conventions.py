"""The CLI's conventions, as a user meets them: where --vault goes, text vs JSON, exit
status for checks, what counts as a note, and each warning said once."""

from __future__ import annotations

import json
import os

import click
import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli

NOTE = """---
name: alpha
description: The alpha note.
---
Alpha links to [[digest/wiki/nowhere.md]].

derived_from:: [[daily/2026-10-05/log.md]]
"""
CLEAN = """---
name: beta
description: The beta note.
---
Beta is fine.

derived_from:: [[daily/2026-10-05/log.md]]
"""
LOG = "---\nname: log\ndescription: A log.\n---\nDeployed payments-api with a canary.\n"


@pytest.fixture
def vault(make_vault):
    return make_vault(
        {
            "digest/wiki/alpha.md": NOTE,
            "digest/wiki/beta.md": CLEAN,
            "daily/2026-10-05/log.md": LOG,
        }
    )


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _leaf_commands(group: click.Group, prefix=()):
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _leaf_commands(command, (*prefix, name))
        else:
            yield (*prefix, name), command


LEAVES = list(_leaf_commands(cli))


@pytest.mark.parametrize("path, command", LEAVES, ids=[" ".join(p) for p, _ in LEAVES])
def test_every_command_takes_vault_after_its_name(path, command):
    assert any("--vault" in p.opts for p in command.params), f"{' '.join(path)} has no --vault"


@pytest.mark.parametrize(
    "args",
    [("status", "--json"), ("graph", "--json"), ("health", "--json", "--no-report"), ("proposals", "list", "--json")],
)
def test_vault_works_before_and_after_the_command(vault, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)  # the current folder is not a vault
    before = invoke("--vault", vault, *args)
    after = invoke(*args, "--vault", vault)
    assert before.exit_code == 0, before.output
    assert after.exit_code == 0, after.output
    assert json.loads(after.stdout) == json.loads(before.stdout)


def test_init_without_a_path_uses_the_vault_option(tmp_path):
    target = tmp_path / "v"
    result = invoke("init", "--vault", target, "--json")
    assert result.exit_code == 0, result.output
    assert (target / "digest" / "wiki").is_dir()


def test_recall_batch_text_is_readable(vault, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "a", "query": "canary"}\n{"id": "b", "query": "zzzqqq"}\n', encoding="utf-8")
    result = invoke("recall", "--vault", vault, "--queries", queries, "--embedder", "hashing",
                    "--scope", "all", "--text")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert not out.lstrip().startswith("{"), out
    assert "[a] canary" in out and "daily/2026-10-05/log.md" in out
    assert "[b] zzzqqq" in out
    as_json = invoke("recall", "--vault", vault, "--queries", queries, "--embedder", "hashing", "--json")
    assert [json.loads(line)["id"] for line in as_json.stdout.splitlines()] == ["a", "b"]


def test_health_check_exits_1_on_problems_and_0_on_a_clean_vault(vault, make_vault):
    # a link to a note never written is the person's (not yet written), not a problem
    unwritten = invoke("health", "--vault", vault, "--check", "--no-report", "--text")
    assert unwritten.exit_code == 0, unwritten.output
    assert "Not yet written:        1 link(s)" in unwritten.stdout
    nowhere = vault / "digest/wiki/nowhere.md"  # it resolves at a health run, then goes
    nowhere.write_text("---\nname: nowhere\ndescription: Soon gone.\n---\nx\n", encoding="utf-8")
    assert invoke("health", "--vault", vault, "--json").exit_code == 0  # records what resolves
    nowhere.unlink()
    found = invoke("health", "--vault", vault, "--check", "--no-report", "--text")
    assert found.exit_code == 1, found.output
    assert "digest/wiki/nowhere.md" in found.stdout
    plain = invoke("health", "--vault", vault, "--no-report", "--text")
    assert plain.exit_code == 0  # without --check, a report is not a failure
    clean = make_vault({"digest/wiki/beta.md": CLEAN, "daily/2026-10-05/log.md": LOG}, name="clean")
    ok = invoke("health", "--vault", clean, "--check", "--no-report", "--json")
    assert ok.exit_code == 0, ok.output


def test_unreadable_files_are_problems_not_notes(vault):
    (vault / "digest/wiki/binary.md").write_bytes(b"\x00\x01\x02PNG")
    (vault / "digest/wiki/latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    (vault / "digest/wiki/bad-yaml.md").write_text("---\nname: [x\n---\nSee [[digest/wiki/beta.md]].\n")
    status = json.loads(invoke("status", "--vault", vault, "--json").stdout)
    # bad YAML is a note with a problem (its body and links are read); the others are not notes
    assert status["digest_notes"]["wiki"] == 3
    assert {p["path"] for p in status["problems"]} == {
        "digest/wiki/binary.md", "digest/wiki/latin1.md", "digest/wiki/bad-yaml.md"
    }
    graph = json.loads(invoke("graph", "--vault", vault, "--json").stdout)
    assert graph["nodes"] == 3
    assert "digest/wiki/binary.md" not in graph["isolated_nodes"]
    text = invoke("status", "--vault", vault, "--text").stdout
    assert "wiki 3" in text


def test_a_symlink_inside_the_vault_is_not_called_a_link_out(vault, tmp_path):
    os.symlink(vault / "digest/wiki/beta.md", vault / "digest/wiki/beta-alias.md")
    (tmp_path / "elsewhere.md").write_text("outside\n")
    os.symlink(tmp_path / "elsewhere.md", vault / "digest/wiki/out.md")
    os.symlink(tmp_path / "gone.md", vault / "digest/wiki/dangling.md")
    result = invoke("status", "--vault", vault, "--text")
    (inside,) = [line for line in result.stderr.splitlines() if "beta-alias.md" in line]
    assert "out of the vault" not in inside and "outside" not in inside
    assert "to digest/wiki/beta.md, inside the vault" in inside and "skipped" in inside
    (out,) = [line for line in result.stderr.splitlines() if "out.md" in line]
    assert "to a path outside the vault" in out
    (gone,) = [line for line in result.stderr.splitlines() if "dangling.md" in line]
    assert "does not exist" in gone


def test_each_warning_is_printed_once(vault):
    (vault / "daily/2026-10-05/latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))
    for args in (
        ("index", "--embedder", "hashing", "--text"),
        ("dream", "--embedder", "hashing", "--dry-run", "--text"),
        ("dream", "--embedder", "hashing", "--dry-run", "--json"),
        ("status", "--text"),
    ):
        result = invoke(*args, "--vault", vault)
        assert result.exit_code == 0, result.output
        mentions = [line for line in result.stderr.splitlines() if "latin1.md" in line]
        assert len(mentions) == 1, f"{args[0]}: {mentions}"
        assert mentions[0].startswith("warning: ")


def test_dream_with_the_vault_as_material_says_how_to_dream_everything(vault):
    """`reme-workbench dream .` (a user pointing at the vault) named pydantic's "Value error"
    and no way out; it says what material is and that no material dreams everything."""
    result = invoke("dream", "--vault", vault, ".")
    assert result.exit_code != 0
    assert "Value error" not in result.output
    assert "no material" in result.output and "daily/" in result.output, result.output
    files_before = sorted(p.relative_to(vault) for p in vault.rglob("*.md"))
    invoke("dream", "--vault", vault, "../outside")
    assert sorted(p.relative_to(vault) for p in vault.rglob("*.md")) == files_before
