"""A thing the speaker named before and then leaves out or calls 它 (issue #30 item 6,
docs/spec.md §5.2.8): Chinese drops an object it has just said (还有金鱼…？ — 托给邻居吧:
hand *them* to the neighbour) and refers to a pet or a thing by 它 / 它们 / 牠, so the
clause is about the thing the speaker named last — in the turn before it too. Read from
jieba's tags (a verb handing over, 给, with no object before it; a place pronoun, r,
ending what the verb takes; the pronoun 它), never from a phrase of the material.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_a_handed_over_thing_left_out_is_the_one_named_before():
    assert topics("托给邻居吧，她周末在家", before="还有金鱼，半个月没人喂")[:1] == ("金鱼",)
    assert topics("那就交给我姐，她也养过", before="乌龟怎么办？")[:1] == ("乌龟",)
    assert topics("那还是放我爸那边吧", before="仓鼠怎么办，带不走")[:1] == ("仓鼠",)
    # an object said (托邻居帮忙收快递) or nothing named before: nothing to stand for
    assert "金鱼" not in topics("托邻居帮忙收快递吧", before="还有金鱼，半个月没人喂")
    assert topics("托给邻居吧，她周末在家", before="好的，谢谢")[:1] != ("好的",)


def test_it_stands_for_the_thing_named_before():
    assert "仓鼠" in topics("那还是放我爸那边，它以前在那住过", before="仓鼠怎么办，带不走")
    assert topics("它最近总是抓笼子", before="我养了一只仓鼠")[:1] == ("仓鼠",)
    assert topics("牠最近總是抓籠子", before="我養了一隻倉鼠")[:1] == ("倉鼠",)


def test_a_pet_left_out_turns_later_reaches_its_note_through_the_cli(dream_chat_cli):
    chat = ("用户：下个月出差两周，乌龟怎么办，带不走\n"
            "助手：可以找朋友或者宠物店寄养，把饲料和注意事项写清楚。\n"
            "用户：那还是放我姐那边，它以前在那住过一阵\n"
            "助手：这样最好，提前把饲料备足。\n")
    root = dream_chat_cli("出差", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("乌龟" in name and "放我姐那边" in text for name, text in personal.items()), personal


def test_it_stands_for_what_the_turn_before_was_about_not_an_aside():
    # 顺便/ad 问/n 一下: an adverb before it, 问 is the verb "ask", no thing
    assert topics("哈哈好，它真的很爱吃", earlier="好的。顺便问一下，我养了一只乌龟")[:1] == ("乌龟",)
    # the turn's first thing, not the way asked for at its end
    assert topics("好，我今晚就给它洗澡", earlier="家里的乌龟最近不爱动，有什么办法")[:1] == ("乌龟",)


def test_it_in_a_later_turn_still_stands_for_the_pet_the_chat_began_on(dream_chat_cli):
    chat = ("用户：我家金鱼这两天不怎么游，老待在缸底\n"
            "助手：可能是水温低或者水质变差，先测一下水温，换三分之一的水。\n"
            "用户：它已经养了五年了，会不会是水泵的问题\n"
            "助手：五年的金鱼不算老。水泵坏了会缺氧，可以看看出水是不是变小了。\n"
            "用户：好，周六带它去水族店看看\n")
    root = dream_chat_cli("金鱼", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("金鱼" in name and "水族店" in text for name, text in personal.items()), personal
    assert not any("水泵" in name for name in personal), list(personal)
