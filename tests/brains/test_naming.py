"""Names a person would give and descriptions that say what a note holds."""

from __future__ import annotations

import pytest

from reme_workbench.brains.offline_dream.naming import (
    describe,
    heading_name,
    is_imperative,
    statement_name,
    title_name,
    weak_name,
)

# What the issue found in real notes: every one of these is not a name.
FRAGMENTS = [
    "for the name", "in the tags view", "because notes are plain text files",
    "note note by default", "warning vaults within vaults because internal links are",
    "[!note] Properties", "你可以在仓库中使用符号链接或者说软链接来存储位于仓库之外以及系统设置文件夹中的文件",
    "If you want to", "The examples above are equivalent.",
]


@pytest.mark.parametrize("name", FRAGMENTS)
def test_fragments_are_weak_names(name):
    assert weak_name(name)


@pytest.mark.parametrize("name", [
    "Internal links", "Link to a heading", "Symbolic links", "符号链接", "Rotate DB credentials",
    "No migration without a backup", "Don't message me on weekends", "为笔记添加别名",
])
def test_good_names_pass(name):
    assert weak_name(name) is None


@pytest.mark.parametrize(("heading", "title", "parent", "name"), [
    ("Link to a heading in a note", "Internal links", "", "Link to a heading"),
    ("Settings", "Graph view", "", "Graph view settings"),
    ("Account", "Settings", "", "Account settings"),
    ("Advanced", "Settings", "Files and links", "Advanced files and links settings"),
    ("Overview", "Internal links", "", "Internal links overview"),
    ("Root cause", "Postmortem: INC-2026-031 — payments-api 502s", "", "INC-2026-031 root cause"),
    ("Date", "Properties", "Property types", "Date property type"),
    ("Restores", "PostgreSQL backup policy (rev. 7)", "", "PostgreSQL restores"),
    ("设置", "关系图谱", "", "关系图谱设置"),
    ("高级", "设置", "", "高级设置"),
    ("为笔记添加别名", "别名", "", "为笔记添加别名"),
    ("> [!note] Overview", "", "", ""),  # a generic heading with nothing to say what of
    ("Notes for next time", "", "", ""),  # a log's takeaways: their statements name them
    ("After setup", "Set up Sync", "", ""),  # a phrase of a sentence: the section's text names it
    ("How to create a vault", "", "", "Create a vault"),
])
def test_heading_names(heading, title, parent, name):
    assert heading_name(heading, title, parent) == name


@pytest.mark.parametrize(("text", "name"), [
    ("To create a callout, add [!info] to the first line of a blockquote.", "Create a callout"),
    ("You can use three or more stars ***, hyphens ---, or underscores ___ on its own line "
     "to add a horizontal bar.", "Add a horizontal bar"),
    # the purpose is what the parse reads as an imperative, not a word of a verb list
    ("Use the command palette to pin the current note.", "Pin the current note"),
    ("Because notes are plain text files, you can use other text editors to edit notes.",
     "Use other text editors"),
    ("Symlink targets must be fully disjoint from the vault root.",
     "Symlink targets must be fully disjoint"),
    ("The canary window goes from 10 to 15 minutes per the postmortem.", "Canary window"),
    ("Keep file names as they were in Notebox, with spaces and capitals.", "Keep file names"),
    # the exception is the rule's own (docs/spec.md §5.3.5): kept, up to MAX_QUALIFIED_WORDS
    ("Don't message me on weekends unless prod is down.", "Don't message me on weekends unless prod is down"),
    ("I did not enable auto-merge: it's Friday.", ""),  # never drop the negation
    ("Do not restart ledger-worker while a batch is running: it starts over.",
     "Don't restart ledger-worker"),  # the negation kept, as one word
    ("Good, because migration 0042 creates an index concurrently, that can't sit in a "
     "transaction anyway.", "Migration 0042 creates an index concurrently"),  # a reply's "Good"
    ("Correct. Transaction mode for payments.", "Transaction mode for payments"),
    ("Weekly report: moved from Monday morning to Friday afternoon.",
     "Weekly report moved from Monday morning"),
    ("你可以在仓库中使用符号链接或者说软链接来存储位于仓库之外以及系统设置文件夹中的文件", "使用符号链接"),
    ("周报时间从每周一上午改为每周五下午", "周报时间"),
    ("我用中文写的时候你就用中文回我", "用中文回我"),
    ("在标签视图中，你可以按名称排序", "按名称排序"),
    ("梅的决定：Home Assistant 以后不自动升级", "Home Assistant 以后不自动升级"),
    ("Summary to Mei: 7 bullets at 12:45.", "Summary to Mei"),  # a value: the label names it
    ("`build-02` = 10.20.4.12, Ubuntu 22.04, Python 3.11.", "build-02"),
    ("Prod rotation is scheduled for the end of the month.", "Prod rotation"),
    ("Two minutes later the ledger worker lost its lock.", "Ledger worker lost its lock"),
    ("At 14:05 the pool ran out of connections.", "Pool ran out of connections"),
])
def test_statement_names(text, name):
    got = statement_name(text)
    assert got == name
    assert not got or weak_name(got, text) is None


def test_imperative_headings():
    assert all(is_imperative(h) for h in ["Take a snapshot", "Link to a file", "How to sync",
                                          "挂载快照", "先试运行", "修改链接的显示文字"])
    assert not any(is_imperative(h) for h in ["Property types", "Symbolic links", "设置", "属性类型"])


def test_a_description_is_a_sentence_that_is_not_the_name():
    sentences = ["Internal links", "Obsidian supports the following formats:",
                 "For example:", "Links connect one note to another, in either format."]
    assert describe(sentences, "Internal links") == (
        "Links connect one note to another, in either format.")
    assert describe(["x " * 150], "n").endswith("…") and len(describe(["word " * 100], "n")) <= 200


def test_a_page_title_names_what_the_page_is_about():
    assert title_name("Postmortem: INC-2026-031 — payments-api 502s (2026-10-14)") == (
        "INC-2026-031 postmortem")
    assert title_name("Internal links") == "Internal links"
    assert title_name("PostgreSQL backup policy (Data Platform, rev. 7)") == (
        "PostgreSQL backup policy")


def test_a_fact_giving_a_value_is_named_by_its_thing():
    from reme_workbench.brains.offline_dream.naming import assigned_name
    from reme_workbench.brains.offline_dream.offline import _key_words

    assert assigned_name("`build-02` = 10.20.4.12, Ubuntu 22.04") == "build-02"
    assert assigned_name("Pool size = 20") == ""  # two words: a statement, named as one
    assert _key_words("`build-02` = 10.20.4.12, Ubuntu 22.04, Python 3.11; owned by SRE.") == "build-02"
