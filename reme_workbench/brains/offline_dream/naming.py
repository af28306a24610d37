"""Names and descriptions a person would give, from headings and statements.

Pure functions on strings. A note's name is a short noun phrase or imperative: at most
`MAX_WORDS` words (English) or `MAX_CJK` characters (Chinese), never a sentence prefix,
never starting or ending on a function word, never carrying Markdown or a callout
marker. A description is one sentence saying what the note holds, and never the name
again.

Where a name comes from, best first:
1. a heading that names the section's topic ("Link to a heading in a note"); a generic
   heading ("Overview", "Examples", "注意事项") takes the page title in front;
2. the key phrase of a statement: for "To X, do Y" and "use … to X" the purpose X (an
   imperative); for "If / When / Because A, B" the main clause B; then the first clause,
   with leading function words, determiners and asides dropped, cut before a
   preposition, conjunction or relative word so that it ends on a content word;
3. Chinese: the same clause cut at word boundaries (jieba's dictionary), leading
   pronouns, modals and "在…中" phrases dropped, cut before a conjunction, ending on a
   content word.

`weak_name` says why a name is not good enough (the callers then try the next source).

Meaning survives naming (docs/spec.md §5.3.5–§5.3.6): a cut keeps every negation and
qualifier of its source (`standalone.qualifiers`) — a heading whole when its first clause
would drop one, a statement's cut that reaches its predicate fitted by leaving out what
holds none (`_compressed`) or up to `MAX_QUALIFIED_WORDS`; `describe` joins a sentence that
leans on the one before it to that one (`standalone.leans_back`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...textrules import HAN_CHARS, chinese_segmenter, is_cjk, plain
from ...textrules.nlp import english_doc
from .noun_topics import topic_from_chunk
from .standalone import (
    carries_on,
    is_fragment,
    leans_back,
    names_a_time,
    needs_topic,
    parse_ahead,
    qualifiers,
)

__all__ = ["MAX_QUALIFIED_WORDS", "GENERIC_SECTION", "heading_name", "statement_name",
           "assigned_name", "weak_name", "describe", "describing", "same_text", "cjk_count",
           "is_imperative", "imperative_frame", "title_name", "trim"]

MAX_WORDS = 6
MAX_CJK = 12
# A name that must keep a negation or qualifier of its source ("Standby feedback only
# works when a slot exists", "除非主管批准，否则不要在生产库上直接恢复备份") may run this long:
# shorter, it would say the opposite or more than the source (docs/spec.md §5.3.5).
MAX_QUALIFIED_WORDS = 10
MAX_QUALIFIED_CJK = 20

# Headings that name a part of a page, not a topic.
GENERIC_SECTION = re.compile(
    r"^(overview|introduction|intro|about|summary|background|context|details|notes?( for next time)?|examples?|"
    r"usage|tips?|faq|limitations?|known (issues|limitations)|troubleshooting|caveats?|"
    r"see also|related|references?|more|misc(ellaneous)?|other|general|basics|getting started|"
    r"how it works|what('| i)s next|next steps|root cause|timeline|impact|action items|"
    r"lessons( learned)?|what went wrong|follow[- ]?ups?|decisions?|findings|outcome|results?|"
    r"resolution|detection|postmortem|open questions|risks|"
    r"根因|根本原因|时间线|影响|行动项|教训|结论|决定|结果|后续|"
    r"概述|简介|介绍|概览|示例|例子|用法|注意事项|注意|提示|限制|已知问题|常见问题|参见|相关|其他|更多|基础)$",
    re.I,
)
# Words a name may not start or end with (they open or continue a clause).
_FUNCTION = frozenset(
    """a an the this that these those there here it its it's you your yours we our us they their
    them he she his her him i my me mine for in on at by to of with from into onto over under
    about as because since when whenever while if unless although though so and or nor but also
    then thus therefore however yet still just even only can could will would should must may
    might shall is are was were be been being am do does did has have had not very more most
    such which who whom whose what where why how than like via per each every any some all both
    either neither let lets once after before during until without within between through""".split()
)
# Dropped inside a name: they add nothing a title needs.
_FILLER = frozenset(
    """a an the this that these those its your our their my his her very really just also
    currently actually simply fully always usually often even quite rather""".split()
)
# A name is cut before one of these (what follows is a phrase of its own).
_CUT_BEFORE = frozenset(
    """for in on at by to of with from into onto over under about as because since when while
    if unless although though so and or but which who whom whose where that than via per
    without within between through during after before until""".split()
)
_LABEL = re.compile(rf"^\**([A-Za-z][\w' -]{{0,24}}|[{HAN_CHARS}]{{1,8}})\**(?::\**\s+|：\**\s*)(?=\S)")
_LABEL_FILLER = re.compile(
    r"^(note|notes|tip|tips|important|warning|caution|info|so|also|then|fix|update|reminder|"
    r"example|e\.g|nb|ps|备注|注意|提示|提醒|更新|警告)$",
    re.I,
)
# "`build-02` = 10.20.4.12, …": the thing given a value names the statement
_ASSIGN = re.compile(r"^([A-Za-z][\w.-]{1,40})\s*=\s*\S")
# a log's time before what happened ("Two minutes later staging …", "At 14:05 the pool …")
_TIME_LEAD = re.compile(
    r"^(?:(?:a|an|one|two|three|four|five|ten|fifteen|twenty|thirty|a few|\d+)\s+"
    r"(?:seconds?|minutes?|mins?|hours?|days?|weeks?)\s+later|later(?: that day| on)?|"
    r"afterwards|shortly after(?:wards)?|then|next morning|the next day|this morning|"
    r"at \d{1,2}:\d{2}(?:\s*(?:utc[+-]?\d*|am|pm))?)\s*,?\s+(?=\S)", re.I)
_PURPOSE = re.compile(r"^to\s+([a-z]+\b.*?)(?:,|$)", re.I)  # "To create a callout, add …"
# "You can use *** … to add a bar": the purpose, when the parse reads it as an imperative
_USE_TO = re.compile(r"^(?:you can |you could |you may |just )?(?:use|type|press|select|enter|"
                     r"add|click|drag|run)\b.{1,80}?\bto\s+([a-z]+\b.*)$", re.I)
_CONDITION = re.compile(
    r"^(?:if|when|whenever|because|since|while|although|though|once|after|before|unless|"
    r"as long as|by default|in that case|otherwise|for example|for instance)\b[^,]{0,120},\s*(.+)$",
    re.I,
)
_YOU_CAN = re.compile(
    r"^(?:you|we|users?)\s+(?:can|could|may|might|should|must|need to|have to|will|'ll)\s+(?:also\s+)?",
    re.I,
)
_ASIDE = re.compile(r"\s*[(（][^)）]*[)）]|\s*\[[^\]]*\]")
_CLAUSE = re.compile(r"[;；。!?！？]|:\s|：|,\s|，|\s[—–]\s|——|\.\s")
_WORD = re.compile(r"[A-Za-z0-9][\w'./+#-]*|[^\sA-Za-z0-9]")
_MARKUP_CHARS = re.compile(r"[`*_\[\]|<>#^{}$\\]")


def cjk_count(text: str) -> int:
    return sum(1 for ch in text if is_cjk(ch))


def _is_cjk_text(text: str) -> bool:
    return cjk_count(text) >= max(2, len(text.replace(" ", "")) // 3)


def same_text(a: str, b: str) -> bool:
    """Equal after case, punctuation, dashes and spacing are ignored (`internal-links`
    and "Internal links." are the same text)."""
    def norm(t: str) -> str:
        return re.sub(r"[\W_]+", "", plain(t).lower())

    return bool(norm(a)) and norm(a) == norm(b)


def weak_name(name: str, source: str = "") -> str | None:
    """Why `name` is not a name a person would give, or None when it is. It may run past
    MAX_WORDS / MAX_CJK (up to MAX_QUALIFIED_*) only when `source`, what it was cut from,
    states a negation or qualifier that no shorter cut of it keeps (docs/spec.md §5.3.5)."""
    text = name.strip()
    if not text:
        return "empty"
    if _MARKUP_CHARS.search(text):  # "[!note]" too
        return "carries Markdown"
    if re.search(r"[.!?。！？;；](?:\s|$)", text):
        return "is a sentence"
    if _is_cjk_text(text):
        limit = MAX_QUALIFIED_CJK if _needs_length(text, source) else MAX_CJK
        if cjk_count(text) > limit:
            return f"over {limit} CJK characters"
        words = _cjk_words(text)
        if words and words[0] in _CJK_LEAD:
            return f"starts with {words[0]!r}"
        if words and words[-1] in _CJK_TRAIL:
            return f"ends with {words[-1]!r}"
        if why := leans_back(text):  # 这次也是全程中文: which time?
            return why
        return None
    words = [w for w in re.split(r"[\s/]+", text) if w]
    limit = MAX_QUALIFIED_WORDS if _needs_length(text, source) else MAX_WORDS
    if len(words) > limit:
        return f"over {limit} words"
    lowered = [w.lower() for w in words]
    if any(a == b for a, b in zip(lowered, lowered[1:], strict=False)):
        return "repeats a word"
    if len(words) >= 3 and lowered[0] in ("note", "warning", "tip", "info", "caution", "important"):
        return f"starts with the callout label {words[0]!r}"
    first, last = words[0].lower().strip(",:"), words[-1].lower().strip(",:")
    if first in _FUNCTION:
        return f"starts with {first!r}"
    if last in _FUNCTION and len(words) > 1:
        return f"ends with {last!r}"
    return None


def _needs_length(name: str, source: str) -> bool:
    """`name` keeps the negations and qualifiers of `source`, and no cut of it within
    MAX_WORDS / MAX_CJK does ("Never run prune without --dry-run first": "Never run
    prune" would say the opposite)."""
    need = qualifiers(plain(source)) if source else frozenset()
    if not need or not need <= qualifiers(name):
        return False
    if _is_cjk_text(name):  # a Chinese cut at MAX_CJK falls inside a phrase: the generator chose
        return True
    words = [w for w in name.split() if w]
    claim = _predicate_at(words)  # a cut before it names the topic and claims nothing
    return (not any(need <= qualifiers(" ".join(c)) or len(c) <= claim
                    for c in _cuts(words, MAX_WORDS))
            and not _compressed(words, need))


# what a name may leave out to fit, rightmost first: a prepositional phrase, a conjunct
# with its "and"/"or", an adverb — never a part that holds a negation or qualifier
_DROPPABLE = (("prep",), ("conj",), ("advmod", "npadvmod"))


def _compressed(words: list[str], need: frozenset[str]) -> str:
    """`words` within MAX_WORDS by leaving out, from the right, parts of the parse that hold
    no negation or qualifier ("Never run forget or prune without --dry-run first" ->
    "Never run forget without --dry-run first"), or "" when that does not fit or does not
    end well."""
    if len(words) <= MAX_WORDS or not need:
        return ""
    doc = english_doc(" ".join(words))
    dropped: set[int] = set()

    def rest(without: set[int]) -> str:
        return "".join(t.text_with_ws for t in doc if t.i not in without).strip(" ,;:")

    def size(text: str) -> int:  # as the file name counts them: "--dry-run" is two
        return len(re.findall(r"[^\W_]+", text))

    for deps in _DROPPABLE:
        for tok in reversed(doc):
            if size(rest(dropped)) <= MAX_WORDS:
                break
            if tok.dep_ not in deps or tok.i in dropped or tok.head.i in dropped:
                continue
            part = {t.i for t in tok.subtree}
            if tok.dep_ == "conj":  # "forget or prune": "or prune" goes; what follows the
                # last conjunct ("without --dry-run") is said of all of them, and stays
                part = {tok.i} | {t.i for c in tok.children if c.i < tok.i for t in c.subtree}
                part |= {c.i for c in tok.head.children if c.dep_ == "cc" and c.i < tok.i}
            text = rest(dropped | part)
            if need <= qualifiers(text) and _ends_well(text.split(), MAX_QUALIFIED_WORDS):
                dropped |= part
    text = rest(dropped)
    fits = size(text) <= MAX_WORDS and _ends_well(text.split())
    return text if fits and need <= qualifiers(text) else ""


# --- headings -----------------------------------------------------------------------------


# One-word headings that name a part of a topic ("Graph view" > "Settings"): they need it.
PART_WORDS = re.compile(
    r"^(settings|options|preferences|display|appearance|interface|filters?|forces|groups|"
    r"account|features|configuration|config|supported|unsupported|behaviou?r|advanced|general|"
    r"commands|shortcuts|hotkeys|syntax|format|formatting|links|files|font|fonts|layout|"
    r"privacy|security|storage|performance|requirements|installation|"
    r"设置|选项|显示|外观|界面|筛选|过滤|分组|账户|功能|配置|语法|格式|高级|常规|行为|命令|快捷键|字体|布局)$",
    re.I,
)


def heading_name(heading: str, title: str = "", parent: str = "", *, part: bool = False) -> str:
    """The name a section heading gives, or "" when it cannot name a note.

    A heading that only names a part ("Settings", "Advanced", "示例") is qualified by
    the section it belongs to, or the page title: "Graph view settings", "Advanced
    appearance settings"; on a page whose title is such a part ("Settings"), a one-word
    section takes the title after it: "Account settings". `part`: the caller knows the
    heading names a part — every page of a template has it ("Description") — so it is
    qualified the same way: "Kroki description"."""
    text = _clean(heading)
    if not text:
        return ""
    cjk = _is_cjk_text(text)
    if not cjk:
        text = re.sub(r"^how to\s+", "", text, flags=re.I)  # "How to create a vault"
        if (text.split(" ", 1)[0].lower() in _FUNCTION - _NEGATIONS
                and not re.match(r"do(?:es)? not\b", text, re.I)):  # "Do not use X with Y"
            return ""  # "After setup", "When it fails": a phrase of a sentence, not a topic
    part = part or bool(PART_WORDS.match(text) or GENERIC_SECTION.match(text))
    title_c, parent_c = _title_core(title), _clean(parent)
    one_word = cjk or len(text.split()) == 1
    if part or (one_word and title_c and PART_WORDS.match(title_c)):
        context = [c for c in (parent_c, title_c) if c and not same_text(c, text)]
        if GENERIC_SECTION.match(text) and not context:
            return ""  # "Overview" of a page with no title to say what of
        qualified = part and context and not PART_WORDS.match(context[0])
        words = [text, *context[:1]]
        if cjk:  # "关系图谱" + "设置" -> 关系图谱设置; "高级" on the page "设置" -> 高级设置
            text = words[0] + words[1] if len(words) > 1 and PART_WORDS.match(words[1]) else (
                "".join(reversed(words[:2])))
        elif qualified:
            # "Settings" of "Graph view" -> "Graph view settings"; "Advanced" of "Files and
            # links" on the Settings page -> "Advanced files and links settings"
            text = (f"{text} {context[0].lower()}" if text.lower() in ("advanced", "general")
                    else f"{context[0]} {text.lower()}")
            if (len(context) > 1 and PART_WORDS.match(title_c or "-")
                    and len(f"{text} {title_c}".split()) <= MAX_WORDS):
                text = f"{text} {title_c.lower()}"
        else:
            text = f"{text} {context[0].lower()}" if context else text
    elif one_word and not cjk and parent_c and not same_text(parent_c, text):
        text = f"{text} {_singular(parent_c).lower()}"  # "Date" of "Property types"
    elif one_word and not cjk and (brand := _brand(title_c)) and brand.lower() != text.lower():
        text = f"{brand} {text.lower()}"  # "Restores" of "PostgreSQL backup policy"
    if cjk and cjk_count(text) <= MAX_CJK and not weak_name(text):
        return text  # a Chinese heading is kept as written ("为笔记添加别名")
    if cjk and qualifiers(text) and not weak_name(text, text):
        return text  # "事务池模式：哪些会话级功能不能用": shorter, it would drop 不能
    name = _shorten(text, heading=True)
    return "" if weak_name(name, _source_clause(text, heading=True)) else _capitalise(name)


def title_name(title: str) -> str:
    """A page's name from its title: "Postmortem: INC-2026-031 — payments-api 502s" ->
    "INC-2026-031 postmortem"; "Internal links" stays."""
    text = _clean(title)
    label = _LABEL.match(text)
    if label and len(text) - label.end() >= 4:
        core = _title_core(text)
        kind = label.group(1).strip("* ")
        combined = f"{core}{kind}" if _is_cjk_text(kind) else f"{core} {kind.lower()}"
        if not weak_name(combined):
            return combined
    return heading_name(title)


def _title_core(title: str) -> str:
    """What a title is about: "Postmortem: INC-2026-031 — payments-api 502s" -> "INC-2026-031"."""
    text = _clean(title)
    label = _LABEL.match(text)
    if label and len(text) - label.end() >= 4:
        text = text[label.end():]
    return _first_clause(text)


def _singular(phrase: str) -> str:
    words = phrase.split()
    last = words[-1]
    if len(last) > 3 and last.endswith("s") and not last.endswith("ss"):
        words[-1] = last[:-3] + "y" if last.endswith("ies") else last[:-1]
    return " ".join(words)


def _brand(title: str) -> str:
    """The title's first word when it is a product name (PostgreSQL, PgBouncer, API)."""
    first = title.split(" ", 1)[0] if title else ""
    inner_caps = any(ch.isupper() for ch in first[1:])
    return first if first.isalpha() and inner_caps and len(first) > 1 else ""


# --- statements ---------------------------------------------------------------------------


# A reply's opening word says nothing of the topic: "Good, because X" is about X.
_INTERJECTION = re.compile(r"^(?:good|great|ok|okay|yes|yeah|yep|right|sure|fine|correct|"
                           r"exactly|perfect|agreed|thanks|thank you)\s*[,!.:;—–-]+\s*", re.I)


def statement_name(text: str) -> str:
    """A name from one statement (see the module doc), or "" when none reads well."""
    cleaned = _clean(text)
    core = _INTERJECTION.sub("", cleaned)
    if core != cleaned and core.lower().startswith("because "):
        core = core[len("because "):]  # "Good, because X": a reply whose reason names it
    core = _TIME_LEAD.sub("", core)
    core = assigned_name(core) or core
    label = _LABEL.match(core)
    if label and len(core) - label.end() >= 4:  # "Decision: X" / "梅的决定：X" — X names it,
        rest = core[label.end():]  # unless X goes on from the label: "Weekly report: moved …"
        first = rest.split(" ", 1)[0]
        title = label.group(1).strip("* ")
        if first[:1].isdigit() and len(title.split()) >= 2 and not _LABEL_FILLER.match(title):
            core = title  # "Summary to Mei: 7 bullets at 12:45": a value, the label names it
        elif not (first.islower() and first.isalpha() and (first.endswith("ed") or first in _MODALS
                                                            or first in ("is", "are", "was", "now"))):
            core = rest
        else:
            core = f"{title} {rest}"
    if not core:
        return ""
    if _is_cjk_text(core):
        return _cjk_name(core)
    for candidate in _english_candidates(core):
        name = _shorten(candidate)
        if name and not weak_name(name, _source_clause(candidate)):
            return _capitalise(name)
    return ""


def assigned_name(text: str) -> str:
    """The thing a statement gives a value to ("`build-02` = 10.20.4.12, …" → "build-02"),
    or ""."""
    m = _ASSIGN.match(plain(text).strip().strip("`"))
    return m.group(1) if m else ""


def _english_candidates(core: str) -> list[str]:
    out = []
    m = _PURPOSE.match(core)
    if m:
        out.append(m.group(1))  # "To create a callout, add [!info]" -> "create a callout"
    m = _USE_TO.match(core)
    if m and is_imperative(m.group(1)):
        out.append(m.group(1))  # "You can use *** … to add a horizontal bar"
    m = _CONDITION.match(core)
    main = m.group(1) if m else core
    main = _YOU_CAN.sub("", main)  # "you can use other editors" -> "use other editors"
    out.append(main)
    if m:
        out.append(_YOU_CAN.sub("", core))
    return out


def _clean(text: str) -> str:
    text = plain(text)
    text = _ASIDE.sub("", text)
    text = re.sub(r"\[!\w[\w-]*\][+-]?", "", text)  # a callout marker
    text = re.sub(r"^\W+|[\s:：,，;；.。!！?？\-—–]+$", "", text.strip())
    return " ".join(text.split())


def _clauses(text: str) -> list[str]:
    return [p.strip() for p in _CLAUSE.split(text) if p.strip()]


def _first_clause(text: str) -> str:
    return (_clauses(text) or [text])[0]


_NEGATIONS = frozenset("not no never don't didn't doesn't isn't won't can't cannot".split())
_MODALS = frozenset("can could will would should must may might shall does did do".split())


def _ends_well(words: list[str], limit: int = MAX_WORDS) -> bool:
    """A name ends on a content word: not a function word, not "will display" (a verb
    after a modal), not "from 10" (a number after a preposition)."""
    if not words or len(words) > limit:
        return False
    last = words[-1].lower().strip(",:")
    if last in _FUNCTION:
        return False
    if len(words) >= 2 and words[-2].lower() in _MODALS:
        return False
    return not (len(words) >= 2 and last.replace(".", "").isdigit() and words[-2].lower() in _CUT_BEFORE)


def _source_clause(text: str, *, heading: bool = False) -> str:
    """What a name is cut from: the first clause, with an exception that restricts it
    ("X, unless Y"); a heading whole when its first clause would drop a negation or
    qualifier ("Transaction mode: what does not work")."""
    parts = _clauses(text)
    if not parts:
        return text
    if heading and qualifiers(text) - qualifiers(parts[0]):
        return text
    if len(parts) > 1 and re.match(r"(?:unless|except)\b", parts[1], re.I):
        return f"{parts[0]} {parts[1]}"
    return parts[0]


def _cuts(words: list[str], limit: int) -> list[list[str]]:
    """The prefixes of `words` a name may be: all of it, or cut before a preposition,
    conjunction, relative word or modal ("X can exceed" -> "X"), ending well."""
    candidates = [words] + [words[:i] for i in range(2, min(len(words), limit + 1))
                            if words[i].lower() in _MODALS or (words[i].lower() in _CUT_BEFORE
                                and words[i].lower() != "of")]  # "the end of the month": one phrase
    return [c for c in candidates if _ends_well(c, limit) and not _verb_cut(c, words)]


def _shorten(text: str, *, heading: bool = False) -> str:
    """At most MAX_WORDS words, cut at a phrase boundary, ending on a content word: of
    the cuts that end well, the longest. A cut that reaches the clause's predicate (all of
    a heading does) keeps every negation and qualifier of its source clause (docs/spec.md
    §5.3.5) — up to MAX_QUALIFIED_WORDS when only a longer one does; a cut before it (the
    subject: "deployctl config set" of "… does not restart pods") names a topic and claims
    nothing. None that drops a negation is taken ("" then: the caller tries another source)."""
    if _is_cjk_text(text):
        return _cjk_name(text, heading=heading)
    source = _source_clause(text, heading=heading)
    need = qualifiers(source)
    words = source.split()
    if len(words) > 2 and words[0].lower() in ("do", "does") and words[1].lower() == "not":
        words[:2] = ["Don't"]  # "Do not restart X while …" -> "Don't restart X", the negation kept
    while words and words[0].lower() in _FUNCTION:
        if words[0].lower() in _NEGATIONS:
            return ""  # "not enable auto-merge" must not become "enable auto-merge"
        words.pop(0)
    if not words:
        return ""
    kept_at = [i for i, w in enumerate(words) if i == 0 or w.lower() not in _FILLER]
    slim = [words[i] for i in kept_at]
    sources = (words, slim)  # the words as written first; without fillers if need be
    if need:
        claim = -1 if heading else _predicate_at(words)

        def reaches(cut: list[str], source: list[str]) -> bool:
            covered = len(cut) if source is words else kept_at[len(cut) - 1] + 1
            return covered > claim

        topic = _subject(slim)  # "Keybox login --sso" of "… fails with 'device not enrolled'"
        for keep in (need, need & {"not"}):  # all of them; else at least the negation
            for limit in (MAX_WORDS, MAX_QUALIFIED_WORDS):
                kept = [c for w in sources for c in _cuts(w, limit)
                        if (keep <= qualifiers(" ".join(c)) if reaches(c, w) else len(c) <= MAX_WORDS)]
                if kept:
                    return " ".join(max(kept, key=len)).strip(" ,:;")
                if limit == MAX_WORDS and topic and not reaches(topic, slim):
                    return " ".join(topic).strip(" ,:;")
                squeezed = _compressed(words, keep) if limit == MAX_WORDS else ""
                if squeezed:
                    return squeezed
        if "not" in need:
            return ""  # every cut would state the opposite of its source
    good: list[list[str]] = []
    for w in sources:
        good = _cuts(w, MAX_WORDS)
        if good:
            break
    if good:
        best = max(good, key=len)
    else:  # the subject: the words before the first verb ("Canary window" goes from …)
        best = _subject(slim) or slim[:MAX_WORDS]
        while len(best) > 1 and best[-1].lower().strip(",:") in _FUNCTION:
            best.pop()
    return " ".join(best).strip(" ,:;")


def _root(words: list[str]):
    """The words joined, and the root of their first sentence as spaCy parses it."""
    text = " ".join(words)
    doc = english_doc(text)
    return text, next(iter(doc.sents), doc[:]).root


def _predicate_at(words: list[str]) -> int:
    """The index of the word holding the clause's predicate (spaCy's root: the verb, or
    the head noun of a phrase without one)."""
    text, root = _root(words)
    return len(text[:root.idx].split())


def _verb_at(words: list[str]) -> tuple[int, int]:
    """The first and last index of the words holding the verb of a clause with a subject
    before it (auxiliaries to the main verb: "X can exceed", "Prod rotation is scheduled"),
    or (-1, -1): no verb, or an imperative's (no subject: "Keep file names as …")."""
    text, root = _root(words)
    if root.pos_ not in ("VERB", "AUX") or not any(
            c.dep_ in ("nsubj", "nsubjpass") and c.i < root.i for c in root.children):
        return -1, -1
    first = min([root, *(c for c in root.children if c.dep_ in ("aux", "auxpass"))], key=lambda t: t.i)
    # "X is 40 connections": a copula with a noun states X's value; all that follows is it
    value = root.lemma_ == "be" and any(c.dep_ == "attr" for c in root.children)
    last = len(words) if value else len(text[:root.idx].split())
    return len(text[:first.idx].split()), last


def _verb_cut(candidate: list[str], words: list[str]) -> bool:
    """A cut that ends on the clause's verb ("Canary window goes"), or on what a copula
    says of its subject ("payments-api pool is 40 connections")."""
    n = len(candidate)
    first, last = _verb_at(words)
    return n < len(words) and words[:n] == candidate and first <= n - 1 <= last


def _subject(words: list[str]) -> list[str]:
    """The words before the clause's verb, when there are two or more of them."""
    at = _verb_at(words)[0]
    return words[:at] if 2 <= at <= MAX_WORDS else []


def _capitalise(name: str) -> str:
    first = name.split(" ", 1)[0]
    if first.isalpha() and first.islower() and len(first) > 1:
        return name[:1].upper() + name[1:]
    return name  # "uv", "payments-api", "`x`" stay as written


# --- Chinese --------------------------------------------------------------------------------

# Words a Chinese name may not start with: pronouns, modals, prepositions, conjunctions.
_CJK_LEAD = frozenset(
    "你 您 我 我们 你们 他 她 它 他们 大家 可以 能 能够 需要 要 应该 必须 会 将 把 被 在 当 如果 "
    "假如 若 因为 由于 为了 对 对于 关于 从 向 并 并且 而 而且 但 但是 所以 因此 或 或者 和 与 "
    "及 以及 这 那 这个 那个 这些 那些 其 就 也 还 都 又 再 请 然后 另外 此外 同时 即使 "
    "也就是说 例如 比如 否则 不然".split()
)
_CJK_TRAIL = frozenset("的 了 和 与 及 或 在 中 里 上 下 时 等 吗 呢 吧 啊 也 都 就 并 而 把 被 对 从 "
                       "只 仅 才 不 别 没 还 再 又".split())
_CJK_CUT = frozenset("或者说 或者 以及 并且 而且 但是 但 所以 因此 然后 同时 即 例如 比如 因为 由于 以便 从而 来".split())


@lru_cache(maxsize=4096)
def _cjk_words(text: str) -> tuple[str, ...]:
    # spaces kept as " " tokens, so "Home Assistant" stays two words when joined back
    return tuple(" " if not w.strip() else w for w in chinese_segmenter().cut(text) if w)


_CJK_CONDITION = ("如果", "假如", "若", "当", "因为", "由于", "为了", "虽然", "即使", "只要")
_CJK_EXCEPTION = ("除非", "除了")
_CJK_MID_CUT = frozenset("从 向 对于 于 在 来 以便 以 通过 根据 按照".split())


def _cjk_name(text: str, *, heading: bool = False) -> str:
    clauses = [c.strip() for c in re.split(r"[，,；;。：:！？!?]", text) if c.strip()]
    if not clauses:
        return ""
    if len(clauses) > 1 and clauses[0].startswith(_CJK_CONDITION):
        clauses = clauses[1:]  # "如果 A，B": the name is B
    if len(clauses) > 1 and (clauses[0].startswith(_CJK_EXCEPTION)
                             or clauses[1].startswith(_CJK_EXCEPTION)):
        # "除非 A，否则 B" / "B，除非 A": the exception restricts the rule; both, or the rule
        parts = [c if c.startswith(_CJK_EXCEPTION) else _cjk_clause_name(c) for c in clauses[:2]]
        joined = "，".join(parts)
        if all(parts) and cjk_count(joined) <= MAX_QUALIFIED_CJK and not weak_name(joined, text):
            return joined
        clauses = [c for c in clauses if not c.startswith(_CJK_EXCEPTION)] or clauses
    if heading and len(clauses) > 1 and qualifiers(text) - qualifiers(clauses[0]):
        whole = "".join(c for c in re.split(r"[，,；;。！？!?]", text)).strip()
        if cjk_count(whole) <= MAX_QUALIFIED_CJK and not weak_name(whole, text):
            return whole  # "事务池模式：哪些会话级功能不能用": not 事务池模式
    for clause in clauses[:3]:  # "在标签视图中，你可以按名称排序": the first clause is a place
        name = _cjk_clause_name(clause)
        if name:
            return name
    return ""


def _cjk_clause_name(clause: str) -> str:
    """The clause cut to MAX_CJK characters; to MAX_QUALIFIED_CJK when the shorter cut
    would drop a negation or qualifier the clause states (不, 别, 只, 除非)."""
    name = _cjk_clause_cut(clause, MAX_CJK)
    if name and qualifiers(clause) - qualifiers(name):
        longer = _cjk_clause_cut(clause, MAX_QUALIFIED_CJK)
        if longer and qualifiers(longer) >= qualifiers(clause) & {"not", "only", "unless"}:
            return longer
        if "not" in qualifiers(clause) and "not" not in qualifiers(name):
            return ""  # it would state the opposite of the clause
    return name


def _cjk_clause_cut(clause: str, limit: int) -> str:
    for marker in ("的时候", "时候"):  # "我用中文写的时候你就用中文回我": the rule follows
        if marker in clause and not clause.endswith(marker):
            clause = clause.split(marker, 1)[1]
    words = _cjk_words(clause.strip())
    changed = True
    while words and changed:  # leading "在…中" phrases, pronouns, modals
        changed = False
        if words[0] in ("在", "当") and any(w in _PLACE_END for w in words[1:6]):
            k = next(i for i, w in enumerate(words[1:6], 1) if w in _PLACE_END)
            words, changed = words[k + 1:], True
        while words and (words[0] == " " or words[0] in _CJK_LEAD and words[0] not in ("在", "当")):
            words, changed = words[1:], True
    out: list[str] = []
    for w in words:
        mid_cut = (w in _CJK_MID_CUT and cjk_count("".join(out)) >= 2
                   and not (out and qualifiers(out[-1])))  # "只在", "不在": one phrase
        if out and (w in _CJK_CUT or mid_cut):
            break
        if cjk_count("".join(out + [w])) > limit:
            break
        out.append(w)
    while out and (out[-1] in _CJK_TRAIL or out[-1] == " "):
        out.pop()
    name = "".join(out).strip(" ，,、：:")
    return "" if cjk_count(name) < 2 else name


_PLACE_END = frozenset(("中", "里", "上", "下", "时", "时候", "内", "之中"))


# --- imperatives -------------------------------------------------------------------------

_ZH_VERB_HEAD = re.compile(
    r"^(先|再|请)?(链接|创建|新建|修改|更改|挂载|检查|恢复|添加|删除|移除|使用|启用|禁用|打开|关闭|"
    r"插入|嵌入|搜索|查找|排序|导入|导出|安装|升级|更新|切换|管理|编辑|查看|显示|隐藏|同步|发布|"
    r"分享|折叠|展开|重命名|移动|复制|粘贴|备份|试运行|运行|执行|配置|设置[^\s]|定义|固定|取消|"
    r"连接|加密|验证|合并|拆分|清理|迁移|部署|轮换|回滚|制作|写|用)"
)


def imperative_frame(text: str) -> str:
    """What `is_imperative` parses: after "Please" the tagger reads a title-case verb as one
    ("Mount the snapshot"); the first six words tell, and a parse costs by the word.
    `statements.score_all` parses a log's frames in one batch."""
    head = " ".join(_clean(text).split()[:6])
    return f"Please {head[:1].lower()}{head[1:]}."


def is_imperative(heading: str) -> bool:
    """A heading or sentence that says what to do: an English verb first that takes
    something, as the parse reads it ("Take a snapshot", "How to …"), or a Chinese verb first ("挂载快照", "先试运行"; "设置" alone is a noun)."""
    text = _clean(heading)
    if not text:
        return False
    if _is_cjk_text(text):
        return bool(_ZH_VERB_HEAD.match(text)) and cjk_count(text) >= 2 and text != "设置"
    if text.lower().startswith("how to "):
        return True
    verb = english_doc(imperative_frame(text))[1]
    return verb.tag_ == "VB" and verb.dep_ == "ROOT" and any(
        c.dep_ in ("dobj", "prep", "prt", "advmod", "npadvmod", "dative", "xcomp", "ccomp")
        for c in verb.children)


# --- descriptions -------------------------------------------------------------------------


def describe(sentences: list[str], name: str, *, limit: int = 200, blocks: list | None = None,
             min_words: int = 4, min_cjk: int = 8, topic: str = "") -> str:
    """One sentence saying what a note holds: the first that is a real sentence (not a
    lead-in ending in ':' and not the name again), trimmed to `limit` characters, and
    read on its own (docs/spec.md §5.3.6):

    * a sentence that continues the one before it ("Not on staging either.", "Also …",
      "It …", 也…) comes with the sentences of its block back to the one it continues;
      one that opens its block so is taken only when no other sentence stands alone;
    * the sentences after it that continue it ("No exceptions.") come along, and so does
      the rest of its block when it is itself a fragment ("Staging Monday the 19th, 10:00.");
    * one that does not say what it is about away from its heading or title ("… this
      secret", a bare date) gets `topic` in front, when the caller gives one.

    `blocks[i]`: the block (paragraph, item) sentence i belongs to; sentences of one block
    only are joined. None: one block."""
    texts = [_sentence_text(raw) for raw in sentences]
    ids = list(blocks) if blocks is not None else [0] * len(texts)
    parse_ahead(texts[:4])  # the first sentences decide, almost always
    fallback = ""
    for i, text in enumerate(texts):
        if not text or text.endswith((":", "：")) or same_text(text, name):
            continue
        if len(text.split()) < min_words and cjk_count(text) < min_cjk:
            continue  # "For example:", "Wikilink" — not a sentence about the note
        start = i
        while start > 0 and ids[start - 1] == ids[i] and texts[start - 1] and _continues(texts[start]):
            start -= 1
        end = i  # what carries it on; all of its block after a bare date ("Staging Monday …")
        whole = names_a_time(texts[start])
        while (end + 1 < len(texts) and ids[end + 1] == ids[i] and texts[end + 1]
               and not texts[end + 1].endswith((":", "："))  # "Instead:" leads to what follows
               and (whole or carries_on(texts[end + 1]))
               and len(_joined(texts[start:end + 2])) <= limit):
            end += 1
        text = _joined(texts[start:end + 1])
        if leans_back(texts[start]):
            fallback = fallback or text  # it leans on a sentence that is not here
            continue
        if topic and not same_text(topic, name) and needs_topic(texts[start]):
            text = f"{topic}{'：' if _is_cjk_text(topic) else ': '}{text}"
        return trim(text, limit)
    return trim(fallback, limit) if fallback else ""


def describing(sentences: list[str], words: tuple[str, ...], *, framed: frozenset[int] = frozenset()
               ) -> int:
    """Which of a person's sentences describes their note on a topic (docs/spec.md §5.3.6):
    the one that names most of the topic (its content lemmas `words`, a word cut short at
    most by an ending: "leaves" for "leaf"), the first of those; else the first that names
    a thing — a clause with a noun phrase that names a topic (no greeting, thanks, date or
    light word) — or is `framed` (it carries the question it answers, a confirmation); so a reaction
    ("It's beautiful!", "it went great!!") never describes a note while a sentence with
    something in it does; else the first."""
    stems = [w[:-1] if len(w) > 3 else w for w in words if w]
    named = [sum(bool(re.search(rf"\b{re.escape(stem)}", re.sub(r"[-'’_]", "", text.lower())))
                 for stem in stems) for text in sentences]
    if named and max(named) > 0:
        return named.index(max(named))
    for i, text in enumerate(sentences):
        if i in framed or _is_cjk_text(text) or _tells_a_thing(english_doc(text)):
            return i
    return 0


def _tells_a_thing(doc) -> bool:
    """A clause (it has a verb) with a noun phrase that names a topic: not "thanks!",
    "morning", "It's beautiful!"."""
    return any(t.pos_ in ("VERB", "AUX") for t in doc) and any(
        topic_from_chunk(c, frozenset(), any_role=True) for c in doc.noun_chunks)


def _sentence_text(raw: str) -> str:
    text = " ".join(plain(raw).split())
    return re.sub(r"\[!\w[\w-]*\][+-]?\s*", "", text)


def _continues(sentence: str) -> bool:
    """A sentence (not the first of its block) that carries on the one before it."""
    return bool(leans_back(sentence)) or is_fragment(sentence)


def _joined(sentences: list[str]) -> str:
    out = ""
    for text in sentences:
        out += ("" if not out or out[-1] in "。！？；" else " ") + text
    return out


def trim(text: str, limit: int, ends: str | None = " ,;:") -> str:
    """`text` within `limit` characters: cut at a space past half of it (`ends` stripped
    before the "…"), else at the limit."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 1)
    return text[: cut if cut > limit // 2 else limit - 1].rstrip(ends) + "…"
