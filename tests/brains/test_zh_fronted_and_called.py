"""Facts a Chinese speaker states with the thing out of its usual place (issue #30 item 6,
docs/spec.md §5.2.8), read from jieba's tags, never from a phrase of the material:

* a turn opening on 叫 / 名叫 and a name with no subject (我养了一只狗 — 叫豆豆) names the
  thing the speaker's turn before named: the dog is called 豆豆, one fact, one note;
* a noun put before 我 and its verb (帐篷我借朋友的, 北京我去过两次) is the object the
  speaker fronted as the topic — the clause is about the speaker and that thing;
* 我 + 不 + a verb that is a verb and its object (我不抽烟, 我不喝酒的) with no thing named
  is what the speaker does not do: the act with its negation is the topic (never the act
  alone, which would say the opposite).

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_a_name_given_with_no_subject_is_the_thing_named_before():
    assert topics("叫豆豆，两岁了", earlier="我养了一只狗")[:2] == ("狗", "豆豆")
    assert topics("名叫可乐，特别能吃", earlier="我家有只橘猫")[:2] == ("橘猫", "可乐")
    # nothing named before: nothing, as before; 叫 taking a person is "ask … to"
    assert topics("叫豆豆，两岁了") == ()
    assert "狗" not in topics("叫朋友帮忙看着", earlier="我养了一只狗")


def test_a_noun_fronted_before_i_and_its_verb_is_the_speakers_topic():
    assert topics("帐篷我借朋友的")[:1] == ("帐篷",)
    assert topics("北京我去过两次")[:1] == ("北京",)
    # a subject of its own that says something, and a question, stay as they were
    assert topics("老师说我进步很快") == ()
    assert topics("帐篷我借谁的好？") == ()


def test_an_act_the_speaker_does_not_do_keeps_its_negation():
    assert topics("我不抽烟") == ("不抽烟",)
    assert topics("还有聚餐的时候咋办 我不喝酒的") == ("不喝酒",)
    # a verb of feeling or knowing is no act; a thing named is the topic as before
    assert topics("我不知道") == ()
    assert topics("我不担心") == ()
    assert topics("我不吃香菜") == ("不吃香菜",)  # the thing with its negation (test_zh8_negation.py)


def test_a_pets_name_joins_its_note_through_the_cli(dream_chat_cli):
    chat = ("用户：我养了一只狗\n"
            "用户：叫豆豆，两岁了，最近老是掉毛，正常吗？\n"
            "助手：换季掉毛很常见，每天梳一梳，饮食里加点鱼油。\n"
            "用户：好的\n")
    root = dream_chat_cli("掉毛", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("狗" in text and "豆豆" in text for text in personal.values()), personal


def test_a_fronted_thing_and_an_act_not_done_reach_notes_through_the_cli(dream_chat_cli):
    chat = ("用户：下周去露营，帮我列个清单\n"
            "助手：好的，帐篷、睡袋、头灯、炉具都要带。帐篷有吗？\n"
            "用户：帐篷我借朋友的\n"
            "用户：还有晚上聚餐的时候咋办 我不喝酒的\n"
            "助手：可以带点果汁或者茶，以茶代酒就好。\n")
    root = dream_chat_cli("露营", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("帐篷" in name for name in personal), list(personal)
    assert any("不喝酒" in name for name in personal), list(personal)


def test_an_activity_after_a_negated_verb_keeps_the_negation():
    # 不会/v 做饭/v: the activity is what the speaker cannot do — its name says so
    assert topics("我不会做饭") == ("不会做饭",)
    assert topics("最近迷上烘焙了") == ("烘焙",)  # no negation: the activity, as before
