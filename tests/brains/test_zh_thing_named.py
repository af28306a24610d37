"""What a Chinese sentence's note is named after, where jieba's parse cuts or tags the
thing otherwise than the grammar says (issue #30 items 1 and 6, docs/spec.md §5.2.8):

* the home's thing (家里的鹦鹉, 我家柯基) is the speaker's, the subject before the verb's
  object, as 我的鹦鹉 is;
* a one-character name tag and an adjective's character after home (家里柯/nr 基/a) are
  one thing, not a surname and a quality;
* after a classifier, what follows is the thing counted — an adjective and a noun the
  dictionary tags as a verb (个小/a 超市/v), a verb's and a morpheme's character
  (个跑/v 轮/zg);
* 那 opening a clause before 我 is "then", and 这趟 / 这次 "this time": no subject of their own;
* a unit of time (十个钟头) names no thing.

Every sentence here is written for this test.
"""

from __future__ import annotations

import pytest

from .conftest import digest_notes, zh_topics


@pytest.mark.parametrize("sentence, first", [
    ("家里的鹦鹉最近老是不吃瓜子", "鹦鹉"),
    ("家里柯基老是咬拖鞋", "柯基"),
    ("我家柯基三岁了", "柯基"),
    ("他爸在县城开了个小超市", "小超市"),
    ("好，那我明天就去买个跑轮", "跑轮"),
    ("好，这趟出差回去就买个颈枕", "颈枕"),  # 这趟: "this time", no subject of its own
    ("那趟去成都我买了个熊猫玩偶", "熊猫玩偶"),
])
def test_the_thing_a_sentence_is_about_comes_first(sentence, first):
    topics = zh_topics(sentence)
    assert topics[:1] == (first,), topics


def test_a_unit_of_time_names_no_thing():
    assert "钟头" not in zh_topics("我每天要站八个钟头")


def test_the_home_pet_names_the_note_through_the_cli(dream_chat_cli):
    chat = ("用户：家里的鹦鹉最近老是不吃瓜子，怎么回事？\n"
            "助手：可能是换季，也可能是瓜子放久了。它平时还吃别的吗？\n"
            "用户：只吃瓜子。那我明天就去买个跑轮给它玩\n")
    notes = digest_notes(dream_chat_cli("鹦鹉", chat))
    assert any(name.endswith("鹦鹉") and "家里的鹦鹉" in text for name, text in notes.items()), \
        sorted(notes)


@pytest.mark.parametrize("answer, landmark", [("在村口，离医院很近", "医院"),
                                               ("就在城东，离地铁站不远", "地铁站")])
def test_the_landmark_of_a_distance_names_no_thing(answer, landmark):
    # 离 X 近: X says where, it is nothing the speaker has or does (read as the user's
    # answer to a question about them, `own`)
    from reme_workbench.brains.offline_dream.zh_statements import read_chinese

    read = read_chinese(answer, frozenset(), own=True)
    assert read is None or landmark not in read.topics, read


@pytest.mark.parametrize("sentence", ["桂林最近晚上比较闷", "嘉兴这几天挺凉", "阿凯最近很忙"])
def test_what_someone_or_somewhere_is_like_is_no_news(sentence):
    # a name (or a place jieba tags as one: 桂林/nr) and a state after a degree adverb
    assert zh_topics(sentence) == ()


@pytest.mark.parametrize("sentence, first, also", [
    ("豆豆前天在猫爬架上睡了一整天", "豆豆", ""),  # a pet by its name, when, a verb done
    ("花卷昨晚在抓板上蹭了半天", "花卷", "抓板"),  # 在抓/v 板/ng 上: a thing between 在 and 上
])
def test_a_thing_that_did_something_when_is_the_speakers_news(sentence, first, also):
    topics = zh_topics(sentence)
    assert topics[:1] == (first,) and also in ("", *topics), topics


def test_the_weather_somewhere_is_no_news():
    assert zh_topics("上海昨天下了大雨") == ()


@pytest.mark.parametrize("sentence, first", [
    ("老公的小超市下个月要多进点货", "小超市"),  # the kin's thing, before what the verb takes
    ("我姐的小诊所下个月开业", "小诊所"),
    ("女儿考萧邦的夜曲", "夜曲"),  # X 的 Y: Y is the thing, X says whose or which
])
def test_the_head_of_a_phrase_with_de_is_the_thing(sentence, first):
    topics = zh_topics(sentence)
    assert topics[:1] == (first,), topics


@pytest.mark.parametrize("sentence, first", [
    ("我在成都一间牙科诊所当护士", "护士"),  # 当/t mid-clause before a noun: "work as"
])
def test_the_job_one_works_as_comes_before_the_workplace(sentence, first):
    topics = zh_topics(sentence)
    assert topics[:1] == (first,), topics
