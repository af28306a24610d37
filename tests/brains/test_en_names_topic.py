"""What an English note about a person is named by (docs/spec.md §5.2.8, issue #30 items 1
and 5): the thing the sentence is about, read from the parse — what the speaker says they
are over a thing of theirs the sentence opens with, what they do with someone over that
someone, the instrument they practise over the letters of its chords, the game over "my
turn", an activity over the place it happens in — never a thing of theirs that someone
else acted on or that the listener is in, never the listener's doing.

The chats are written for these tests (other people, other nouns than any material the
rules were read on); each was read wrongly before the rule it holds.
"""

from __future__ import annotations

import pytest

from tests.brains.conftest import digest_notes as notes
from tests.brains.test_dream_conversations import plans_of


def topics_of(speaker: str, text: str) -> list[str]:
    """The topics of the notes `speaker`'s turn gives, in a chat with a friend, in the order
    the plan keeps them (the first is what a one-sentence turn's note is named by)."""
    chat = (f"**Ravi:** Hey, how's things?\n**{speaker}:** {text}\n"
            f"**Ravi:** Nice one.\n**{speaker}:** Yeah.\n")
    plans, _ = plans_of(chat)
    return [p.topic for p in plans if p.person == speaker]


@pytest.mark.parametrize(("text", "topic", "wrong"), [
    # what the speaker says they are, over a body part the sentence opens with
    # (was "back": "Zoe's back")
    ("My back aches all day anyway, I'm a postwoman, so the walking is fine.",
     "postwoman", "back"),
    # the speaker and someone of theirs as one subject: what they do together is the topic
    # (was "wife")
    ("My wife Priya and I are taking our camper van up to the Highlands next month.",
     "camper van", "wife"),
    # the thing a measure of time was spent on, over the letters of chords and a manner
    # (was "stopping", then "D")
    ("Two months into the guitar and I can go from A to D without stopping.",
     "guitar", "stopping"),
    # "my turn to …" names no thing; a hyphened game is one word (was "turn", then "side")
    ("seven-a-side Saturday 9am, my turn to wash the kit", "seven-a-side", "turn"),
    # an activity in -ing that takes no object is what the clause tells (was nothing)
    ("I'm camping this weekend.", "camping", None),
    # …before the place it happens in (was "Peaks"), or a time after "since" (was nothing)
    ("Last week I was hiking in the Peaks.", "hiking", "Peaks"),
    ("I've been swimming more since our last call.", "swimming", None),
    # who acts where the speaker's thing is, when a noun names them (was "pillow")
    ("Mochi sleeps on my pillow every night now.", "Mochi", "pillow"),
])
def test_a_note_is_named_by_what_the_sentence_is_about(text, topic, wrong):
    found = topics_of("Zoe", text)
    assert found[:1] == [topic], found
    if wrong is not None:
        assert wrong not in found, found


@pytest.mark.parametrize(("text", "wrong"), [
    # a thing of the speaker's where the listener is, or another acted: theirs to tell
    # (was "side", "pillow", "bed")
    ("It helps so much having you on my side.", "side"),
    ("He chewed his toy on my pillow last night.", "pillow"),
    ("Biscuit buried a sock under my bed!", "bed"),
    # "my shore one": a kind of a thing named elsewhere, no thing (was "shore")
    ("Do I need a separate permit to fish from a boat, or does my shore one cover it?", "shore"),
    # a picture handed over as it is said names nothing of the speaker's (was "pic")
    ("Here's a pic from when we caught up last week!", "pic"),
    # what the speaker says they are not: a note named so says the opposite (was "baker")
    ("Hey Sam, I'm no baker like you, but something pretty great happened.", "baker"),
    ("I'm not a nurse, I'm a midwife.", "nurse"),
    # what the listener's thing does for the listener (was "music")
    ("I'm so happy for you that music is helping you relax!", "music"),
])
def test_no_note_is_named_by_a_thing_someone_else_acts_on(text, wrong):
    assert wrong not in topics_of("Zoe", text)


def test_what_an_activity_takes_is_its_topic_not_the_activity():
    """An -ing verb with a thing it is done on or with ("working on my novel") is about
    the thing; one that says nothing of where or when ("I'm just kidding") names nothing."""
    assert topics_of("Zoe", "I'm struggling with my thesis.")[:1] == ["thesis"]
    assert "kidding" not in topics_of("Zoe", "I'm just kidding.")


@pytest.mark.parametrize(("text", "wrong"), [
    ("i'm freezing all the time", "freezing"),  # a state, no where or when named
    ("asking for an extension", "asking"),  # no subject: no activity of the speaker's
    # the subject left out may be someone just named: no activity of the speaker's
    ("he's 7 and so nervous. been rehearsing every night since May", "rehearsing"),
    # a purpose after it names the thing ("my sister"), not the travelling
    ("I'm driving to Leeds on Friday to pick up my sister.", "driving"),
])
def test_an_ing_verb_is_no_activity_without_a_subject_a_place_or_time_or_with_a_purpose(
        text, wrong):
    assert wrong not in topics_of("Zoe", text)


@pytest.mark.parametrize(("text", "topic", "wrong"), [
    # what the speaker was, in a clause that says when, is no identity
    ("I used to go sailing with my uncle when I was a teenager, we'd race on Sundays.",
     "sailing", "teenager"),
    # a predicate the tagger calls a noun with no determiner ("game") is no identity
    ("I haven't tried archery yet, but I'm game for trying new sports.", "archery", "game"),
    # a thing of the speaker's that a common noun did something for is still theirs
    ("A neighbour baked it for my 40th birthday last year.", "birthday", None),
])
def test_an_identity_or_another_act_is_read_only_where_the_parse_says_so(text, topic, wrong):
    found = topics_of("Zoe", text)
    assert found[:1] == [topic], found
    if wrong is not None:
        assert wrong not in found, found


def test_a_hyphened_kind_of_one_is_named_whole():
    """'I'll buy the plug-in one': a plug-in, what people call the thing (was "plug")."""
    assert topics_of("Zoe", "I'll buy the plug-in one.") == ["plug-in"]


def test_what_a_thing_shown_is_of_is_the_topic():
    """'Here's a pic of my garden': the garden; 'here's my new puppy': the puppy."""
    assert topics_of("Zoe", "Here's a pic of my garden.")[:1] == ["garden"]
    assert topics_of("Zoe", "Here's my new puppy, Biscuit!")[:1] == ["puppy"]
    assert topics_of("Zoe", "Here's a quilt I made last winter.")[:1] == ["quilt"]


def test_a_member_of_is_named_by_what_it_is_of():
    """'I'm a big fan of jazz': what the speaker is a fan of, not 'fan'."""
    assert topics_of("Zoe", "I'm a big fan of jazz.")[:1] == ["jazz"]


def test_an_assistant_chat_names_the_users_notes_by_job_and_trip(dream_chat_cli):
    """Through the CLI, as a user meets it: a user telling their assistant of their job
    and a trip gets notes named by the job and the boat, none by a body part or by the
    partner they travel with."""
    root = dream_chat_cli("signing", (
        "Marta: Can you suggest some stretches? My wrists ache by Friday, I'm a court "
        "stenographer, so typing is the whole job.\n"
        "AI: Try wrist circles and prayer stretches twice a day.\n"
        "Marta: Thanks. Also my partner Joel and I are taking our canoe down the Spey in "
        "August.\n"
        "AI: Lovely. Pack dry bags and check the water levels the week before.\n"))
    found = notes(root)
    assert any("stenographer" in n for n in found), sorted(found)
    assert any("canoe" in n or "spey" in n for n in found), sorted(found)
    assert not any(n.endswith(("-s-wrists", "-s-partner", "-s-joel")) for n in found), sorted(found)


def test_what_that_is_after_the_speakers_clause_is_theirs():
    """"I can't come Tuesday, that's my pottery class": the "that" is what the speaker just
    said, so what it is names the note (was no topic at all)."""
    assert topics_of("Zoe", "I can't come Tuesday, that's my pottery class.")[:1] == ["pottery class"]
    # "this" points at a thing shown, not back at what was said
    assert "receipt" not in topics_of("Zoe", "we paid it already, this is just the receipt")


def test_the_users_own_doing_names_the_note_before_a_person_named(dream_chat_cli):
    """Told to an assistant, "Jo wants to meet on Monday but I can't do Mondays, that's
    choir practice" is about the user's choir practice, not about Jo (was `aoife-s-jo`)."""
    root = dream_chat_cli("diary", (
        "Aoife: Can you help me find a time for coffee with Jo?\n"
        "AI: Sure, which days are you free?\n"
        "Aoife: Jo wants to meet on Monday but I can't do Mondays, that's choir practice at "
        "St Mary's.\n"
        "AI: How about Tuesday morning then?\n"))
    found = notes(root)
    assert any("choir-practice" in n for n in found), sorted(found)
    assert "aoife-s-jo" not in found, sorted(found)
