"""News a user texts their assistant as a headline, and a thing named after a texted "its"
(docs/spec.md §5.2.9, issue #30 item 6):

* "got the keys!!!" — a light verb in the past on a bare "the …" — is the headline of what
  the next sentence or message tells ("finally moved into the flat in Leith"): one note,
  named by that, not a note called "keys";
* "When is it?" — "its in april, the Bath half": the texted "its" is "it's", and the named
  thing after it is what the user's question was about, not context of the next fact.

Chats written for these tests; dreamt through the CLI, read as the notes they leave.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes


def test_a_headline_goes_with_the_news_after_it(dream_chat_cli):
    root = dream_chat_cli("flat", (
        "User: got the keys!!! finally moved into the flat in Leith\n"
        "Assistant: Congratulations! How does it feel?\n"
        "User: surreal\n"))
    found = digest_notes(root)
    assert not any(n.endswith("-keys") for n in found), sorted(found)
    assert [n for n, text in found.items() if "got the keys" in text and "Leith" in text], found


def test_a_headline_texted_as_its_own_message(dream_chat_cli):
    root = dream_chat_cli("job", (
        "sam: got the call!!\n"
        "sam: the bakery on Rose Street wants me to start monday 😭\n"
        "AI: That's brilliant news! Early starts?\n"))
    found = digest_notes(root)
    assert not any(n.endswith("-call") for n in found), sorted(found)
    assert [n for n, text in found.items() if "got the call" in text and "Rose Street" in text], found


def test_its_and_a_named_thing_answers_what_was_asked(dream_chat_cli):
    root = dream_chat_cli("run", (
        "User: any tips for a first half marathon\n"
        "Assistant: Build up slowly, three runs a week, one long. When is it?\n"
        "User: its in april, the Bath half\n"
        "User: my dad was a fell runner so no pressure lol\n"
        "Assistant: Ha, you have it in your genes.\n"))
    found = digest_notes(root)
    bath = [n for n in found if "bath-half" in n]
    assert bath, sorted(found)
    assert "fell runner" not in found[bath[0]], found[bath[0]]
    assert [n for n, text in found.items() if "fell runner" in text], sorted(found)
