"""One stopword list per language (textrules/words.py) and the lists derived from it,
each named for its reader; as the keyword search, consolidate and dream meet them."""

from __future__ import annotations

from reme_workbench.consolidate.abstract import name_tokens
from reme_workbench.consolidate.candidates import body_topic_words
from reme_workbench.index import keyword
from reme_workbench.index.keyword import query_terms
from reme_workbench.textrules import content_words, tokens, words
from reme_workbench.textrules.words import (
    CHINESE_STOPWORDS,
    COMPARISON_STOPWORDS,
    ENGLISH_FUNCTION_WORDS,
    ENGLISH_STOPWORDS,
    ENGLISH_VAGUE_WORDS,
    KEPT_IN_COMPARISON,
    KEPT_IN_DREAM,
    NOTE_FORMAT_WORDS,
    SEARCH_STOPWORDS,
    STOPWORDS,
    TOPIC_STOPWORDS,
)


def test_every_english_list_is_derived_from_the_one_list():
    assert ENGLISH_STOPWORDS == ENGLISH_FUNCTION_WORDS | ENGLISH_VAGUE_WORDS
    assert not ENGLISH_FUNCTION_WORDS & ENGLISH_VAGUE_WORDS  # each word written once
    assert KEPT_IN_DREAM <= ENGLISH_FUNCTION_WORDS and STOPWORDS == ENGLISH_STOPWORDS - KEPT_IN_DREAM
    assert SEARCH_STOPWORDS == ENGLISH_FUNCTION_WORDS
    assert KEPT_IN_COMPARISON <= ENGLISH_STOPWORDS  # a kept word is one the list has
    assert COMPARISON_STOPWORDS == ENGLISH_STOPWORDS - KEPT_IN_COMPARISON
    assert TOPIC_STOPWORDS == ENGLISH_STOPWORDS | NOTE_FORMAT_WORDS
    assert keyword.STOPWORDS is SEARCH_STOPWORDS  # the index keeps no list of its own


def test_a_question_still_searches_the_vague_words_it_asks_about():
    assert query_terms("What did she do last week?", drop_stopwords=True) == ["last", "week"]


def test_a_comparison_keeps_what_changes_a_fact():
    assert {"not", "befor", "two"} <= content_words("Do not deploy before two reviews.")
    assert {"没有"} <= content_words("周五没有发布")  # a negation is no Chinese stopword here
    dreamt = tokens("She said it sits between the racks")
    assert not {"said", "the"} & dreamt and "between" in dreamt  # dream: KEPT_IN_DREAM


def test_topic_words_leave_out_the_vague_words_and_chinese_function_words():
    body = "Yesterday she said the deploy went well, as always. 我们已经没有部署支付接口\n"
    found = body_topic_words(body)
    assert {"deploy", "部署", "支付", "接口"} <= found
    assert not {"yesterday", "said", "went", "well", "always", "我们", "已经", "没有"} & found
    assert {"我们", "已经", "没有"} <= CHINESE_STOPWORDS


def test_a_name_drops_the_one_list_of_chinese_function_characters():
    # consolidate/abstract.py kept its own seven characters; the list has 之 and 或 too
    assert name_tokens("用户之偏好") == name_tokens("用户的偏好") == name_tokens("用户偏好")
    assert name_tokens("部署或回滚") == name_tokens("部署回滚")
    assert {"之", "或", "的"} <= words.CJK_FUNCTION_CHARS
