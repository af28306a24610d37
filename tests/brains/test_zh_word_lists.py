"""The Chinese reading keeps a word in a hand list only where jieba's dictionary and tags
cannot decide the same (issue #30 item 1, docs/spec.md §5.2.8): these words were dropped
from the lists because jieba never gives them as a noun, or never as one word — the
test holds that claim, so a dictionary that changed would fail here, not in a note.
"""

from __future__ import annotations

from reme_workbench.textrules.nlp import chinese_tagged
from tests.brains.conftest import zh_topics as topics

_NOUNS = ("n", "nz", "ns", "nt", "nr", "vn", "nw", "ng", "nrt", "nrfg")



def test_units_pronouns_and_times_are_never_nouns_to_jieba():
    for word in "公斤 千米 厘米 公里 分钟 毫米 星期 这边 那边 这个 那个 什么 有些 早上好".split():
        (tagged,) = chinese_tagged(word)
        assert tagged[0] == word and tagged[1] not in _NOUNS, tagged


def test_phrases_jieba_does_not_list_are_never_one_word():
    for phrase in "晚上好 老是 还在 挺好 很好 靠谱 好主意 会不会 能不能 要不要 我妈 我爸 牠们".split():
        assert len(chinese_tagged(phrase)) > 1, chinese_tagged(phrase)


def test_the_readings_the_lists_gave_hold_on_jieba_alone():
    assert topics("我每天跑五公里") == ()
    assert topics("我这个星期天天加班") == ("加班",)
    assert topics("我家两只最近不爱吃东西") == ()  # a number with nothing named before
    assert topics("会不会是我的猫的问题？") == ("猫",)  # a question naming the speaker's thing
    assert set(topics("我妈下周来杭州")) == {"妈", "杭州"}
    assert topics("学车这个挺好") == ("学车",)
