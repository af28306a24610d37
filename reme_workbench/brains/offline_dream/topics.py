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
  painting"), read phrase by phrase in `noun_topics.py`. A statement with no topic ("I'm
  doing great, thanks for asking", "I love them so much") is a reaction: it names nothing
  to remember;
* which topic comes first, and so names the note: what the verb takes, nearest first;
  what the speaker says they are ("I'm a BSL interpreter") over a thing of theirs the
  sentence opens with ("My hands move all day anyway"); what the speaker does with
  someone over that someone ("My husband Dennis and I are taking our narrowboat …");
* two phrases name one topic when the content lemmas of one are among the other's
  ("spiderman" / "Spider-Man movies"), or a word of one is the other's cut short ("dance
  comp" / "dance competition"), never when only their head is shared ("activist group" /
  "support group").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...textrules import is_cjk, one_word_cut_short
from ...textrules.nlp import english_docs
from .noun_topics import (
    _CHAT_SIGNAL,
    _NOT_TOPIC_ENTS,
    Topic,
    _activity,
    _addressed,
    _denied_habit,
    _doing,
    _errand,
    _light_object,
    _norm,
    _owned_by_speaker,
    _someone_elses,
    _subject,
    first_person,
    second_person,
    topic_from_chunk,
)
from .noun_topics import (
    _names_a_speaker as _names_a_speaker,  # replies.py reads it here
)
from .zh_statements import read_chinese as zh_read_chinese

__all__ = ["Topic", "Reading", "same_topic", "topic_of", "masked", "read_english", "is_question",
           "read_chinese", "own_line", "topic_from_chunk", "first_person", "second_person",
           "clause_of", "named_as"]

_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200d]+")


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def masked(text: str) -> str:
    """`text` with emoji and chat signals blanked, character for character: what the
    pipelines read (a tagger trained on written English parses "italian cooking class lol"
    as a class of lols), while quotes are cut from `text` at the same offsets."""
    out = _EMOJI.sub(_blank, text)
    return re.sub(rf"(?<![\w'’])(?:{_CHAT_SIGNAL.pattern})(?![\w'’])", _blank, out, flags=re.I)


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


def _under_anothers(tok, head) -> bool:
    """Whether `tok` hangs below a noun someone else owns, up to its clause's `head`
    ("your willingness to take risks": the risks are the listener's)."""
    while tok.i != head.i and tok.head.i != tok.i:
        tok = tok.head
        if tok.pos_ in ("NOUN", "PROPN") and _someone_elses(tok):
            return True
    return False


def _what_that_is(head) -> set[int]:
    """What a "that's …" after the speaker's clause says it is, when the parse hangs the
    clause under it ("I can't do the Friday, that's darts at the Bell"; "I can't come
    Tuesday, that's my pottery class"): the "that" is what the speaker just said, so what
    it is is theirs."""
    over = head.head
    if head.dep_ != "ccomp" or over.lemma_ != "be" or over.i < head.i:
        return set()
    subject = _subject(over)
    if subject is None or subject.lower_ != "that" or subject.i < head.i:
        return set()  # "that" points back at what was said; "this is just the form", at a thing
    return {t.i for c in over.children if c.dep_ == "attr" for t in c.subtree}


def _actor(tok, names: frozenset[str]) -> Topic | None:
    """Who or what acts where the speaker's thing is, when it is a noun ("Pierogi finally
    sleeps on my bed now", "the puppy buried a sock under my bed"): what the sentence
    tells of. A pronoun ("he hid his bone in my slipper") names nothing."""
    if tok.dep_ != "pobj":
        return None
    subject = _subject(tok.head.head)
    if subject is None or subject.pos_ not in ("NOUN", "PROPN"):
        return None
    chunk = next((c for c in subject.sent.noun_chunks if c.root.i == subject.i), None)
    return topic_from_chunk(chunk, names, any_role=True) if chunk is not None else None


def _anothers_act(tok) -> bool:
    """Whether the speaker's thing is what someone else does something to: "you having my
    back", "they always have my back", "thanks for having my back" (a gerund under a
    reaction has the listener as its subject) — the sentence is about them."""
    if tok.dep_ == "pobj" and tok.head.dep_ == "prep":  # "he hid his bone in my slipper",
        verb = tok.head.head  # "having you in my corner": where another's act happened
        if verb.pos_ == "VERB" and (_takes_the_listener(verb) or (  # not "this has been
                (s := _subject(verb)) is not None and not first_person(s)  # great for my …"
                and (s.pos_ == "PRON" or s.pos_ == "PROPN" and not s.is_lower))):
            return True  # someone known by name or pronoun; "a friend made it for my
            # birthday" is still said of the birthday
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
    apart: tuple[tuple[Topic, ...], ...] = ()  # later clauses on other named things (facts)
    # a request on a thing of the speaker's ("Can you look over my cover letter?"): theirs
    # when the same turn tells of it too, before ("postponed again") or after ("I've been
    # doing it four years") — a request alone is no fact
    requested: tuple[Topic, ...] = ()


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


def _news(head, *, dated: bool = True) -> bool:
    """A clause that tells what happened or will happen rather than what a thing is like:
    a past or future verb ("the lads found a hostel", "has moved", "will start"), or (`dated`)
    a date or time or a present passive in the clause ("the trip is on the 3rd", "is booked");
    a participle with no auxiliary is a state ("fingers crossed") unless it says where to."""
    helped = any(c.dep_ in ("aux", "auxpass") and (dated or c.tag_ == "VBD" or c.lemma_ == "have")
                 or c.dep_ == "prep" and _subject(head) is not None for c in head.children)
    if head.tag_ == "VBD" or (head.tag_ == "VBN" and helped) or any(c.dep_ in ("aux", "auxpass") and (
            c.tag_ in ("VBD", "VBZ") and c.lemma_ == "have" or c.lemma_.lower() in ("will", "shall")
            or c.tag_ == "VBD") for c in head.children):
        return True
    return dated and any(t.ent_type_ in ("DATE", "TIME") for t in head.subtree)


def _judges_or_guesses(head, *, modal: bool = True) -> bool:
    """A clause that judges its subject or guesses about it rather than telling what is so:
    an adjective or a likeness as its predicate ("the risotto sounds lovely", "looks like
    fun"), a noun with an adjective after "be" ("the Parmesan is a great touch"), a modal
    of possibility ("the kids must have loved it", "would be nice")."""
    kids = list(head.children)
    if any(c.dep_ in ("acomp", "oprd") and c.tag_ != "JJR" or (c.dep_ in ("ccomp", "xcomp") and (
            c.pos_ == "ADJ" or any(a.dep_ == "acomp" for a in c.children)) and not (
                _subject(c) is not None and c.i < head.i))
            for c in kids):  # "…sounds lovely", "made me so calm", "makes me feel strong" (not
        return True  # "is better": a change; nor a clause with its own subject before it)
    if any(c.dep_ == "prep" and c.lower_ == "like" for c in kids):
        return True
    if head.lemma_ == "be" and any(c.dep_ == "attr" and any(a.dep_ == "amod" and a.pos_ == "ADJ"
                                                            for a in c.children) for c in kids):
        return True
    return modal and any(c.tag_ == "MD" and c.lemma_.lower() not in ("will", "shall") for c in kids)


def _called_after(subject) -> bool:
    """A bare word as a subject that a "he"/"she"/"his"/"her" later in its sentence stands
    for: a being known by name, texted in lowercase ("biscuit keeps scratching her ear",
    "taco has skin stuck on his toes") — the tagger's guess at the word does not matter."""
    return subject.pos_ in ("NOUN", "PROPN") and subject.is_alpha and subject.is_lower \
        and not any(c.dep_ in ("det", "poss", "nummod", "amod", "compound")
                    for c in subject.children) \
        and any(t.i > subject.i and t.pos_ == "PRON" and {"Masc", "Fem"} & set(t.morph.get("Gender"))
                and (t.tag_ == "PRP$" or "Nom" in t.morph.get("Case")) for t in subject.sent)
    # a name written with its capital is read as one already (`_named`); "ill tell him": the
    # one told is someone else


def _being(name) -> Topic:
    """The topic a being's name is, capitalised as a name though texted in lowercase
    ("taco" → "Taco")."""
    return Topic(name.text[:1].upper() + name.text[1:], (_norm(name.text),))


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
    named = _named(subject) and (not opening or (word.pos_ == "PROPN" and (_news(head) and told or any(
        t.i > word.i and {"Masc", "Fem"} & set(t.morph.get("Gender")) for t in word.sent))))  # or a
    # "he"/"she" after it: someone ("Oskar's a carpenter, and he …")
    bare = subject.pos_ == "NOUN" and not any(c.dep_ in ("det", "poss", "nummod")
                                              for c in subject.children)  # texted: no "the"
    if not (named or (the and _news(head)) or (bare and _news(head, dated=False)
                                               and head.lemma_ != head.lower_)  # a verb, inflected
            or _called_after(subject)):
        return False
    chunk = next((c for c in subject.sent.noun_chunks if c.root.i == subject.i), None)
    topic = topic_from_chunk(chunk, names) if chunk is not None else None
    if topic is None and _called_after(subject):
        topic = _being(subject)
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


def _own_clause_apart(subject, heads) -> bool:
    """A clause joined to one of the speaker's own ("I sing alto in the choir, …, and our
    recital is on the 12th") whose subject is a thing of theirs and which tells news of it
    (a date, a past or future): a second fact, not more of the first — the choir and the
    recital are two notes (docs/spec.md §5.2.9)."""
    head = subject.head
    return head.dep_ == "conj" and any(head.head.i == h.i and any(
        first_person(c) for c in h.children if c.dep_ in ("nsubj", "nsubjpass")) for h in heads) \
        and _news(head)


def _says_why(subject, heads) -> bool:
    """A thing of the speaker's as the subject of a clause after a denial of their own that
    states no news of it ("I don't drive after dark any more, my eyes aren't up to it"):
    it says why or how, and what the speaker does or does not do is the fact — named first
    (docs/spec.md §5.2.9)."""
    return any(h.i != subject.head.i and any(c.dep_ == "neg" for c in h.children) and any(
        first_person(c) and c.i < subject.i for c in h.children if c.dep_ in ("nsubj", "nsubjpass"))
        for h in heads) and not _news(subject.head, dated=False)


def _planned(root) -> bool:
    """A verb with no subject after "will"/"might" ("will try the climbing wall"): a plan
    texted without its "I" — no command (no modal), no judgement ("might be fun")."""
    return root.pos_ == "VERB" and root.tag_ == "VB" and _subject(root) is None \
        and any(c.dep_ == "aux" and c.lemma_.lower() in ("will", "might", "may") for c in root.children) \
        and not _judges_or_guesses(root, modal=False)


def is_question(sent) -> bool:
    return sent.text.rstrip().endswith("?")


def _inverted(sent) -> bool:
    """A question texted without its mark: it opens with an auxiliary before its subject,
    after a question word or not ("how do i not shake", "what should i bring", "is it ok
    to …", "can i …") — the word order of a question, where "how I met her is a long
    story" and "what I need now is a gift" keep a statement's."""
    words = [t for t in sent if not (t.is_punct or t.is_space)]
    at = 1 if words and words[0].tag_ in ("WRB", "WP", "WDT", "WP$") else 0
    return len(words) > at + 1 and (words[at].pos_ == "AUX" or words[at].tag_ == "MD") \
        and words[at + 1].dep_ in ("nsubj", "nsubjpass", "expl")


def named_as(sent, names: frozenset[str]) -> Topic | None:
    """A sentence opening "Name is a/the …" or "Name's a/the …" ("Pixel's a rescue", "Fly's
    the first dog I've trained"): it says what the one named is — whom a "he"/"she" the
    listener asks after next stands for (conversation's `_being_told_of`); the topic stays
    what the reading finds ("Jonah's a chef": the job, a note apart from the rest said of
    Jonah). The name is a capitalised word the tagger takes for a name, or for a base-form verb (which cannot open a sentence as its subject or owner: "Fly"),
    or for a singular noun with no article (which a countable thing as subject needs);
    with its "'s" read as a possessive, the noun after it has an article, which a thing
    owned by a name never takes. A name of the chat's speakers is not."""
    words = [t for t in sent if not t.is_space]
    if len(words) < 4:
        return None
    name, verb = words[0], words[1]
    if not name.is_title or not name.is_alpha or first_person(name) \
            or _names_a_speaker(name, names) or not (
                name.tag_ in ("NNP", "NNPS") or name.tag_ == "VB" and name.dep_ in ("csubj", "poss")
                or name.tag_ == "NN" and name.dep_ == "nsubj" and not list(name.children)):
        return None
    if verb.lower_ in ("'s", "\u2019s") and name.dep_ == "poss":
        described = name.head  # "Pixel's a rescue" read as "Pixel's rescue"
    elif verb.lemma_ == "be" and name.head.i == verb.i:
        described = next((c for c in verb.children if c.dep_ == "attr"), None)
    else:
        return None
    if described is None or not any(c.dep_ == "det" and c.lower_ in ("a", "an", "the")
                                    for c in described.children):
        return None
    return _being(name)


def read_english(sent, names: frozenset[str], heard: Sequence[Topic] | None = None
                 ) -> Reading | None:
    """What an English sentence says about its speaker (see the module doc). `heard`: the
    sentence is the user's in a chat with an assistant, and these are the things the
    assistant's reply just before it named — the user's life is told there without "I"
    too (`_tells_of_user`, `_fragment`)."""
    text = sent.text.strip()
    if not text:
        return None
    question = text.endswith("?") or _inverted(sent)  # states nothing about the speaker —
    # but a clause before the question may ("I'm allergic to shellfish, is that a problem there?")
    owned: list[Topic] = []
    found: list[tuple[int, int, Topic]] = []
    heads, told_apart = [], set()  # told_apart: later clauses' heads, on other named things
    along: set[int] = set()  # "my husband Dennis and I": who does it with the speaker
    told = []  # clauses of a thing or person of the user's, in a chat with an assistant
    own_apart: set[int] = set()  # a joined clause telling news of a thing of the speaker's
    own_subject: dict[int, Topic] = {}  # that clause's head -> its subject
    reason: list[Topic] = []  # "…, my eyes aren't up to it": after what the speaker does
    for tok in sent:
        if tok.dep_ not in ("nsubj", "nsubjpass"):
            continue
        if first_person(tok):
            if not _asked_for(tok.head):
                heads.append(tok.head)
        elif _with_the_speaker(tok):
            heads.append(tok.head)  # the speaker and someone: what they do is the topic
            along |= {t.i for t in tok.subtree}
        elif tok.pos_ in ("NOUN", "PROPN") and _owned_by_speaker(tok) \
                and _own_clause_apart(tok, heads):  # "I sing in a choir, and our recital
            told.append((tok.head, True))  # is on the 12th": two facts, each its own note
            own_apart |= {t.i for t in tok.head.subtree}
            chunk = next((c for c in sent.noun_chunks if c.root == tok), None)
            if chunk is not None and (topic := topic_from_chunk(chunk, names)):
                own_subject[tok.head.i] = topic  # the recital, first in its own note
        elif tok.pos_ in ("NOUN", "PROPN") and _owned_by_speaker(tok):  # "My sister moved"
            heads.append(tok.head)
            chunk = next((c for c in sent.noun_chunks if c.root == tok), None)
            topic = topic_from_chunk(chunk, names) if chunk is not None else None
            if topic and _says_why(tok, heads):
                reason.append(topic)
                own_apart |= {t.i for t in tok.head.subtree}  # not the denial's own thing
            else:
                owned += [topic] if topic else []
        elif tok.head.lemma_ == "be" and tok.pos_ in ("NOUN", "PROPN") and any(
                first_person(t) and t.dep_ == "poss" for c in tok.head.children
                if c.dep_ in ("attr", "acomp") for t in c.subtree):  # "Painting is my favorite"
            heads.append(tok.head)
            chunk = next((c for c in sent.noun_chunks if c.root == tok), None)
            topic = topic_from_chunk(chunk, names) if chunk is not None else None
            owned += [topic] if topic else []
        elif heard is not None and _tells_of_user(tok, names, heard):
            # "the choir trip moved to October"; a clause on a named thing after another
            # clause is a fact apart ("Dennis cracked a rib, so Llangollen is off")
            if _called_after(tok) and not heads and not told:  # "taco has skin stuck on
                owned.append(_being(tok))  # his toes": the gecko, not the skin
            told.append((tok.head, bool(heads or told) and (_named(tok) or any(
                c.dep_ == "compound" and c.pos_ == "PROPN" for c in tok.children))))
    for head, apart_from_before in told:  # what the speaker does first: "Callum wants to
        # leave Friday but I can't do the Friday, that's darts": the darts
        if head not in heads:
            told_apart |= {len(heads)} if apart_from_before else set()
            heads.append(head)
    root = sent.root
    if question:  # only a clause that is not the question itself
        heads = [h for h in heads if h.i != root.i]
        if not heads and not owned:
            mine = tuple(dict.fromkeys(
                t for c in sent.noun_chunks if heard is not None and c.root.pos_ == "NOUN"
                and any(k.dep_ == "poss" and first_person(k) for k in c.root.children)
                and (t := topic_from_chunk(c, names, any_role=True))))
            worked_on = tuple(dict.fromkeys(
                t for c in sent.noun_chunks if heard is not None and (_owned_by_speaker(
                    c.root) and (c.root.dep_ == "dobj" or c.root.dep_ == "pobj" and any(
                        m.dep_ in ("compound", "amod") for m in c.root.children))
                    or _of_the_work(c.root))
                and _a_request(sent) and (t := topic_from_chunk(c, names, any_role=True))))
            if worked_on:  # "Can you help me price my wedding photography packages?", "…
                # prep answers for my nursing interview": the thing of theirs the listener
                # is to work on or for — not whom it goes to ("an email to my landlord");
                # theirs once their turn says more of it (`Reading.requested`)
                return Reading((), context=True, requested=worked_on)
            return Reading((), context=True, asked_of=mine) \
                if mine or _content_chunks(sent, names) else None
    if not heads and root.tag_ in ("VBD", "VBG", "VBN") and _subject(root) is None \
            and not any(c.dep_ == "poss" for c in root.children) \
            and not _takes_the_listener(root):  # a verb's "its" is a texted "it's", its subject  # "wishing you many happy years": theirs
        heads.append(root)  # the subject left out, as people text: "Lost my job yesterday",
        # "Went hiking with my dog" (a base-form verb with none is a command: no statement)
    elif not heads and heard is not None and _planned(root):  # "will try the wall", to
        heads.append(root)  # an assistant
    if not heads:  # a thing of the speaker's named anywhere: "my gf jess, she turns 30",
        # "just me and my sister Claire" — what the sentence says is about it
        errand = False  # "…, my turn to bring the bibs": what the rest names is theirs
        actors: list[Topic] = []  # "Pierogi sleeps on my bed": the one who does it
        for tok in sent:
            if tok.pos_ not in ("NOUN", "PROPN") or not _owned_by_speaker(tok):
                continue
            if _anothers_act(tok):
                actors += [t for t in [_actor(tok, names)] if t is not None]
                continue
            phrase = sent.doc[tok.left_edge.i: tok.i + 1]  # "my gf jess", however it hangs
            topic = topic_from_chunk(phrase, names, any_role=True)
            owned += [topic] if topic else []
            errand = errand or _errand(tok)
        if not owned and actors:
            return Reading(tuple(dict.fromkeys(actors)))
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
        if head.i not in own_apart:  # the joined clause's things are its own fact
            domain -= own_apart
        if head.i in own_subject:
            found.append(((order, -1, 0), head.i, own_subject[head.i]))
        if head.dep_ == "relcl":  # "one of the agencies [I'm looking into]": the agencies
            domain.add(head.head.i)
        domain |= _what_that_is(head)
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
    kept = [t for rank, _, t in found if rank[0] not in told_apart]
    apart = [clause for order in sorted(told_apart) if (clause := tuple(dict.fromkeys(
        t for rank, _, t in found if rank[0] == order and t not in kept)))]  # its own things
    topics: list[Topic] = []
    for topic in [*_identities(heads, names), *owned,
                  *(kept if apart and kept else (t for _, _, t in found)), *reason]:
        if not any(t.key == topic.key for t in topics):
            topics.append(topic)
    return Reading(tuple(topics), apart=tuple(c for c in apart if kept and not any(
        same_topic(c[0], t) for t in topics[:1])))


def _inverted_clause(verb) -> bool:
    """A clause whose auxiliary or modal comes before its subject: "can you …", "could u
    …", "what can I …", "should I …" — the word order of a question or a request."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    return subject is not None and any(
        c.dep_ == "aux" and (c.tag_ == "MD" or c.pos_ == "AUX") and c.i < subject.i
        for c in verb.children)


def _of_the_work(noun) -> bool:
    """A thing of the speaker's that what the listener is asked to make is of: "a list of
    my son's allergies", "a summary of my mother's needs" — owned by them directly or
    through one they own, after "of" on the request's object."""
    prep = noun.head
    return noun.dep_ == "pobj" and prep.lower_ == "of" and prep.head.dep_ == "dobj" and (
        _owned_by_speaker(noun) or any(c.dep_ == "poss" and c.pos_ in ("NOUN", "PROPN")
                                       and _owned_by_speaker(c) for c in noun.children))


def _a_request(sent) -> bool:
    """A sentence that opens by asking the listener to do something ("Can you write a short
    email to my landlord?", "could u make it firmer"): what it names is what the assistant
    is to do, no context of the user's life."""
    return any(v.left_edge.i == sent.start and (s := _subject(v)) is not None
               and second_person(s) and _inverted_clause(v) for v in sent)


def _asked_for(head) -> bool:
    """Whether a clause with the speaker as its subject is part of what they ask rather
    than something they tell: a clause asked in question order ("What can I practise on
    …?"), a purpose inside a request to the listener ("Can you write the commands down so
    I can stick them on the fridge?"), the act a request or question has done to them ("can
    you help me pick a first car", "… that won't get me murdered?"), or what someone else
    would think of them ("…, she'll think I'm on a cruise"). A clause beside the question
    is told ("I'm allergic to shellfish, is that a problem?"), and so is news in a
    question's frame ("Can you believe I finished it?", "painting helped me find peace")."""
    if _inverted_clause(head):
        return True
    subject = _subject(head)
    if subject is not None and "Acc" in subject.morph.get("Case") and head.head.i != head.i \
            and head.tag_ in ("VB", "VBN", "VBG") \
            and not any(c.dep_ in ("aux", "auxpass") for c in head.children):
        over = _subject(head.head)  # "help me pick …", "… won't get me murdered?": the
        if over is not None and second_person(over) or is_question(head.sent):  # clause of
            return True  # whoever is asked to do it to them
    verb = head
    while verb.head.i != verb.i:
        over = verb.head
        subject = _subject(over)
        if any(c.tag_ in ("WRB", "WP") and c.i < verb.i for c in verb.children):
            return False  # what they ask about is their life: "can you explain how I
            # register as a nurse in Spain?"
        if verb.dep_ == "advcl" and subject is not None and second_person(subject) \
                and _inverted_clause(over):
            return True  # a request's purpose: "can you …, so I can …"
        if verb.dep_ == "ccomp" and subject is not None and subject.pos_ == "PRON" \
                and "3" in subject.morph.get("Person") and any(c.tag_ == "MD" for c in over.children):
            return True  # "she'll think I'm …", "they'd say I'm …": another's guess
        verb = over
    return False


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
        if head.lemma_ != "be" or head.dep_ == "advcl" or not any(  # "when I was a kid"
                c.dep_ == "nsubj" and first_person(c) for c in head.children) \
                or any(c.dep_ == "neg" for c in head.children):  # "I'm not a nurse"
            continue
        for attr in (c for c in head.children if c.dep_ == "attr" and c.pos_ == "NOUN"
                     and any(d.dep_ in ("det", "poss") for d in c.children)  # "I'm game for …"
                     and not any(d.dep_ == "det" and d.lower_ == "no" for d in c.children)
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
