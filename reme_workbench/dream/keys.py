"""Topic keys across sessions (docs/spec.md §4.3.2, §5.5.4): which notes of a person are
about the topic a unit names, however the two were written.

A note on what a person said is named by the person and a topic ("Jon's dance studio",
`jon-s-dance-studio`, "林晓的猫"). A later session names the same topic in its own words:
a plural or a verb form ("dream" / `jon-s-dreams`), another spelling ("spiderman movies"
/ "Spider-Man movies"), a phrase inside another with the same head ("LGBTQ community" /
`caroline-s-community`) or one word cut short ("dance comp" / "dance competition"). Those
are one key. The head decides what a phrase names: a phrase that is only the other's
modifier names another thing ("art" / "LGBTQ art show", "dance" / "dance studio", "life"
/ "life's challenges"), and two phrases of one person that share only a word are two
topics ("dance studio" / "dance class": the same modifier, other heads; "activist group"
/ "support group": the same head, other modifiers); so are the same words of two people.

The words are the topic's lemmas, read by the trained English pipeline in a possessive
frame ("Kim's dreams": a noun; a bare "dreams" reads as a verb), lowercased, with the
spaces and hyphens of a spelling not counted. A Chinese topic is one word, compared whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import RemeError
from ..textrules import is_cjk, one_word_cut_short
from ..vault.slug import slugify

__all__ = ["TopicKey", "topic_key", "relation", "owner_prefix", "one_key", "near_duplicates"]

# a possessive between the person and the topic, as written or as a slug writes it
_POSSESSIVE = re.compile(r"['’]s\b|的")
# parts of speech that are not the topic's own words ("the lean startup", "life's …")
_NOT_WORDS = frozenset({"DET", "ADP", "CCONJ", "PRON", "PART", "PUNCT", "SYM", "AUX"})


@dataclass(frozen=True)
class TopicKey:
    """Whose (`owner`, as a slug: "jon", "mary-ann", "林晓") and what (`words`, the
    topic's lemmas in order) a note or unit named by person and topic is about."""

    owner: str
    words: tuple[str, ...]

    @property
    def joined(self) -> str:
        return "".join(self.words)

    @property
    def head(self) -> str:
        return self.words[-1]


def owner_prefix(name: str) -> str | None:
    """The slug prefix of the notes named by the person `name` names ("Jon's dance" →
    "jon-s-"; "林晓的猫" → "林晓的"), or None when `name` names no person's topic."""
    found = _POSSESSIVE.search(name)
    if found is None or not name[: found.start()].strip():
        return None
    try:
        owner = slugify(name[: found.start()])
    except RemeError:
        return None
    return f"{owner}的" if found.group() == "的" else f"{owner}-s-"


def topic_key(name: str, prefix: str) -> TopicKey | None:
    """The key of a unit's name or a note's slug that starts with the person's `prefix`
    (`owner_prefix`); None when it is not that person's, or names no topic."""
    try:
        slug = slugify(name)
    except RemeError:
        return None
    if not slug.startswith(prefix) or len(slug) == len(prefix):
        return None
    rest, owner = slug[len(prefix):], prefix.removesuffix("-s-").removesuffix("的")
    if any(map(is_cjk, rest)):
        return TopicKey(owner, (rest.replace("-", ""),))
    words = _lemmas(" ".join(w for w in rest.split("-") if w))
    return TopicKey(owner, words) if words else None


def _lemmas(topic: str) -> tuple[str, ...]:
    from ..textrules.nlp import english_doc

    doc = english_doc(f"Kim's {topic}")  # a possessive frame: the topic reads as a noun
    words = [t.lemma_.lower() if t.pos_ in ("NOUN", "PROPN") else t.lower_
             for t in doc[2:] if t.pos_ not in _NOT_WORDS and t.text.isalnum()]
    return tuple(words)


def relation(unit: TopicKey, note: TopicKey) -> int | None:
    """How the note's key is the unit's, best first; None when they are two keys.

    0 one phrase (the same lemmas, or the same letters spaced or hyphenated otherwise);
    1 a phrase inside the other with the same head ("support group" / "LGBTQ support
    group", "spiderman movies" / "MCU Spider-Man movies"); 2 the same words but one, cut
    short in one of them ("dance comp" / "dance competition": a word alone, "art" /
    "artist", may be a word of its own). A phrase inside the other as its modifier only
    ("dance" / "dance studio") is another topic."""
    if unit.owner != note.owner or not unit.words or not note.words:
        return None
    if unit.joined == note.joined:
        return 0
    short, long_ = sorted((unit, note), key=lambda k: len(k.joined))
    inside = set(short.words) <= set(long_.words) or short.joined in _runs(long_.words)
    if inside and long_.joined.endswith(short.head):
        return 1
    if one_word_cut_short(unit.words, note.words):
        return 2
    return None


def _runs(words: tuple[str, ...]) -> set[str]:
    """Every run of consecutive words, written together ("spider man movie" →
    "spiderman", "manmovie", …): a phrase written with other spaces is inside it."""
    return {"".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)}


def one_key(unit_name: str, note_name: str) -> bool:
    """Whether a note named `note_name` is on the person and topic `unit_name` names."""
    prefix = owner_prefix(unit_name)
    if prefix is None:
        return False
    mine, theirs = topic_key(unit_name, prefix), topic_key(note_name, prefix)
    return mine is not None and theirs is not None and relation(mine, theirs) is not None


def near_duplicates(slugs: list[str]) -> list[tuple[str, str]]:
    """The pairs of note slugs on one person's one topic (`relation` not None), each once,
    in the order given: what a vault's notes on people should not hold."""
    keyed: list[tuple[str, TopicKey]] = []
    for slug in slugs:
        cut = min((i + len(p) for p in ("-s-", "的") if (i := slug.find(p)) > 0), default=0)
        key = topic_key(slug, slug[:cut]) if cut else None
        if key is not None:
            keyed.append((slug, key))
    return [(a, b) for i, (a, ka) in enumerate(keyed) for b, kb in keyed[i + 1:]
            if relation(ka, kb) is not None]
