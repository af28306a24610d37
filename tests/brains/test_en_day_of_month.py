"""A user texting an assistant gives the new day of a thing they just told of as a day of
the month alone, with no "I" and often no apostrophe: "my driving test got moved" — "she is
off sick so now its the 14th". A day of the month ("the 14th", "the 3rd")
names a day as a weekday or a date does, so the line goes with the note it dates
(docs/spec.md §5.2.9, issue #30 item 3) rather than being dropped as
what a third person ("she") did.

Each chat is dreamt as a user would, through the CLI; what is checked is the digest notes.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.conversation import _names_a_day
from reme_workbench.textrules.nlp import english_docs
from tests.brains.conftest import digest_notes as notes


def test_a_day_of_the_month_after_a_moved_thing_goes_with_its_note(dream_chat_cli):
    root = dream_chat_cli("chat-one", (
        "Ana: my driving test got moved\n"
        "Ana: she is off sick so now its the 14th\n"
        "AI: More time to practise parallel parking, then.\n"))
    found = notes(root)
    test = [t for n, t in found.items() if "test" in n]
    assert test and "14th" in test[0], found


def test_the_same_with_another_thing_and_day(dream_chat_cli):
    root = dream_chat_cli("chat-two", (
        "Kofi: the band rehearsal got pushed back\n"
        "Kofi: he broke his wrist so now its the 3rd\n"
        "AI: Hope he heals quickly.\n"))
    found = notes(root)
    rehearsal = [t for n, t in found.items() if "rehearsal" in n or "band" in n]
    assert rehearsal and "3rd" in rehearsal[0], found


def test_an_ordinal_that_is_no_day_names_none():
    """'my 3rd attempt', 'the 2nd time' count, not days; 'the 14th', 'the 3rd of May' are days."""
    def day(text: str) -> bool:
        return _names_a_day(english_docs([text])[0][:])

    assert day("so now its the 14th") and day("moved to the 3rd of may")
    assert not day("this is my 3rd attempt") and not day("failed it for the 2nd time")
