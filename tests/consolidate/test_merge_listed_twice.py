"""One plugin listed twice on a community plugin wiki (issue #31; docs/spec.md §7.7.1).

The vault is built as the public Obsidian plugin hub is: one page per plugin from one
template (badges, `%% … %%` comments, `Plugin ID:`, a `Links:` line to the repository,
`Developed by: [[author]]`, the description, the hub footer), author pages listing their
plugins, category pages listing a category's plugins. The repository of a page is not
made from its id (on the hub `3d-graph` lives at `AlexW00/obsidian-3d-graph`).

Planted, as the hub holds them:
* the same plugin on two pages under two names — its new display name, file name and
  plugin id (`kroki` → `kroki-diagrams`), one repository, author and description;
* the same plugin as a stub page holding only `Github Repo: <url>` beside its full page
  (the hub's `Straightforward Obsidian to Latex.md` next to its hyphenated twin);
* a fork: the same name and description, another repository and author (never a pair);
* a note listing three plugins' repositories, Kroki's among them (never a pair: it is
  about three things, not Kroki).
"""

from __future__ import annotations

import pytest

from reme_workbench.proposals.queue import ProposalQueue
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW
from tests.consolidate.test_merge_template import DIAGRAMS, TABLES
from tests.consolidate.test_merge_template import consolidate as consolidate_merge

PAGE = """---
plugin-id: {id}
aliases:
- {name}
tags:
-
publish: true
---

%% ----- Badges ----- %%

![GitHub all releases](https://img.shields.io/github/downloads/{repo}/total?color=573E7A&logo=github&style=for-the-badge)
![GitHub Repo stars](https://img.shields.io/github/stars/{repo}?color=573E7A&logo=github&style=for-the-badge)

%% ----- Badges ----- %%

%% ----- Do not edit this section ----- %%

# {name}

Plugin ID: `{id}`
Links: [GitHub repository](https://github.com/{repo}) or [<button id=HH>Open in Obsidian</button>](obsidian://show-plugin?id={id})
Developed by: [[{owner}]]
Mobile compatible: [[Mobile-compatible plugins|Yes]]

{description}

%% ----- Do not edit anything above this line ----- %%

%% Does the repository or author have any sponsoring links? Uncomment the next line and add them to the author's note. If they don't, please delete the placeholder tag: #placeholder/author %%
%% ![[{owner}#Sponsor this author]] %%

%% Hub footer: Please don't edit anything below this line %%

# This note in GitHub

<span class="git-footer">[Edit In GitHub](https://github.dev/obsidian-community/obsidian-hub/blob/main/{stem}.md "git-hub-edit-note") | [Download this vault](https://github.com/obsidian-community/obsidian-hub/archive/refs/heads/main.zip "git-hub-download-vault") </span>

derived_from:: [[daily/2022-03-01/hub-import.md]]
"""

STUB = "Github Repo: https://github.com/{repo}\n\nderived_from:: [[daily/2022-03-01/hub-import.md]]\n"

IMPORT_LOG = "daily/2022-03-01/hub-import.md"
KROKI = "digest/wiki/kroki.md"
RENAMED = "digest/wiki/kroki-diagrams.md"  # Kroki again under its new name
TABLE_GEN = "digest/wiki/table-generator.md"
TABLE_GEN_REPO = "dev-b1/obsidian-table-generator-plugin"
STUB_PAGE = "digest/wiki/Table Generator.md"  # the stub of the same plugin
EXCALIDRAW = "digest/wiki/excalidraw.md"
FORK = "digest/wiki/excalidraw-fork.md"
REPOS = "digest/wiki/diagram-repositories.md"


def slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def page(name: str, description: str, owner: str, repo: str, pid: str) -> str:
    return PAGE.format(id=pid, name=name, owner=owner, repo=repo, description=description,
                       stem=slug(name))


def listing(title: str, stems: list[str]) -> str:
    items = "".join(f"- [[{stem}]]\n" for stem in stems)
    return f"# {title}\n\n{items}\nderived_from:: [[{IMPORT_LOG}]]\n"


@pytest.fixture
def hub(make_vault):
    files: dict[str, str] = {IMPORT_LOG: "# Hub import\n\nImported the plugin pages.\n"}
    stems: dict[str, list[str]] = {"a": [], "b": []}
    authors: dict[str, list[str]] = {}
    for side, plugins in (("a", DIAGRAMS), ("b", TABLES)):
        for k, (name, description) in enumerate(plugins):
            owner = f"dev-{side}{k % 3}"
            repo = f"{owner}/obsidian-{slug(name)}-plugin"
            assert name != "Table Generator" or repo == TABLE_GEN_REPO
            files[f"digest/wiki/{slug(name)}.md"] = page(name, description, owner, repo,
                                                         slug(name))
            stems[side].append(slug(name))
            authors.setdefault(owner, []).append(slug(name))
    # Kroki renamed: a new page under its new name, the old one never removed
    files[RENAMED] = page("Kroki Diagrams", DIAGRAMS[0][1], "dev-a0",
                          "dev-a0/obsidian-kroki-plugin", "kroki-diagrams")
    stems["b"].append("kroki-diagrams")
    authors["dev-a0"].append("kroki-diagrams")
    # the stub a contributor added by hand for a plugin the hub already lists
    files[STUB_PAGE] = STUB.format(repo=TABLE_GEN_REPO)
    stems["a"].append("Table Generator")
    # a fork: Excalidraw's name and description, another developer and repository
    files[FORK] = page("Excalidraw", DIAGRAMS[2][1], "dev-a1",
                       "dev-a1/obsidian-excalidraw-fork", "excalidraw-fork")
    stems["a"].append("excalidraw-fork")
    authors["dev-a1"].append("excalidraw-fork")
    # a person's note listing three repositories, Kroki's among them: no page of Kroki
    files[REPOS] = ("# Diagram repositories\n\nWhere to report bugs:\n\n" + "".join(
        f"- {name}: https://github.com/{repo}\n" for name, repo in (
            ("Kroki", "dev-a0/obsidian-kroki-plugin"),
            ("Fusion", "dev-a1/obsidian-fusion-plugin"),
            ("Excalidraw", "dev-a2/obsidian-excalidraw-plugin")))
        + f"\nderived_from:: [[{IMPORT_LOG}]]\n")
    stems["a"].append("diagram-repositories")
    for owner, owned in authors.items():
        files[f"digest/wiki/{owner}.md"] = listing(owner, owned)
    files["digest/wiki/diagram-plugins.md"] = listing("Diagram plugins", stems["a"])
    files["digest/wiki/table-plugins.md"] = listing("Table plugins", stems["b"])
    files["reme.toml"] = '[recall]\nembedder = "hashing"\n'
    return make_vault(files)


def consolidate(root) -> dict:
    """The merge phase's details of `consolidate --only communities,merge`."""
    data = consolidate_merge(root)
    return next(p for p in data["phases"] if p["phase"] == "merge")["details"]


def proposed_pairs(root) -> set[frozenset[str]]:
    proposals = ProposalQueue(Vault.open(root, clock=lambda: FIXED_NOW)).list()
    return {frozenset((p.story["winner"], p.story["loser"])) for p in proposals}


def reported_pairs(details: dict) -> set[frozenset[str]]:
    return {frozenset((u["candidate"]["a"], u["candidate"]["b"])) for u in details["uncertain"]}


def test_a_plugin_listed_twice_under_two_names_is_proposed_or_reported(hub):
    details = consolidate(hub)
    found = proposed_pairs(hub) | reported_pairs(details)
    assert frozenset((KROKI, RENAMED)) in found, details
    assert frozenset((STUB_PAGE, TABLE_GEN)) in found, details
    # conservative still: the fork is reported distinct, no other pair of plugins is found
    distinct = {frozenset((d["a"], d["b"])) for d in details["distinct"]}
    assert frozenset((EXCALIDRAW, FORK)) in distinct
    assert found == {frozenset((KROKI, RENAMED)), frozenset((STUB_PAGE, TABLE_GEN))}
    assert not any(REPOS in pair for pair in found | distinct)


def test_a_shared_repository_outweighs_a_new_id_a_fork_still_differs():
    from reme_workbench.consolidate.identity import identifiers_of, identity_conflict

    footer = frozenset({("repository", "github.com/obsidian-community/obsidian-hub")})
    kroki = identifiers_of(page("Kroki", "Render.", "dev-a0", "dev-a0/kroki-plugin", "kroki"))
    renamed = identifiers_of(page("Kroki Diagrams", "Render.", "dev-a0", "dev-a0/kroki-plugin",
                                  "kroki-diagrams"))
    fork = identifiers_of(page("Kroki", "Render.", "dev-b", "dev-b/kroki-plugin", "kroki-b"))
    stub = identifiers_of(STUB.format(repo="dev-a0/kroki-plugin"))
    assert identity_conflict(kroki, renamed, footer) is None  # one repository, a new id
    assert identity_conflict(kroki, stub, footer) is None
    # with the footer's repository not known to be common (a small vault), still apart
    assert identity_conflict(kroki, fork) == "plugin id differs (kroki vs kroki-b)"
    assert identity_conflict(kroki, fork, footer) == (
        "repository differs (github.com/dev-a0/kroki-plugin vs github.com/dev-b/kroki-plugin)")


def test_the_stub_and_the_full_page_are_reported_naming_the_repository(hub):
    """No judge reads a one-line stub as the full page; the repository they both state,
    and no other, is what a person is shown."""
    details = consolidate(hub)
    assert frozenset((STUB_PAGE, TABLE_GEN)) not in proposed_pairs(hub)
    (pair,) = [u for u in details["uncertain"]
               if {u["candidate"]["a"], u["candidate"]["b"]} == {STUB_PAGE, TABLE_GEN}]
    assert pair["candidate"]["shared_identifier"] == f"repository github.com/{TABLE_GEN_REPO}"
    assert pair["candidate"]["sole_identifier"] is True
    (report,) = sorted((hub / "audit").rglob("dups_uncertain.md"))
    text = report.read_text(encoding="utf-8")
    assert "Table Generator" in text and "table-generator" in text
    assert f"both notes state repository github.com/{TABLE_GEN_REPO} and no other" in text
