"""Text a material file shares with most material of its folder, layer or run: a template's.

Pages built from one template (a community wiki's plugin pages, an export's header and
footer on every page, the same headings in every log) share their template's words: the
field labels ("Plugin ID:", "Developed by:"), the fixed lines ("Links: GitHub repository
or Open in Obsidian", "# This note in GitHub"). Those words say nothing about what one
page is about, yet every page has them — so a rule that compares words (is this unit
already covered by that note?) finds every page like every other. The offline brain
does not count them (docs/spec.md §5.8): not when it judges coverage, not when it names
a unit, not as the sentence a note opens with.

What is boilerplate is derived from the material itself, never from a list of strings:

* a file's **phrases** are its lines — their words, lowercase, read as prose (the
  Markdown taken out as `markdown.neutralise` and `textrules.plain` do: comments, HTML
  and embeds gone, a link read as its text) — and its **field labels**, the words before
  a colon that opens a line ("Plugin ID: `x`" -> "plugin id"), of at most
  `MAX_LABEL_WORDS` words; a phrase has at least `MIN_PHRASE_WORDS` words (one word in
  most files, a "Task" heading or a "Links:" label, is vocabulary: found anywhere, it
  would take the word from every sentence that uses it);
* a phrase is boilerplate for a file when, in one of the file's **groups** — its folder
  (every material file in it), its layer (`resource/` or `daily/`) or the run's
  material — it is in at least `BOILERPLATE_SHARE` of the files and in at least
  `BOILERPLATE_MIN_FILES` of them. The floor keeps two logs about one incident from
  discounting the incident: a template repeats over many files. A group of more than
  `GROUP_SAMPLE` files is counted on an even sample of them.

A phrase is found again wherever its words follow each other in a text (a statement
that joins the template's lines, the body of a note written from another page of the
template), so the words it covers can be left out of a comparison (`strip`), and a
statement that is mostly covered (`TEMPLATE_SHARE`) is the template's, not the page's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from ..textrules import HAN_CHARS, is_cjk, plain
from .markdown import neutralise

__all__ = [
    "BOILERPLATE_SHARE", "BOILERPLATE_MIN_FILES", "TEMPLATE_SHARE", "MAX_LABEL_WORDS", "MIN_PHRASE_WORDS",
    "GROUP_SAMPLE",
    "Boilerplate", "phrases_of", "shared_phrases", "words",
]

BOILERPLATE_SHARE = 0.5  # "most" files of a group
BOILERPLATE_MIN_FILES = 5  # and at least this many: a template repeats, a topic recurs
TEMPLATE_SHARE = 0.6  # a statement with this share of boilerplate words is the template's
MAX_LABEL_WORDS = 4  # "Plugin ID:", "Mobile compatible:"; longer is a sentence with a colon
MIN_PHRASE_WORDS = 2  # one word in most files ("Task", "Links:") is vocabulary, not a template
GROUP_SAMPLE = 400  # files of a group counted at most (an even spread): enough for a share

_WORD = re.compile(r"[^\W_]+(?:[-_][^\W_]+)*")  # "obsidian-kroki" is one word, as in `tokens`
_MARKERS = re.compile(r"^\s{0,3}(?:#{1,6}\s+|(?:>\s?)+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)*")
_LABEL = re.compile(r"^([^:：]{1,60}?)\s*[:：]\s*\S")
_PRED_LINE = re.compile(r"^\s*[A-Za-z]\w*::\s")
_LINK_ONLY = re.compile(r"^\s*(?:[-*+]\s+)?(?:!?\[\[[^\]]*\]\][\s,;]*)+$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CJK = re.compile(f"[{HAN_CHARS}]")  # a text with a CJK character at all (fast path: is_cjk's)


def words(text: str) -> list[str]:
    """The words of `text` as phrases are compared: lowercase, a hyphenated identifier
    one word, a CJK character each."""
    found = _WORD.findall(text.lower())
    if not _CJK.search(text):
        return found
    out: list[str] = []
    for word in found:
        if not _CJK.search(word):
            out.append(word)
            continue
        run = ""
        for ch in word:
            if is_cjk(ch) or ch in "-_":
                if run:
                    out.append(run)
                run = ""
                if is_cjk(ch):
                    out.append(ch)
            else:
                run += ch
        if run:
            out.append(run)
    return out


def _prose_lines(body: str) -> list[str]:
    """The body's lines outside fenced code, read as prose (see the module doc)."""
    out, fence = [], ""
    for line in neutralise(body).split("\n"):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0]:
                fence = ""
            continue
        if m:
            fence = m.group(1)
            continue
        text = plain(_MARKERS.sub("", line))
        if text:
            out.append(text)
    return out


def phrases_of(body: str) -> frozenset[tuple[str, ...]]:
    """A material body's phrases: its lines and its field labels, as word tuples."""
    found: set[tuple[str, ...]] = set()
    for line in _prose_lines(body):
        ws = tuple(words(line))
        if len(ws) >= MIN_PHRASE_WORDS:
            found.add(ws)
        label = _LABEL.match(line)
        if label:
            lw = tuple(words(label.group(1)))
            if MIN_PHRASE_WORDS <= len(lw) <= MAX_LABEL_WORDS and not all(w.isdigit() for w in lw):
                found.add(lw)
    return frozenset(found)


def _groups(path: str) -> tuple[str, ...]:
    """The groups a material file belongs to: its folder and its layer."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    layer = path.split("/", 1)[0]
    return (f"folder:{folder}", f"layer:{layer}")


def _sample(paths: list[str]) -> list[str]:
    """A group's files as counted: all of them, or an even spread of `GROUP_SAMPLE`."""
    paths = sorted(paths)
    if len(paths) <= GROUP_SAMPLE:
        return paths
    step = len(paths) / GROUP_SAMPLE
    return [paths[int(i * step)] for i in range(GROUP_SAMPLE)]


def shared_phrases(
    material: Iterable[str], run: Mapping[str, str], read: Callable[[str], str | None]
) -> dict[str, tuple[str, ...]]:
    """{path: its boilerplate phrases (space-joined words)} for each file of `run`.

    `material`: every material file of the vault (the groups' members); `run`: the files
    dreamt now, {path: body without frontmatter} (a group of its own); `read(path)`:
    another file's body, None when it cannot be read. A group larger than
    `GROUP_SAMPLE` is counted on an even sample of it: a share needs no more, and a
    layer of ten thousand logs is not read for every dream.
    """
    phrases: dict[str, frozenset[tuple[str, ...]] | None] = {
        p: phrases_of(b) for p, b in run.items()}

    def of(path: str) -> frozenset[tuple[str, ...]] | None:
        if path not in phrases:
            body = read(path)
            phrases[path] = phrases_of(body) if body is not None else None
        return phrases[path]

    members: dict[str, list[str]] = {"run": list(run)}
    for path in dict.fromkeys([*material, *run]):
        for group in _groups(path):
            members.setdefault(group, []).append(path)
    wanted = {g for p in run for g in (*_groups(p), "run")}
    common: dict[str, frozenset[tuple[str, ...]]] = {}
    for group in wanted:
        counted = [ph for ph in map(of, _sample(members[group])) if ph is not None]
        need = max(BOILERPLATE_MIN_FILES, BOILERPLATE_SHARE * len(counted))
        df = Counter(ph for found in counted for ph in found)
        common[group] = frozenset(ph for ph, n in df.items() if n >= need)
    out: dict[str, tuple[str, ...]] = {}
    for path in run:
        mine: set[tuple[str, ...]] = set()
        for group in (*_groups(path), "run"):
            mine |= phrases[path] & common[group]  # type: ignore[operator]
        out[path] = tuple(sorted(" ".join(ph) for ph in mine))
    return out


@dataclass(frozen=True)
class Boilerplate:
    """The boilerplate phrases of one material file, and what they cover in a text."""

    phrases: tuple[str, ...] = ()  # space-joined words, as `shared_phrases` gives them

    def __bool__(self) -> bool:
        return bool(self.phrases)

    @cached_property
    def _by_first(self) -> dict[str, list[tuple[str, ...]]]:
        index: dict[str, list[tuple[str, ...]]] = {}
        for phrase in sorted((tuple(p.split()) for p in self.phrases), key=len, reverse=True):
            if phrase:
                index.setdefault(phrase[0], []).append(phrase)
        return index

    def covered(self, ws: list[str]) -> list[bool]:
        """For each word of `ws`, whether a boilerplate phrase covers it there."""
        marks = [False] * len(ws)
        index = self._by_first
        if not index:
            return marks
        for i, w in enumerate(ws):
            for phrase in index.get(w, ()):
                n = len(phrase)
                if tuple(ws[i:i + n]) == phrase:
                    marks[i:i + n] = [True] * n
                    break
        return marks

    def share(self, text: str) -> float:
        """The share of the words of `text` (read as prose) that are boilerplate."""
        ws = words(plain(text))
        return sum(self.covered(ws)) / len(ws) if ws else 0.0

    def is_template(self, text: str) -> bool:
        """`text` is mostly the template's words, not its own."""
        return bool(self) and self.share(text) >= TEMPLATE_SHARE

    def strip(self, text: str) -> str:
        """`text` for comparing words, without its boilerplate: a line a phrase covers
        is written again as its uncovered words (lowercase, Markdown gone); every other
        line — and every `pred::` or link-only line, and fenced code — stays as it is."""
        if not self:
            return text
        out, fence = [], ""
        for line in text.split("\n"):
            m = _FENCE.match(line)
            if fence or m:
                if fence and m and m.group(1)[0] == fence[0]:
                    fence = ""
                elif not fence and m:
                    fence = m.group(1)
                out.append(line)
                continue
            if _PRED_LINE.match(line) or _LINK_ONLY.match(line):
                out.append(line)
                continue
            ws = words(plain(line))
            marks = self.covered(ws)
            if any(marks):
                line = " ".join(w for w, c in zip(ws, marks, strict=True) if not c)
            out.append(line)
        return "\n".join(out)
