"""A user says what their pet is ("Pixel's a rescue, she's nine" — the tagger reads the
"'s" as a possessive, but the article after it shows it is "is") and answers the
assistant's question about "she" without saying who again: "Is she drinking enough?" —
"Drinking fine, the vet checked her kidneys …" opens with the question's verb and no
subject, so it tells of the one named before and goes in that note, not a note on the vet
(docs/spec.md §5.2.9, issue #30 item 6).

Chats written for these tests; dreamt through the CLI, read as the notes they leave.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes

CHAT = """**user**
My cat has been hiding under the bed since we moved flat. Is that normal?

**assistant**
Very normal — cats can take a week or two to settle after a move. Is she eating properly?

**user**
Mostly. Pixel's a rescue, she's nine and very shy.

**assistant**
Then give her a quiet room with her bed and litter tray, and let her come out in her own
time. Is she drinking enough?

**user**
Drinking fine, the vet checked her kidneys last month and they're ok. Can you suggest a plug-in diffuser?

**assistant**
Feliway Classic is the one most vets recommend.
"""


def test_an_answer_echoing_the_question_s_verb_tells_of_the_one_named(dream_chat_cli):
    found = digest_notes(dream_chat_cli("shy-cat", CHAT))
    pixel = [text for text in found.values() if "Pixel's a rescue" in text]
    assert pixel and "kidneys" in pixel[0], sorted(found)
    assert not any(n.endswith("-vet") for n in found), sorted(found)


def test_an_answer_with_a_subject_of_its_own_is_not_taken_for_the_pet(dream_chat_cli):
    """"Is she drinking enough?" — "My brother drinks too much": a subject of its own,
    so no echo of the question; the brother is not put in Pixel's note."""
    chat = CHAT.replace("Drinking fine, the vet checked her kidneys last month and they're ok.",
                        "My brother Sam drinks too much, he moved in last month.")
    found = digest_notes(dream_chat_cli("shy-cat", chat))
    pixel = [text for text in found.values() if "Pixel's a rescue" in text]
    assert pixel and "brother" not in pixel[0], sorted(found)
