"""A Chinese chat whose user is called by a nickname ending on Latin letters (阿May, 小Ann,
as Chinese speakers write them) is read as a chat: the labels are the speakers (issue #30
item 3, docs/spec.md §5.2.11).

Every chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.chat import read_turn


def test_a_nickname_ending_on_latin_letters_is_a_label():
    turn = read_turn("阿Ken：我在银行上班")
    assert turn is not None and turn.label == "阿Ken" and turn.text == "我在银行上班"
    assert read_turn("小Ann: 周末去爬山").label == "小Ann"
    # a document's 方案A： is no speaker
    assert read_turn("方案A：先迁移数据库") is None


def test_a_chat_with_such_a_user_reaches_notes_through_the_cli(dream_chat_cli):
    chat = ("阿Ken：帮我写个请假条，下周三要陪我爸去医院复查\n"
            "助理：好的：「领导您好，下周三需陪家人就医，想请一天事假。谢谢。」\n"
            "阿Ken：可以 我在物流公司做调度 请假要提前三天\n"
            "助理：那现在提交刚好来得及。\n")
    root = dream_chat_cli("请假", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    # the user's notes, named by the user (a note's name is written in lower case)
    assert any(name.startswith("阿ken的") and "description: 阿Ken：" in text
               for name, text in personal.items()), personal
    assert any("物流公司" in text for text in personal.values()), personal
