"""A user tells two facts in one sentence — a thing they do, and, joined by "and", news of
a thing of theirs ("I sing alto in the choir, …, and our spring recital is on the 12th"):
each is a note of its own (docs/spec.md §5.2.9, issue #30 item 6), the first not lost under
the second's name.

Chats written for these tests; dreamt through the CLI, read as the notes they leave.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes


def test_a_joined_clause_on_a_thing_of_the_users_is_a_fact_apart(dream_chat_cli):
    root = dream_chat_cli("week", (
        "Nadia: Can you help me plan my week?\n"
        "Assistant: Sure, what's on?\n"
        "Nadia: I sing alto in the Harrogate community choir, practice on Tuesdays, and our "
        "spring recital is on the 12th at St Mary's.\n"
        "Assistant: Lovely. Want me to block out Tuesday evenings?\n"))
    found = digest_notes(root)
    recital = [n for n in found if n.endswith("-spring-recital")]
    choir = [n for n in found if n.startswith("nadia-s-") and n not in recital]
    assert recital and choir, sorted(found)
    assert "choir" in found[choir[0]], found[choir[0]]


def test_a_joined_clause_that_only_says_more_of_the_same_is_one_note(dream_chat_cli):
    """"…and my knee is still sore": no date, no past or future — a state, said of the
    same run; one note."""
    root = dream_chat_cli("run", (
        "Tom: Can you suggest a stretch for my knee?\n"
        "Assistant: Sure, what happened?\n"
        "Tom: I ran the Leeds half marathon on Sunday and my knee is still sore.\n"
        "Assistant: Well done! Try gentle quad stretches and rest it for a few days.\n"))
    found = [n for n in digest_notes(root) if n.startswith("tom-s-")]
    assert len(found) == 1, found
