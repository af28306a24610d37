"""The token estimate every budget and threshold of reme-workbench counts with.

One estimator for all of them — the index's chunk sizes, dream's split trigger, the
split and hub limits of consolidate — so a note is "over 2,000 tokens" in the same way
everywhere (docs/spec.md §6.1.2, §7.8.1). It lives in the pure vault layer so that a
stored check (`vault/checks.py`) can count with it too.
"""

from __future__ import annotations

import re

# Han, kana and hangul: scripts written without spaces between words (or, for hangul,
# with a subword tokenizer cost of about one token per syllable). textrules is the ground
# floor under the vault core (docs/architecture.md), so the ranges are written once.
from ..textrules.cjk import CJK_CHARS

__all__ = ["estimate_tokens", "ascii_tokens", "content_tokens"]

# The token estimator (why not a real tokenizer: it must be free, and the bound is a
# budget, not an exact count). One token per CJK character, per run of other letters
# or digits, and per punctuation mark; plus one more for every 8 letters of a word,
# because WordPiece/BPE split long and rare words. That is about 1.3 tokens per
# English word — a slight over-estimate of MiniLM's WordPiece, so its 256-token window
# is not overrun. It is additive over whitespace: est(a + " " + b) == est(a) + est(b).
_TOKEN_RE = re.compile(rf"[{CJK_CHARS}]|[^\W_{CJK_CHARS}]+|[^\w\s]|_")
_LONG_RE = re.compile(rf"[^\W_{CJK_CHARS}]{{8}}")
_CJK_RUN_RE = re.compile(f"[{CJK_CHARS}]+")
# The same count for ASCII text at C speed (15x faster than findall): every byte is
# classed as letter/digit "a", space " " or other "."; tokens are then the "a" runs,
# the "." bytes and the "aaaaaaaa" blocks. A test checks both paths agree.
_ASCII_CLASS = bytes(
    ord("a") if re.fullmatch(r"[^\W_]", chr(b)) else ord(" ") if re.fullmatch(r"\s", chr(b))
    else ord(".")
    for b in range(128)
) + b"." * 128


def estimate_tokens(text: str) -> int:
    """A cheap upper-leaning estimate of subword tokens (see the comment above).

    Never more than len(text), and never smaller for a longer prefix of a text.
    """
    if text.isascii():
        return ascii_tokens(text)
    # CJK characters are one token each: count them per run (one regex match per run,
    # not per character), leaving a space in their place so the words around them stay
    # apart; what is left is often ASCII and takes the fast path.
    rest, runs = _CJK_RUN_RE.subn(" ", text)
    cjk = len(text) - len(rest) + runs
    if rest.isascii():
        return cjk + ascii_tokens(rest)
    return cjk + len(_TOKEN_RE.findall(rest)) + len(_LONG_RE.findall(rest))


def ascii_tokens(text: str) -> int:
    """`estimate_tokens` of an ASCII text, at C speed."""
    t = text.encode("ascii").translate(_ASCII_CLASS)
    runs = t.count(b" a") + t.count(b".a") + (t[:1] == b"a")
    return runs + t.count(b".") + t.count(b"aaaaaaaa")


# a line that only names sources: `derived_from:: [[a]] [[b]]`, perhaps as a list item
_PROVENANCE_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?derived_from::(?:[ \t]*!?\[\[[^\]\n]*\]\])+[ \t]*$",
                              re.M)


def content_tokens(body: str) -> int:
    """The estimate of a note body's reading: its lines that only name sources
    (`derived_from:: [[…]]`) do not count (docs/spec.md §4.9.1). A note is not long
    because many sessions back it, and a hub must carry every member's source: both
    the split trigger and the hub's budget count what a person reads."""
    return estimate_tokens(_PROVENANCE_LINE.sub("", body))
