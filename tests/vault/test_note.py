"""Note parse/render: byte-identical round trips, edits, and refusals of bad files."""

from __future__ import annotations

import datetime as dt
import os
import tracemalloc
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reme_workbench.errors import NoteError, UnsafePathError
from reme_workbench.vault.note import (
    MAX_NOTE_BYTES,
    Note,
    decode_note_bytes,
    parse,
    read_note,
    render,
    render_bytes,
)

P = "digest/wiki/jwt-rotation.md"


def roundtrip(text: str) -> Note:
    note = parse(text, P)
    assert render(note) == text
    return note


# --- round trip: properties ---------------------------------------------------------

# Text biased towards the shapes that matter: fences, CRLF, BOM, YAML-ish lines.
_pieces = st.sampled_from(
    [
        "---",
        "...",
        "--- ",
        "\n",
        "\r\n",
        "\r",
        "\ufeff",
        "name: x",
        "a: [1, 2]",
        "# comment",
        "  - item",
        "key: 'it''s'",
        ": bad",
        "{",
        "date: 2026-01-02",
        "\t",
        " ",
    ]
)
_chunky_text = st.lists(st.one_of(_pieces, st.text(max_size=8)), max_size=25).map("".join)


@given(st.one_of(st.text(), _chunky_text))
@settings(max_examples=400)
def test_render_parse_is_identity_for_any_text(text: str) -> None:
    # The only allowed outcome besides a byte-identical round trip is a clear NoteError.
    try:
        note = parse(text, P)
    except NoteError as exc:
        assert P in str(exc)
        return
    assert render(note) == text
    # Untouched bookkeeping survives no-op edits too.
    assert render(note.with_body(note.body)) == text
    assert (
        render(
            note.with_frontmatter(
                **{k: v for k, v in note.frontmatter.items() if isinstance(k, str)}
            )
        )
        == text
    )


_yaml_lines = st.lists(
    st.sampled_from(
        [
            "name: jwt-rotation",
            "description: 'single ''quoted'' text'",
            'title: "double \\"quoted\\""',
            "tags: [a, b, {c: d}]",
            "# a comment",
            "weird:    spacing   # trailing comment",
            "multi: |\n  line one\n  line two",
            "folded: >\n  folded\n  text",
            "when: 2026-01-02",
            "n: 0x1F",
            "empty:",
            "list:\n  - one\n  - two",
            "anchor: &a 1",
            "alias: *a",
            "",
            "   ",
        ]
    ),
    max_size=8,
    unique=True,
)


@given(
    bom=st.booleans(),
    nl=st.sampled_from(["\n", "\r\n"]),
    lines=_yaml_lines,
    close=st.sampled_from(["---", "...", "---  "]),
    close_nl=st.booleans(),
    body=st.text(),
)
def test_valid_frontmatter_always_parses_and_round_trips(bom, nl, lines, close, close_nl, body):
    # `alias: *a` is only valid after `anchor`; keep the generated YAML valid.
    if "alias: *a" in lines and (
        "anchor: &a 1" not in lines or lines.index("anchor: &a 1") > lines.index("alias: *a")
    ):
        lines = [x for x in lines if x != "alias: *a"]
    yaml_text = "".join(line.replace("\n", nl) + nl for line in lines)
    text = (
        ("\ufeff" if bom else "")
        + "---"
        + nl
        + yaml_text
        + close
        + (nl if close_nl else "")
        + (body if close_nl else "")
    )
    note = roundtrip(text)
    assert dict(note.frontmatter) == (yaml.safe_load(yaml_text) or {})
    assert note.body == (body if close_nl else "")


# --- round trip: explicit edges ---------------------------------------------------------


def test_no_frontmatter_is_all_body() -> None:
    note = roundtrip("# Title\n\nSome text.\n")
    assert dict(note.frontmatter) == {}
    assert note.body == "# Title\n\nSome text.\n"
    assert note.name is None


def test_empty_frontmatter_block() -> None:
    note = roundtrip("---\n---\n")
    assert dict(note.frontmatter) == {}
    assert note.body == ""
    assert roundtrip("---\n---\nbody").body == "body"


def test_frontmatter_of_only_comments_and_blanks_is_empty_mapping() -> None:
    note = roundtrip("---\n# just a comment\n\n   \n---\nbody\n")
    assert dict(note.frontmatter) == {}


def test_crlf_file() -> None:
    text = "---\r\nname: x\r\ndescription: d\r\n---\r\nline 1\r\nline 2\r\n"
    note = roundtrip(text)
    assert note.name == "x" and note.description == "d"
    assert note.body == "line 1\r\nline 2\r\n"


def test_bom_is_kept_and_not_part_of_body() -> None:
    note = roundtrip("\ufeff---\nname: x\n---\nbody\n")
    assert note.name == "x"
    assert note.body == "body\n"
    assert render_bytes(note).startswith(b"\xef\xbb\xbf---\n")
    assert roundtrip("\ufeffno frontmatter").body == "no frontmatter"


def test_no_trailing_newline_anywhere() -> None:
    note = roundtrip("---\nname: x\n---")
    assert note.name == "x" and note.body == ""
    assert roundtrip("---\nname: x\n---\nbody").body == "body"


def test_dots_close_the_block() -> None:
    assert roundtrip("---\nname: x\n...\nbody\n").name == "x"


def test_unclosed_block_is_body() -> None:
    text = "---\nname: x\nthis never closes\n"
    note = roundtrip(text)
    assert dict(note.frontmatter) == {}
    assert note.body == text


def test_fence_must_be_first_line() -> None:
    text = "\n---\nname: x\n---\n"
    note = roundtrip(text)
    assert dict(note.frontmatter) == {}


def test_comments_quoting_and_flow_style_survive_untouched() -> None:
    text = (
        "---\n"
        "# keep me\n"
        "name:   'jwt-rotation'   # odd spacing\n"
        'description: "Rotate \\"JWT\\" keys"\n'
        "tags: [auth, {sec: high}]\n"
        "when: 2026-01-02\n"
        "---\n"
        "body\n"
    )
    note = roundtrip(text)
    assert note.name == "jwt-rotation"
    assert note.description == 'Rotate "JWT" keys'
    assert note.frontmatter["tags"] == ["auth", {"sec": "high"}]
    assert note.frontmatter["when"] == dt.date(2026, 1, 2)


def test_frontmatter_is_read_only_and_detached_from_input() -> None:
    source = {"name": "x", "tags": ["a"]}
    note = Note(path=P, frontmatter=source, body="")
    with pytest.raises(TypeError):
        note.frontmatter["name"] = "y"  # type: ignore[index]
    source["name"] = "changed"
    source["tags"].append("b")
    assert dict(note.frontmatter) == {"name": "x", "tags": ["a"]}


# --- edits --------------------------------------------------------------------------------


ORDERED = "---\nzeta: 1\nname: jwt-rotation\nalpha: 2\ndescription: d\nmid: 3\n---\nbody\n"


def test_with_frontmatter_keeps_user_key_order_and_appends_new_keys() -> None:
    note = parse(ORDERED, P).with_frontmatter(alpha=20, added="new", zeta=None)
    assert list(note.frontmatter) == ["name", "alpha", "description", "mid", "added"]
    assert note.frontmatter["alpha"] == 20
    again = parse(render(note), P)
    assert list(again.frontmatter) == ["name", "alpha", "description", "mid", "added"]
    assert again.body == "body\n"


def test_with_frontmatter_same_values_keeps_bytes() -> None:
    text = "---\nname: jwt-rotation   # comment\ndescription: d\n---\nb"
    note = parse(text, P)
    assert render(note.with_frontmatter(name="jwt-rotation", missing=None)) == text


def test_changed_frontmatter_keeps_its_comments() -> None:
    # docs/spec.md §1.4.2: only the changed key's value is written again.
    text = "---\n# comment\nname: jwt-rotation\ndescription: old\n---\nbody\n"
    out = render(parse(text, P).with_frontmatter(description="new"))
    assert out == "---\n# comment\nname: jwt-rotation\ndescription: new\n---\nbody\n"


def test_type_change_counts_as_change() -> None:
    # 1 == True in Python; the file must still say `true` after the edit.
    out = render(parse("---\nflag: 1\n---\n", P).with_frontmatter(flag=True))
    assert out == "---\nflag: true\n---\n"


def test_redump_keeps_crlf_and_bom() -> None:
    text = "\ufeff---\r\nname: old\r\ndescription: d\r\n---\r\nbody\r\n"
    out = render(parse(text, P).with_name_synced())
    assert out == "\ufeff---\r\nname: jwt-rotation\r\ndescription: d\r\n---\r\nbody\r\n"


def test_redump_writes_dates_back_as_dates() -> None:
    out = render(parse("---\nwhen: 2026-01-02\nname: x\n---\n", P).with_name_synced())
    assert "when: 2026-01-02\n" in out
    assert parse(out, P).frontmatter["when"] == dt.date(2026, 1, 2)


def test_removing_every_key_leaves_an_empty_block() -> None:
    out = render(parse("---\nname: x\n---\nbody", P).with_frontmatter(name=None))
    assert out == "---\n---\nbody"


def test_adding_frontmatter_to_a_plain_file() -> None:
    out = render(parse("just text\n", P).with_frontmatter(description="d"))
    assert out == "---\ndescription: d\n---\njust text\n"


def test_with_body_keeps_frontmatter_text() -> None:
    text = "---\nname: x  # c\n---\nold"
    assert render(parse(text, P).with_body("new\n")) == "---\nname: x  # c\n---\nnew\n"


def test_name_sync_fixes_a_wrong_name_in_place() -> None:
    note = parse("---\nkind: howto\nname: Old Name\ndescription: d\n---\n", P).with_name_synced()
    assert note.name == "jwt-rotation"
    assert list(note.frontmatter) == ["kind", "name", "description"]


def test_name_sync_on_right_name_keeps_bytes() -> None:
    text = "---\nname: 'jwt-rotation'   # quoted on purpose\n---\nb"
    note = parse(text, P)
    synced = note.with_name_synced()
    assert render(synced) == text


def test_name_sync_inserts_a_missing_name_first() -> None:
    note = parse("---\ndescription: d\n---\n", "digest/personal/x.md").with_name_synced()
    assert list(note.frontmatter) == ["name", "description"]
    assert note.name == "x"


def test_name_sync_replaces_non_string_name() -> None:
    note = parse("---\nname: 2026\n---\n", "daily/2026.md")
    assert note.name == "2026"
    assert render(note.with_name_synced()) == "---\nname: '2026'\n---\n"


def test_new_orders_keys_and_ends_body_with_newline() -> None:
    note = Note.new(
        "digest/procedure/deploy.md",
        description="How to deploy",
        body="Steps",
        kind="howto",
        extra={"tags": ["ops"], "gone": None},
    )
    assert list(note.frontmatter) == ["name", "description", "kind", "tags"]
    assert note.name == "deploy" and note.kind == "howto"
    assert note.body == "Steps\n"
    assert render(note) == (
        "---\nname: deploy\ndescription: How to deploy\nkind: howto\ntags:\n- ops\n---\nSteps\n"
    )
    assert dict(parse(render(note), note.path).frontmatter) == dict(note.frontmatter)


def test_new_without_kind_omits_it() -> None:
    note = Note.new("digest/wiki/x.md", description="d", body="already\n")
    assert "kind" not in note.frontmatter and note.kind is None
    assert note.body == "already\n"


def test_new_refuses_bad_path_and_owned_extra_keys() -> None:
    with pytest.raises(UnsafePathError):
        Note.new("../outside.md", description="d", body="")
    with pytest.raises(UnsafePathError):
        Note.new("digest/wiki/x.txt", description="d", body="")
    with pytest.raises(ValueError, match="name"):
        Note.new("digest/wiki/x.md", description="d", body="", extra={"name": "y"})


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(),
    st.dates(),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(
    text=st.sampled_from(["", "body", "---\nname: x\n---\nb", "\ufeff---\r\nk: [1]\r\n---\r\n"]),
    updates=st.dictionaries(st.text(min_size=1, max_size=10), _values, max_size=5),
)
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_edits_survive_a_render_parse_cycle(text, updates) -> None:
    note = parse(text, P).with_frontmatter(**updates)
    again = parse(render(note), P)
    assert dict(again.frontmatter) == dict(note.frontmatter)
    assert again.body == note.body
    assert render(again) == render(note)


def test_redump_escapes_characters_pyyaml_would_corrupt() -> None:
    # U+0085 written raw by PyYAML reads back as a line break; it must survive.
    note = parse("---\nname: x\n---\n", P).with_frontmatter(**{"k\x85": "a\x85b"})
    again = parse(render(note), P)
    assert again.frontmatter["k\x85"] == "a\x85b"


def test_tuples_are_written_as_lists() -> None:
    note = Note.new("digest/wiki/x.md", description="d", body="", extra={"tags": ("a", "b")})
    assert parse(render(note), note.path).frontmatter["tags"] == ["a", "b"]


def test_unwritable_value_type_is_a_type_error() -> None:
    note = Note.new("digest/wiki/x.md", description="d", body="", extra={"obj": object()})
    with pytest.raises(TypeError, match="cannot be written as YAML"):
        render(note)


def test_aware_datetimes_round_trip_whatever_the_tz_class() -> None:
    from zoneinfo import ZoneInfo

    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=ZoneInfo("Europe/Paris"))
    note = Note.new("digest/wiki/x.md", description="d", body="", extra={"when": when})
    assert parse(render(note), note.path).frontmatter["when"] == when


# --- bad input ------------------------------------------------------------------------------


def test_malformed_yaml_names_file_and_line() -> None:
    text = "---\nname: x\ndescription: [unclosed\n---\nbody\n"
    with pytest.raises(NoteError) as info:
        parse(text, P)
    msg = str(info.value)
    assert P in msg
    assert "line 3" in msg or "line 4" in msg
    assert "remove the frontmatter" in msg
    assert info.value.path == P


def test_malformed_yaml_line_counts_from_file_start_with_bom_and_crlf() -> None:
    text = "\ufeff---\r\na: 1\r\nb: 2\r\n  c: 3\r\n---\r\n"
    with pytest.raises(NoteError, match=r"line 4"):
        parse(text, P)


@pytest.mark.parametrize(
    "yaml_text",
    ["when: 2026-13-45", "x: !!python/object:os.system {}", "? [a, b]\n: c", "a: 1\na: [\n"],
)
def test_yaml_construction_failures_are_note_errors(yaml_text: str) -> None:
    with pytest.raises(NoteError, match="not valid YAML"):
        parse(f"---\n{yaml_text}\n---\n", P)


def test_self_referencing_alias_is_refused() -> None:
    with pytest.raises(NoteError, match="refers to itself"):
        parse("---\na: &x [1, *x]\n---\n", P)


def test_alias_bomb_is_refused() -> None:
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    with pytest.raises(NoteError, match="expands to over"):
        parse("---\n" + "\n".join(lines) + "\n---\n", P)


def test_shared_aliases_within_bounds_are_fine() -> None:
    note = roundtrip("---\nbase: &b {x: 1}\nuse: *b\n---\n")
    assert note.frontmatter["use"] == {"x": 1}


@pytest.mark.parametrize("yaml_text", ["- a\n- b", "just a string", "42"])
def test_non_mapping_frontmatter_is_refused(yaml_text: str) -> None:
    with pytest.raises(NoteError, match="not a mapping") as info:
        parse(f"---\n{yaml_text}\n---\nbody", P)
    assert P in str(info.value)


def test_decode_plain_utf8_keeps_bom_and_crlf() -> None:
    assert decode_note_bytes("\ufeffé\r\n".encode(), P) == "\ufeffé\r\n"


def test_decode_refuses_binary() -> None:
    with pytest.raises(NoteError, match="looks binary") as info:
        decode_note_bytes(b"\x89PNG\r\n\x1a\n\x00\x00", P)
    assert "rename it without .md" in str(info.value)


def test_decode_refuses_non_utf8_naming_offset_and_iconv() -> None:
    data = b"caf" + "é".encode("latin-1") + b" ok"
    with pytest.raises(NoteError) as info:
        decode_note_bytes(data, P)
    msg = str(info.value)
    assert "offset 3" in msg and "iconv -f" in msg and "-t utf-8" in msg and P in msg


def test_decode_names_utf16() -> None:
    with pytest.raises(NoteError, match="UTF-16"):
        decode_note_bytes("hi".encode("utf-16"), P)


def test_decode_refuses_oversized_with_size_and_limit() -> None:
    with pytest.raises(NoteError) as info:
        decode_note_bytes(b"x" * 101, P, max_bytes=100)
    msg = str(info.value)
    assert "101 bytes" in msg and "100-byte" in msg
    assert decode_note_bytes(b"x" * 100, P, max_bytes=100) == "x" * 100


def test_default_limit_is_five_mib() -> None:
    assert MAX_NOTE_BYTES == 5 * 1024 * 1024


def test_render_bytes_refuses_lone_surrogate() -> None:
    with pytest.raises(NoteError, match="surrogate"):
        render_bytes(Note(path=P, frontmatter={}, body="a\ud800b"))


# --- read_note ------------------------------------------------------------------------------


def write(root: Path, rel: str, data: bytes) -> Path:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def test_read_note_round_trips_bytes(tmp_path: Path) -> None:
    data = "\ufeff---\r\nname: jwt-rotation\r\n---\r\nüber\r\n".encode()
    write(tmp_path, P, data)
    note = read_note(tmp_path, P)
    assert note.path == P and note.name == "jwt-rotation"
    assert render_bytes(note) == data


def test_read_note_refuses_big_sparse_file_without_reading_it(tmp_path: Path) -> None:
    target = tmp_path / P
    target.parent.mkdir(parents=True)
    with open(target, "wb") as f:
        f.truncate(50 * 1024 * 1024)  # sparse: 50 MB on paper, nothing on disk
    tracemalloc.start()
    try:
        with pytest.raises(NoteError) as info:
            read_note(tmp_path, P)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "52,428,800 bytes" in str(info.value)
    assert peak < 1024 * 1024  # the 50 MB were never loaded


def test_read_note_small_limit(tmp_path: Path) -> None:
    write(tmp_path, P, b"x" * 11)
    with pytest.raises(NoteError, match="over the 10-byte"):
        read_note(tmp_path, P, max_bytes=10)
    assert read_note(tmp_path, P, max_bytes=11).body == "x" * 11


def test_read_note_refuses_symlinked_file(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: secret\n---\n")
    vault = tmp_path / "vault"
    (vault / "digest/wiki").mkdir(parents=True)
    os.symlink(outside, vault / P)
    with pytest.raises(UnsafePathError, match="symlink"):
        read_note(vault, P)


def test_read_note_refuses_symlinked_folder(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write(real, "jwt-rotation.md", b"body")
    vault = tmp_path / "vault"
    (vault / "digest").mkdir(parents=True)
    os.symlink(real, vault / "digest/wiki")
    with pytest.raises(UnsafePathError, match="symlink"):
        read_note(vault, P)


def test_read_note_refuses_escaping_path_and_directories(tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError):
        read_note(tmp_path, "../x.md")
    (tmp_path / "digest/wiki/dir.md").mkdir(parents=True)
    with pytest.raises(NoteError, match="not a regular file"):
        read_note(tmp_path, "digest/wiki/dir.md")


def test_read_note_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_note(tmp_path, P)


def test_read_note_binary_and_bad_yaml_name_the_path(tmp_path: Path) -> None:
    write(tmp_path, P, b"\x00\x01")
    with pytest.raises(NoteError, match="looks binary"):
        read_note(tmp_path, P)
    write(tmp_path, P, b"---\na: [\n---\n")
    with pytest.raises(NoteError, match=P):
        read_note(tmp_path, P)
