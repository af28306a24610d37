"""Words: stopwords, a crude English stem, content tokens and content words.

* `stem(word)` — plural and tense endings off, so "merges", "merged", "merging" and
  "merge" meet (both offline brains, and merge's topic words).
* `STOPWORDS` and `tokens(text)` — material's content tokens as dream counts them:
  stemmed Latin words, numbers of three or more digits, CJK character bigrams; dates,
  small numbers and markup dropped. `overlap(a, b)` is their overlap coefficient.
* `COMPARISON_STOPWORDS`, `word_spans(text)` and `content_words(text)` — a note's words as
  consolidate compares and names them: a trimmed copy of `STOPWORDS` that keeps what
  changes a fact ("not", "only", "first", "before", every number), Chinese cut into
  jieba's words. A variant of `STOPWORDS`, because a statement that drops "not" is
  another statement.
* `CJK_FUNCTION_CHARS` — Chinese function characters ("的", "了", "是") dropped before
  bigrams and words, so 用中文回我 ~ 用中文回复 share theirs.
* `GENERIC_HEADING` — headings that name no topic of their own ("Overview", "Steps",
  "注意事项"): neither a hub's nor a split child's name.
"""

from __future__ import annotations

import re

from .cjk import chinese_words, is_cjk, is_cjk_or_kana
from .markup import plain, reader_text

__all__ = [
    "stem", "STOPWORDS", "tokens", "overlap", "COMPARISON_STOPWORDS", "CJK_FUNCTION_CHARS",
    "word_spans", "content_words", "GENERIC_HEADING",
]


def stem(word: str) -> str:
    # Crude on purpose: "merges", "merged", "merging" and "merge" must meet.
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"  # summaries -> summary
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


CJK_FUNCTION_CHARS = frozenset("的了是在我你她他它们就都也和与及把被很再又还这那个吧呢吗啊呀哦嗯着过给让")

# --- material's tokens --------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:[-_'][a-z0-9]+)*")
_PREFIXED = re.compile(r"^(non|auto|re|pre|un|multi|sub|self|anti|co)-([a-z]{3,})$")
_DATE_LIKE = re.compile(r"^(\d{1,2}|\d{1,4}(-\d{1,2}){1,2})$")

STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under
    about as is are was were be been being am do does did done doing have has had having it its
    it's this that these those there here i me my we our you your he him his she her they them
    their what which who whom whose when where why how all any each every both few more most
    other some such no nor not only own same so than too very can will just should would could
    may might must shall also still yet again once one two three up down out off now today
    yesterday tomorrow s t don didn doesn isn wasn aren won wouldn let lets get got gets make made
    via per like use used using uses said says say ask asked asks told tell want wants go went
    going gone come came take took put see saw seen time times day days week weeks first last
    next new old back before after while because since until unless though although whether
    thing things way lot much many bit just really even ever already including
    instead rather well ok okay yes restated repeated plus vs""".split()
)


def tokens(text: str, *, split: bool = False) -> frozenset[str]:
    """Content tokens: stemmed Latin words, numbers of three or more digits, CJK character
    bigrams; stopwords, dates and markup dropped. A hyphenated identifier is one token
    ("non-hotfix" also gives "hotfix"); `split=True` cuts every one into its words, so
    text can be compared with file-name slugs."""
    text = plain(text).lower()
    out: set[str] = set()
    for word in _WORD.findall(text):
        word = word.replace("'", "")
        parts = [word]
        m = _PREFIXED.match(word)
        if split and ("-" in word or "_" in word):  # to meet a slug: payments-api-listens
            parts = re.split(r"[-_]", word)
        elif m:  # "non-hotfix" also says "hotfix"; "payments-api" stays one identifier
            parts.append(m.group(2))
        for part in parts:
            if part in STOPWORDS or len(part) < 2 or _DATE_LIKE.match(part):
                continue  # dates and small numbers say when, not what
            out.add(part if part.isdigit() or "-" in part or "_" in part else stem(part))
    run: list[str] = []
    for ch in text + " ":
        if is_cjk(ch):
            if ch not in CJK_FUNCTION_CHARS:
                run.append(ch)
            continue
        if len(run) == 1:
            out.add(run[0])
        out.update(run[k] + run[k + 1] for k in range(len(run) - 1))
        run = []
    return frozenset(out)


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap coefficient |a∩b| / min(|a|, |b|): 1.0 when one set contains the other."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


# --- a note's words, as consolidate compares and names them ------------------------------

COMPARISON_STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under
    about as is are was were be been being am do does did done doing have has had having it its
    this that these those there here i me my we our you your he him his she her they them their
    what which who whom whose when where why how all any each both few more most other some such
    so than too very can will just should would could may might must shall also still yet again
    once up down out off now via per like use used using uses get gets got make made see thing
    things way lot much many bit really even ever already well ok okay yes plus""".split()
)


def word_spans(text: str) -> list[tuple[str, str]]:
    """The words of `text` in order, each as (surface form, content word or "" for a
    stopword): Latin words cut at anything but letters, digits, `+` and `#` (so a slug
    `pgbouncer-1-22` is the words pgbouncer, 1, 22), CJK runs cut by jieba."""
    out: list[tuple[str, str]] = []
    for m in re.finditer(r"[A-Za-z0-9]+[+#]*|[^\x00-\x7f]+", text):
        piece = m.group(0)
        if piece.isascii():
            low = piece.lower()
            stop = low in COMPARISON_STOPWORDS or (len(low) < 2 and not low.isdigit())
            out.append((piece, "" if stop else stem(low)))
            continue
        for run in re.findall(r"[^\W\d_]+", piece):
            if not any(is_cjk_or_kana(c) for c in run):
                continue  # other scripts' punctuation and marks
            for w in chinese_words(run):
                keep = len(w) >= 2 and not all(c in CJK_FUNCTION_CHARS for c in w)
                out.append((w, w if keep else ""))
    return out


def content_words(text: str) -> frozenset[str]:
    """Content words of `text` (links as their visible text): stemmed Latin words without
    stopwords, jieba's Chinese words of two or more characters."""
    return frozenset(c for _, c in word_spans(reader_text(text)) if c)


# Headings that name no topic of their own (dream's GENERIC_SECTION, trimmed).
GENERIC_HEADING = re.compile(
    r"^(overview|introduction|intro|about|summary|background|context|details|notes?|examples?|"
    r"usage|tips?|faq|limitations?|troubleshooting|caveats?|see also|related|references?|more|"
    r"misc(ellaneous)?|other|general|basics|steps|when|watch out|how it works|next steps|"
    r"概述|简介|介绍|概览|示例|例子|用法|注意事项|注意|提示|限制|常见问题|参见|相关|其他|更多|基础|步骤)$",
    re.I,
)
