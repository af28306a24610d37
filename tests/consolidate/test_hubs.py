"""Hubs worth reading (docs/spec.md §7.6, §7.9.5), driven through the CLI as a user runs
them: `consolidate --only communities --force` a week's worth of times, then
`consolidate --only communities,abstract --force`, the offline brain, and the hub
proposals read back from `meta/proposals/`.

* the name tells the community from the rest of the vault, never a word every note says;
* the body fits `[abstract] max_tokens` by construction, so the planner never proposes
  a hub its own checks refuse, and a community too big for any hub is reported, not asked;
* two pending hubs never share most of their members.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.vault.links import parse_links
from reme_workbench.vault.meta import log_access
from reme_workbench.vault.note import parse
from reme_workbench.vault.tokens import content_tokens

LOG = "daily/2026-10-05/plugins.md"
ADJECTIVES = ("amber", "brisk", "cobalt", "dusky", "ember", "fern", "gilded", "hazel",
              "indigo", "jade", "khaki", "lilac")
NOUNS = ("anchor", "beacon", "compass", "dune", "estuary", "fjord", "glacier", "harbor",
         "island", "jetty")


def note(name: str, description: str, links: list[str], sources: list[str]) -> str:
    see = "".join(f"- [[{t}]]\n" for t in links)
    prov = "".join(f"derived_from:: [[{s}]]\n" for s in sources)
    return f"---\nname: {name}\ndescription: {description}\n---\n{description}\n\n{see}\n{prov}"


def slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def community(names: list[str], descriptions: list[str], sources: list[str],
              reach: int) -> dict[str, str]:
    """Notes that each link the next `reach` (around the circle): one dense community in
    which no note links 60 % of the others (no hub yet)."""
    paths = [f"digest/wiki/{slug(n)}.md" for n in names]
    return {p: note(n, d, [paths[(i + k) % len(paths)] for k in range(1, reach + 1)], [s])
            for i, (p, n, d, s) in enumerate(zip(paths, names, descriptions, sources, strict=True))}


def bystanders() -> dict[str, str]:
    """Seven notes on another topic, never used (no hub for them): with links outside it,
    a dense community is worth more to Leiden whole than cut in two."""
    names = [f"tide {b}" for b in NOUNS[:7]]
    files = {"daily/2026-10-01/tides.md": "# Tides\n\nRead the tide tables.\n"}
    return files | community(names, [f"The tide at the {n.split()[1]}." for n in names],
                             ["daily/2026-10-01/tides.md"] * 7, reach=3)


def make(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "vault"
    for layer in ("resource", "daily", "digest/wiki", "digest/procedure", "digest/personal",
                  "meta", "audit"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    for rel, text in (files | bystanders()).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def used(root: Path, paths) -> None:
    """Recall hits today, so the members pass the activity gate."""
    for p in paths:
        log_access(root, p, datetime.now(UTC) - timedelta(hours=1), "recall", query="x")


def consolidate(root: Path, only: str) -> dict:
    result = CliRunner().invoke(cli, ["--vault", str(root), "consolidate", "--only", only,
                                      "--force", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {p["phase"]: p for p in json.loads(result.stdout)["phases"]}


def hubs(root: Path) -> list[dict]:
    out = []
    for f in sorted((root / "meta/proposals").glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if data["action"] == "consolidate.abstract":
            out.append(data)
    return out


def two_weeks(root: Path) -> dict:
    """A communities run, then one a week on with abstract: the communities are known
    and stable (stability 1.0) the second time."""
    consolidate(root, "communities")
    return consolidate(root, "communities,abstract")


# -- naming --------------------------------------------------------------------------------


def obsidian_vault() -> dict[str, str]:
    """Every note's name and description say "Obsidian" (but the bystanders'); one
    community is about diagrams, the other about calendars."""
    diagram = ["Obsidian Excalidraw diagrams", "Obsidian Kroki diagrams",
               "Obsidian Mermaid diagrams", "Obsidian PlantUML diagrams",
               "Obsidian Graphviz diagrams", "Obsidian Drawio diagrams", "Obsidian Pikchr diagrams"]
    calendar = ["Obsidian daily calendar", "Obsidian weekly calendar", "Obsidian Google calendar",
                "Obsidian lunar calendar", "Obsidian fiscal calendar", "Obsidian iCal calendar",
                "Obsidian Hijri calendar"]
    files = {LOG: "# Plugins\n\nListed the diagram and calendar plugins.\n"}
    files |= community(diagram, [f"An Obsidian plugin that draws {n.split()[1]} diagrams."
                                 for n in diagram], [LOG] * 7, reach=3)
    files |= community(calendar, [f"An Obsidian plugin that shows a {n.split()[1]} calendar."
                                  for n in calendar], [LOG] * 7, reach=3)
    return files


def test_a_hub_is_named_by_what_sets_its_community_apart_not_by_the_word_every_note_says(
    tmp_path,
):
    root = make(tmp_path, obsidian_vault())
    used(root, [p for p in obsidian_vault() if p.startswith("digest/")])
    phases = two_weeks(root)
    assert [o["state"] for o in phases["abstract"]["details"]["outcomes"]] == ["pending"] * 2
    names = sorted(json.loads(p["story"]["attempts"][0]["raw"])["name"] for p in hubs(root))
    assert names == ["Calendar", "Diagrams"]
    assert not any("obsidian" in op["path"] for p in hubs(root) for op in p["ops"])


# -- the budget ------------------------------------------------------------------------------


def many(n: int, *, reach: int, day: str = "2026-10-05") -> tuple[dict[str, str], list[str]]:
    """`n` notes of distinct names, each from its own daily log (so every member brings a
    source of its own), linking the next `reach` notes."""
    names = [f"{a} {b}" for a in ADJECTIVES for b in NOUNS][:n]
    sources = [f"daily/{day}/session-{i:03d}-{names[i].replace(' ', '-')}.md" for i in range(n)]
    files = {s: f"# Session {i}\n\nWorked on {names[i]}.\n" for i, s in enumerate(sources)}
    files |= community(names, [f"What the {nm} tool does." for nm in names], sources, reach)
    return files, [p for p in files if p.startswith("digest/")]


def test_a_forty_member_hub_fits_its_budget_and_passes_its_own_checks(tmp_path):
    files, members = many(40, reach=19)
    root = make(tmp_path, files)
    used(root, members[:5])
    phases = two_weeks(root)
    (outcome,) = phases["abstract"]["details"]["outcomes"]
    assert outcome["state"] == "pending", outcome
    (proposal,) = hubs(root)
    story = proposal["story"]
    assert len(story["members"]) == 40 and len(story["provenance"]) == 40
    assert all(c["passed"] for c in story["checks"])  # the planner proposes what passes
    assert len(story["attempts"]) == 1  # ... at the first attempt: built to fit
    (op,) = proposal["ops"]
    body = parse(op["content"], op["path"]).body
    assert content_tokens(body) < 1500  # what a person reads; the source lines do not count
    links = parse_links(body)
    carried = {lk.target for lk in links if lk.predicate == "derived_from"}
    assert carried == set(story["provenance"])  # every member's source ...
    assert body.count("derived_from::") == 5  # ... eight to a line
    assert len({lk.target for lk in links if lk.predicate is None} & set(members)) >= 24


def test_a_community_too_big_for_any_hub_is_reported_and_nothing_is_asked(tmp_path):
    files, members = many(120, reach=59)
    # links to 60 % of 120 members take ~1,000 tokens: a budget of 600 cannot hold them
    files["reme.toml"] = "[abstract]\nmax_tokens = 600\n"
    root = make(tmp_path, files)
    used(root, members[:5])
    phases = two_weeks(root)
    (outcome,) = phases["abstract"]["details"]["outcomes"]
    assert outcome["state"] == "too-large" and outcome["proposal"] is None
    assert "120 members cannot fit under [abstract] max_tokens 600" in outcome["error"]
    assert "120 sources" in outcome["error"]
    assert hubs(root) == []  # no proposal, not even a rejected one
    audit = "".join(f.read_text(encoding="utf-8")
                    for f in (root / "audit").glob("*/consolidate_actions.md"))
    assert "too-large" in audit and "cannot fit" in audit


# -- overlap ----------------------------------------------------------------------------------


def test_a_grown_community_gets_no_second_hub_beside_the_pending_one(tmp_path):
    files, members = many(7, reach=3)
    root = make(tmp_path, files)
    used(root, members)
    two_weeks(root)
    (first,) = hubs(root)
    assert first["state"] == "pending" and sorted(first["story"]["members"]) == sorted(members)

    # four more notes join the community: 7 of its 11 members are the pending hub's
    # (Jaccard 0.64, under the 0.7 a same-community match needs; all of the smaller one)
    names = ["violet meadow", "walnut orchard", "xenon lamp", "yellow kite"]
    paths = [f"digest/wiki/{slug(n)}.md" for n in names]
    for i, (name, path) in enumerate(zip(names, paths, strict=True)):
        (root / path).write_text(note(name, f"What the {name} tool does.",
                                      [members[i], members[i + 1], paths[(i + 1) % 4]], [LOG]),
                                 encoding="utf-8")
    (root / LOG).parent.mkdir(parents=True, exist_ok=True)
    (root / LOG).write_text("# Plugins\n", encoding="utf-8")
    used(root, paths)
    phases = two_weeks(root)
    (outcome,) = phases["abstract"]["details"]["outcomes"]
    assert outcome["state"] == "already-pending" and outcome["proposal"] == first["id"]
    assert "holds 7 of these 11 members" in outcome["error"]
    assert [h["id"] for h in hubs(root)] == [first["id"]]
