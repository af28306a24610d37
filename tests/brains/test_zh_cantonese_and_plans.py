"""Cantonese in characters, and a plan with its subject left out after a verb jieba cut
(issue #30 item 6, docs/spec.md §5.2.8).

jieba's dictionary is Mandarin: Cantonese function words (佢 "he/she/it", 咗, 冇) come back
tagged "unknown", so 佢叫布甸 read as no statement at all. Those words are tagged again by
PyCantonese's trained tagger (textrules/nlp.py). And 退休想去大理 — a plan with the
speaker left out — opened on a verb (退休) and was read as no one's.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from reme_workbench.textrules.nlp import chinese_tagged
from tests.brains.conftest import zh_topics as topics


def test_cantonese_function_words_jieba_cannot_tag_get_pycantonese_parts_of_speech():
    tagged = dict(chinese_tagged("佢哋去咗西貢"))
    assert tagged["佢"] == "r"  # a pronoun, where jieba alone says "x" (unknown)
    assert tagged["去"] == "v"  # a word jieba tags keeps jieba's tag
    # 冇 jieba tags a bare morpheme: tagged again in a clause jieba could not read whole
    assert dict(chinese_tagged("佢冇車"))["冇"] == "v"
    # Mandarin text is tagged by jieba alone
    assert chinese_tagged("我养了一只猫") == [("我", "r"), ("养", "v"), ("了", "ul"),
                                            ("一只", "m"), ("猫", "n")]


def test_a_cantonese_pronoun_naming_the_pet_before_it_is_the_speakers():
    assert topics("佢叫布甸，三歲", earlier="我養咗隻兔仔") == ("兔仔", "布甸")
    # no pet named before: the name alone, still the speaker's
    assert "布甸" in topics("佢叫布甸，三歲", earlier="我養咗隻兔仔")


def test_a_plan_with_the_speaker_left_out_after_a_verb_is_the_speakers():
    assert topics("退休想去大理") == ("大理",)
    assert topics("跨年想去厦门") == ("厦门",)
    # someone else's plan, or a remark on the weather, is no fact of the speaker's
    assert topics("听说他想去北京") == ()
    assert topics("下雨想回家") == ()


def test_a_cantonese_chat_reaches_a_note_on_the_named_pet_through_the_cli(dream_chat_cli):
    chat = ("阿欣：隻兔仔成日唔食嘢，係咪病咗？\n"
            "AI：兔仔唔食嘢要留意，可能係牙齒太長。佢幾大？\n"
            "阿欣：佢叫布甸，三歲，好怕凍\n"
            "AI：三歲嘅兔仔要定期睇牙，天氣凍就要保暖。\n")
    root = dream_chat_cli("兔仔唔食嘢", chat)
    personal = {p.stem: p.read_text("utf-8") for p in root.glob("digest/personal/**/*.md")}
    # the rabbit's note (named on 兔仔, what 佢 stands for) keeps what its name is
    assert any("兔仔" in name and "佢叫布甸，三歲" in text for name, text in personal.items()), personal


def test_a_plan_left_without_its_subject_reaches_a_note_through_the_cli(dream_chat_cli):
    chat = ("老周：退休想去大理住半年\n"
            "助手：大理冬天晴天多，可以先租三个月试试。\n"
            "老周：好的\n")
    root = dream_chat_cli("退休计划", chat)
    personal = {p.stem: p.read_text("utf-8") for p in root.glob("digest/personal/**/*.md")}
    assert any("大理" in name for name in personal), list(personal)


def test_the_speaker_as_subject_again_after_a_clause_on_it_is_a_fact_apart():
    # 佢 is the rabbit; 我做護士 is the speaker's job, not more about the rabbit
    groups = read_groups("我成日唔記得俾佢換水，我做護士，成日返夜更", earlier="我養咗隻兔仔")
    assert [g[0] for g in groups] == ["兔仔", "護士"], groups


def read_groups(sentence: str, earlier: str = "") -> tuple[tuple[str, ...], ...]:
    from reme_workbench.brains.offline_dream.zh_statements import read_chinese

    read = read_chinese(sentence, frozenset(), earlier=earlier)
    return read.groups if read else ()


def test_a_thing_moved_whose_new_date_the_next_clause_gives_is_the_speakers():
    assert topics("婚礼推迟了，改到十月三号") == ("婚礼",)
    assert topics("钢琴考级推迟了，琴行通知改到三月") == ("钢琴考级",)
    # a change with no date after it is no dated thing
    assert topics("电脑坏了，明天修") == ()


def test_a_moved_event_reaches_a_note_through_the_cli(dream_chat_cli):
    chat = ("用户：钢琴考级推迟了，琴行通知改到三月十五号\n"
            "助手：多了三个月，可以把两首曲子再磨一磨。\n")
    root = dream_chat_cli("考级推迟", chat)
    personal = {p.stem: p.read_text("utf-8") for p in root.glob("digest/personal/**/*.md")}
    assert any("钢琴考级" in name and "三月十五号" in text for name, text in personal.items()), personal


def test_what_the_speaker_is_one_who_does_is_their_job():
    assert topics("我是修车的，周末也上班") == ("修车",)
    assert topics("我是摆摊的，下午出摊")[0] == "摆摊"
    # a noun after 是 is read as before; 我是说… closes on no 的
    assert topics("我是老师") == ("老师",)
    assert topics("我是说明天") == ()


def test_a_job_said_as_one_who_does_names_the_note_through_the_cli(dream_chat_cli):
    chat = ("用户：我是修车的，周末也上班，孩子的家长会总去不了\n"
            "助手：可以提前跟班主任约个电话沟通。\n")
    root = dream_chat_cli("家长会", chat)
    names = [p.stem for p in root.glob("digest/personal/**/*.md")]
    assert any("修车" in name for name in names), names


def test_a_counted_quality_closed_by_de_names_no_thing():
    assert topics("我买了个便宜的") == ()
    assert topics("我买了条红围巾") == ("红围巾",)  # an adjective before its noun is part of it
    # 它 is the parrot the turn went on to name, not 好笑 ("a funny thing")
    assert topics("我打算教它唱歌", earlier="跟你讲个好笑的，我家鹦鹉会吹口哨了") == ("鹦鹉", "唱歌")
