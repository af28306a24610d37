"""Writing a changed frontmatter mapping back into the block a person wrote.

docs/spec.md §1.4.2: a changed note's frontmatter comes back byte for byte except the keys
the change means to change. `edit_block` edits the original text key by key:

- a changed key keeps its line and its trailing comment; only its value's text is
  replaced (when the old or the new value is a block — a block list or mapping, a `|`
  or `>` scalar — that key's whole entry is, keeping the comment where it can);
- a removed key loses only its own lines;
- a new key is inserted before the next key it precedes in the new mapping (so a new
  `name` goes first), else at the end of the block; a key the new mapping puts
  elsewhere moves there, its lines as written when its value is the same.

Each new value is dumped on its own with `yaml.safe_dump`, so a string that YAML 1.1 would
read as something else (`yes`, `12:30`, `01234`) is quoted. Every other byte — scalars as
written, quoting, comments, blank lines, key order, flow style, line endings — stays.

Only when the block cannot be edited this way (one flow mapping `{a: 1}`, a key written
twice or merged in with `<<`, an edit that would not read back as the new mapping, e.g.
because it breaks an alias) is the whole block dumped again; the result says why
(`WrittenBlock.rewritten`), so a writer can tell the person. Every edit is read back
before it is used, so a surgery that went wrong can only cost the comments, never a value.

Pure: no I/O. The positions come from PyYAML's events (`start_mark.index` /
`end_mark.index` are offsets into the YAML text).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from .frontmatter import find_frontmatter, load_yaml

__all__ = ["WrittenBlock", "edit_block", "dump_block", "same_value"]

# PyYAML wraps long scalars at 80 columns; a description written on one line stays on one.
_WIDTH = 1 << 30
_MERGE_TAG = "tag:yaml.org,2002:merge"
# After a value: spaces, then a comment to the end of the line.
_TRAILING_COMMENT = re.compile(r"[ \t]+#[^\r\n]*")
# A key line whose value starts below it: `key:` and maybe `  # comment`.
_KEY_LINE_COMMENT = re.compile(r"[ \t]*:([ \t]+#[^\r\n]*)?\r?$")


@dataclass(frozen=True)
class WrittenBlock:
    """A frontmatter block (fences included) and, when the original text could not be
    edited in place, why it was dumped again whole (None when it was edited)."""

    text: str
    rewritten: str | None = None


class _CannotEdit(Exception):
    """The original block cannot express this change by surgery; the message says why."""


@dataclass(frozen=True)
class _Entry:
    """One top-level `key: value` of the original YAML text, as offsets into it."""

    key: Any
    line_start: int  # the key line's first character
    key_end: int  # just past the key as written
    value_start: int
    value_end: int  # just past the value as PyYAML marks it (a block ends at the next key)
    content_end: int  # just past the value's last character that is not a blank or break
    end: int  # just past the line holding `content_end`: the entry's last line
    kind: str  # "scalar" (plain or quoted, or an alias), "flow" ([…] / {…}) or "block"
    sequence: bool  # the value is a block or flow sequence
    indent: int  # the key's column
    value_column: int


def edit_block(
    original: str, before: Mapping[Any, Any], after: Mapping[Any, Any], newline: str
) -> WrittenBlock:
    """The block `original` (fences included, as `parse` read it into `before`) holding
    `after` instead: edited in place, else dumped again whole (see the module doc)."""
    span = find_frontmatter(original)
    if span is None:  # not a block `parse` made; nothing to keep
        return WrittenBlock(dump_block(after, newline), "the original block could not be found")
    head, yaml_text, tail = (
        original[: span.yaml_start],
        original[span.yaml_start : span.yaml_end],
        original[span.yaml_end :],
    )
    try:
        edited = head + _edit_yaml(yaml_text, before, after, newline) + tail
        if not _reads_back(edited, after):
            raise _CannotEdit("the edited block would not read back as the new values")
    except _CannotEdit as exc:
        text = dump_block(after, newline) if after else f"---{newline}---{newline}"
        return WrittenBlock(text, str(exc))
    return WrittenBlock(edited)


def dump_block(frontmatter: Mapping[Any, Any], newline: str) -> str:
    """The whole mapping dumped as a new block, fences included."""
    data = dict(frontmatter)
    return f"---{newline}{_safe_dump(data, newline, flow=False)}---{newline}"


# --- the surgery ------------------------------------------------------------------------


def _edit_yaml(text: str, before: Mapping[Any, Any], after: Mapping[Any, Any], nl: str) -> str:
    entries = _entries(text)
    keys = list(before)
    if len(entries) != len(keys) or not all(
        same_value(e.key, k) for e, k in zip(entries, keys, strict=True)
    ):
        raise _CannotEdit("a key is written twice or merged in with `<<`")
    indent = entries[0].indent if entries else 0
    # Keys that keep their order stay where they are written; a key put elsewhere in
    # `after` moves, as a new key goes: before the next staying key it precedes in
    # `after`, else to the end.
    unchanged = {i for i, k in enumerate(keys) if k in after and same_value(after[k], before[k])}
    staying = _in_order([keys.index(k) for k in after if k in before], unchanged)
    order = list(after)
    inserts: dict[int | None, list[Any]] = {}
    for i, key in enumerate(order):
        if key in before and keys.index(key) in staying:
            continue
        following = next(
            (k for k in order[i + 1 :] if k in before and keys.index(k) in staying), None
        )
        where = None if following is None else keys.index(following)
        inserts.setdefault(where, []).append(key)

    def placed(key: Any) -> str:
        if key in before and same_value(after[key], before[key]):  # moved as written
            entry = entries[keys.index(key)]
            return text[entry.line_start : entry.end]
        return _new_entry(key, after[key], indent, nl)

    out: list[str] = []
    pos = 0
    for index, (entry, key) in enumerate(zip(entries, keys, strict=True)):
        out.append(text[pos : entry.line_start])
        pos = entry.line_start
        out.extend(placed(k) for k in inserts.get(index, ()))
        if key not in after or index not in staying:
            pos = entry.end  # removed (or moved): only its own lines go
        elif not same_value(after[key], before[key]):
            start, end, replacement = _changed(text, entry, after[key], nl)
            out.append(text[pos:start] + replacement)
            pos = end
    out.append(text[pos:])
    out.extend(placed(k) for k in inserts.get(None, ()))
    return "".join(out)


def _in_order(positions: list[int], unchanged: set[int]) -> set[int]:
    """The keys (by position) that stay where they are written: the increasing run of
    `positions` with the most unchanged keys (a changed key is written anew anyway, so
    moving it costs nothing), then the longest."""
    best: list[tuple[tuple[int, int], list[int]]] = []
    for i, pos in enumerate(positions):
        score, run = max(
            (best[j] for j in range(i) if positions[j] < pos),
            key=lambda b: b[0],
            default=((0, 0), []),
        )
        best.append(((score[0] + (pos in unchanged), score[1] + 1), [*run, pos]))
    return set(max(best, key=lambda b: b[0], default=((0, 0), []))[1])


def _changed(text: str, entry: _Entry, value: Any, nl: str) -> tuple[int, int, str]:
    """(start, end, replacement) writing `value` as `entry`'s new value."""
    flow = entry.kind == "flow" and isinstance(value, list | tuple | dict)
    part = _value_part(value, nl, flow=flow)  # " x" + nl, or nl + block lines
    inline = part.startswith(" ")
    if inline and entry.kind in ("scalar", "flow"):
        # Only the value's text: the key, the spacing and the trailing comment stay.
        new = _indent_continuations(part[1 : -len(nl)], entry.indent, nl)
        start, end = entry.value_start, entry.value_end
        if start == end:  # `key:` with no value: one space, and no blanks left at the end
            line_end = len(text[: _line_end(text, end)].rstrip("\r\n"))
            if not text[end:line_end].strip(" \t"):  # no comment after it
                start, end = len(text[:start].rstrip(" \t")), line_end
            if text[start - 1] not in " \t":
                new = " " + new
        return start, end, new
    comment = _entry_comment(text, entry)
    key_text = text[entry.line_start : entry.key_end]
    if inline:
        new = f"{key_text}: {_indent_continuations(part[1 : -len(nl)], entry.indent, nl)}"
        return entry.line_start, entry.end, new + comment + nl
    # A block value: PyYAML writes a list flush with its key and a mapping two further in;
    # the original's own indentation of the old value is kept when it was deeper.
    block = part[len(nl) :]
    dumped_column = 0 if isinstance(value, list | tuple) else 2
    extra = 0
    if entry.kind == "block" and entry.sequence == isinstance(value, list | tuple):
        extra = max(0, entry.value_column - entry.indent - dumped_column)
    lines = _indent_lines(block, entry.indent + extra, nl)
    return entry.line_start, entry.end, f"{key_text}:{comment}{nl}{lines}"


def _entry_comment(text: str, entry: _Entry) -> str:
    """The comment written after the value (or after `key:` when the value starts below),
    with its leading spaces; "" when there is none."""
    line_end = _line_end(text, entry.content_end - 1)
    if entry.kind != "block":
        after = text[entry.content_end : line_end].rstrip("\r\n")
        match = _TRAILING_COMMENT.fullmatch(after)
        if match:
            return after
    key_line = text[entry.key_end : _line_end(text, entry.key_end)].rstrip("\n")
    match = _KEY_LINE_COMMENT.fullmatch(key_line)
    return (match.group(1) or "") if match else ""


def _new_entry(key: Any, value: Any, indent: int, nl: str) -> str:
    return _indent_lines(_safe_dump({key: value}, nl, flow=False), indent, nl)


def _value_part(value: Any, nl: str, *, flow: bool) -> str:
    """What follows `key:` when `value` is dumped under a key: " text" + nl for a scalar
    or a flow collection, nl + lines for a block collection."""
    if flow:
        return " " + _safe_dump(value, nl, flow=True)
    dumped = _safe_dump({"k": value}, nl, flow=False)
    if not dumped.startswith("k:"):  # PyYAML writes a short plain key as is
        raise _CannotEdit("a value could not be written under its key")
    return dumped[2:]


def _indent_continuations(text: str, indent: int, nl: str) -> str:
    first, *rest = text.split(nl)
    return nl.join([first, *(" " * indent + line if line else line for line in rest)])


def _indent_lines(text: str, indent: int, nl: str) -> str:
    if not indent:
        return text
    return "".join(
        " " * indent + line if line.strip() else line for line in text.splitlines(keepends=True)
    )


# --- where the entries are --------------------------------------------------------------


def _entries(text: str) -> list[_Entry]:
    """The top-level entries of the block mapping `text` holds, in order ([] for a block
    of only blanks and comments)."""
    loader = yaml.SafeLoader(text)
    events = []
    try:
        while loader.check_event():
            events.append(loader.get_event())
    except yaml.YAMLError as exc:  # it parsed when the note was read; be safe anyway
        raise _CannotEdit(f"the block no longer parses ({exc})") from None
    i = 1  # past StreamStart
    if isinstance(events[i], StreamEndEvent):
        return []
    i += 1  # past DocumentStart
    root = events[i]
    if not isinstance(root, MappingStartEvent):
        raise _CannotEdit("the block holds a single value, not `key: value` lines")
    if root.flow_style:
        raise _CannotEdit("the block is one flow mapping `{…}`")
    i += 1
    entries: list[_Entry] = []
    while not isinstance(events[i], MappingEndEvent):
        key_event = events[i]
        if not isinstance(key_event, ScalarEvent):
            raise _CannotEdit("a key is not plain text (a `? …` or an alias as a key)")
        key = _construct_key(loader, key_event)
        start, column = key_event.start_mark.index, key_event.start_mark.column
        line_start = start - column
        if text[line_start:start].strip(" ") or (line_start and text[line_start - 1] != "\n"):
            raise _CannotEdit("a key does not start its own line")
        first = events[i + 1]
        i, value_end, content_end, kind = _node(events, i + 1, text)
        value_start = first.start_mark.index
        entries.append(
            _Entry(
                key=key,
                line_start=line_start,
                key_end=key_event.end_mark.index,
                value_start=value_start,
                value_end=value_end,
                content_end=content_end,
                end=_line_end(text, max(content_end - 1, key_event.end_mark.index)),
                kind=kind,
                sequence=isinstance(first, SequenceStartEvent),
                indent=column,
                value_column=first.start_mark.column,
            )
        )
    return entries


def _node(events: list[Any], i: int, text: str) -> tuple[int, int, int, str]:
    """(index past the node, value_end, content_end, kind) of the node starting at i."""
    event = events[i]
    if isinstance(event, ScalarEvent):
        start, end = event.start_mark.index, event.end_mark.index
        if event.style in ("|", ">"):
            # A block scalar's marks run over the blank lines after it; they are not its.
            content = start + len(text[start:end].rstrip(" \t\r\n\x85\u2028\u2029"))
            return i + 1, end, content, "block"
        return i + 1, end, end, "scalar"
    if isinstance(event, AliasEvent):
        return i + 1, event.end_mark.index, event.end_mark.index, "scalar"
    # A collection: its last child ends its content; a block collection's own end mark
    # sits at the next key, past any comment or blank line between.
    content = event.start_mark.index
    i += 1
    while not isinstance(events[i], CollectionEndEvent):
        i, _, content, _ = _node(events, i, text)
    end = events[i].end_mark.index
    if event.flow_style:
        return i + 1, end, end, "flow"
    return i + 1, end, content, "block"


def _construct_key(loader: yaml.SafeLoader, event: ScalarEvent) -> Any:
    """The key as the SafeLoader builds it (as the composer resolves a plain `2024`)."""
    tag = event.tag
    if tag is None or tag == "!":
        tag = loader.resolve(ScalarNode, event.value, event.implicit)
    if tag == _MERGE_TAG:
        raise _CannotEdit("a key is written twice or merged in with `<<`")
    node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        return loader.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        raise _CannotEdit(f"a key cannot be read ({exc})") from None


def _line_end(text: str, pos: int) -> int:
    """Just past the line break ending the line that holds `pos` (or the end of text)."""
    found = text.find("\n", max(pos, 0))
    return len(text) if found == -1 else found + 1


# --- dumping and checking ---------------------------------------------------------------


def _safe_dump(data: Any, nl: str, *, flow: bool) -> str:
    # PyYAML with allow_unicode writes U+0085 raw, which reads back as a line break;
    # so check the dump reads back the same, and fall back to escaped non-ASCII.
    for allow_unicode in (True, False):
        try:
            dumped = yaml.safe_dump(
                data,
                sort_keys=False,
                allow_unicode=allow_unicode,
                default_flow_style=flow,
                line_break=nl,
                width=_WIDTH,
            )
        except yaml.representer.RepresenterError as exc:
            raise TypeError(
                f"A frontmatter value cannot be written as YAML ({exc}); use str, int, "
                "float, bool, date, datetime, list or dict."
            ) from None
        try:
            faithful = same_value(load_yaml(dumped), data, loose=True)  # as parse reads it
        except (yaml.YAMLError, ValueError):
            faithful = False
        if faithful:
            return dumped
    raise ValueError(
        f"The frontmatter value {data!r} does not survive a YAML round trip; simplify it."
    )


def _reads_back(block: str, after: Mapping[Any, Any]) -> bool:
    """Whether `block` is one whole frontmatter block holding exactly `after`."""
    span = find_frontmatter(block)
    if span is None or span.end != len(block):
        return False
    try:
        data = load_yaml(block[span.yaml_start : span.yaml_end])
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError):
        return False
    return same_value({} if data is None else data, dict(after), loose=True)


def same_value(a: Any, b: Any, *, loose: bool = False) -> bool:
    """Equality that also demands equal types and key order.

    Plain `==` would call `{a: 1}` and `{a: True}` the same and keep the old text, so
    `with_frontmatter(a=True)` would silently not be written. `loose` lets a tuple
    match the list YAML turns it into.
    """
    if a is b:
        return True
    if loose and isinstance(a, list | tuple) and isinstance(b, list | tuple):
        pass
    elif type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return len(a) == len(b) and all(
            same_value(ka, kb, loose=loose) and same_value(va, vb, loose=loose)
            for (ka, va), (kb, vb) in zip(a.items(), b.items(), strict=True)
        )
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(
            same_value(x, y, loose=loose) for x, y in zip(a, b, strict=True)
        )
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, _dt.datetime):
        # The same instant written in another zone is a change; the zone's class is not.
        return a == b and a.utcoffset() == b.utcoffset()
    return bool(a == b)
