"""Text without its inline Markdown: what a reader sees of a line.

* `plain(text)` — material as dream reads it: a wikilink as its alias, else its target as
  written, else the heading of `[[#Heading]]`; a Markdown link as its text; emphasis and
  code ticks removed.
* `reader_text(text)` — a note as consolidate reads it: a wikilink as its alias, else the
  target's file name without `.md` (notes link by vault path, `[[digest/wiki/pool-modes.md]]`,
  and a reader sees "pool-modes"); an embed's `!` stays out of a Markdown link;
  strikethrough marks removed too. A variant, not `plain`, because the judges compare
  notes by these words and their anchors were set on them.
* `WIKILINK` and `link_name(match)` — the wikilink as `reader_text` reads it and the text
  a reader sees of one.
* `FENCE` and `LINE_MARKERS` — a code fence's opening line, and what opens a line before
  its words (quote marks, a callout, a list or task marker), as the merge's statement
  and anchor readers cut a note into lines.
"""

from __future__ import annotations

import re

__all__ = ["plain", "reader_text", "WIKILINK", "link_name", "FENCE", "LINE_MARKERS"]

_SPACE = re.compile(r"\s+")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
LINE_MARKERS = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:\[![A-Za-z-]+\][+-]?[ \t]*)?"
                          r"(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?")

# --- material -------------------------------------------------------------------------------

_MATERIAL_MARKUP = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`")
_MATERIAL_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#\^?([^\]|]*))?(?:\|([^\]]*))?\]\]")
_MATERIAL_MDLINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")


def plain(text: str) -> str:
    """`text` without inline Markdown: emphasis, code ticks, link brackets."""
    # what a reader sees: the alias, else the target, else the heading of `[[#Heading]]`
    text = _MATERIAL_WIKILINK.sub(
        lambda m: (m.group(3) or m.group(1) or m.group(2) or "").strip(), text)
    text = _MATERIAL_MDLINK.sub(r"\1", text)
    return _SPACE.sub(" ", _MATERIAL_MARKUP.sub("", text)).strip()


# --- notes ----------------------------------------------------------------------------------

WIKILINK = re.compile(r"!?\[\[([^\[\]|#\n]*)(?:#([^\[\]|\n]*))?(?:\|([^\[\]\n]*))?\]\]")
_MDLINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\([^)\n]*\)")
_MARKUP = re.compile(r"\*\*|__|~~|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`")


def link_name(m: re.Match[str]) -> str:
    """What a reader sees of a `WIKILINK` match: the alias, else the target's file name
    without `.md`, else the anchor."""
    target, anchor, alias = m.group(1), m.group(2), m.group(3)
    if alias and alias.strip():
        return alias.strip()
    name = (target or "").strip().rsplit("/", 1)[-1]
    if name.lower().endswith(".md"):
        name = name[:-3]
    return (name or (anchor or "")).strip()


def reader_text(text: str) -> str:
    """`text` as a reader sees it: links as their alias or file name, no inline markup."""
    text = WIKILINK.sub(link_name, text)
    text = _MDLINK.sub(r"\1", text)
    return _SPACE.sub(" ", _MARKUP.sub("", text)).strip()
