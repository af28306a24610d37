"""Heading and block links into a merged loser (docs/spec.md §7.7.5): where the loser's
sections and blocks are in the merged body, so `[[loser#Steps]]` and `[[loser#^id]]`
open the loser's text in the winner, not a section of the winner's that shares a name.

* **Block ids** (`carry_block_ids`). A block id ends its line (`text ^id`; on a line of
  its own it names the block above). Each of the loser's ids is carried onto the line
  of the merged body that holds the loser's line (compared without markers, emphasis
  and case): kept as it is when the brain carried it, added when it did not, renamed
  `id-2`, `id-3`… when the winner has that id for another line, and mapped to the
  winner's id when the winner holds the very line under an id of its own. A line the
  merged body does not hold maps to None: the link then names the note.
* **Headings** (`HeadingMap`). A link's `#A#B` is a heading path; Obsidian opens the
  heading B found after A (`[[My note#Heading 1#Heading 2]]`, its help page "Internal
  links"). The loser's heading the path opened is looked for in the merged body among
  the headings of that text, the one whose section holds most of the loser section's
  lines (the later on a tie: the loser's text comes after the winner's). The new anchor
  is the shortest path of that heading's ancestors and itself that opens it both when
  each part is the next heading of that text after the one before and when each must
  lie inside the one before — `Steps` when it is the merged body's only "Steps", else
  e.g. `From payments-api-deploy#Steps`. None (the note itself) when the merged body
  has no such heading, or the loser's lines under it went under none of them.

An anchor the loser itself has no heading or block for stays as written (the link was
broken at the anchor before the merge; it is the person's). Pure functions on text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..textrules.markup import FENCE, LINE_MARKERS

__all__ = ["carry_block_ids", "block_ids", "HeadingMap", "Heading", "headings"]

_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_EMPHASIS = re.compile(r"\*+|~~|==|(?<!\w)_+|_+(?!\w)")
_UNSAFE = set("#|[]^")  # cannot stand in a heading path inside [[...]]


def _code_lines(lines: list[str]) -> set[int]:
    """Indices of lines inside fenced code (fences included): no heading, no block id."""
    inside, fence, out = False, "", set()
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if m and (not inside or (m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence))):
            inside, fence = (not inside), m.group(1)
            out.add(i)
        elif inside:
            out.add(i)
    return out


def _line_key(line: str) -> str:
    """A line compared without its block id, markers, emphasis, case and spacing."""
    line = _BLOCK_ID.sub("", line)
    line = _EMPHASIS.sub("", LINE_MARKERS.sub("", line, count=1))
    return " ".join(line.casefold().split())


# -- block ids ---------------------------------------------------------------------------------


def block_ids(body: str) -> dict[str, tuple[int, bool]]:
    """id -> (the index of the line it names, whether the id stands on a line of its own
    after that block, as Obsidian writes it after a table or a quote)."""
    lines = body.split("\n")
    code = _code_lines(lines)
    found: dict[str, tuple[int, bool]] = {}
    for i, line in enumerate(lines):
        m = None if i in code else _BLOCK_ID.search(line)
        if m is None:
            continue
        if line[: m.start()].strip():
            found.setdefault(m.group(1), (i, False))
            continue
        above = next((j for j in range(i - 1, -1, -1) if lines[j].strip()), None)
        if above is not None:
            found.setdefault(m.group(1), (above, True))
    return found


def _fresh(base: str, taken: set[str]) -> str:
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _id_after(lines: list[str], i: int, alone: bool) -> tuple[str | None, int | None]:
    """The block id line `i` carries (at its end, or alone on the next non-blank line)
    and the index of the line holding it."""
    if not alone:
        m = _BLOCK_ID.search(lines[i])
        return (m.group(1), i) if m and lines[i][: m.start()].strip() else (None, None)
    j = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), None)
    m = _BLOCK_ID.fullmatch(lines[j].strip()) if j is not None else None
    return (m.group(1), j) if m else (None, None)


def carry_block_ids(merged: str, winner_body: str, loser_body: str
                    ) -> tuple[str, dict[str, str | None]]:
    """The merged body with each of the loser's block ids on the line holding its text,
    and {loser id: its id in the merged body, or None when no line holds that text}
    (see the module doc)."""
    lines = merged.split("\n")
    code = _code_lines(lines)
    loser_lines = loser_body.split("\n")
    taken = {*block_ids(winner_body), *block_ids(loser_body), *block_ids(merged)}
    mapping: dict[str, str | None] = {}
    inserts: dict[int, str] = {}  # line index -> an id line to add after it
    for bid, (at, alone) in block_ids(loser_body).items():
        key = _line_key(loser_lines[at])
        holders = [i for i, line in enumerate(lines)
                   if key and i not in code and _line_key(line) == key]
        ids = {i: _id_after(lines, i, alone) for i in holders}
        pick = next((i for i in reversed(holders) if ids[i][0] == bid), None)
        if pick is None:
            pick = next((i for i in reversed(holders) if ids[i][0] is None), None)
        if pick is None:  # the text is there under an id of its own, or not at all
            mapping[bid] = ids[holders[-1]][0] if holders else None
            continue
        here = ids[pick][1]
        elsewhere = any(_BLOCK_ID.search(line) and _BLOCK_ID.search(line).group(1) == bid
                        for j, line in enumerate(lines) if j != here and j not in code)
        new = _fresh(bid, taken) if elsewhere else bid
        taken.add(new)
        mapping[bid] = new
        if here is not None and new != bid:  # the brain carried it: rename it in place
            lines[here] = _BLOCK_ID.sub(f" ^{new}", lines[here]).lstrip(" ") \
                if alone else _BLOCK_ID.sub("", lines[here]).rstrip() + f" ^{new}"
        elif here is None and alone:
            inserts[pick] = f"^{new}"
        elif here is None:
            lines[pick] = lines[pick].rstrip() + f" ^{new}"
    for i in sorted(inserts, reverse=True):
        lines.insert(i + 1, inserts[i])
    return "\n".join(lines), mapping


# -- headings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # index in the body's lines
    end: int  # index of the first line after its section


def headings(body: str) -> list[Heading]:
    """The ATX headings outside code, each with where its section ends (the next heading
    of its level or above)."""
    lines = body.split("\n")
    code = _code_lines(lines)
    raw = [(len(m.group(1)), m.group(2).strip(), i) for i, line in enumerate(lines)
           if i not in code and (m := _HEADING.match(line))]
    out = []
    for k, (level, text, i) in enumerate(raw):
        end = next((j for lv, _, j in raw[k + 1:] if lv <= level), len(lines))
        out.append(Heading(level, text, i, end))
    return out


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def _after_each(heads: list[Heading], parts: list[str]) -> int | None:
    """Each part is the next heading of that text after the one before."""
    at = -1
    for part in parts:
        at = next((i for i in range(at + 1, len(heads)) if _same(heads[i].text, part)), None)
        if at is None:
            return None
    return at


def _inside_each(heads: list[Heading], parts: list[str]) -> int | None:
    """Each part is the first heading of that text inside the section of the one before."""
    at, limit = -1, None
    for part in parts:
        at = next((i for i in range(at + 1, len(heads))
                   if (limit is None or heads[i].line < limit) and _same(heads[i].text, part)),
                  None)
        if at is None:
            return None
        limit = heads[at].end
    return at


def _section_keys(body_lines: list[str], head: Heading) -> set[str]:
    return {k for line in body_lines[head.line + 1: head.end]
            if not _HEADING.match(line) and (k := _line_key(line))}


class HeadingMap:
    """Where the loser's headings are in the merged body (see the module doc)."""

    def __init__(self, merged: str, loser_body: str, block_map: dict[str, str | None]) -> None:
        self._merged_lines, self._loser_lines = merged.split("\n"), loser_body.split("\n")
        self._merged, self._loser = headings(merged), headings(loser_body)
        self._blocks = dict(block_map)

    def anchors(self, written: Iterable[str | None]) -> dict[str, str | None]:
        """{anchor as written: its anchor in the merged body (None: the note itself)} for
        each anchor that changes; an anchor that stays is left out."""
        out: dict[str, str | None] = {}
        for anchor in written:
            if not anchor or anchor in out:
                continue
            new = self.anchor(anchor)
            if new != anchor:
                out[anchor] = new
        return out

    def anchor(self, anchor: str) -> str | None:
        if anchor.startswith("^"):
            bid = anchor[1:].strip()
            if bid not in self._blocks:
                return anchor  # the loser has no such block: the link is as it was
            new = self._blocks[bid]
            return None if new is None else f"^{new}"
        parts = [p.strip() for p in anchor.split("#") if p.strip()]
        found = _after_each(self._loser, parts)
        if found is None:
            return anchor  # no such heading in the loser: the person's link as it was
        target = self._where(self._loser[found])
        return None if target is None else self._path(target)

    def _where(self, head: Heading) -> int | None:
        """The merged heading that holds the loser's `head` section (module doc)."""
        lines = _section_keys(self._loser_lines, head)
        best, score = None, -1
        for i, cand in enumerate(self._merged):
            if not _same(cand.text, head.text):
                continue
            found = len(lines & _section_keys(self._merged_lines, cand))
            if found >= score:
                best, score = i, found
        if best is None or (lines and score == 0):
            return None
        return best

    def _path(self, at: int) -> str | None:
        chain = [at]
        for i in range(at - 1, -1, -1):  # the enclosing headings, nearest first
            if self._merged[i].level < self._merged[chain[-1]].level and \
                    self._merged[i].end >= self._merged[at].end:
                chain.append(i)
        for n in range(1, len(chain) + 1):
            parts = [self._merged[i].text for i in reversed(chain[:n])]
            if any(ch in _UNSAFE for p in parts for ch in p):
                return None
            if _after_each(self._merged, parts) == at == _inside_each(self._merged, parts):
                return "#".join(parts)
        return None
