"""Identifying values and the pairs they tell apart (docs/spec.md §7.7.1)."""

from __future__ import annotations

from reme_workbench.consolidate.identity import identifiers_of, identity_conflict, is_strong

HUB_PAGE = """---
plugin-id: obsidian-kroki
aliases:
- Kroki
publish: true
---

%% ----- Badges ----- %%

![GitHub Repo stars](https://img.shields.io/github/stars/gregzuro/obsidian-kroki?style=for-the-badge)

# Kroki

Plugin ID: `obsidian-kroki`
Links: [GitHub repository](https://github.com/gregzuro/obsidian-kroki) or [<button id=HH>Open in Obsidian</button>](obsidian://show-plugin?id=obsidian-kroki)
Developed by: [[gregzuro]]
Mobile compatible: [[Mobile-compatible plugins|Yes]]

Render Kroki Diagrams

<span class="git-footer">[Edit In GitHub](https://github.dev/obsidian-community/obsidian-hub/blob/main/x.md) | [Download this vault](https://github.com/obsidian-community/obsidian-hub/archive/refs/heads/main.zip) </span>
"""


def test_a_plugin_page_states_its_id_repository_and_developer():
    found = identifiers_of(HUB_PAGE)
    assert found == {
        ("plugin id", "obsidian-kroki"),  # frontmatter plugin-id and body "Plugin ID:" are one
        ("repository", "github.com/gregzuro/obsidian-kroki"),
        ("repository", "github.com/obsidian-community/obsidian-hub"),  # the footer's
        ("developed by", "gregzuro"),
    }
    # the badge's shields.io address and github.dev are not repository addresses
    assert not any("shields" in v or "github.dev" in v for _, v in found)


def test_fields_versions_handles_and_what_is_not_an_identifier():
    text = ("Owner: @priya\n"
            "We pinned v1.2.3 of the client; `@dataclass` and mail a@b.com are no handles.\n"
            "- **Repository:** acme/payments\n"
            "```\nAuthor: somebody-in-code v9.9.9\n```\n"
            "Version: 2.0\n"
            "Timeout: 30 s\n"  # a number with a unit decides nothing alone
            "Ticket ID: `OPS-42`\n"
            "derived_from:: [[daily/2026-10-05/log.md]]\n")
    assert identifiers_of(text) == {
        ("owner", "priya"), ("handle", "priya"), ("version", "1.2.3"), ("version", "2.0"),
        ("repository", "github.com/acme/payments"), ("ticket id", "ops-42"),
    }


def test_a_label_both_state_with_no_shared_value_tells_them_apart():
    kroki = identifiers_of(HUB_PAGE)
    fork = identifiers_of(HUB_PAGE.replace("gregzuro/obsidian-kroki", "someone/kroki-plus")
                          .replace("obsidian-kroki", "kroki-plus").replace("[[gregzuro]]",
                                                                           "[[someone]]"))
    # the hub's own repository is in both footers, so only leaving it out tells them apart
    assert identity_conflict(kroki, fork) is not None
    why = identity_conflict(kroki, fork, frozenset({
        ("repository", "github.com/obsidian-community/obsidian-hub")}))
    assert why == ("repository differs (github.com/gregzuro/obsidian-kroki vs "
                   "github.com/someone/kroki-plus)")  # the most decisive label is named
    assert identity_conflict(kroki, kroki) is None  # the same plugin listed twice
    # a label only one note states decides nothing; neither does a shared value
    assert identity_conflict({("version", "1.2")}, {("plugin id", "x")}) is None
    assert identity_conflict({("version", "1.2"), ("version", "1.3")},
                             {("version", "1.3")}) is None
    assert identity_conflict({("developed by", "a")}, {("developed by", "b")}) == \
        "developed by differs (a vs b)"


def test_repositories_and_ids_pair_notes_people_and_versions_do_not():
    assert is_strong(("repository", "github.com/a/b"))
    assert is_strong(("plugin id", "obsidian-kroki")) and is_strong(("id", "42"))
    assert not is_strong(("developed by", "gregzuro"))
    assert not is_strong(("version", "1.2.3")) and not is_strong(("handle", "priya"))
