"""What 它 stands for across a Chinese chat (issue #30 item 6, docs/spec.md §5.2.8): the
thing the user named, not a place — a place 在 names (养在书房) is where, and a remark
on what a place is like (最近桂林晚上比较闷) names nothing 它 could stand for, so the
turn after it still speaks of the pet; a pet's name told after where it is kept
(养在书房，叫豆包) names the pet, not the room.

Every chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.zh_statements import read_chinese, refers_back

from .conftest import digest_notes

TORTOISE = """用户：家里的乌龟这两天不怎么吃东西
助手：乌龟平时养在哪里？水温多少？
用户：养在书房，叫豆包，养了五年了
用户：最近桂林晚上比较闷
助手：水温低了乌龟就不爱吃，建议加个加热棒，保持在26度左右。
用户：好，明天就把它搬到客厅
"""


def test_a_remark_on_a_place_keeps_what_it_stands_for():
    assert refers_back("最近桂林晚上比较闷")
    assert not refers_back("我周末去桂林玩了")  # a trip of the speaker's names a thing


def test_a_pets_name_after_where_it_is_kept_names_the_pet():
    read = read_chinese("养在书房，叫豆包，养了五年了", frozenset(), earlier="家里的乌龟这两天不怎么吃东西")
    assert read is not None and read.topics[:1] == ("乌龟",), read
    read = read_chinese("好，明天就把它搬到客厅", frozenset(), earlier="养在书房，叫豆包，养了五年了")
    assert read is not None and read.topics[:1] == ("豆包",), read


def test_the_pet_moved_reaches_a_note_named_after_it_through_the_cli(dream_chat_cli):
    notes = digest_notes(dream_chat_cli("乌龟", TORTOISE))
    moved = [name for name, text in notes.items() if "搬到客厅" in text]
    assert moved and all(("豆包" in n or "乌龟" in n) for n in moved), sorted(notes)
    assert not any("书房" in n or "桂林" in n for n in notes), sorted(notes)
