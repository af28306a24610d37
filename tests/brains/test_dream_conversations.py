"""Dream keeps what people say about themselves, once per person and topic, and says what
it set aside (docs/spec.md §4.1.7, §4.2.5, §5.2.7–5.2.10, §5.5.4), as a user runs it."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from reme_lab.dream_quality import reaction_name
from reme_workbench.cli import cli


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
    # what Ada said, quoted and attributed — never rewritten into "Ada joined" — one dated
    # bullet per session with its provenance and its relative dates resolved beside it
    assert 'Ada: "I joined a ceramics class at the Hackney community centre yesterday."' \
        in ceramics and "(yesterday = 2026-03-01)" in ceramics
    assert "- **2026-03-02** Ada: " in ceramics and f"(derived_from:: [[{s1}]])" in ceramics
    assert "- **2026-03-09** Ada: " in ceramics and f"(derived_from:: [[{s2}]])" in ceramics
    assert "Ada joined" not in ceramics and "cracked in the kiln" in ceramics
    greyhound = [t for t in written.values() if "greyhound called Comet" in t]
    assert len(greyhound) == 1 and 'Ben: "My big news: I\'m adopting' in greyhound[0]
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


def plans_of(chat: str, day=(2024, 3, 4)):
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import plan_conversation
    from reme_workbench.brains.offline_dream.statements import segment

    blocks, statements = segment(chat)
    return plan_conversation(blocks, statements, day=date(*day))


def said_of(plans) -> str:
    return " ".join(s for p in plans for s in p.said)


def test_a_note_on_one_topic_is_not_corroborated_by_a_topic_sharing_a_modifier():
    from reme_workbench.brains.offline_dream.conversation import person_topic_match
    from reme_workbench.brains.offline_dream.units import UnitPlan
    from reme_workbench.llm.base import CandidateNote, IntegrateRequest, Material
    from reme_workbench.llm.schema import MemoryUnit

    note = CandidateNote("digest/wiki/caroline-s-lgbtq-support-group.md",
                         "caroline-s-lgbtq-support-group", "Caroline's LGBTQ support group.",
                         '- **2023-05-08** Caroline: "I went to a LGBTQ support group."\n')

    def match(topic: str, *others: str):
        plan = UnitPlan("wiki", f"Caroline's {topic}", 1.0, [])
        plan.person, plan.topic, plan.topics = "Caroline", topic, [topic, *others]
        unit = MemoryUnit(name=plan.name, bucket="wiki", summary="Caroline said so.")
        material = Material("daily/2023-07-12/s7.md", "", "2023-07-12")
        return person_topic_match(IntegrateRequest(material, unit, (note,)), plan)

    assert match("support group") == note and match("LGBTQ support group") == note
    assert match("support groups") == note  # one lemma
    assert match("LGBTQ community") is None and match("pride parade") is None
    assert match("LGBTQ activist group", "group") is None  # another group: its own note


def test_one_topic_is_one_key_and_a_shared_head_is_not_enough():
    from reme_workbench.brains.offline_dream.conversation import same_topic, topic_of

    def same(a: str, b: str) -> bool:
        return same_topic(topic_of(a), topic_of(b))

    assert same("spiderman", "Spider-Man movies") and same("Spiderman", "spider man")
    assert same("support group", "LGBTQ support group") and same("group", "support groups")
    assert not same("activist group", "support group")
    assert not same("abstract painting", "horse painting")
    assert same("陶艺课", "陶艺课")


REACTIONS = """# Rosa and Tom

**Rosa:** My son fell off his bike at the skate park on Saturday, but the doctor says he's fine.
**Tom:** Thank goodness your son's okay.
**Rosa:** Standing up for our true selves is the best thing ever.
**Tom:** It took ages, but I wanted to make the place look like my own style for the bakery.
**Tom:** On another note, check out this pic I took a while back!
**Rosa:** I like to just take a look at the stars from the balcony after work.
**Tom:** We gave it our all during last week's scrimmage with the Hornets.
**Rosa:** I'm doing great, thanks for asking!
**Tom:** That's so cool, sounds like a plan.
**Rosa:** I'm so happy for you! I love them so much.
**Tom:** I hope you have a great time at your sister's wedding!
"""


def test_reactions_thanks_and_remarks_never_become_a_unit():
    """A unit needs a clause with the speaker as its subject (or a thing the speaker owns)
    and a topic among its arguments: "thanks for asking", "sounds like a plan", "I'm so
    happy for you", "I love them so much", "I hope *you* have a great time at *your*
    sister's wedding" and a remark on people at large state nothing about the speaker."""
    plans, skipped = plans_of(REACTIONS)
    names = [p.name for p in plans]
    assert names and not skipped
    assert not [n for n in names if reaction_name(n)], names
    said = said_of(plans)
    for gone in ("Thank goodness", "true selves", "thanks for asking", "sounds like",
                 "happy for you", "love them", "sister's wedding"):
        assert gone not in said, (gone, said)
    assert '"My son fell off his bike at the skate park on Saturday' in said
    assert "stars from the balcony" in said and "scrimmage with the Hornets" in said
    assert {p.person for p in plans} == {"Rosa", "Tom"}
    (son,) = [p for p in plans if p.person == "Rosa" and "son" in p.name]
    assert son.when == "on Saturday = 2024-03-02" or "Saturday = 2024-03-02" in son.when


TEXTING = """**kate:** omg guess what
**kate:** i signed up for an italian cooking class lol 🍝
**kate:** first lesson was yesterday!!
**dev:** no wayyy thats amazing
**kate:** im making mac and cheese tonight tho haha
**dev:** lol classic
**dev:** i work in a clinic now btw
**kate:** wait really?? since when
**dev:** started monday. its a vet clinic, dogs all day 🐶
**kate:** I’m so jealous
"""


def test_people_texting_are_read_as_they_write():
    """Lowercase names and "i", "im", "thats", curly apostrophes, "lol", emoji and bursts
    of one-line messages: each statement about the speaker is kept, quoted as written,
    under a name that is a topic — never "lol", never a contraction remnant."""
    plans, _ = plans_of(TEXTING)
    names = [p.name for p in plans]
    assert "Kate's italian cooking class" in names or "kate's italian cooking class" in names \
        or any("italian cooking class" in n.lower() for n in names), names
    assert any("clinic" in n.lower() and n.lower().startswith("dev") for n in names), names
    assert any("mac" in n.lower() for n in names), names
    for bad in ("lol", "omg", "haha", "jealous", "wayyy", "thats", "'m", "’m"):
        assert not [n for n in names if bad in n.lower().split("'s ", 1)[-1].split()], (bad, names)
    said = said_of(plans)
    assert '"i signed up for an italian cooking class lol 🍝"' in said  # as said
    assert '"i work in a clinic now btw"' in said  # a short self-statement counts


ASSISTANT = """**Emily:** hi! can you help me plan meals for the week?
**AI:** Of course! Any dietary needs I should know about?
**Emily:** I'm vegetarian, and my daughter Mia is allergic to peanuts.
**AI:** Got it. I love cooking with lentils, they're so versatile.
**Emily:** thanks! also i started a pottery class on tuesdays, so tuesday dinners need to be quick
**AI:** So you live in Lisbon, right?
**Emily:** yes, since last year.
**AI:** Great, I'll suggest dishes with local produce.
**Emily:** thanks, that's perfect!
"""


def test_a_user_talking_to_an_assistant_keeps_the_users_facts_only():
    """In a chat with an assistant the facts are the user's (personal) and the assistant's
    replies are context — what the user confirms of them ("So you live in Lisbon, right?"
    — "yes") is the user's too (docs/spec.md §5.2.9)."""
    plans, _ = plans_of(ASSISTANT)
    assert plans and {p.bucket for p in plans} == {"personal"}
    assert {p.person for p in plans} == {"Emily"}
    names = [p.name.lower() for p in plans]
    assert any("daughter" in n or "mia" in n for n in names), names
    assert any("pottery class" in n for n in names), names
    said = said_of(plans)
    assert "lentils" not in said  # the assistant's own taste is no fact about Emily
    assert "Lisbon" in said and "confirming" in said


def test_a_bare_user_label_is_the_user():
    chat = ("**User:** I adopted a cat named Mochi last month.\n"
            "**Assistant:** What a lovely name!\n"
            "**User:** thanks! she sleeps on my keyboard\n"
            "**Assistant:** Cats love warm keyboards.\n")
    plans, _ = plans_of(chat)
    assert [p.name for p in plans][:1] == ["The user's cat"], [p.name for p in plans]
    assert plans[0].bucket == "personal" and plans[0].person == "the user"


CHINESE = """**张伟：** 早！
**李娜：** 早上好～
**张伟：** 我上周养了一只猫，叫团子。
**李娜：** 哇，好可爱！你一定很开心吧？
**张伟：** 谢谢！我最近开始弹吉他了。
**李娜：** 我下个月要去成都出差。
"""


def test_chinese_chats_keep_what_each_person_says_of_themselves():
    plans, _ = plans_of(CHINESE)
    names = [p.name for p in plans]
    assert "张伟的猫" in names and "张伟的吉他" in names and any(
        n.startswith("李娜的") and ("成都" in n or "出差" in n) for n in names), names
    said = said_of(plans)
    assert "好可爱" not in said and "开心" not in said
    (cat,) = [p for p in plans if p.name == "张伟的猫"]
    assert cat.when == "上周 = the week of 2024-02-26"
    assert cat.said == ["“我上周养了一只猫，叫团子。”"]


def test_a_second_unit_of_a_session_on_one_note_is_not_lost():
    """Two units of one session may land on one note; the second's words are added though
    the note already cites the session, and a re-dream of the session adds nothing."""
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import conversation_decision
    from reme_workbench.brains.offline_dream.units import UnitPlan
    from reme_workbench.llm.base import CandidateNote, IntegrateRequest, Material
    from reme_workbench.llm.schema import MemoryUnit

    m = "daily/2026-03-02/ada-and-ben-1.md"
    first = f'- **2026-03-02** Ada: "I joined a ceramics class." (derived_from:: [[{m}]])\n'
    note = CandidateNote("digest/wiki/ada-s-ceramics.md", "ada-s-ceramics", "Ada's ceramics.", first)

    def decide(said: str):
        plan = UnitPlan("wiki", "Ada's ceramics", 1.0, [])
        plan.person, plan.topic, plan.topics, plan.said = "Ada", "ceramics", ["ceramics"], [said]
        unit = MemoryUnit(name=plan.name, bucket="wiki", summary=said)
        request = IntegrateRequest(Material(m, "", "2026-03-02"), unit, (note,))
        return conversation_decision(request, plan, date(2026, 3, 2))

    second = decide('"My friend made me a ceramics bowl for my 18th birthday."')
    assert second.flavor == "CORROBORATE" and second.body.startswith(first)
    assert "18th birthday" in second.body and second.body.count(f"[[{m}]]") == 2
    assert decide('"I joined a ceramics class."').body.strip() == first.strip()  # unchanged


def test_a_bullet_quotes_each_statement_and_resolves_its_dates():
    from datetime import date

    from reme_workbench.brains.offline_dream.conversation import render_bullet
    from reme_workbench.brains.offline_dream.units import UnitPlan

    plan = UnitPlan("wiki", "Ada's pottery", 1.0, [])
    plan.person, plan.topic = "Ada", "pottery"
    plan.said = ['"I\'m a big fan of pottery."', '"I made a bowl yesterday."']
    plan.when = "yesterday = 2023-07-02"
    bullet = render_bullet(plan, date(2023, 7, 3), "daily/2023-07-03/s5.md")
    assert bullet == ('- **2023-07-03** Ada: "I\'m a big fan of pottery." "I made a bowl '
                      'yesterday." (yesterday = 2023-07-02) (derived_from:: [[daily/2023-07-03/s5.md]])')


def test_a_texted_u_before_a_full_stop_is_the_listener_not_a_topic():
    """"happy for u. these figurines …": the small pipeline reads "u." as one token (an
    abbreviation); it is still the listener, never what a note is named after (LoCoMo's
    texting form gave `melanie-s-u`)."""
    plans, _ = plans_of("**caro:** i passed the adoption agency interviews last friday!\n"
                        "**mel:** Congrats, Caroline!\n**mel:** Adoption sounds awesome\n"
                        "**mel:** im so happy for u. these figurines i bought yesterday remind "
                        "me of family love\n**mel:** Tell me, whats ur vision for the future?\n")
    names = [p.name.lower() for p in plans]
    assert names and not [n for n in names if n.split("'s ", 1)[-1] in ("u", "u.")], names
