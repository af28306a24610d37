"""Dream keeps what people say about themselves, once per person and topic, and says what
it set aside (docs/spec.md §4.1.7, §4.2.5, §5.2.7–5.2.10, §5.5.4), as a user runs it."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.experiments.dream_quality import reaction_name


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


FIRST = """# Ada and Ben

**Ada:** Hi Ben! How are you?
**Ben:** Good! You?
**Ada:** I joined a ceramics class at the Hackney community centre yesterday. We made our first bowls.
**Ben:** Wow, that sounds like so much fun!
**Ada:** It was! The teacher says we'll glaze them next week.
**Ben:** My big news: I'm adopting a retired greyhound called Comet from the rescue in Kent.
**Ada:** Aww, that's amazing! Love that name.
**Ben:** Thanks! Talk soon.
"""
SECOND = """# Ada and Ben

**Ben:** How's the pottery going?
**Ada:** I glazed my ceramics class bowls on Tuesday and one cracked in the kiln.
**Ben:** Oh no, sorry!
**Ben:** Comet sleeps all day on the sofa and steals socks.
**Ada:** Haha, cute!
"""
SMALL_TALK = """# Ada and Ben

**Ada:** Morning!
**Ben:** Morning! Cold today, huh?
**Ada:** So cold. Have a good one!
**Ben:** You too!
"""


def vault_with(tmp_path, files: dict[str, str]):
    root = tmp_path / "v"
    assert run("init", str(root), "--json").exit_code == 0
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def dream(root, *args):
    result = run("--vault", str(root), "dream", "--embedder", "hashing", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def notes(root) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text("utf-8")
            for p in sorted((root / "digest").rglob("*.md"))}


def test_a_conversation_keeps_what_people_said_once_per_person_and_topic(tmp_path):
    s1, s2, s3 = ("daily/2026-03-02/ada-and-ben-1.md", "daily/2026-03-09/ada-and-ben-2.md",
                  "daily/2026-03-16/ada-and-ben-3.md")
    root = vault_with(tmp_path, {s1: FIRST, s2: SECOND, s3: SMALL_TALK})
    report = dream(root)
    written = notes(root)
    names = [p.rsplit("/", 1)[1] for p in written]
    assert all(p.startswith("digest/wiki/") for p in written)  # other people: wiki (§5.2.9)
    assert not [n for n in names if reaction_name(n)], names  # no "sounds-like", "love-that-name"
    assert all(n.startswith(("ada-s-", "ben-s-")) for n in names), names
    ceramics = next(t for p, t in written.items() if p.startswith("digest/wiki/ada-s-ceramics"))
    # attributed to Ada, dated from the session, one dated bullet per session with provenance
    assert "Ada joined a ceramics class" in ceramics and "yesterday (2026-03-01)" in ceramics
    assert "- **2026-03-02**: " in ceramics and f"(derived_from:: [[{s1}]])" in ceramics
    assert "- **2026-03-09**: " in ceramics and f"(derived_from:: [[{s2}]])" in ceramics
    assert " I " not in ceramics and "cracked in the kiln" in ceramics
    comet = [t for t in written.values() if "Comet" in t and "greyhound" in t]
    assert len(comet) == 1 and f"[[{s2}]]" in comet[0]  # the dog: one note, corroborated
    corroborated = [o for o in report["outcomes"] if o["flavor"] == "CORROBORATE"]
    assert {o["material"] for o in corroborated} == {s2}
    # the small-talk session gave nothing, and dream says so: output, --json, audit
    assert not [o for o in report["outcomes"] if o["material"] == s3]
    assert {"material": s3, "part": "the whole session", "reason": "small talk only"} \
        in report["set_aside"]
    assert any(s3 in n and "small talk only" in n for n in report["notices"])
    (audit,) = (root / "audit").rglob("dream.md")
    assert f"[[{s3}]] — the whole session: small talk only" in audit.read_text("utf-8")


def test_an_appended_entry_is_named_by_its_title_and_dreamt_once(tmp_path):
    root = vault_with(tmp_path, {})
    day = "2026-03-02"

    def append(text, title):
        result = run("--vault", str(root), "append", text, "--title", title, "--day", day, "--json")
        assert result.exit_code == 0, result.output

    append("The payments pool is 40 connections; the ledger worker's pool is 10.", "Pool sizes")
    first = dream(root)
    assert [o["action"] for o in first["outcomes"]] == ["CREATE"]
    (path,) = notes(root)
    text = notes(root)[path]
    assert ":" not in path.rsplit("/", 1)[1] and not path.rsplit("/", 1)[1][:2].isdigit()
    assert "## When" not in text or "14:" not in text  # the time is no part of the note
    append("Had lunch with the team, nice weather today.", "Lunch")
    second = dream(root)
    # only the new entry was read: nothing proposed for the entry dreamt before
    assert second["outcomes"] == [] and list(notes(root)) == [path]
    (aside,) = second["set_aside"]
    assert aside["part"].startswith("the entry '## ") and aside["part"].endswith(" Lunch'")
    assert aside["reason"] == "small talk only"
    # a one-line how-to an agent appends is a runbook, named by its purpose, not its time
    append("To rotate the Keybox API token, run `keybox rotate api-token` and restart the "
           "payments-api pods.", "Keybox token")
    third = dream(root)
    assert [(o["action"], o["target_path"]) for o in third["outcomes"]] == [
        ("CREATE", "digest/procedure/rotate-the-keybox-api-token.md")]
    runbook = notes(root)["digest/procedure/rotate-the-keybox-api-token.md"]
    assert "## When\n\nTo rotate the Keybox API token.\n" in runbook
    assert "1. Run `keybox rotate api-token`\n2. Restart the payments-api pods" in runbook
    assert not re.search(r"\b\d{1,2}:\d{2}\b", runbook)


def test_a_note_on_one_topic_is_not_corroborated_by_a_topic_sharing_a_modifier():
    from reme_workbench.brains.offline_dream.conversation import person_topic_match
    from reme_workbench.brains.offline_dream.units import UnitPlan
    from reme_workbench.llm.base import CandidateNote, IntegrateRequest, Material
    from reme_workbench.llm.schema import MemoryUnit

    note = CandidateNote("digest/wiki/caroline-s-lgbtq-support-group.md",
                         "caroline-s-lgbtq-support-group", "Caroline went to a support group.",
                         "- **2023-05-08**: Caroline went to a LGBTQ support group.\n")

    def match(topic: str, *others: str):
        plan = UnitPlan("wiki", f"Caroline's {topic}", 1.0, [])
        plan.person, plan.topic, plan.topics = "Caroline", topic, [topic, *others]
        unit = MemoryUnit(name=plan.name, bucket="wiki", summary="Caroline said so.")
        material = Material("daily/2023-07-12/s7.md", "", "2023-07-12")
        return person_topic_match(IntegrateRequest(material, unit, (note,)), plan)

    assert match("support group") == note and match("LGBTQ support group") == note
    assert match("LGBTQ community") is None and match("pride parade") is None
    assert match("LGBTQ activist group", "group") is None  # another group: its own note


REACTIONS = """# Rosa and Tom

**Rosa:** My son fell off his bike at the skate park on Saturday, but the doctor says he's fine.
**Tom:** Thank goodness your son's okay.
**Rosa:** Standing up for our true selves is the best thing ever.
**Tom:** It took ages, but I wanted to make the place look like my own style for the bakery.
**Tom:** On another note, check out this pic I took a while back!
**Rosa:** I like to just take a look at the stars from the balcony after work.
**Tom:** We gave it our all during last week's scrimmage with the Hornets.
**Rosa:** I go to the right ones now, the ones near the river.
"""


def test_no_unit_is_named_from_a_reaction_a_remark_or_a_placeholder_word():
    """Thanks in the form of a named subject ("Thank goodness …"), a remark on people in
    general ("Standing up for our true selves is …"), and a phrase whose head is a
    placeholder ("the place look like", "a look at", "our all during", "the right ones")
    never name a unit (docs/spec.md §5.2.8); what the people said about themselves stays."""
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import plan_conversation
    from reme_workbench.brains.offline_dream.statements import segment

    blocks, statements = segment(REACTIONS)
    plans, skipped = plan_conversation(blocks, statements, day=date(2024, 3, 4))
    names = [p.name for p in plans]
    assert names and not skipped
    assert not [n for n in names if reaction_name(n)], names
    said = " ".join(s for p in plans for s in p.said)
    assert "Thank goodness" not in said and "true selves" not in said
    assert "Rosa's son fell off his bike" in said and "Saturday (2024-03-02)" in said
    assert "stars from the balcony" in said and "scrimmage with the Hornets" in said
    assert {p.person for p in plans} == {"Rosa", "Tom"}


REMARKS = """# Nadia and Omar

**Nadia:** Books are great for showing us who we really are.
**Omar:** Our friends give us strength to face any challenge.
**Nadia:** I want to make a difference, so I signed up to tutor kids at the library.
**Omar:** Nine years now, and I finally found my real passion: woodworking.
**Nadia:** Gather receipts, bank statements and your passport before the visa interview.
**Omar:** I'm a big fan of jazz, mostly Miles Davis's records.
**Nadia:** It felt like I was part of something huge and awe-inspiring.
**Omar:** The trip reminded me of how music brings us together.
**Nadia:** I joined an activist group at the university last month.
**Omar:** I'm always here for you, Nadia!
**Nadia:** I still go to my support group for new parents every Tuesday.
**Omar:** Painting lets me express myself after a long shift.
"""


def test_a_remark_an_idiom_or_a_number_names_no_unit():
    """What people say of everyone ("… showing us who we really are", "Our friends give us
    strength"), support ("I'm always here for you") and idioms never become a unit; a
    unit is not named from an abstract noun ("a difference"), a number ("Nine years"), a
    command ("Gather receipts"), a fan ("a big fan of jazz": jazz), a hyphenated
    adjective ("awe-inspiring"), a verb after a noun ("music brings") or a possessive
    ("Davis's"); "myself" is "themselves", never the name twice; an activist group and a
    support group are two topics (docs/spec.md §5.2.8)."""
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import plan_conversation, same_topic
    from reme_workbench.brains.offline_dream.statements import segment

    blocks, statements = segment(REMARKS)
    plans, _ = plan_conversation(blocks, statements, day=date(2024, 3, 4))
    names = [p.name for p in plans]
    said = " ".join(s for p in plans for s in p.said)
    for remark in ("showing us", "give us strength", "here for", "Omar's difference"):
        assert remark not in said, (remark, said)
    bad = ("difference", "nine", "gather", "fan", "awe-inspiring", "brings", "davis's",
           "challenge")
    assert not [n for n in names if any(w in n.lower().split("'s ", 1)[-1] for w in bad)], names
    assert "Omar's Miles Davis" in names or "Omar's jazz" in names, names
    assert not [n for n in names if n.count("'s") > 1], names
    assert "Omar express themselves" in said
    assert not same_topic("activist group", "support group")
    assert same_topic("support group", "LGBTQ support group") and same_topic("group", "support group")
    groups = [p for p in plans if p.person == "Nadia" and "group" in p.name]
    assert len(groups) == 2, names


def test_modifiers_of_a_placeholder_or_a_long_skip_name_no_topic():
    from reme_workbench.brains.offline_dream.conversation import topic_phrases

    names = frozenset({"Nadia", "Omar"})
    assert topic_phrases("I am in awe of your courage as a brave person.", names) == []
    assert topic_phrases("I love how it shows the strength and joy you were talking about.",
                         names) == []
    assert topic_phrases("Realizing I can be me without fear was the best part.", names) == []
    assert topic_phrases("I went hiking and got into a bad spot with some people.", names) == ["hiking"]
    assert topic_phrases("I joined a really big LGBTQ support group.", names) == ["LGBTQ support group"]


def test_adverbs_participles_and_past_verbs_end_or_name_no_topic():
    from reme_workbench.brains.offline_dream.conversation import topic_phrases

    names = frozenset({"Nate", "Joanna"})
    assert topic_phrases("My brother wrote a book about turtles.", names)[0] == "brother"
    assert topic_phrases("Ask me a question anytime.", names) == ["question"]
    assert topic_phrases("I had some mixed feelings.", names) == []
    assert topic_phrases("I am fine with it.", names) == []
    assert topic_phrases("I bought a new bed.", names) == ["bed"]
    # "That seems like …": "that" is a pronoun there, and "seems" no topic
    assert topic_phrases("I should start a cork board. That seems like a valuable thing!",
                         names) == ["cork board"]


def test_a_group_of_people_and_another_kind_of_group_are_not_the_support_group():
    from reme_workbench.brains.offline_dream.conversation import (
        modifiers_clash,
        same_topic,
        topic_phrases,
    )

    names = frozenset({"Caroline"})
    assert topic_phrases("I ran into a group of hikers on the trail.", names)[0] == "hikers"
    assert modifiers_clash("LGBTQ activist group", "lgbtq-support-group")
    assert not modifiers_clash("support group", "LGBTQ support group")
    assert not same_topic("LGBTQ activist group", "LGBTQ support group")


def test_a_short_dated_event_is_kept():
    """'We had a picnic last week!' has one content word but is an event people ask about
    ("When did Nadia have a picnic?"): a statement with a topic and a date is kept."""
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import plan_conversation
    from reme_workbench.brains.offline_dream.statements import segment

    chat = ("# Nadia and Omar\n\n**Nadia:** We even had a picnic last week!\n\n"
            "**Omar:** Yesterday I took the kids to the museum.\n\n"
            "**Nadia:** I like tea.\n\n**Omar:** Sounds lovely!\n\n**Nadia:** Thanks, Omar!\n")
    blocks, statements = segment(chat)
    plans, _ = plan_conversation(blocks, statements, day=date(2024, 3, 4))
    said = " ".join(s for p in plans for s in p.said)
    assert "picnic last week (the week of 2024-02-26)" in said, said
    assert "took the kids to the museum" in said
    assert "tea" not in said  # no date, one word: too little to be a unit


def test_a_second_unit_of_a_session_on_one_note_is_not_lost():
    """Two units of one session may land on one note (the necklace and the bowl, both
    about Ada's ceramics); the second's statements are added though the note already cites
    the session, and a re-dream of the session adds nothing."""
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import conversation_decision
    from reme_workbench.brains.offline_dream.units import UnitPlan
    from reme_workbench.llm.base import CandidateNote, IntegrateRequest, Material
    from reme_workbench.llm.schema import MemoryUnit

    m = "daily/2026-03-02/ada-and-ben-1.md"
    first = f"- **2026-03-02**: Ada joined a ceramics class. (derived_from:: [[{m}]])\n"
    note = CandidateNote("digest/wiki/ada-s-ceramics.md", "ada-s-ceramics", "Ada's ceramics.", first)

    def decide(said: str):
        plan = UnitPlan("wiki", "Ada's ceramics", 1.0, [])
        plan.person, plan.topic, plan.topics, plan.said = "Ada", "ceramics", ["ceramics"], [said]
        unit = MemoryUnit(name=plan.name, bucket="wiki", summary=said)
        request = IntegrateRequest(Material(m, "", "2026-03-02"), unit, (note,))
        return conversation_decision(request, plan, date(2026, 3, 2))

    second = decide("Ada's friend made her a ceramics bowl for her 18th birthday.")
    assert second.flavor == "CORROBORATE" and second.body.startswith(first)
    assert "18th birthday" in second.body and second.body.count(f"[[{m}]]") == 2
    assert decide("Ada joined a ceramics class.").body.strip() == first.strip()  # unchanged


def test_a_verb_before_an_object_a_contraction_and_a_capitalised_adjective():
    from reme_workbench.brains.offline_dream.conversation import topic_phrases

    names = frozenset({"John", "Tim"})
    assert topic_phrases("Being with them brings me so much happiness.", names) == []
    assert topic_phrases("Thinking about the possibilities pumps me up.", names) == ["possibilities"]
    assert topic_phrases("I can't wait to see the impact it'll have.", names) == ["impact"]
    assert topic_phrases("Here's a pic from my trip to New York City!", names)[0] == "New York City"
    assert topic_phrases("I bought a new bike.", names) == ["bike"]


def test_a_statement_cut_before_a_reaction_ends_with_its_full_stop():
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import render_bullet
    from reme_workbench.brains.offline_dream.units import UnitPlan

    plan = UnitPlan("wiki", "Ada's pottery", 1.0, [])
    plan.said = ["Ada is a big fan of pottery", "Pottery is a huge part of Ada's life.", "Ada学陶艺"]
    bullet = render_bullet(plan, date(2023, 7, 3), "daily/2023-07-03/s5.md")
    assert "a big fan of pottery. Pottery is a huge part of Ada's life. Ada学陶艺。 (derived" in bullet
