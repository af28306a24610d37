"""A Cantonese grammar word jieba's Mandarin dictionary lacks and cuts into characters it
reads as things (issue #30 item 6, docs/spec.md §5.2.8): 成日 "all the time" came back
成/n 日/m, so 我老公成日加班 was named 老公成 and 加班 (a verb), and 龍貓成日甩毛 made
the chinchilla 龍貓成. PyCantonese's segmenter reads such a run as one word; where it is
a grammar word (an adverb, a pronoun, …) it takes its tag (textrules/nlp.py).

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.textrules.nlp import chinese_tagged
from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_a_cantonese_adverb_jieba_cuts_into_things_is_one_adverb():
    tagged = chinese_tagged("我老公成日加班")
    assert ("成日", "d") in tagged, tagged
    assert ("老公", "nr") in tagged  # jieba's own words and tags stand
    # Mandarin is left as jieba cut it, where PyCantonese reads a noun (颈/ng 枕/n) or
    # joins words jieba reads as verbs and adverbs (就买个颈枕: one "adverb" to it)
    import jieba.posseg as posseg

    for text in ("这趟出差回去就买个颈枕", "我家边牧一直咬沙发"):
        assert chinese_tagged(text) == [(p.word, p.flag) for p in posseg.lcut(text, HMM=False)]
    assert chinese_tagged("我养了一只猫") == [("我", "r"), ("养", "v"), ("了", "ul"),
                                            ("一只", "m"), ("猫", "n")]


def test_the_thing_before_a_cantonese_adverb_is_named_whole():
    assert topics("不過我老公成日加班") == ("老公",)
    assert topics("我隻倉鼠成日咬籠")[:1] == ("倉鼠",)


def test_a_cantonese_chat_names_the_husband_not_a_verb_through_the_cli(dream_chat_cli):
    chat = ("阿玲：我喺銅鑼灣做髮型師，做咗五年\n"
            "AI：五年經驗好紮實，最近生意好唔好？\n"
            "阿玲：幾好，不過我老公成日加班\n")
    notes = digest_notes(dream_chat_cli("髮型師", chat))
    assert not any(name.endswith(("加班", "老公成")) for name in notes), list(notes)
    assert any(name.endswith("老公") for name in notes), list(notes)
