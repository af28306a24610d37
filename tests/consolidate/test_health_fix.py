"""The D1 fix on a person's vault (docs/spec.md §7.5.3): nothing Obsidian resolves is
unlinked, short links become vault paths without a word lost, a link to a note not yet
written is the person's and left alone, and a link a change made unresolvable loses its
brackets only through a proposal a person accepts, rejects or reverts."""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.consolidate.communities import digest_graph, leiden
from reme_workbench.vault.links import parse_links
from reme_workbench.vault.vault import Vault

LOG = "daily/2022-03-01/import.md"


def page(name: str, body: str) -> str:
    return f"---\naliases:\n- {name}\npublish: true\n---\n# {name}\n\n{body}\n\nderived_from:: [[{LOG}]]\n"


def persons_vault(make_vault):
    """Notes as Obsidian writes them: short links, aliases, a heading link, a table, an
    embed of a file that is there and one of a file that is not, one link to nothing."""
    return make_vault({
        LOG: "imported\n",
        "resource/2022-03-01/diagram.png": b"\x89PNG\r\n\x1a\n",
        "digest/wiki/breadcrumbs.md": page("Breadcrumbs", "Shows the path. See [[kanban|Kanban]]."),
        "digest/wiki/kanban.md": page("Kanban", "Boards. Back to [[breadcrumbs|Breadcrumbs]] "
                                                "and [[Breadcrumbs#Setup]].\n![[diagram.png]]"),
        "digest/wiki/plugins for diagrams.md": page("Plugins for Diagrams", (
            "- [[kanban|Kanban]]\n- [[breadcrumbs]]\n\n| plugin | note |\n|---|---|\n"
            "| [[kanban]] | boards |\n\n![[screenshot.jpg]] and [[Excalidraw]] (not in the vault)")),
    })


def went_away(root, *names: str) -> None:
    """Notes `names` (digest/wiki/<name>.md) existed at a health run, then went: the
    links that named them are broken now, not unwritten (docs/spec.md §7.5.1)."""
    for name in names:
        (root / f"digest/wiki/{name}.md").write_text(page(name, "For now."), encoding="utf-8")
    cli_run(root, "health", "--json")
    for name in names:
        (root / f"digest/wiki/{name}.md").unlink()


def cli_run(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def links_of(root, rel):
    return parse_links((root / rel).read_text(encoding="utf-8"))


def test_consolidate_keeps_every_link_obsidian_resolves(make_vault):
    root = persons_vault(make_vault)
    counts = {rel: len(links_of(root, rel)) for rel in (
        "digest/wiki/kanban.md", "digest/wiki/breadcrumbs.md", "digest/wiki/plugins for diagrams.md")}
    out = cli_run(root, "consolidate", "--only", "health", "--force", "--text").output
    health = [line for line in out.splitlines() if line.startswith("health")]
    assert len(health) == 1
    assert "D1 0 broken link(s)" in health[0]
    assert "2 link(s) to notes not yet written (yours: nothing proposed)" in health[0]
    # rewriting a person's links waits for them too (docs/spec.md §3.7.3); they accept it
    assert "7 short link(s) in 3 note(s): rewrite to vault paths waits for a person" in health[0]
    assert "Back to [[breadcrumbs|Breadcrumbs]]" in (root / "digest/wiki/kanban.md").read_text()
    pending = json.loads(cli_run(root, "proposals", "list", "--json").stdout)
    (rewrite,) = [p["id"] for p in pending if p["action"] == "health.normalize"]
    cli_run(root, "proposals", "accept", rewrite)
    kanban = (root / "digest/wiki/kanban.md").read_text(encoding="utf-8")
    assert "Back to [[digest/wiki/breadcrumbs.md|Breadcrumbs]]" in kanban
    assert "[[digest/wiki/breadcrumbs.md#Setup|Breadcrumbs > Setup]]" in kanban
    assert "![[resource/2022-03-01/diagram.png]]" in kanban
    diagrams = (root / "digest/wiki/plugins for diagrams.md").read_text(encoding="utf-8")
    assert "- [[digest/wiki/breadcrumbs.md|breadcrumbs]]" in diagrams
    assert "| [[digest/wiki/kanban.md\\|kanban]] | boards |" in diagrams
    # not one link lost: the missing embed and the link to nothing are links still
    assert {rel: len(links_of(root, rel)) for rel in counts} == counts
    assert "![[screenshot.jpg]]" in diagrams and "[[Excalidraw]]" in diagrams
    pending = json.loads(cli_run(root, "proposals", "list", "--json").stdout)
    assert sorted((p["action"], p["state"]) for p in pending) == [("health.normalize", "applied")]
    audit = next((root / "audit").rglob("consolidate_actions.md")).read_text(encoding="utf-8")
    assert "`[[kanban|Kanban]]` → `[[digest/wiki/kanban.md|Kanban]]`" in audit


def test_the_graph_of_an_unnormalised_vault_is_the_one_obsidian_shows(make_vault):
    root = persons_vault(make_vault)
    before = Vault.open(root)
    edges = set(digest_graph(before.graph).edges())
    assert ("digest/wiki/breadcrumbs.md", "digest/wiki/kanban.md") in edges or \
           ("digest/wiki/kanban.md", "digest/wiki/breadcrumbs.md") in edges
    partition = leiden(digest_graph(before.graph))
    cli_run(root, "health", "--fix", "--json")
    after = Vault.open(root)
    assert set(digest_graph(after.graph).edges()) == edges
    assert leiden(digest_graph(after.graph)) == partition


def test_a_rejected_unlink_is_not_proposed_again_and_a_new_broken_link_supersedes(make_vault):
    root = persons_vault(make_vault)
    assert json.loads(cli_run(root, "health", "--fix", "--json").stdout)["unlink"] is None
    went_away(root, "Excalidraw")
    first = json.loads(cli_run(root, "health", "--fix", "--json").stdout)["unlink"]
    assert first["links"] == 1 and first["state"] == "pending"
    cli_run(root, "proposals", "reject", first["proposal"], "--reason", "I will add them")
    again = json.loads(cli_run(root, "health", "--fix", "--json").stdout)
    assert again["unlink"] is None  # what the person refused is left alone
    note = root / "digest/wiki/breadcrumbs.md"
    note.write_text(note.read_text() + "\nAlso [[Nowhere at all]].\n", encoding="utf-8")
    assert json.loads(cli_run(root, "health", "--fix", "--json").stdout)["unlink"] is None
    went_away(root, "Nowhere at all")
    third = json.loads(cli_run(root, "health", "--fix", "--json").stdout)["unlink"]
    assert third["links"] == 1 and third["state"] == "pending"
    note.write_text(note.read_text() + "And [[Gone too]].\n", encoding="utf-8")
    went_away(root, "Gone too")
    fourth = json.loads(cli_run(root, "health", "--fix", "--json").stdout)["unlink"]
    assert fourth["superseded"] == [third["proposal"]]
    states = {p["id"]: p["state"] for p in json.loads(cli_run(root, "proposals", "list", "--json").stdout)}
    assert states[third["proposal"]] == "rejected" and states[fourth["proposal"]] == "pending"


def test_accepting_after_the_note_was_created_keeps_the_link(make_vault):
    root = persons_vault(make_vault)
    went_away(root, "Excalidraw")
    pid = json.loads(cli_run(root, "health", "--fix", "--json").stdout)["unlink"]["proposal"]
    (root / "digest/wiki/Excalidraw.md").write_text(page("Excalidraw", "Drawings."), encoding="utf-8")
    result = CliRunner().invoke(cli, ["--vault", str(root), "proposals", "accept", pid, "--json"])
    data = json.loads(result.stdout)
    assert data["state"] == "rejected" and "[[Excalidraw]] resolves now; keep the link" in data["error"]
    assert "[[Excalidraw]]" in (root / "digest/wiki/plugins for diagrams.md").read_text()
