"""A user tells their assistant of the people, animals and plans in their life in forms the
reading of "I + verb" and "the/a name + news" missed (docs/spec.md §5.2.9, issue #30 item 6):

* a name opening the line with "'s" for "is"/"has" ("Oskar's a carpenter", "Nadia's in
  plaster"), which spaCy's small model parses as a possessive, and a name opening the line
  that a "he"/"she" later in the sentence stands for — a person, not a capital;
* "he"/"she"/"it" doing something, after the line before named a being of the user's
  ("pip is ok now" — "he sleeps on the radiator all day");
* a plan texted with no subject ("will try the climbing wall …", "might …"), and the
  weekday texted after it in lowercase ("fridays mostly"), which the pipeline finds no date in;
* a texted line with no subject and no thing of its own ("postponed again") told in a
  burst about one thing: it goes with what the burst is about;
* two clauses of one sentence about two named things ("Theo sprained his ankle, so the
  Snowdon walk is postponed"): two facts, two notes.

Each chat is dreamt as a user would, through the CLI; what is checked is the digest notes:
the note that holds one fact's words does not hold another's.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes


def _holding(found: dict[str, str], *words: str) -> list[str]:
    """The notes whose text holds every one of `words` (case-insensitive)."""
    return [n for n, text in found.items() if all(w.lower() in text.lower() for w in words)]


def test_a_name_opening_a_line_with_s_for_is_is_a_fact_of_its_own(dream_chat_cli):
    root = dream_chat_cli("present", (
        "User: Can you suggest a present for my brother-in-law?\n"
        "Assistant: Happily. What does he enjoy?\n"
        "User: Oskar's a carpenter, and he collects old hand planes.\n"
        "Assistant: Then a restored vintage plane would suit him.\n"
        "User: Good idea. Also Nadia's in plaster this week, she broke her wrist at gymnastics.\n"))
    found = digest_notes(root)
    carpenter = _holding(found, "carpenter")
    wrist = _holding(found, "Nadia", "wrist")
    assert carpenter and wrist, sorted(found)
    assert not set(carpenter) & set(wrist), sorted(found)


def test_a_name_a_pronoun_stands_for_later_in_the_line_is_a_person(dream_chat_cli):
    """"Grandad's operation moved, he's now going in on the 3rd": the line opens on a
    capital, which alone may be no name ("Dance has the power"); the "he" after it says
    it is someone."""
    root = dream_chat_cli("visit", (
        "Human: I want to plan a quiet weekend.\n"
        "AI: Sounds good. Is anything making it hard to get away?\n"
        "Human: Grandad's operation moved, he's now going in on the 3rd.\n"
        "Human: I do pottery on Thursday evenings, so that has to stay.\n"))
    found = digest_notes(root)
    operation = [n for n in _holding(found, "operation", "3rd") if "operation" in n or "grandad" in n]
    assert operation, sorted(found)  # its own note, not a line joined to "a quiet weekend"
    assert "pottery" not in found[operation[0]]


def test_he_after_a_line_naming_a_being_tells_of_that_being(dream_chat_cli):
    root = dream_chat_cli("vet", (
        "jo: hey can u help me with a vet question\n"
        "AI: Of course! What's going on?\n"
        "jo: i work nights at a bakery so i'm home in the day\n"
        "jo: pip is ok now\n"
        "jo: he sleeps on the radiator every afternoon\n"
        "AI: That sounds like a cat who is feeling better.\n"))
    found = digest_notes(root)
    pip = _holding(found, "pip", "radiator")
    bakery = _holding(found, "bakery")
    assert pip and bakery, sorted(found)
    assert not set(pip) & set(bakery), sorted(found)


def test_a_texted_plan_with_no_subject_is_the_users(dream_chat_cli):
    root = dream_chat_cli("swim", (
        "User: what should i eat before a long swim\n"
        "Assistant: Something light with slow carbs, an hour or two before: porridge or a banana.\n"
        "User: ok\n"
        "User: will try the climbing wall at the leisure centre too\n"
        "User: fridays mostly\n"
        "User: i teach maths at a primary school\n"))
    found = digest_notes(root)
    wall = [n for n in _holding(found, "climbing wall") if "climbing" in n or "wall" in n]
    assert wall, sorted(found)  # its own note, not a line joined to another
    assert "maths" not in found[wall[0]]
    assert "fridays mostly" in found[wall[0]]  # a weekday texted in lowercase: when


def test_a_guess_with_no_subject_is_still_no_fact(dream_chat_cli):
    """"Might be fun", "will do": a judgement or a promise to the assistant, no plan."""
    root = dream_chat_cli("ideas", (
        "User: hello\n"
        "Assistant: Hello! A museum, a long lunch, or a board game café, for a rainy day?\n"
        "User: might be fun\n"
        "User: will do\n"))
    assert digest_notes(root) == {}


def test_a_topicless_texted_line_goes_with_what_its_burst_is_about(dream_chat_cli):
    root = dream_chat_cli("interview", (
        "kit: ugh postponed again\n"
        "kit: can u help me prep answers for my nursing interview\n"
        "AI: Of course. Start with why nursing, and a time you handled a hard shift.\n"
        "kit: thx\n"))
    found = digest_notes(root)
    assert _holding(found, "postponed", "nursing interview"), found


def test_two_clauses_about_two_named_things_are_two_facts(dream_chat_cli):
    root = dream_chat_cli("plans", (
        "**user**\n"
        "Theo sprained his ankle at football, so the Snowdon walk is postponed until May.\n"
        "\n"
        "**assistant**\n"
        "Sorry to hear it. Ankles usually take a few weeks; May gives him time.\n"))
    found = digest_notes(root)
    snowdon = [n for n in found if "snowdon" in n]
    other = [n for n in found if "snowdon" not in n and "ankle" in found[n]]
    assert snowdon and other, sorted(found)


def test_one_clause_about_one_named_thing_stays_one_fact(dream_chat_cli):
    """The walk told of twice in one sentence is one fact, one note."""
    root = dream_chat_cli("walk", (
        "**user**\n"
        "The Snowdon walk is postponed until May, so the walk needs new dates.\n"
        "\n"
        "**assistant**\n"
        "May is a good month for it.\n"))
    assert len([n for n in digest_notes(root) if "walk" in n]) == 1, sorted(digest_notes(root))


def test_a_named_being_getting_better_is_news_not_a_judgement(dream_chat_cli):
    """"Mum is much better now": a comparative tells of a change, where "the risotto is
    lovely" judges; the clause after the comma with its own subject ("the hospital sent
    her home") is no predicate of the first, and no named thing of its own."""
    root = dream_chat_cli("week", (
        "User: can you help me plan my week\n"
        "Assistant: Sure! What's on?\n"
        "User: Mum is much better now, the hospital sent her home on Tuesday.\n"
        "User: I also run a book club on Thursdays.\n"))
    found = digest_notes(root)
    mum = [n for n in _holding(found, "hospital sent her home") if "mum" in n]
    assert mum, sorted(found)
    assert "book club" not in found[mum[0]]
    assert not [n for n in found if "hospital" in n], sorted(found)


def test_she_after_a_line_that_got_a_being_tells_of_it(dream_chat_cli):
    root = dream_chat_cli("puppy", (
        "User: We got a puppy last week. She chews everything.\n"
        "Assistant: Puppies do! Chew toys and a frozen carrot help with teething.\n"))
    found = digest_notes(root)
    assert [n for n in _holding(found, "chews everything") if "puppy" in n], sorted(found)


def test_a_texted_thing_with_no_article_and_news_is_the_users(dream_chat_cli):
    """Texting drops the article: "flight home got cancelled", "swimming lessons moved to
    thursdays" tell of the user's flight and lessons as "the flight …" would; a bare noun
    in the present ("battery is probably flat as well") tells no news."""
    root = dream_chat_cli("texted", (
        "Human: quick q about train tickets\n"
        "AI: Sure, where to?\n"
        "Human: flight home got cancelled so im stuck here til monday\n"
        "Human: swimming lessons moved to thursdays btw\n"
        "Human: battery is probably flat as well\n"))
    found = digest_notes(root)
    flight = [n for n in _holding(found, "got cancelled") if "flight" in n]
    lessons = [n for n in _holding(found, "moved to thursdays") if "lesson" in n]
    assert flight and lessons, sorted(found)
    assert not [n for n in found if "thursday" in n], sorted(found)  # a weekday names nothing
    assert not [n for n in found if "battery" in n], sorted(found)


def test_she_after_a_line_about_her_is_still_her_not_what_she_did(dream_chat_cli):
    """"she hit every high note" — "she smiled at the end": the second "she" is the first,
    not the note; only a being the user got ("We got a puppy") is what a "she" after it is."""
    root = dream_chat_cli("concert", (
        "User: the school concert was last night\n"
        "Assistant: How did it go?\n"
        "User: she hit every high note. she smiled all the way through.\n"))
    assert not [n for n in digest_notes(root) if "note" in n], sorted(digest_notes(root))


def test_a_later_day_on_the_same_thing_of_a_role_labelled_user_corroborates(tmp_path):
    """A `User:` chat names its notes "the user's …" (slug `user-s-…`): a later day on the
    same thing ("the allotment") adds a dated bullet to that note, as it does for a named
    user, instead of writing a twin `user-s-allotment-2`."""
    from click.testing import CliRunner

    from reme_workbench.cli import cli

    runner = CliRunner()
    root = tmp_path / "v"
    assert runner.invoke(cli, ["init", str(root), "--json"]).exit_code == 0
    for day, text in (
            ("2026-05-04", "User: I took on an allotment in Headingley last month.\n"
                           "Assistant: Lovely! What are you growing?\n"),
            ("2026-05-18", "User: The allotment flooded on Saturday, the beans are gone.\n"
                           "Assistant: Sorry to hear it. Raised beds drain faster.\n")):
        (root / f"daily/{day}").mkdir(parents=True, exist_ok=True)
        (root / f"daily/{day}/garden.md").write_text(text, encoding="utf-8")
    result = runner.invoke(cli, ["--vault", str(root), "dream", "--embedder", "hashing",
                                 "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    found = digest_notes(root)
    allotment = [n for n in found if "allotment" in n]
    assert len(allotment) == 1, sorted(found)
    assert "Headingley" in found[allotment[0]] and "flooded" in found[allotment[0]]


def test_it_doing_something_to_the_user_is_their_reaction_not_news_of_a_thing(dream_chat_cli):
    """"My new bike arrived." — "It honestly inspired me": an "it" that does something to
    the speaker is how they took it, no news of the bike."""
    root = dream_chat_cli("bike", (
        "User: hi\n"
        "Assistant: Hello! What's new?\n"
        "User: I bought a gravel bike in Leeds on Saturday. It honestly inspired me.\n"))
    found = digest_notes(root)
    bike = [n for n in found if "bike" in n]
    assert bike, sorted(found)
    assert "inspired me" not in found[bike[0]], found[bike[0]]
