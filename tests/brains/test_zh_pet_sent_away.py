"""A pet put with the speaker's people for a while, as a Chinese user texts it (issue #30
item 6, docs/spec.md §5.2.8): the thing first, then when, then the verb, the place being
the speaker's kin's (猫那几天放我姐家); 那几天 / 这两天 say when; a lowercase Latin word
opening the message is an interjection (ok, perfect); a pet's name jieba cuts in two at the
clause's start (奶/zg 盖/v) is one word before when; what 把 takes is what the verb takes.

Every sentence here is written for this test.
"""

from __future__ import annotations

import pytest

from .conftest import digest_notes, zh_topics


@pytest.mark.parametrize("sentence, first", [
    ("ok 猫那几天放我姐家", "猫"),
    ("狗那两天送去我爸家", "狗"),
    ("那几天把狗送去我妈家", "狗"),
    ("sure 奶盖这几天先放我姐家", "奶盖"),
])
def test_the_pet_sent_away_is_what_the_sentence_is_about(sentence, first):
    topics = zh_topics(sentence)
    assert topics[:1] == (first,), topics


def test_the_pet_sent_away_reaches_a_note_through_the_cli(dream_chat_cli):
    chat = ("Mia：下周去大阪 帮我列个行李清单\n"
            "Nova：好的：护照、转换插头、充电宝、常用药、雨伞。要不要我把景点也排一下？\n"
            "Mia：不用啦\n"
            "Mia：ok 狗那几天送去我爸家\n")
    notes = digest_notes(dream_chat_cli("大阪", chat))
    assert any(name.startswith("mia的") and "我爸家" in text for name, text in notes.items()), \
        sorted(notes)
