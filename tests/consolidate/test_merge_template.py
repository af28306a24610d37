"""Merge on a vault built from one template (issue #20; docs/spec.md §7.7.1): the real
duplicate is found across communities, the near miss and the lookalikes never are.

The vault is a small copy of a community wiki's plugin pages: every page the same
badges, comments, field labels and footer with other values; two categories, each
listed on its own pages with short links, so Leiden finds two communities. Planted: one
plugin listed twice under two file names, the second copy on the other category's
pages (a duplicate across communities), and a fork of another plugin (the same name
and description, another developer, repository and id) beside it (a near miss).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.proposals.queue import ProposalQueue
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

PAGE = """---
plugin-id: {id}
aliases:
- {name}
tags:
-
publish: true
---

%% ----- Badges ----- %%

![GitHub all releases](https://img.shields.io/github/downloads/{owner}/{id}/total?color=573E7A&logo=github&style=for-the-badge)
![GitHub Repo stars](https://img.shields.io/github/stars/{owner}/{id}?color=573E7A&logo=github&style=for-the-badge)

%% ----- Badges ----- %%

%% ----- Do not edit this section ----- %%

# {name}

Plugin ID: `{id}`
Links: [GitHub repository](https://github.com/{owner}/{id}) or [<button id=HH>Open in Obsidian</button>](obsidian://show-plugin?id={id})
Developed by: [[{owner}]]
Mobile compatible: Yes

{description}

%% ----- Do not edit anything above this line ----- %%

%% Hub footer: Please don't edit anything below this line %%

# This note in GitHub

<span class="git-footer">[Edit In GitHub](https://github.dev/obsidian-community/obsidian-hub/blob/main/{id}.md) | [Download this vault](https://github.com/obsidian-community/obsidian-hub/archive/refs/heads/main.zip) </span>

derived_from:: [[daily/2022-03-01/hub-import.md]]
"""

DIAGRAMS = [  # (name, description), category "Diagrams"
    ("Kroki", "Render Kroki diagrams in code blocks."),
    ("Fusion", "Fuse two notes into one canvas card."),
    ("Excalidraw", "Sketch hand-drawn diagrams inside a note."),
    ("Mermaid Tools", "Insert Mermaid charts from a palette."),
    ("Drawio", "Edit draw.io files without leaving the app."),
    ("Graph Analysis", "Rank notes by co-citation and similarity."),
    ("Charts", "Plot bar and line charts from tables."),
    ("Timeline", "Lay out dated events along a line."),
    ("Mind Map", "Show a note's outline as a mind map."),
    ("Plantuml", "Render PlantUML sequence diagrams."),
    ("Tikz", "Typeset TikZ pictures with LaTeX."),
    ("Canvas Tools", "Align and colour canvas nodes in bulk."),
    ("Diagram Zoom", "Pan and zoom large rendered diagrams."),
    ("Flowchart", "Draw flowcharts from indented lists."),
    ("Graphviz", "Render dot graphs in reading view."),
]
TABLES = [  # category "Tables"
    ("Ion", "Run commands on the selected lines."),
    ("Sei", "Keep the cursor centred while typing."),
    ("Cupertino", "An Apple-like theme switcher for the ribbon."),
    ("Opener", "Open every link in a new tab."),
    ("Advanced Tables", "Format and navigate Markdown tables."),
    ("Table Extended", "Merge cells and add multi-line rows."),
    ("Sheets", "Spreadsheet formulas inside tables."),
    ("Table Generator", "Insert an empty table of any size."),
    ("Csv Viewer", "Show CSV files as sortable tables."),
    ("Sort Lines", "Sort the lines of a list alphabetically."),
    ("Data Loom", "Database views of notes as tables."),
    ("Table Editor", "Edit tables in a spreadsheet-like grid."),
    ("Column Sort", "Sort a table by any of its columns."),
    ("Row Filter", "Hide the rows of a table that do not match."),
    ("Cell Colors", "Colour table cells by their values."),
]
IMPORT_LOG = "daily/2022-03-01/hub-import.md"


def slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def page(name: str, description: str, owner: str, pid: str | None = None) -> str:
    return PAGE.format(id=pid or f"obsidian-{slug(name)}", name=name, owner=owner,
                       description=description)


def listing(title: str, stems: list[str]) -> str:
    items = "".join(f"- [[{stem}|{stem}]]\n" for stem in stems)
    return (f"---\ntags:\n- MOC\n---\n\n# {title}\n\n{items}\n"
            f"derived_from:: [[{IMPORT_LOG}]]\n")


DUPLICATE = "digest/wiki/obsidian-kroki.md"  # Kroki, listed on the Diagrams pages
SECOND_COPY = "digest/wiki/kroki.md"  # the same plugin again, on the Tables pages
FORK = "digest/wiki/obsidian-excalidraw-fork.md"  # Excalidraw's name and description, another repo
EXCALIDRAW = "digest/wiki/obsidian-excalidraw.md"


@pytest.fixture
def wiki(make_vault):
    files: dict[str, str] = {IMPORT_LOG: "# Hub import\n\nImported the plugin pages.\n"}
    stems: dict[str, list[str]] = {"a": [], "b": []}
    for side, plugins in (("a", DIAGRAMS), ("b", TABLES)):
        for k, (name, description) in enumerate(plugins):
            owner = f"dev-{side}{k % 2}"
            files[f"digest/wiki/obsidian-{slug(name)}.md"] = page(name, description, owner)
            stems[side].append(f"obsidian-{slug(name)}")
        for k in range(2):
            owned = [s for i, s in enumerate(stems[side]) if i % 2 == k]
            files[f"digest/wiki/dev-{side}{k}.md"] = listing(f"dev-{side}{k}", owned)
    # the second copy of Kroki: same id, repository, developer; another file, other lists
    files[SECOND_COPY] = page("Kroki", DIAGRAMS[0][1], "dev-a0")
    stems["b"].append("kroki")
    # a fork of Excalidraw: same name and description, another developer and repository
    files[FORK] = page("Excalidraw", DIAGRAMS[2][1], "dev-a1", pid="obsidian-excalidraw-fork")
    stems["a"].append("obsidian-excalidraw-fork")
    files["digest/wiki/plugins-for-diagrams.md"] = listing("Plugins for Diagrams", stems["a"])
    files["digest/wiki/diagram-tools.md"] = listing("Diagram tools", stems["a"])
    files["digest/wiki/plugins-for-tables.md"] = listing("Plugins for Tables", stems["b"])
    files["digest/wiki/table-tools.md"] = listing("Table tools", stems["b"])
    files["reme.toml"] = '[recall]\nembedder = "hashing"\n'
    return make_vault(files)


def consolidate(root) -> dict:
    result = CliRunner().invoke(cli, ["--vault", str(root), "consolidate", "--only",
                                      "communities,merge", "--force", "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_duplicate_across_communities_is_proposed_and_the_fork_never(wiki):
    data = consolidate(wiki)
    communities = json.loads((wiki / "meta" / "communities.json").read_text())["communities"]
    # the two copies of Kroki sit in different communities: mining inside one would miss them
    assert communities[DUPLICATE] != communities[SECOND_COPY]
    assert communities[FORK] == communities[EXCALIDRAW]
    merge = next(p for p in data["phases"] if p["phase"] == "merge")["details"]
    proposals = ProposalQueue(Vault.open(wiki, clock=lambda: FIXED_NOW)).list()
    pairs = {frozenset((p.story["winner"], p.story["loser"])) for p in proposals}
    assert pairs == {frozenset((DUPLICATE, SECOND_COPY))}  # no template lookalike
    story = proposals[0].story
    assert story["candidate"]["a"] == SECOND_COPY  # a < b by path
    assert story["candidate"]["communities"] == [communities[SECOND_COPY],
                                                 communities[DUPLICATE]]
    # the fork is reported distinct, with the values that differ, and never voted on
    distinct = {frozenset((d["a"], d["b"])): d["reason"] for d in merge["distinct"]}
    assert distinct[frozenset((EXCALIDRAW, FORK))] == (
        "distinct: repository differs (github.com/dev-a1/obsidian-excalidraw-fork vs "
        "github.com/dev-a0/obsidian-excalidraw)")  # a, then b, by path
    uncertain = {frozenset((u["candidate"]["a"], u["candidate"]["b"]))
                 for u in merge["uncertain"]}
    assert frozenset((EXCALIDRAW, FORK)) not in uncertain | pairs
    # no pair of different plugins is reported uncertain either: the template is no evidence
    assert not uncertain


def test_the_judges_read_the_bodies_less_the_template(wiki):
    """What the votes count is what the two pages say of their own, not the template."""
    from reme_workbench.brains.offline_consolidate import text as tx
    from reme_workbench.vault.note import parse

    consolidate(wiki)
    proposal = ProposalQueue(Vault.open(wiki, clock=lambda: FIXED_NOW)).list()[0]
    reasons = " | ".join(v["reason"] for v in proposal.story["votes"])
    counted = int(reasons.split(" of ", 1)[1].split(" statements", 1)[0])
    body = parse((wiki / SECOND_COPY).read_text(), SECOND_COPY).body
    whole = len([st for st in tx.statements(body) if st.has_content])
    # the badges, the fields with Kroki's values and its description are counted; the
    # template's own lines ("Mobile compatible: Yes", the comments, the footer) are not
    assert 3 <= counted < whole, (counted, whole, reasons)


def test_without_the_identifying_values_the_fork_would_look_like_a_duplicate(wiki):
    """The near miss is a real test: its page is the template and the same name and
    description, so only the repository, id and developer tell it apart."""
    fork = (wiki / FORK).read_text()
    original = (wiki / EXCALIDRAW).read_text()
    differing = {line for line in fork.splitlines() if line not in original.splitlines()}
    assert differing and all(("obsidian-excalidraw-fork" in line or "dev-a1" in line)
                             for line in differing)
