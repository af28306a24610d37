"""What a user tells an assistant as a rule or a preference, read from the parse
(offline_dream/user_rules.py). The word rules it replaces read "Sounds like you and the
kids had a blast" as a preference ("like") and "I've always had a love for horses" as a
rule ("always"): in LoCoMo's user <-> assistant form 104 of 629 notes were such sentences,
named by their words (`sounds-like-you-and-kids`, `i-ve-always-had-a-love`)."""

from __future__ import annotations

import pytest

from reme_workbench.brains.offline_dream.statements import segment
from reme_workbench.brains.offline_dream.user_rules import tells_a_rule
from tests.brains.test_dream_conversations import dream, notes, vault_with


def said(text: str) -> bool:
    _, statements = segment(f"**Emily:** {text}\n")
    return any(tells_a_rule(s) for s in statements)


@pytest.mark.parametrize("text", [
    "Always answer in French.", "Please keep it short.", "Don't use bullet points.",
    "I prefer metric units.", "I never eat meat.", "I don't like long answers.",
    "I'd rather you didn't use emoji.", "Make sure the recipes are vegetarian.",
    "以后回答都用中文，别用英文。",
])
def test_rules_and_preferences_for_the_assistant(text):
    assert said(text)


@pytest.mark.parametrize("text", [
    "Sounds like you and the kids had a blast.", "I've always had a love for horses!",
    "I want to help people who have gone through the same things as me.", "I love pottery.",
    "Totally agree.", "get a couch", "Can you always answer in French?", "我养了一只猫。",
    "Sounds like you'd rather stay home.",
])
def test_facts_reactions_and_questions_are_no_rule(text):
    assert not said(text)


CHAT = """**Emily:** Hey, what's up? Been a busy week since we talked.
**AI:** Hey Emily, it's been super busy here. Last Fri I finally took my kids to a pottery workshop.
**Emily:** Wow! Sounds like you and the kids had a blast. How'd they like it?
**AI:** The kids loved it!
**Emily:** I've always had a love for horses! I want to help people who have gone through the same things as me.
**AI:** That is wonderful.
**Emily:** Don't be afraid to write, it helps. Mental health's a priority for me.
**Emily:** Always answer me in metric units, please.
"""


def test_a_chat_with_an_assistant_keeps_the_users_rule_and_names_no_note_by_a_sentence(tmp_path):
    root = vault_with(tmp_path, {"daily/2024-03-04/chat.md": CHAT})
    dream(root)
    names = sorted(notes(root))
    assert not [n for n in names if "sounds-like" in n or "always-had" in n], names
    texts = "\n".join(notes(root).values())
    assert "metric units" in texts  # the rule is kept


@pytest.mark.parametrize("text", [
    # encouragement: what the listener should do with their own life, not a rule for replies
    "Don't give up on your dreams!", "Don't ever quit.", "Don't be scared to reach out.",
    "Don't hesitate to reach out.", "Don't let it get you down.", "Make sure yours stands out.",
    # what the user did or will feel, negated: a fact or a memory, not how they want things
    "I'll never forget seeing all of the characters and dialogue I wrote being acted out.",
    "I don't expect to win big here, I just like playing for fun!",
])
def test_encouragement_and_negated_facts_are_no_rule(text):
    assert not said(text)


AFTER_A_FACT = """**Jon:** Hey! Long week.
**AI:** Good to hear from you. How's the studio?
**Jon:** Now, I'm aiming to turn my dancing passion into a business. That being said, I definitely don't underestimate the difficulties - it ain't been a walk in the park.
**AI:** You can make it work.
**Jon:** Thanks. Always answer me in metric units, please.
"""


def test_a_sentence_a_fact_holds_is_not_kept_again_as_a_rule_and_names_no_note(tmp_path):
    # the second sentence of a turn was not seen as held by the facts, which quote it: the
    # log rules kept it as a rule, named `said` and described as "I: That being said, …"
    root = vault_with(tmp_path, {"daily/2024-03-04/chat.md": AFTER_A_FACT})
    dream(root)
    names = sorted(notes(root))
    assert not [n for n in names if n.endswith(("/said.md", "being-said.md"))], names
    texts = "\n".join(notes(root).values())
    assert "don't underestimate the difficulties" in texts  # the fact keeps it
    assert "metric units" in texts  # the rule is kept


def test_a_users_rule_is_described_in_their_words_attributed_never_in_the_first_person(tmp_path):
    # was: the sentence itself ("I never eat meat, …"), a description in the first person
    chat = AFTER_A_FACT + "**AI:** Noted.\n**Jon:** I never eat meat, so no beef recipes.\n"
    root = vault_with(tmp_path, {"daily/2024-03-04/chat.md": chat})
    dream(root)
    rules = {path: text for path, text in notes(root).items()
             if "metric units" in text or "never eat meat" in text}
    assert rules
    for path, text in rules.items():
        description = text.split("description:", 1)[1].split("\n", 1)[0].strip().strip("'")
        assert description.startswith('Jon: "'), (path, description)


def test_a_rule_about_the_assistants_replies_is_a_rule():
    assert said("Don't use bullet points in your replies.")


def test_a_users_rule_alone_in_its_turn_is_described_attributed(tmp_path):
    # was: described by the sentence alone ("Always answer me in metric units, please."),
    # whose "me" speaks in the first person
    chat = ("**Jon:** Always answer me in metric units, please.\n**AI:** Noted.\n"
            "**Jon:** Don't use bullet points in your replies.\n**AI:** Sure.\n")
    root = vault_with(tmp_path, {"daily/2024-03-04/chat.md": chat})
    dream(root)
    found = {path: text for path, text in notes(root).items()
             if "metric units" in text or "bullet points" in text}
    assert len(found) == 2, sorted(notes(root))
    for path, text in found.items():
        description = text.split("description:", 1)[1].split("\n", 1)[0].strip().strip("'")
        assert description.startswith('Jon: "'), (path, description)
