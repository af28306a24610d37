"""What an English note about a person is described by (docs/spec.md §5.3.6, issue #30
item 7): a sentence of theirs that says what the note is about — one naming its topic, or
else one naming any thing — never a reaction ("It's gorgeous!") that says nothing away
from the question it answered.

The chats are written for these tests; each was described wrongly before the rule."""

from __future__ import annotations

from reme_workbench.brains.offline_dream.naming import describing
from tests.brains.test_dream_conversations import plans_of


def test_a_reaction_never_describes_a_note():
    """The user's "It's gorgeous!" answers the assistant's question about their plan; the
    sentence after it names a thing and describes the note (was "It's gorgeous!")."""
    plans, _ = plans_of(
        "**Hana:** I finally got my allotment plot this spring.\n"
        "**AI:** Congratulations! What's your plan for the allotment?\n"
        "**Hana:** It's gorgeous! It really brings home how much peace a garden gives you.\n")
    descriptions = [p.description for p in plans]
    assert not any("gorgeous" in d for d in descriptions), descriptions
    assert any("peace a garden gives" in d for d in descriptions), descriptions


def test_the_sentence_naming_the_topic_describes_it_first():
    found = describing(["Wow, so cool!", "Honestly it was a long day.",
                        "The climbing wall at the leisure centre reopened."], ("climbing", "wall"))
    assert found == 2
    # a plural names its lemma's topic; with no sentence naming it, the first naming a thing
    assert describing(["That's wild!", "I love all the red leaves here."], ("leaf",)) == 1
    assert describing(["Amazing!", "Love it so much.", "The kids went to the zoo."],
                      ("giraffe",)) == 2
    assert describing(["Amazing!", "Love it!"], ("giraffe",)) == 0


def test_the_sentence_naming_most_of_the_topic_describes_it():
    """A note on the user's "choir group" gathers "Two months into choir and …" and "I've
    joined a choir group": the one that names the whole topic describes it."""
    said = ["Two months into choir and I can hold the alto line.",
            "I've joined a choir group that meets in a church hall."]
    assert describing(said, ("choir", "group")) == 1
