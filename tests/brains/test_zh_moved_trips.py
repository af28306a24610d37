"""A plan moved to another time, said with a connective first or of a place (issue #30
item 6, docs/spec.md §5.2.8): 对了婚礼改到十月了 and 三亚改五月了 tell the speaker's plan
moved — read from jieba's tags (an opening connective, c; a place, ns, as the subject of a
verb done, 了, with a time after the verb), never from a phrase of the material. A place
with a time before its verb (上海明天下雨) is weather, no plan.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_a_plan_moved_after_an_opening_connective_is_the_speakers():
    assert topics("对了婚礼改到十月了") == ("婚礼",)
    assert topics("周三游泳改到周四了") == ("游泳",)  # as before


def test_a_trip_to_a_place_moved_to_another_time_is_the_speakers():
    assert topics("三亚改五月了")[:1] == ("三亚",)
    assert topics("上海明天下雨") == ()
    assert topics("北京下周降温了") == ()


def test_a_moved_trip_reaches_its_own_note_through_the_cli(dream_chat_cli):
    chat = ("用户：帮我写个请假条，下周五家里有事\n"
            "助手：好的，可以这样写：因家中有事，申请下周五请假一天，望批准。\n"
            "用户：可以\n"
            "用户：对了三亚改五月了\n"
            "助手：五月的三亚人少一些，酒店也便宜。\n")
    root = dream_chat_cli("请假", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("三亚" in name for name in personal), list(personal)


def test_going_to_a_named_place_with_no_subject_is_the_speakers_trip():
    # 改成/v 去/v 云南/ns: the first verb is 去, or takes 去 right after it, and a place
    # name follows — the speaker goes there
    assert "云南" in topics("改成去云南看花海，还是五月")
    assert "成都" in topics("去成都吃火锅")
    # a request for the listener, and a question, are no trip
    assert topics("帮我查查去北京的高铁") == ()
    assert topics("去云南看花海好吗？") == ()


def test_a_trip_changed_to_a_place_reaches_its_note_through_the_cli(dream_chat_cli):
    chat = ("用户：西藏不去了，高反太厉害\n"
            "用户：改成去云南看花海，还是五月\n"
            "助手：五月的云南气候舒服，可以安排大理和丽江。\n")
    root = dream_chat_cli("旅行", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("云南" in name for name in personal), list(personal)
