"""The main job as a user runs it: init the sample, dream it with the offline brain."""

from __future__ import annotations

import json
from collections import Counter

from click.testing import CliRunner

from reme_workbench.cli import cli
from tests.conftest import snapshot


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_dream_the_sample_vault_offline(tmp_path):
    vault = tmp_path / "demo"
    assert run("init", str(vault), "--sample", "--json").exit_code == 0
    result = run("--vault", str(vault), "dream", "--embedder", "hashing", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert len(report["materials"]) == 37  # every daily log and resource
    outcomes = report["outcomes"]
    created = [o for o in outcomes if o["action"] == "CREATE" and o["state"] == "applied"]
    corroborated = [o for o in outcomes if o["flavor"] == "CORROBORATE" and o["state"] == "applied"]
    assert len(created) >= 40 and len(corroborated) >= 5
    buckets = {o["target_path"].split("/")[1] for o in created}
    assert buckets == {"procedure", "personal", "wiki"}
    assert not [o for o in outcomes if o["material"].endswith("halloween-chitchat.md")]
    assert report["tokens"]["prompt_tokens"] == 0  # the offline brain calls no model
    # every note written passes health: provenance everywhere, no broken digest links
    health = json.loads(run("--vault", str(vault), "health", "--json", "--no-report").stdout)
    assert health["missing_provenance"] == [] and health["broken_provenance"] == []
    assert all(b["source"].startswith("daily/") for b in health["broken_links"])
    # a second run over unchanged material does nothing
    again = json.loads(run("--vault", str(vault), "dream", "--embedder", "hashing", "--json").stdout)
    assert again["materials"] == [] and again["outcomes"] == []
    listing = json.loads(run("--vault", str(vault), "proposals", "list", "--json").stdout)
    assert len(listing) == len([o for o in outcomes if o["proposal_id"]])
    # the main job then consolidates what dream wrote
    done = json.loads(run("--vault", str(vault), "consolidate", "--json").stdout)
    assert done["ran"] == ["communities", "abstract", "merge", "split", "archive", "cooldowns",
                           "health"]
    phases = {p["phase"]: p for p in done["phases"]}
    notes = len(list((vault / "digest").rglob("*.md")))
    stats = phases["communities"]["details"]["stats"]
    assert 1 < stats["n_communities"] < notes and phases["communities"]["details"]["modularity"] > 0.3
    assert phases["archive"]["details"]["scored"] == notes  # fresh notes: none archived
    assert phases["archive"]["details"]["archived"] == []
    assert done["audit"].endswith("consolidate_actions.md")


def test_dream_dry_run_and_text_output(tmp_path):
    vault = tmp_path / "demo"
    run("init", str(vault), "--sample", "--json")
    result = run("--vault", str(vault), "dream", "daily/2026-10-05", "--embedder", "hashing", "--dry-run", "--text")
    assert result.exit_code == 0, result.output
    assert "daily/2026-10-05/deploy-payments-api.md: CREATE" in result.stdout
    assert "[dry-run]" in result.stdout and "brain call(s)" in result.stdout
    assert not any((vault / "digest").rglob("*.md"))


def test_a_dry_run_reports_what_the_run_then_does(tmp_path):
    """Later units of a run corroborate the notes earlier units write; the dry run, which
    writes nothing, predicts those too: the same action for every unit, the same paths."""
    vault = tmp_path / "demo"
    run("init", str(vault), "--sample", "--json")
    before = snapshot(vault)
    dry = json.loads(run("--vault", str(vault), "dream", "--embedder", "hashing", "--dry-run", "--json").stdout)
    assert snapshot(vault) == before  # the vault as it was (the index in .reme/ aside)
    real = json.loads(run("--vault", str(vault), "dream", "--embedder", "hashing", "--json").stdout)
    counts = [Counter((o["action"], o["flavor"]) for o in r["outcomes"]) for r in (dry, real)]
    assert counts[0] == counts[1] and counts[1][("UPDATE", "CORROBORATE")] >= 5
    assert ([(o["unit"], o["action"], o["target_path"]) for o in dry["outcomes"]]
            == [(o["unit"], o["action"], o["target_path"]) for o in real["outcomes"]])
    assert {o["state"] for o in dry["outcomes"]} == {"dry-run"} and dry["pending"] == []
    assert not any(o["proposal_id"] for o in dry["outcomes"])


def test_dream_rejects_bad_material_and_flags(tmp_path):
    vault = tmp_path / "demo"
    run("init", str(vault), "--sample", "--json")
    bad = CliRunner().invoke(cli, ["--vault", str(vault), "dream", "digest/wiki", "--embedder", "hashing"])
    assert bad.exit_code == 1 and "not material" in bad.output
    both = CliRunner().invoke(cli, ["--vault", str(vault), "dream", "--record", "a.jsonl", "--replay", "b.jsonl"])
    assert both.exit_code == 1 and "not both" in both.output
    unknown = CliRunner().invoke(cli, ["--vault", str(vault), "dream", "--brain", "gpt4", "--embedder", "hashing"])
    assert unknown.exit_code == 1 and "litellm:<model>" in unknown.output


def test_record_or_replay_needs_a_model_brain(tmp_path):
    vault = tmp_path / "demo"
    run("init", str(vault), "--sample", "--json")
    result = CliRunner().invoke(cli, ["--vault", str(vault), "dream", "--record", str(tmp_path / "c.jsonl")])
    assert result.exit_code == 1 and "--brain litellm:<model>" in result.output
    assert not (tmp_path / "c.jsonl").exists()


def test_dream_review_holds_every_proposal_for_a_person(tmp_path):
    """The offline brain only CREATEs and CORROBORATEs, which apply at once by default;
    --review holds them all, so they can be read before anything lands."""
    vault = tmp_path / "demo"
    run("init", str(vault), "--sample", "--json")
    result = run("--vault", str(vault), "dream", "daily/2026-10-05", "--embedder", "hashing", "--review", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    states = {o["state"] for o in report["outcomes"]}
    assert report["outcomes"] and states <= {"pending", "rejected"} and "pending" in states
    assert not any((vault / "digest").rglob("*.md"))  # nothing applied
    pending = json.loads(run("--vault", str(vault), "proposals", "list", "--state", "pending", "--json").stdout)
    assert sorted(p["id"] for p in pending) == sorted(report["pending"])
    first = pending[0]
    assert json.loads(run("--vault", str(vault), "proposals", "accept", first["id"], "--json").stdout)["state"] == "applied"
    assert (vault / first["files"][0]).is_file()
    text = run("--vault", str(vault), "dream", "daily/2026-10-06", "--embedder", "hashing", "--review", "--text")
    assert "wait for review: reme-workbench proposals list --state pending" in text.stdout
