"""`health --fix` rewrites none of a person's lines without them (docs/spec.md §7.5.3,
§3.7.3, issue #29): the short links it would write as vault paths become one proposal,
`health.normalize`, that waits for a person — even when `[proposals] auto_apply` names
it — and applies, link by link as planned, when they accept it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.cli import cli
from tests.conftest import snapshot

LOG = "daily/2022-03-01/import.md"
KANBAN = "digest/wiki/kanban.md"
CRUMBS = "digest/wiki/breadcrumbs.md"


def page(name: str, body: str) -> str:
    return f"---\naliases:\n- {name}\n---\n# {name}\n\n{body}\n\nderived_from:: [[{LOG}]]\n"


def persons_vault(make_vault, toml: str = ""):
    root = make_vault({
        LOG: "imported\n",
        CRUMBS: page("Breadcrumbs", "Shows the path. See [[kanban|Kanban]]."),
        KANBAN: page("Kanban", "Boards. Back to [[breadcrumbs]] and [[Breadcrumbs#Setup]]."),
    })
    if toml:
        (root / "reme.toml").write_text(toml, encoding="utf-8")
    return root


def cli_json(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def notes(root) -> dict:
    return {k: v for k, v in snapshot(root).items() if k.startswith("digest/")}


def test_health_fix_proposes_the_rewrite_and_writes_no_note(make_vault):
    root = persons_vault(make_vault)
    before = notes(root)
    data = cli_json(root, "health", "--fix", "--no-report")
    assert notes(root) == before  # not one byte of a person's note changed
    assert data["normalized"] == 0
    rewrite = data["normalize"]
    assert (rewrite["links"], rewrite["notes"], rewrite["state"]) == (3, 2, "pending")
    shown = cli_json(root, "proposals", "show", rewrite["proposal"])
    assert shown["action"] == "health.normalize"
    assert {(r["source"], r["raw"], r["replacement"]) for r in shown["story"]["links"]} == {
        (CRUMBS, "[[kanban|Kanban]]", f"[[{KANBAN}|Kanban]]"),
        (KANBAN, "[[breadcrumbs]]", f"[[{CRUMBS}|breadcrumbs]]"),
        (KANBAN, "[[Breadcrumbs#Setup]]", f"[[{CRUMBS}#Setup|Breadcrumbs > Setup]]"),
    }
    assert f"+Boards. Back to [[{CRUMBS}|breadcrumbs]]" in shown["diff"]
    again = cli_json(root, "health", "--fix", "--no-report")["normalize"]
    assert (again["proposal"], again["state"]) == (rewrite["proposal"], "already pending")

    assert cli_json(root, "proposals", "accept", rewrite["proposal"])["state"] == "applied"
    kanban = (root / KANBAN).read_text(encoding="utf-8")
    assert f"Back to [[{CRUMBS}|breadcrumbs]] and [[{CRUMBS}#Setup|Breadcrumbs > Setup]]." in kanban
    assert cli_json(root, "health", "--no-report")["short_links"] == []
    assert cli_json(root, "proposals", "revert", rewrite["proposal"])["state"] == "reverted"
    assert notes(root).keys() == before.keys()
    assert all(snapshot(root)[k][0] == v[0] for k, v in before.items())  # the bytes are back


def test_auto_apply_naming_it_still_holds_it_for_a_person(make_vault):
    root = persons_vault(make_vault, '[proposals]\nauto_apply = ["health.normalize"]\n')
    before = notes(root)
    rewrite = cli_json(root, "health", "--fix", "--no-report")["normalize"]
    assert rewrite["state"] == "pending" and notes(root) == before
    held = cli_json(root, "proposals", "show", rewrite["proposal"])["story"]["held"]
    assert "line" in held and "held for a person" in held


def test_a_rejected_rewrite_is_not_proposed_again(make_vault):
    root = persons_vault(make_vault)
    first = cli_json(root, "health", "--fix", "--no-report")["normalize"]
    cli_json(root, "proposals", "reject", first["proposal"], "--reason", "I like short links")
    assert cli_json(root, "health", "--fix", "--no-report")["normalize"] is None


def test_consolidate_proposes_the_rewrite_too(make_vault):
    root = persons_vault(make_vault)
    before = notes(root)
    out = CliRunner().invoke(cli, ["--vault", str(root), "consolidate", "--only", "health",
                                   "--force", "--text"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert notes(root) == before
    assert "3 short link(s) in 2 note(s): rewrite to vault paths waits for a person" in out.output
    (waiting,) = cli_json(root, "proposals", "list", "--state", "pending")
    assert waiting["action"] == "health.normalize"


def test_a_waiting_fix_planned_on_older_bytes_is_planned_again(make_vault):
    """A person edits the note while the fixes wait: the next `health --fix` does not keep
    the old proposals (accepting them would only say `stale`), it supersedes them."""
    root = persons_vault(make_vault)
    (root / KANBAN).write_text(page("Kanban", "Boards. Back to [[breadcrumbs]]. See [[Nowhere]]."),
                               encoding="utf-8")
    nowhere = root / "digest/wiki/Nowhere.md"  # it resolved at a health run, then went
    nowhere.write_text(page("Nowhere", "For now."), encoding="utf-8")
    cli_json(root, "health")
    nowhere.unlink()
    first = cli_json(root, "health", "--fix", "--no-report")
    with (root / KANBAN).open("a", encoding="utf-8") as f:
        f.write("A line of my own.\n")
    again = cli_json(root, "health", "--fix", "--no-report")
    for fix in ("normalize", "unlink"):
        assert again[fix]["state"] == "pending", again[fix]
        assert again[fix]["superseded"] == [first[fix]["proposal"]], (fix, again[fix])
    assert cli_json(root, "proposals", "accept", again["normalize"]["proposal"])["state"] == "applied"
    text = (root / KANBAN).read_text(encoding="utf-8")
    assert f"[[{CRUMBS}|breadcrumbs]]" in text and "A line of my own." in text
