"""A compound noun jieba's dictionary lacks, cut into single characters (蓝/nr 猫/n, 试/v
水/n 试验), is one word where jieba's own new-word model (its HMM) joins the characters
(issue #30 item 6, docs/spec.md §5.2.8); and a thing with no owner said that keeps doing
something to a thing (金毛一直咬沙发) is the speaker's own, as Chinese leaves out 我的.
Read from jieba's tags and its HMM, never from a phrase of the material.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_single_characters_the_new_word_model_joins_are_one_noun():
    assert topics("我家蓝猫最近不爱吃饭") == ("蓝猫",)
    # an adverb before a one-character noun makes it a verb, whatever the model joins
    assert topics("想先学《晴天》") == ("晴天",)
    assert topics("刚做完试水试验") == ("试水试验",)
    # a verb and its object stay two words where more follows them (吃/v 饭/n 了)
    assert "挠门" not in topics("我的秋田犬又挠门了")
    # nor after a verb of wishing: 要/v 学/n 画画 is "will learn to paint", no 要学
    assert topics("我打算要学画画") == ("画画",)


def test_a_thing_that_keeps_doing_something_is_the_speakers():
    assert topics("金毛一直咬沙发，是不是太无聊了？") == ("金毛", "沙发")
    assert topics("蓝猫总是吐毛球") == ("蓝猫", "毛球")
    # no verb taking a thing: a remark, no fact (the weather, prices)
    assert topics("天气一直不好") == ()
    assert topics("房价一直涨") == ()


def test_a_dogs_trouble_reaches_its_note_through_the_cli(dream_chat_cli):
    chat = ("用户：金毛一直咬沙发，是不是太无聊了？\n"
            "助手：金毛精力旺盛，每天需要足够的运动和益智玩具。\n"
            "用户：好的谢谢\n")
    root = dream_chat_cli("金毛", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("金毛" in name and "咬沙发" in text for name, text in personal.items()), personal
