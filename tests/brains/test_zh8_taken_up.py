"""A suggestion taken up, told as what the act is like (issue #30 item 6, docs/spec.md
§5.2.8): 那个语音打字挺好用, 盖布真的有用 — an act (a verb among the subject's words) found
to work. The clause has no 我, so it read as no one's: the taken-up 语音打字 made no note,
and a turn opening on 盖布真的有用 was named after the whole sentence.

The rule reads jieba's tags (`zh_parse.praised_act`), no list of the acts; every sentence
and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_an_act_found_to_work_is_the_speakers_taken_up():
    assert topics("那个语音打字挺好用") == ("语音打字",)
    assert topics("盖布真的有用 它十点以后就不叫了") == ("盖布",)
    assert topics("晚上泡脚真的有用") == ("泡脚",)
    assert topics("用语音打字挺方便的") == ("语音打字",)


def test_a_negated_verdict_a_remark_or_a_question_takes_nothing_up():
    assert topics("那个语音打字不太好用") == ()  # negated: not taken up
    assert topics("吃药没用") == ()
    assert topics("天气很好") == ()  # a thing, no act: a remark
    assert topics("听说很有名") == ()  # a verb alone, taking nothing: hearsay
    assert topics("邻居人还挺好的") == ()  # (邻居/v 人: jieba's tags) no thing but 人
    assert topics("语音打字好用吗") == ()  # a question


def test_the_act_taken_up_is_no_thing_a_later_it_stands_for():
    # 它 is the duck the turn before named, not the cloth
    from reme_workbench.brains.offline_dream.zh_statements import read_chinese

    read = read_chinese("盖布真的有用，它十点以后就不叫了", frozenset(),
                        earlier="我家鸭子半夜一直叫")
    assert read is not None and read.groups[0][0] == "盖布"
    assert "鸭子" in read.topics, read


def test_a_suggestion_taken_up_reaches_a_note_named_on_it_through_the_cli(dream_chat_cli):
    chat = ("用户：我眼睛老花了，手机上打字太费劲\n"
            "助手：可以试试语音打字，按住麦克风说话就能转成文字。\n"
            "用户：那我试试\n"
            "用户：那个语音打字挺好用 这条就是说出来的\n")
    notes = digest_notes(dream_chat_cli("打字", chat))
    assert any(name.endswith("语音打字") and "挺好用" in text for name, text in notes.items()), \
        list(notes)


def test_a_turn_opening_on_an_act_found_to_work_is_named_on_the_act_not_the_sentence(
        dream_chat_cli):
    chat = ("阿宝：我家鸭子晚上一直叫，邻居都来敲门了\n"
            "AI：可以晚上给笼子盖块布，光线暗了它会安静很多。\n"
            "阿宝：盖布真的有用 它九点以后就不叫了 😂\n")
    notes = digest_notes(dream_chat_cli("鸭子", chat))
    assert not any(len(name) > 12 for name in notes), list(notes)  # no sentence as a name
    assert any(name.endswith("盖布") for name in notes), list(notes)
