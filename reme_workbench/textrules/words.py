"""The text rules both offline brains share: sentences, content tokens and their overlap,
a crude English stem, CJK characters and bigrams.

One module, so the dream and consolidate brains cut sentences and count words the same
way. `is_cjk` and `plain` (a line without inline Markdown) belong to reading material and
live in `dream/markdown.py`; they are re-exported here.
"""

from __future__ import annotations

import re

from ..dream.markdown import is_cjk, plain

__all__ = ["split_sentences", "tokens", "overlap", "stem", "STOPWORDS", "is_cjk", "plain"]


# --- sentences --------------------------------------------------------------------------

_ABBREV = {"e.g", "i.e", "vs", "etc", "approx", "no", "fig", "mr", "mrs", "ms", "dr", "st", "cf"}
_CJK_END = set("。！？；!?")
_CLOSERS = set("\"'”’」』）)*_`")
_OPEN_QUOTES = {"“": "”", "「": "」", "『": "』", '"': '"'}


def split_sentences(text: str) -> list[str]:
    """Sentences of one block; code spans and quotations are never cut."""
    out: list[str] = []
    start, i, n = 0, 0, len(text)
    closer: str | None = None
    while i < n:
        ch = text[i]
        if ch == "`":
            j = text.find("`", i + 1)
            i = j + 1 if j > 0 else i + 1
            continue
        if closer is None and ch in _OPEN_QUOTES:
            end = text.find(_OPEN_QUOTES[ch], i + 1)
            if 0 < end - i <= 400:  # a stray quote mark must not swallow the block
                closer = _OPEN_QUOTES[ch]
                i += 1
                continue
        elif closer is not None and ch == closer:
            closer = None
            j = i + 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            before = text[i - 1] if i else ""
            if before in "。！？；" or (before in ".!?" and _english_end(text, i, j)):
                out.append(text[start:j])  # 'she said "No." Then' ends at the quote
                start = j
            i = j
            continue
        if ch == "\n":
            out.append(text[start:i])
            start = i + 1
        elif closer is None and (ch in _CJK_END or ch in ".!?"):
            j = i + 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            if ch in _CJK_END and (ch not in "!?" or (i and is_cjk(text[i - 1]))):
                out.append(text[start:j])
                start, i = j, j
                continue
            if ch in ".!?" and _english_end(text, i, j):
                out.append(text[start:j])
                start, i = j, j
                continue
        i += 1
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def _english_end(text: str, i: int, j: int) -> bool:
    if j < len(text) and not text[j].isspace():
        return False  # "v2.14.0", "example.com"
    k = j
    while k < len(text) and text[k] in " \t":
        k += 1
    if k < len(text) and not (
        text[k].isupper() or text[k].isdigit() or text[k] in '"“`*([' or is_cjk(text[k])
    ):
        return False
    word = re.search(r"([A-Za-z.]+)$", text[:i])
    if text[i] == "." and word and text[i - 1] == word.group(1)[-1]:
        w = word.group(1).lower()
        if w in _ABBREV or (len(w) == 1 and w.isalpha() and text[i - 1].isupper()):
            return False
    return True


# --- tokens and similarity ----------------------------------------------------------------

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
# CJK function characters dropped before bigrams, so 用中文回我 ~ 用中文回复 share bigrams.
_CJK_STOP = set("的了是在我你她他它们就都也和与及把被很再又还这那个吧呢吗啊呀哦嗯着过给让")


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
            if ch not in _CJK_STOP:
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
