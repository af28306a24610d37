"""Text most of the digest shares, left out when merge compares two notes (docs/spec.md §7.7.1).

A vault imported from a community wiki is hundreds of pages built from one template:
the same badges, `%% … %%` comments, field labels ("Plugin ID:", "Developed by:"),
headings and footer in every page, only the values differ. Compared with that text
in, any two pages look alike, and merge joined different plugins. So merge measures how
common each piece of text is *in this vault* and compares what is left — the values
that differ decide. No list of strings: the vault says what its boilerplate is.

Over the digest's notes (`DigestText.build`):

* a **line** of a body (trimmed, whitespace collapsed, case folded) is *common* when at
  least `max(COMMON_MIN_NOTES, COMMON_LINE_SHARE × n)` of the n notes hold it (10 and
  1 %: a line repeated word for word in that many notes is a template's, whatever else
  the vault holds); predicate lines (`derived_from::`, `related_to::`) never are: they
  are structure, which the judges weigh as links;
* an **identifying value** (`identity.identifiers_of`, the wiki's own repository in
  every footer) likewise: it identifies no note; so is a **value** a body names
  (`value_words`: an identifier, a number, a name — the staging env, a team everyone
  mentions);
* a **topic word** (`candidates.body_topic_words`) when `max(COMMON_MIN_NOTES,
  COMMON_WORD_SHARE × n)` notes hold it (10 %: words recur far more than lines; a lower
  share would leave a paraphrase too few words to compare).

The body-overlap gate compares topic words less the common ones, the identity check
leaves the common values out, and the votes see each body less its common lines
(`strip`), so a judge reads what the two notes say of their own. A note keeps every
line: only the comparison leaves them out. Under `COMMON_MIN_NOTES` notes sharing it,
nothing is common: in a small vault a few notes sharing a line are no template.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..textrules import CJK_OR_KANA_CHARS
from ..vault.frontmatter import find_frontmatter
from .identity import Identifier, identity_conflict

__all__ = [
    "COMMON_LINE_SHARE",
    "COMMON_WORD_SHARE",
    "value_words",
    "COMMON_MIN_NOTES",
    "common_floor",
    "line_keys",
    "strip_lines",
    "NoteText",
    "DigestText",
]

COMMON_LINE_SHARE = 0.01  # docs/spec.md §10: a line or value in this share of the notes is common
COMMON_WORD_SHARE = 0.2  # docs/spec.md §10: a topic word in this share of the notes is common
COMMON_MIN_NOTES = 10  # docs/spec.md §10: ... and in at least this many notes

_SPACE = re.compile(r"\s+")
_PREDICATE = re.compile(r"(?<![\w])[A-Za-z][A-Za-z0-9_]*::")
_PREDICATE_LINE = re.compile(r"^\s*(?:[-*+][ \t]+)?[A-Za-z][A-Za-z0-9_]*::.*$", re.M)
_LINKS_AND_URLS = re.compile(r"!?\[\[[^\[\]\n]*\]\]|\b(?:https?|obsidian)://[^\s)>\]]+")
# as the offline brain's values (docs/spec.md §7.9.2, brains/offline_consolidate/text.py
# fact_tokens): identifiers joined by - _ / or ., numbers,
# capitalised words inside a sentence, and the Latin words of a Chinese line
_IDENT = re.compile(r"\b[A-Za-z0-9]+(?:(?:[-_/]|\.(?=[A-Za-z0-9]))[A-Za-z0-9]+)+\b")
_NUMBER = re.compile(r"(?<![\w.])\d{2,}(?![\w])")
_PROPER = re.compile(r"(?<=[\w,;:)] )[A-Z][a-z]+\b")
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]+")
_CJK = re.compile(f"[{CJK_OR_KANA_CHARS}]")  # a line of Chinese (or Japanese)


def value_words(text: str) -> frozenset[str]:
    """The values a note's body names, lower-cased: identifiers (`kovel-api`,
    `orders.settled.v1`, `build-4821`), numbers of two digits or more, capitalised words
    inside a sentence (Oskar, Grafana), and every Latin word of a line mostly in Chinese.
    Links, addresses and predicate lines are left out: they name other notes and pages."""
    fm = find_frontmatter(text)
    body = text[fm.end:] if fm is not None else text
    body = _LINKS_AND_URLS.sub(" ", _PREDICATE_LINE.sub(" ", body))
    found = {m.lower() for m in _IDENT.findall(body)}
    found.update(_NUMBER.findall(body))
    found.update(m.lower() for m in _PROPER.findall(body))
    if _CJK.search(body):
        for line in body.split("\n"):
            if len(_CJK.findall(line)) >= max(2, len(line.strip()) // 4):
                found.update(m.lower() for m in _LATIN.findall(line))
    return frozenset(found)


def common_floor(notes: int, share: float = COMMON_LINE_SHARE) -> int:
    """How many of `notes` notes must hold a line or value (a word: `COMMON_WORD_SHARE`)
    for it to be common."""
    return max(COMMON_MIN_NOTES, math.ceil(share * notes))


def _key(line: str) -> str:
    return _SPACE.sub(" ", line).strip().casefold()


def line_keys(text: str) -> frozenset[str]:
    """The distinct comparable lines of a note's body (frontmatter skipped, blank and
    predicate lines left out)."""
    fm = find_frontmatter(text)
    body = text[fm.end:] if fm is not None else text
    keys = set()
    for line in body.split("\n"):
        key = _key(line)
        if key and not _PREDICATE.search(key):
            keys.add(key)
    return frozenset(keys)


def strip_lines(body: str, common: frozenset[str]) -> str:
    """`body` without the lines whose key is in `common`; blank runs it leaves are one."""
    if not common:
        return body
    kept: list[str] = []
    for line in body.split("\n"):
        if _key(line) in common:
            continue
        if not line.strip() and kept and not kept[-1].strip():
            continue
        kept.append(line)
    return "\n".join(kept).strip("\n") + ("\n" if body.endswith("\n") else "")


@dataclass(frozen=True)
class NoteText:
    """What merge compares of one note: its topic words, identifiers and line keys."""

    words: frozenset[str]
    identifiers: frozenset[Identifier]
    lines: frozenset[str]
    values: frozenset[str] = frozenset()  # `value_words`


@dataclass(frozen=True)
class DigestText:
    """The digest's notes as merge compares them, and the text most of them share."""

    notes: Mapping[str, NoteText] = field(default_factory=lambda: MappingProxyType({}))
    floor: int = COMMON_MIN_NOTES  # notes holding a line or value that make it common
    word_floor: int = COMMON_MIN_NOTES  # ... a topic word
    lines: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()
    identifiers: frozenset[Identifier] = frozenset()
    values: frozenset[str] = frozenset()

    @classmethod
    def build(cls, notes: Mapping[str, NoteText]) -> DigestText:
        floor = common_floor(len(notes))
        word_floor = common_floor(len(notes), COMMON_WORD_SHARE)

        def common(sets: Iterable[frozenset], least: int) -> frozenset:
            counts: Counter = Counter()
            for s in sets:
                counts.update(s)
            return frozenset(k for k, c in counts.items() if c >= least)

        texts = list(notes.values())
        return cls(MappingProxyType(dict(notes)), floor, word_floor,
                   common((t.lines for t in texts), floor),
                   common((t.words for t in texts), word_floor),
                   common((t.identifiers for t in texts), floor),
                   common((t.values for t in texts), floor))

    def words_of(self, path: str) -> frozenset[str] | None:
        """The note's topic words less the common ones; None when it was not read."""
        found = self.notes.get(path)
        return None if found is None else found.words - self.words

    def values_of(self, path: str) -> frozenset[str] | None:
        """The note's values less the common ones; None when it was not read."""
        found = self.notes.get(path)
        return None if found is None else found.values - self.values

    def conflict(self, a: str, b: str) -> str | None:
        """Why notes `a` and `b` are about different things (`identity_conflict`, common
        values left out), or None."""
        ta, tb = self.notes.get(a), self.notes.get(b)
        if ta is None or tb is None:
            return None
        return identity_conflict(ta.identifiers, tb.identifiers, self.identifiers)

    def strip(self, body: str) -> str:
        """`body` less its common lines: what a judge compares."""
        return strip_lines(body, self.lines)

    def summary(self) -> dict:
        """The common text's size, for a run's details."""
        return {"notes": len(self.notes), "floor": self.floor, "word_floor": self.word_floor,
                "common_lines": len(self.lines),
                "common_words": len(self.words), "common_identifiers": len(self.identifiers),
                "common_values": len(self.values)}
