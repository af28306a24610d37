"""Facts a user tells their assistant in a form the reading of "I + verb + object" missed
(docs/spec.md §5.2.9, issue #30 item 6):

* a habit or ability they deny, with no object — "I don't drive", "I can't swim" — is a
  fact about them, and its note keeps the negation in its name;
* a being of theirs named inside a question ("Is it ok for my tortoise to eat strawberries?"),
  then told of ("He's called Shelby, he's nine"), is theirs: the question is about it;
* a name before a light head ("my Berlin Marathon place") is what the phrase is about,
  not the light word "place".

Each chat is dreamt as a user would, through the CLI; what is checked is the digest notes.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes as notes


def test_a_habit_the_user_denies_is_a_note_that_keeps_the_negation(dream_chat_cli):
    root = dream_chat_cli("lift", (
        "Marek: The allotment is out past the ring road, and I don't cycle, so the bags are the problem\n"
        "AI: A folding trolley can take two full bags on the bus.\n"
        "Marek: good shout\n"))
    found = notes(root)
    named = [n for n in found if "cycl" in n]
    assert named, sorted(found)
    assert any("not" in n for n in named), named  # "Marek's not cycling", never "Marek's cycling"
    assert "don't cycle" in found[named[0]]


def test_a_being_of_the_users_named_in_a_question_and_told_of_is_theirs(dream_chat_cli):
    root = dream_chat_cli("tortoise", (
        "User: Is it ok for my tortoise to eat strawberries? He's called Shelby and he's nine.\n"
        "Assistant: A little fruit now and then is fine; most of his food should be weeds and greens.\n"
        "User: Noted\n"))
    found = notes(root)
    named = [n for n in found if "tortoise" in n]
    assert named, sorted(found)
    assert "Shelby" in found[named[0]]


def test_a_question_naming_only_a_thing_of_the_users_makes_no_note(dream_chat_cli):
    """A question about a thing of theirs that the user does not go on to tell of is a
    request, not a fact ("Can you look over my cover letter?")."""
    root = dream_chat_cli("letter", (
        "User: Can you look over my cover letter?\n"
        "Assistant: Of course, paste it here.\n"))
    assert notes(root) == {}


def test_a_name_before_a_light_head_is_the_topic(dream_chat_cli):
    root = dream_chat_cli("marathon", (
        "Ines: I've moved my Berlin Marathon place to next spring\n"
        "AI: Sensible, with the injury. Do you want a plan for the winter?\n"
        "Ines: not yet, thanks\n"))
    found = notes(root)
    assert any("berlin-marathon" in n for n in found), sorted(found)


def test_a_command_opening_a_note_to_self_is_no_topic(dream_chat_cli):
    """A line of the user's notes to themselves opening on a command the tagger reads as a
    name ("Book the dentist for the kids …": "Book" read as a proper noun): the note is named by what the command is
    about, never by the verb."""
    root = dream_chat_cli("todo", (
        "Priya: Book the dentist for the kids before term starts.\n"
        "Priya: Swimming lesson for Ava moved to Friday.\n"))
    found = notes(root)
    assert found, found
    assert not any(n.startswith("priya-s-book") for n in found), sorted(found)
    assert any("dentist" in n for n in found), sorted(found)


def test_a_denial_said_again_in_a_later_session_corroborates_its_note(tmp_path):
    """The note named by what is said of the person ("Marek does not cycle") is found again
    by a later session saying the same: one note, a dated bullet per session."""
    from click.testing import CliRunner

    from reme_workbench.cli import cli

    runner = CliRunner()
    root = tmp_path / "v"
    assert runner.invoke(cli, ["init", str(root), "--json"]).exit_code == 0
    for day, said in (("2026-05-04", "The allotment is past the ring road and I don't cycle"),
                      ("2026-05-11", "The pool is across town and I don't cycle, sadly")):
        (root / f"daily/{day}").mkdir(parents=True, exist_ok=True)
        (root / f"daily/{day}/chat.md").write_text(
            f"Marek: {said}\nAI: A bus pass may be worth it.\nMarek: good shout\n", encoding="utf-8")
        result = runner.invoke(cli, ["--vault", str(root), "dream", "--embedder", "hashing",
                                     "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    found = {k: v for k, v in notes(root).items() if "cycle" in k}
    assert len(found) == 1, sorted(notes(root))
    body = next(iter(found.values()))
    assert "2026-05-04" in body and "2026-05-11" in body, body
