"""A user names the animals and people of their life to an assistant the way people text
(docs/spec.md §5.2.9, issue #30 item 6):

* a name texted in lowercase as a subject, which a "his"/"her"/"he"/"she" later in the line
  stands for ("biscuit keeps scratching her ear"), is a being of theirs — the note is on
  it, named with a capital, not on the ear;
* "shes my rescue greyhound" right after tells what that being is: the same note;
* "its Pepper, the grey one" names the one the user is telling of, so the lines about the
  rabbits are one note and a sister's wedding told later in the chat is another.

Chats written for these tests; dreamt through the CLI, read as the notes they leave.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes


def test_a_lowercase_name_a_pronoun_stands_for_is_a_being_of_the_users(dream_chat_cli):
    root = dream_chat_cli("ear", (
        "Priya: hey quick one\n"
        "Assistant: Sure, what's up?\n"
        "Priya: biscuit keeps scratching her ear 😩\n"
        "Priya: shes my rescue greyhound\n"
        "Assistant: Ear scratching in greyhounds is often mites or yeast. Check for dark wax "
        "and ask your vet.\n"
        "Priya: ok will book her in\n"))
    found = digest_notes(root)
    biscuit = [n for n in found if n.endswith("-biscuit")]
    assert biscuit, sorted(found)
    assert "rescue greyhound" in found[biscuit[0]], found[biscuit[0]]
    assert not any(n.endswith(("-ear", "-rescue-greyhound")) for n in found), sorted(found)


def test_its_and_a_name_names_the_one_told_of(dream_chat_cli):
    root = dream_chat_cli("vet-and-speech", (
        "Ewan: is it normal for a rabbit to stop eating hay\n"
        "AI: A day off hay can be stress or teeth; longer than that needs a vet. Is it both of them?\n"
        "Ewan: just one. its Pepper, the grey one. Rolo the other one seems fine\n"
        "AI: Then book Pepper in today and keep offering fresh hay and greens.\n"
        "Ewan: different thing. my brother Callum asked me to be best man at his wedding in Oban.\n"
        "AI: Congratulations! Do you want help with the speech?\n"))
    found = digest_notes(root)
    pepper = [n for n in found if n.endswith("-pepper")]
    wedding = [n for n, text in found.items() if "Oban" in text]
    assert pepper and wedding, sorted(found)
    assert pepper[0] not in wedding, sorted(found)
    assert "hay" in found[pepper[0]] and "hay" not in found[wedding[0]]


def test_a_texted_ill_before_him_is_no_being(dream_chat_cli):
    root = dream_chat_cli("boss", (
        "jo: my manager wants me in on saturday\n"
        "AI: Do you want to say no?\n"
        "jo: yea ill tell him\n"))
    assert not any(n.endswith("-ill") for n in digest_notes(root))


def test_it_is_and_a_name_with_nothing_said_of_it_is_no_being(dream_chat_cli):
    """"It's Pride month": a time or a title after "it's", with no "…, the grey one" saying
    which of the user's it is — LoCoMo's chats read as a user with an assistant lost a
    question's note to such lines (recall@5 of the user's questions 0.906 → 0.895)."""
    root = dream_chat_cli("month", (
        "User: any ideas for a poster\n"
        "Assistant: Sure, bold colours and one big slogan work well.\n"
        "User: It's Pride Month! I'm making one for my art class.\n"))
    found = digest_notes(root)
    assert not any(n.endswith(("-pride", "-month")) for n in found), sorted(found)
    assert [n for n in found if "art-class" in n], sorted(found)
