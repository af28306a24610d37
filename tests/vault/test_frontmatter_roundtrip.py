"""A changed note's frontmatter comes back byte for byte except the keys the change means
to change (docs/spec.md §1.4.2): scalars as written, quoting, comments, key order, flow
style, blank lines, CRLF and the BOM. These tests edit through the Note API every writer
uses (`with_frontmatter`, `with_name_synced`, `render`); test_frontmatter_writers.py runs
the writers themselves."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reme_workbench.vault.note import parse, render, rewritten_whole
from tests.vault.frontmatter_lines import (
    FIXTURE_NAMES,
    as_crlf_with_bom,
    assert_only_changed,
    blocks,
    fixture_text,
    read_mapping,
    same,
    split_note,
    with_key,
    with_name,
)

P = "digest/wiki/new-name.md"
ISSUE = (
    "---\n"
    "# my note\n"
    "name: old-name\n"
    "time: 12:30\n"
    "zip: 01234\n"
    "version: 1.10\n"
    "flag: yes\n"
    'quoted: "a"\n'
    "---\n"
    "body\n"
)


# --- the issue's cases ----------------------------------------------------------------------


def test_a_name_sync_keeps_yaml_1_1_look_alikes_quotes_and_comments() -> None:
    out = render(parse(ISSUE, P).with_name_synced())
    assert out == ISSUE.replace("name: old-name", "name: new-name")
    assert rewritten_whole(parse(ISSUE, P).with_name_synced()) is None


def test_a_missing_name_goes_first_and_nothing_else_moves() -> None:
    text = ISSUE.replace("name: old-name\n", "")
    out = render(parse(text, P).with_name_synced())
    assert out == text.replace("# my note\n", "# my note\nname: new-name\n")


def test_a_changed_value_keeps_its_trailing_comment_and_spacing() -> None:
    text = "---\nname: n\ndescription:   old words   # said by the brain\ntime: 12:30\n---\n"
    out = render(parse(text, P).with_frontmatter(description="new words"))
    assert out == text.replace("old words", "new words")


def test_a_new_value_that_yaml_1_1_would_misread_is_quoted() -> None:
    text = "---\nname: n\nflag: no\n---\n"
    note = parse(text, P).with_frontmatter(flag="yes", time="12:30", zip="01234", ver="1.10")
    out = render(note)
    assert out == "---\nname: n\nflag: 'yes'\ntime: '12:30'\nzip: '01234'\nver: '1.10'\n---\n"
    assert dict(parse(out, P).frontmatter) == dict(note.frontmatter)


def test_a_removed_key_takes_only_its_own_lines() -> None:
    text = (
        "---\n# head\nname: n\n\ntags:\n  - a   # first\n  - b\n# about kind\nkind: x\n---\nb\n"
    )
    out = render(parse(text, P).with_frontmatter(tags=None))
    assert out == "---\n# head\nname: n\n\n# about kind\nkind: x\n---\nb\n"


def test_a_new_key_goes_last_after_the_comments_at_the_end() -> None:
    text = "---\nname: n   # kept\n# trailing comment\n---\nb"
    out = render(parse(text, P).with_frontmatter(description="d"))
    assert out == "---\nname: n   # kept\n# trailing comment\ndescription: d\n---\nb"


def test_a_flow_list_stays_a_flow_list_and_a_block_list_keeps_its_indent() -> None:
    text = "---\ntags: [a, 'b c']  # topics\naliases:\n    - x\n    - y\nname: n\n---\n"
    note = parse(text, P).with_frontmatter(tags=["a", "b c", "yes"], aliases=["x", "12:30"])
    out = render(note)
    assert out == (
        "---\ntags: [a, b c, 'yes']  # topics\naliases:\n    - x\n    - '12:30'\nname: n\n---\n"
    )


def test_a_scalar_becoming_a_list_replaces_its_entry_keeping_the_comment() -> None:
    text = "---\nname: n\ntags: one   # was a word\nkind: k\n---\n"
    out = render(parse(text, P).with_frontmatter(tags=["one", "two"]))
    assert out == "---\nname: n\ntags:   # was a word\n- one\n- two\nkind: k\n---\n"


def test_a_block_scalar_changed_to_a_word_keeps_the_lines_around_it() -> None:
    text = "---\nsummary: |\n  line one\n  line two\n\n# next\nname: n\n---\n"
    out = render(parse(text, P).with_frontmatter(summary="short"))
    assert out == "---\nsummary: short\n\n# next\nname: n\n---\n"


@pytest.mark.parametrize(
    ("empty", "filled"),
    [
        ("description:", "description: d"),
        ("description: ", "description: d"),  # Obsidian's property editor leaves the space
        ("description:\t ", "description: d"),
        ("description:   # later", "description: d   # later"),
    ],
)
def test_an_empty_value_gets_its_new_text_after_one_space(empty, filled) -> None:
    text = f"---\n{empty}\nname: n\n---\n"
    assert render(parse(text, P).with_frontmatter(description="d")) == (
        f"---\n{filled}\nname: n\n---\n"
    )


def test_crlf_and_bom_survive_an_edit() -> None:
    text = "\ufeff---\r\n# c\r\nname: old   # x\r\ntime: 12:30\r\n---\r\nbody\r\n"
    out = render(parse(text, P).with_name_synced().with_frontmatter(extra="01234"))
    assert out == "\ufeff---\r\n# c\r\nname: new-name   # x\r\ntime: 12:30\r\nextra: '01234'\r\n---\r\nbody\r\n"


def test_an_indented_root_mapping_is_edited_at_its_indent() -> None:
    text = "---\n  name: old\n  time: 12:30\n---\n"
    out = render(parse(text, P).with_name_synced().with_frontmatter(tags=["a"]))
    assert out == "---\n  name: new-name\n  time: 12:30\n  tags:\n  - a\n---\n"


# --- the one fallback: the whole block dumped again, and said so -------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("---\n{name: old, time: 12:30}\n---\n", "flow mapping"),
        ("---\nname: old\nname: older\n---\n", "written twice"),
        ("---\nbase: &b {x: 1}\nname: old\nuse: *b\n---\n", None),  # alias untouched: edited
    ],
)
def test_a_block_that_cannot_be_edited_is_dumped_whole_and_says_why(text, why) -> None:
    note = parse(text, P).with_name_synced()
    reason = rewritten_whole(note)
    assert (reason is None) if why is None else (why in reason)
    assert parse(render(note), P).frontmatter["name"] == "new-name"
    if why is None:
        assert render(note) == text.replace("name: old", "name: new-name")


def test_removing_an_anchor_an_alias_needs_falls_back_and_reads_back() -> None:
    text = "---\nbase: &b {x: 1}\nname: n\nuse: *b\n---\n"
    note = parse(text, P).with_frontmatter(base=None)
    assert "would not read back" in rewritten_whole(note)
    assert dict(parse(render(note), P).frontmatter) == {"name": "n", "use": {"x": 1}}


def test_an_untouched_or_new_note_is_never_called_rewritten() -> None:
    assert rewritten_whole(parse(ISSUE, P)) is None
    assert rewritten_whole(parse("no block\n", P).with_frontmatter(description="d")) is None


# --- real-vault fixtures through the Note API -----------------------------------------------------


@pytest.mark.parametrize("variant", ["lf", "crlf+bom"])
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_real_vault_frontmatter_survives_a_name_sync_and_a_description(name, variant) -> None:
    text = fixture_text(name, variant)
    original = read_mapping(text)
    note = parse(text, P).with_frontmatter(description="Set by a writer.").with_name_synced()
    out = render(note)
    expected = with_name(with_key(original, "description", "Set by a writer."), "new-name")
    assert_only_changed(text, out, {"name", "description"}, expected)
    assert split_note(out)[3] == split_note(text)[3]  # the body
    assert rewritten_whole(note) is None


# --- property: generated blocks of YAML 1.1 look-alikes --------------------------------------------

NEW_VALUES = st.one_of(
    st.sampled_from(["12:30", "01234", "yes", "1.10", "~", "", "a: b", "#hash", "it's", "«x»"]),
    st.text(max_size=12),
    st.integers(),
    st.booleans(),
    st.dates(),
    st.lists(st.sampled_from(["a", "yes", "12:30", "b c"]), max_size=3),
    st.dictionaries(st.sampled_from(["x", "y"]), st.sampled_from(["1", "on", "z"]), max_size=2),
)


@st.composite
def edits(draw, keys: list) -> tuple[dict, bool]:
    """{key: new value or None (removed)} over some of `keys` and some new keys, and
    whether a name sync follows."""
    names = [k for k in keys if isinstance(k, str)]
    changed = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    added = draw(st.lists(st.sampled_from(["new-key", "description", "name", "tags", "zz"]),
                          unique=True, max_size=2))
    updates: dict = {}
    for key in changed + [k for k in added if k not in keys]:
        remove = key in changed and draw(st.integers(0, 3)) == 0
        updates[key] = None if remove else draw(NEW_VALUES)
    return updates, draw(st.booleans())


@given(data=st.data(), block=blocks(), crlf=st.booleans(), body=st.sampled_from(["", "b\n"]))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_edit_keeps_every_line_of_every_untouched_key(data, block, crlf, body) -> None:
    text = as_crlf_with_bom(block + body) if crlf else block + body
    note = parse(text, P)
    original = read_mapping(text)
    assert same(dict(note.frontmatter), original)
    updates, sync = data.draw(edits(list(original)))
    edited = note.with_frontmatter(**updates)
    expected = dict(original)
    for key, value in updates.items():
        if value is None:
            expected.pop(key, None)
        else:
            expected[key] = value
    touched = set(updates)
    if sync:
        edited = edited.with_name_synced()
        if not same(expected.get("name"), "new-name"):
            expected = with_name(expected, "new-name")
            touched.add("name")
    out = render(edited)
    assert rewritten_whole(edited) is None
    assert_only_changed(text, out, touched, expected)
    assert split_note(out)[3] == split_note(text)[3]
    assert render(parse(out, P)) == out
