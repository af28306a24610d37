"""The text most of the digest shares, left out of merge's comparisons (docs/spec.md §7.7.1)."""

from __future__ import annotations

from reme_workbench.consolidate.candidates import body_topic_words, digest_text, topic_overlap
from reme_workbench.consolidate.common_text import (
    COMMON_MIN_NOTES,
    DigestText,
    NoteText,
    common_floor,
    line_keys,
    strip_lines,
)
from reme_workbench.consolidate.identity import identifiers_of
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

TEMPLATE = """---
plugin-id: {id}
---

%% ----- Badges ----- %%

# {name}

Plugin ID: `{id}`
Developed by: [[{owner}]]
Mobile compatible: Yes

{description}

%% Hub footer: Please don't edit anything below this line %%

# This note in GitHub

related_to:: [[digest/wiki/plugins.md]]
"""
DESCRIPTIONS = [
    "Render Kroki diagrams in code blocks.", "Fuse two notes into one canvas card.",
    "Run commands on the selected lines.", "Keep the cursor centred while typing.",
    "Open every link in a new tab.", "Sort the lines of a list alphabetically.",
    "Colour table cells by their values.", "Show CSV files as sortable tables.",
    "Typeset TikZ pictures with LaTeX.", "Pan and zoom large rendered diagrams.",
    "Spreadsheet formulas inside tables.", "Plot bar and line charts from tables.",
]


def page(k: int) -> str:
    return TEMPLATE.format(id=f"plugin-{k}", name=f"Plugin {k}", owner=f"dev-{k}",
                           description=DESCRIPTIONS[k])


def note_text(text: str) -> NoteText:
    return NoteText(body_topic_words(text), identifiers_of(text), line_keys(text))


def test_lines_held_by_enough_notes_are_common_and_predicates_never():
    digest = DigestText.build({f"digest/wiki/p{k}.md": note_text(page(k)) for k in range(12)})
    assert digest.floor == COMMON_MIN_NOTES == 10
    assert {"%% ----- badges ----- %%", "mobile compatible: yes", "# this note in github",
            "%% hub footer: please don't edit anything below this line %%"} <= digest.lines
    assert not any("plugin-" in line or "dev-" in line for line in digest.lines)  # values differ
    assert not any("::" in line for line in digest.lines)  # related_to:: is structure
    stripped = digest.strip(page(3).split("---\n", 2)[2])
    assert stripped.split("\n") == ["# Plugin 3", "", "Plugin ID: `plugin-3`",
                                    "Developed by: [[dev-3]]", "",
                                    "Keep the cursor centred while typing.", "",
                                    "related_to:: [[digest/wiki/plugins.md]]", ""]


def test_in_a_small_vault_nothing_is_common():
    digest = DigestText.build({f"digest/wiki/p{k}.md": note_text(page(k)) for k in range(9)})
    assert digest.lines == digest.words == digest.identifiers == frozenset()
    assert digest.strip(page(1)) == page(1)


def test_the_floors_grow_with_the_digest():
    assert common_floor(30) == 10 and common_floor(3000) == 30
    assert common_floor(3000, share=0.2) == 600


def test_two_template_pages_look_alike_until_the_common_words_are_left_out():
    digest = DigestText.build({f"p{k}": note_text(page(k)) for k in range(12)})
    whole = topic_overlap(digest.notes["p0"].words, digest.notes["p1"].words)
    own = topic_overlap(digest.words_of("p0"), digest.words_of("p1"))
    assert whole >= 0.5 > own  # the template's words made them a candidate pair
    assert {"plugin", "develop", "mobil"} <= digest.words
    assert digest.words_of("p0") >= {"kroki", "diagram", "[[dev-0]]"}


def test_the_digest_text_of_a_vault_is_read_once_per_scan(make_vault):
    files = {f"digest/wiki/plugin-{k}.md": page(k) for k in range(12)}
    root = make_vault(files)
    vault = Vault.open(root, clock=lambda: FIXED_NOW)
    first = digest_text(vault)
    assert set(first.notes) == set(files) and first is digest_text(vault)
    (root / "digest/wiki/plugin-0.md").write_text(page(0).replace("Kroki", "Mermaid"))
    vault.refresh()
    again = digest_text(vault)
    assert again is not first and "mermaid" in again.notes["digest/wiki/plugin-0.md"].words


def test_strip_lines_keeps_every_other_line_and_one_blank_between():
    body = "a\n\ncommon\n\nb\ncommon\nc\n"
    assert strip_lines(body, frozenset({"common"})) == "a\n\nb\nc\n"
    assert strip_lines(body, frozenset()) == body


def test_values_are_identifiers_numbers_names_and_the_latin_words_of_chinese():
    from reme_workbench.consolidate.common_text import value_words

    text = ("---\nname: x\n---\nDeploy kovel-api with a 10% canary; Oskar watches "
            "orders.settled.v1 for 15 minutes.\n- See [[digest/wiki/Other-Note.md|Other]] and "
            "https://github.com/a/b-c\nderived_from:: [[daily/2026-10-05/log-1.md]]\n"
            "生产环境用 helm 部署，不用 jsonnet。\n")
    assert value_words(text) == {"kovel-api", "10", "oskar", "orders.settled.v1", "15",
                                 "helm", "jsonnet"}
