"""Chinese facts a user states in passing reach a note (issue #30 item 6, docs/spec.md
§5.2.8): read from jieba's parts of speech, never from a phrase of the material —

* a thing the speaker keeps, named in a relative clause (我养的仓鼠, 我报的班), is theirs
  even inside a question ("我养的仓鼠不吃东西了怎么办");
* a family member as the subject (孙女, 老伴, 丈夫: a closed class of kin words) is the
  speaker's own;
* a clause with no subject that opens on a time word jieba tags as a locative (最近, 之前),
  that says how often (每天都…, 经常…), or where (在杭州做…, 在一家书店上班), tells of the
  speaker;
* a verb the dictionary tags as a noun is a verb before an aspect particle (换/nz 了);
* the word right after 的 heads a noun phrase whatever its tag (我的面试/v 过了);
* a thing moved to another time after the time it had (周三游泳改到周四了) is the speaker's,
  as a dated thing with no owner named is.

Every chat here is written for this test, in the forms of the issue's Chinese chats.
"""

from __future__ import annotations

from datetime import date

from reme_workbench.brains.offline_dream.zh_statements import read_chinese


def topics(sentence: str) -> tuple[str, ...]:
    read = read_chinese(sentence, frozenset())
    return read.topics if read is not None else ()


def plans_of(chat: str):
    from reme_workbench.brains.offline_dream.conversation import plan_conversation
    from reme_workbench.brains.offline_dream.statements import segment

    blocks, statements = segment(chat)
    return plan_conversation(blocks, statements, day=date(2026, 5, 4))[0]


def test_a_thing_the_speaker_keeps_named_in_a_question_is_theirs():
    assert topics("我养的仓鼠不吃东西了怎么办") == ("仓鼠",)
    assert "吉他班" in " ".join(topics("我报的吉他班下周开课，要准备什么？"))
    # the listener's, or a question with no thing of the speaker's: nothing
    assert topics("你养的狗多大了？") == ()
    assert topics("仓鼠一般吃什么？") == ()


def test_a_family_member_as_the_subject_is_the_speakers():
    assert "钢琴八级" in topics("孙女妞妞下个月考钢琴八级")
    assert "糖尿病" in topics("老伴有糖尿病，饮食要注意")
    assert topics("丈夫下周出差") == ("丈夫",)


def test_a_clause_opening_on_a_time_jieba_tags_as_a_locative_tells_of_the_speaker():
    # 最近/f: a time, as 上周/t is
    assert topics("最近迷上拍星空了") == ("星空",)
    assert any("足球" in t for t in topics("最近踢足球脚踝扭了，一般多久能好？"))


def test_how_often_or_where_a_subjectless_clause_says_tells_of_the_speaker():
    assert any("广场" in t for t in topics("每天晚上都去跳广场舞"))
    assert topics("在杭州做后端开发") == ("杭州",)
    assert "书店" in topics("换了份兼职，现在在一家书店上班")


def test_a_verb_before_an_aspect_particle_is_a_verb_whatever_its_tag():
    assert topics("换了份兼职") == ("兼职",)


def test_the_word_after_de_heads_a_noun_phrase():
    assert topics("我的面试过了！") == ("面试",)


def test_a_thing_moved_from_its_time_is_the_speakers():
    assert topics("周三游泳改到周四了") == ("游泳",)


def test_remarks_requests_and_questions_state_nothing():
    for said in ("今天天气真好", "明天要下雨吗？", "你每天都跑步吗？", "在文档里加一段",
                 "你的方案不错", "一般多久能好？", "谢谢，辛苦了"):
        assert topics(said) == (), said


def test_the_facts_of_a_chinese_chat_in_passing_reach_a_plan():
    chat = ("用户：帮我做一个日语N1的复习计划\n"
            "助手：好的，可以分三个阶段。\n"
            "用户：我养的仓鼠不吃东西了怎么办\n"
            "助手：先看看笼子的温度。\n"
            "用户：孙女妞妞下个月考钢琴八级\n"
            "用户：最近迷上拍星空了\n"
            "用户：换了份兼职，现在在一家书店上班\n")
    said = " ".join(s for p in plans_of(chat) for s in p.said)
    for fact in ("仓鼠", "钢琴八级", "星空", "书店"):
        assert fact in said, (fact, said)
