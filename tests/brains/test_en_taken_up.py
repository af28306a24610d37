"""A user takes up what the assistant's reply suggested and says so with a pronoun:
"bought one", "ordered some", "booked it" (docs/spec.md §5.2.9, issue #30 item 3: a
suggestion the user takes up is theirs). The pronoun stands for the thing of the reply the
user just spoke of ("helmets look so dorky" — "bought one"), or for the one thing the reply
named; a refusal ("didn't buy one") and the grumble alone make no note.

Each chat is dreamt as a user would, through the CLI; what is checked is the digest notes.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes as notes


def test_a_suggestion_taken_up_after_a_grumble_is_the_users_fact(dream_chat_cli):
    root = dream_chat_cli("chat-one", (
        "Jess: if i crash my bike on the commute does my work cover it\n"
        "AI: Probably not, unless your employer has its own scheme. A good helmet matters "
        "more than any cover, and a broken collarbone would keep you off the bike for weeks.\n"
        "Jess: helmets look so dorky\n"
        "Jess: ugh fine\n"
        "Jess: bought one 🚲\n"
        "AI: Good call.\n"))
    found = notes(root)
    helmet = [t for n, t in found.items() if "helmet" in n]
    assert helmet and "bought one" in helmet[0], sorted(found)


def test_the_one_thing_the_reply_named_taken_up(dream_chat_cli):
    root = dream_chat_cli("chat-two", (
        "Tom: my tea always tastes stewed\n"
        "AI: A gooseneck kettle would help.\n"
        "Tom: ordered one last night\n"))
    found = notes(root)
    assert any("kettle" in n for n in found), sorted(found)


def test_a_refusal_or_a_grumble_alone_makes_no_note(dream_chat_cli):
    root = dream_chat_cli("chat-three", (
        "Tom: my tea always tastes stewed\n"
        "AI: A gooseneck kettle would help.\n"
        "Tom: gooseneck kettles look silly\n"
        "Tom: didn't buy one\n"))
    found = notes(root)
    assert not any("kettle" in n for n in found), sorted(found)


def test_an_exclamation_the_reply_opens_with_is_no_thing_taken_up(dream_chat_cli):
    """"Aww! How long have you had them?" — "I've had them for two years": the parse reads
    the one-word exclamation as a name, but a sentence of one word and "!" names no thing
    the user could have taken up (was a note named `priya-s-awww`, from LoCoMo's
    assistant form)."""
    root = dream_chat_cli("chat-four", (
        "Priya: Meet my two budgies, they keep me sane when work gets busy.\n"
        "AI: Awww! How long have you had them?\n"
        "Priya: I've had them for two years now and they bring me so much joy!\n"))
    found = notes(root)
    assert not any("aww" in n for n in found), sorted(found)
