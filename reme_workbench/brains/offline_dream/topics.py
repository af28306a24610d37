"""What a sentence says about its speaker, read from the parse (docs/spec.md §5.2.8): the
reading half of `conversation.py`, which plans units from it.

People are read with a trained pipeline, not word lists (`textrules/nlp.py`: spaCy's small
English pipeline, jieba's parts of speech for Chinese):

* a sentence *states something about its speaker* when a clause of it has a first-person
  subject ("I work in a clinic!", "im making mac and cheese", "我养了一只猫"), a subject
  the speaker owns ("My sister moved to Denver"), or says what is the speaker's ("Painting
  landscapes is my favorite"); a question, and a clause whose subject is someone else
  ("that's great", "sounds like a plan", "I hope *you* have fun", "they always have my
  back") state nothing about them;
* its *topics* are the noun phrases and activities that are arguments of such a clause:
  noun chunks whose head is a noun — never a pronoun, a date or a number, never the
  listener's or another's ("your paintings", "its …", what hangs under "your
  willingness"), never a person of the chat addressed or named ("thanks nate", "mel" for
  Melanie), never a light noun ("a great time"), never a word the tagger calls a noun
  bare that it reads as an adjective or adverb in a predicate ("doing good", "its nice")
  or a verb with a subject of its own ("hope you are too") — and activities ("I love
  painting"). A statement with no topic ("I'm doing great, thanks for asking", "I love
  them so much") is a reaction: it names nothing to remember;
* two phrases name one topic when the content lemmas of one are among the other's
  ("spiderman" / "Spider-Man movies"), or a word of one is the other's cut short ("dance
  comp" / "dance competition"), never when only their head is shared ("activist group" /
  "support group").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ...textrules import is_cjk, one_word_cut_short
from ...textrules.nlp import english_docs
from .zh_statements import read_chinese as zh_read_chinese

__all__ = ["Topic", "Reading", "same_topic", "topic_of", "masked", "read_english", "is_question",
           "read_chinese", "own_line", "topic_from_chunk", "first_person", "second_person",
           "clause_of"]

_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200d]+")
# laughter and chat acronyms are the typed form of an emoji or a shrug: a tagger trained on
# written English reads "lol" or "ok" as a noun, so they never name a topic (a closed class
# of chat signals, not grammar); they stay in the quote, as said
_CHAT_SIGNAL = re.compile(r"(?:lo+l|lmf?ao|rofl|(?:ha)+h?|(?:he){2,}|xd|omg|ok|okay|k|tbh|idk|imo|"
                          r"imho|ngl|btw|ty|thx|pls|plz|rn|nvm|tho|[哈嘿呵]{2,})", re.I)


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def masked(text: str) -> str:
    """`text` with emoji and chat signals blanked, character for character: what the
    pipelines read (a tagger trained on written English parses "italian cooking class lol"
    as a class of lols), while quotes are cut from `text` at the same offsets."""
    out = _EMOJI.sub(_blank, text)
    return re.sub(rf"(?<![\w'’])(?:{_CHAT_SIGNAL.pattern})(?![\w'’])", _blank, out, flags=re.I)


# -- topics ------------------------------------------------------------------------------------

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


def _runs(words: Sequence[str]) -> set[str]:
    return {"".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)}


def same_topic(a: Topic, b: Topic) -> bool:
    """One topic: the content lemmas of one are among the other's ("support group" /
    "LGBTQ support group"), or one is the other written without spaces or hyphens
    ("spiderman" / "Spider-Man movies"). Sharing only a head is not enough ("activist
    group" / "support group")."""
    if not a.words or not b.words:
        return False
    if a.key <= b.key or b.key <= a.key:
        return True
    if one_word_cut_short(a.words, b.words):
        return True
    short, long_ = sorted((a, b), key=lambda t: len("".join(t.words)))
    return "".join(short.words) in _runs(long_.words)


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


def _under_anothers(tok, head) -> bool:
    """Whether `tok` hangs below a noun someone else owns, up to its clause's `head`
    ("your willingness to take risks": the risks are the listener's)."""
    while tok.i != head.i and tok.head.i != tok.i:
        tok = tok.head
        if tok.pos_ in ("NOUN", "PROPN") and _someone_elses(tok):
            return True
    return False


def _anothers_act(tok) -> bool:
    """Whether the speaker's thing is what someone else does something to: "you having my
    back", "they always have my back", "thanks for having my back" (a gerund under a
    reaction has the listener as its subject) — the sentence is about them."""
    if tok.dep_ == "pobj" and tok.head.dep_ == "prep":  # "he hid his bone in my slipper",
        verb = tok.head.head  # "having you in my corner": where another's act happened
        if verb.pos_ == "VERB" and (_takes_the_listener(verb) or (  # not "this has been
                (s := _subject(verb)) is not None and not first_person(s)  # great for my …"
                and not _owned_by_speaker(s))):
            return True
    if tok.dep_ != "dobj":  # "part of my wedding decor", "great for my mental health":
        return False  # said of the speaker's thing, not done to it
    verb = tok.head
    while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
        verb = verb.head
    if verb.pos_ not in ("VERB", "AUX"):
        return False
    subject = _subject(verb)
    if subject is not None:
        return subject.i != tok.i and not first_person(subject) and not _owned_by_speaker(subject)
    over = verb.head.head if verb.dep_ == "pcomp" else verb
    return verb.tag_ == "VBG" and over.pos_ not in ("VERB", "AUX")


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


def _depth(tok, head) -> int:
    """How many dependency steps `tok` hangs below `head` (the verb's own object first)."""
    steps = 0
    while tok.i != head.i and tok.head.i != tok.i and steps < 20:
        tok, steps = tok.head, steps + 1
    return steps


_CLAUSES = frozenset({"ccomp", "advcl", "conj", "parataxis", "relcl", "csubj", "csubjpass",
                      "acl"})


def clause_of(head, names: frozenset[str]) -> list:
    """The tokens of `head`'s clause: its subtree without the clauses inside it that are
    someone else's ("I hope [you have a great time]", "[making a difference] is
    rewarding") — a clause with a subject of its own other than the speaker, a clausal
    subject, or a loose clause after a dash."""
    out = []
    todo = [head]
    while todo:
        tok = todo.pop()
        out.append(tok)
        for child in tok.children:
            if child.dep_ in _CLAUSES:
                subj = _subject(child)
                # someone else's clause: a pronoun that is not the speaker ("you have fun",
                # "that's great"), a clause as subject; a thing as subject stays what the
                # speaker says of it ("I realise that self-care is important")
                if child.dep_ in ("csubj", "csubjpass", "parataxis") or (
                        subj is not None and not first_person(subj) and (
                            subj.pos_ in ("PRON", "VERB", "AUX") or subj.dep_.startswith("csubj"))):
                    continue
            if _the_listeners(child):
                continue
            if child.dep_ in ("relcl", "acl") and tok.pos_ == "PRON":
                continue  # "I made something [to catch the eye]": a thing left unnamed
            todo.append(child)
    return out


def _takes_the_listener(tok) -> bool:
    """Whether a verb takes the listener as its object, or as the subject of a clause it
    takes ("art is helping [you express yourself]": what it does, it does for them)."""
    return any((second_person(c) and c.dep_ in ("dobj", "dative")) or (
        c.dep_ in ("ccomp", "xcomp") and (s := _subject(c)) is not None and second_person(s))
        for c in tok.children)


def _the_listeners(child) -> bool:
    """A part of a clause about the listener: a clause that takes them as its object
    ("… is helping you") or hangs from them ("stoked for u that art is …"), or what a word that takes them says they did ("proud of
    u for spreading awareness": the gerund's doer is the one it is proud of)."""
    if child.dep_ in _CLAUSES and (_takes_the_listener(child) or second_person(child.head)):
        return True  # "… helping you", "stoked for u that art is helping …"
    if child.dep_ != "prep" or not any(c.dep_ == "pcomp" and c.tag_ == "VBG" and _subject(c) is None
                                       for c in child.children):
        return False
    return any(s.dep_ == "prep" and s.i != child.i and any(
        o.dep_ == "pobj" and second_person(o) for o in s.children) for s in child.head.children)


_ASIDES = frozenset({"npadvmod", "intj", "discourse", "vocative", "dep", "meta"})


def _aside(tok, head) -> bool:
    """Whether `tok` hangs from its clause through an aside — "thanks for asking", a
    vocative, "last week" — rather than being what the clause is about."""
    while tok.i != head.i and tok.head.i != tok.i:  # spaCy makes a new Token per access
        if tok.dep_ in _ASIDES:
            return True
        tok = tok.head
    return False


def _measured(tok, head) -> bool:
    """Whether `tok` hangs from its clause through a measure of time that opens it ("Three
    weeks in on the ukulele, I can …", "two months into the guitar"): the thing the time
    is spent on, which the clause goes on to tell of — not an aside."""
    while tok.i != head.i and tok.head.i != tok.i:
        if tok.dep_ in _ASIDES:
            return tok.dep_ == "npadvmod" and tok.pos_ == "NOUN" and tok.i < head.i \
                and any(c.dep_ == "nummod" for c in tok.children) \
                and any(c.dep_ in ("prep", "advmod") for c in tok.children)
        tok = tok.head
    return False


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
    if root.ent_type_ in _NOT_TOPIC_ENTS:
        # a date is no topic, unless a word outside it says what it is: "vegan january"
        kept = [t for t in chunk if not t.ent_type_ and t.pos_ in ("ADJ", "NOUN", "PROPN")]
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
            or _stands_for_one(root) or _errand(root):
        return None
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


def _stands_for_one(root) -> bool:
    """A noun that only says which of a kind, the kind left to "one" ("my ground one",
    "the indoor one"): the thing is named elsewhere, or not at all."""
    return any(c.dep_ == "appos" and c.lower_ == "one" and c.i == root.i + 1 for c in root.children)


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
    """An activity as a verb in -ing with nothing of its own ("I love painting", "went
    hiking"): "thinking of going back to school" is about the school."""
    if tok.tag_ != "VBG" or tok.lemma_.lower() in _LIGHT_VERBS \
            or tok.dep_ not in ("dobj", "xcomp", "pcomp", "advcl", "conj") \
            or any(c.dep_ not in ("advmod", "npadvmod", "punct", "conj", "cc") or c.pos_ == "VERB"
                   for c in tok.children) \
            or _CHAT_SIGNAL.fullmatch(tok.text) \
            or (tok.dep_ == "pcomp" and tok.head.lower_ == "without"):
        return None  # "bouldering twice a week" is one; "going back to school" is about
        # school; "without stopping" says how, not what is done
    return Topic(tok.lower_, (_norm(tok.lower_),))


def _doing(head) -> Topic | None:
    """A clause whose verb is an activity in -ing that takes no object ("I'm camping this
    weekend", "been running longer since our last chat", "Glasbury to Hay, camping one
    night"): the activity is what it tells, before a place, a person or a time in it. It
    must say where or when ("I'm kidding" tells nothing), and a thing it is done with or
    on is the topic instead ("I'm working on my novel")."""
    kids = list(head.children)
    if head.tag_ != "VBG" or head.lemma_.lower() in _LIGHT_VERBS or head.pos_ != "VERB" \
            or _CHAT_SIGNAL.fullmatch(head.text) \
            or any(c.dep_ in ("dobj", "attr", "ccomp", "xcomp", "dative", "oprd", "acomp", "prt")
                   for c in kids) \
            or head.dep_ not in ("ROOT", "conj", "ccomp") \
            or not any(c.dep_ in ("prep", "npadvmod") for c in kids):
        return None
    things = [o for c in kids if c.dep_ == "prep" for o in c.children if o.dep_ == "pobj"
              and o.pos_ == "NOUN" and not o.ent_type_ and not _idiom(o)]
    return None if things else Topic(head.lower_, (_norm(head.lower_),))


_TAKES = frozenset("dobj dative attr acomp oprd ccomp xcomp prep agent prt advcl npadvmod".split())


def _denied_habit(head) -> Topic | None:
    """A habit or ability the speaker denies, the verb taking nothing ("I don't drive", "I
    can't swim"): the denial kept whole, inflected for a third person ("does not drive")."""
    kids = list(head.children)
    aux = [c for c in kids if c.dep_ == "aux"]
    if head.pos_ != "VERB" or head.tag_ != "VB" or head.lemma_.lower() in _LIGHT_VERBS \
            or len(aux) != 1 or not any(c.dep_ == "neg" for c in kids) \
            or not any(c.dep_ == "nsubj" and first_person(c) for c in kids) \
            or any(c.dep_ in _TAKES for c in kids):
        return None
    if aux[0].lemma_.lower() == "do":
        said = "does"
    elif aux[0].tag_ == "MD" and aux[0].norm_.lower() == "can":  # an ability ("ca" + "n't")
        said = "cannot"
    else:
        return None  # "I won't drive", "I wouldn't go": a choice of the moment, no habit
    verb = head.lemma_.lower()
    return Topic(f"{said} not {verb}" if said == "does" else f"{said} {verb}", (verb,),
                 predicate=True)


@dataclass(frozen=True)
class Reading:
    """What a sentence says about its speaker: its topics, best first (none: it only
    joins the unit its turn is on). `context`: it states nothing about the speaker but
    says something of a thing ("the new commute is 40 minutes by train", "she's really
    into pottery"): it goes with the statement next to it in the same turn."""

    topics: tuple[Topic, ...]
    context: bool = False
    # a question naming a being of the speaker's ("Is it ok to give my ferret chicken?"):
    # theirs once the turn tells of it as "he" or "she" (`tells_of_him_or_her`)
    asked_of: tuple[Topic, ...] = ()


def _content_chunks(sent, names: frozenset[str]) -> bool:
    """Whether a sentence names a thing — a noun phrase that is no pronoun, number or
    light word and not the listener's — or a time ("Thursday at 10", the answer to
    "When is it?")."""
    return any(e.label_ in ("DATE", "TIME") for e in sent.ents) or any(
        topic_from_chunk(c, names) for c in sent.noun_chunks
        if c.root.dep_ not in _ASIDES and not first_person(c.root))


def _named(tok) -> bool:
    """A noun that names one thing or person: a name ("Dana", "the Vespa" read as one), or a
    noun a named owner has ("Isla's dance"). A lowercase "proper noun" is the tagger's guess
    at a word it does not know ("ill" for a texted "I'll")."""
    return (tok.pos_ == "PROPN" and not tok.is_lower) or bool(
        tok.ent_type_ and tok.ent_type_ not in _NOT_TOPIC_ENTS) or any(
        c.dep_ == "poss" and (c.pos_ == "PROPN" or _named(c)) for c in tok.children)


def _news(head) -> bool:
    """A clause that tells what happened or will happen rather than what a thing is like:
    a past or future verb ("the lads found a hostel", "has moved", "will start"), or a date
    or time in the clause ("the trip is on the 3rd"); a participle with no auxiliary after
    its noun is a state ("fingers crossed", "super stoked")."""
    helped = any(c.dep_ in ("aux", "auxpass") for c in head.children)
    if head.tag_ == "VBD" or (head.tag_ == "VBN" and helped) or any(c.dep_ in ("aux", "auxpass") and (
            c.tag_ in ("VBD", "VBZ") and c.lemma_ == "have" or c.lemma_.lower() in ("will", "shall")
            or c.tag_ == "VBD") for c in head.children):
        return True
    return any(t.ent_type_ in ("DATE", "TIME") for t in head.subtree)


def _judges_or_guesses(head) -> bool:
    """A clause that judges its subject or guesses about it rather than telling what is so:
    an adjective or a likeness as its predicate ("the risotto sounds lovely", "looks like
    fun"), a noun with an adjective after "be" ("the Parmesan is a great touch"), a modal
    of possibility ("the kids must have loved it", "would be nice")."""
    kids = list(head.children)
    if any(c.dep_ in ("acomp", "oprd") or (c.dep_ in ("ccomp", "xcomp") and (
            c.pos_ == "ADJ" or any(a.dep_ == "acomp" for a in c.children))) for c in kids):
        return True  # "…sounds lovely", "made me so calm", "makes me feel strong"
    if any(c.dep_ == "prep" and c.lower_ == "like" for c in kids):
        return True
    if head.lemma_ == "be" and any(c.dep_ == "attr" and any(a.dep_ == "amod" and a.pos_ == "ADJ"
                                                            for a in c.children) for c in kids):
        return True
    return any(c.tag_ == "MD" and c.lemma_.lower() not in ("will", "shall") for c in kids)


def _tells_of_user(subject, names: frozenset[str], heard: Sequence[Topic]) -> bool:
    """In a chat with an assistant the user is the only person whose life is told
    (docs/spec.md §5.2.9): a main clause of theirs tells of the thing or person that is its
    subject when that is named ("Dana found a cottage", "the Vespa idles fine now") or is
    "the" something and the clause is news ("the choir trip moved to October") — unless it
    judges or guesses, or its subject is what the assistant just named (a reaction to the
    reply), or the clause speaks to the listener ("Hey Gina, hope you're doing ok").
    "The colours really pop", "those friends make it worth it" describe; a thing the
    listener showed is "that", "this" or "the" thing of the moment, not news."""
    head = subject.head
    if is_question(subject.sent):
        return False  # a question tells nothing
    if subject.pos_ not in ("NOUN", "PROPN") or _judges_or_guesses(head) \
            or any(second_person(t) for t in head.subtree) or not (
            head.dep_ == "ROOT" or (head.head.dep_ == "ROOT"
                                    and head.dep_ in ("conj", "ccomp", "parataxis"))):
        return False
    after = subject.doc[subject.i + 1] if subject.i + 1 < len(subject.doc) else None
    if _addressed(subject) or (after is not None and after.text == ","):
        return False  # "Hey Maria, haven't talked in days", "Aww John, bummer": the listener
    the = any(c.dep_ == "det" and c.lower_ == "the" for c in subject.children)
    # one capitalised word opening the sentence may be a name or only a capital: a name
    # the tagger agrees with, telling news of something ("Dana found a cottage", "Isla's
    # dance is on the 19th"; not "Dance has the power", "Family's love grounds us", "Super
    # stoked!")
    owner = next((c for c in subject.children if c.dep_ == "poss"), None)
    word = owner if owner is not None and not (subject.pos_ == "PROPN" or subject.ent_type_) \
        else subject
    opening = word.i == word.sent.start and not any(c.dep_ != "case" for c in word.children)
    told = any(c.i != subject.i and not c.is_punct for c in head.children)
    named = _named(subject) and (not opening or (word.pos_ == "PROPN" and _news(head) and told))
    if not (named or (the and _news(head))):
        return False
    chunk = next((c for c in subject.sent.noun_chunks if c.root.i == subject.i), None)
    topic = topic_from_chunk(chunk, names) if chunk is not None else None
    return topic is not None and not any(same_topic(topic, h) for h in heard)


def _fragment(sent, names: frozenset[str], heard: Sequence[Topic]) -> tuple[Topic, ...]:
    """A user's line with no verb that names a thing and when — "Weekend plan: the West
    Highland Way with Dana in May", "choir on Thursdays" — tells of their life in a chat
    with an assistant: its noun phrases, those with a name in them first. A greeting, a
    judgement or a headline ("Good morning!", "Great idea", "big news today") is an
    adjective on the line's own noun; a line with no time ("Thanks Mel!", "Congrats!"), an exclamation, a question, the listener, or
    only what the assistant just named tell nothing."""
    root = sent.root
    if is_question(sent) or any(
            t.pos_ in ("VERB", "AUX", "INTJ") or second_person(t) for t in sent) \
            or not any(e.label_ in ("DATE", "TIME") for e in sent.ents) \
            or any(c.dep_ == "amod" and c.pos_ == "ADJ" and not (c.is_title and c.i > sent.start)
                   for c in root.children):  # "Italian" in a name is no judgement
        return ()
    chunks = sorted(sent.noun_chunks, key=lambda c: (not any(  # a capital that opens the
        (t.ent_type_ and t.ent_type_ not in _NOT_TOPIC_ENTS)  # line is no sign of a name
        or (t.pos_ == "PROPN" and t.i > t.sent.start) for t in c), c.start))
    found = [t for c in chunks if (t := topic_from_chunk(c, names, any_role=True))
             and not any(same_topic(t, h) for h in heard)]
    return tuple(dict.fromkeys(found))


def is_question(sent) -> bool:
    return sent.text.rstrip().endswith("?")


def read_english(sent, names: frozenset[str], heard: Sequence[Topic] | None = None
                 ) -> Reading | None:
    """What an English sentence says about its speaker (see the module doc). `heard`: the
    sentence is the user's in a chat with an assistant, and these are the things the
    assistant's reply just before it named — the user's life is told there without "I"
    too (`_tells_of_user`, `_fragment`)."""
    text = sent.text.strip()
    if not text:
        return None
    question = text.endswith("?")  # states nothing about the speaker — but a clause before
    # the question may ("I'm allergic to shellfish, is that a problem there?")
    owned: list[Topic] = []
    found: list[tuple[int, int, Topic]] = []
    heads = []
    along: set[int] = set()  # "my husband Dennis and I": who does it with the speaker
    for tok in sent:
        if tok.dep_ not in ("nsubj", "nsubjpass"):
            continue
        if first_person(tok):
            heads.append(tok.head)
        elif _with_the_speaker(tok):
            heads.append(tok.head)  # the speaker and someone: what they do is the topic
            along |= {t.i for t in tok.subtree}
        elif tok.pos_ in ("NOUN", "PROPN") and _owned_by_speaker(tok):  # "My sister moved"
            heads.append(tok.head)
            chunk = next((c for c in sent.noun_chunks if c.root == tok), None)
            topic = topic_from_chunk(chunk, names) if chunk is not None else None
            owned += [topic] if topic else []
        elif tok.head.lemma_ == "be" and tok.pos_ in ("NOUN", "PROPN") and any(
                first_person(t) and t.dep_ == "poss" for c in tok.head.children
                if c.dep_ in ("attr", "acomp") for t in c.subtree):  # "Painting is my favorite"
            heads.append(tok.head)
            chunk = next((c for c in sent.noun_chunks if c.root == tok), None)
            topic = topic_from_chunk(chunk, names) if chunk is not None else None
            owned += [topic] if topic else []
        elif heard is not None and _tells_of_user(tok, names, heard):
            heads.append(tok.head)  # "the choir trip moved to October", said to an assistant
    root = sent.root
    if question:  # only a clause that is not the question itself
        heads = [h for h in heads if h.i != root.i]
        if not heads and not owned:
            mine = tuple(dict.fromkeys(
                t for c in sent.noun_chunks if heard is not None and c.root.pos_ == "NOUN"
                and any(k.dep_ == "poss" and first_person(k) for k in c.root.children)
                and (t := topic_from_chunk(c, names, any_role=True))))
            return Reading((), context=True, asked_of=mine) \
                if mine or _content_chunks(sent, names) else None
    if not heads and root.tag_ in ("VBD", "VBG", "VBN") and _subject(root) is None \
            and not any(c.dep_ == "poss" for c in root.children) \
            and not _takes_the_listener(root):  # a verb's "its" is a texted "it's", its subject  # "wishing you many happy years": theirs
        heads.append(root)  # the subject left out, as people text: "Lost my job yesterday",
        # "Went hiking with my dog" (a base-form verb with none is a command: no statement)
    if not heads:  # a thing of the speaker's named anywhere: "my gf jess, she turns 30",
        # "just me and my sister Claire" — what the sentence says is about it
        errand = False  # "…, my turn to bring the bibs": what the rest names is theirs
        for tok in sent:
            if tok.pos_ in ("NOUN", "PROPN") and _owned_by_speaker(tok) and not _anothers_act(tok):
                phrase = sent.doc[tok.left_edge.i: tok.i + 1]  # "my gf jess", however it hangs
                topic = topic_from_chunk(phrase, names, any_role=True)
                owned += [topic] if topic else []
                errand = errand or _errand(tok)
        if owned or errand:
            others = [t for c in sent.noun_chunks if not _owned_by_speaker(c.root)
                      and not first_person(c.root) and (t := topic_from_chunk(c, names))]
            return Reading(tuple(dict.fromkeys([*owned, *others])))
        told = _fragment(sent, names, heard) if heard is not None else ()
        if told:
            return Reading(told)
        return Reading((), context=True) if _content_chunks(sent, names) else None
    priority = {"dobj": 0, "attr": 1, "oprd": 1, "pobj": 2, "appos": 3, "conj": 3}
    of_head: dict[int, int] = {}  # "a small group of dancers": the dancers, in the group's rank
    for chunk in sent.noun_chunks:
        for prep in chunk.root.children:
            if prep.dep_ == "prep" and prep.lower_ == "of" and chunk.root.pos_ == "NOUN":
                obj = next((c for c in prep.children if c.dep_ == "pobj"), None)
                if obj is not None and obj.pos_ in ("NOUN", "PROPN") and not obj.ent_type_ \
                        and not first_person(obj):
                    of_head[obj.i] = chunk.root.i
    for order, head in enumerate(heads):
        domain = {t.i for t in clause_of(head, names)}
        if head.dep_ == "relcl":  # "one of the agencies [I'm looking into]": the agencies
            domain.add(head.head.i)
        for chunk in sent.noun_chunks:
            measured = _measured(chunk.root, head)  # "two months into the guitar"
            if chunk.root.i in domain and not first_person(chunk.root) \
                    and chunk.root.i not in along and (measured or not _aside(chunk.root, head)) \
                    and chunk.root.i not in of_head.values() \
                    and not _under_anothers(chunk.root, head):
                topic = topic_from_chunk(chunk, names)
                if topic:  # what the verb takes is what it is about, nearest first; an
                    # opening adverbial ("since our last chat, …") after what follows it
                    ranked = sent.doc[of_head.get(chunk.root.i, chunk.root.i)]
                    rank = (order, _depth(ranked, head) + (5 if ranked.i < head.i else 0)
                            + (10 if _light_object(ranked) or measured else 0),
                            priority.get(ranked.dep_, 4))
                    found.append((rank, ranked.i, topic))
        for tok in sent:
            if tok.i in domain and not _aside(tok, head) and (topic := _activity(tok)):
                found.append(((order, _depth(tok, head), 1), tok.i, topic))
        if (doing := _doing(head)) is not None:
            found.append(((order, 0, 1), head.i, doing))
        if not any(f[0][0] == order for f in found) and (denied := _denied_habit(head)):
            found.append(((order, 0, 0), head.i, denied))
    found.sort(key=lambda f: (f[0], f[1]))
    topics: list[Topic] = []
    for topic in [*_identities(heads, names), *owned, *(t for _, _, t in found)]:
        if not any(t.key == topic.key for t in topics):
            topics.append(topic)
    return Reading(tuple(topics))


def _with_the_speaker(subject) -> bool:
    """A subject joined to the speaker by "and" ("my husband Dennis and I", "Joel and I"),
    however the parse hangs the "I": as its conjunct or as a second subject of the verb."""
    return any(c.dep_ == "conj" and first_person(c) for c in subject.children) or (
        any(c.dep_ == "cc" for c in subject.children) and any(
            c.dep_ == "nsubj" and c.i > subject.i and first_person(c)
            for c in subject.head.children))


def _identities(heads, names: frozenset[str]) -> list[Topic]:
    """What the speaker says they are ("I'm a BSL interpreter", "im a dog groomer"): a
    copular clause of theirs with a noun as its predicate names them, whatever else the
    sentence says of a thing of theirs ("My hands move all day anyway, I'm a …")."""
    found = []
    for head in heads:
        if head.lemma_ != "be" or not any(c.dep_ == "nsubj" and first_person(c)
                                          for c in head.children):
            continue
        for attr in (c for c in head.children if c.dep_ == "attr" and c.pos_ == "NOUN"
                     and not any(p.dep_ == "prep" and p.lower_ == "of" for p in c.children)):
            # "a big fan of jazz", "a member of the choir": what it is of says more
            chunk = next((c for c in attr.sent.noun_chunks if c.root.i == attr.i), None)
            if chunk is not None and (topic := topic_from_chunk(chunk, names)):
                found.append(topic)
    return found


def read_chinese(sentence: str, names: frozenset[str], *, own: bool = False,
                 before: str = "", earlier: str = "") -> list[Reading]:
    """A Chinese sentence read by `zh_statements.read_chinese` (jieba's parts of speech):
    a reading per clause about the speaker that names a thing — one sentence may tell two
    (我刚搬到成都，在一家医院上班: where one lives, where one works); `own`: the user's
    notes to themselves, where every clause is theirs; `before`: the sentence before it
    in the same turn (what a number with no noun counts); `earlier`: the speaker's turn
    before (what 它 or a left-out object may stand for)."""
    read = zh_read_chinese(sentence, names, own=own, before=before, earlier=earlier)
    if read is None:
        return []
    if not read.groups:
        return [Reading((), context=read.context)]
    return [Reading(tuple(Topic(t, (t,)) for t in g)) for g in read.groups]


def own_line(sent, names: frozenset[str], reading: Reading | None) -> Reading | None:
    """A line of the user's notes to themselves: theirs, whatever its form — a to-do
    ("Remember to call the landlord"), a line with no verb ("Mum's hip replacement on 2
    June"): its noun phrases are its topics, in order, when the parse found no statement."""
    if reading is not None and reading.topics or is_question(sent):
        return reading
    found = [t for c in sent.noun_chunks if not first_person(c.root)
             and (t := topic_from_chunk(c, names, any_role=True))]
    return Reading(tuple(dict.fromkeys(found))) if found else reading


def topic_of(text: str) -> Topic | None:
    """The topic a phrase names ("Italian cooking class", "ceramics-class", "陶艺课"): how
    a note's name is compared with what a session is about."""
    text = re.sub(r"[-_]+", " ", text).strip()
    if not text:
        return None
    if sum(map(is_cjk, text)) > len(text) / 3:
        return Topic(text, (text.replace(" ", ""),))
    doc = english_docs([text])[0]
    words = tuple(_norm(t.lemma_ if t.pos_ in ("NOUN", "PROPN") else t.lower_) for t in doc
                  if t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "X") or t.tag_ == "VBG")
    return Topic(text, tuple(w for w in words if w)) if words else None
