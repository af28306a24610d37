"""What a user asks their assistant to do is no fact about them, and the answers and texted
lines around a request say what it was about (docs/spec.md §5.2.9, issue #30 items 4 and 6):

* a clause of the user's inside a request to the assistant ("Can you list some plants so
  I can put them on my balcony?", "can you help me pick a first car"), asked in question
  order ("What can I practise on that won't get me murdered by the neighbours?") or what
  someone else would think of them ("…, she'll think I'm on a cruise") tells nothing of
  their life — but what they ask about it does ("can you explain how I register as a
  nurse in Spain?"), and so does a thing of theirs the assistant is asked to work on
  ("Can you help me price my wedding photography packages?");
* "It's a …" answering the assistant's question names the thing asked after ("What's the
  job?" — "It's a data analyst job in Leeds");
* a noun phrase texted on its own line after a line of a verb with no subject or object
  ("failed 🙃" — "roundabouts") is what that verb was about.

Chats written for these tests (none is from the labelled sets); dreamt as a user would,
through the CLI, and read as the digest notes they leave.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes


def _holding(found: dict[str, str], *words: str) -> list[str]:
    """The notes whose text holds every one of `words` (case-insensitive)."""
    return [n for n, text in found.items() if all(w.lower() in text.lower() for w in words)]


def test_a_request_to_the_assistant_is_no_note(dream_chat_cli):
    root = dream_chat_cli("landlord", (
        "User: Can you write a short email to my landlord about the boiler?\n"
        "Assistant: Here's a draft: \"Hi, the boiler stopped working on Monday.\"\n"
        "User: Could you make it firmer so he knows I'm serious?\n"
        "Assistant: Sure: \"The boiler has not worked since Monday and needs repair this week.\"\n"
        "User: Can you list some plants so I can put them on my balcony?\n"
        "Assistant: Lavender, geraniums and herbs like thyme.\n"))
    assert digest_notes(root) == {}


def test_a_clause_inside_a_request_or_a_question_is_no_statement(dream_chat_cli):
    root = dream_chat_cli("car", (
        "**Tom:** Passed my driving test!!!\n"
        "**Tom:** second go, the examiner was lovely\n"
        "**AI:** Congratulations! How does it feel?\n"
        "**Tom:** unreal. can you help me pick a first car under 3k\n"
        "**AI:** Happily. Small hatchbacks are cheapest to insure.\n"
        "**Tom:** What can I practise on that won't annoy the neighbours?\n"
        "**AI:** A quiet car park early on a Sunday.\n"
        "**Tom:** Can you make the list shorter, she'll think I'm buying a bus\n"))
    found = digest_notes(root)
    assert _holding(found, "driving test"), sorted(found)
    assert not any(n.endswith(("-car", "-neighbours", "-bus", "-list")) for n in found), sorted(found)


def test_what_a_request_asks_about_the_users_life_is_theirs(dream_chat_cli):
    root = dream_chat_cli("moving", (
        "**user**: can you explain how I register as a physiotherapist in Portugal?\n\n"
        "**assistant**: You have your qualification recognised first, then register with "
        "the professional order.\n\n"
        "**user**: Can you help me price my wedding cakes for next year? "
        "I have been baking them for ten years.\n\n"
        "**assistant**: Happy to. What do you charge now?\n\n"
        "**user**: Can you look over my cover letter too?\n\n"
        "**assistant**: Of course.\n"))
    found = digest_notes(root)
    assert _holding(found, "physiotherapist"), sorted(found)
    assert any("wedding-cakes" in n for n in found), sorted(found)
    assert not any("cover-letter" in n for n in found), sorted(found)  # a request alone


def test_its_a_answering_the_assistants_question_names_the_thing(dream_chat_cli):
    root = dream_chat_cli("letter", (
        "User: Can you help me with a personal statement?\n"
        "Assistant: Of course. What's the course, and what do you want to stress?\n"
        "User: It's a midwifery degree at the University of Cardiff. "
        "I've worked in a nursery for four years.\n"
        "Assistant: That's a good base to write from.\n"))
    found = digest_notes(root)
    midwifery = [n for n in found if "midwifery" in n]
    nursery = [n for n in found if "nursery" in n]
    assert midwifery and nursery, sorted(found)
    assert "nursery" not in found[midwifery[0]], sorted(found)


def test_a_noun_texted_after_a_bare_verb_is_what_the_verb_was_about(dream_chat_cli):
    root = dream_chat_cli("exam", (
        "nia: failed 😭\n"
        "nia: theory test\n"
        "nia: rebooked for the 9th\n"
        "nia: can u make me a revision plan\n"
        "Bot: Sorry to hear that. Ten questions a day and one mock test each evening will do it.\n"
        "Bot: Do you have the official app?\n"
        "nia: my brother has it\n"
        "Bot: Then borrow it tonight and send your instructor the plan.\n"
        "nia: Sent. Thanks\n"))
    found = digest_notes(root)
    test = [n for n in found if "theory-test" in n]
    assert test, sorted(found)
    assert "rebooked for the 9th" in found[test[0]], found[test[0]]
    assert not any(n.endswith("-thanks") for n in found), sorted(found)  # two sentences


def test_news_in_a_questions_frame_is_told(dream_chat_cli):
    """"Can you believe I …?" asks nothing of the listener: the clause is the news. LoCoMo's
    chats, read as a user with an assistant, lost such lines when every clause under "can
    you" counted as a request (recall@5 of the user's questions 0.823 → 0.802)."""
    root = dream_chat_cli("race", (
        "User: Can you believe I ran my first marathon in Valencia on Sunday?!\n"
        "Assistant: That's huge, congratulations! How are your legs?\n"
        "User: Wrecked. Swimming helped me loosen my calves though.\n"))
    found = digest_notes(root)
    assert [n for n, text in found.items() if "marathon" in n and "Valencia" in text], sorted(found)


def test_a_request_for_something_of_a_thing_of_theirs_is_theirs_once_they_tell_of_it(
        dream_chat_cli):
    """"Could you help me make a list of my son's allergies?" asks for a list *of* a thing of
    the user's (his allergies, through "my son's"): once the turn after the assistant's
    question tells of him ("He's 9."), the request and that answer are a note of their own
    — not lines joined to the note on what the user said before it (the school trip)."""
    root = dream_chat_cli("allergies", (
        "User: The school trip to Whitby is on the 3rd of May. "
        "Could you help me make a list of my son's allergies for the teachers?\n\n"
        "Assistant: Of course. What is he allergic to, and what happens if he eats it?\n\n"
        "User: He's 9. He can't have peanuts or sesame, and he carries an EpiPen.\n\n"
        "Assistant: Here's the list.\n"))
    found = digest_notes(root)
    trip = _holding(found, "Whitby")
    allergies = _holding(found, "EpiPen")
    assert trip and allergies, sorted(found)
    assert not set(trip) & set(allergies), sorted(found)  # two topics, two notes
    assert any("allergies" in n or "son" in n for n in allergies), sorted(found)
