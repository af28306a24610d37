"""Words jieba's dictionary cuts badly are read whole from its own means (issue #30 items 1
and 5, docs/spec.md §5.2.8): a compound its new-word model (HMM) joins where the place in
the clause wants a noun (边/d 牧/n after 我家, 多/m 肉/n), or where the second character
is tagged as an adverb with nothing after it to modify (社/n 恐/d); a verb-object reading
of a dictionary noun only when its first two characters are no word of their own (打网球,
not 预产期: 预产 is one); a rare verb after a count cut into the noun it counts and the
verb (一只猫叫/v 团子: the cat, called 团子); a two-character adjective after a noun is
what is said of it, no part of its name (叶子发软). Never a list of the words.

Every sentence and chat here is written for this test.
"""

from __future__ import annotations

from tests.brains.conftest import zh_topics as topics


def test_an_adverb_tag_with_nothing_to_modify_ends_a_compound():
    assert topics("我有点社恐") == ("社恐",)
    assert topics("我是个社恐的人")[:1] == ("社恐",)


def test_a_compound_in_a_nouns_place_is_one_noun():
    assert topics("我家边牧一直咬沙发")[:1] == ("边牧",)
    assert topics("我养了一只边牧") == ("边牧",)
    assert topics("我的多肉叶子发软了")[:1] == ("多肉叶子",)
    assert "多人" not in topics("我们多人参加了比赛")  # "many people": no thing
    # an adverb before a verb stays an adverb (先/d 学/n: "learn first")
    assert topics("想先学《晴天》") == ("晴天",)


def test_a_dictionary_noun_is_no_verb_and_object_when_its_head_is_a_word():
    assert topics("预产期是八月") == ("预产期",)
    assert topics("打网球手腕疼") == ()  # 打 + 网球: the act, as before (context only)


def test_a_rare_verb_after_a_count_is_the_thing_counted_and_its_verb():
    assert topics("我养了一只猫叫团子") == ("猫", "团子")


def test_the_names_reach_the_notes_through_the_cli(dream_chat_cli):
    chat = ("用户：我有点社恐，公司年会不想去怎么办\n"
            "助手：可以先和熟悉的同事坐在一起。\n"
            "用户：我养了一只猫叫团子，最近不爱吃饭\n"
            "助手：可以换一种猫粮试试。\n"
            "用户：我的多肉叶子发软了\n"
            "助手：可能是浇水太多了。\n")
    root = dream_chat_cli("社恐", chat)
    names = sorted(p.stem for p in root.glob("digest/personal/**/*.md"))
    assert "用户的社恐" in names and "用户的猫" in names, names
    assert any(n.startswith("用户的多肉") for n in names), names
    assert not any(n in ("用户的社", "用户的猫叫团子") or n.startswith("用户的肉") for n in names), names


def test_a_dictionary_word_holding_an_aspect_particle_is_a_verb_and_its_particle():
    # jieba lists 开了个 as a noun: its form is 开 + 了 + 个, a verb done and a classifier
    assert topics("我在东莞开了个五金厂") == ("五金厂", "东莞")
