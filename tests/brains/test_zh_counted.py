"""A number with no noun after it counts the thing named just before it, in the same turn
(issue #30 item 6, docs/spec.md §5.2.8): Chinese leaves out a noun it has just said
(仓鼠一般能活几年？我家两只…: the two are hamsters), so the speaker's clause is about that
thing — read from jieba's tags (a numeral-classifier word, m, before no noun), never from a
phrase of the material.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_a_number_with_no_noun_counts_the_thing_asked_about_before_it():
    assert topics("我家两只最近不爱吃东西", before="仓鼠一般能活几年？") == ("仓鼠",)
    assert topics("家里养了三只，天天打架", before="金鱼要多久换一次水？") == ("金鱼",)
    # a number before its noun counts that noun; 一点 is "a little"; nothing named before:
    # nothing to count
    assert topics("我家两只猫最近不爱吃东西", before="仓鼠一般能活几年？") == ("猫",)
    assert topics("我家两只最近不爱吃东西") == ()


def test_a_pet_counted_after_a_question_reaches_a_note_through_the_cli(dream_chat_cli):
    chat = ("用户：仓鼠一般能活几年？我家两只最近不爱吃东西\n"
            "助手：仓鼠一般活两到三年。不爱吃东西要先看看牙齿和笼子温度。\n"
            "用户：好的谢谢\n")
    root = dream_chat_cli("仓鼠", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("仓鼠" in name for name in personal), list(personal)
    assert any("我家两只最近不爱吃东西" in text for text in personal.values()), personal
