"""A one-character adjective right before a noun is part of the thing's name (issue #30
item 6, docs/spec.md §5.2.8): jieba cuts 白噪音 into 白/a 噪音/n, so "那我试试白噪音" —
a suggestion taken up — was named 噪音, another thing. After a verb, a one-character
adjective before a noun opens the noun phrase, as it does after a classifier (条红围巾).

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_a_one_character_adjective_before_a_noun_is_part_of_it():
    assert topics("那我试试白噪音") == ("白噪音",)
    assert topics("它老是咬我的旧拖鞋")[:1] == ("旧拖鞋",)
    # an adjective of two characters is what is said of a thing, as before
    assert "漂亮" not in "".join(topics("我买了漂亮的裙子"))


def test_white_noise_taken_up_is_named_whole_through_the_cli(dream_chat_cli):
    chat = ("小雨：最近晚上总是睡不着\n"
            "AI：可以试试睡前一小时不看手机，或者听一些白噪音。\n"
            "小雨：那我试试白噪音\n")
    notes = digest_notes(dream_chat_cli("失眠", chat))
    assert any(name.endswith("白噪音") for name in notes), list(notes)
