"""Two cuts of jieba's read by its own means (issue #30 item 6, docs/spec.md §5.2.8),
never from a phrase of the material:

* a one-character classifier (q) with no number or demonstrative before it counts
  nothing: where it and the next word's first character are one place name of the
  dictionary's (台/q 南开/ns → 台南/ns 开), that is the cut — 我在台南开咖啡店 is a café in
  台南, no 南开咖啡店;
* a word the dictionary lists as a noun that ends the clause, made of an adverb and a
  bound word of approval (都行/n: 都/d 行/zg), is an answer, no thing.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.zh_parse import parse_clause
from tests.brains.conftest import zh_topics as topics


def test_a_classifier_counting_nothing_starts_a_place_name():
    assert parse_clause("我在台南开咖啡店")[2:4] == [("台南", "ns"), ("开", "v")]
    assert "咖啡店" in topics("我在台南开咖啡店")
    # a classifier after a number or a demonstrative counts: as before
    assert ("台", "q") in parse_clause("这台电脑")
    assert parse_clause("买了一台电脑")[-1] == ("电脑", "n")


def test_an_adverb_and_a_word_of_approval_is_no_thing():
    assert topics("周一到周五 晚上七点到九点 都行") == ()
    assert topics("周六周日 也行") == ()


def test_a_place_named_with_a_classifier_cut_reaches_its_note_through_the_cli(dream_chat_cli):
    chat = ("用户：我在台南开咖啡店，帮我想个秋季菜单\n"
            "助手：可以试试桂花拿铁和南瓜派。\n"
            "用户：好\n")
    root = dream_chat_cli("菜单", chat)
    names = [p.stem for p in sorted(root.glob("digest/personal/**/*.md"))]
    assert names and not any("南开" in name for name in names), names


def test_that_day_before_i_is_a_time_not_a_subject():
    # 那天/r: jieba tags "that day" as a pronoun; 今 + its second character is a time word
    # of the dictionary's (今天), so it says when — 我 is still the subject
    assert topics("那天我要写论文") == ("论文",)
    assert topics("这天我去看了展览")[:1] == ("展览",)
    # a pronoun of a thing or a place is a subject as before
    assert topics("这个我不太懂") == ()
