"""Does a sentence stand on its own, and what does it negate or restrict?

A name or a description is read away from its material — in a list of notes, a search
result, a link's hover — so it must keep what its source negates or restricts and must
not lean on a sentence it was cut from (docs/spec.md §5.3.5–§5.3.7). Grammar comes from
the trained pipelines (`textrules.nlp`): spaCy's parse for English, jieba's parts of
speech for Chinese. The word sets below are closed classes of grammar (negators,
connectives, pronouns), not phrases of any material.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ...textrules import HAN_CHARS, is_cjk
from ...textrules.nlp import chinese_tagged, english_doc, english_docs

__all__ = ["parse_ahead", "qualifiers", "leans_back", "carries_on", "points_outside", "is_fragment",
           "names_a_time", "needs_topic", "references", "Reference"]

_EN_NOT = re.compile(r"\b(?:not|never|no|none|nothing|nobody|nowhere|neither|nor|without|"
                     r"cannot|unsupported)\b|n't\b|n’t\b", re.I)
_EN_ONLY = re.compile(r"(?<![\w-])(?:only|solely)\b", re.I)  # not "read-only"
_EN_UNLESS = re.compile(r"\b(?:unless|except)\b", re.I)
# Chinese negators and restrictors; a verb or adverb that opens with 不/没 negates too
# ("不到" in 拿不到, "不再"), an adjective does not ("不同").
_ZH_NOT = frozenset("不 别 没 没有 无 非 未 勿 莫 不要 不能 不会 不再 不用 不必 不得 不可 不许 不准 "
                    "不是 无法 无需 无须 从不 从未 绝不 切勿 禁止 别再 并非 并不".split())
_ZH_ONLY = frozenset("只 只有 只能 只需 只需要 只允许 只在 仅 仅仅 仅限 仅在 唯有".split())
_ZH_UNLESS = frozenset("除非 除了".split())

# English connectives that carry a sentence on from the one before ("Also, …", "Either
# way …"): a closed class, spaCy tags them ADV/CCONJ with every other adverb.
_CONNECTIVES = frozenset("""also too either neither nor instead otherwise however then still
    besides moreover furthermore likewise similarly again anyway plus so thus therefore hence
    but and or yet""".split())
_DEMONSTRATIVES = frozenset("this that these those".split())
_BACK_PRONOUNS = frozenset("it its they them he she him her either neither both".split())
_PERSONS = frozenset("he she they him her them".split())  # a new statement about someone
# "the same order", "the above steps": modifiers that only point elsewhere
_POINTING = frozenset("above previous aforementioned latter former".split())
# what `references` parses for: "the" before a participle or a pointing word
_REFERRING = re.compile(r"\bthe\s+(?:\w+ed|above|previous|aforementioned|latter|former)\b", re.I)
_DATE_LABELS = frozenset(("DATE", "TIME"))
_NUMBER_LABELS = frozenset(("CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"))

# Chinese: a sentence that opens with a coordinating connective, an additive adverb or a
# pronoun pointing back (这, 那, 它, 他, 她, 其, 此, 该) continues another.
_ZH_CONNECTIVES = frozenset("但 但是 可是 不过 而 而且 并且 所以 因此 于是 然后 那么 另外 此外 或者 "
                            "同时 否则 不然 况且".split())
_ZH_ADDITIVE = frozenset("也 还 又 再 亦 同样 也要 也不".split())
_ZH_POINTING = "这那它他她其此该"
_ZH_PRONOUNS = frozenset("它 他 她 它们 他们 她们 其 其中 此".split())
_ZH_COPULAS = frozenset("是 会 要 有 能 就 也 还 都".split())


def _has_cjk(text: str) -> bool:
    return any(is_cjk(ch) for ch in text)


@lru_cache(maxsize=8192)
def _tagged(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(chinese_tagged(text))


def parse_ahead(texts: list[str]) -> None:
    """Parse the English ones of `texts` in one batch (spaCy's `pipe` is several times
    faster on a batch than one text at a time); the checks below then find them parsed."""
    latin = [t for t in dict.fromkeys(texts) if t and not _has_cjk(t[:4])]
    if len(latin) > 1:
        english_docs(latin)


@lru_cache(maxsize=8192)
def qualifiers(text: str) -> frozenset[str]:
    """The negations and restrictions `text` states, by kind ("not", "only", "unless"),
    each kind once per time it occurs: the second is "not2", and so on — "Never run
    prune without --dry-run" states {"not", "not2"}, and a name that keeps only "never"
    says the opposite. A name keeps its source's when `qualifiers(source) <=
    qualifiers(name)`."""
    counts = {"not": 0, "only": 0, "unless": 0}
    latin = re.sub(f"[{HAN_CHARS}]+", " ", text)
    counts["not"] += len(_EN_NOT.findall(latin))
    counts["only"] += len(_EN_ONLY.findall(latin))
    counts["unless"] += len(_EN_UNLESS.findall(latin))
    if _has_cjk(text):
        for word, tag in _tagged(text):
            if word in _ZH_NOT or (word[:1] in "不没" and len(word) <= 3 and tag[:1] in "vd"):
                counts["not"] += 1
            elif len(word) >= 3 and "不" in word[1:-1] and tag.startswith("v"):
                counts["not"] += 1  # 拿不到, 打不开: a verb's negated complement
            if word in _ZH_ONLY:
                counts["only"] += 1
            if word in _ZH_UNLESS:
                counts["unless"] += 1
    return frozenset(kind if n == 1 else f"{kind}{n}"
                     for kind, count in counts.items() for n in range(1, count + 1))


def _first_sentence(doc):
    return next(iter(doc.sents), doc[:])


def _words(span) -> list:
    return [t for t in span if not (t.is_punct or t.is_space)]


def _finite(span) -> bool:
    """The main clause has a finite verb: the root, or an auxiliary of it ("No code change,
    as long as the app doesn't …" has one only in the clause it subordinates)."""
    root = span.root
    clauses = [root, *(c for c in root.children if c.dep_ in ("ccomp", "conj", "parataxis"))]
    verbs = [*clauses, *(a for c in clauses for a in c.children if a.dep_ in ("aux", "auxpass"))]
    return any(t.pos_ in ("VERB", "AUX") and "Fin" in t.morph.get("VerbForm") for t in verbs)


def _imperative(span) -> bool:
    root = span.root
    if root.tag_ != "VB" or any(c.dep_ in ("nsubj", "nsubjpass", "aux") for c in root.children):
        return False
    return all(t.dep_ in ("neg", "advmod", "aux", "punct") or t.pos_ == "PART"
               for t in span if t.i < root.i)  # "Never run …", "Do not use …"


@lru_cache(maxsize=8192)
def is_fragment(sentence: str) -> bool:
    """No finite verb and no imperative in its main clause: "No exceptions.", "Staging
    Monday the 19th", "No code change, as long as the app doesn't use SET"."""
    if _has_cjk(sentence):
        return not any(tag.startswith("v") for _, tag in _tagged(sentence))
    span = _first_sentence(english_doc(sentence))
    root = span.root
    command = root.tag_ == "VB" and not any(  # "…; use the corrected order"
        c.dep_ in ("nsubj", "nsubjpass", "aux", "mark") for c in root.children) and not (
        root.i > 0 and root.doc[root.i - 1].lower_ == "to")
    return bool(_words(span)) and not _finite(span) and not _imperative(span) and not command


@lru_cache(maxsize=8192)
def names_a_time(text: str) -> bool:
    """A phrase without a finite verb whose words are mostly a date or a time, not the
    thing the date is for: "Staging Monday the 19th, 10:00"."""
    if _has_cjk(text) or not re.search(r"\d", text) or not is_fragment(text):
        return False  # a date a log gives has a number (the 19th, 10:00, 10-28)
    words = _words(_first_sentence(english_doc(text)))
    timed = [t for t in words if t.ent_type_ in _DATE_LABELS]
    if not any(t.is_alpha or re.fullmatch(r"\d{1,2}(?::\d{2}|st|nd|rd|th)", t.text) for t in timed):
        return False  # "build-02" read as a date: a day, a month or a clock time says one
    other = [t for t in words if t.ent_type_ not in _DATE_LABELS | _NUMBER_LABELS
             and t.pos_ not in ("DET", "ADP", "CCONJ", "PART")]
    return len(other) <= 1 and len(timed) > len(other)


@lru_cache(maxsize=8192)
def leans_back(sentence: str) -> str:
    """Why `sentence` continues one before it, or "" when it stands on its own."""
    text = sentence.strip().lstrip("-*>•·– ").strip()
    if not text:
        return ""
    if _has_cjk(text[:4]):
        return _zh_leans_back(text)
    span = _first_sentence(english_doc(text))
    words = _words(span)
    if not words:
        return ""
    first = words[0]
    low = first.lower_
    either_or = low in ("either", "neither") and any(t.lower_ in ("or", "nor") for t in words)
    if (first.pos_ == "CCONJ" or low in _CONNECTIVES) and not either_or:
        return f"opens with {first.text!r}"
    if (first.dep_ == "neg" or low in ("not", "no", "nor")) and not _finite(span) \
            and not _imperative(span):
        return f"a fragment opening with {first.text!r}"
    if low in _DEMONSTRATIVES and first.dep_ != "det" and first.ent_type_ not in _DATE_LABELS:
        return f"opens with {first.text!r}, which points back"  # "That changes …", not "These settings"
    subject = next((t for t in words if t.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is not None and (subject.lower_ in _BACK_PRONOUNS or (
            subject.pos_ == "PRON" and "Dem" in subject.morph.get("PronType"))):
        return f"its subject {subject.text!r} points back"  # the first clause's subject
    for t in words:  # "anything else", "the rest": what was said before
        if t.lower_ == "else" or (t.lower_ in ("rest", "others") and t.i > 0
                                  and t.doc[t.i - 1].lower_ == "the"):
            return f"{t.text!r} points back"
    for ref in references(text):
        if ref.pointing:
            return f"{ref.phrase!r} points back"
    return ""


def carries_on(sentence: str) -> bool:
    """The sentence continues the one before it about the same thing ("Not on staging
    either.", "That does not work in transaction mode."), not a new statement about a
    person ("She asked whether …")."""
    why = leans_back(sentence)
    if not why:
        return False
    first = sentence.strip().lstrip("-*>•·– ").split(" ", 1)[0].lower()
    return first not in _PERSONS


@lru_cache(maxsize=8192)
def points_outside(sentence: str) -> str:
    """A demonstrative that points at what the sentence's heading or title names ("does
    not use this secret", "This plugin …"), or "": the sentence stands with its heading,
    not away from it."""
    if _has_cjk(sentence[:4]):
        return ""
    for t in _words(_first_sentence(english_doc(sentence))):
        if (t.lower_ in _DEMONSTRATIVES and t.dep_ == "det" and t.ent_type_ not in _DATE_LABELS
                and t.head.ent_type_ not in _DATE_LABELS):
            return f"{t.text} {t.head.text!r}"
    return ""


def _zh_leans_back(text: str) -> str:
    words = [(w, tag) for w, tag in _tagged(text) if w.strip()]
    if not words:
        return ""
    word, tag = words[0]
    if word in _ZH_CONNECTIVES or word in _ZH_ADDITIVE:
        return f"opens with {word!r}"
    if tag.startswith("r") and word[:1] in _ZH_POINTING:
        after = words[1] if len(words) > 1 else ("", "")
        # a pronoun (它, 其中, 这 before 是/就/也): it stands for what was said; before a
        # noun (这些设置, 该命令) it is a determiner pointing at the heading, not back
        if word in _ZH_PRONOUNS or not after[0] or after[1].startswith("d") or after[0] in _ZH_COPULAS:
            return f"opens with {word!r}, which points back"
    if len(words) > 1 and tag.startswith(("r", "t")) and words[1][0] in _ZH_ADDITIVE:
        return f"{word}{words[1][0]!r} points back"  # 这次也…, 今天也…
    return ""


def needs_topic(sentence: str) -> bool:
    """Away from its heading or title the sentence does not say what it is about: a
    demonstrative points there, or it is a date or time with nothing saying what for."""
    return bool(points_outside(sentence)) or names_a_time(sentence)


@dataclass(frozen=True)
class Reference:
    """A definite phrase pointing at something said elsewhere: "the corrected order"
    (`modifier` "corrected", lemma "correct", found again in "Corrected procedure");
    `pointing`: the modifier only points ("the same order") and says nothing itself."""

    phrase: str
    modifier: str
    lemma: str
    pointing: bool

    def named_by(self, heading: str) -> bool:
        """The heading names what the phrase points at: it has the modifier's word."""
        if not heading or _has_cjk(heading):
            return False
        doc = english_doc(heading)
        words = {t.lower_ for t in doc} | {t.lemma_.lower() for t in doc}
        return self.modifier.lower() in words or self.lemma in words


@lru_cache(maxsize=4096)
def references(sentence: str) -> tuple[Reference, ...]:
    """Definite noun phrases whose modifier points elsewhere: a past participle ("the
    corrected order", "the updated steps") or a pointing word ("the same order")."""
    if _has_cjk(sentence) or not _REFERRING.search(sentence):
        return ()
    out = []
    for chunk in english_doc(sentence).noun_chunks:
        if chunk[0].lower_ != "the":
            continue
        for t in chunk:
            if t.dep_ == "amod" and (t.tag_ == "VBN" or t.lower_ in _POINTING):
                out.append(Reference(chunk.text, t.text, t.lemma_.lower(), t.lower_ in _POINTING))
                break
    return tuple(out)
