"""What one turn of a chat with an assistant says about the turn before it (docs/spec.md
§5.2.9): the things of the user's the assistant's question asks after, the things its reply
names (a reaction to them is no news), and a user's answer about "it" or "he"/"she" that
stands for the thing asked after — read from spaCy's parse by conversation's reading loop."""

from __future__ import annotations

from .noun_topics import _LIGHT_VERBS, _norm, _topic, noun_read_as_adjective
from .topics import (
    Topic,
    _named,
    _names_a_speaker,
    first_person,
    is_question,
    second_person,
    topic_from_chunk,
)

__all__ = ["asked_of_user", "answers_about_it", "tells_of_him_or_her", "heard_topics",
           "told_of_before", "took_up", "names_what_was_asked", "completes_before",
           "speaks_of_it", "says_who_it_is", "names_it", "headline", "asked_of_him_or_her",
           "echoes_the_verb"]

_ASKED_AFTER = frozenset({"nsubj", "nsubjpass", "dobj", "attr"})


def asked_of_user(sent, names: frozenset[str]) -> tuple[Topic, ...]:
    """The things of the user's an assistant's question asks after ("How did your driving
    test go?", "How did Theo's gala go?", "What's your favourite film?"): a noun phrase
    owned by "your" or by a name that is the question's subject or object."""
    if not is_question(sent):
        return ()
    found = []
    for c in sent.noun_chunks:
        owner = next((t for t in c.root.children if t.dep_ == "poss"), None)
        if owner is None or not (second_person(owner) or _named(owner)) \
                or _names_a_speaker(owner, names) or c.root.dep_ not in _ASKED_AFTER:
            continue  # "How's everything on your end?": a frame, not a thing asked after
        phrase = c[1:] if second_person(c[0]) else c
        if len(phrase) and (t := topic_from_chunk(phrase, names, any_role=True, yours=True)):
            found.append(t)
    return tuple(found)


def _third_person_subject(sent):
    """The first subject of a sentence that is no question, when it is a third-person
    pronoun ("it", "she", "they"), else None."""
    subject = next((t for t in sent if t.dep_ in ("nsubj", "nsubjpass")), None)
    if is_question(sent) or subject is None or subject.pos_ != "PRON" \
            or "3" not in subject.morph.get("Person"):
        return None
    return subject


def answers_about_it(sent) -> bool:
    """A sentence whose first subject is "it", "she", "he" or "they", not a question:
    after a question about a thing of the user's, that thing ("it went brilliantly")."""
    subject = _third_person_subject(sent)
    return subject is not None and "Prs" in subject.morph.get("PronType") and not any(
        c.dep_ in ("ccomp", "xcomp", "advcl") and c.pos_ in ("VERB", "AUX")  # "it's great to
        for c in subject.head.children)  # see …": an "it" standing for a clause


def tells_of_him_or_her(sent) -> bool:
    """A sentence whose first subject is "he" or "she", not a question: after the speaker's
    question about a being of theirs ("my ferret", "my son"), that being ("She's called
    Waffles") — a pronoun with a gender stands for someone, where "it" may stand for a
    clause or a thing of the moment."""
    return _him_or_her(_third_person_subject(sent))


def _him_or_her(pronoun) -> bool:
    """A pronoun with a gender, not "it": it stands for someone."""
    gender = pronoun.morph.get("Gender") if pronoun is not None else []
    return bool(gender) and "Neut" not in gender


def heard_topics(sent, names: frozenset[str]) -> list[Topic]:
    """The things a sentence of the assistant names: what a user's reaction to it is about.
    A sentence of one word and "!" names none ("Awww!", "Congrats!": the parse may read it
    as a name)."""
    words = [t for t in sent if not t.is_punct]
    if len(words) == 1 and sent[-1].text.startswith("!"):
        return []
    return [t for c in sent.noun_chunks if (t := topic_from_chunk(c, names, any_role=True))]


def told_of_before(sent, before, names: frozenset[str]) -> tuple[Topic, ...]:
    """The being of the user's a sentence tells of by "he", "she" or "it", when the same
    speaker's sentence just before named it ("pip is ok now" — "he sleeps on the radiator
    all day"; "What worries me is Rufus." — "He has started chewing the door"; "We got a
    puppy." — "She chews everything"): the subject of that sentence, what the user's main
    verb there takes (not "she didn't miss a note" — "she bowed": she is still she), or the
    name it says something is. Only a pronoun doing something counts — "it was lovely",
    "it's a lot" judge, "it inspired me" is how the speaker took it, and an "it" may stand
    for a clause."""
    subject = _third_person_subject(sent)
    if subject is None or before is None or is_question(before) or subject.head.pos_ != "VERB" \
            or "Prs" not in subject.morph.get("PronType") or any(first_person(t) for t in (
                subject.head.subtree)) or any(
            c.dep_ in ("acomp", "oprd") or c.tag_ == "MD" and c.lemma_ not in ("will", "shall")
            for c in subject.head.children):
        return ()
    it = "Neut" in subject.morph.get("Gender")
    got = any(t.dep_ == "nsubj" and first_person(t) and t.head.dep_ == "ROOT" for t in before)
    for tok in before:
        named = tok.dep_ in ("nsubj", "nsubjpass") or (
            got and tok.dep_ == "dobj" and tok.head.dep_ == "ROOT") or (
            not it and tok.dep_ == "attr" and tok.head.lemma_ == "be" and tok.pos_ == "PROPN")
        if named and tok.pos_ in ("NOUN", "PROPN") and not first_person(tok) \
                and not _names_a_speaker(tok, names):
            chunk = next((c for c in before.noun_chunks if c.root.i == tok.i),
                         before.doc[tok.i: tok.i + 1])
            topic = topic_from_chunk(chunk, names, any_role=True)
            return (topic,) if topic else ()
    return ()


# The pronouns that stand for a thing already named when a verb takes them ("bought one",
# "ordered some", "booked it"); a closed class, unlike the things they stand for.
_STANDS_FOR_A_THING = frozenset({"it", "them", "one", "some", "those", "these", "that"})


def took_up(sent, heard: list[Topic], spoken_of: list[Topic]) -> tuple[Topic, ...]:
    """The thing of the assistant's reply a user says they have done something with, by a
    pronoun and a verb in the past ("bought one", "ordered some 🛹", "I booked it"): the
    thing of the reply the user spoke of since (`spoken_of`, "helmets look so dorky"), else
    the one thing the reply named. Not a question, a negation ("didn't buy one"), or
    another subject's deed ("she ordered it")."""
    root = sent.root
    if is_question(sent) or root.pos_ != "VERB" or root.tag_ not in ("VBD", "VBN") or any(
            c.dep_ == "neg" for c in root.children) or any(
            c.dep_ in ("nsubj", "nsubjpass") and not first_person(c) for c in root.children):
        return ()
    obj = next((c for c in root.children if c.dep_ == "dobj"), None)
    if obj is None or obj.lower_ not in _STANDS_FOR_A_THING:
        return ()
    if spoken_of:
        return (spoken_of[-1],)
    return (heard[0],) if len(heard) == 1 else ()


def names_what_was_asked(sent, names: frozenset[str]) -> tuple[Topic, ...]:
    """What the user's answer says the thing asked after is, by "it"/"that" and "be" ("What's
    the job?" — "It's a data analyst job at St James's hospital in Leeds"; "What breed is
    he?" — "he's a whippet"): the noun phrase it is, the user's thing. A judgement ("It's a
    good idea", "it's a lot") names nothing asked after."""
    subject = _third_person_subject(sent)
    if subject is None or subject.head.lemma_ != "be" or subject.dep_ != "nsubj" \
            or any(c.dep_ == "neg" for c in subject.head.children):
        return ()
    attr = next((c for c in subject.head.children if c.dep_ == "attr"
                 and c.pos_ in ("NOUN", "PROPN")), None)
    if attr is None or any(c.dep_ == "amod" and c.pos_ == "ADJ" and not c.is_title
                           and not noun_read_as_adjective(c) for c in attr.children):
        return ()
    chunk = next((c for c in sent.noun_chunks if c.root.i == attr.i), None)
    topic = topic_from_chunk(chunk, names) if chunk is not None else None
    return (topic,) if topic else ()


def completes_before(sent, before, names: frozenset[str]) -> tuple[Topic, ...]:
    """A line of the user's that is only a noun phrase, after their line of a verb with
    neither subject nor object ("failed 🙃" — "roundabouts", "passed!!" — "driving test"):
    a sentence texted over two lines, the phrase naming what the verb was about."""
    if before is None or is_question(sent) or is_question(before):
        return ()
    verb = before.root
    if verb.pos_ != "VERB" or verb.tag_ not in ("VBD", "VBN") or any(
            c.dep_ in ("nsubj", "nsubjpass", "dobj", "attr", "ccomp", "xcomp") for c in verb.children):
        return ()
    words = [t for t in sent if not (t.is_punct or t.is_space)]
    chunks = list(sent.noun_chunks)
    if not words or len(chunks) != 1 or any(t.pos_ in ("VERB", "AUX") for t in words) \
            or any(t.i not in range(chunks[0].start, chunks[0].end) for t in words):
        return ()
    topic = topic_from_chunk(chunks[0], names, any_role=True)
    return (topic,) if topic else ()


def speaks_of_it(sent) -> bool:
    """A statement of the speaker's that takes "it" or "them" as its object ("I've been
    doing it four years", "we use them every week"): after their request on a thing of
    theirs, it tells of that thing."""
    return not is_question(sent) and any(
        t.dep_ == "dobj" and t.lower_ in ("it", "them") and any(
            c.dep_ == "nsubj" and first_person(c) for c in t.head.children) for t in sent)


def says_who_it_is(sent) -> bool:
    """"He's my leopard gecko", "she's my rescue greyhound", "shes my sister": what the one
    the sentence before told of is to the speaker — a "he"/"she" and "be" (texted "hes": the
    tagger's "s") with a thing of the speaker's as what they are."""
    subject = _third_person_subject(sent)
    if subject is None or not {"Masc", "Fem"} & set(subject.morph.get("Gender")):
        return False
    verb = subject.head
    return (verb.lemma_ == "be" or verb.lower_ == "s") and not any(
        c.dep_ == "neg" for c in verb.children) and any(
        c.dep_ == "attr" and any(k.dep_ == "poss" and first_person(k) for k in c.children)
        for c in verb.children)


def names_it(sent, names: frozenset[str]) -> tuple[Topic, ...]:
    """The name a user gives the one they are telling of, by "it's" ("its Bisto, the brown
    lad", "it's Pepper, the grey one"): a capitalised name as what "it" is — texted "its"
    is read by the tagger as a possessive on the name. Not a person of the chat."""
    root = sent.root
    name = None
    if any(c.dep_ == "poss" and c.lower_ in ("its", "it's", "it’s") for c in root.children) \
            and root.pos_ == "NOUN" and any(c.dep_ == "det" for c in root.children) \
            and any(c.dep_ == "compound" and c.pos_ == "PROPN" and c.is_title
                    for c in root.children):  # "its" and "the" on one noun: a texted "it's"
        start = root.i  # "its in april, the Bath half": the named thing it is, from its
        while start > sent.start and sent.doc[start - 1].head.i == root.i and sent.doc[  # "the"
                start - 1].dep_ in ("det", "compound", "amod"):
            start -= 1
        toks = [t for t in sent.doc[start: root.i + 1] if t.dep_ != "det"]  # its "its" is
        topic = _topic(" ".join(t.text for t in toks),  # "it's", no owner of the thing
                       tuple(_norm(t.lemma_) for t in toks))
        return (topic,) if topic and not is_question(sent) else ()
    if root.pos_ == "PROPN" and root.is_title and any(
            c.dep_ == "poss" and c.lower_ in ("its", "it's", "it’s") for c in root.children):
        name = root
    elif root.lemma_ == "be" and any(c.dep_ == "nsubj" and c.lower_ == "it" for c in root.children):
        name = next((c for c in root.children if c.dep_ == "attr" and c.pos_ == "PROPN"
                     and c.is_title and not any(k.dep_ in ("det", "poss") for k in c.children)),
                    None)
    # the one told of is named and then said which it is ("…, the brown lad"); "It's Pride
    # month", "it's Charlotte's Web" name a time or a title, no one of the user's
    if name is None or is_question(sent) or _names_a_speaker(name, names) or not any(
            c.dep_ == "appos" for c in name.children):
        return ()
    return (Topic(name.text, (name.lower_,)),)


def headline(sent) -> bool:
    """News told as a headline before the story ("got the keys!!!", "I got the call"): a
    light verb in the past taking a bare "the …" and nothing else — what the keys open or
    the call was about is what the speaker says next, and names the note."""
    root = sent.root
    if is_question(sent) or root.pos_ != "VERB" or root.tag_ not in ("VBD", "VBN") \
            or root.lemma_.lower() not in _LIGHT_VERBS or any(c.dep_ == "neg" for c in root.children):
        return False
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    objects = [c for c in root.children if c.dep_ == "dobj"]
    return (subject is None or first_person(subject)) and len(objects) == 1 and all(
        c.dep_ == "det" and c.lower_ == "the" for c in objects[0].children) and all(
        c.dep_ in ("nsubj", "dobj", "punct", "advmod", "npadvmod") for c in root.children)


def asked_of_him_or_her(sent) -> str:
    """The verb of a question asking after "he" or "she" ("Is she eating properly now?":
    "eat"), or "" — the one asked after is the being the user told of before."""
    if isinstance(sent, str) or not is_question(sent):
        return ""
    root = sent.root
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if root.pos_ != "VERB" or subject is None or subject.pos_ != "PRON":
        return ""
    return root.lemma_.lower() if _him_or_her(subject) else ""


def echoes_the_verb(sent, verb: str) -> bool:
    """An answer opening with the question's verb and no subject of its own ("Is she
    eating?" — "Eating again, the vet reckoned it was worms"): it tells of the one asked
    after, as people answer without saying "she" again."""
    words = [t for t in sent if not (t.is_punct or t.is_space)]
    return bool(verb) and bool(words) and words[0].pos_ == "VERB" \
        and words[0].lemma_.lower() == verb \
        and not any(c.dep_ in ("nsubj", "nsubjpass") for c in words[0].children)
