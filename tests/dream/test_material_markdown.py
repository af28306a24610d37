"""Material read as Obsidian Markdown: what a page says about itself, and what is prose."""

from __future__ import annotations

import pytest

from reme_workbench.brains.offline_dream.statements import chat_speakers, score_all, segment
from reme_workbench.dream.markdown import fenced, material_info, neutralise, title_from_file_name


def test_title_comes_from_frontmatter_then_h1_then_file_name():
    assert material_info("resource/x/a.md", {"title": "Given"}, "# Heading\n").title == "Given"
    assert material_info("resource/x/a.md", {}, "intro\n# Heading one\n").title == "Heading one"
    body = "```md\n# Not a title, an example\n```\ntext\n"
    assert material_info("resource/x/Internal links.md", {}, body).title == "Internal links"
    assert title_from_file_name("daily/x/deploy-payments-api.md", "we deploy payments-api") == (
        "Deploy payments-api")
    assert title_from_file_name("daily/x/pgbouncer-cutover.md", "PgBouncer went live") == (
        "PgBouncer cutover")
    assert title_from_file_name("resource/x/内部链接.md") == "内部链接"


def test_the_materials_own_description_aliases_and_tags_are_read():
    info = material_info(
        "resource/x/a.md",
        {"description": "Learn how to **link** notes.", "aliases": "Internal link, Links",
         "tags": ["#docs", "links"]},
        "body\n",
    )
    assert info.description == "Learn how to link notes."
    assert info.aliases == ("Internal link", "Links")
    assert info.tags == ("docs", "links")


@pytest.mark.parametrize(("text", "gone", "kept"), [
    ("See %% an author's comment %% here.", "comment", "See  here."),
    ("a\n%%\nhidden\nover lines\n%%\nb", "hidden", "b"),
    ("<!-- html comment --> text", "html comment", "text"),
    ("$$\nE = mc^2\n$$\nafter", "mc^2", "after"),
    ("A paragraph with an id. ^b15695", "^b15695", "A paragraph with an id."),
    ("Look: ![[Figure 1.png]] and ![alt](x.png) done", "Figure", "Look:  and  done"),
    ("A claim.[^1]\n\n[^1]: The source.", "The source", "A claim."),
    ("Press <kbd>Ctrl</kbd>+<kbd>P</kbd>.<br>Next", "<kbd>", "Press Ctrl+P. Next"),
    ("<details><summary>More</summary>Inner text</details>", "<details>", "MoreInner text"),
])
def test_what_is_not_prose_is_taken_out(text, gone, kept):
    out = neutralise(text)
    assert gone not in out and kept in out
    assert out.count("\n") == text.count("\n")  # line numbers stay true


def test_inline_math_becomes_code_and_fenced_code_is_left_alone():
    assert neutralise("The identity $e^{i\\pi}+1=0$ holds.") == "The identity `e^{i\\pi}+1=0` holds."
    assert neutralise("It costs $5 and $6 now.") == "It costs $5 and $6 now."  # prices, not math
    code = "```\n%% not a comment in code %%\n$x$\n```"
    assert neutralise(code) == code


def test_fenced_code_gets_a_fence_longer_than_any_inside():
    lines = fenced("```mermaid\ngraph\n```", "  ")
    assert lines[0] == "  ````" and lines[-1] == "  ````" and "  ```mermaid" in lines


def test_callouts_are_blocks_with_their_type_and_title():
    text = (
        "# Page\n\n> [!warning] Vaults within vaults\n> Nesting a vault breaks links.\n"
        "> - one item here\n\n> [!tip] A one-line tip says it all.\n\n"
        "> [!info]- Screenshot of a dialog\n> ![[dialog.png]]\n\nafter\n"
    )
    blocks, _ = segment(text)
    by_text = {b.text: b for b in blocks}
    warn = by_text["Nesting a vault breaks links."]
    assert (warn.callout, warn.callout_title) == ("warning", "Vaults within vaults")
    assert by_text["one item here"].callout == "warning"
    assert by_text["A one-line tip says it all."].callout == "tip"  # its title is its text
    assert not any("Screenshot" in b.text for b in blocks)  # a caption of an image, not prose
    assert not any("[!" in b.text for b in blocks)
    assert by_text["after"].callout == ""


def test_headings_give_each_block_its_path_and_levels():
    text = "# Title\n\n## Settings\n\n### Display\n\n#### Line length\n\nWidth.\n\n## Other\n\nx y z\n"
    blocks, _ = segment(text)
    width = next(b for b in blocks if b.text == "Width.")
    assert width.path == ("Title", "Settings", "Display", "Line length")
    assert width.levels == (1, 2, 3, 4)
    other = next(b for b in blocks if b.text == "x y z")
    assert other.path == ("Title", "Other")


def test_a_bold_line_opens_a_sub_section_in_documentation():
    text = "## Link to a heading\n\nIntro.\n\n**Within the same note**\n\nType it.\n"
    blocks, _ = segment(text, bold_headings=True)
    assert blocks[-1].path == ("Link to a heading", "Within the same note")
    blocks, _ = segment(text)  # a log: a bold line stays text
    assert blocks[-1].path == ("Link to a heading",)


def test_table_cells_keep_escaped_pipes_and_links_together():
    text = "| Property | Description |\n|-|-|\n| `tags` | See [[Tags\\|tags]]. |\n"
    blocks, _ = segment(text)
    assert blocks[-1].text == "Property: `tags`; Description: See [[Tags|tags]]."


def test_table_cells_empty_ones_escaped_pipes_and_an_unclosed_link():
    text = "| a | b | c |\n|--|--|--|\n| x | | y \\| z |\n| 1 | [[open | 2 |\n"
    blocks, _ = segment(text)
    # an empty cell is skipped; an unclosed link runs to the row's end, pipes and all
    assert [b.text for b in blocks] == ["a: x; c: y | z", "a: 1; b: [[open | 2 |"]


def test_chat_speakers_are_found_and_the_agent_says_nothing_worth_keeping():
    chat = ("[08:02] 林晓：早啊\n[08:02] agent：早上好！\n"
            "[08:05] 林晓：以后回复我一律用中文，但是命令和代码保持英文。\n"
            "[08:05] agent：好的，记住了：回复用中文。\n")
    assert chat_speakers(chat.splitlines()) == {"林晓", "agent"}
    blocks, statements = segment(chat)
    assert [b.speaker for b in blocks] == ["林晓", "agent", "林晓", "agent"]
    assert not any("林晓" in b.text for b in blocks)  # the label is not prose
    scores = score_all(statements)
    rule = next(i for i, s in enumerate(statements) if "一律用中文" in s.text)
    echo = next(i for i, s in enumerate(statements) if "记住了" in s.text)
    assert scores[echo].noise == "the agent's own chat line"
    assert scores[rule].noise is None and scores[rule].personal >= 2.0  # the user's own rule


def test_labels_in_a_log_are_not_chat_speakers():
    log = "Decision: use PgBouncer.\nNote: the port is 6432.\nSome prose follows here.\n"
    assert chat_speakers(log.splitlines()) == frozenset()
    meeting = "**Oskar:** pool is 20.\n**Mei:** fine.\n**Oskar:** ship it.\n**Mei:** ok.\n"
    _, statements = segment(meeting)
    # a meeting without the agent: its speakers are colleagues, not the user stating rules
    assert all(sc.personal < 2.0 for sc in score_all(statements))


@pytest.mark.parametrize("line", [
    '梅说格式很好，"就这样，每周一都这么写"。', "That's it, like before.", "对，周五不合。",
    '她说："周五发确实舒服多了，以后就这样。"', "周五不自动合并 PR 的规矩再次确认。",
    'Mei caught it: "uv. Always uv. We said this." — same preference as on 10-06.',
    "This is action item one from INC-2026-031.",
])
def test_a_sentence_that_only_points_back_is_a_fragment(line):
    _, statements = segment(f"- {line}\n")
    assert score_all(statements)[0].noise == "refers back to what was said before"


def test_a_restated_rule_is_kept_so_that_it_corroborates():
    _, statements = segment("- Preference restated: uv for every Python environment.\n")
    assert score_all(statements)[0].noise is None
