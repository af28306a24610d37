"""Chinese, Japanese and Korean characters — the one definition — and Chinese words.

The blocks are written once, here (`HAN_RANGES`, `KANA_RANGES`, `HANGUL_RANGES`); every
rule of the package that asks "is this CJK?" reads one of three named variants of them,
because the rules mean three different things:

* `is_cjk(ch)` / `HAN_CHARS` — a Han ideograph (the unified block, extensions A and B
  onwards, the compatibility block): Chinese. What dream reads material by, and what
  `chinese_words` is worth calling on.
* `is_cjk_or_kana(ch)` / `CJK_OR_KANA_CHARS` — Han and kana. Consolidate compares notes
  by it (its statements' bigrams), and a text's language is read by it (`cjk_share`,
  `language_of`): a Japanese note is read by its characters too, and its prompts are
  closer to the Chinese ones than to the English.
* `CJK_CHARS` — Han, kana and hangul: the scripts written without spaces between words
  (or, for hangul, costing a subword tokenizer about a token a syllable). The token
  estimate (`vault/tokens.py`), the index's chunk scan and its keyword segmentation
  count by it: one token, one bigram piece a character.

The variants differ on kana (あ, カ: not `is_cjk`) and hangul (한: `CJK_CHARS` only);
tests/textrules/test_cjk.py shows the texts they part on.

* `cjk_share(text)` — the share of a text's letters that are CJK (`is_cjk_or_kana`);
  `language_of(text)` — "zh" from `CHINESE_SHARE` of them, else "en".
* `chinese_segmenter()` — jieba, the dictionary-based Chinese word segmenter, imported on
  first use (its dictionary takes a second to load) with its log quieted;
  `chinese_words(run)` the words it cuts a run of CJK characters into.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = [
    "HAN_RANGES", "KANA_RANGES", "HANGUL_RANGES", "HAN_CHARS", "CJK_OR_KANA_CHARS", "CJK_CHARS",
    "is_cjk", "is_cjk_or_kana", "cjk_share", "CHINESE_SHARE", "language_of",
    "chinese_segmenter", "chinese_words",
]

HAN_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FFFF))
KANA_RANGES = ((0x3040, 0x30FF),)  # hiragana and katakana
HANGUL_RANGES = ((0xAC00, 0xD7AF),)  # hangul syllables

# A text is Chinese when at least this share of its letters is CJK (`cjk_share`): the
# prompt language of "auto" (docs/spec.md §8), the offline brains' language of a text.
CHINESE_SHARE = 0.30


def _char_class(*blocks: tuple[tuple[int, int], ...]) -> str:
    """The ranges as the inside of a regex character class (`[...]`)."""
    return "".join(f"{chr(lo)}-{chr(hi)}" for ranges in blocks for lo, hi in ranges)


HAN_CHARS = _char_class(HAN_RANGES)
CJK_OR_KANA_CHARS = _char_class(HAN_RANGES, KANA_RANGES)
CJK_CHARS = _char_class(HAN_RANGES, KANA_RANGES, HANGUL_RANGES)

# One byte per code point below the last block's end: bit 1 Han, bit 2 kana, bit 4
# hangul (the blocks do not overlap). An index and a mask per character, as fast as a
# chain of comparisons, and read from the ranges above.
_HAN, _KANA, _HANGUL = 1, 2, 4


def _class_table() -> bytes:
    table = bytearray(max(hi for block in (HAN_RANGES, KANA_RANGES, HANGUL_RANGES)
                          for _, hi in block) + 1)
    for bit, block in ((_HAN, HAN_RANGES), (_KANA, KANA_RANGES), (_HANGUL, HANGUL_RANGES)):
        for lo, hi in block:
            table[lo:hi + 1] = bytes([bit]) * (hi - lo + 1)
    return bytes(table)


_TABLE = _class_table()
_END = len(_TABLE)


def is_cjk(ch: str) -> bool:
    """A Han ideograph (`HAN_RANGES`)."""
    o = ord(ch)
    return o < _END and _TABLE[o] & _HAN != 0


def is_cjk_or_kana(ch: str) -> bool:
    """A Han ideograph or kana (`HAN_RANGES`, `KANA_RANGES`)."""
    o = ord(ch)
    return o < _END and _TABLE[o] & (_HAN | _KANA) != 0


def cjk_share(text: str) -> float:
    """Share of the letters of `text` that are CJK (`is_cjk_or_kana`); 0.0 with no letters."""
    letters = cjk = 0
    for ch in text:
        if ch.isalpha():
            letters += 1
            cjk += is_cjk_or_kana(ch)
    return cjk / letters if letters else 0.0


def language_of(text: str) -> str:
    """ "zh" when at least `CHINESE_SHARE` of the letters of `text` are CJK, else "en"."""
    return "zh" if cjk_share(text) >= CHINESE_SHARE else "en"


@lru_cache(maxsize=1)
def chinese_segmenter():
    """The jieba module, imported once, on first use (only Chinese text needs it)."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


@lru_cache(maxsize=8192)
def chinese_words(run: str) -> tuple[str, ...]:
    """The words jieba cuts `run` into, whitespace left out."""
    return tuple(w for w in chinese_segmenter().cut(run) if w.strip())
