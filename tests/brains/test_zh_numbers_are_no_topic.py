"""A number alone is never a topic (issue #30 item 1, docs/spec.md §5.2.8): jieba tags a
run of ASCII digits in Chinese text as a Latin word ('eng'), and a Latin word with a digit
names a thing by its form (N2, iPhone15) — but "12月30号" is a date, and notes were named
`…的28` and `…的30` from one ("改到12月30号上午").

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import digest_notes
from tests.brains.conftest import zh_topics as topics


def test_digits_alone_are_no_thing_but_a_code_with_a_digit_is():
    assert not any(t.isdigit() for t in topics("家长会改到11月26号下午"))
    assert not any(t.isdigit() for t in topics("我们班运动会3月15号上午 操场 家长都来"))
    assert any("N2" in t for t in topics("我在准备N2考试"))  # a code with a letter still is


def test_a_moved_date_names_no_note_by_its_number_through_the_cli(dream_chat_cli):
    chat = ("晓雯：运动会3月15号上午 学校操场 我带的班有接力\n"
            "AI：好的，记下了。要我帮你列个准备清单吗？\n"
            "晓雯：不用了。运动会改时间了，操场要修，改到3月22号上午\n"
            "AI：好的，已经改成3月22号。\n")
    notes = digest_notes(dream_chat_cli("运动会", chat))
    assert notes, notes
    assert not any(name.rsplit("的", 1)[-1].isdigit() for name in notes), list(notes)


def test_digits_read_as_jieba_reads_chinese_numerals():
    """A count in digits before a classifier is a count (养了2只猫: the cats, as 养了两只猫),
    a date in digits a time, and full-width digits one number."""
    from reme_workbench.textrules.nlp import chinese_tagged

    assert topics("我养了2只猫") == topics("我养了两只猫") == ("猫",)
    assert ("12月30号", "t") in chinese_tagged("改到12月30号上午")
    assert ("２０２７年", "t") in chinese_tagged("２０２７年我要去日本")
    assert ("iPhone15", "eng") in chinese_tagged("我买了iPhone15")  # a name with a digit


def test_a_date_in_digits_with_news_is_kept_through_the_cli(dream_chat_cli):
    """"6月14号 抢到了" — the tickets got, on a date written in digits — is the speaker's news
    and stays in a note, as "六月十四号抢到了" would."""
    chat = ("阿宁：广州场的票没抢到\n"
            "阿宁：改抢深圳场了\n"
            "阿宁：7月5号 抢到了！！！\n"
            "AI：恭喜！深圳场也很好。\n")
    notes = digest_notes(dream_chat_cli("抢票", chat))
    assert any("7月5号" in text for text in notes.values()), notes
