"""Names jieba cuts, and news of them with a time (issue #30 item 6, docs/spec.md §5.2.8),
read from jieba's parse, never from a phrase of the material:

* a Han character the dictionary does not know (tagged x) right after a one-character
  name or noun ends that name (麻/nr 糬/x → 麻糬, a pet's name);
* someone of the speaker's life as the subject of a clause that says when (小林明天去…, 糰子
  明天带去打针) is the speaker's news, as one done (了) is.

Every sentence here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_a_character_the_dictionary_lacks_ends_the_name_before_it():
    assert topics("家里的狗麻糬最近掉毛") == ("狗麻糬",)


def test_news_of_someone_with_a_time_is_the_speakers():
    assert topics("麻糬明天帶去打針") == ("麻糬",)
    assert "北京" in topics("小林下周去北京出差")
    # what another says is no news of them
    assert topics("小林明天说要来") == ()
