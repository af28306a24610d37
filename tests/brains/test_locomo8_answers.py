"""A reply read by the question it answers, in a chat between people (docs/spec.md §5.2.8,
issue #30 item 6): "How often do you get to see sunsets like that?" — "I catch them at
least twice a week." The answer names no thing of its own, so on its own it was a
reaction that joined no unit and the fact was dropped; the question names the thing.

Each chat is dreamt as a user would, through the CLI; what is checked is the digest notes.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes as notes


def _about(found: dict[str, str], person: str, word: str) -> list[str]:
    return [text for name, text in found.items() if name.startswith(person) and word in name]


def test_an_answer_about_them_is_about_the_thing_asked_after(dream_chat_cli):
    root = dream_chat_cli("chat-one", (
        "**Priya:** That sunset photo is gorgeous! How often do you get to see sunsets like "
        "that on your runs?\n"
        "**Owen:** Thanks, Priya! I catch them at least twice a week. It's the calmest part "
        "of my day.\n"
        "**Priya:** Lucky you!\n"))
    found = notes(root)
    sunsets = _about(found, "owen", "sunset")
    assert sunsets and "I catch them at least twice a week." in sunsets[0], sorted(found)
    # quoted with the question it answers: the quote alone does not say what "them" is
    assert ('Owen: answering Priya\'s "How often do you get to see sunsets like that on your '
            'runs?": "I catch them at least twice a week."') in sunsets[0], sunsets[0]
    assert not _about(found, "priya", "sunset")  # the asker's question is no fact of hers


def test_an_answer_about_it_texted_in_a_burst(dream_chat_cli):
    root = dream_chat_cli("chat-two", (
        "**Dana:** omg the bakery pics 😍\n"
        "**Dana:** how’s the bakery going?\n"
        "**Lee:** thanks dana!!\n"
        "**Lee:** it’s busier than ever, we sell out by noon most days\n"))
    found = notes(root)
    bakery = _about(found, "lee", "bakery")
    assert bakery and "busier than ever" in bakery[0], sorted(found)


def test_the_asker_and_an_answer_with_its_own_thing_do_not_take_it(dream_chat_cli):
    """The asker's own next line is no answer, and a reply that names its own thing is
    about that thing; a question about no thing ("How have you been?") names none."""
    root = dream_chat_cli("chat-three", (
        "**Priya:** How's the pottery class going?\n"
        "**Priya:** I've been so busy myself.\n"
        "**Owen:** I joined a climbing gym last week!\n"
        "**Priya:** How have you been?\n"
        "**Owen:** I've been swamped lately.\n"))
    found = notes(root)
    assert not any("pottery" in name for name in found), sorted(found)
    assert _about(found, "owen", "climbing-gym"), sorted(found)
    assert not any("swamped" in text for text in found.values()), sorted(found)


def test_a_question_hanging_on_a_remark_asks_after_nothing_it_names(dream_chat_cli):
    """"Sounds like parenting has been great - what has it been like?": the parse reads
    "Sounds" as a noun, but it and "parenting" are of the remark the question hangs on,
    not what it asks after (was a note `john-s-sounds`)."""
    root = dream_chat_cli("chat-four", (
        "**Theo:** Our twins turned one last week!\n"
        "**Mara:** Sounds like parenting has been a wonderful experience for you - what has "
        "it been like?\n"
        "**Theo:** It's definitely been a wild ride! I wouldn't trade it for anything.\n"))
    found = notes(root)
    assert any(name.startswith("theo-s-twins") for name in found), sorted(found)
    assert not any("sounds" in name for name in found), sorted(found)


def test_a_texted_question_starts_after_its_last_exclamation(dream_chat_cli):
    """"congrats! got any advice?" is one sentence to the parser when texted in lowercase,
    "congrats" the subject of "got": what it asks after is the advice (was a note
    `gina-s-congrats`, from LoCoMo's texting form)."""
    root = dream_chat_cli("chat-five", (
        "**Rui:** i opened my own print shop last month\n"
        "**Sam:** wow rui\n"
        "**Sam:** congrats! got any advice for someone just starting out?\n"
        "**Rui:** thanks sam! it was scary at first but so worth it\n"))
    found = notes(root)
    assert not any("congrats" in name for name in found), sorted(found)
    assert any(name.startswith("rui-s-advice") and "so worth it" in text
               for name, text in found.items()), sorted(found)


def test_a_reply_about_the_listener_or_a_thing_named_by_it_answers_nothing(dream_chat_cli):
    """A reply that tells of the listener ("I'm glad you found something you love") is
    about them, not an answer on the thing asked after (was `caroline-s-pic` from "want to
    see a pic?"); "the name of it" names what "it" stands for, which the question does not
    say (was `tim-s-name`)."""
    root = dream_chat_cli("chat-six", (
        "**Ines:** I finished another quilt this weekend. Want to see a photo?\n"
        "**Kofi:** I'm so glad you found something you love.\n"
        "**Kofi:** I started a novel last night, it's gripping.\n"
        "**Ines:** Ooh, what's the name of it?\n"
        "**Kofi:** It's a thriller by an author from Lagos and it's brilliant!\n"))
    found = notes(root)
    assert not any(name.startswith("kofi-s-photo") for name in found), sorted(found)
    assert not any(name.startswith("kofi-s-name") for name in found), sorted(found)
