"""A merge keeps every statement of both notes (docs/spec.md §7.7.5): the sentences of
each body, found again in the merged body.

`keeps_values` holds a merge to the numbers, names and identifiers both notes give; a
sentence without values — "Tell the team before you roll back" — or one whose values
stay while its sense turns ("Never deploy on a Friday; Mei signs off" → "Always deploy on
Friday, Mei or not") passes it. So the sentences are compared too, mechanically:

* **Sentences** (`note_sentences`): each line of a body outside headings, horizontal
  rules and table rulers, without its quote, callout, list and task markers and its
  trailing block id, cut by `textrules.split_note_line` (English and Chinese; a link
  is never cut). Code lines count whole. A line of links and predicates only
  (`derived_from:: [[…]]`, `- [[note]]`) is no statement: `keeps_outbound` and
  `carries_provenance` hold those.
* **Found** (`dropped_statements`): a sentence is kept when the merged body holds it —
  compared without case, spacing, emphasis, code ticks, its closing full stop, and with
  every link read as the reader sees it (`textrules.reader_text`: the alias, else the
  file name; a link to the winner or the loser as that note's name, the words a
  self-link becomes), so a retargeted or repaired link counts as the same — and holds it
  as a sentence of its own: at the start of a line or after the end of another
  sentence (`.`, `:`, `;`, `。`…), and ending a sentence there. Its negations and
  qualifiers are words of it, so "never" lost or "only" gained is a change.
* **Dropped**: every sentence not found, with the merged sentence closest to it (most
  words shared, at least 40%) and the qualifier words ("never", "not", "only",
  "unless", "always", 不, 只, 除非…) each has that the other lacks — what a person
  reviewing the merge reads first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..textrules.cjk import is_cjk
from ..textrules.markup import FENCE, LINE_MARKERS, WIKILINK, link_name, reader_text
from ..textrules.sentences import split_note_line

__all__ = ["note_sentences", "sentence_key", "dropped_statements", "QUALIFIERS"]

_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$")
_TABLE_RULER = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")
_BLOCK_ID = re.compile(r"[ \t]+\^[A-Za-z0-9-]+[ \t]*$")
_PREDICATE = re.compile(r"(?<![\w])[A-Za-z][A-Za-z0-9_]*::")
_LINK = re.compile(r"!?\[\[[^\[\]\n]*\]\]")
_HIGHLIGHT = re.compile(r"==")
_END = ".!?。！？;；:：,，"
_BEFORE = ".!?。！？;；:：)）]"  # what may stand before a sentence on its line
_AFTER = ".!?。！？;；"  # what may stand right after a sentence's last word

# Words that set a statement's sense: a merge that loses or gains one changed it.
QUALIFIERS = (
    "never", "not", "no", "none", "nothing", "nobody", "neither", "nor", "cannot", "can't",
    "don't", "doesn't", "didn't", "won't", "isn't", "aren't", "shouldn't", "mustn't",
    "without", "only", "unless", "except", "until", "always", "every", "all", "must",
    "should", "may", "might", "before", "after", "at least", "at most",
)
_QUALIFIERS_ZH = ("不", "没", "别", "勿", "无", "非", "只", "仅", "除非", "除了", "总是", "始终",
                  "从不", "永远", "必须", "务必", "禁止", "不要", "之前", "之后", "至少", "最多")


def _statement_lines(body: str) -> list[str]:
    """The lines that hold statements, without their markers and block ids (code whole)."""
    out: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        m = FENCE.match(line)
        if m and (fence is None or (m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence))):
            fence = None if fence is not None else m.group(1)
            continue
        if fence is not None:
            if line.strip():
                out.append("\0" + line.strip())  # a code line: compared whole, never cut
            continue
        if not line.strip() or _HEADING.match(line) or _RULE.match(line) or \
                _TABLE_RULER.match(line):
            continue
        text = _BLOCK_ID.sub("", LINE_MARKERS.sub("", line, count=1)).strip()
        if _only_links(text):
            continue
        out.append(text)
    return out


def _only_links(text: str) -> bool:
    rest = _PREDICATE.sub("", _LINK.sub("", text))
    return not any(ch.isalnum() for ch in rest)


def note_sentences(body: str) -> tuple[str, ...]:
    """The statements of a note's body, as written (see the module doc)."""
    out: list[str] = []
    for line in _statement_lines(body):
        if line.startswith("\0"):
            out.append(line[1:])
            continue
        out += [s for s in split_note_line(line) if not _only_links(s)]
    return tuple(out)


def _read_links(text: str, names: Mapping[str, str]) -> str:
    """Links as a reader sees them; one to the winner or loser as that note's name."""
    by_stem = {_stem(path).casefold(): name for path, name in names.items()}

    def seen(m: re.Match[str]) -> str:
        alias = (m.group(3) or "").strip()
        target = (m.group(1) or "").strip()
        own = by_stem.get(_stem(target).casefold())
        if alias and _stem(alias).casefold() == _stem(target).casefold():
            # the target as written, kept as the alias (`[[./x]]` -> `[[…/x.md|./x]]`)
            return own or _stem(target)
        return alias or own or link_name(m)

    return WIKILINK.sub(seen, text)


def _stem(target: str) -> str:
    name = target.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def sentence_key(text: str, names: Mapping[str, str] = {}) -> str:  # noqa: B006 (read only)
    """A sentence or line as compared: links read, no markup, case or extra spacing."""
    plain = reader_text(_HIGHLIGHT.sub("", _read_links(text, names)))
    return " ".join(plain.casefold().split()).rstrip(_END + " ")


def _found(key: str, lines: list[str]) -> bool:
    if not key:
        return True
    for line in lines:
        start = line.find(key)
        while start >= 0:
            end = start + len(key)
            before = line[:start].rstrip()
            after = line[end:].lstrip()
            if (not before or before[-1] in _BEFORE) and (not after or after[0] in _AFTER):
                return True
            start = line.find(key, start + 1)
    return False


def _words(key: str) -> set[str]:
    latin = set(re.findall(r"[a-z0-9]+(?:'[a-z]+)?", key))
    cjk = [ch for ch in key if is_cjk(ch)]
    return latin | {a + b for a, b in zip(cjk, cjk[1:], strict=False)}


def _qualifiers(key: str) -> set[str]:
    words = " " + " ".join(re.findall(r"[a-z']+", key)) + " "
    found = {q for q in QUALIFIERS if f" {q} " in words}
    return found | {q for q in _QUALIFIERS_ZH if q in key}


def _closest(key: str, merged: list[tuple[str, str]]) -> tuple[str, str] | None:
    mine = _words(key)
    best, score = None, 0.4
    for sentence, other in merged:
        theirs = _words(other)
        if mine and theirs:
            dice = 2 * len(mine & theirs) / (len(mine) + len(theirs))
            if dice >= score:
                best, score = (sentence, other), dice
    return best


def dropped_statements(bodies: Mapping[str, str], merged: str,
                       names: Mapping[str, str]) -> list[dict]:
    """The sentences of `bodies` ({note: its body}) the `merged` body does not keep, each
    `{note, sentence, closest, qualifiers: {lost, new}}`; `names` are the pair's
    {path: name} (a link to either reads as its name)."""
    lines = [sentence_key(line.lstrip("\0"), names) for line in _statement_lines(merged)]
    merged_sentences = [(s, sentence_key(s, names)) for s in note_sentences(merged)]
    out: list[dict] = []
    for note, body in bodies.items():
        seen: set[str] = set()
        for sentence in note_sentences(body):
            key = sentence_key(sentence, names)
            if key in seen or _found(key, lines):
                continue
            seen.add(key)
            near = _closest(key, merged_sentences)
            mine, theirs = _qualifiers(key), _qualifiers(near[1]) if near else set()
            out.append({"note": note, "sentence": sentence,
                        "closest": near[0] if near else None,
                        "qualifiers": {"lost": sorted(mine - theirs) if near else [],
                                       "new": sorted(theirs - mine)}})
    return out
