"""Where a note's YAML frontmatter block is, shared by the note and link parsers.

One definition keeps the two in agreement: a link inside frontmatter is not a link,
and the note parser must cut the text at exactly the same place.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FrontmatterSpan", "find_frontmatter"]

BOM = "\ufeff"


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
