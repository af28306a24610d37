"""Documentation pages planned by their sections: what becomes a note, its bucket, name,
description and body — through the offline brain, as dream calls it."""

from __future__ import annotations

from reme_workbench.brains.offline_dream.offline import OfflineBrain
from reme_workbench.dream.markdown import material_info
from reme_workbench.dream.material import MaterialFile
from reme_workbench.llm.base import IntegrateRequest
from reme_workbench.vault.note import parse

PAGE = """---
description: Connect notes to each other with wikilinks, and link to headings and blocks.
aliases: [Wikilinks]
---
Internal links connect a note to another note, an attachment or a heading. Lodestone keeps
them up to date when you rename a file, so a link never points at a name that is gone. ^b15695

> [!note]
> Links are stored as plain text, so every other editor can still read them.

## Link to a heading

You can link to a specific heading by adding a hash sign (`#`) after the note name, followed
by the heading text. For example: `[[Three laws#Second law]]`.

To link to a heading in the same note, leave out the note name: `[[#Second law]]`.

## Change the link display text

1. Type the link as usual.
2. Add a vertical bar (`|`) after the target, then the text to show instead of the name.
3. Press `Enter` to finish the link and check the preview shows your text.

## Supported formats

Lodestone understands two formats of internal link and writes wikilinks unless you turn it
off in [[Settings#Files and links|Files and links]]:

- Wikilink: `[[Three laws of motion]]`, compact and easy to type.
- Markdown: `[Three laws of motion](Three%20laws%20of%20motion.md)`, readable by any app.

%% internal note: keep this table in sync with the settings page %%

## Overview

For the name, you can choose anything you like.
"""

PATH = "resource/2026-11-20/help/Internal links.md"


def plan(text: str = PAGE, path: str = PATH):
    note = parse(text, path)
    mf = MaterialFile(path, "x", note.body, "2026-11-20", material_info(path, note.frontmatter, note.body))
    (material,) = mf.pieces()
    brain = OfflineBrain()
    units = brain.extract(material).value.units
    return brain, material, units


def test_a_page_becomes_its_overview_and_one_unit_per_section_worth_a_note():
    _, _, units = plan()
    assert [(u.bucket, u.name) for u in units] == [
        ("wiki", "Internal links"),
        ("procedure", "Link to a heading"),
        ("procedure", "Change the link display text"),
        ("wiki", "Supported formats"),
    ]  # "Overview" holds one sentence that needs its page: folded into the page's note


def test_no_unit_of_a_documentation_page_is_personal():
    _, _, units = plan()
    assert "personal" not in {u.bucket for u in units}  # it addresses every reader as "you"


def test_names_are_short_and_descriptions_say_what_the_note_holds():
    brain, material, units = plan()
    decisions = {u.name: brain.integrate(IntegrateRequest(material, u)).value for u in units}
    page = decisions["Internal links"]
    assert page.description == (
        "Connect notes to each other with wikilinks, and link to headings and blocks.")
    for d in decisions.values():
        assert d.description and d.description.lower() != d.name.lower()
        assert "[!" not in d.description and "^b15695" not in d.body
        assert "internal note" not in d.body  # an author's %% comment %% is not content
    assert decisions["Link to a heading"].description.startswith("You can link to a specific")


def test_bodies_keep_the_sections_substance_and_callouts_as_what_they_are():
    brain, material, units = plan()
    body = {u.name: brain.integrate(IntegrateRequest(material, u)).value.body for u in units}
    assert "**Note:** Links are stored as plain text" in body["Internal links"]
    assert "For the name, you can choose anything you like." in body["Internal links"]  # folded
    steps = body["Change the link display text"]
    assert "## Steps" in steps and "2. Add a vertical bar" in steps
    assert "- Wikilink:" in body["Supported formats"]
    assert all(text.rstrip().endswith(f"derived_from:: [[{PATH}]]") for text in body.values())


def test_a_page_without_headings_is_one_note():
    text = "Symbolic links let a vault hold folders stored elsewhere on the disk.\n\n" \
           "- Loops are refused, to keep the app from crashing on an endless walk.\n" \
           "- Targets must not overlap the vault or each other, or files would show twice.\n"
    _, _, units = plan(text, "resource/2026-11-20/help/Symbolic links.md")
    assert [(u.bucket, u.name) for u in units] == [("wiki", "Symbolic links")]


def test_chinese_page_sections_keep_their_headings_as_names():
    text = "## 链接到标题\n\n在笔记名称后加井号（#）和标题文字，就能链接到笔记中的某个标题，例如 `[[运动定律#第二定律]]`。\n\n" \
           "要链接到同一篇笔记里的标题，省略笔记名称即可：`[[#第二定律]]`。\n\n" \
           "## 属性类型\n\n每个属性名在整个库中只有一种类型。类型可以是文本、列表、数字、复选框、日期或日期时间，" \
           "修改类型后已有的值会尽量转换过去。\n"
    _, _, units = plan(text, "resource/2026-11-21/help-zh/内部链接.md")
    assert [(u.bucket, u.name) for u in units] == [("procedure", "链接到标题"), ("wiki", "属性类型")]
