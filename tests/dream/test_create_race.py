"""A lost create race is re-planned (docs/spec.md §3.2.5, issue #24.5): when the note a
dream proposal creates appears before it applies — another dream took the slug, or a
person wrote the file — the unit is planned again against that note (corroborate, or
create under another slug) instead of being left rejected with its material dreamt."""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.cli import cli

A = "daily/2026-10-05/mooring.md"
B = "daily/2026-10-06/mooring.md"
TEXT = ("---\nname: mooring\ndescription: d\n---\n## Notes\n\nWe decided to moor the zeppelin "
        "at gate nine because the mooring mast there is the tallest.\n")
SLUG = "digest/wiki/decided-to-moor-the-zeppelin.md"


def _vault(make_vault):
    root = make_vault({A: TEXT, B: TEXT})
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    return root


def _json(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_held_create_whose_slug_another_dream_took_is_planned_again_on_accept(make_vault):
    root = _vault(make_vault)
    (held,) = _json(root, "dream", "--review", A)["outcomes"]
    assert (held["action"], held["target_path"], held["state"]) == ("CREATE", SLUG, "pending")
    (won,) = _json(root, "dream", B)["outcomes"]  # the second dream takes the slug first
    assert (won["action"], won["target_path"], won["state"]) == ("CREATE", SLUG, "applied")
    winner = (root / SLUG).read_text(encoding="utf-8")

    accepted = _json(root, "proposals", "accept", held["proposal_id"])
    assert accepted["state"] == "rejected" and "superseded" in accepted["error"]
    assert f"{SLUG} was created meanwhile" in accepted["error"]
    (again,) = accepted["replanned_as"]
    assert again in accepted["error"]
    new = _json(root, "proposals", "show", again)
    # planned against the winner's note: it corroborates it, and waits for the person
    assert (new["action"], new["files"], new["state"]) == ("dream.corroborate", [SLUG], "pending")
    assert new["story"]["material"] == A and SLUG in new["story"]["candidates"]
    assert (root / SLUG).read_text(encoding="utf-8") == winner  # nothing written yet
    stored = _json(root, "proposals", "show", held["proposal_id"])
    assert again in stored["error"]  # the old record names its successor

    assert _json(root, "proposals", "accept", again)["state"] == "applied"
    note = (root / SLUG).read_text(encoding="utf-8")
    assert f"[[{A}]]" in note and f"[[{B}]]" in note  # both dreams' material backs it
    assert not list((root / "digest/wiki").glob("decided-to-moor-the-zeppelin-*.md"))


def test_the_cli_says_which_proposal_waits(make_vault):
    root = _vault(make_vault)
    (held,) = _json(root, "dream", "--review", A)["outcomes"]
    _json(root, "dream", B)
    text = CliRunner().invoke(cli, ["--vault", str(root), "proposals", "accept",
                                    held["proposal_id"], "--text"], catch_exceptions=False)
    assert text.exit_code == 0, text.output
    assert f"{held['proposal_id']} is now rejected: superseded" in text.output
    assert "waits for you: `reme-workbench proposals show p-" in text.output


def test_a_create_that_loses_its_slug_during_the_run_is_planned_again_at_once(make_vault, monkeypatch):
    """The slug is free when the unit is planned; a person writes that very file before
    the create applies. The run plans the unit again against the person's note."""
    from reme_workbench.vault import store as store_module

    root = _vault(make_vault)
    mine = ("---\nname: decided-to-moor-the-zeppelin\ndescription: Where the zeppelin moors.\n"
            "---\nWe moor the zeppelin at gate nine: its mooring mast is the tallest.\n\n"
            f"My own words.\n\nderived_from:: [[{B}]]\n")
    real_apply = store_module.Store.apply
    raced = []

    def a_person_writes_it_first(self, changeset, *args, **kwargs):
        creates = [op.path for op in changeset.ops if isinstance(op, store_module.Create)]
        if SLUG in creates and not raced:
            raced.append(SLUG)
            (self.root / SLUG).write_text(mine, encoding="utf-8")
        return real_apply(self, changeset, *args, **kwargs)

    monkeypatch.setattr(store_module.Store, "apply", a_person_writes_it_first)
    report = _json(root, "dream", A)
    assert raced == [SLUG]
    (outcome,) = report["outcomes"]
    assert outcome["state"] == "applied" and "created meanwhile" in outcome["message"]
    assert outcome["target_path"] == SLUG and outcome["action"] == "UPDATE"  # corroborated
    note = (root / SLUG).read_text(encoding="utf-8")
    assert "My own words." in note and f"[[{A}]]" in note  # the person's text stays
    proposals = {p["id"]: p for p in _json(root, "proposals", "list")}
    lost = [p for p in proposals.values() if p["action"] == "dream.create"]
    assert len(lost) == 1 and lost[0]["state"] == "rejected"
    assert "superseded" in lost[0]["error"] and outcome["proposal_id"] in lost[0]["error"]
    dreamt = json.loads((root / "meta/dreamt.json").read_text(encoding="utf-8"))["files"]
    assert A in dreamt  # dreamt, because its unit landed
