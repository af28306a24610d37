"""What the frontmatter tests check: a block after an edit holds every line of every key
the edit did not mean to touch byte for byte, in order, and reads back as intended.

The block is cut into chunks by its lines alone, independently of the code under test:
a top-level entry is a line at column 0 plus the indented lines (and `- item` lines)
after it (blank lines count when an indented line follows them, as inside a `|`
scalar); an own-line comment or a blank line between entries is a chunk of its own.

Also here: the real-vault fixtures (tests/data/frontmatter/) and `blocks()`, generated
blocks of YAML 1.1 look-alikes, for the Note-level and the writer-level tests.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from reme_workbench.vault.frontmatter import BOM, find_frontmatter

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "frontmatter"
FIXTURE_NAMES = sorted(p.name for p in FIXTURES.glob("*.md"))

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_NO_KEY = object()


def split_note(text: str) -> tuple[str, str, str, str]:
    """(head: BOM and opening fence, YAML between the fences, closing fence line, body)."""
    span = find_frontmatter(text)
    assert span is not None, f"no frontmatter block in {text[:200]!r}"
    closing_end = span.end
    return (
        text[: span.yaml_start],
        text[span.yaml_start : span.yaml_end],
        text[span.yaml_end : closing_end],
        text[closing_end:],
    )


def chunks(yaml_text: str) -> list[tuple[Any, str]]:
    """[(key or _NO_KEY, text)] of a block mapping written at column 0."""
    lines = _LINE.findall(yaml_text)

    def blank(line: str) -> bool:
        return not line.strip()

    def indented(line: str) -> bool:
        # `- item` at column 0 continues the key above it (an indentless block list)
        return (line[:1] in (" ", "\t") or re.match(r"-(\s|\Z)", line) is not None) and not blank(line)

    out: list[tuple[Any, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if blank(line) or line.startswith("#"):
            out.append((_NO_KEY, line))
            i += 1
            continue
        j = i + 1
        while j < len(lines):
            if indented(lines[j]):
                j += 1
                continue
            k = j
            while k < len(lines) and blank(lines[k]):
                k += 1
            if k > j and k < len(lines) and indented(lines[k]):
                j = k
                continue
            break
        text = "".join(lines[i:j])
        loaded = yaml.safe_load(text)
        assert isinstance(loaded, dict) and len(loaded) == 1, f"not one entry: {text!r}"
        out.append((next(iter(loaded)), text))
        i = j
    return out


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types, mappings in equal order (1 is not True, a tuple is
    the list YAML reads back)."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, dt.datetime):
        return a == b and a.utcoffset() == b.utcoffset()
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


def assert_only_changed(before: str, after: str, touched: set, expected: dict) -> None:
    """`after` (a whole note) keeps every chunk of `before`'s block except those of the
    keys in `touched`, byte for byte and in order, keeps the fences and the BOM, and its
    block reads back as `expected` (key order included)."""
    head_b, yaml_b, close_b, _ = split_note(before)
    head_a, yaml_a, close_a, _ = split_note(after)
    assert head_a == head_b, "the opening fence (or the BOM) changed"
    assert close_a == close_b, "the closing fence changed"
    kept_before = [c for c in chunks(yaml_b) if c[0] is _NO_KEY or c[0] not in touched]
    kept_after = [c for c in chunks(yaml_a) if c[0] is _NO_KEY or c[0] not in touched]
    assert kept_after == kept_before, (
        f"lines of untouched keys changed:\n--- before\n{yaml_b}--- after\n{yaml_a}"
    )
    loaded = yaml.safe_load(yaml_a) or {}
    assert same(loaded, expected), f"read back {loaded!r}, expected {expected!r}"


def with_name(mapping: dict, stem: str) -> dict:
    """`name` set to `stem` where it is, else first (what a name sync means)."""
    if "name" in mapping:
        return {**mapping, "name": stem}
    return {"name": stem, **mapping}


def with_key(mapping: dict, key: str, value: Any) -> dict:
    """`key` set where it is, else last."""
    return {**mapping, key: value}


def read_mapping(text: str) -> dict:
    return yaml.safe_load(split_note(text)[1]) or {}


def as_crlf_with_bom(text: str) -> str:
    return BOM + text.replace("\n", "\r\n")


def fixture_text(name: str, variant: str) -> str:
    text = (FIXTURES / name).read_bytes().decode("utf-8")
    return as_crlf_with_bom(text) if variant == "crlf+bom" else text


# --- generated blocks of YAML 1.1 look-alikes -----------------------------------------------

SCALARS = [
    "12:30", "01234", "1.10", "yes", "no", "on", "off", "Off", "~", "null", "", "2024-02-29",
    "2024-02-29 10:15:00", "2024-02-29T10:15:00+01:00", "0x1F", "1_000", ".inf", "+12", "1e3",
    '"12:30"', "'yes'", '"say \\"hi\\""', "'it''s'", "plain words", "café «ok»", '"…"',
    "[]", "{}",
]
STRUCTURES = [
    " [a, \"b c\", 12:30]",
    " {x: 01234, y: [yes, no]}",
    "\n  - one\n  - 01234",
    "\n- one\n- '12:30'",
    "\n  city: \"Zürich\"\n  zip: 01234\n  geo: [48.85, 2.35]",
    " |\n  line one\n    indented\n\n  line four",
    " >-\n  folded\n  text",
    "\n  - a: 1\n    b: yes",
    " first\n  second",
    ' "first\n  second"',
]
KEYS = [
    "title", "time", "zip", "version", "flag", "created", "created-at", "tags", "aliases",
    "cssclasses", "rating", "status", "location", "summary", "empty", "публикация", "name",
    "description", '"quoted key"', "2024",
]
OWN_LINES = ["# a comment", "#", "# key: not a key", ""]
@st.composite
def blocks(draw) -> str:
    """A frontmatter block (fences included) of entries, comments and blank lines."""
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=0, max_size=7, unique=True))
    lines: list[str] = []
    for key in keys:
        lines += draw(st.lists(st.sampled_from(OWN_LINES), max_size=2))
        if draw(st.booleans()):
            value = draw(st.sampled_from(SCALARS))
            comment = draw(st.sampled_from(["", "  # why", "   #x"]))
            lines.append(f"{key}:{' ' + value if value else ''}{comment}")
        else:
            lines.append(f"{key}:{draw(st.sampled_from(STRUCTURES))}")
    lines += draw(st.lists(st.sampled_from(OWN_LINES), max_size=2))
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n"
