"""The topic a noun phrase names, read from spaCy's parse (docs/spec.md §5.2.8): the half of
`topics.py` that looks at one phrase or one word, where `topics.py` reads whole sentences.

A phrase names a topic when its head is a noun — never a pronoun, a date or a number,
never the listener's or another's ("your paintings", "her studio"), never a person of the
chat addressed or named ("thanks nate", "mel" for Melanie), never a light noun ("a great
time"), a word the tagger calls a noun bare that reads as an adjective or adverb ("doing
good"), a noun in a fixed frame ("in touch with", "since our last chat"), a kind named
only against "one" ("my ground one"), or a thing whose content is an infinitive after it
("my turn to bring the bibs"). Activities are verbs in -ing with nothing of their own ("I
love painting", "I'm camping this weekend").

Also here: who a word is — the speaker (`first_person`), the listener (`second_person`,
texted "u" too) — and the `Topic` value itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ...textrules.nlp import english_docs

# laughter and chat acronyms are the typed form of an emoji or a shrug: a tagger trained on
# written English reads "lol" or "ok" as a noun, so they never name a topic (a closed class
# of chat signals, not grammar); they stay in the quote, as said
_CHAT_SIGNAL = re.compile(r"(?:lo+l|lmf?ao|rofl|(?:ha)+h?|(?:he){2,}|xd|omg|ok|okay|k|tbh|idk|imo|"
                          r"imho|ngl|btw|ty|thx|pls|plz|rn|nvm|tho|[哈嘿呵]{2,})", re.I)


# nouns that name no thing of their own: "a great time", "the whole thing", "a lot"
_LIGHT = frozenset(
    "thing stuff time way lot bit kind sort type one something anything everything nothing "
    "someone anyone everyone day moment while part piece bunch couple number deal fun people "
    "person guy guys folks look self place shot try chance break sense favorite favourite fave "
    "best worst".split())


# verbs that name no activity of their own: "keep going", "I'm doing it", "get started"
_LIGHT_VERBS = frozenset(
    "be have do go get make take come try look think feel keep start give put say see know "
    "want need let move happen seem".split())


_NOT_TOPIC_ENTS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT"})
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


_ARGUMENTS = frozenset({"dobj", "pobj", "attr", "oprd", "dative", "appos", "conj", "nsubj",
                        "nsubjpass", "acomp", "ROOT", "compound"})


@dataclass(frozen=True)
class Topic:
    """A noun phrase a statement is about: as written (without its determiner) and its
    key, the content lemmas (lowercased, hyphens and apostrophes dropped)."""

    text: str
    words: tuple[str, ...]  # the key's lemmas in order
    # said of the person, no thing of theirs: "Sofia does not drive", never "Sofia's driving"
    predicate: bool = False

    @property
    def key(self) -> frozenset[str]:
        return frozenset(self.words)


def _norm(word: str) -> str:
    return re.sub(r"[-'’_]", "", word.lower())


def first_person(tok) -> bool:
    return tok.pos_ == "PRON" and "1" in tok.morph.get("Person")


_TEXTED_YOU = frozenset({"u", "ur", "ya", "yall", "y'all", "ye"})  # "u'd", "ur paintings"


def second_person(tok) -> bool:
    # "happy for u. these …": the small pipeline reads "u." as one token, an abbreviation
    return (tok.pos_ == "PRON" and "2" in tok.morph.get("Person")) \
        or re.split(r"['’]", tok.lower_.rstrip("."))[0] in _TEXTED_YOU


def _subject(head):
    return next((c for c in head.children
                 if c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj", "csubjpass")), None)


def _owned_by_speaker(tok) -> bool:
    """A noun the speaker owns: "my sister", "our dog", "my gf jess"."""
    return any(c.dep_ == "poss" and first_person(c) for c in tok.children) or any(
        c.dep_ == "compound" and _owned_by_speaker(c) for c in tok.children)


def _someone_elses(tok) -> bool:
    """A noun another owns: "your willingness", "its nice" (a texted "it's"), "her
    studio", "each other's backs" — a possessor that is no noun and not the speaker."""
    return any(c.dep_ == "poss" and not first_person(c) and c.pos_ not in ("NOUN", "PROPN")
               for c in tok.children)


def _names_a_speaker(tok, names: frozenset[str]) -> bool:
    """A person of the chat, as written or texted: "nate", "John", "mel" for Melanie (a
    name cut short is how people address each other)."""
    word = re.split(r"['’]", tok.lower_)[0]
    if not word:
        return False
    lowered = {n.lower() for n in names}
    return word in lowered or (len(word) >= 3 and (tok.pos_ == "PROPN" or tok.ent_type_ == "PERSON")
                               and any(n.startswith(word) for n in lowered))


def _addressed(tok) -> bool:
    """A capitalised name standing alone between a comma and the edge of its sentence or
    a greeting ("Hey Caroline, …", "…, Caroline.", "Caroline, I …"): the listener
    addressed, whoever they are (in a chat with an assistant its label is no name)."""
    if not tok.is_title or tok.pos_ not in ("PROPN", "NOUN"):
        return False
    sent = tok.sent
    before = tok.doc[tok.i - 1] if tok.i > sent.start else None
    after = tok.doc[tok.i + 1] if tok.i + 1 < sent.end else None
    opens = before is None or before.pos_ == "INTJ" or before.text == ","
    closes = after is None or after.text in (",", ".", "!", "?", "…")
    return opens and closes and "," in (before.text if before is not None else "",
                                        after.text if after is not None else "")


@lru_cache(maxsize=4096)
def _frame_reading(word: str) -> tuple[str, str, str]:
    """The parts of speech the tagger gives `word` where a thing could stand too ("It was
    very good.", "It was no.", "They yours often."): a bare "good" or "nice" it tagged a
    noun in a reaction ("Doing good!", "its nice …") reads as an adjective or adverb, a
    "yours" or "a no" as a pronoun, an interjection or a determiner — none names a thing."""
    docs = english_docs([f"It was very {word}.", f"It was {word}.", f"They {word} often."])
    return docs[0][3].pos_, docs[1][2].pos_, docs[2][1].pos_


@lru_cache(maxsize=4096)
def _object_reading(word: str) -> str:
    """The part of speech the tagger gives `word` as the object of a verb of liking ("I love
    midwifery."), where an adjective cannot stand alone but a noun can."""
    return english_docs([f"I love {word}."])[0][2].pos_


def noun_read_as_adjective(tok) -> bool:
    """A modifier the tagger called an adjective that is a noun naming a kind ("a midwifery
    degree", "a marine engineer", "my leopard gecko"): read alone as an object, it is a
    noun. A judgement ("a great degree", "a lovely engineer") stays an adjective."""
    return tok.pos_ == "ADJ" and tok.dep_ == "amod" and tok.is_alpha and tok.is_lower \
        and _object_reading(tok.lower_) == "NOUN"


def _taken_by_a_verb(tok) -> bool:
    """The object of a verb that names an act of its own ("i play netball"): a thing, though
    the frame of `_frame_reading` reads a word it rarely saw ("netball", "cello") as an
    adjective; a light verb's object may be a predicate ("doing good")."""
    return tok.dep_ == "dobj" and tok.head.pos_ == "VERB" and tok.head.lemma_.lower() not in _LIGHT_VERBS


def _reads_as_modifier(word: str) -> bool:
    return _frame_reading(word)[0] in ("ADJ", "ADV")


def _function_word(word: str) -> bool:
    return any(pos in ("PRON", "INTJ", "DET") for pos in _frame_reading(word)[1:])


_MODIFIERS = frozenset({"det", "poss", "amod", "compound", "nummod", "nmod", "quantmod", "predet"})


def _bare(tok) -> bool:
    return not any(c.dep_ in _MODIFIERS for c in tok.children)


def _idiom(root) -> bool:
    """A noun that is part of a fixed frame rather than a thing of its own, told by its
    place in the parse: between two prepositions ("in touch with"), held by a verb with an
    object predicate ("keep hope alive"), a time after a subordinating "since" ("since our
    last chat"), joined to a verb as an exclamation ("…, but thanks for the advice"), or a
    mass noun with nothing but a comparative ("more info")."""
    if root.pos_ != "NOUN":
        return False
    if root.dep_ == "pobj" and root.head.pos_ == "SCONJ":
        return True
    if _bare(root) and root.dep_ == "pobj" and _between_prepositions(root):
        return True
    if _bare(root) and root.dep_ == "dobj" and any(c.dep_ == "oprd" for c in root.head.children):
        return True
    if _bare(root) and root.dep_ == "conj" and root.head.pos_ in ("VERB", "AUX"):
        return True
    mods = [c for c in root.children if c.dep_ in _MODIFIERS]
    return root.tag_ == "NN" and len(mods) == 1 and mods[0].tag_ == "JJR"


def _between_prepositions(root) -> bool:
    """A bare noun that a preposition before it and one after it frame into one ("in touch
    with", "in charge of"): the next word is a preposition, of the noun or of the light
    verb the first one hangs from. A goal after "to" is a place ("went to school with
    friends")."""
    prep, after = root.head, root.doc[root.i + 1] if root.i + 1 < len(root.doc) else None
    if after is None or after.dep_ != "prep" or prep.lower_ == "to":
        return False
    return after.head.i == root.i or (after.head.i == prep.head.i
                                      and prep.head.lemma_.lower() in _LIGHT_VERBS)


def _light_object(tok) -> bool:
    """An indefinite noun with nothing of its own that "have" takes while the verb says
    where or with what, or a gerund says doing what ("we had a blast at the fest", "had a
    blast exploring the forest"): what the sentence is about is what those name. "I have
    a dog at home" (the place is the dog's) and "I have a dog" keep the dog."""
    verb, doing = tok.head, [c for c in tok.children if c.dep_ == "acl" and c.tag_ == "VBG"]
    return tok.dep_ == "dobj" and verb.lemma_.lower() == "have" and all(
        c.dep_ == "det" and "Ind" in c.morph.get("Definite") for c in tok.children if c not in doing) \
        and any(c.dep_ == "det" for c in tok.children) \
        and bool(doing or any(c.dep_ == "prep" for c in verb.children))


def _quoted(tok) -> tuple | None:
    """The quoted span `tok` stands in, as (first, last) token, when its sentence puts it
    between a pair of quotation marks: a title ("becoming nicole") is named whole."""
    sent = tok.sent
    marks = [t.i for t in sent if t.text in ('"', "“", "”")]
    for a, b in zip(marks[::2], marks[1::2], strict=False):
        if a < tok.i < b and b - a <= 10:
            return a + 1, b - 1
    return None


def _verb_read_as_noun(tok) -> bool:
    """A bare noun with a clause of its own whose subject is a pronoun, as in "- hope you
    are too": the tagger read the verb of a clause as a noun."""
    return not any(c.dep_ in ("det", "poss") for c in tok.children) and any(
        c.dep_ in ("acl", "relcl", "ccomp") and (s := _subject(c)) is not None and s.pos_ == "PRON"
        and not any(m.dep_ in ("mark", "relcl") or m.tag_ in ("WDT", "WP") for m in c.children)
        for c in tok.children)


def _command_read_as_name(tok) -> bool:
    """A line's opening root with a determiner's phrase on it right after ("Book the dentist"):
    a command read as a name (a name in apposition takes a comma: "Dana, the plumber")."""
    after = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    return tok.i == tok.sent.start and tok.dep_ == "ROOT" and after is not None \
        and after.pos_ == "DET" and after.head.head.i == tok.i \
        and not any(c.i < tok.i for c in tok.children)


def topic_from_chunk(chunk, names: frozenset[str], *, any_role: bool = False,
                     yours: bool = False) -> Topic | None:
    """The topic a noun phrase names, if any. `yours`: the phrase is the assistant's question
    to the user ("Your piano exam?"), where the listener's thing is the user's — the one place
    a "your" is kept."""
    root = chunk.root
    named = root.pos_ == "PROPN" and root.is_title and root.i > root.sent.start  # "Highland Way"
    light = _norm(root.lemma_) in _LIGHT and not named
    # a light head after a name says nothing the name does not: "my Berlin Marathon place"
    # is the Berlin Marathon (a date before it names no thing: "my Tuesday slot")
    title = [t for t in chunk if t.i < root.i and t.dep_ == "compound" and t.pos_ == "PROPN"
             and not t.is_lower and t.ent_type_ not in _NOT_TOPIC_ENTS] if light else []
    if root.pos_ not in ("NOUN", "PROPN") or (light and not title) \
            or _CHAT_SIGNAL.fullmatch(root.text):
        return None
    if root.dep_ not in _ARGUMENTS and not any_role:
        return None
    if root.ent_type_ in _NOT_TOPIC_ENTS or root.lower_.rstrip("s") in WEEKDAYS:  # "thursdays"
        # a date is no topic, unless a word outside it says what it is: "vegan january"
        kept = [t for t in chunk if not t.ent_type_ and t.pos_ in ("ADJ", "NOUN", "PROPN")
                and t.lower_.rstrip("s") not in WEEKDAYS]
        if not kept:
            return None
        words = tuple(_norm(t.lemma_ if t.pos_ in ("NOUN", "PROPN") else t.lower_)
                      for t in chunk if t.pos_ in ("ADJ", "NOUN", "PROPN"))
        shown = " ".join(t.lower_ for t in chunk if t.pos_ in ("ADJ", "NOUN", "PROPN"))
        return _topic(shown, words)
    owner = next((c for c in root.children if c.dep_ == "poss"), None)
    asked_of_user = yours and owner is not None and second_person(owner)
    if not asked_of_user and (any(second_person(t) for t in chunk) or _someone_elses(root)):
        return None  # "your paintings": the listener's; "her studio": someone else's
    if any(_names_a_speaker(t, names) for t in chunk) or (len(chunk) == 1 and _addressed(root)):
        return None  # a person of the chat, addressed or named ("thanks nate", "mel")
    if _verb_read_as_noun(root) or _idiom(root) or _command_read_as_name(root) \
            or _errand(root) or _shown(root):
        return None
    if root.dep_ == "attr" and (any(c.dep_ == "det" and c.lower_ == "no" for c in root.children)
                                or any(c.dep_ == "neg" for c in root.head.children)):
        return None  # "I'm no writer like you", "I'm not a nurse": what they are not
    kind = _kind_of_one(root)
    if kind is not None:  # "the clip-on one" is a clip-on; "my ground one" names nothing
        toks = list(root.doc[root.i: kind + 1])
        return _topic("".join(t.text_with_ws for t in toks).strip(),
                      tuple(_norm(t.lower_) for t in toks)) if len(toks) > 1 else None
    if title:
        return _topic(" ".join(t.text for t in title), tuple(_norm(t.lemma_) for t in title))
    quoted = _quoted(root)
    if quoted is not None:  # a title, whole: "becoming nicole", not its last word
        toks = [t for t in root.doc[quoted[0]: quoted[1] + 1] if not t.is_punct]
        words = tuple(_norm(t.lemma_ if t.pos_ in ("NOUN", "PROPN") else t.lower_) for t in toks)
        return _topic(" ".join(t.text for t in toks), words)
    entity = next((e for e in chunk.doc.ents if e.start <= root.i < e.end
                   and e.label_ not in _NOT_TOPIC_ENTS and len(e) > 1
                   and any(t.pos_ == "PROPN" or t.is_title for t in e)), None)
    if entity is not None:  # a name stays whole: "Charlotte's Web", "New York City"
        toks = [t for t in entity]
        while toks and toks[0].pos_ in ("DET", "PRON"):
            toks.pop(0)
        while toks and toks[-1].pos_ in ("CCONJ", "PUNCT", "PART", "ADP"):
            toks.pop()
        words = tuple(_norm(t.lemma_ if t.pos_ in ("NOUN", "PROPN") else t.lower_) for t in toks
                      if t.pos_ not in ("PUNCT", "PART", "DET"))
        shown = "".join(t.text_with_ws for t in toks).strip()
        return _topic(shown, words)
    toks = list(chunk)
    while toks and not _hyphened(toks[0]) and (
            toks[0].pos_ in ("DET", "PRON", "NUM", "ADV", "PART", "PUNCT", "SYM", "ADP",
                             "SCONJ", "CCONJ")
                    or toks[0].ent_type_ in _NOT_TOPIC_ENTS  # "last week's scrimmage"
                    or toks[0].dep_ in ("case", "nummod", "predet")
                    or (toks[0].dep_ == "poss" and toks[0].pos_ == "PRON")):
        toks.pop(0)
    # a phrase names a thing by its nouns: "a great support system" is the support system,
    # "amazing young folks" folks; an adjective that is part of a name stays ("Italian",
    # "LGBTQ") — and the judgement is still in the quote
    while len(toks) > 1 and toks[0].pos_ in ("ADJ", "ADV", "CCONJ", "PUNCT") and not (
            toks[0].ent_type_ or toks[0].is_upper or (toks[0].is_title and toks[0].i > toks[0].sent.start)
            or noun_read_as_adjective(toks[0])
            or (toks[1].tag_ == "HYPH" and not toks[0].whitespace_)  # "upside-down poses"
            or (toks[0].dep_ == "amod" and toks[0].head.dep_ == "compound"
                and toks[0].head.i == toks[0].i + 1)):
        toks.pop(0)  # an adjective of the noun right after it, before the head, names a kind
        # of that noun: "stained glass window", "high school history" — one of the head
        # judges it, and one the parse hangs on a noun further on ("the amazing banana
        # split sundae") is read as the head's
    if len(toks) == 1 and (_norm(toks[0].lemma_) in _LIGHT or _function_word(toks[0].lower_) or (
            toks[0].tag_ == "NN" and toks[0].is_lower and not list(root.children)
            and not _taken_by_a_verb(root) and _reads_as_modifier(toks[0].lower_))):
        return None  # "a great time"; "a no", "yours"; a bare "good" read as a noun ("Doing good!")
    cut = next((i for i, t in enumerate(toks) if t.pos_ in ("PUNCT", "SYM") and not (
        t.text in ("'", "’") or (t.text == "-" and not t.whitespace_
                                 and not t.doc[t.i - 1].whitespace_))), len(toks))
    toks = toks[:cut]  # "kids' books - classics, stories …": the phrase ends at the dash
    if not toks or " ".join(t.text for t in toks) in names or toks[-1].text in names:
        return None
    shown = "".join((t.text if (t.pos_ == "PROPN" or t.ent_type_ or (t.is_upper and len(t) > 1)
                     or t.dep_ == "case" or (t.is_title and t.i > t.sent.start))
                     else t.lower_) + t.whitespace_ for t in toks).strip()
    words = tuple(_norm(t.lemma_ if t.pos_ in ("NOUN", "PROPN") else t.lower_) for t in toks
                  if (t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "X") or _hyphened(t))
                  and t.dep_ != "case")
    return _topic(shown, words)


def _hyphened(tok) -> bool:
    """A word joined to the next or the one before by a hyphen with no space: one word
    with it ("five-a-side", "six-year-old"), though the tagger reads a number or "a"."""
    doc = tok.doc
    return (tok.i + 2 < len(doc) and not tok.whitespace_ and doc[tok.i + 1].text == "-"
            and not doc[tok.i + 1].whitespace_) or (
        tok.i >= 2 and doc[tok.i - 1].text == "-" and not doc[tok.i - 1].whitespace_
        and not doc[tok.i - 2].whitespace_)


def _kind_of_one(root) -> int | None:
    """Where a noun that only says which of a kind ends, the kind left to "one" ("my ground
    one", "the clip-on one"), else None. A hyphened word is what people call the thing
    itself ("I'll get the clip-on one": a clip-on); one noun before "one" only says where
    it is used, the thing is named elsewhere or not at all."""
    doc, end = root.doc, root.i
    while end + 1 < len(doc) and not doc[end].whitespace_ and (
            doc[end + 1].is_alpha or doc[end + 1].text == "-"):  # "clip-on": the whole word
        end += 1
    if end > root.i and end + 1 < len(doc) and doc[end + 1].lower_ in ("one", "ones"):
        return end
    return root.i if any(c.dep_ == "appos" and c.lower_ == "one" and c.i == root.i + 1
                         for c in root.children) else None


def _shown(root) -> bool:
    """A thing handed over as the sentence is said, "here's a pic from when we met up": what
    is in it may be a topic ("a pic of my garden": the garden), the picture itself is not;
    a thing of the speaker's shown so is still theirs ("here's my new puppy", "here's a
    self-portrait I made last week")."""
    verb = root.head
    made = any(c.dep_ in ("relcl", "acl") and any(s.dep_ == "nsubj" and first_person(s)
                                                 for s in c.children)
               and not any(w.tag_ == "WRB" for w in c.children)  # "from when we met up"
               for c in root.children)
    return root.dep_ in ("attr", "nsubj") and verb.lemma_ == "be" and not made and not any(
        c.dep_ == "poss" for c in root.children) and any(
        c.dep_ == "advmod" and c.lower_ == "here" and c.i < verb.i for c in verb.children)


def _errand(root) -> bool:
    """A thing of the speaker's whose content is an infinitive after it ("my turn to bring
    the bibs", "my plan to visit Rome"): the noun names no thing, what it says to do does."""
    return any(c.dep_ == "poss" for c in root.children) and not any(
        c.dep_ in ("amod", "compound") for c in root.children) and any(
        c.dep_ == "acl" and any(a.dep_ == "aux" and a.tag_ == "TO" for a in c.children)
        for c in root.children)


def _topic(shown: str, words: Sequence[str]) -> Topic | None:
    """A topic of the words that name it, when any does: a hyphen the tagger read as a
    noun ("to de-stress": "de", "-", "stress") names nothing."""
    kept = tuple(w for w in words if w and any(ch.isalnum() for ch in w))
    # one letter names nothing of its own: a chord, a grade, a variable ("from C to F")
    return Topic(shown, kept) if kept and sum(ch.isalnum() for ch in shown) > 1 else None


def _activity(tok) -> Topic | None:
    """An activity as a verb in -ing with nothing of its own but who it is done with ("I
    love painting", "went hiking", "used to go sailing with my uncle"): "thinking of going
    back to school" is about the school."""
    if tok.tag_ != "VBG" or tok.lemma_.lower() in _LIGHT_VERBS \
            or tok.dep_ not in ("dobj", "xcomp", "pcomp", "advcl", "conj") \
            or any((c.dep_ not in ("advmod", "npadvmod", "punct", "conj", "cc")
                    and not _with_someone(c)) or c.pos_ == "VERB" for c in tok.children) \
            or _CHAT_SIGNAL.fullmatch(tok.text) \
            or (tok.dep_ == "pcomp" and tok.head.lower_ == "without"):
        return None  # "bouldering twice a week" is one; "going back to school" is about
        # school; "without stopping" says how, not what is done
    return Topic(tok.lower_, (_norm(tok.lower_),))


def _with_someone(prep) -> bool:
    """A preposition whose object is a person of the speaker's or a person named ("with my
    uncle", "with Jess"): who an activity is done with, not what it is about."""
    return prep.dep_ == "prep" and any(
        o.dep_ == "pobj" and (o.ent_type_ == "PERSON" or (_owned_by_speaker(o) and o.pos_ == "NOUN"
                                                          and not list(o.rights)))
        for o in prep.children)


def _doing(head) -> Topic | None:
    """A clause whose verb is an activity in -ing that takes no object and says where or
    when by a name or a date ("I'm camping this weekend", "Last week I was hiking in the
    Peaks", "I've been running longer since our last chat"): the activity is what it
    tells, before the place, the person or the time. A verb with no subject of its own
    tells no activity of the speaker's ("asking for a day off"; "she's 9 and terrified.
    been practising every night" is the girl's practising), nor one with no named place
    or time ("I'm just kidding", "i'm starving all the time"); a thing it is done with or
    on is the topic instead ("I'm working on my novel"), and so is what a purpose clause
    after it names ("I'm flying to Porto to see my mum")."""
    kids = list(head.children)
    if head.tag_ != "VBG" or head.lemma_.lower() in _LIGHT_VERBS or head.pos_ != "VERB" \
            or _CHAT_SIGNAL.fullmatch(head.text) \
            or any(c.dep_ in ("dobj", "attr", "ccomp", "xcomp", "dative", "oprd", "acomp", "prt",
                              "advcl") for c in kids) \
            or head.dep_ not in ("ROOT", "conj", "ccomp") \
            or not any(c.dep_ == "nsubj" for c in kids):
        return None
    where = [o for c in kids if c.dep_ == "prep" for o in c.children if o.dep_ == "pobj"]
    if any(o.pos_ == "NOUN" and not o.ent_type_ and not _idiom(o) for o in where):
        return None
    # a time after a subordinating "since" is a when too ("since our last chat")
    named = any(o.ent_type_ or o.pos_ == "PROPN" or o.head.pos_ == "SCONJ" for o in where) or any(
        c.dep_ == "npadvmod" and c.ent_type_ in ("DATE", "TIME") for c in kids)
    return Topic(head.lower_, (_norm(head.lower_),)) if named else None


_TAKES = frozenset("dobj dative attr acomp oprd ccomp xcomp prep agent prt advcl npadvmod".split())


def _denied_habit(head) -> Topic | None:
    """A habit or ability the speaker denies, the verb taking nothing ("I don't drive", "I
    can't swim"): the denial kept whole, inflected for a third person ("does not drive")."""
    kids = list(head.children)
    aux = [c for c in kids if c.dep_ == "aux"]
    if head.pos_ != "VERB" or head.tag_ != "VB" or head.lemma_.lower() in _LIGHT_VERBS \
            or len(aux) != 1 or not any(c.dep_ == "neg" for c in kids) \
            or not any(c.dep_ == "nsubj" and first_person(c) for c in kids) \
            or any(c.dep_ in _TAKES and not _when(c) and not _anothers_clause(c) for c in kids):
        return None
    if aux[0].lemma_.lower() == "do":
        said = "does"
    elif aux[0].tag_ == "MD" and aux[0].norm_.lower() == "can":  # an ability ("ca" + "n't")
        said = "cannot"
    else:
        return None  # "I won't drive", "I wouldn't go": a choice of the moment, no habit
    verb = " ".join([head.lemma_.lower(), *(t.lower_ for c in kids if _when(c) for t in c.subtree)])
    return Topic(f"{said} not {verb}" if said == "does" else f"{said} {verb}",
                 (head.lemma_.lower(),), predicate=True)


def _anothers_clause(clause) -> bool:
    """A clause hung on the verb with a subject of its own that is not the speaker ("…,
    my eyes aren't what they were"): it says why, and takes nothing of the verb's."""
    subject = _subject(clause)
    return clause.dep_ in ("advcl", "ccomp", "conj") and subject is not None \
        and not first_person(subject)


def _when(prep) -> bool:
    """A preposition whose object is a bare noun naming no thing, only when or how
    ("after dark", "at night"): the denial is said with it ("does not drive after dark")."""
    objects = list(prep.children)  # the tagger hangs "dark" on "after" as a modifier
    return prep.dep_ == "prep" and len(objects) == 1 and objects[0].tag_ == "NN" \
        and not list(objects[0].children)
