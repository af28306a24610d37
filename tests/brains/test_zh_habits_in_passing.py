"""Hobbies and habits a Chinese user tells in passing, read on jieba's parse (issue #30
item 6, docs/spec.md §5.2.8):

* 每 and a time in one word of the dictionary's (每周五/l, 每天早上/i) says when, as a habit;
* a class split around a Latin word (上 Python 编程课) is still 上课, a class taken;
* a one-character verb with only a time or a count after it (练了两年多, 喂一次) leaves out
  its object: the thing named before (大提琴, 仓鼠);
* what follows 得 (写得生动) is how a thing is done, and what follows a count of times
  (一趟来回) is no thing counted: neither names a note.

Every sentence here is written for this test.
"""

from __future__ import annotations

import pytest

from .conftest import digest_notes, zh_topics


@pytest.mark.parametrize("sentence, earlier, topic", [
    ("周三晚上还要上 Python 编程课", "", "编程课"),
    ("每周三晚上去练，练了两年多", "我最近在学大提琴", "大提琴"),
    ("那每天早上喂一次", "家里的仓鼠最近瘦了", "仓鼠"),
])
def test_a_habit_told_in_passing_names_its_thing(sentence, earlier, topic):
    from reme_workbench.brains.offline_dream.zh_statements import read_chinese

    read = read_chinese(sentence, frozenset(), earlier=earlier)
    assert read is not None and read.topics[:1] == (topic,), read


@pytest.mark.parametrize("sentence, not_a_topic", [
    ("我一趟来回十来天", "来回"),
    ("帮我把简历写得专业一点", "专业"),
    ("这段要写得生动一点", "生动"),
])
def test_how_and_how_often_name_no_thing(sentence, not_a_topic):
    assert not_a_topic not in zh_topics(sentence)


def test_a_class_told_in_passing_reaches_a_note_through_the_cli(dream_chat_cli):
    chat = ("**用户**：周末想去爬山，帮我看看天气\n\n"
            "**助手**：周六晴，周日有小雨，建议周六去。\n\n"
            "**用户**：好。周五晚上还要上 Python 编程课，所以只能周六\n")
    notes = digest_notes(dream_chat_cli("爬山", chat))
    assert any("编程课" in name and "周五晚上" in text for name, text in notes.items()), sorted(notes)
