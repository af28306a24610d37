"""A Chinese chat with an assistant called by its own name (not 助手 or AI) that answers
in only two turns: it answers and offers plans and never tells of itself, so it is the
assistant and its replies are context, never facts (issue #30 item 3, docs/spec.md §5.2.11).
And a user's 我 that tells of their life — a negated modal (我不能吃辣), 我 before a kin
word after a verb (放我姐家) — is no helper's 我.

Every chat here is written for this test.
"""

from __future__ import annotations

import pytest

from reme_workbench.brains.offline_dream.chat import (
    _tells_of_self_zh,
    answering_speaker,
    chat_speakers,
)

from .conftest import digest_notes

# 阿星 answers twice, at length, and never speaks of itself; Ivy asks and tells of herself
TRIP = """Ivy：下个月去成都出差 顺便玩两天
Ivy：帮我排个两天的行程
阿星：好的！第一天上午去宽窄巷子，下午去人民公园喝茶，晚上吃火锅；第二天去大熊猫基地，下午逛太古里再去机场。火锅要选微辣还是清汤？
Ivy：清汤 我不能吃辣
Ivy：猫那两天放我姐家
阿星：那就点鸳鸯锅，清汤那边给你。出发前记得把猫粮和猫砂一起送过去。
"""


def _speakers(chat: str) -> tuple[frozenset[str], str | None]:
    lines = chat.splitlines()
    speakers = chat_speakers(lines)
    return speakers, answering_speaker(lines, speakers)


def test_an_assistant_by_its_own_name_that_answers_twice_is_the_assistant():
    speakers, answering = _speakers(TRIP)
    assert speakers == {"Ivy", "阿星"}
    assert answering == "阿星"


@pytest.mark.parametrize("turn", ["清汤 我不能吃辣", "猫那两天放我姐家", "好 我不会开车",
                                  "周末送去我爸家"])
def test_a_users_i_of_their_own_life_tells_of_themselves(turn):
    assert _tells_of_self_zh(turn)


@pytest.mark.parametrize("turn", ["我可以帮你改一下", "要我把行程改成杭州的吗？", "我建议先去西湖",
                                  "有问题随时告诉我"])
def test_a_helpers_i_does_not(turn):
    assert not _tells_of_self_zh(turn)


def test_a_friend_whose_two_turns_are_no_longer_stays_a_person():
    # 小雨 never says 我 in two turns, but answers no longer than 阿杰 tells: a friend
    chat = ("阿杰：周末我去水库钓鱼了，钓到一条三斤的草鱼\n"
            "小雨：哇，三斤的草鱼好大，哪个水库？\n"
            "阿杰：我去的是城北的水库，早上五点就出门了\n"
            "小雨：这么早，辛苦了，下次叫上大家\n"
            "阿杰：好啊，我下周还去\n")
    assert _speakers(chat)[1] is None


def test_the_assistants_replies_become_no_notes_through_the_cli(dream_chat_cli):
    notes = digest_notes(dream_chat_cli("成都", TRIP))
    assert notes, "no note at all"
    assert not any(name.startswith("阿星") for name in notes), sorted(notes)
    assert not any("阿星：" in text for text in notes.values()), sorted(notes)
    assert any(name.startswith("ivy的") for name in notes), sorted(notes)


def test_a_mother_who_advises_at_length_in_a_family_chat_stays_a_person():
    chat = ("妈妈：明天记得带伞，天气预报说有大雨，出门前把窗户关好，晚上早点回家吃饭。\n"
            "小明：我知道了\n"
            "小明：我晚上七点到\n"
            "妈妈：好的，路上注意安全，到了给家里打个电话，饭菜都在锅里热着。\n")
    assert _speakers(chat)[1] is None
