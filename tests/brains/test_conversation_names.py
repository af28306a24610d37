"""What a conversation's notes are named by: a thing the speaker states about themselves,
read from the parse (offline_dream/topics.py, docs/spec.md §5.2.8) — never a reaction, a
greeting, a name addressed, or what the listener did. Each chat below is a sentence shape
the LoCoMo runs named notes by (`tim-s-good`, `maria-s-hope`, `caroline-s-mel`,
`jon-s-risks`, `jon-s-back`); the rules are the parse's, not these phrases'."""

from __future__ import annotations

import re

import pytest

from tests.brains.test_dream_conversations import plans_of

PARTNER = {"Tim": "John", "Gina": "Jon", "Maria": "John", "Joanna": "Nate", "John": "Maria",
           "Jon": "Gina", "Caroline": "Melanie"}


def topics_of(speaker: str, text: str) -> list[str]:
    """The topics of the notes `speaker`'s turn gives, in a chat with their partner."""
    other = PARTNER[speaker]
    chat = (f"**{other}:** Hi there, how are you?\n**{speaker}:** {text}\n"
            f"**{other}:** Cool.\n**{speaker}:** Yes.\n")
    plans, _ = plans_of(chat)
    return [p.topic for p in plans if p.person == speaker]


@pytest.mark.parametrize(("speaker", "text", "wrong"), [
    # a reaction read as a noun: the small pipeline tags "good" and "nice" NN
    ("Tim", "Doing good! Busy with studies but finding time to relax.", "good"),
    ("Gina", "yep! were both on different paths, but its nice to have someone to root for us.",
     "nice"),
    # a verb read as a noun after a dash: "hope you are too"
    ("Maria", "Hey John, I'm doing ok - hope you are too.", "hope"),
    # thanks, and the listener addressed by name, in lower case as texted
    ("Joanna", "woohoo, thanks nate! Every day on set is awesome.", "thanks nate"),
    ("Joanna", "woohoo, thanks nate! Every day on set is awesome.", "nate"),
    # a name addressed by its short form: Melanie is "mel"
    ("Caroline", "im always here for you, mel!", "mel"),
    # a name addressed that is no label of the chat (the assistant form's "AI" was Caroline)
    ("Tim", "Hey Caroline, since we last chatted, I've had a lot of things happening to me.",
     "Caroline"),
    ("Tim", "I appreciate our friendship too, Caroline.", "Caroline"),
    # "you'd" texted with a curly apostrophe is the listener
    ("John", "awesome, maria! i knew u’d be on board", "u’d"),
    # what the listener (or someone else) does for the speaker is theirs to say
    ("Jon", "Thanks! Appreciate you having my back!", "back"),
    ("Jon", "Thanks for always having my back.", "back"),
    ("John", "Even when times are hard, they always have my back.", "back"),
    ("John", "I'm glad we have each other's backs and can work towards a shared goal.",
     "'s backs"),
    # a hyphen the tagger reads as a noun: was a note named "Melanie's -" (melanie-s.md)
    ("Jon", "I've been running farther to de-stress, which has been great for my headspace.",
     "-"),
    # the listener's doing, said to them (the texting run's caroline-s-art,
    # melanie-s-awareness, caroline-s-many-happy-years)
    ("Tim", "wow, mel, im so stoked for u that art is helping you express yourself!", "art"),
    ("Tim", "i’m so proud of u for spreading awareness in the community haha", "awareness"),
    ("Tim", "wishing you many happy years together!", "many happy years"),
    # what the listener is willing to do is the listener's
    ("Jon", "I'm impressed by your willingness to take risks - it's really inspiring.", "risks"),
])
def test_a_reaction_a_name_addressed_or_the_listeners_doing_names_no_note(speaker, text, wrong):
    assert wrong not in topics_of(speaker, text)


@pytest.mark.parametrize(("speaker", "text", "topic"), [
    ("Jon", "I'm back! Started a dance class at the studio.", "dance class"),
    ("Tim", "My back hurts after the marathon.", "back"),  # the speaker's own back is theirs
    ("John", "I'm glad we have each other's backs and can work towards a shared goal.",
     "shared goal"),
    ("Maria", "I adopted a puppy named Shadow last week.", "puppy"),
    ("Caroline", "Mel, I joined a pottery class yesterday!", "pottery class"),
    ("Tim", "I visited Caroline in Paris, it was lovely.", "Caroline"),  # named, not addressed
    # said of the speaker's thing, not done to it by someone else
    ("Maria", "They were an important part of my wedding decor.", "wedding decor"),
    ("Maria", "This has been great for my mental health.", "health"),
    # a word joined by a hyphen stays with it (was "down poses": "upside" dropped as an
    # adjective before the noun)
    ("Maria", "It's tough to pick just one, but I really enjoy the upside-down poses.",
     "upside-down poses"),
])
def test_what_the_speaker_states_still_names_a_note(speaker, text, topic):
    assert topic in topics_of(speaker, text)


def test_a_word_cut_short_is_the_same_topic():
    from reme_workbench.brains.offline_dream.conversation import same_topic, topic_of

    assert same_topic(topic_of("dance comp"), topic_of("dance competition"))
    assert same_topic(topic_of("dance comps"), topic_of("dance competition"))
    assert not same_topic(topic_of("dance comp"), topic_of("dance company studio"))
    assert not same_topic(topic_of("art"), topic_of("artist residency"))  # a word of its own


# Sentence shapes that named notes in the LoCoMo runs of all forms (`melanie-s-yours`,
# `john-s-info`, `tim-s-hope`, `tim-s-no`, `joanna-s-sounds`, `nate-s-thanks`,
# `melanie-s-touch`, `melanie-s-eye`, `caroline-s-blast`, `melanie-s-chat`,
# `caroline-s-nicole`): each is refused by a rule on the parse, not by its phrase.
@pytest.mark.parametrize(("speaker", "text", "wrong"), [
    # a possessive pronoun or an interjection the tagger read as a noun
    ("Caroline", "I'd love to see another painting of yours!", "yours"),
    ("Tim", "I got a no for a summer job I wanted which wasn't great", "no"),
    # a bare noun joined to a verb: an exclamation, not a thing ("but thanks for …")
    ("Joanna", "Already doing that, but thanks for the advice!", "thanks"),
    # a bare mass noun with only "more": no particular thing
    ("John", "I'll make a list of the ones that suit what I believe in and reach out for "
             "more info.", "info"),
    # a bare noun held by a verb with an object predicate: "keep hope alive"
    ("Tim", "That's how I keep hope alive during tough times.", "hope"),
    # a bare noun between two prepositions: "in touch with"
    ("Caroline", "Art's awesome for showing us who we really are and getting in touch with "
                 "ourselves.", "touch"),
    # what a clause says of a thing left unnamed ("something to catch the eye")
    ("Caroline", "I'm obsessed with those, so I made something to catch the eye and make "
                 "people smile.", "eye"),
    # the object of a subordinating "since" is a time, not a topic
    ("Caroline", "Been running longer since our last chat - a great way to destress.", "chat"),
    # a texted "its" hanging from the verb is its subject ("its so calming"): the
    # sentence is not the speaker's with the subject left out
    ("Joanna", "walking in it, feeling it, hearing the sounds - its so calming", "sounds"),
    # a noun inside a quoted title is the title's, whole
    ("Caroline", 'i loved "becoming nicole" by amy ellis nutt', "nicole"),
])
def test_a_pronoun_an_interjection_or_an_idiom_names_no_note(speaker, text, wrong):
    assert wrong not in topics_of(speaker, text)


def test_a_light_verb_with_a_bare_indefinite_noun_names_after_what_it_is_about():
    """"we had a blast at the pride fest": the fest, not the blast; "I have a dog" keeps
    the dog (a light verb's object is kept when nothing else is named)."""
    assert topics_of("Caroline", "We had a blast last year at the Pride fest.")[0] != "blast"
    assert topics_of("Caroline", "We went camping with the kids a few weeks ago, had a blast "
                                 "exploring the forest and hiking.")[0] != "blast"
    assert topics_of("Maria", "I have a dog.") == ["dog"]
    assert topics_of("Maria", "I have a dog at home.")[0] == "dog"
    # another light verb's object stays first: "make a family for kids" is about the family
    assert topics_of("Caroline", "I'm thrilled to make a family for kids who need one.")[0] == "family"


def test_a_quoted_title_is_one_topic():
    assert "becoming nicole" in topics_of("Caroline", 'i loved "becoming nicole" by amy ellis nutt')


def test_a_sentence_after_a_chat_signal_is_quoted_without_a_stray_comma():
    plans, _ = plans_of("**Caroline:** How are you?\n**Melanie:** Thanks for the tip, Caroline. "
                        "I'll do that. BTW, recently I had a setback. Last month I got hurt "
                        "and had to take a break from pottery.\n**Caroline:** Oh no.\n")
    quoted = [q for p in plans for q in re.findall(r'"([^"]*)"', " ".join([p.description, *p.said]))]
    assert any(q.startswith("recently I had a setback") for q in quoted)
    assert not any(q.startswith((",", ";", ":")) for q in quoted)
