"""A user talking to their assistant tells of their life without saying "I" (docs/spec.md
§5.2.9, issue #30 item 3): a thing or person of theirs as the subject ("the choir trip
moved to October", "Dana found a cottage near Keswick"), a line with no verb ("Weekend
plan: the West Highland Way with Dana in May"), an activity they name ("i play hockey on
sundays"). In a chat with an assistant the user is the only person whose life is told, so
these are the user's facts — while a judgement of the assistant's reply, a guess, a
greeting or a reaction to what the assistant just named never becomes a note.

Each chat is dreamt as a user would, through the CLI; what is checked is the digest notes.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.topics import read_english
from reme_workbench.textrules.nlp import english_docs
from tests.brains.conftest import digest_notes as notes


def test_a_thing_or_person_of_the_users_as_subject_is_their_fact(dream_chat_cli):
    root = dream_chat_cli("packing", (
        "Priya: can you help with a packing list\n"
        "AI: Sure. Where are you going, and for how long?\n"
        "Priya: the choir trip moved to October\n"
        "Priya: Dana found a cottage near Keswick\n"
        "AI: Lovely. For a week in the Lakes in October: waterproofs, layers, boots.\n"
        "Priya: perfect thanks\n"))
    found = notes(root)
    assert any("keswick" in n or "cottage" in n for n in found), sorted(found)
    assert any("choir" in n for n in found), sorted(found)
    assert all(n.startswith("priya-s-") for n in found), sorted(found)


def test_a_line_with_no_verb_naming_a_place_and_a_time_is_their_fact(dream_chat_cli):
    root = dream_chat_cli("walk", (
        "Sam: Weekend plan: the West Highland Way with Dana in May\n"
        "AI: A great walk. Most people take seven or eight days from Milngavie.\n"
        "Sam: ok\n"))
    found = notes(root)
    assert any("west-highland-way" in n for n in found), sorted(found)


def test_reactions_to_the_assistants_reply_make_no_note(dream_chat_cli):
    """What the assistant just named, judged or guessed about, is no fact of the user's
    life; nor is a greeting."""
    root = dream_chat_cli("recipe", (
        "Sam: Good morning!\n"
        "AI: Good morning! Here is a risotto with Parmesan and a lemon dressing.\n"
        "Sam: The risotto sounds lovely\n"
        "Sam: the lemon dressing would be nice too\n"
        "Sam: The Parmesan is a great touch\n"
        "Sam: Great idea, thanks!\n"
        "Sam: big news today\n"))
    assert notes(root) == {}


def test_a_game_or_instrument_a_verb_takes_is_a_topic():
    """'i play netball on sundays': the tagger reads a bare 'netball' (squash, cello,
    karate) as an adjective in 'It was very netball.', the frame that tells a reaction's
    'doing good' from a thing; as the object of a verb that is not a light one it is a
    thing. "Doing good" (a light verb's) still names nothing."""
    for word in ("netball", "squash", "cello", "karate"):
        doc = english_docs([f"i play {word} on sundays"])[0]
        reading = read_english(doc[:], frozenset({"Kai"}))
        assert reading is not None and word in [t.text for t in reading.topics], (word, reading)
    doc = english_docs(["Doing good!"])[0]
    reading = read_english(doc[:], frozenset({"Kai"}))
    assert reading is None or not reading.topics, reading


def test_what_the_assistant_just_named_is_a_reaction_not_news():
    """The same clause tells of the user's life, unless its subject is what the
    assistant's reply before it named: then it answers the reply."""
    from reme_workbench.brains.offline_dream.replies import heard_topics

    said = english_docs(["The ferry left an hour late."])[0][:]
    reply = english_docs(["The ferry from Oban takes 45 minutes."])[0][:]
    names = frozenset({"Sam", "AI"})
    told = read_english(said, names, heard=[])
    assert told is not None and [t.text for t in told.topics] == ["ferry"], told
    reacted = read_english(said, names, heard=heard_topics(reply, names))
    assert reacted is None or not reacted.topics, reacted


def test_an_adjective_of_the_noun_before_the_head_stays_in_the_topic():
    """'this stained glass door': the parse hangs 'stained' on 'glass', a noun that
    modifies the head — it names a kind of glass, while an adjective on the head judges it
    ('a great support system' is the support system). Where the parse hangs it on the head
    ('a second hand bike') the head's rule holds: the parse decides."""
    names = frozenset({"Caroline", "Melanie"})
    cases = {"I restored this stained glass door last week.": "stained glass door",
             "I teach high school history now.": "high school history",
             "I joined a public health team.": "public health team",
             "I found a great support system.": "support system"}
    for said, topic in cases.items():
        reading = read_english(english_docs([said])[0][:], names)
        assert reading is not None and reading.topics[0].text == topic, (said, reading)


def test_an_answer_about_it_is_about_the_thing_the_assistant_asked_after(dream_chat_cli):
    """'How did your driving test go?' — 'it went fine, two minors': the user's 'it' is the
    thing of theirs the assistant's question named (by 'your' or by its owner's name), so
    the answer is a fact about it; an 'it' after a question about nothing of theirs stays
    without a topic."""
    root = dream_chat_cli("answer", (
        "Rosa: morning\n"
        "AI: Good morning, Rosa! How did Theo's swimming gala go?\n"
        "Rosa: it went brilliantly, he won two races\n"
        "Rosa: anyway can you help me with a shopping list\n"
        "AI: Of course. What is it for?\n"
        "Rosa: it's for a barbecue\n"))
    found = notes(root)
    gala = [text for name, text in found.items() if "gala" in name]
    assert gala and "it went brilliantly" in gala[0], sorted(found)


def test_he_is_a_pronoun_not_laughter():
    """'hehe' is laughter and is masked before the parse; 'he' alone is the pronoun, and
    the parse must see it: 'he won two races' has a subject of its own."""
    from reme_workbench.brains.offline_dream.topics import masked

    assert masked("hehe he won two races") == "     he won two races"


def test_small_talk_with_a_named_assistant_makes_no_note(dream_chat_cli):
    """The listener called by name, a lone capital opening an exclamation, a saying about
    a kind of thing, a description of what the assistant showed: no news of the user."""
    root = dream_chat_cli("smalltalk", (
        "Lena: Hey Juno, hope you're well\n"
        "AI: Hello Lena! Here is the photo of the quilt pattern you asked for.\n"
        "Lena: Aww Juno, bummer about the colours.\n"
        "Lena: Super stoked!\n"
        "Lena: Music has the power to heal.\n"
        "Lena: Kids are so funny.\n"
        "Lena: The blue really pops.\n"
        "AI: Glad you like it.\n"
        "Lena: thanks\n"))
    assert notes(root) == {}, sorted(notes(root))


def test_an_it_after_a_question_about_a_frame_or_standing_for_a_clause_names_nothing():
    """'How's everything on your end?' asks after no thing ('your end' is a frame, not
    the question's subject or object); "it's great to see …" has an 'it' that stands for
    the clause after it, not for what was asked after."""
    from reme_workbench.brains.offline_dream.replies import answers_about_it, asked_of_user

    names = frozenset({"Rosa", "AI"})
    frame = english_docs(["How's everything on your end?"])[0][:]
    assert asked_of_user(frame, names) == ()
    asked = asked_of_user(english_docs(["How did your driving test go?"])[0][:], names)
    assert [t.text for t in asked] == ["driving test"]
    assert answers_about_it(english_docs(["it went fine, two minors"])[0][:])
    assert not answers_about_it(english_docs(["It's great to see the work pay off."])[0][:])


def test_an_adjective_hung_on_a_noun_further_on_is_not_a_kind():
    """'the awesome hot fudge sundae': the parse hangs 'awesome' on 'fudge', two words on —
    a judgement of the whole, not a kind of fudge; only an adjective right before its noun
    ('hot fudge', 'stained glass') names a kind."""
    doc = english_docs(["my favourite is the awesome hot fudge sundae"])[0]
    reading = read_english(doc[:], frozenset({"Maria"}))
    assert reading is not None and [t.text for t in reading.topics][:1] == ["hot fudge sundae"], reading


def test_a_later_session_on_a_named_thing_corroborates_its_note():
    """The note 'ines-s-nikon' names its topic in a slug: 'nikon', lowercased, is a word
    the tagger does not read as a noun, so the name's topic was unread and a second session
    on the Nikon wrote a twin 'ines-s-nikon-2'. A name's topic the parse cannot read is its
    words."""
    from reme_workbench.brains.offline_dream.conversation import person_topic_match
    from reme_workbench.brains.offline_dream.units import UnitPlan
    from reme_workbench.llm.base import CandidateNote, IntegrateRequest, Material
    from reme_workbench.llm.schema import MemoryUnit

    note = CandidateNote("digest/personal/ines-s-nikon.md", "ines-s-nikon", "Ines's Nikon",
                         '- **2027-05-03** Ines: "My Nikon keeps fogging up."\n')
    plan = UnitPlan("personal", "Ines's Nikon", 1.0, [])
    plan.person, plan.topic, plan.topics = "Ines", "Nikon", ["Nikon"]
    unit = MemoryUnit(name=plan.name, bucket="personal", summary="Ines said so.")
    material = Material("daily/2027-05-17/plan.md", "", "2027-05-17")
    assert person_topic_match(IntegrateRequest(material, unit, (note,)), plan) == note


def test_a_texted_u_ends_its_sentence():
    """'so proud of u. these medals …': the tokenizer took a texted 'u.' for an
    abbreviation and ran the sentence on into the next one, so a quote was cut mid-clause
    ('im so happy for u. these figurines'); the texted 'u' is a word and its full stop
    ends the sentence."""
    doc = english_docs(["so proud of u. these medals i won last week are going on the wall"])[0]
    assert [s.text for s in doc.sents] == [
        "so proud of u.", "these medals i won last week are going on the wall"]
