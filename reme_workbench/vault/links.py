"""Wikilinks: parse, format and retarget `[[...]]` links in note text (docs/spec.md §2.1).

Pure: no I/O. Offsets always refer to the full text passed in, frontmatter included.

Grammar decisions where other link parsers differ (docs/spec.md §2.1):
- Links win over code spans: backticks *inside* a `[[...]]` never open or close a code
  span. That keeps retargeting stable (a new target containing a backtick cannot hide
  other links) at the cost of CommonMark's rule that code spans bind tighter.
- An alias may not contain `[` or `]` (Foam allows `[[t|a [b] c]]`; we do not), so
  `[p:: [[a|x]]]` always ends where it should.
- Inline fields are `[pred:: ...]` and Dataview's `(pred:: ...)`; the field ends at its
  matching bracket on the same line, with links skipped as atoms.
- `[[]]`, `[[ ]]`, `[[|a]]` and `[[#]]` are not links; an empty alias or anchor is None.
- A code span never crosses a blank line, a list item start or a heading.
- Comments hide links (docs/spec.md §2.1.6). `%%` opens an Obsidian comment anywhere
  outside code; the next `%%` closes it, across lines and blank lines, and without one
  it runs to the end of the note (Obsidian hides the rest). `<!--` opens an HTML
  comment: at a line start (up to 3 spaces) it runs to the next `-->` or the end of the
  note (CommonMark's HTML block), elsewhere only a `-->` before the next blank line
  closes it (else it is text). Whichever of code and comment starts first wins, and
  links are atoms for comments too: `%%`, `<!--`, `-->` inside `[[...]]` mark nothing.
- format_link also refuses targets with surrounding whitespace (they would parse back
  trimmed) and a trailing backslash (it would escape the alias pipe).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ..errors import UnsafePathError
from .frontmatter import find_frontmatter
from .layout import SOURCE_LAYERS, normalize_rel

__all__ = [
    "GRAMMAR_VERSION",
    "Link",
    "PREDICATE_PATTERN",
    "parse_links",
    "format_link",
    "format_predicate_link",
    "retarget_text",
    "replace_link",
    "outbound_keys",
    "PROVENANCE_PREDICATE",
    "is_provenance",
]

# Bumped whenever the same text parses to other links (2: comments hide links), so a
# cache of parsed links (the scan's) is rebuilt instead of serving the old reading.
GRAMMAR_VERSION = 2

# ASCII only, on purpose: ReMe writes `[负责:: [[x.md]]]`, which under this grammar is a
# plain link (predicate None). Edge keys must stay valid Dataview/YAML identifiers.
PREDICATE_PATTERN = r"[A-Za-z][A-Za-z0-9_]*"
_PREDICATE_RE = re.compile(PREDICATE_PATTERN)

# docs/spec.md §2.3: provenance is the typed predicate derived_from:: into daily/ or resource/.
PROVENANCE_PREDICATE = "derived_from"

# A candidate: `[[`, no brackets or newline inside, `]]` (the `!` is checked by hand:
# an optional first char would cost re its fast literal scan). Brackets are excluded
# from the inner text so `[[[x]]]` and `[p:: [[x]]]` find the right `]]`.
_LINK_RE = re.compile(r"\[\[([^\[\]\n]*)\]\]")
_LINE_PRED_RE = re.compile(
    r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\[[^\]\n]\][ \t]+)?(" + PREDICATE_PATTERN + r")::"
)
_IDENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_FIELD_SCAN_RE = re.compile(r"[\[\]()]")
_TICKS_RE = re.compile(r"``*")  # not "`+": a literal first char keeps re's fast scan
# Fences are accepted at any indent (fences inside list items are common in notes);
# indented code is checked first, so a 4-space "```" after a paragraph stays code.
_LINE_KIND_RE = re.compile(
    r"[ \t]*(?:(?P<item>[-*+]|\d{1,9}[.)])(?:[ \t]|\r?$)|(?P<fence>`{3,}|~{3,})(?P<info>.*)"
    r"|#{1,6}(?:[ \t]|\r?$))"
)
_KIND_FIRST = frozenset("-*+`~#0123456789")
_INDENT_RE = re.compile(r" {0,3}\t| {4}")

# Comment markers; a "<!--" at a line start (up to 3 spaces) is CommonMark's HTML block.
_COMMENT_MARK_RE = re.compile(r"%%|<!--")
_HTML_BLOCK_PREFIX_RE = re.compile(r" {0,3}")
_BLANK_LINE_RE = re.compile(r"\n[ \t]*\r?(?=\n)")
# A comment that opens a fence or backticks hides them, which can change the code found
# after it, which can change the comments: a few rounds settle any real note.
_COMMENT_ROUNDS = 4

_BAD_TARGET_CHARS = frozenset("[]|#\r\n")
_BAD_ALIAS_CHARS = frozenset("[]\r\n")


@dataclass(frozen=True, slots=True)
class Link:
    """One wikilink occurrence. `key` is the edge key `(target, predicate)`."""

    target: str
    alias: str | None
    predicate: str | None
    embed: bool
    anchor: str | None
    line: int
    column: int
    start: int
    end: int
    target_start: int
    target_end: int
    predicate_kind: str | None
    raw: str

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.target, self.predicate)

    def to_json(self) -> dict:
        return {
            "target": self.target,
            "alias": self.alias,
            "predicate": self.predicate,
            "embed": self.embed,
            "anchor": self.anchor,
            "line": self.line,
            "column": self.column,
        }


def _escaped(text: str, pos: int) -> bool:
    """True when the char at `pos` is preceded by an odd run of backslashes."""
    n = 0
    pos -= 1
    while pos >= 0 and text[pos] == "\\":
        n += 1
        pos -= 1
    return n % 2 == 1


def _inside(starts: list[int], spans: list[tuple[int, int]], pos: int) -> int:
    """End of the span (sorted, disjoint) holding `pos`, or -1."""
    i = bisect_right(starts, pos) - 1
    if i >= 0 and spans[i][1] > pos:
        return spans[i][1]
    return -1


def _blocks(text: str, body_start: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Fenced and indented code ranges, plus positions no code span may cross.

    One pass over the lines; boundaries are blank lines, code blocks, list items and
    headings (a code span never runs from one block into the next).
    """
    ranges: list[tuple[int, int]] = []
    bounds: list[int] = []
    fence_char, fence_len, fence_start = "", 0, 0
    code_start, code_end = -1, 0
    prev_blank, prev_list = True, False  # start of body counts as after a blank line
    pos = body_start
    for line in text[body_start:].split("\n"):
        end = pos + len(line)
        nxt = end + 1
        if fence_char:
            s = line.strip()
            if len(s) >= fence_len and s == fence_char * len(s):
                ranges.append((fence_start, end))
                bounds.append(nxt)
                fence_char = ""
            pos = nxt
            continue
        stripped = line.lstrip()
        blank = not stripped
        if code_start >= 0:
            if blank or _INDENT_RE.match(line):
                if not blank:
                    code_end = end
                prev_blank = blank
                pos = nxt
                continue
            ranges.append((code_start, code_end))
            bounds.append(code_end)
            code_start = -1
        if blank:
            bounds.append(pos)
            prev_blank = True
            pos = nxt
            continue
        # Indented code needs a blank line (or body start) before it and must not be a
        # list item's indented paragraph.
        if prev_blank and not prev_list and _INDENT_RE.match(line):
            code_start, code_end = pos, end
            bounds.append(pos)
            prev_blank = False
            pos = nxt
            continue
        is_item = False
        k = _LINE_KIND_RE.match(line) if stripped[0] in _KIND_FIRST else None
        if k is not None:
            fence = k.group("fence")
            if k.group("item"):
                is_item = True
                bounds.append(pos)
            elif fence is None:  # heading: a one-line block
                bounds.append(pos)
                bounds.append(nxt)
            elif not (fence[0] == "`" and "`" in k.group("info")):
                fence_char, fence_len, fence_start = fence[0], len(fence), pos
                bounds.append(pos)
        # A list continues through lazy lines and through indented lines after a blank.
        prev_list = is_item or (prev_list and (not prev_blank or line[0] in " \t"))
        prev_blank = False
        pos = nxt
    if fence_char:  # an unclosed fence runs to the end of the text
        ranges.append((fence_start, len(text)))
    if code_start >= 0:
        ranges.append((code_start, code_end))
    bounds.sort()
    return ranges, bounds


def _code_spans(
    text: str,
    body_start: int,
    ranges: list[tuple[int, int]],
    bounds: list[int],
    cand_starts: list[int],
    cands: list[tuple[int, int]],
) -> list[tuple[int, int]]:
    """CommonMark code spans: a backtick run closed by the next run of equal length."""
    r_starts = [r[0] for r in ranges]
    runs: list[tuple[int, int]] = []
    for m in _TICKS_RE.finditer(text, body_start):
        s = m.start()
        if _inside(cand_starts, cands, s) < 0 and _inside(r_starts, ranges, s) < 0:
            runs.append((s, m.end()))
    if len(runs) < 2:
        return []
    seg = [bisect_right(bounds, s) for s, _ in runs]
    by_len: dict[int, list[int]] = {}
    for i, (s, e) in enumerate(runs):
        by_len.setdefault(e - s, []).append(i)
    spans: list[tuple[int, int]] = []
    i, n = 0, len(runs)
    while i < n:
        s, e = runs[i]
        if _escaped(text, s):  # `\`` is a literal backtick; the rest of the run may open
            s += 1
        same = by_len.get(e - s)
        if same:
            k = bisect_right(same, i)
            if k < len(same) and seg[same[k]] == seg[i]:
                j = same[k]
                spans.append((s, runs[j][1]))
                i = j + 1
                continue
        i += 1
    return spans


def _next_outside(text: str, mark: str, pos: int, cand_starts: list[int],
                  cands: list[tuple[int, int]]) -> int:
    """Index of the next `mark` at or after `pos` that is not inside a link, or -1."""
    while True:
        found = text.find(mark, pos)
        if found < 0:
            return -1
        end = _inside(cand_starts, cands, found)
        if end < 0:
            return found
        pos = end


def _comments(
    text: str,
    body_start: int,
    code: list[tuple[int, int]],
    cand_starts: list[int],
    cands: list[tuple[int, int]],
) -> list[tuple[int, int]]:
    """Obsidian `%% %%` and HTML `<!-- -->` comments outside `code` (see the module doc).

    Linear: each kind of closer is searched for once per closer found, and the blank
    lines that end an inline HTML comment are listed once.
    """
    code_starts = [c[0] for c in code]
    found: list[tuple[int, int]] = []
    html_close = -2  # the next "-->" after the last HTML opener (-1: none left)
    blanks: list[int] | None = None
    line_start = seen = text.rfind("\n", 0, body_start) + 1
    pos = body_start
    while True:
        m = _COMMENT_MARK_RE.search(text, pos)
        if m is None:
            return found
        s = m.start()
        skip = max(_inside(cand_starts, cands, s), _inside(code_starts, code, s))
        if skip >= 0:
            pos = skip
            continue
        if m.group() == "%%":
            close = _next_outside(text, "%%", s + 2, cand_starts, cands)
            end = len(text) if close < 0 else close + 2
        else:
            if _escaped(text, s):
                pos = s + 1
                continue
            if html_close != -1 and html_close < s + 2:
                # "<!-->" and "<!--->" close themselves, hence the search from s + 2
                html_close = _next_outside(text, "-->", s + 2, cand_starts, cands)
            nl = text.rfind("\n", seen, s)  # never rescan a long line from its start
            line_start = nl + 1 if nl >= 0 else line_start
            seen = s
            if _HTML_BLOCK_PREFIX_RE.fullmatch(text, line_start, s):
                end = len(text) if html_close < 0 else html_close + 3
            else:
                if html_close >= 0 and blanks is None:
                    blanks = [b.start() for b in _BLANK_LINE_RE.finditer(text, body_start)]
                if html_close < 0 or (blanks and bisect_right(blanks, html_close)
                                      > bisect_right(blanks, s)):
                    pos = s + 4  # no "-->" before the paragraph ends: text
                    continue
                end = html_close + 3
        found.append((s, end))
        pos = end


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span's characters but line breaks replaced by an inert `x`, so
    a fence or backtick inside a comment is no code while lines and offsets stay put."""
    parts: list[str] = []
    last = 0
    for s, e in spans:
        parts += [text[last:s], re.sub(r"[^\r\n]", "x", text[s:e])]
        last = e
    parts.append(text[last:])
    return "".join(parts)


def _may_hold_code(body: str) -> bool:
    # cheap superset test: no backtick, tab, 4 spaces or ~~~ means no code at all
    return "`" in body or "~~~" in body or "    " in body or "\t" in body


def _code(
    text: str, body_start: int, cand_starts: list[int], cands: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Fenced and indented code blocks and inline code spans, sorted."""
    body = text[body_start:] if body_start else text
    if not _may_hold_code(body):
        return []
    ranges, bounds = _blocks(text, body_start)
    spans = (
        _code_spans(text, body_start, ranges, bounds, cand_starts, cands)
        if "`" in body
        else []
    )
    return sorted(ranges + spans)


def _hidden(
    text: str, body_start: int, cand_starts: list[int], cands: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The sorted, disjoint spans of the body where no link is read: code and comments.

    Code is found first; comments outside it next; then code again with the comments
    masked (a fence or backtick inside a comment opens nothing), until nothing moves.
    """
    code = _code(text, body_start, cand_starts, cands)
    if "%%" not in text and "<!--" not in text:
        return code
    comments = _comments(text, body_start, code, cand_starts, cands)
    if not code and not _may_hold_code(text[body_start:]):
        return comments  # masking cannot make code where no code can be
    for _ in range(_COMMENT_ROUNDS):
        if not comments:
            break
        code = _code(_masked(text, comments), body_start, cand_starts, cands)
        again = _comments(text, body_start, code, cand_starts, cands)
        if again == comments:
            break
        comments = again
    merged: list[tuple[int, int]] = []
    for s, e in sorted(code + comments):
        if merged and s < merged[-1][1]:  # never after the rounds settle; kept disjoint
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _bracket_pairs(text: str, start: int, end: int, cand_ends: dict[int, int]) -> dict[int, int]:
    """Opening -> closing index of every matched `[ ]` and `( )` in text[start:end].

    One pass with two stacks (linear even for `[p:: ` repeated along a line); a link is
    one atom, so brackets or parens in its target never close a field.
    """
    pairs: dict[int, int] = {}
    square: list[int] = []
    paren: list[int] = []
    skip_until = -1
    for m in _FIELD_SCAN_RE.finditer(text, start, end):
        p = m.start()
        if p < skip_until:
            continue
        e = cand_ends.get(p)
        if e is not None:
            skip_until = e
            continue
        c = text[p]
        if c == "[":
            square.append(p)
        elif c == "(":
            paren.append(p)
        elif c == "]":
            if square:
                pairs[square.pop()] = p
        elif paren:
            pairs[paren.pop()] = p
    return pairs


def parse_links(text: str) -> list[Link]:
    """Every wikilink in `text` (whole file, frontmatter included), in document order."""
    if "[[" not in text:
        return []
    fm = find_frontmatter(text)
    body_start = fm.end if fm is not None else 0

    # 1. candidates; an escaped `\[[` is text, an escaped `\!` only loses the embed mark
    found: list[tuple[int, bool, re.Match[str]]] = []
    for m in _LINK_RE.finditer(text, body_start):
        s = m.start()
        if s > body_start and text[s - 1] == "!":
            embed = not _escaped(text, s - 1)
            if embed:
                s -= 1
        elif _escaped(text, s):
            continue
        else:
            embed = False
        found.append((s, embed, m))
    if not found:
        return []
    cands = [(s, m.end()) for s, _, m in found]
    cand_starts = [c[0] for c in cands]

    # 2. code (fenced / indented blocks, inline spans) and comments: no links there
    excluded = _hidden(text, body_start, cand_starts, cands)
    ex_starts = [e[0] for e in excluded]
    body = text[body_start:] if body_start else text

    # 3. predicates: whole-line `pred::` and inline `[pred:: ...]` fields
    line_preds: dict[int, str] = {}
    fields: list[tuple[int, int, str]] = []
    p = body.find("::")
    if p >= 0:
        p += body_start
        cand_ends = {m.start(): m.end() for _, _, m in found}
        pairs: dict[int, int] | None = None
        line_end = -1
        while p >= 0:
            if p > line_end:  # first `::` on a new line
                ls = text.rfind("\n", 0, p) + 1
                line_end = text.find("\n", p)
                if line_end < 0:
                    line_end = len(text)
                lm = _LINE_PRED_RE.match(text, ls)
                if lm is not None:
                    line_preds[ls] = lm.group(1)
                pairs = None
            # inline field: `[` or `(` right before an identifier right before `::`
            j = p
            while j > ls and text[j - 1] in _IDENT_CHARS:
                j -= 1
            o = j - 1
            if (
                j < p
                and o >= ls
                and text[o] in "[("
                and _PREDICATE_RE.fullmatch(text, j, p)
                and not _escaped(text, o)
                and not (excluded and _inside(ex_starts, excluded, o) >= 0)
            ):
                if pairs is None:  # match brackets once per line, not once per field
                    pairs = _bracket_pairs(text, ls, line_end, cand_ends)
                close = pairs.get(o)
                if close is not None:
                    fields.append((o, close + 1, text[j:p]))
            p = text.find("::", p + 2)

    # 4. build the links
    links: list[Link] = []
    line_no, counted, line_start = 1, 0, 0
    stack: list[tuple[int, int, str]] = []  # fields open at the current link, innermost last
    fi = 0
    for s, embed, m in found:
        if excluded and _inside(ex_starts, excluded, s) >= 0:
            continue
        inner = m.group(1)
        istart = m.start(1)
        bar = inner.find("|")
        if bar >= 0:
            head, alias = inner[:bar], inner[bar + 1 :].strip() or None
            if head.endswith("\\"):  # `[[t\|a]]` in a table cell: the `\` escapes the pipe
                head = head[:-1]
        else:
            head, alias = inner, None
        hsh = head.find("#")
        if hsh >= 0:
            tpart, anchor = head[:hsh], head[hsh + 1 :].strip() or None
        else:
            tpart, anchor = head, None
        target = tpart.strip()
        if not target and anchor is None:
            continue  # `[[]]`, `[[ ]]`, `[[|x]]`, `[[#]]` point nowhere
        t_start = istart + len(tpart) - len(tpart.lstrip())
        e = m.end()
        # incremental line/column: never rescan from the start of a long line
        nl = text.count("\n", counted, s)
        if nl:
            line_no += nl
            line_start = text.rfind("\n", counted, s) + 1
        counted = s
        # Fields never straddle a link (links are atoms), so an open field holds it.
        while fi < len(fields) and fields[fi][0] < s:
            stack.append(fields[fi])
            fi += 1
        while stack and stack[-1][1] <= s:
            stack.pop()
        if stack:
            predicate, kind = stack[-1][2], "inline"
        elif line_start in line_preds:
            predicate, kind = line_preds[line_start], "line"
        else:
            predicate = kind = None
        links.append(
            Link(
                target=target,
                alias=alias,
                predicate=predicate,
                embed=embed,
                anchor=anchor,
                line=line_no,
                column=s - line_start + 1,
                start=s,
                end=e,
                target_start=t_start,
                target_end=t_start + len(target),
                predicate_kind=kind,
                raw=text[s:e],
            )
        )
    return links


def _check_target(target: str) -> None:
    if not isinstance(target, str) or not target:
        raise ValueError("A link target must be a non-empty path such as digest/wiki/x.md.")
    bad = _BAD_TARGET_CHARS.intersection(target)
    if bad:
        raise ValueError(
            f"Link target {target!r} contains {''.join(sorted(bad))!r}; a target may not "
            "hold [ ] | # or a line break. Rename the note first."
        )
    if target != target.strip():
        raise ValueError(f"Link target {target!r} has surrounding whitespace; strip it.")
    if target.endswith("\\"):
        # `[[t\|a]]` would read the backslash as escaping the pipe
        raise ValueError(f"Link target {target!r} ends in a backslash; remove it.")


def _check_alias(alias: str) -> None:
    if not isinstance(alias, str) or not alias or alias != alias.strip():
        raise ValueError(
            f"Alias {alias!r} must be non-empty text without surrounding whitespace; "
            "pass alias=None for no alias."
        )
    if _BAD_ALIAS_CHARS.intersection(alias):
        raise ValueError(f"Alias {alias!r} may not contain [ ] or a line break; remove them.")


def format_link(target: str, *, alias: str | None = None, embed: bool = False) -> str:
    """The canonical `[[t]]`, `[[t|a]]` or `![[t]]`; never emits an anchor."""
    _check_target(target)
    if alias is not None:
        _check_alias(alias)
        inner = f"{target}|{alias}"
    else:
        inner = target
    return f"{'!' if embed else ''}[[{inner}]]"


def format_predicate_link(
    predicate: str, target: str, *, alias: str | None = None, inline: bool = False
) -> str:
    """`pred:: [[t]]` (a whole line's predicate) or the inline `[pred:: [[t]]]`."""
    if not isinstance(predicate, str) or not _PREDICATE_RE.fullmatch(predicate):
        raise ValueError(
            f"Predicate {predicate!r} is not an identifier; use letters, digits and _ "
            "starting with a letter (for example related_to)."
        )
    link = format_link(target, alias=alias)
    return f"[{predicate}:: {link}]" if inline else f"{predicate}:: {link}"


def retarget_text(text: str, old: str, new: str) -> tuple[str, int]:
    """Point every link whose target is exactly `old` at `new`; return (text, count).

    Only the target span changes, so alias, anchor, embed mark, predicate and spacing
    survive. Short or extension-less forms of `old` are not matched (docs/spec.md §2.1).
    `old == new` changes nothing and counts 0.
    """
    _check_target(new)
    if not old:
        raise ValueError("retarget_text needs the old target path; got an empty string.")
    if old == new or old not in text:
        return text, 0
    parts: list[str] = []
    last = count = 0
    for link in parse_links(text):
        if link.target == old:
            parts.append(text[last : link.target_start])
            parts.append(new)
            last = link.target_end
            count += 1
    if not count:
        return text, 0
    parts.append(text[last:])
    return "".join(parts), count


def replace_link(text: str, link: Link, replacement: str) -> str:
    """Replace the whole link `text[link.start:link.end]` with `replacement`."""
    if text[link.start : link.end] != link.raw:
        raise ValueError(
            f"The text at {link.start}:{link.end} no longer holds {link.raw!r}; "
            "re-parse the links from the current text."
        )
    return text[: link.start] + replacement + text[link.end :]


def outbound_keys(text: str) -> set[tuple[str, str | None]]:
    """Edge keys `(target, predicate)` of the note's knowledge links (embeds excluded)."""
    return {lk.key for lk in parse_links(text) if not lk.embed and lk.target}


def is_provenance(link: Link, material: str | None = None) -> bool:
    """A `derived_from::` link into daily/ or resource/ (into `material`, when given)."""
    if link.predicate != PROVENANCE_PREDICATE:
        return False
    try:
        target = normalize_rel(link.target)
    except UnsafePathError:
        return False
    if material is not None:
        return target == material
    return target.split("/", 1)[0] in SOURCE_LAYERS
