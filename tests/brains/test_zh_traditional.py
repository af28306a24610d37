"""Chinese in traditional characters is read as simplified is (issue #30 item 6, docs/spec.md
§5.2.8): jieba's dictionary is simplified and cuts traditional text badly, so a text is
converted character for character (OpenCC's t2s tables) before jieba — and what is read
back keeps the characters the person wrote.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.textrules.nlp import chinese_simplified, chinese_tagged
from tests.brains.conftest import zh_topics as topics


def test_the_conversion_keeps_every_place():
    written = "耳朵裡面紅紅的，還有一點味道嗎？"
    simple = chinese_simplified(written)
    assert simple == "耳朵里面红红的，还有一点味道吗？"
    assert len(simple) == len(written)
    assert chinese_simplified("我养了一只猫") == "我养了一只猫"  # simplified unchanged
    assert ("里面", "f") in chinese_tagged("耳朵裡面")


def test_a_traditional_statement_is_read_and_its_topics_keep_the_written_characters():
    assert topics("我們隊下個月有一場社區籃球賽") == ("社區籃球賽", "隊")
    assert topics("我家的貓咪最近一直掉毛") == ("貓咪",)
    assert topics("這週六去試禮服") == ("禮服",)
    # a question in traditional characters states nothing (嗎 is 吗)
    assert topics("貓咪一般吃什麼嗎？") == ()


def test_a_traditional_chat_reaches_a_note_in_its_own_characters_through_the_cli(dream_chat_cli):
    chat = ("用戶：籃球賽前一天要吃什麼？\n"
            "助理：前一天多吃點米飯麵條，補充碳水，別吃太油。\n"
            "用戶：我們隊下個月有一場社區籃球賽\n"
            "助理：祝比賽順利！賽前記得好好休息。\n")
    root = dream_chat_cli("籃球賽", chat)
    personal = {p.name: p.read_text("utf-8") for p in sorted(root.glob("digest/personal/**/*.md"))}
    assert any("社區籃球賽" in name for name in personal), list(personal)
    assert any("我們隊下個月有一場社區籃球賽" in text for text in personal.values())
