"""The one definition of CJK characters (textrules/cjk.py) and its three named variants:
which texts they part on, and that every layer reads the same ranges."""

from __future__ import annotations

import re

import pytest

from reme_workbench.index.keyword import query_terms, segment
from reme_workbench.llm.prompts import detect_language
from reme_workbench.textrules import cjk, tokens
from reme_workbench.textrules.cjk import (
    CJK_CHARS,
    CJK_OR_KANA_CHARS,
    HAN_CHARS,
    is_cjk,
    is_cjk_or_kana,
    language_of,
)
from reme_workbench.vault.tokens import estimate_tokens


def _in_class(chars: str, ch: str) -> bool:
    return re.fullmatch(f"[{chars}]", ch) is not None


# (text, Han: is_cjk, Han or kana: is_cjk_or_kana, spaceless scripts: CJK_CHARS)
VARIANTS = [
    ("中", True, True, True),  # unified ideograph
    ("㐀", True, True, True),  # extension A
    ("豈", True, True, True),  # compatibility ideograph
    ("𠮷", True, True, True),  # extension B (supplementary plane)
    ("ひ", False, True, True),  # hiragana: Japanese, read by its characters in comparisons
    ("カ", False, True, True),  # katakana
    ("한", False, False, True),  # hangul: a token a syllable, but no Chinese or Japanese
    ("a", False, False, False),
    ("é", False, False, False),
    ("。", False, False, False),  # CJK punctuation is no letter of a word
]


@pytest.mark.parametrize("ch,han,han_or_kana,spaceless", VARIANTS)
def test_the_variants_part_on_kana_and_hangul(ch, han, han_or_kana, spaceless):
    assert (is_cjk(ch), _in_class(HAN_CHARS, ch)) == (han, han)
    assert (is_cjk_or_kana(ch), _in_class(CJK_OR_KANA_CHARS, ch)) == (han_or_kana, han_or_kana)
    assert _in_class(CJK_CHARS, ch) == spaceless


def test_each_predicate_is_its_character_class_on_every_code_point():
    han, kana = re.compile(f"[{HAN_CHARS}]"), re.compile(f"[{CJK_OR_KANA_CHARS}]")
    differ = [hex(o) for o in range(0x31000)
              if is_cjk(chr(o)) != bool(han.fullmatch(chr(o)))
              or is_cjk_or_kana(chr(o)) != bool(kana.fullmatch(chr(o)))]
    assert differ == []


def test_the_blocks_do_not_overlap():
    # the class table gives each code point one block's bit
    ranges = sorted(cjk.HAN_RANGES + cjk.KANA_RANGES + cjk.HANGUL_RANGES)
    assert all(hi < lo for (_, hi), (lo, _) in zip(ranges, ranges[1:], strict=False))


def test_a_texts_language_counts_kana_not_hangul():
    assert language_of("用中文回复") == "zh"
    assert language_of("ひらがなとカタカナ") == "zh"  # Japanese reads closer to the zh prompts
    assert language_of("한국어 문장입니다") == "en"
    assert language_of("中文" + "a" * 8) == "en" and language_of("中文字" + "a" * 7) == "zh"
    assert language_of("123 !!") == "en"  # no letters
    assert detect_language is language_of  # the prompts' "auto" reads a text the same way


def test_an_ideograph_past_the_basic_plane_is_cjk_in_every_layer():
    # 𠮷 (U+20BB7, as in 𠮷野家) and 𡈽: the token estimate counted a run of them as one
    # word, the keyword index kept the run whole (a query for two of its characters
    # found nothing) and dream's tokens dropped them, because each layer kept its own
    # copy of the ranges and only the prompts' had the supplementary planes.
    run = "𠮷𡈽𠮷"
    assert estimate_tokens(run) == 3
    assert segment(run).split() == ["𠮷𡈽", "𡈽𠮷", "𠮷", "𡈽", "𠮷"]
    assert query_terms(f"{run}野家") == ["𠮷𡈽", "𡈽𠮷", "𠮷野", "野家"]
    assert tokens(run) == {"𠮷𡈽", "𡈽𠮷"}
