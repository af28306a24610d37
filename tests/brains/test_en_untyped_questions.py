"""People text a question without its question mark: "how do i not cry at the speech lol",
"what should i bring to the potluck", "is it ok to give a puppy cheese". A question asks;
it states nothing about the one who asks (docs/spec.md §5.2.9, issue #30 item 4), so it
makes no note of its own — neither "does not cry" nor "potluck" — with or without the mark.
A sentence that only begins with a question word ("how I met my wife is a long story",
"what I need now is a gift") is no question.

Each chat is dreamt as a user would, through the CLI; what is checked is the digest notes.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.topics import read_english
from reme_workbench.textrules.nlp import english_docs
from tests.brains.conftest import digest_notes as notes


def test_a_question_texted_without_its_mark_makes_no_note(dream_chat_cli):
    root = dream_chat_cli("chat-one", (
        "Priya: how do i not cry at the speech lol\n"
        "AI: Practise it out loud five times; by the fifth the words stop landing so hard.\n"
        "Priya: what should i bring to the potluck\n"
        "AI: Something that travels well: a grain salad or brownies.\n"))
    found = notes(root)
    assert not any(w in n for w in ("cry", "speech", "potluck") for n in found), sorted(found)


def test_an_inverted_question_states_nothing_but_a_statement_still_does():
    names = frozenset({"Priya", "AI"})

    def topics(text: str) -> list[str]:
        reading = read_english(english_docs([text])[0][:], names, [])
        return [t.text for t in reading.topics] if reading is not None else []

    assert topics("how do i not panic") == []
    assert topics("can i give my puppy cheese") == []
    assert topics("what I need now is a gift") != [] or topics("I need a new gift") != []
    assert "pottery" in " ".join(topics("I started pottery classes last week"))
