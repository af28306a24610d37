"""Sentences: where one ends, in English and in Chinese.

An English sentence ends at `.`, `!` or `?` (closing quotes and brackets after it go with
it) before whitespace and a capital, a digit, an opening mark or a CJK character — not
after an abbreviation ("e.g.", "Dr.") or an initial, not inside "v2.14.0" or
"example.com". A Chinese one ends at `。！？；`. A code span is never cut.

* `split_sentences(text)` — material, as dream reads it: a line break ends a sentence, a
  quotation is never cut ('she said "No." Then' ends after the quote), and `!`/`?` after a
  CJK character end one as `！？` do.
* `split_note_line(text)` — one line of a note, as consolidate cuts it into statements:
  a wikilink is never cut (a note links by path and alias), quotation marks are not
  followed, and `!`/`?` end a sentence only as in English. A variant, not
  `split_sentences`, because merge and the judges' anchors were set on these statements.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .cjk import is_cjk, is_cjk_or_kana

__all__ = ["split_sentences", "split_note_line"]

_ABBREV = {"e.g", "i.e", "vs", "etc", "approx", "no", "fig", "mr", "mrs", "ms", "dr", "st", "cf"}
_CJK_END = set("。！？；")
_CLOSERS = set("\"'”’」』）)*_")


def _english_end(text: str, i: int, j: int, cjk: Callable[[str], bool]) -> bool:
    """Whether the `.!?` at `i` (its closers running to `j`) ends an English sentence;
    `cjk` says which characters after it start a CJK one."""
    if j < len(text) and not text[j].isspace():
        return False  # "v2.14.0", "example.com"
    k = j
    while k < len(text) and text[k] in " \t":
        k += 1
    if k < len(text) and not (
        text[k].isupper() or text[k].isdigit() or text[k] in '"“`*([' or cjk(text[k])
    ):
        return False
    word = re.search(r"([A-Za-z.]+)$", text[:i])
    if text[i] == "." and word:
        w = word.group(1).lower()
        if w in _ABBREV or (len(w) == 1 and w.isalpha() and text[i - 1].isupper()):
            return False
    return True


# --- material -------------------------------------------------------------------------------

_MATERIAL_END = _CJK_END | set("!?")  # ASCII ! and ? end a sentence after a CJK character
_MATERIAL_CLOSERS = _CLOSERS | {"`"}
_OPEN_QUOTES = {"“": "”", "「": "」", "『": "』", '"': '"'}


def split_sentences(text: str) -> list[str]:
    """Sentences of one block; code spans and quotations are never cut."""
    out: list[str] = []
    start, i, n = 0, 0, len(text)
    closer: str | None = None
    while i < n:
        ch = text[i]
        if ch == "`":
            j = text.find("`", i + 1)
            i = j + 1 if j > 0 else i + 1
            continue
        if closer is None and ch in _OPEN_QUOTES:
            end = text.find(_OPEN_QUOTES[ch], i + 1)
            if 0 < end - i <= 400:  # a stray quote mark must not swallow the block
                closer = _OPEN_QUOTES[ch]
                i += 1
                continue
        elif closer is not None and ch == closer:
            closer = None
            j = i + 1
            while j < n and text[j] in _MATERIAL_CLOSERS:
                j += 1
            before = text[i - 1] if i else ""
            if before in "。！？；" or (before in ".!?" and _english_end(text, i, j, is_cjk)):
                out.append(text[start:j])  # 'she said "No." Then' ends at the quote
                start = j
            i = j
            continue
        if ch == "\n":
            out.append(text[start:i])
            start = i + 1
        elif closer is None and (ch in _MATERIAL_END or ch in ".!?"):
            j = i + 1
            while j < n and text[j] in _MATERIAL_CLOSERS:
                j += 1
            if ch in _MATERIAL_END and (ch not in "!?" or (i and is_cjk(text[i - 1]))):
                out.append(text[start:j])
                start, i = j, j
                continue
            if ch in ".!?" and _english_end(text, i, j, is_cjk):
                out.append(text[start:j])
                start, i = j, j
                continue
        i += 1
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


# --- a line of a note -----------------------------------------------------------------------


def split_note_line(text: str) -> list[str]:
    """Sentences of one line of a note's prose; code spans and links are never cut."""
    out: list[str] = []
    start, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "`":
            j = text.find("`", i + 1)
            i = j + 1 if j > 0 else i + 1
            continue
        if text.startswith("[[", i):
            j = text.find("]]", i + 2)
            i = j + 2 if j > 0 else i + 2
            continue
        if ch in _CJK_END or ch in ".!?":
            j = i + 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            if ch in _CJK_END or _english_end(text, i, j, is_cjk_or_kana):
                out.append(text[start:j])
                start = i = j
                continue
        i += 1
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]
