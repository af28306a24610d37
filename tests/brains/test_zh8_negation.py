"""A negated statement keeps its negation in the name (issue #30 items 6 and 7, docs/spec.md
§5.2.8): 我不是老师 was named 老师, 我没养过狗 狗, 我从来不坐飞机 坐飞机, 我不吃辣 辣 — each
the opposite of what was said. The negation, the verb and its object are the topic
(`zh_parse.negated_act`, read from jieba's tags: 我, a word with 不 / 没, a verb, a noun);
and 对了我不喝酒 — a connective before 我 — was read as nothing.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_a_negated_act_or_being_is_named_with_its_negation():
    assert topics("我不是老师") == ("不是老师",)
    assert topics("我没养过狗") == ("没养过狗",)
    assert topics("我从来不坐飞机") == ("不坐飞机",)
    assert topics("我不吃辣") == ("不吃辣",)
    assert topics("我们不养猫") == ("不养猫",)
    assert topics("对了我不喝酒") == ("不喝酒",)  # a connective before 我


def test_no_negated_object_no_statement_and_anothers_negation_stay_as_they_were():
    assert topics("我不知道") == ()  # no object: nothing
    assert topics("我不认识他") == ()  # a person by a pronoun: no thing
    assert topics("你不吃辣吗") == ()  # a question to the listener
    assert "不吃辣" not in topics("我老公不吃辣")  # the husband's, named on him (test_zh_kin_and_plans)


def test_a_negated_diet_reaches_a_note_that_says_not_through_the_cli(dream_chat_cli):
    chat = ("用户：帮我推荐一家附近的餐厅\n"
            "AI：附近有一家川菜馆评价不错，还有一家粤菜馆。\n"
            "用户：我不吃辣，也不吃海鲜\n"
            "AI：那粤菜馆更合适，推荐他们的白切鸡。\n")
    notes = digest_notes(dream_chat_cli("餐厅", chat))
    assert any(name.endswith("不吃辣") for name in notes), list(notes)
    assert not any(name.endswith("的辣") for name in notes), list(notes)


def test_a_texted_negation_after_by_the_way_is_a_note_of_its_own_through_the_cli(dream_chat_cli):
    chat = ("琳琳：我超爱吃辣🌶️\n"
            "琳琳：对了我不喝酒 同事老劝我喝\n"
            "AI：可以直接说自己在吃药或者开车，比较好推辞。\n")
    notes = digest_notes(dream_chat_cli("聚餐", chat))
    assert any(name.endswith("不喝酒") for name in notes), list(notes)
