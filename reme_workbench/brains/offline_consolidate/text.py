"""The offline consolidate brain's text: blocks, statements, their keys and values, sections.

Nothing here reads the vault or a model. A body is cut into Markdown *blocks* (heading,
paragraph, list item, callout, quote, fenced code, table, label, predicate line), each
block into *statements* — the units merge carries over and the overlap judge counts:

* a sentence of a paragraph, list item, callout or quote (a line break also ends one);
* a fenced code block, whole; a table row;
* never a heading, a bold label (`**Related:**`), a `derived_from::` line or a line of
  links only — those are structure, handled as links.

Statements are compared by a *key* (`normalize`): links reduced to what a reader sees
(the alias, else the target's file name without `.md`, `-`/`_` as spaces), Markdown
markup and punctuation removed, NFKC + case folded, whitespace collapsed and dropped
next to CJK characters — so `[[digest/wiki/pool-modes.md|Pool modes]] are **three**.`
and `pool modes are three` are one statement. Fuzzy comparison uses *match tokens*:
Latin words (crudely stemmed, stopwords dropped but negations and every number kept)
plus CJK character bigrams — bigrams, not words, so two phrasings that a segmenter
cuts differently still meet. *Content words* (for naming a common topic) use jieba's
words for Chinese instead, since a name is made of words.

The rules the pipelines and dream's brain read text by too — a line's sentences
(`split_note_line`), the stem, stopwords, content words, CJK characters, `reader_text` —
are in `reme_workbench/textrules/`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ...textrules import (
    CJK_FUNCTION_CHARS,
    COMPARISON_STOPWORDS,
    WIKILINK,
    is_cjk_or_kana,
    language_of,
    link_name,
    reader_text,
    split_note_line,
    stem,
)
from ...vault.links import PROVENANCE_PREDICATE, format_link, parse_links
from ...vault.slug import slugify

__all__ = [
    "one_line",
    "alias_link",
    "slug_or",
    "path_stem",
    "Block",
    "Statement",
    "Section",
    "Outline",
    "blocks",
    "statements",
    "statements_of",
    "render_blocks",
    "normalize",
    "match_tokens",
    "dice",
    "fact_tokens",
    "negations",
    "proper_names",
    "identifiers",
    "rival_identifiers",
    "outline",
    "link_keys",
    "provenance_targets",
    "first_sentence",
    "clip",
]

# --- links and markup -----------------------------------------------------------------------

_MDLINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\([^)\n]*\)")
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """The comparison key of a statement (see the module doc)."""
    text = WIKILINK.sub(lambda m: link_name(m).replace("-", " ").replace("_", " "), text)
    text = _MDLINK.sub(r"\1", text)
    text = unicodedata.normalize("NFKC", text).casefold()
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        out.append(" " if cat[0] in "PSZC" else ch)
    text = _SPACE.sub(" ", "".join(out)).strip()
    # spacing next to CJK carries nothing: "用 uv 管理" == "用uv管理"
    return re.sub(r"(?<=[^\x00-\x7f]) | (?=[^\x00-\x7f])", _cjk_space, text)


def _cjk_space(m: re.Match[str]) -> str:
    s, e = m.start(), m.end()
    src = m.string
    left = src[s - 1] if s > 0 else ""
    right = src[e] if e < len(src) else ""
    return "" if (left and is_cjk_or_kana(left)) or (right and is_cjk_or_kana(right)) else " "


def link_keys(text: str) -> set[tuple[str, str | None]]:
    """Edge keys `(target, predicate)` of the knowledge links in `text` (embeds excluded),
    as vault/links.py outbound_keys reads them."""
    return set(_link_keys(text))


def provenance_targets(text: str) -> set[str]:
    """Targets of the `derived_from::` links into daily/ or resource/ (docs/spec.md §2.3.1)."""
    return set(_provenance_targets(text))


@lru_cache(maxsize=2048)
def _link_keys(text: str) -> frozenset[tuple[str, str | None]]:
    return frozenset(lk.key for lk in parse_links(text) if not lk.embed and lk.target)


@lru_cache(maxsize=2048)
def _provenance_targets(text: str) -> frozenset[str]:
    return frozenset(
        lk.target
        for lk in parse_links(text)
        if lk.predicate == PROVENANCE_PREDICATE and lk.target.split("/", 1)[0] in ("daily", "resource")
    )


# --- tokens ---------------------------------------------------------------------------------

_LATIN_WORD = re.compile(r"[a-z0-9]+")


def _cjk_runs(text: str) -> list[str]:
    runs, run = [], []
    for ch in text + " ":
        if is_cjk_or_kana(ch):
            run.append(ch)
        elif run:
            runs.append("".join(run))
            run = []
    return runs


def match_tokens(text: str) -> frozenset[str]:
    """Tokens two statements are compared by: stemmed Latin words (stopwords dropped,
    negations and numbers kept) and CJK character bigrams (a lone character alone)."""
    key = normalize(text)
    out: set[str] = set()
    for word in _LATIN_WORD.findall(key):
        if word in COMPARISON_STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        out.add(stem(word))
    for run in _cjk_runs(key):
        chars = [c for c in run if c not in CJK_FUNCTION_CHARS]
        if len(chars) == 1:
            out.add(chars[0])
        out.update(chars[k] + chars[k + 1] for k in range(len(chars) - 1))
    return frozenset(out)


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """Dice coefficient 2|a∩b| / (|a|+|b|): 1.0 for equal sets, 0.0 for disjoint ones."""
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


# --- sentences ------------------------------------------------------------------------------


@lru_cache(maxsize=4096)  # a note is read in every pair it is in: parse each body once
def first_sentence(text: str) -> str:
    """The first sentence of the prose of `text` (links and markup as a reader sees them)."""
    for block in blocks(text):
        if block.kind in ("paragraph", "item", "callout", "quote"):
            for st in statements_of(block):
                if st.kind == "text" and st.tokens:
                    return reader_text(st.text)
    return ""


def clip(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters, cut at a word boundary with '…'."""
    text = _SPACE.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:，；：、") + "…"


# --- blocks ---------------------------------------------------------------------------------

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(?:[ \t]+(\[[ xX]\][ \t]+)?|$)")
_TABLE = re.compile(r"^\s*\|")
_TABLE_SEP = re.compile(r"^\s*\|?(\s*:?-{2,}:?\s*\|)+\s*(:?-{2,}:?\s*)?\|?\s*$")
_QUOTE = re.compile(r"^\s{0,3}>")
_CALLOUT = re.compile(r"^\s{0,3}>\s*\[!([A-Za-z-]+)\][+-]?\s*(.*)$")
_PRED = re.compile(r"^\s*(?:[-*+][ \t]+)?([A-Za-z][A-Za-z0-9_]*)::(?:\s|$)")
_LABEL = re.compile(r"^\s{0,3}(?:\*\*|__)[^*_\n]{1,80}?(?:\*\*|__)\s*[:：]?\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")


@dataclass(frozen=True)
class Block:
    """One Markdown block of a body, with its raw lines.

    kind: heading | paragraph | item | callout | quote | code | table | label |
    provenance | predicate | rule. `level` is a heading's level or an item's indent."""

    kind: str
    lines: tuple[str, ...]
    level: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def heading(self) -> str:
        """A heading's text (empty for other blocks)."""
        if self.kind != "heading":
            return ""
        m = _HEADING.match(self.lines[0])
        return m.group(2) if m else ""


@dataclass(frozen=True)
class Statement:
    """One statement of a block: its raw text, comparison key, match tokens and links.
    kind: text | code | row."""

    text: str
    kind: str
    key: str
    tokens: frozenset[str]
    links: frozenset[tuple[str, str | None]]
    facts: frozenset[str] = frozenset()  # tokens a paraphrase may not drop (`fact_tokens`)
    negations: frozenset[str] = frozenset()

    has_content: bool = True  # false for a line of links only: it says nothing but where to go


def blocks(body: str) -> list[Block]:
    """The blocks of `body`, in order; blank lines separate them and are not kept."""
    lines = [line.rstrip("\r") for line in body.split("\n")]  # a CRLF file reads the same
    out: list[Block] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            j = _fence_end(lines, i, fence.group(2))
            if out and out[-1].kind == "item" and len(fence.group(1)) >= 2:
                # a fence indented under a list item belongs to the item (its command)
                prev = out.pop()
                out.append(Block("item", prev.lines + tuple(lines[i:j]), prev.level))
            else:
                out.append(Block("code", tuple(lines[i:j])))
            i = j
            continue
        if _HEADING.match(line):
            out.append(Block("heading", (line,), len(_HEADING.match(line).group(1))))
            i += 1
            continue
        if _QUOTE.match(line):
            j = i + 1
            while j < n and _QUOTE.match(lines[j]):
                j += 1
            kind = "callout" if _CALLOUT.match(line) else "quote"
            out.append(Block(kind, tuple(lines[i:j])))
            i = j
            continue
        if _TABLE.match(line):
            j = i + 1
            while j < n and _TABLE.match(lines[j]):
                j += 1
            out.append(Block("table", tuple(lines[i:j])))
            i = j
            continue
        pred = _PRED.match(line)
        if pred:
            kind = "provenance" if pred.group(1) == PROVENANCE_PREDICATE else "predicate"
            out.append(Block(kind, (line,)))
            i += 1
            continue
        if _RULE.match(line):
            out.append(Block("rule", (line,)))
            i += 1
            continue
        if _LABEL.match(line):
            out.append(Block("label", (line,)))
            i += 1
            continue
        item = _ITEM.match(line)
        if item:
            indent = len(item.group(1).expandtabs(4))
            j = i + 1
            while j < n and _continues_item(lines, j, indent):
                inner = _FENCE.match(lines[j])
                j = _fence_end(lines, j, inner.group(2)) if inner else j + 1  # code is opaque
            end = j
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1
            out.append(Block("item", tuple(lines[i:end]), indent))
            i = j
            continue
        j = i + 1
        while j < n and lines[j].strip() and not _starts_block(lines[j]):
            j += 1
        out.append(Block("paragraph", tuple(lines[i:j])))
        i = j
    return out


def _fence_end(lines: list[str], i: int, mark: str) -> int:
    for j in range(i + 1, len(lines)):
        m = _FENCE.match(lines[j])
        if m and m.group(2)[0] == mark[0] and len(m.group(2)) >= len(mark) and not lines[j].strip()[len(m.group(2)):].strip():
            return j + 1
    return len(lines)  # an unclosed fence runs to the end, as in CommonMark


def _starts_block(line: str) -> bool:
    return bool(
        _FENCE.match(line) or _HEADING.match(line) or _QUOTE.match(line) or _TABLE.match(line)
        or _ITEM.match(line) or _PRED.match(line) or _RULE.match(line) or _LABEL.match(line)
    )


def _continues_item(lines: list[str], j: int, indent: int) -> bool:
    """Whether line j still belongs to the list item opened at `indent`."""
    line = lines[j]
    if not line.strip():
        # a blank line continues the item only when more indented text follows
        k = j + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k >= len(lines):
            return False
        nxt = lines[k].expandtabs(4)
        return len(nxt) - len(nxt.lstrip()) >= indent + 2 and not _ITEM.match(nxt)
    lead = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
    if _ITEM.match(line):
        return False  # a nested item is a block of its own
    if lead >= indent + 2:
        return True
    return not _starts_block(line)  # a lazy continuation line


_ITEM_PREFIX = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_QUOTE_PREFIX = re.compile(r"^\s{0,3}(?:>\s?)+")


def statements_of(block: Block) -> list[Statement]:
    """The statements of one block (none for structure: headings, labels, provenance)."""
    if block.kind in ("heading", "label", "provenance", "rule"):
        return []
    if block.kind == "code":
        return [_statement(block.text, "code")]
    if block.kind == "table":
        rows = [r for r in block.lines if not _TABLE_SEP.match(r)]
        return [_statement(r, "row") for r in rows]
    if block.kind == "predicate":
        return [_statement(block.lines[0], "text")]
    out: list[Statement] = []
    prose: list[str] = []
    lines = list(block.lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:  # a command under a list item
            j = _fence_end(lines, i, fence.group(2))
            out.extend(_sentences(prose))
            prose = []
            out.append(_statement("\n".join(lines[i:j]), "code"))
            i = j
            continue
        if block.kind in ("callout", "quote"):
            m = _CALLOUT.match(line)
            # a callout's title labels its body, like a heading; alone, it is the content
            line = (m.group(2) if len(lines) == 1 else "") if m else _QUOTE_PREFIX.sub("", line)
        elif i == 0 and block.kind == "item":
            line = _ITEM_PREFIX.sub("", line)
        prose.append(line.strip())
        i += 1
    out.extend(_sentences(prose))
    return out


def _sentences(lines: list[str]) -> list[Statement]:
    return [_statement(s, "text") for line in lines if line for s in split_note_line(line)]


def _statement(text: str, kind: str) -> Statement:
    links = frozenset(lk.key for lk in parse_links(text) if not lk.embed and lk.target)
    tokens = match_tokens(text)
    content = bool(tokens) and (not links or bool(normalize(WIKILINK.sub("", text))))
    return Statement(
        text=text, kind=kind, key=normalize(text), tokens=tokens, links=links,
        facts=fact_tokens(text, tokens), negations=negations(text), has_content=content,
    )


_NEGATIONS = frozenset(
    "not no never without none nothing neither nor only cannot don doesn didn isn aren wasn "
    "weren won wouldn shouldn can couldn".split()
)
_CJK_NEGATIONS = frozenset("不没别勿无非未")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def negations(text: str) -> frozenset[str]:
    """The negating (and limiting: "only") words of `text`; Chinese negation characters."""
    key = normalize(text)
    words = {w for w in _LATIN_WORD.findall(key) if w in _NEGATIONS and w != "can"}
    if re.search(r"\bcan t\b|\bcan not\b", key):
        words.add("cannot")
    return frozenset(words | {c for c in key if c in _CJK_NEGATIONS})


_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_CJK_DAYS = re.compile(r"(?:周|星期|礼拜)[一二三四五六日天]")
# a capitalised word after another word: a person, a team, a system ("Felix", "Harbor")
_PROPER = re.compile(r"(?<=[\w,;:)] )[A-Z][a-z]+\b")
# identifiers joined by - _ / or .: payments-api, eu-west, pg-staging-01, junlo_audit_app_b,
# payments/staging/db, payments.refund-webhooks.dlq
_IDENT = re.compile(r"\b[A-Za-z0-9]+(?:(?:[-_/]|\.(?=[A-Za-z0-9]))[A-Za-z0-9]+)+\b")


def fact_tokens(text: str, tokens: frozenset[str] | None = None) -> frozenset[str]:
    """Tokens a paraphrase may not drop or change: numbers, every token of a code span
    (a command, a setting, a name as written), names of people and things (a capitalised
    word inside a sentence; an identifier such as `payments-api`, `junlo_audit_app_b` or
    `payments/staging/db`; in a Chinese statement every Latin word — a tool, a service, a
    person), weekdays, and the negations. Two notes that differ only in these — another
    person's preference, Friday's freeze and Monday's — are distinct."""
    tokens = match_tokens(text) if tokens is None else tokens
    code = set()
    for span in _CODE_SPAN.findall(text):
        code |= match_tokens(span)
    named = {stem(w.lower()) for w in _PROPER.findall(text)} & tokens
    for ident in _IDENT.findall(text):  # service, region, role and repository names
        named |= match_tokens(ident) & tokens
    if language_of(text) == "zh":  # 用 helm 不用 jsonnet: the Latin words say which
        named |= {t for t in tokens if t.isascii()}
    days = {t for t in tokens if t in _WEEKDAYS or stem(t) in {stem(d) for d in _WEEKDAYS}}
    days |= set(_CJK_DAYS.findall(text))
    return frozenset({t for t in tokens if any(c.isdigit() for c in t)} | code | named | days
                     | negations(text))


_PREDICATE_LINE = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_]*::.*$", re.M)
_IDENT_PARTS = re.compile(r"[-_/.]")


def identifiers(body: str) -> frozenset[str]:
    """The identifiers a body names (`_IDENT`, lower-cased): services, stores, roles,
    queues, channels. Links and `pred::` lines are left out: they name other notes."""
    text = _PREDICATE_LINE.sub(" ", WIKILINK.sub(" ", body))
    return frozenset(m.lower() for m in _IDENT.findall(reader_text(text)))


def rival_identifiers(a: frozenset[str], b: frozenset[str]) -> tuple[str, str] | None:
    """Two identifiers, one only in `a` and one only in `b`, that are other instances of
    one kind of thing: as many parts, some shared, some not (`yorren-notifications` /
    `renmi-notifications`, `junlo_audit` / `junlo_main`, `orders.settled.v1` /
    `orders.updated.v1`); None when there are none. Notes naming rivals speak of
    different things in the same words; a paraphrase keeps the names it mentions."""
    for x in sorted(a - b):
        px = _IDENT_PARTS.split(x)
        for y in sorted(b - a):
            py = _IDENT_PARTS.split(y)
            if len(px) == len(py) and set(px) & set(py):
                return x, y
    return None


def proper_names(*texts: str) -> frozenset[str]:
    """The match tokens of the capitalised words found inside sentences of `texts` (the
    people, teams and systems a pair of notes speaks of), so the same word at the start
    of a sentence — "Priya wants …" — can be told from a verb there ("Restart …")."""
    return frozenset(stem(w.lower()) for text in texts for w in _PROPER.findall(text))


def statements(body: str) -> list[Statement]:
    """Every statement of `body`, in order."""
    return list(_statements(body))


@lru_cache(maxsize=2048)
def _statements(body: str) -> tuple[Statement, ...]:
    # a note is read in every pair it is in: parse each body once
    return tuple(st for block in blocks(body) for st in statements_of(block))


# --- sections -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """A top-level section of a note: its heading block and everything under it."""

    heading: str  # the heading's text as written
    blocks: tuple[Block, ...]  # the heading block first

    @property
    def text(self) -> str:
        return render_blocks(self.blocks)

    @property
    def content_text(self) -> str:
        """The section without its own heading line."""
        return render_blocks(self.blocks[1:])


@dataclass(frozen=True)
class Outline:
    """A body cut into intro, top-level sections and tail (docs/spec.md §7.8)."""

    intro: tuple[Block, ...]
    sections: tuple[Section, ...]
    tail: tuple[Block, ...]  # a closing **Related:** list, after the last section
    provenance: tuple[Block, ...]  # every derived_from:: line, wherever it stood


_RELATED_LABEL = re.compile(r"^\s*(?:\*\*|__)(related|see also|相关|参见)\s*[:：]?(?:\*\*|__)\s*[:：]?\s*$", re.I)


def outline(body: str) -> Outline:
    """Sections at the note's top heading level (the shallowest heading present); fenced
    code and callouts are blocks, so a section never starts inside one."""
    all_blocks = blocks(body)
    provenance = tuple(b for b in all_blocks if b.kind == "provenance")
    rest = [b for b in all_blocks if b.kind != "provenance"]
    levels = [b.level for b in rest if b.kind == "heading"]
    if not levels:
        return Outline(tuple(rest), (), (), provenance)
    top = min(levels)
    intro: list[Block] = []
    sections: list[list[Block]] = []
    for b in rest:
        if b.kind == "heading" and b.level == top:
            sections.append([b])
        elif sections:
            sections[-1].append(b)
        else:
            intro.append(b)
    tail: list[Block] = []
    last = sections[-1]
    for k, b in enumerate(last):
        if k and b.kind == "label" and _RELATED_LABEL.match(b.lines[0]):
            after = last[k + 1 :]
            if all(bl.kind == "item" and not any(s.has_content for s in statements_of(bl)) for bl in after):
                tail = last[k:]
                del last[k:]
            break
    return Outline(
        tuple(intro),
        tuple(Section(s[0].heading, tuple(s)) for s in sections),
        tuple(tail),
        provenance,
    )


def render_blocks(items: Iterable[Block]) -> str:
    """Blocks back to Markdown: list items of one list stay together, others apart."""
    out: list[str] = []
    prev: Block | None = None
    for b in items:
        if prev is not None:
            tight = (b.kind == "item" and prev.kind == "item") or (b.kind == prev.kind == "provenance")
            out.append("\n" if tight else "\n\n")
        out.append(b.text)
        prev = b
    return "".join(out)


# --- names and links the offline brain writes ----------------------------------------------

def one_line(text: str) -> str:
    """`text` as a reader sees it, on one line, at most 300 characters."""
    return clip(reader_text(text or ""), 300)


def alias_link(path: str, name: str) -> str:
    """`[[path|name]]`, or `[[path]]` when the name cannot be an alias."""
    alias = one_line(name)
    try:
        return format_link(path, alias=alias) if alias and alias != path else format_link(path)
    except Exception:  # a name with [ ] | cannot be an alias: the bare link reads fine
        return format_link(path)


def has_letters(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def slug_or(name: str, fallback: str) -> str:
    """The slug of `name`, or `fallback` for a name with no letter or digit."""
    return slugify(name) if has_letters(name) else fallback


def path_stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")
