"""Material read as Obsidian Markdown: what a page is called and what is prose in it.

Pure functions on strings (no I/O). Two parts:

* `material_info(path, frontmatter, body)` — what the page says about itself: its title
  (frontmatter `title`, else the first H1, else the file name as written:
  `Internal links.md` -> "Internal links", `deploy-payments-api.md` -> "Deploy
  payments-api"), its own `description`, `aliases` and `tags`.
* `neutralise(body)` — the body with every construct that is *not prose* taken out of
  the running text, line for line (the line count never changes, so line numbers stay
  true). What each construct is recognised as:

  | construct | becomes |
  |---|---|
  | `%% comment %%` (inline or over lines) | removed: a comment is for the author |
  | `<!-- html comment -->` | removed |
  | `$$ … $$` math block | removed: a formula is not a sentence |
  | inline math `$x^2$` | a code span `` `x^2` ``: kept, never split or tokenised as words |
  | block id `^b15695` at a line end | removed: an address, not content |
  | embed `![[x.png]]`, `![[Page#Section]]`, image `![alt](url)` | removed: a reference to other content |
  | footnote reference `[^1]`, footnote definition `[^1]: text` | removed: an aside to the text |
  | inline HTML `<kbd>Ctrl</kbd>`, `<b>x</b>` | the text inside: "Ctrl", "x" |
  | `<br>` | a space |
  | block HTML (`<div …>`, `<details>`, `<summary>…</summary>`, `<iframe …>`) | the tags removed, any text kept |

  Callouts (`> [!note] Title`), headings, lists, tables and code are structure the
  segmenter reads (`statements.segment`); links stay as they are (dream resolves them
  when it writes, `vault/resolve.py`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MaterialInfo", "material_info", "neutralise", "title_from_file_name", "CALLOUT", "fenced",
]


@dataclass(frozen=True)
class MaterialInfo:
    title: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()


# `> [!note]`, `> [!warning]- Title`, `>[!TIP]+ Title` (a foldable callout)
CALLOUT = re.compile(r"^\s*(?:>\s?)+\[!([A-Za-z][\w-]*)\][+-]?[ \t]*(.*)$")
_H1 = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.M)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_COMMENT = re.compile(r"%%.*?%%", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_MATH_BLOCK = re.compile(r"\$\$.*?\$\$", re.S)
# `$x$` with no space inside the dollars (Obsidian's rule), and not a price like "$5 and $6"
_INLINE_MATH = re.compile(r"(?<![\\$\w])\$(?=\S)([^$\n]*?\S)\$(?![\w$])")
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^[A-Za-z0-9-]+[ \t]*$", re.M)
_EMBED = re.compile(r"!\[\[[^\]\n]*\]\]|!\[[^\]\n]*\]\([^)\n]*\)")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\](?!:)")
_FOOTNOTE_DEF = re.compile(r"^[ \t]*\[\^[^\]\s]+\]:.*$", re.M)
_BR = re.compile(r"<br\s*/?>", re.I)
_VOID = re.compile(r"<(?:img|iframe|video|audio|source|embed|hr|input)\b[^>]*>(?:\s*</\w+>)?", re.I)
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s+[^<>]*?)?\s*/?>")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


_ACRONYMS = {"db", "api", "ci", "pr", "sla", "vlan", "ip", "dns", "url", "sql", "vm", "ha"}


def title_from_file_name(path: str, text: str = "") -> str:
    """The title a file name gives. A name with spaces is a title already (`Internal
    links.md`); a slug is spelled as the text spells its words: `deploy-payments-api.md`
    -> "Deploy payments-api" when the text writes payments-api, `pgbouncer-cutover.md`
    -> "PgBouncer cutover"."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].strip()
    if " " in stem or any(ord(ch) > 0x2E7F for ch in stem):  # a title already, or Chinese
        return stem[:1].upper() + stem[1:] if stem[:1].islower() else stem
    text = re.sub(r"\[\[[^\]]*\]\]", "", text)  # a link names the stem, not how the text spells it
    out: list[str] = []
    for w in (w for w in re.split(r"[-_\s]+", stem) if w):
        last = out[-1].split("-")[-1] if out else ""
        if last and re.search(rf"\b{re.escape(last)}-{re.escape(w)}\b", text, re.I):
            out[-1] += "-" + w  # the text writes payments-api
            continue
        spelled = (m.group(0) for m in re.finditer(rf"\b{re.escape(w)}\b", text, re.I))
        cased = next((c for c in spelled if any(x.isupper() for x in c[1:])), "")
        if cased and (not cased.isupper() or len(cased) <= 4):
            out.append(cased)  # PgBouncer, IoT, DB
        else:
            out.append(w.upper() if w.lower() in _ACRONYMS else w)
    title = " ".join(out)
    return title[:1].upper() + title[1:]


def fenced(code: str, indent: str = "", max_lines: int = 8) -> list[str]:
    """`code` as a fenced block (its first `max_lines` lines), with a fence longer than any
    backtick run inside it, so a code sample that shows a fence cannot close ours."""
    lines = code.splitlines()[:max_lines]
    longest = max((len(m.group(0)) for ln in lines for m in re.finditer(r"`+", ln)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{indent}{fence}", *(f"{indent}{ln}".rstrip() for ln in lines), f"{indent}{fence}"]


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")] if "," in value else [value.strip()]
    elif isinstance(value, list | tuple):
        parts = [str(v).strip() for v in value if isinstance(v, str | int | float)]
    else:
        return ()
    return tuple(p for p in parts if p)


def material_info(path: str, frontmatter: Mapping[str, Any], body: str) -> MaterialInfo:
    """Title, description, aliases and tags of a material file (see the module doc)."""
    title = frontmatter.get("title")
    if not isinstance(title, str) or not title.strip():
        title = ""
        clean = neutralise(body)
        for m in _H1.finditer(clean):
            if not _inside_fence(clean, m.start()):
                title = m.group(1)
                break
    title = _plain_line(title) or title_from_file_name(path, body)
    description = frontmatter.get("description")
    description = _plain_line(description) if isinstance(description, str) else ""
    tags = tuple(t.lstrip("#") for t in _strings(frontmatter.get("tags")))
    return MaterialInfo(title, description, _strings(frontmatter.get("aliases")), tags)


def _inside_fence(text: str, pos: int) -> bool:
    fence = ""
    for line in text[:pos].splitlines():
        m = _FENCE.match(line)
        if m and (not fence or m.group(1)[0] == fence[0]):
            fence = "" if fence else m.group(1)
    return bool(fence)


def _plain_line(text: str) -> str:
    text = _TAG.sub("", _BR.sub(" ", text))
    return " ".join(text.replace("**", "").replace("__", "").split())


def _blank_keep_lines(match: re.Match[str]) -> str:
    return "\n" * match.group(0).count("\n")


def _outside_code(text: str, fn) -> str:
    """Apply `fn` to the parts of one line that are not code spans."""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(fn(text[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(fn(text[last:]))
    return "".join(out)


def _inline(line: str) -> str:
    line = _EMBED.sub("", line)
    line = _FOOTNOTE_REF.sub("", line)
    line = _INLINE_MATH.sub(lambda m: f"`{m.group(1)}`", line)
    line = _BR.sub(" ", line)
    line = _VOID.sub("", line)
    return _TAG.sub("", line)


def neutralise(body: str) -> str:
    """`body` with comments, math, block ids, embeds, footnote marks and HTML taken out
    of the prose (see the module doc); fenced code is left exactly as it is."""
    lines = body.split("\n")
    out: list[str] = []
    prose: list[str] = []  # a run of lines outside fences, cleaned together
    fence = ""

    def flush() -> None:
        if not prose:
            return
        text = "\n".join(prose)
        for rx in (_COMMENT, _HTML_COMMENT, _MATH_BLOCK):  # may span lines: keep the count
            text = rx.sub(_blank_keep_lines, text)
        text = _BLOCK_ID.sub("", text)
        text = _FOOTNOTE_DEF.sub("", text)
        out.extend(_outside_code(line, _inline) for line in text.split("\n"))
        prose.clear()

    for line in lines:
        m = _FENCE.match(line)
        if fence:
            out.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[
                m.end() :
            ].strip():
                fence = ""
            continue
        if m and not (m.group(1)[0] == "`" and "`" in line[m.end() :]):
            flush()
            fence = m.group(1)
            out.append(line)
            continue
        prose.append(line)
    flush()
    return "\n".join(out)
