"""Facts a Chinese speaker states without the words the reading looked for (issue #30
items 1 and 5, docs/spec.md §5.2.8), read from jieba's parse: an act done for a while or
so often (快走一小时: an adjective and a verb jieba has no word for); a decision that
changes an amount or a frequency (那就改成十天一次) is about the thing the speaker's turn
before named; a thing handed over by a verb that takes a person and a verb with no
object (拜託我室友幫忙餵: the cat, left out); the A-not-A question cut in three words
(对/p 不/d 对/p); a nickname of 阿 / 小 / 老 and Latin letters written in lower case is a
speaker's label, and the note keeps it as written.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.chat import read_turn
from reme_workbench.brains.offline_dream.zh_statements import asked_of_listener, read_chinese
from tests.brains.conftest import zh_topics as topics


def test_an_act_done_for_a_while_is_the_activity():
    assert topics("我每天晚上快走一小时") == ("快走",)
    assert topics("我每周游泳两次") == ("游泳",)
    # a verb alone is no activity named (走 of 一万步), nor "about to leave"
    assert topics("我快走了") == ()
    assert read_chinese("还有二十多天", frozenset()) is None  # 有: no act, nothing named


def test_a_decision_on_a_frequency_is_about_the_thing_named_before():
    assert topics("那就改成十天一次", earlier="我的多肉每周浇一次水") == ("多肉",)
    # with nothing named before, no thing
    assert topics("那就改成十天一次") == ()


def test_a_thing_handed_to_a_person_and_a_verb_is_the_thing_named_before():
    assert topics("出差那幾天拜託我室友幫忙餵", earlier="我養了一隻貓")[:1] == ("貓",)
    assert "拜託" not in topics("出差那幾天拜託我室友幫忙餵", earlier="我養了一隻貓")
    assert topics("我让我妈帮忙照顾", earlier="我养了一只猫")[:1] == ("猫",)
    # a verb that holds its object (吃饭) leaves nothing out
    assert "猫" not in topics("我请朋友吃饭", earlier="我养了一只猫")


def test_a_not_a_cut_in_three_words_is_a_question():
    assert asked_of_listener("你是在深圳工作，对不对", frozenset()) == asked_of_listener(
        "你是在深圳工作吗？", frozenset()) != ()
    assert topics("我周末去爬山对不对") == ()


def test_a_lower_case_latin_nickname_is_a_label_kept_as_written(dream_chat_cli):
    turn = read_turn("阿ken：我在银行上班")
    assert turn is not None and turn.label == "阿ken"
    assert read_turn("方案a：先迁移数据库") is None
    chat = ("阿ken：我在物流公司做调度\n"
            "助手：调度工作很费脑子，要注意休息。\n"
            "阿ken：我每天晚上快走一小时\n"
            "助手：快走对身体很好，记得穿双合适的鞋。\n")
    root = dream_chat_cli("快走", chat)
    names = sorted(p.stem for p in root.glob("digest/personal/**/*.md"))
    assert any(n.startswith("阿ken的") for n in names), names
    assert "阿ken的快走" in names, names


def test_the_decision_reaches_the_things_note_through_the_cli(dream_chat_cli):
    chat = ("用户：我的多肉每周浇一次水\n"
            "助手：冬天多肉长得慢，十天左右浇一次就够了。\n"
            "用户：那就改成十天一次\n")
    root = dream_chat_cli("多肉", chat)
    personal = {p.stem: p.read_text("utf-8") for p in root.glob("digest/personal/**/*.md")}
    assert any("多肉" in name and "十天一次" in text for name, text in personal.items()), personal


def test_a_question_opening_on_its_verb_asks_of_a_thing_the_user_named():
    from reme_workbench.brains.offline_dream.zh_statements import asks_about_listener

    earlier = "帮我写个通知，我们社区下周办了个义卖"
    assert asks_about_listener("是什么义卖？", earlier)
    assert asks_about_listener("在哪个社区？", earlier)
    # an interrogative on a thing the user did not name asks nothing of theirs
    assert not asks_about_listener("是什么风格？", earlier)
    assert not asks_about_listener("是什么义卖？")
