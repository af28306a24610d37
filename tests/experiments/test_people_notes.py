"""The measures of notes about people (issue #30): names with no topic, descriptions in
first person, broken contractions / agreement errors, notes mixing two topics."""

from __future__ import annotations

import pytest

from reme_lab.people_notes import (
    broken_agreement,
    dated_bullets,
    first_person_description,
    measure_notes,
    mixed_topics,
    no_topic_name,
    person_and_topic,
)


def test_the_person_and_the_topic_of_a_name():
    assert person_and_topic("caroline-s-pottery-class") == ("caroline", "pottery class")
    assert person_and_topic("Melanie's pottery class") == ("Melanie", "pottery class")
    assert person_and_topic("Melanie’s pottery class") == ("Melanie", "pottery class")
    assert person_and_topic("刘洋的婚礼") == ("刘洋", "婚礼")
    assert person_and_topic("link-to-a-heading") == ("", "link to a heading")


@pytest.mark.parametrize(("name", "why"), [
    ("caroline-s-asking", "a verb"),  # "Caroline's asking" reads as "Caroline is asking"
    ("melanie-s-seven", "a number alone"),
    ("caroline-s-2023", "a number alone"),
    ("caroline-s-re", "a contraction remnant"),  # what is left of "they're"
    ("jon-s-so-fun", "an adjective alone"),
    ("jon-s-really-cool", "an adjective alone"),
    ("melanie-s-youngest", "an adjective alone"),
    ("melanie-s-really", "an adverb"),
    ("kate-s-wow", "an interjection"),
    ("caroline-s-them", "a pronoun"),
    ("张三的哈哈", "an interjection"),
    ("刘洋的很快", "an adverb"),
])
def test_names_with_no_topic(name, why):
    assert no_topic_name(name).startswith(why)


@pytest.mark.parametrize("name", [
    "caroline-s-adoption-agency-interviews", "Melanie's pottery class", "jon-s-dance-studio",
    "caroline-s-not-so-great-experience", "caroline-s-hiking",  # a gerund naming a pastime
    "gina-s-new-york-city", "gina-s-routine", "gina-s-quote", "john-s-key", "刘洋的婚礼", "小雨的考研", "团子", "vegetarian",
])
def test_names_with_a_topic(name):
    assert no_topic_name(name) is None


def test_a_noun_the_body_never_uses_as_a_thing_has_no_topic():
    """spaCy reads "wow" alone as a noun in "Melanie's wow"; the note's own bullets show
    what the word is."""
    body = ("- **2023-05-08**: Wow, Melanie loved the show. (derived_from:: [[daily/x.md]])\n"
            "- **2023-05-09**: Oh wow, so good. (derived_from:: [[daily/y.md]])\n")
    assert no_topic_name("melanie-s-wow", body) is not None
    assert no_topic_name("melanie-s-show", body) is None


def test_a_name_is_read_as_the_note_writes_it():
    """A slug loses capitals and hyphens; the note's body still has them."""
    body = ("- **2023-05-08**: John got new shoes from Nike for the season.\n"
            "- **2023-05-09**: John keeps a to-do list on the fridge.\n"
            "- **2023-05-10**: John's favorite character is Aragorn.\n")
    assert no_topic_name("john-s-nike", body) is None
    assert no_topic_name("john-s-to-do-list", body) is None
    assert no_topic_name("john-s-aragorn", body) is None


@pytest.mark.parametrize(("description", "word"), [
    ("I started a pottery class", "I"),
    ("im so excited about it", "i"),  # "im" holds an "i"
    ("I’m off to the beach", "I"),
    ("My daughter's recital is on Friday", "My"),
    ("我养了一只猫叫团子", "我"),
    ("我们下周去杭州", "我们"),
])
def test_descriptions_in_first_person(description, word):
    assert first_person_description(description) == word


@pytest.mark.parametrize("description", [
    "Caroline’s mom said “I am proud of you”.",  # a quotation is the speaker's own voice
    'Kate: "my bad" was all she said',
    "她说「我很好」",
    "Melanie carves out some me-time each day",  # a compound, not a pronoun
    "Jon's dance studio opens in June.",
    "自我介绍写好了",  # 自我 is no first person
])
def test_descriptions_that_speak_of_the_person(description):
    assert first_person_description(description) is None


@pytest.mark.parametrize(("text", "found"), [
    ("Caroline’m so excited", ["Caroline’m"]),
    ("caroline’ve been busy", ["caroline’ve"]),
    ("Jon've got a plan", ["Jon've"]),
    ("Melanie are going camping", ["Melanie are"]),
    ("Jon don't like it", ["Jon do"]),
    ("Whenever Caroline hear this song, she smiles.", ["Caroline hear"]),
])
def test_broken_contractions_and_agreement(text, found):
    assert broken_agreement(text, ["Jon", "Melanie", "Caroline"]) == found


def test_a_bullet_opens_its_sentence_after_its_date():
    body = ("- **2023-05-11**: Lemme know when Gina got time. (derived_from:: [[daily/a.md]])\n"
            "- **2023-05-12**: Whenever Caroline hear it, she smiles.\n")
    assert broken_agreement(body, ["Gina", "Caroline"]) == ["Caroline hear"]


def test_a_person_the_parser_reads_as_a_common_noun_is_known_by_the_note():
    text = "Caroline haven't done pottery yet"
    assert broken_agreement(text, ["caroline"]) == ["Caroline have"]


@pytest.mark.parametrize("text", [
    "Caroline and Melanie are friends",  # two subjects
    "Caroline's kids are great",  # the kids are the subject
    "Seeing this made Caroline appreciate reading",  # a bare infinitive
    "Kate said: \"I'm in\"",  # a quotation
    "I'm happy",
    "Melanie is going camping",
    "Gina’s studio opened",
    "Stuff like this mural are special",  # no name (an error, but not the one measured)
    "Caroline’ll do that",  # will + a base form
    "Lemme know if u need anything",  # texting, not a name
    "Wanna start a band?",
    "u’ve got this",
])
def test_sentences_that_agree(text):
    assert broken_agreement(text, ["Caroline", "Melanie"]) == []


POTTERY = """- **2023-01-01**: Ada started a pottery class. (derived_from:: [[daily/2023-01-01/a.md]])
- **2023-01-08**: Ada's first bowl cracked in the kiln. (derived_from:: [[daily/2023-01-08/a.md]])
- **2023-01-15**: The bowl came out of the second firing blue. (derived_from:: [[daily/2023-01-15/a.md]])
"""


def test_dated_bullets_without_their_provenance():
    assert dated_bullets(POTTERY)[0] == ("2023-01-01", "Ada started a pottery class.")
    assert len(dated_bullets(POTTERY + "plain text\n- an undated bullet\n")) == 3


def test_a_note_that_keeps_to_its_topic_does_not_mix():
    body = POTTERY.replace("first bowl", "first pottery bowl")
    assert mixed_topics("ada-s-pottery-class", body) is None


def test_the_definition_sees_words_not_meaning():
    """A bullet about the kiln shares no word with "pottery class" nor with a bullet on
    topic: the definition counts it as another topic (docs/benchmarks.md says so)."""
    assert mixed_topics("ada-s-pottery-class", POTTERY).startswith("2023-01-08")


def test_a_bullet_that_continues_the_topic_does_not_mix():
    """Bullet 3 says nothing of pottery or a class, but its bowl is bullet 2's."""
    body = POTTERY.replace("first bowl", "first class bowl")
    assert mixed_topics("ada-s-pottery-class", body) is None


def test_a_bullet_about_something_else_mixes_two_topics():
    body = POTTERY + ("- **2023-02-01**: Ada adopted a greyhound called Pip. "
                      "(derived_from:: [[daily/2023-02-01/a.md]])\n")
    assert mixed_topics("ada-s-pottery-class", body.replace("first bowl", "first class bowl")) \
        .startswith("2023-02-01: Ada adopted a greyhound")


def test_notes_mixing_is_not_judged_without_two_bullets_or_in_chinese():
    one = "- **2023-02-01**: Ada adopted a greyhound. (derived_from:: [[daily/a.md]])\n"
    assert mixed_topics("ada-s-pottery-class", one) is None
    zh = ("- **2023-02-01**: 刘洋在学做饭。 (derived_from:: [[daily/a.md]])\n"
          "- **2023-02-02**: 刘洋下个月结婚。 (derived_from:: [[daily/b.md]])\n")
    assert mixed_topics("刘洋的做饭", zh) is None


def test_measure_notes_counts_each_note_once_per_measure():
    notes = [
        ("caroline-s-asking", "I asked Melanie about it", "- **2023-01-01**: x\n"),
        ("caroline-s-pottery-class", "Caroline’m in a pottery class",
         "- **2023-01-01**: Caroline are in a pottery class. Caroline are happy.\n"),
        ("ada-s-pottery-class", "Ada's pottery class.",
         POTTERY.replace("first bowl", "first class bowl")
         + "- **2023-02-01**: Ada adopted a greyhound called Pip.\n"),
    ]
    voice = measure_notes(notes)
    assert voice.notes == 3
    assert [n for n, _ in voice.no_topic] == ["caroline-s-asking"]
    assert [n for n, _ in voice.first_person] == ["caroline-s-asking"]
    assert voice.agreement == [("caroline-s-pottery-class", "Caroline’m; Caroline are; Caroline are")]
    assert [n for n, _ in voice.mixing] == ["ada-s-pottery-class"]
    assert voice.rate("mixing") == pytest.approx(1 / 3)
    assert voice.targets() == {"no_topic": False, "first_person": False, "mixing": False,
                               "agreement": False}
    assert measure_notes([]).targets() == {"no_topic": True, "first_person": True,
                                           "mixing": True, "agreement": True}
