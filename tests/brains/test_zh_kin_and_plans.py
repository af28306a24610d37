"""Two more facts a Chinese speaker states in passing (issue #30 item 6, docs/spec.md
§5.2.8), read from jieba's tags, never from a phrase of the material:

* a clause whose subject is one of the speaker's people (女儿, 老公: a kin word before its
  verb) after a clause about something else is news of that person — a fact of its own,
  not a line of the thing before it (周五瑜伽课请假，儿子从上海回来);
* the speaker's plan said by 我 / 我们, a time, 要 / 打算 and a verb with no object
  (我们下个月要搬家) names the act: the plan is its topic.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.zh_statements import read_chinese


def groups(sentence: str, own: bool = False) -> tuple[tuple[str, ...], ...]:
    read = read_chinese(sentence, frozenset(), own=own)
    return read.groups if read is not None else ()


def test_news_of_the_speakers_people_after_another_thing_is_a_fact_of_its_own():
    assert groups("周五瑜伽课请假，儿子从上海回来", own=True) == (("瑜伽课",), ("儿子", "上海"))
    # the person leads the fact, so its note is named for them, not for what they avoid
    assert groups("我不吃香菜，老公不吃辣") == (("不吃香菜",), ("老公", "辣"))
    # a subject-less clause, or 它, goes on about the thing before it, as before
    assert len(groups("我养了一只猫，叫团子", own=True)) == 1


def test_a_plan_with_a_time_and_no_object_names_the_act():
    assert groups("我们下个月要搬家") == (("搬家",),)
    assert groups("我明年打算考研") == (("考研",),)
    # no time, or a question: no plan of the speaker's
    assert groups("我要睡觉") == ()
    assert groups("我们下个月要搬家吗？") == ()


def test_news_of_a_child_reaches_its_own_note_through_the_cli(dream_chat_cli):
    chat = ("用户：周五瑜伽课请假，儿子从上海回来\n"
            "用户：周六带他去吃早茶\n")
    root = dream_chat_cli("周末", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("儿子" in name for name in personal), list(personal)


def test_going_to_do_at_a_time_with_no_object_is_the_thing_named_before():
    read = read_chinese("社区中心周六上午有陶艺课，那我周六上午也去上", frozenset())
    assert read is not None and read.groups and read.groups[0][0] == "社区中心", read
    # no time: no plan; nothing named before: nothing to go to
    assert groups("社区中心有陶艺课，那我也去上") == ()
    assert groups("那我周六上午也去上") == ()


def test_a_class_the_user_goes_to_reaches_a_note_through_the_cli(dream_chat_cli):
    chat = ("用户：帮我看看这周末做什么好\n"
            "助手：可以去公园走走，或者在家看看书。\n"
            "用户：社区中心周六上午有陶艺课，那我周六上午也去上\n"
            "助手：陶艺很解压，记得穿旧衣服。\n")
    root = dream_chat_cli("周末安排", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("陶艺课" in text for text in personal.values()), personal
