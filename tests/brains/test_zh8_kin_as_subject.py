"""The speaker's kin as a clause's subject is a person, not the first half of a name
(issue #30 item 6, docs/spec.md §5.2.8): jieba tags 住院 and 话 as nouns and holds 爸腰 as
one word, so 我妈住院了 was named 妈住院, 我爸腰不好 爸腰, 我老婆話… 老婆話. A kin word ends
a noun run, and, after 我 with no 的 after it, leads the clause's topics as 我的猫 does.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_a_kin_word_ends_the_noun_run_and_leads():
    assert topics("我妈住院了")[:1] == ("妈",)
    assert "妈住院" not in topics("我妈住院了 下周三做心脏支架手术")
    assert topics("嗯嗯 我爸腰不好")[:1] == ("爸",)
    assert topics("我老婆話好近")[:1] == ("老婆",)


def test_what_de_says_is_the_kins_stays_the_thing():
    assert topics("我姐的小诊所下个月开业")[:1] == ("小诊所",)


def test_a_mothers_hospital_stay_is_named_on_her_through_the_cli(dream_chat_cli):
    chat = ("用户：我妈住院了 下周三做心脏支架手术\n"
            "AI：希望手术顺利。术前需要家属签字，记得提前请假。\n")
    notes = digest_notes(dream_chat_cli("手术", chat))
    assert not any("妈住院" in name for name in notes), list(notes)
    assert any(name.endswith("的妈") for name in notes), list(notes)
