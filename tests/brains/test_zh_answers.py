"""The user's answer to an assistant's question about a thing the user named before is
the user's (issue #30 item 6, docs/spec.md §5.2.8): 我的电动车… — 电动车骑了几年了？ —
"快五年了，是一辆二手的雅迪" tells of the user's scooter though it has no subject. Read
from jieba's tags (the question's subject, a noun before its first verb, named in the
user's turn before), never from a phrase of the material.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.brains.offline_dream.zh_statements import asks_about_listener


def test_a_question_on_a_thing_the_user_named_asks_about_the_user():
    earlier = "我的电动车最近充不进电，是电池坏了吗"
    assert asks_about_listener("电动车骑了几年了？", earlier)
    assert asks_about_listener("车开了多少公里？", "我的车最近刹车有异响")  # 车/zg
    # not a thing the user named, or a question with a pronoun subject of its own
    assert not asks_about_listener("天气怎么样？", earlier)
    assert not asks_about_listener("这个电动车骑了几年了？", earlier)
    assert not asks_about_listener("电动车骑了几年了？")


def test_the_answer_reaches_a_note_through_the_cli(dream_chat_cli):
    chat = ("用户：我的车最近空调不制冷，是不是该加氟了\n"
            "助手：有可能是缺氟，也可能是压缩机的问题。车开了多少公里？\n"
            "用户：快八万公里了，是一辆二手的思域\n"
            "助手：八万公里可以先检查冷凝器和压缩机。\n")
    root = dream_chat_cli("空调", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    # a note of its own, on the car the answer names (not only a line in the air-con's)
    assert any("思域" in name and "二手的思域" in text for name, text in personal.items()), personal
