"""The CLI, driven as a user drives it: through the click entry point and the console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from tests.conftest import snapshot

NOTE_A = """---
name: alpha
description: The alpha note.
---
Alpha links to [[digest/wiki/beta.md|Beta]] and is_a:: [[digest/wiki/gamma.md]].

derived_from:: [[daily/2026-10-05/log.md]]
"""
NOTE_B = """---
name: beta
description: The beta note.
tags: [x, y]
---
Beta links back to [[digest/wiki/alpha.md#Intro|the alpha]] and embeds ![[digest/wiki/alpha.md]].
[see_also:: [[digest/wiki/alpha.md]]] and a missing one [[digest/wiki/nowhere.md|Nowhere]].

derived_from:: [[daily/2026-10-05/log.md]]
"""
NOTE_C = """---
name: gamma
description: No provenance here.
---
Gamma mentions `[[digest/wiki/alpha.md]]` in code only, and [[daily/2026-10-05/log.md]].
derived_from:: [[resource/2026-10-01/gone.md]]
"""
NOTE_D = """---
name: delta
description: No provenance at all.
---
Steps: see [[digest/wiki/gamma.md]].
"""
LOG = """---
name: log
description: A log.
---
Worked on [[digest/wiki/alpha.md]] today.
"""


@pytest.fixture
def vault(make_vault):
    return make_vault(
        {
            "digest/wiki/alpha.md": NOTE_A,
            "digest/wiki/beta.md": NOTE_B,
            "digest/wiki/gamma.md": NOTE_C,
            "digest/procedure/delta.md": NOTE_D,
            "daily/2026-10-05/log.md": LOG,
        }
    )


def run(*args, vault=None):
    prefix = ["--vault", str(vault)] if vault is not None else []
    result = CliRunner().invoke(cli, [*prefix, *args], catch_exceptions=False)
    return result


def test_init_creates_layers_and_gitignore_and_is_idempotent(tmp_path):
    target = tmp_path / "v"
    result = run("init", str(target), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for layer in ("resource", "daily", "digest/procedure", "digest/personal", "digest/wiki", "meta", "audit"):
        assert (target / layer).is_dir()
    assert ".reme/" in (target / ".gitignore").read_text()
    assert "digest/wiki/" in data["created"]
    # a second init changes nothing
    before = snapshot(target)
    again = json.loads(run("init", str(target), "--json").stdout)
    assert again["created"] == []
    assert snapshot(target) == before


def test_init_sample_copies_material_without_overwriting(tmp_path):
    target = tmp_path / "v"
    mine = target / "daily" / "2026-10-05"
    mine.mkdir(parents=True)
    data = json.loads(run("init", str(target), "--sample", "--json").stdout)
    copied = [p for p in data["created"] if p.startswith(("daily/", "resource/"))]
    assert len([p for p in copied if p.startswith("daily/")]) >= 15
    assert any(p.startswith("resource/") for p in copied)
    # an existing user file is kept byte for byte
    existing = next(p for p in copied if p.startswith("daily/"))
    (target / existing).write_text("my own edit", encoding="utf-8")
    run("init", str(target), "--sample", "--json")
    assert (target / existing).read_text(encoding="utf-8") == "my own edit"


def test_status_counts_layers(vault):
    data = json.loads(run("status", "--json", vault=vault).stdout)
    assert data["digest_notes"] == {"procedure": 1, "personal": 0, "wiki": 3}
    assert data["files"]["daily"] == 1


def test_commands_refuse_a_folder_that_is_not_a_vault(tmp_path):
    result = CliRunner().invoke(cli, ["--vault", str(tmp_path), "status"])
    assert result.exit_code == 1
    assert "reme-workbench init" in result.output


def test_links_json_lists_every_link_with_its_span(vault):
    result = run("links", "digest/wiki/beta.md", "--json", vault=vault)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert set(rows[0]) == {"target", "alias", "predicate", "embed", "anchor", "line", "column"}
    assert rows[0] == {
        "target": "digest/wiki/alpha.md", "alias": "the alpha", "predicate": None,
        "embed": False, "anchor": "Intro", "line": 6, "column": 20,
    }
    assert rows[1]["embed"] is True
    assert rows[2]["predicate"] == "see_also"
    assert [r["predicate"] for r in rows][-1] == "derived_from"


def test_links_accepts_a_shell_path_inside_the_vault(vault, monkeypatch):
    monkeypatch.chdir(vault / "digest")
    rows = json.loads(run("links", "wiki/alpha.md", "--json", vault=vault).stdout)
    assert [r["target"] for r in rows] == [
        "digest/wiki/beta.md", "digest/wiki/gamma.md", "daily/2026-10-05/log.md"
    ]


def test_links_of_a_missing_file_is_a_clear_error(vault):
    result = CliRunner().invoke(cli, ["--vault", str(vault), "links", "digest/wiki/nope.md"])
    assert result.exit_code == 1
    assert "not a file in the vault" in result.output


def test_graph_json_reports_counts_dangling_and_top_inbound(vault):
    data = json.loads(run("graph", "--json", vault=vault).stdout)
    assert data["nodes"] == 4
    assert data["buckets"]["wiki"]["nodes"] == 3
    assert any(d["target"] == "digest/wiki/nowhere.md" for d in data["dangling_links"])
    top = {row["path"]: row["inbound"] for row in data["top_inbound"]}
    assert top["digest/wiki/alpha.md"] >= 1 and top["digest/wiki/gamma.md"] >= 1
    assert "digest/procedure/delta.md" not in top or top["digest/procedure/delta.md"] == 0


def test_health_reports_d1_and_d10_and_writes_the_audit_note(vault):
    result = run("health", "--json", vault=vault)
    data = json.loads(result.stdout)
    # a link that never resolved is a note not yet written, not a D1 fault (spec §7.5.1)
    assert data["broken_links"] == []
    assert [b["target"] for b in data["unwritten_links"]] == ["digest/wiki/nowhere.md"]
    assert [b["target"] for b in data["broken_provenance"]] == ["resource/2026-10-01/gone.md"]
    assert data["missing_provenance"] == ["digest/procedure/delta.md"]
    report = vault / data["report"]
    assert report.name == "health_links.md"
    assert "[[digest/wiki/beta.md]]" in report.read_text(encoding="utf-8")


def test_health_fix_proposes_the_unlink_a_person_accepts_or_reverts_and_leaves_d10(vault):
    before = (vault / "digest/wiki/beta.md").read_bytes()
    nowhere = vault / "digest/wiki/nowhere.md"  # it resolved at a health run, then went
    nowhere.write_text("---\nname: nowhere\ndescription: Soon gone.\n---\nx\n", encoding="utf-8")
    run("health", "--json", vault=vault)
    nowhere.unlink()
    data = json.loads(run("health", "--fix", "--json", vault=vault).stdout)
    assert data["fixed"] == 0 and data["unlink"]["state"] == "pending"
    assert [b["target"] for b in data["broken_links"]] == ["digest/wiki/nowhere.md"]
    assert data["missing_provenance"] == ["digest/procedure/delta.md"]
    assert (vault / "digest/wiki/beta.md").read_bytes() == before  # waits for a person
    pid = data["unlink"]["proposal"]
    again = run("health", "--fix", "--text", vault=vault).stdout
    assert f"proposal(s) {pid} (one per note) already wait" in again  # not proposed twice
    assert len(list((vault / "meta/proposals").glob("*.json"))) == 1
    shown = run("proposals", "show", pid, "--text", vault=vault).stdout
    assert "-[see_also:: [[digest/wiki/alpha.md]]] and a missing one [[digest/wiki/nowhere.md|Nowhere]]." in shown
    accepted = run("proposals", "accept", pid, "--json", vault=vault)
    assert json.loads(accepted.stdout)["state"] == "applied", accepted.output
    text = (vault / "digest/wiki/beta.md").read_text(encoding="utf-8")
    assert "a missing one Nowhere." in text
    assert "[[digest/wiki/alpha.md#Intro|the alpha]]" in text  # other links untouched
    assert json.loads(run("health", "--json", vault=vault).stdout)["broken_links"] == []
    run("proposals", "revert", pid, "--json", vault=vault)
    assert (vault / "digest/wiki/beta.md").read_bytes() == before  # the link is back


def test_rename_dry_run_writes_nothing(vault):
    before = snapshot(vault)
    data = json.loads(run("rename", "digest/wiki/alpha.md", "digest/wiki/alpha-prime.md", "--dry-run", "--json", vault=vault).stdout)
    assert data["dry_run"] is True
    assert data["links_rewritten"] == {"digest/wiki/beta.md": 3, "daily/2026-10-05/log.md": 1}
    assert snapshot(vault) == before


def test_rename_moves_and_retargets_keeping_alias_anchor_embed_predicate(vault):
    result = run("rename", "digest/wiki/alpha.md", "digest/wiki/alpha-prime.md", "--text", vault=vault)
    assert result.exit_code == 0, result.output
    assert not (vault / "digest/wiki/alpha.md").exists()
    moved = (vault / "digest/wiki/alpha-prime.md").read_text(encoding="utf-8")
    assert "name: alpha-prime" in moved
    assert "is_a:: [[digest/wiki/gamma.md]]" in moved
    beta = (vault / "digest/wiki/beta.md").read_text(encoding="utf-8")
    assert "[[digest/wiki/alpha-prime.md#Intro|the alpha]]" in beta
    assert "![[digest/wiki/alpha-prime.md]]" in beta
    assert "[see_also:: [[digest/wiki/alpha-prime.md]]]" in beta
    assert beta == NOTE_B.replace("digest/wiki/alpha.md", "digest/wiki/alpha-prime.md")
    # code spans are not links and are not rewritten
    gamma = (vault / "digest/wiki/gamma.md").read_text(encoding="utf-8")
    assert gamma == NOTE_C
    # the daily log is updated by this explicit user command
    assert "[[digest/wiki/alpha-prime.md]]" in (vault / "daily/2026-10-05/log.md").read_text(encoding="utf-8")
    audit = next((vault / "audit").rglob("vault_actions.md")).read_text(encoding="utf-8")
    assert "alpha-prime.md" in audit


def test_rename_refuses_overwrite_and_bad_paths(vault):
    before = snapshot(vault)
    for args, fragment in [
        (("digest/wiki/alpha.md", "digest/wiki/beta.md"), "already exists"),
        (("digest/wiki/alpha.md", "../../etc/passwd.md"), "leave the vault"),
        (("digest/wiki/alpha.md", "digest/knowledge/alpha.md"), "bucket"),
        (("digest/wiki/missing.md", "digest/wiki/x.md"), "does not exist"),
    ]:
        result = CliRunner().invoke(cli, ["--vault", str(vault), "rename", *args])
        assert result.exit_code == 1, result.output
        assert fragment in result.output
    assert snapshot(vault) == before


def test_bad_input_is_reported_per_file_and_the_rest_is_processed(make_vault, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret [[digest/wiki/ok.md]]", encoding="utf-8")
    vault = make_vault(
        {
            "digest/wiki/ok.md": "---\nname: ok\ndescription: fine\n---\nSee [[../../etc/passwd]].\nderived_from:: [[daily/2026-10-05/x.md]]\n",
            "digest/wiki/bad-yaml.md": "---\nname: [unclosed\n---\nbody [[digest/wiki/ok.md]]\n",
            "digest/wiki/binary.md": b"\x00\x01\x02PNG\x00",
            "digest/wiki/latin1.md": "caf\xe9 [[digest/wiki/ok.md]]".encode("latin-1"),
            "digest/wiki/odd name #[1] 'q'.md": "---\nname: odd\ndescription: odd\n---\n[[digest/wiki/ok.md]]\n",
            "daily/2026-10-05/x.md": "log\n",
        }
    )
    with open(vault / "digest/wiki/huge.md", "wb") as fh:
        fh.truncate(50 * 1024 * 1024)  # sparse: 50 MB on paper, nothing on disk
    os.symlink(outside, vault / "digest/wiki/link-out.md")
    before = snapshot(vault)
    result = CliRunner().invoke(cli, ["--vault", str(vault), "graph", "--json"])
    assert result.exit_code == 0, result.output
    stderr = result.stderr
    for name in ["bad-yaml.md", "binary.md", "latin1.md", "huge.md", "link-out.md"]:
        assert name in stderr, f"no warning for {name}: {stderr}"
    data = json.loads(result.stdout)
    assert data["nodes"] >= 2  # ok.md and the oddly named note are in the graph
    health = json.loads(CliRunner().invoke(cli, ["--vault", str(vault), "health", "--json", "--no-report"]).stdout)
    assert [(b["target"], b["reason"]) for b in health["unwritten_links"]] == [
        ("../../etc/passwd", "points outside the vault")]
    # unreadable files are problems, not "notes without provenance"
    assert not {"digest/wiki/binary.md", "digest/wiki/latin1.md", "digest/wiki/huge.md"} & set(health["missing_provenance"])
    assert snapshot(vault) == before  # reading modified nothing


def test_console_script_runs_end_to_end(tmp_path):
    target = tmp_path / "v"
    exe = [sys.executable, "-m", "reme_workbench"]
    subprocess.run([*exe, "init", str(target), "--sample", "--json"], check=True, capture_output=True)
    out = subprocess.run([*exe, "--vault", str(target), "health", "--json"], check=True, capture_output=True, text=True)
    data = json.loads(out.stdout)
    # the sample holds exactly one link to a file that is not there, in a daily log: it
    # never resolved, so it is listed as not yet written, not broken
    assert data["broken_links"] == []
    assert [(b["source"], b["target"]) for b in data["unwritten_links"]] == [
        ("daily/2026-10-20/vendor-sla-review.md", "resource/2026-10-20/missing-vendor-sla.md")
    ]
    assert data["broken_provenance"] == [] and data["missing_provenance"] == []
    # --fix never rewrites daily/, nor a link never written: the log is untouched
    log = target / "daily/2026-10-20/vendor-sla-review.md"
    before = log.read_bytes()
    out = subprocess.run([*exe, "--vault", str(target), "health", "--fix", "--text"], check=True, capture_output=True, text=True)
    assert "Not yet written:        1 link(s)" in out.stdout
    assert log.read_bytes() == before


def test_rename_refuses_to_move_material_out_of_daily(vault):
    """Sources are immutable: moving a daily log into digest/ would turn material into a
    note and break the provenance pointing at it."""
    before = snapshot(vault)
    for new in ("digest/wiki/dpa.md", "daily/2026-10-06/log.md"):
        result = CliRunner().invoke(cli, ["--vault", str(vault), "rename", "daily/2026-10-05/log.md", new])
        assert result.exit_code == 1, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "source material" in lines[0], result.output
    # a digest note cannot become material either
    result = CliRunner().invoke(cli, ["--vault", str(vault), "rename", "digest/wiki/alpha.md", "daily/2026-10-05/alpha.md"])
    assert result.exit_code == 1 and "source material" in result.output
    moved_out = CliRunner().invoke(
        cli, ["--vault", str(vault), "rename", "daily/2026-10-05/log.md", "digest/wiki/dpa.md", "--move-source"]
    )
    assert moved_out.exit_code == 1 and "within daily/" in moved_out.output
    assert snapshot(vault) == before


def test_rename_move_source_moves_a_daily_log_and_keeps_provenance(vault):
    result = run("rename", "daily/2026-10-05/log.md", "daily/2026-10-06/log.md", "--move-source", "--json", vault=vault)
    assert result.exit_code == 0, result.output
    assert not (vault / "daily/2026-10-05/log.md").exists()
    assert (vault / "daily/2026-10-06/log.md").read_text(encoding="utf-8") == LOG
    alpha = (vault / "digest/wiki/alpha.md").read_text(encoding="utf-8")
    assert "derived_from:: [[daily/2026-10-06/log.md]]" in alpha
    health = json.loads(run("health", "--json", "--no-report", vault=vault).stdout)
    assert [b["target"] for b in health["broken_provenance"]] == ["resource/2026-10-01/gone.md"]


def test_next_lines_name_the_command_as_it_was_typed(tmp_path):
    """After the README's set-up the program is .venv/bin/reme-workbench, not on PATH: a
    "Next:" line must say what works."""
    exe = Path(sys.executable).parent / "reme-workbench"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["PATH"] = "/usr/bin:/bin"  # the venv is not on PATH
    out = subprocess.run([str(exe), "init", str(tmp_path / "v"), "--text"], capture_output=True,
                         text=True, env=env, check=True).stdout
    assert f"Next: {exe} --vault {tmp_path / 'v'} status" in out
    module = subprocess.run([sys.executable, "-m", "reme_workbench", "init", str(tmp_path / "w"),
                             "--text"], capture_output=True, text=True, env=env, check=True).stdout
    assert f"Next: {Path(sys.executable).name} -m reme_workbench --vault" in module
