"""The values a note's statements give: what a merge must keep (docs/spec.md §7.7.5).

`statement_values(body)` reads, line by line, the values a reader would miss if a merge
dropped them, as written in the body:

* **commands** — a code span's text whole, and each line of a fenced code block;
* **addresses** — `http(s)://…` URLs;
* **identifiers** — words joined by `-`, `_`, `/` or `.` (`payments-api`,
  `junlo_audit_app_b`, `orders.settled.v1`, `2026-10-05`, `v2.14.0`);
* **numbers** — every number, a decimal or a clock time whole (`0.1`, `10:30`);
* **names** — a capitalised word inside a sentence, stopwords aside (`Mei`, `Tomás`;
  the first word of a sentence may be a verb), and every Latin word of a line in Chinese
  (a CJK share of at least `CJK_LINE`, 0.3: 用 helm);
* **dates** — weekdays and months by name, English and Chinese (`Friday`, `周五`).

Left out: the frontmatter (a body is given), headings (they label, they state nothing),
links (`[[…]]`: the link checks keep them), the `pred::` marker of a predicate line and
`derived_from::` lines (provenance), and list, quote and callout markers (a step's
number is its place, not a value). The check `keeps_values` (vault/checks.py) compares
them with the merged body by its own key (case, punctuation and spacing folded).
"""

from __future__ import annotations

import re

from .cjk import cjk_share
from .words import STOPWORDS

__all__ = ["statement_values"]

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_PROVENANCE = re.compile(r"^\s*(?:[-*+][ \t]+)?derived_from::")
_PREDICATE = re.compile(r"(?<![\w])[A-Za-z][A-Za-z0-9_]*::")
_MARKERS = re.compile(r"^\s*(?:>\s?)*(?:\[![A-Za-z-]+\][+-]?\s*)?"
                      r"(?:(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?")
_WIKILINK = re.compile(r"!?\[\[[^\[\]\n]*\]\]")
_MDLINK_URL = re.compile(r"\]\(([^)\s]+)\)")
_URL = re.compile(r"\b(?:https?|obsidian)://[^\s<>\]\)`|]+")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_IDENT = re.compile(r"\b[A-Za-z0-9]+(?:(?:[-_/]|\.(?=[A-Za-z0-9]))[A-Za-z0-9]+)+\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?![\w])")
# whole words only (a value is matched as whole words: `Tomás`, never its `Tom`)
_L = "A-Za-z\u00c0-\u024f"  # Latin letters, accented ones too
_PROPER = re.compile(rf"(?<=[\w,;:)] )[A-Z\u00c0-\u00de][a-z\u00df-\u024f]+(?![{_L}0-9])")
_LATIN = re.compile(rf"(?<![{_L}0-9])[{_L}][{_L}0-9]+")
_DATE_WORDS = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|"
    r"april|june|july|august|september|october|november|december)\b", re.I)
_CJK_DAYS = re.compile(r"(?:周|星期|礼拜)[一二三四五六日天]")
_TRAILING = ".,;:!?。，；：、)"


CJK_LINE = 0.3  # a line with this share of CJK letters is Chinese (as a statement is, §7.9)


def _mostly_cjk(line: str) -> bool:
    return cjk_share(line) >= CJK_LINE


def _line_values(line: str) -> list[str]:
    found: list[str] = []
    line = _WIKILINK.sub(" ; ", line)
    line = _MDLINK_URL.sub(lambda m: "] " + m.group(1) + " ", line)
    for span in _CODE_SPAN.findall(line):
        if any(ch.isalnum() for ch in span):
            found.append(span.strip())
    line = _CODE_SPAN.sub(" ; ", line)
    for url in _URL.findall(line):
        found.append(url.rstrip(_TRAILING))
    line = _URL.sub(" ; ", line)
    line = _PREDICATE.sub(" ", line)
    found += _IDENT.findall(line)
    line = _IDENT.sub(" ; ", line)  # its numbers and words are the identifier's
    found += _NUMBER.findall(line)
    found += [w for w in _PROPER.findall(line) if w.lower() not in STOPWORDS]
    found += _DATE_WORDS.findall(line)
    found += _CJK_DAYS.findall(line)
    if _mostly_cjk(line):
        found += _LATIN.findall(line)
    return found


def statement_values(body: str) -> tuple[str, ...]:
    """The values the statements of `body` give, as written, each once, in order."""
    out: list[str] = []
    fence: str | None = None
    for raw in body.split("\n"):
        line = raw.rstrip("\r")
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            elif line.strip():
                out.append(line.strip())
            continue
        if opened:
            fence = opened.group(1)
            continue
        if not line.strip() or _HEADING.match(line) or _PROVENANCE.match(line):
            continue
        out += _line_values(_MARKERS.sub("", line, count=1))
    seen: set[str] = set()
    kept = []
    for value in out:
        key = value.casefold()
        if key not in seen and any(ch.isalnum() for ch in value):
            seen.add(key)
            kept.append(value)
    return tuple(kept)
