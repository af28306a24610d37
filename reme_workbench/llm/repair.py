"""Turn what a model actually sent into the JSON it meant: a pure function on strings.

Local models (and chatty hosted ones) wrap JSON in code fences, put prose around it,
leave trailing commas, use Python literals or single / smart quotes, put raw newlines
and markdown escapes (`\\_`) inside strings, or wrap the object in a list. The repair
is tried only after a strict parse fails, and only on unambiguous breakage: anything
still unreadable raises ValueError, so the caller asks the model again instead of
guessing. Truncated JSON is *not* completed — a cut-off body must not be accepted.
"""

from __future__ import annotations

import json
import re

__all__ = ["extract_json"]

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)  # reasoning models (qwen3, r1)
_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.S)
_MAX_STARTS = 64  # candidate `{` / `[` positions tried in prose; bounds the work
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_DOUBLE_CLOSERS = {'"': '"', "\u201c": '\u201d\u201c"', "\u201d": '\u201d\u201c"'}
_SINGLE_CLOSERS = {"'": "'", "\u2018": "\u2019\u2018", "\u2019": "\u2019\u2018"}
_JSON_ESCAPES = set('"\\/bfnrt')


def extract_json(text: str) -> object:
    """The JSON value in a model's reply, repaired where the breakage is unambiguous.

    >>> extract_json('Sure! ```json\\n{"a": [1, 2,],}\\n``` Hope this helps.')
    {'a': [1, 2]}

    Only an object or a list of objects counts (prose like "see [1]" parses as JSON
    too). Raises ValueError when none can be read.
    """
    if not isinstance(text, str):
        raise TypeError(f"extract_json expects a string, got {type(text).__name__}")
    cleaned = _THINK.sub("", text).strip().lstrip("\ufeff").strip()
    fenced = [m.group(1).strip() for m in _FENCE.finditer(cleaned)]
    for candidate in [cleaned, *fenced]:
        try:
            value = _unwrap(json.loads(candidate, strict=False))
        except ValueError:
            continue
        if _acceptable(value):
            return value
    for candidate in [*fenced, cleaned]:
        value = _scan(candidate)
        if value is not None:
            return _unwrap(value)
    head = cleaned[:80].replace("\n", " ")
    raise ValueError(
        f"the reply contains no readable JSON object (it starts with {head!r}); "
        "reply with one JSON object only"
    )


def _unwrap(value: object) -> object:
    # `[{...}]` where an object was asked for, or JSON double-encoded as a string.
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        return value[0]
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        inner = _scan(value.strip())
        if inner is not None:
            return _unwrap(inner)
    return value


def _acceptable(value: object) -> bool:
    # Prose like "see [1]" parses as JSON too; only objects and lists of objects count.
    return isinstance(value, dict) or (
        isinstance(value, list) and all(isinstance(v, dict) for v in value)
    )


def _scan(text: str) -> object | None:
    """The first acceptable JSON value found from any `{` / `[` in `text`, repaired."""
    starts = [i for i, c in enumerate(text) if c in "{["][:_MAX_STARTS]
    for start in starts:
        normalized = _normalize(text, start)
        if normalized is None:
            continue
        try:
            value = json.loads(normalized, strict=False)
        except ValueError:
            continue
        if _acceptable(value):
            return value
    return None


def _next_significant(text: str, i: int) -> str:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return text[i] if i < len(text) else ""


def _drop_trailing_comma(out: list[str]) -> None:
    j = len(out) - 1
    while j >= 0 and out[j].isspace():
        j -= 1
    if j >= 0 and out[j] == ",":
        del out[j]


def _normalize(text: str, start: int) -> str | None:
    """Rewrite the JSON-ish value starting at `start` as strict JSON; None if unclosed."""
    out: list[str] = []
    depth = 0
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if c in "{[":
            depth += 1
            out.append(c)
            i += 1
        elif c in "}]":
            _drop_trailing_comma(out)
            out.append(c)
            depth -= 1
            i += 1
            if depth == 0:
                return "".join(out)
        elif c in _DOUBLE_CLOSERS or c in _SINGLE_CLOSERS:
            closers = _DOUBLE_CLOSERS.get(c) or _SINGLE_CLOSERS[c]
            literal, i = _read_string(text, i + 1, closers)
            if literal is None:
                return None
            out.append(literal)
        elif c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            if word in _PY_LITERALS:
                out.append(_PY_LITERALS[word])
            elif _next_significant(text, j) == ":":
                out.append(json.dumps(word, ensure_ascii=False))  # unquoted key
            else:
                out.append(word)  # true / false / null, or garbage json.loads will refuse
            i = j
        else:
            out.append(c)
            i += 1
    return None


def _read_string(text: str, i: int, closers: str) -> tuple[str | None, int]:
    """Read a string body from `i` to its closing quote; return (JSON literal, next index).

    A quote counts as the closer only when what follows it can follow a JSON string
    (`,` `:` `}` `]` or the end), so an unescaped quote inside prose survives.
    """
    buf: list[str] = ['"']
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6] or ""):
                buf.append(text[i : i + 6])
                i += 6
            elif nxt in _JSON_ESCAPES:
                buf.append(c + nxt)
                i += 2
            elif nxt == "'":
                buf.append("'")
                i += 2
            else:  # `\_`, `\*`: a markdown escape meant literally
                buf.append("\\\\")
                i += 1
            continue
        if c in closers and _next_significant(text, i + 1) in (",", ":", "}", "]", ""):
            buf.append('"')
            return "".join(buf), i + 1
        if c == '"':
            buf.append('\\"')
        elif c < " ":
            buf.append(json.dumps(c)[1:-1])  # raw newline / tab inside a string
        else:
            buf.append(c)
        i += 1
    return None, i
