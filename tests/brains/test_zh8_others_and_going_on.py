"""Others' doing is no fact of the speaker's, and an act going on is no question (issue #30
item 6, docs/spec.md §5.2.8):

* people marked plural by 们 (冬泳的大姐们都下水了) are others: their doing is no dated
  thing or outcome of the speaker's — dev4's 老马的老哥 was named on such a clause, and a
  clause with 我 as its subject after it is a statement of its own, not that clause's date;
* 呢 after 在 and a verb marks an act going on (乐仔在门口看包呢), no question — the
  speaker's news of their own dog was read as asked;
* two one-character words jieba cannot read as nouns, opening a clause before 在 (旺/a
  仔/zg), are one name, which leads the news of it.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_people_marked_plural_are_others_not_the_speakers_thing():
    assert "大姐" not in topics("还好 冬泳的大姐们都下水了 我游了五年了")
    assert "大哥" not in topics("还行 冬泳的大哥们都下去了 我游了六年了每天都来")
    # a thing of the speaker's that moved keeps its date, as before
    assert topics("婚礼推迟了，改到十月三号") == ("婚礼",)


def test_an_act_going_on_ends_on_ne_and_is_news():
    assert topics("知道 乐仔在门口看包呢")[:1] == ("乐仔",)
    assert topics("放心 豆豆在楼下看车呢")[:1] == ("豆豆",)
    # 呢 asking stays a question
    assert topics("你在哪呢") == ()


def test_a_dog_minding_things_is_a_note_named_on_the_dog_through_the_cli(dream_chat_cli):
    chat = ("老陈：今天江里水温多少度\n"
            "AI：今天早上大约十二度，风不大。\n"
            "老陈：知道 乐仔在岸上看包呢 这狗比人还靠谱\n"
            "AI：乐仔真能干，天冷了也给它保暖。\n")
    notes = digest_notes(dream_chat_cli("水温", chat))
    assert any(name.endswith("乐仔") for name in notes), list(notes)
