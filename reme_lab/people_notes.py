"""How well notes about people read: four measures of issue #30 over a note's name,
description and body (what `bench_dream_memory.py` prints per form of chat).

Each is a pure function of the note's text, decided with the trained pipelines of
`textrules/nlp.py` (spaCy's small English pipeline, jieba's parts of speech), not with
lists of words, so a figure can be checked by hand against what the parser says:

* `no_topic_name`: the name's topic is not a noun phrase naming a thing;
* `first_person_description`: the description speaks as "I" / "my" / "我";
* `broken_agreement`: a name glued to a first-person verb form ("Caroline’m") or the
  subject of one ("Caroline haven't", "Melanie are");
* `mixed_topics`: a dated bullet about something else than the topic the note is named
  after (the definition is in its docstring and in docs/benchmarks.md).

`measure_notes` applies the four to a set of notes; `TARGETS` are the issue's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from reme_workbench.textrules import HAN_CHARS
from reme_workbench.textrules.nlp import chinese_tagged, english, english_docs

__all__ = [
    "TARGETS", "person_and_topic", "no_topic_name", "first_person_description",
    "broken_agreement", "mixed_topics", "dated_bullets", "NoteVoice", "measure_notes",
]

TARGETS = {"no_topic": 0.03, "first_person": 0.0, "mixing": 0.03, "agreement": 0.0}

_CJK = re.compile(f"[{HAN_CHARS}]")
# "caroline-s-pottery-class" (a slug) or "Caroline's pottery class" (a display name)
_PERSON_SLUG = re.compile(r"^([^\W\d_]+)-s-(.+)$")
_PERSON_NAME = re.compile(r"^([^\W\d_][\w.-]*)['’]s\s+(.+)$")
_PERSON_ZH = re.compile(rf"^([{HAN_CHARS}]{{1,4}}?)的(.+)$")
# quoted words are someone's own: first person and "I'm" are right inside them
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|「[^」]*」|『[^』]*』|(?<!\w)‘[^’]*’(?!\w)")
_PREDICATE = re.compile(r"\(\s*[\w-]+::[^)]*\)|\[[\w-]+::[^\]]*\]|^\s*[\w-]+::.*$", re.M)
_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_DATED_BULLET = re.compile(r"^\s*[-*+]\s+\*\*(\d{4}-\d{2}-\d{2})\*\*\s*[:：]?\s*(.*)$")
# the parts of speech a thing is named by (spaCy's universal tags; jieba's noun family)
_NOUNS = {"NOUN", "PROPN"}
_ZH_NOUN_FLAGS = ("n", "vn", "an")  # jieba: nouns, verbal nouns, adjectival nouns
_ZH_WHY = {"v": "a verb", "a": "an adjective alone", "d": "an adverb", "m": "a number alone",
           "e": "an interjection", "o": "an interjection", "y": "an interjection",
           "r": "a pronoun", "u": "a particle", "p": "a preposition", "c": "a conjunction"}
_EN_WHY = {"VERB": "a verb", "AUX": "a verb", "INTJ": "an interjection", "ADV": "an adverb",
           "ADJ": "an adjective alone", "NUM": "a number alone", "PRON": "a pronoun",
           "PART": "a particle", "ADP": "a preposition", "DET": "a determiner",
           "CCONJ": "a conjunction", "SCONJ": "a conjunction", "X": "not a word",
           "SYM": "a symbol", "PUNCT": "punctuation"}
# the parts of speech that name no thing; read alone, a topic headed by one of them (an
# adjective only with an adverb before it: "so fun"; a lone "routine" or "key" is read as
# an adjective by the small pipeline, and "quote" as an interjection) has no topic
_NOT_A_THING = {"ADJ", "ADV", "NUM", "INTJ", "PRON", "PART", "DET", "ADP", "CCONJ", "SCONJ"}
_FIRST_PERSON_EN = {"i", "me", "my", "mine", "myself"}
_CONTENT = {"NOUN", "PROPN", "VERB", "ADJ"}


@lru_cache(maxsize=1)
def _contraction_tails() -> frozenset[str]:
    """What is left of a contraction once its apostrophe is gone ("re" of "they're", "m",
    "ve", "ll", "d", "s", "nt"): the second pieces of spaCy's own tokenizer exceptions
    that start with an apostrophe, without it."""
    tails = set()
    for pieces in english().tokenizer.rules.values():
        for piece in pieces[1:]:
            orth = str(piece.get(65, ""))  # 65: spaCy's ORTH attribute id
            if orth[:1] in ("'", "’"):
                tails.add(orth[1:].replace("'", "").replace("’", "").lower())
    return frozenset(t for t in tails if t)


def person_and_topic(name: str) -> tuple[str, str]:
    """("Caroline", "pottery class") of "caroline-s-pottery-class" or "Caroline's pottery
    class"; ("刘洋", "婚礼") of "刘洋的婚礼"; ("", name de-slugged) when the name names no
    person."""
    raw = " ".join(name.strip().split())
    if m := _PERSON_SLUG.match(raw):
        return m.group(1), m.group(2).replace("-", " ").replace("_", " ").strip()
    if m := _PERSON_NAME.match(raw):
        return m.group(1), m.group(2).strip()
    if m := _PERSON_ZH.match(raw):
        return m.group(1), m.group(2).strip()
    return "", raw.replace("-", " ").replace("_", " ").strip() if " " not in raw else raw


def _clean(text: str) -> str:
    """A note's text as sentences: provenance and other predicates out, a wikilink as its
    alias (or its target's name)."""
    text = _PREDICATE.sub(" ", text)
    text = _WIKILINK.sub(lambda m: m.group(2) or m.group(1).rsplit("/", 1)[-1].removesuffix(".md"),
                         text)
    return text


def _chinese_head(topic: str) -> str | None:
    words = [(w, f) for w, f in chinese_tagged(topic) if w.strip()]
    if not words:
        return "empty"
    word, flag = words[-1]  # a Chinese phrase ends on its head
    if flag.startswith(_ZH_NOUN_FLAGS) or flag in ("eng", "x"):
        return None
    return f"{_ZH_WHY.get(flag[:1], f'tagged {flag}')} ('{word}')"


def no_topic_name(name: str, body: str = "") -> str | None:
    """Why `name` has no topic (None when its topic names a thing).

    The topic is what follows the person (`person_and_topic`: "Person's …", "某某的…"; the
    whole name when it names no person), restored to the capitals and hyphens the note's
    body writes it with (`_as_written`: "nike" → "Nike", "to do list" → "to-do list").
    English: the name is read by spaCy as written ("Caroline's asking") and the head of
    the topic must be tagged a noun or proper noun — a head that is a verb ("asking",
    "Caroline's running" read as "Caroline is running"), an adjective alone, an adverb, a
    number, a pronoun or an interjection names nothing. The topic read alone must not be
    headed by an adverb, number, pronoun or particle, nor be an adjective with an adverb
    ("so fun"). A head noun still fails when it is what is left of a contraction ("re" of
    "they're": the tails of spaCy's own tokenizer exceptions) or when every use of the
    word in the note's body is tagged one of those (and none is capitalised inside a
    sentence, as a name is). What the small pipeline reads as a noun passes: a texted
    "lol" is tagged a noun or a verb, so "Person's lol" is not caught.
    Chinese: the topic's last word (its head) must be a noun in jieba's tags (n…, vn, an);
    an activity verb ("骑行") is flagged.
    """
    person, topic = person_and_topic(name)
    if not topic:
        return "no topic after the person"
    if _CJK.search(topic) and not re.search(r"[A-Za-z]{2}", topic):
        return _chinese_head(topic)
    topic = _as_written(topic, body) if body else topic
    shown = f"{person}'s {topic}" if person else topic
    doc = english_docs([shown])[0]
    start = len(english_docs([f"{person}'s"])[0]) if person else 0
    words = [t for t in doc[start:] if not t.is_punct and not t.is_space]
    if not words:
        return "no topic after the person"
    if len(words) == 1 and _bare(words[0].text) in _contraction_tails():
        return f"a contraction remnant ('{words[0].text}')"
    head = _phrase_head(words, start)
    if head.pos_ not in _NOUNS:
        return f"{_EN_WHY.get(head.pos_, 'tagged ' + head.pos_)} ('{head.text}')"
    alone = _phrase_head([t for t in english_docs([topic])[0] if not t.is_punct], 0)
    if alone.pos_ in _NOT_A_THING - {"ADJ", "INTJ"} or (
            alone.pos_ == "ADJ" and any(c.dep_ == "advmod" for c in alone.children)):
        return f"{_EN_WHY[alone.pos_]} ('{alone.text}')"
    if _bare(head.text) in _contraction_tails():
        return f"a contraction remnant ('{head.text}')"
    if body and head.is_alpha:
        uses = [t for d in english_docs(_sentences(_clean(body))) for t in d
                if t.lower_ == head.lower_]
        if any(t.text[:1].isupper() and not t.is_sent_start for t in uses):
            uses = []  # a name ("Aragorn"): the tagger's reading of it is no evidence
        if uses and all(t.pos_ in _NOT_A_THING for t in uses):
            pos = max({t.pos_ for t in uses}, key=lambda p: sum(t.pos_ == p for t in uses))
            return f"{_EN_WHY[pos]} where the note uses it ('{head.text}')"
    return None


def _as_written(topic: str, body: str) -> str:
    """The topic as the note's own text writes it, when a slug lost that: its capitals
    inside a sentence ("nike" → "Nike", "whispering falls" → "Whispering Falls") and its
    hyphens ("to do list" → "to-do list", "must visit city" → "must-visit city")."""
    words = topic.split()
    if not words:
        return topic
    pattern = re.compile(r"(?<![\w-])" + r"[\s\-‐]+".join(re.escape(w) for w in words)
                         + r"(?![\w-])", re.I)
    hyphenated = None
    for line in _sentences(_clean(body)):
        for m in pattern.finditer(line):
            found = m.group(0)
            before = line[:m.start()].rstrip()
            opens = not before or before[-1] in ".!?:;–—-\"“(" or before.endswith("**")
            if found != found.lower() and not opens:
                return found
            if "-" in found and hyphenated is None:
                hyphenated = found.lower()
    return hyphenated or topic


def _bare(word: str) -> str:
    return word.lower().replace("'", "").replace("’", "")


def _phrase_head(words: list, start: int):
    """The head of the phrase `words` (tokens of one parse from index `start` on): the
    last of them whose syntactic head lies outside the phrase (or is itself)."""
    inside = {t.i for t in words}
    heads = [t for t in words if t.head.i == t.i or t.head.i not in inside]
    return heads[-1] if heads else words[-1]


_LINE_MARK = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*\d{4}-\d{2}-\d{2}\*\*\s*[:：]?\s*)?")


def _sentences(text: str) -> list[str]:
    """A note's lines without their list marker and date, so each opens with its words."""
    return [t for line in text.splitlines() if (t := _LINE_MARK.sub("", line).strip())]


def first_person_description(description: str) -> str | None:
    """The first-person word a description speaks in (None when it speaks of the person):
    outside quotation marks (“…”, "…", 「…」, 『…』, ‘…’), an English "I", "me", "my",
    "mine", "myself" as spaCy tokenizes them ("im" and "I’m" hold an "i"), or a Chinese
    pronoun of the first person (jieba's `r` words holding 我: 我, 我们, …)."""
    text = _QUOTED.sub(" ", description)
    if _CJK.search(text):
        for word, flag in chinese_tagged(text):
            if flag.startswith("r") and "我" in word:
                return word
    doc = english_docs([text])[0]
    for token in doc:
        if token.lower_ in _FIRST_PERSON_EN and token.pos_ == "PRON" and not _in_compound(token):
            return token.text
    return None


def _in_compound(token) -> bool:
    """"me-time": the word is part of a hyphenated compound, not a pronoun."""
    doc = token.doc
    after = token.i + 1 < len(doc) and not token.whitespace_ and doc[token.i + 1].text == "-"
    before = token.i > 0 and doc[token.i - 1].text == "-" and not doc[token.i - 1].whitespace_
    return after or before


_GLUED = re.compile(r"^([^\W\d_]+)['’](m|ve)$", re.I)
_MODAL_GLUED = re.compile(r"['’](ll|d)$", re.I)  # "Caroline’ll do": will + a base form


def broken_agreement(text: str, people: Iterable[str] = ()) -> list[str]:
    """Broken contractions and agreement errors in `text` (quotations left out): a token
    that glues a capitalised or known name to 'm or 've ("Caroline’m": spaCy splits the
    pronoun's "I'm", so a token it leaves whole is a name's; a texted "u’ve" is not), and
    a singular name (spaCy: a proper noun, or a noun it knows as a PERSON, with no second
    subject joined to it) that is the subject of a first-person present form (tag VBP:
    "Caroline haven't", "Melanie are", "Jon don't"). `people`: names known to be people's
    (those the notes are named after), counted as names even where spaCy tags them a
    common noun; a sentence's first word counts only when it is one of them (the small
    pipeline takes "Lemme" and "Wanna" there for names). A name glued to 'll or 'd
    ("Caroline’ll do") is a modal and its base form is right. Each hit as the words that
    show it."""
    known = {p.lower() for p in people if p}
    found = []
    for sentence in _sentences(_QUOTED.sub(" ", _clean(text))):
        doc = english_docs([sentence])[0]
        for token in doc:
            m = _GLUED.match(token.text)
            if m and (m.group(1).lower() in known or m.group(1)[:1].isupper()) \
                    and m.group(1).lower() not in ("i", "we", "you", "they"):
                found.append(token.text)
                continue
            if token.dep_ not in ("nsubj", "nsubjpass") or token.tag_ in ("NNS", "NNPS") \
                    or _MODAL_GLUED.search(token.text):
                continue
            if token.is_sent_start and token.lower_ not in known:
                continue  # "Lemme know", "Wanna start": the tagger's guess at a sentence's start
            named = token.pos_ == "PROPN" or token.ent_type_ == "PERSON" or token.lower_ in known or (
                token.pos_ == "NOUN" and token.text[:1].isupper())
            if not named or any(c.dep_ == "conj" for c in token.children):
                continue
            verb = token.head
            auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
            if not auxiliaries and _bare_infinitive(verb, token):
                continue
            bad = [f for f in [verb, *auxiliaries] if f.tag_ == "VBP"]
            if bad:
                found.append(f"{token.text} {bad[0].text}")
    return found


def _bare_infinitive(verb, subject) -> bool:
    """"made Caroline appreciate", "let Melanie hear": a base form after a verb that comes
    before its subject is an infinitive (spaCy's small pipeline often tags it VBP)."""
    governor = verb.head
    return (verb.dep_ in ("ccomp", "xcomp") and governor.pos_ in ("VERB", "AUX")
            and governor.i < subject.i and verb.lower_ == verb.lemma_.lower())


def dated_bullets(body: str) -> list[tuple[str, str]]:
    """(date, text) of the note's dated bullets (`- **2023-05-08**: …`), provenance out."""
    out = []
    for line in body.splitlines():
        if m := _DATED_BULLET.match(line):
            out.append((m.group(1), " ".join(_clean(m.group(2)).split())))
    return out


def _forms(token) -> set[str]:
    """A token's lemma and its own lowercased word, letters only ("family-" → family;
    "Running" → running and run), so a noun and its verb reading meet."""
    return {f for f in (re.sub(r"[\W\d_]+", "", token.lemma_.lower()),
                        re.sub(r"[\W\d_]+", "", token.lower_)) if len(f) > 1}


def _content_lemmas(doc, drop: set[str]) -> set[str]:
    return {f for t in doc if t.pos_ in _CONTENT and not t.is_stop for f in _forms(t)} - drop


def _noun_lemmas(doc, drop: set[str]) -> set[str]:
    return {f for chunk in doc.noun_chunks for t in chunk
            if t.pos_ in _NOUNS and not t.is_stop for f in _forms(t)} - drop


def mixed_topics(name: str, body: str) -> str | None:
    """The first bullet of `body` that is about another topic than the one `name` names
    (None when the note keeps to one).

    Definition (docs/benchmarks.md): the topic's content lemmas are those of the name's
    topic (`person_and_topic`; nouns, proper nouns, verbs, adjectives, spaCy's stop words
    and the person's own name left out). A dated bullet is *on topic* when one of its
    content lemmas is a topic lemma. A bullet that is not on topic *continues* the topic
    when a noun lemma of its noun phrases is a noun lemma of an on-topic bullet's noun
    phrases ("the agency called back" after "the adoption agency interview"). The note
    mixes two topics when at least one bullet is on topic and another bullet neither is
    on topic nor continues it. Notes with fewer than two dated bullets, and Chinese notes
    (no lemmas), are not judged. A topic with no content lemma ("Caroline's plan" has
    one; "Caroline's them" none) is left to `no_topic_name`.
    """
    bullets = dated_bullets(body)
    person, topic = person_and_topic(name)
    if len(bullets) < 2 or _CJK.search(topic) or _CJK.search(body):
        return None
    drop = {person.lower()} if person else set()
    topic_lemmas = _content_lemmas(english_docs([topic])[0], drop)
    if not topic_lemmas:
        return None
    docs = english_docs([text for _, text in bullets])
    on = [bool(_content_lemmas(d, drop) & topic_lemmas) for d in docs]
    if not any(on):
        return None
    carried = set().union(*(_noun_lemmas(d, drop) for d, o in zip(docs, on, strict=True) if o))
    for (date, text), doc, is_on in zip(bullets, docs, on, strict=True):
        if not is_on and not (_noun_lemmas(doc, drop) & (carried | topic_lemmas)):
            return f"{date}: {text[:160]}"
    return None


@dataclass
class NoteVoice:
    """The four measures over a set of notes: each list holds (note name, what shows it)."""

    notes: int = 0
    no_topic: list[tuple[str, str]] = field(default_factory=list)
    first_person: list[tuple[str, str]] = field(default_factory=list)
    agreement: list[tuple[str, str]] = field(default_factory=list)
    mixing: list[tuple[str, str]] = field(default_factory=list)

    def rate(self, what: str) -> float:
        return len(getattr(self, what)) / self.notes if self.notes else 0.0

    def targets(self) -> dict[str, bool]:
        return {what: self.rate(what) <= limit for what, limit in TARGETS.items()}

    def to_json(self) -> dict:
        return {"notes": self.notes,
                **{what: {"rate": self.rate(what), "count": len(getattr(self, what)),
                          "notes": [list(x) for x in getattr(self, what)]} for what in TARGETS}}


def measure_notes(notes: Iterable[tuple[str, str, str]]) -> NoteVoice:
    """`NoteVoice` of (name, description, body) triples; a note counts once per measure.
    The people the notes are named after are the names `broken_agreement` knows."""
    notes = list(notes)
    people = {person for name, _, _ in notes if (person := person_and_topic(name)[0])}
    out = NoteVoice()
    for name, description, body in notes:
        out.notes += 1
        if why := no_topic_name(name, body):
            out.no_topic.append((name, why))
        if word := first_person_description(description):
            out.first_person.append((name, f"{word}: {description}"))
        if errors := broken_agreement(f"{description}\n{body}", people):
            out.agreement.append((name, "; ".join(errors)))
        if bullet := mixed_topics(name, body):
            out.mixing.append((name, bullet))
    return out
