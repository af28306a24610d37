"""A note's YAML frontmatter: where the block is, what it holds, and the one rule for bad YAML.

Every reader of frontmatter uses these functions, so they agree: the note parser, the
link parser (a link inside frontmatter is not a link), the scan, the chunker and the
dream's segmenter all cut the text at exactly the same place and call the same YAML bad.

Pure: no I/O. `read_frontmatter` raises `NoteError` (naming the file, the line and the
fix) when the block is not YAML, is not a mapping, or refers to itself or explodes through
aliases; a caller that can live without the mapping (the chunker, a dream's material)
catches it and reads only the body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from ..errors import NoteError

__all__ = [
    "BOM",
    "FrontmatterSpan",
    "find_frontmatter",
    "read_frontmatter",
    "load_frontmatter",
    "load_yaml",
    "field_text",
]

BOM = "\ufeff"

# libyaml is ~10x faster than the pure-Python loader, which the scan of a large vault
# feels. What libyaml refuses is re-read by the pure loader: its result (or its error,
# with the line) decides, as it always did.
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)
# libyaml 0.2.5 (bundled by PyYAML wheels before 6.0.4) recurses in C per nesting level
# and crashes the process (SIGSEGV) past ~20,000 levels of `[[[...`; the pure loader stops
# at Python's recursion limit. Text with this many brackets goes to the pure loader;
# nothing legitimate nests that deep (over 100 levels is refused anyway).
_FAST_MAX_BRACKETS = 1000
# Aliases share objects, so a small file can describe billions of values.
_MAX_NODES = 100_000
_MAX_DEPTH = 100


@dataclass(frozen=True)
class FrontmatterSpan:
    """Offsets into the text: `[start, end)` is the whole block including both fences.

    `start` is 1 when the text begins with a BOM, else 0. `yaml_start`/`yaml_end`
    delimit the YAML between the fences. `end` is where the body begins (just past the
    closing fence's line ending, or the end of the text).
    """

    start: int
    yaml_start: int
    yaml_end: int
    end: int
    newline: str  # "\n" or "\r\n", as used by the opening fence


def find_frontmatter(text: str) -> FrontmatterSpan | None:
    """Locate a leading `---` ... `---` (or `...`) block, or return None.

    The opening fence must be the very first line (after an optional BOM); a block with
    no closing fence is not frontmatter, so the whole text is body.
    """
    start = 1 if text.startswith(BOM) else 0
    if text.startswith("---\r\n", start):
        newline = "\r\n"
    elif text.startswith("---\n", start):
        newline = "\n"
    else:
        return None
    yaml_start = start + 3 + len(newline)
    pos = yaml_start
    n = len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        line_end = n if nl == -1 else nl
        line = text[pos:line_end]
        if line.endswith("\r"):
            line = line[:-1]
        if line.rstrip(" \t") in ("---", "..."):
            end = n if nl == -1 else nl + 1
            return FrontmatterSpan(start, yaml_start, pos, end, newline)
        if nl == -1:
            return None
        pos = nl + 1
    return None


def read_frontmatter(text: str, path: str) -> tuple[dict[str, Any], FrontmatterSpan | None]:
    """The frontmatter mapping of a note's whole `text` ({} when it has no block, or an
    empty one) and where the block is. Raises NoteError for bad frontmatter."""
    span = find_frontmatter(text)
    if span is None:
        return {}, None
    first_line = text.count("\n", 0, span.yaml_start) + 1
    return load_frontmatter(text[span.yaml_start : span.yaml_end], path, first_line=first_line), span


def load_frontmatter(yaml_text: str, path: str, *, first_line: int = 1) -> dict[str, Any]:
    """The mapping the YAML between the fences holds ({} for only blanks and comments).

    NoteError, naming `path` and the line (`first_line` is the YAML's first line in the
    file), when it is not valid YAML, not a mapping, nests deeper than 100 levels,
    expands to over 100,000 values or refers to itself through an alias.
    """
    try:
        data = load_yaml(yaml_text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark is not None else 0)
        problem = exc.problem or exc.context or "invalid YAML"
        raise _bad_yaml(path, line, problem) from None
    except yaml.reader.ReaderError as exc:
        line = first_line + yaml_text.count("\n", 0, exc.position)
        raise _bad_yaml(path, line, f"character {exc.character!r} is not allowed") from None
    except yaml.YAMLError as exc:
        raise _bad_yaml(path, first_line, str(exc)) from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        # PyYAML lets some constructor errors escape unwrapped, e.g. the date
        # `2026-13-45` raises ValueError("month must be in 1..12").
        raise _bad_yaml(path, first_line, f"{type(exc).__name__}: {exc}") from None
    if data is None:  # only whitespace or comments
        return {}
    if not isinstance(data, dict):
        raise NoteError(
            f"{path}: the frontmatter (line {first_line}) is a YAML "
            f"{type(data).__name__}, not a mapping of keys to values. Write it as "
            "`key: value` lines, or remove the frontmatter block.",
            path=path,
        )
    _check_shape(data, path, first_line)
    return data


def load_yaml(yaml_text: str) -> Any:
    """The value of a YAML text, loaded safely (no Python objects), the way frontmatter
    is read; raises PyYAML's errors (and the ValueError of a bad date) as they are."""
    if _FAST_LOADER is not None and (
        yaml_text.count("[") + yaml_text.count("{") <= _FAST_MAX_BRACKETS
    ):
        try:
            return yaml.load(yaml_text, Loader=_FAST_LOADER)  # CSafeLoader: safe
        except Exception:  # noqa: BLE001 - the pure loader below decides and words it
            pass
    return yaml.safe_load(yaml_text)


def field_text(value: Any) -> str | None:
    """A frontmatter value as text, or None: `name: 2026` is still a name; a list, a
    mapping or nothing is not. The one rule for what a note's name or description is."""
    if value is None or isinstance(value, dict | list | tuple | set | bytes):
        return None
    return value if isinstance(value, str) else str(value)


def _bad_yaml(path: str, line: int, problem: str) -> NoteError:
    return NoteError(
        f"{path}, line {line}: the frontmatter is not valid YAML ({problem}). Fix the "
        "YAML between the --- lines, or remove the frontmatter block.",
        path=path,
    )


def _check_shape(data: dict[Any, Any], path: str, line: int) -> None:
    """Refuse frontmatter that refers to itself or explodes through YAML aliases: every
    walk over the mapping (compare, copy, dump) would otherwise hang."""
    count = 0
    on_path: set[int] = set()

    def walk(value: Any, depth: int) -> None:
        nonlocal count
        count += 1
        if count > _MAX_NODES or depth > _MAX_DEPTH:
            raise NoteError(
                f"{path}, line {line}: the frontmatter nests deeper than {_MAX_DEPTH} "
                f"levels or expands to over {_MAX_NODES:,} values (YAML aliases); "
                "simplify it, or remove the frontmatter block.",
                path=path,
            )
        if isinstance(value, dict | list):
            if id(value) in on_path:
                raise NoteError(
                    f"{path}, line {line}: the frontmatter refers to itself through a YAML "
                    "alias; replace the alias with a plain value, or remove the "
                    "frontmatter block.",
                    path=path,
                )
            on_path.add(id(value))
            for child in value.values() if isinstance(value, dict) else value:
                walk(child, depth + 1)
            on_path.discard(id(value))

    walk(data, 0)
