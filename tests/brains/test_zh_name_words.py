"""The word a Chinese note is named by is a whole thing of the speaker's, read from
jieba's tags and its new-word model (issue #30 item 6, docs/spec.md §5.2.8): not a piece
of a numbered thing (九号/t 线), not a verb the dictionary lists as a noun (发给/vn 我,
问问/n 我姐 — a verb takes a pronoun, a noun does not), not another person's kin
(我跟他妈说), not the object cut from an activity (想减/v 脂/n).

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_a_numbered_thing_is_one_word_a_date_stays_a_date():
    assert topics("我每天坐十号线上班") == ("十号线",)
    assert topics("我十五号去广州出差") == ("广州",)


def test_a_verb_that_takes_a_pronoun_is_no_thing():
    assert topics("再提一句她之前发给我的样品") == ("样品",)
    assert topics("我去问问我哥") == ("哥",)


def test_another_persons_kin_is_no_topic_of_the_speakers():
    assert topics("好，我跟他妈说") == ()
    assert topics("我跟我妈说了") == ("妈",)


def test_an_activity_at_the_clause_end_is_named_whole():
    assert topics("我想减脂") == ("减脂",)


def test_by_the_way_opens_a_clause_about_the_speaker():
    # 对/p 了/ul: a preposition takes no aspect particle — "by the way", then 我 the subject
    assert topics("对了我周末在学韩语，想考TOPIK") != ()
    assert "韩语" in topics("对了我周末在学韩语，想考TOPIK")[0]
