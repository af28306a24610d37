"""A plan moved, with the thing moved left out (issue #30 item 6, docs/spec.md §5.2.8): the
user asks whether their appointment can move, then answers 打过了 改到下下周一上午十点 —
a clause opening on a verb and its result complement (改/v 到) and a time, no subject.
Chinese leaves out the thing just named; the clause read as no one's, and the moved
appointment made no note. It is the thing the speaker's turn before named.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_a_change_to_a_time_with_no_subject_moves_the_thing_named_before():
    assert topics("打过了 改到下下周一上午十点", earlier="下周五的牙医预约能改到周一吗")[:1] == ("牙医",)
    assert topics("改到周五了", earlier="我的瑜伽课周三上") == ("瑜伽课",)
    # nothing named before, or no time after it: nothing moved
    assert topics("改到周五了") == ()
    assert topics("改成红色的", earlier="我的瑜伽课周三上") == ()


def test_a_moved_appointment_reaches_a_note_through_the_cli(dream_chat_cli):
    chat = ("用户：下周五的牙医预约能改到周一吗\n"
            "AI：我没法直接帮你改预约，建议打电话给诊所。\n"
            "用户：打过了 改到下下周一上午十点\n")
    notes = digest_notes(dream_chat_cli("牙医", chat))
    assert any("牙医" in name and "下下周一" in text for name, text in notes.items()), notes
