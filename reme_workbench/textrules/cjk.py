"""Chinese, Japanese and Korean characters, and Chinese words.

* `is_cjk(ch)` — a CJK ideograph: the unified block, extension A and the compatibility
  block. What dream reads material by.
* `is_cjk_or_kana(ch)` — those, the ideographs of the supplementary planes, and kana.
  Consolidate compares notes by it (its statements' bigrams, a text's CJK share), so a
  Japanese note is compared by its characters too; dream's `is_cjk` leaves kana out.
* `cjk_share(text)` — the share of a text's letters that are CJK (`is_cjk_or_kana`).
* `chinese_segmenter()` — jieba, the dictionary-based Chinese word segmenter, imported on
  first use (its dictionary takes a second to load) with its log quieted;
  `chinese_words(run)` the words it cuts a run of CJK characters into.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["is_cjk", "is_cjk_or_kana", "cjk_share", "chinese_segmenter", "chinese_words"]


def is_cjk(ch: str) -> bool:
    """A CJK ideograph (the unified block, extension A and the compatibility block)."""
    o = ord(ch)
    return 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF


def is_cjk_or_kana(ch: str) -> bool:
    """`is_cjk`, the supplementary planes' ideographs (U+20000–U+2FFFF) and kana."""
    o = ord(ch)
    return is_cjk(ch) or 0x3040 <= o <= 0x30FF or 0x20000 <= o <= 0x2FFFF


def cjk_share(text: str) -> float:
    """Share of the letters of `text` that are CJK (llm/prompts.py detect_language's measure)."""
    letters = cjk = 0
    for ch in text:
        if ch.isalpha():
            letters += 1
            cjk += is_cjk_or_kana(ch)
    return cjk / letters if letters else 0.0


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
