"""A reply read by the question it answers, in a chat between people (docs/spec.md §5.2.8).

People answer a question about a thing of theirs without naming the thing again: "How
often do you get to see sunsets like that on your walks?" — "I see them at least once a
week."; "How have games been going?" — "It was an intense season …". The answer states
something of the speaker, or of "it"/"they", with no topic of its own, so on its own it
is a reaction that joins no unit and the fact is lost. The question names the thing:
the reply's first such sentence is about it, quoted with the question it answers (the
quote alone would not say what "them" is), and the rest of the reply joins it as a
reaction does (`conversation.plan_conversation`).

Read from spaCy's parse, no word list: the thing is the noun phrase the question asks
after — one owned by "your" or a name (`replies.asked_of_user`), else the first of the
question clause's arguments that names a topic (`topic_from_chunk`; not one of a clause
the question hangs on: "Sounds like parenting has been great - what has it been like?"
asks after nothing named; "What's the name of it?" nothing the question says). Only the
reply right after the question, by one who did not ask it, not a sentence about the
listener, and only until the reply names a topic of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .replies import answers_about_it, asked_of_user
from .topics import Reading, Topic, is_question, same_topic, second_person, topic_from_chunk

__all__ = ["Answer", "QuestionsAnswered", "asked_thing"]

# what a question asks after: its subject, object or complement, the noun a verbless one
# is ("Any advice on that?"), or a noun after a preposition ("tips for dairy-free baking")
_ASKED = frozenset({"nsubj", "nsubjpass", "dobj", "attr", "pobj", "ROOT"})
# the dependencies that open a clause of its own under the question's
_CLAUSE = frozenset({"ccomp", "advcl", "relcl", "acl", "parataxis", "csubj", "csubjpass"})


def _in_question_clause(tok) -> bool:
    """Whether `tok` hangs from the sentence's root without crossing into another clause."""
    while tok.dep_ != "ROOT" and tok.head.i != tok.i:
        if tok.dep_ in _CLAUSE:
            return False
        tok = tok.head
    return True


def _of_a_pronoun(root) -> bool:
    """"the name of it", "a picture of that": the phrase names what the pronoun stands
    for, which the question does not say."""
    return any(c.dep_ == "prep" and c.lower_ == "of" and any(
        g.dep_ == "pobj" and g.pos_ == "PRON" for g in c.children) for c in root.children)


def asked_thing(sent, names: frozenset[str]) -> tuple[Topic, ...]:
    """The thing a question asks the listener after ("sunsets" of "How often do you get to
    see sunsets like that?", "store" of "How's the store going?"), or () — for a sentence
    that is no question, or asks after no thing ("How have you been?", "What's up?")."""
    if isinstance(sent, str) or not is_question(sent):
        return ()
    owned = asked_of_user(sent, names)
    if owned:
        return owned[:1]
    # texted without capitals, "congrats! got any advice?" is one sentence to the parser,
    # "congrats" the subject of "got": the question starts after the last "!" or "."
    start = max((t.i + 1 for t in sent[:-1] if t.is_punct and set(t.text) <= set("!.")),
                default=sent.start)
    for chunk in sent.noun_chunks:
        if chunk.start < start or chunk.root.dep_ not in _ASKED or second_person(chunk.root) \
                or not _in_question_clause(chunk.root) or _of_a_pronoun(chunk.root):
            continue
        topic = topic_from_chunk(chunk, names, any_role=True, yours=True)
        if topic is not None:
            return (topic,)
    return ()


@dataclass(frozen=True)
class Answer:
    """A sentence read as the answer to a question: its reading, on the thing asked after,
    and who asked what, as said (quoted beside the answer)."""

    reading: Reading
    asker: str
    question: str


class QuestionsAnswered:
    """Follows a chat between people turn by turn: the thing the last question asked
    after, and who asked it, until the reply (by anyone else) takes it up or the talk
    moves on."""

    def __init__(self, names: frozenset[str]) -> None:
        self._names = names
        self._asker = ""
        self._question = ""
        self._thing: tuple[Topic, ...] = ()

    def answer(self, speaker: str, span, readings: Sequence[Reading | None]) -> Answer | None:
        """`speaker`'s sentence read as the answer to the question just asked: a statement
        with no topic ("I see them once a week"), a sentence about "it"/"they" ("It was an
        intense season") or one naming the thing again ("The store's doing great!") is
        about the thing asked after. None when it does not answer it (its readings
        stand): a sentence with the listener in it tells of them ("I'm happy you found
        something"); one that names a topic of its own ends the answer."""
        if not self._thing or speaker == self._asker or isinstance(span, str):
            return None
        if any(r is not None and r.topics for r in readings):
            self._thing = ()  # the reply names its own thing: that is what it is about
            return None
        if any(second_person(t) for t in span):
            return None  # "I'm happy you found something": of the listener, not the thing
        statement = any(r is not None and not r.context for r in readings)
        if not (statement or answers_about_it(span) or self._names_it(span)):
            return None
        thing, self._thing = self._thing, ()
        return Answer(Reading(thing), self._asker, self._question)

    def _names_it(self, span) -> bool:
        return any((t := topic_from_chunk(c, self._names, any_role=True)) is not None
                   and same_topic(t, self._thing[0]) for c in span.noun_chunks)

    def turn_ends(self, speaker: str, sentences: Sequence[tuple[str, object]]) -> None:
        """After a turn (or one message of a burst): a question at its end asks the others
        after a thing; a turn of the asker's without one moves on."""
        said, last = sentences[-1] if sentences else ("", None)
        thing = asked_thing(last, self._names) if last is not None else ()
        if thing:
            self._asker, self._question, self._thing = speaker, said, thing
        elif speaker == self._asker:
            self._thing = ()  # the asker spoke again without waiting for the answer
