"""Unwritten links are the person's (issue #31, docs/spec.md §2.4.8 and §7.5): a link to a
note not yet written is listed, never proposed for unlinking; links resolve through the
frontmatter `aliases:` of a note; only a link a change made unresolvable is a D1 fault,
proposed note by note, and its text keeps the name the link meant."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.vault.resolve import LinkResolver
from tests.vault.persons_notes import UNWRITTEN, persons_notes


def run(vault: Path, *args: str, code: int = 0):
    result = CliRunner().invoke(cli, ["--vault", str(vault), *args])
    assert result.exit_code == code, result.output
    return result


def imported(make_vault, tmp_path) -> tuple[Path, dict[str, str]]:
    vault = make_vault({})
    source = persons_notes(tmp_path / "Zettelkasten")
    data = json.loads(run(vault, "import", str(source), "--json").stdout)
    return vault, {n["source"]: n["path"] for n in data["notes"]}


def proposals(vault: Path, action: str) -> list[dict]:
    listed = json.loads(run(vault, "proposals", "list", "--json").stdout)
    return [p for p in listed if p["action"] == action]


def test_unwritten_links_are_listed_and_never_proposed_for_unlinking(make_vault, tmp_path):
    vault, paths = imported(make_vault, tmp_path)
    out = run(vault, "consolidate", "--only", "health", "--force", "--json").stdout
    health_phase = json.loads(out)["phases"][0]
    assert health_phase["details"]["unlink"] is None
    assert proposals(vault, "health.unlink") == []
    data = json.loads(run(vault, "health", "--check", "--json").stdout)  # exit 0: nothing broken
    assert data["broken_links"] == [] and data["ok"] is True
    assert sorted(u["raw"] for u in data["unwritten_links"]) == UNWRITTEN
    journal = paths["Journal/2024-05-21.md"]
    assert {(u["source"], u["target"]) for u in data["unwritten_links"]} >= {
        (journal, "2024-05-20"), (paths["Tech/Linux tools.md"], "Linux")}
    report = next((vault / "audit").rglob("health_links.md")).read_text(encoding="utf-8")
    assert "## Not yet written (11)" in report and "`[[Linux]]` ×2" in report
    text = run(vault, "health", "--no-report", "--text").output
    assert "Not yet written:" in text and "11 link(s) to notes not yet written" in text


def test_a_link_resolves_through_the_aliases_of_a_note(make_vault, tmp_path):
    vault, paths = imported(make_vault, tmp_path)
    coffee = paths["Coffee Brewing.md"]
    # at import: written as the path of the note whose aliases name it
    morning = (vault / paths["Morning routine.md"]).read_text(encoding="utf-8")
    assert f"[[{coffee}|Pour Over]]" in morning
    day = (vault / paths["Journal/2024-05-21.md"]).read_text(encoding="utf-8")
    assert f"[[{coffee}|pour over]]" in day
    data = json.loads(run(vault, "health", "--json").stdout)
    assert not [u for u in data["unwritten_links"] if "our over" in u["raw"]]


def test_a_short_link_to_an_alias_is_an_edge_and_no_unwritten_link(make_vault, tmp_path):
    source = persons_notes(tmp_path / "copied")
    vault = make_vault({f"digest/wiki/{p.name}": p.read_text(encoding="utf-8")
                        for p in source.rglob("*.md")})  # copied in by hand, short links kept
    budget = vault / "digest/wiki/Budget.md"
    budget.write_text(budget.read_text(encoding="utf-8") + "\nAfter a [[Filter coffee]].\n",
                      encoding="utf-8")
    coffee = "digest/wiki/Coffee Brewing.md"
    data = json.loads(run(vault, "health", "--json").stdout)
    resolved = {(s["source"], s["raw"]): s["resolved"] for s in data["short_links"]}
    assert resolved[("digest/wiki/Budget.md", "[[Filter coffee]]")] == coffee
    assert resolved[("digest/wiki/Morning routine.md", "[[Pour Over]]")] == coffee
    assert resolved[("digest/wiki/2024-05-21.md", "[[pour over]]")] == coffee
    assert not [u for u in data["unwritten_links"] if u["target"].lower() in (
        "filter coffee", "pour over")]
    graph = json.loads(run(vault, "graph", "--json").stdout)
    assert {"path": coffee, "inbound": 3} in graph["top_inbound"]
    assert not [d for d in graph["dangling_links"] if d["target"] == "Filter coffee"]


def test_the_resolver_reads_aliases_after_files_and_refuses_to_guess():
    resolver = LinkResolver(
        ["digest/wiki/Coffee Brewing.md", "digest/wiki/Tea.md", "digest/wiki/Pour Over.md",
         "digest/wiki/Kettle.md"],
        aliases={"digest/wiki/Coffee Brewing.md": ["Pour Over", "Filter coffee", "Brew"],
                 "digest/wiki/Tea.md": ["brew"]})
    assert resolver.resolve("filter COFFEE").path == "digest/wiki/Coffee Brewing.md"
    assert resolver.resolve("filter coffee").how == "alias"
    assert resolver.resolve("Pour Over").path == "digest/wiki/Pour Over.md"  # a file wins
    assert resolver.resolve("Brew").how == "ambiguous"
    assert resolver.resolve("Brew").candidates == ("digest/wiki/Coffee Brewing.md",
                                                   "digest/wiki/Tea.md")
    assert resolver.resolve("x/Filter coffee").path is None  # an alias is a name, no folder
    resolver.add("digest/wiki/Coffee Brewing.md", aliases=["Drip"])  # its aliases changed
    assert resolver.resolve("Filter coffee").path is None
    assert resolver.resolve("drip").path == "digest/wiki/Coffee Brewing.md"
    resolver.remove("digest/wiki/Coffee Brewing.md")
    assert resolver.resolve("Drip").path is None


def test_only_a_link_a_change_made_unresolvable_is_broken_and_it_is_proposed_per_note(
        make_vault, tmp_path):
    vault, paths = imported(make_vault, tmp_path)
    run(vault, "consolidate", "--only", "health", "--force", "--json")  # the links as they are
    (vault / paths["Budget.md"]).unlink()  # `[[Budget]]` resolved; now it does not
    out = json.loads(run(vault, "consolidate", "--only", "health", "--force", "--json").stdout)
    details = out["phases"][0]["details"]
    budget = paths["Budget.md"]  # import wrote the links as vault paths
    assert sorted(b["raw"] for b in details["broken_links"]) == [
        f"[[{budget}|Budget]]", f"[[{budget}|my budget]]"]
    assert sorted(u["raw"] for u in details["unwritten_links"]) == UNWRITTEN
    waiting = proposals(vault, "health.unlink")
    assert len(waiting) == 2 and {p["state"] for p in waiting} == {"pending"}  # one per note
    journal = paths["Journal/2024-05-22.md"]
    assert sorted(p["files"][0] for p in waiting) == sorted([journal, paths["Morning routine.md"]])
    (mine,) = [p for p in waiting if p["files"] == [journal]]
    run(vault, "proposals", "accept", mine["id"])
    text = (vault / journal).read_text(encoding="utf-8")
    # the words the reader saw and the name the link meant; unwritten links stay links
    assert "Budget review: my budget (Budget) and [[Index fund|index funds]]." in text
    assert "[[2024-05-23]]" in text
    # the next run: still broken in the other note, and not proposed twice
    again = json.loads(run(vault, "consolidate", "--only", "health", "--force", "--json").stdout)
    assert [b["raw"] for b in again["phases"][0]["details"]["broken_links"]] == [
        f"[[{budget}|Budget]]"]
    assert len([p for p in proposals(vault, "health.unlink") if p["state"] == "pending"]) == 1


def test_losing_the_record_makes_every_dangling_link_not_yet_written(make_vault, tmp_path):
    vault, paths = imported(make_vault, tmp_path)
    run(vault, "consolidate", "--only", "health", "--force", "--json")
    (vault / paths["Budget.md"]).unlink()
    for record in (vault / "meta").glob("resolved_links*.json"):
        record.write_text("{not json", encoding="utf-8")
    data = json.loads(run(vault, "health", "--json").stdout)
    assert data["broken_links"] == []
    assert paths["Budget.md"] in {u["target"] for u in data["unwritten_links"]}
