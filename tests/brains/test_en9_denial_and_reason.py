"""A user denies a habit and says why in the same sentence ("I don't cycle after dark these
days, my eyes aren't what they were"): the note is named on what they do not do, with the
when kept ("does not cycle after dark" — docs/spec.md §5.2.9, issue #30 item 7: a name never
drops the negation), not on the eyes the reason names; a thing the denial itself names
("I don't eat seafood, my stomach …") stays its topic.

Chats written for these tests; dreamt through the CLI, read as the notes they leave.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes


def test_a_denied_habit_with_its_reason_is_named_on_the_denial(dream_chat_cli):
    root = dream_chat_cli("bus", (
        "Jean: Can you find me a bus to the hospital on Thursday?\n"
        "Assistant: Of course. Would a lift from a friend be easier?\n"
        "Jean: I don't cycle after dark these days, my eyes aren't what they were.\n"
        "Assistant: Then the 36 bus stops right outside at 9:10.\n"))
    found = digest_notes(root)
    assert "jean-does-not-cycle-after-dark" in found, sorted(found)
    assert not any(n.endswith("-eyes") for n in found), sorted(found)


def test_a_denial_naming_its_thing_keeps_the_thing_first(dream_chat_cli):
    root = dream_chat_cli("menu", (
        "Omar: Can you suggest a starter for Saturday's dinner party?\n"
        "Assistant: Happily. Any dietary needs?\n"
        "Omar: I don't eat seafood, my stomach can't handle it.\n"
        "Assistant: Then a beetroot and goat's cheese tart would work.\n"))
    found = digest_notes(root)
    assert any(n.endswith("-seafood") for n in found), sorted(found)
    assert not any(n.endswith("-stomach") for n in found), sorted(found)
