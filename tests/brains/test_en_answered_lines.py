"""A user's line that names no topic ("is it ok for a hamster to sleep all day", "yes
loads") waits for the statement it goes with. Once the assistant has answered it with a
reply that asks nothing, it has been answered: it never joins the note of what the user
tells after that ("my brother Tomas asked me to give a speech …") — one topic a note
(docs/spec.md §5.2, issue #30 item 5). A line the assistant's question draws out still
goes with the user's thread.

Each chat is dreamt as a user would, through the CLI; what is checked is the digest notes.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes as notes


def test_a_line_answered_before_never_joins_a_later_topics_note(dream_chat_cli):
    root = dream_chat_cli("chat-one", (
        "Rosa: is it ok for a hamster to sleep all day\n"
        "AI: Yes, hamsters are nocturnal, so sleeping through the day is normal. Is he eating?\n"
        "Rosa: yes loads. the kids were worried\n"
        "AI: Then he is fine. Keep the cage somewhere quiet in the daytime.\n"
        "Rosa: other thing. my brother Tomas asked me to give a speech at his 40th in Lisbon.\n"
        "AI: A short speech with one story works best.\n"))
    found = notes(root)
    speech = [text for name, text in found.items() if "brother" in name or "tomas" in name]
    assert speech, sorted(found)
    assert all("hamster" not in t and "kids were worried" not in t for t in speech), speech


def test_a_different_person_and_topic_the_same(dream_chat_cli):
    root = dream_chat_cli("chat-two", (
        "Ivo: why does a boiler lose pressure overnight\n"
        "AI: Usually a small leak or a faulty pressure relief valve. Check under the radiators.\n"
        "Ivo: ok will look tonight\n"
        "AI: If it keeps dropping, call a Gas Safe engineer.\n"
        "Ivo: separate question, my daughter Lena starts violin lessons on Monday.\n"
        "AI: Lovely! A quarter-size violin suits most seven-year-olds.\n"))
    found = notes(root)
    violin = [text for name, text in found.items() if "lena" in name or "violin" in name
              or "daughter" in name]
    assert violin, sorted(found)
    assert all("boiler" not in t and "look tonight" not in t for t in violin), violin
