"""Conversations (docs/spec.md §5.2.8–5.2.10): what each person states about themselves
becomes a unit about them, named by person and topic; the rest of the talk is left out.

What a sentence states and its topics are read from the parse (`topics.py`). Here:

* a speaker's statements of one session on one topic are one unit, named by person and
  topic ("Kate's Italian cooking class", "林晓的猫");
* nothing is rewritten: the note keeps what was said as a dated, attributed quote, one
  bullet per session (`- **2024-01-11** Kate: "I started an Italian cooking class."`),
  with the relative dates it names resolved beside it ("yesterday = 2024-01-10") and
  the session as its provenance, so a later session on the same person and topic
  CORROBORATEs the note with one more bullet instead of writing a second.

Who a note is about decides its bucket (§5.2.9): in a chat between people (no assistant)
they are other people than the vault's user, and what is known about them is `wiki`; in a
chat between the user and an assistant the facts are the user's (`personal`), and the
assistant's replies are context — what the user confirms of them ("So you're allergic to
peanuts?" — "yes") is the user's too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from ...dream.keys import one_key
from ...llm.base import CandidateNote, IntegrateRequest
from ...llm.schema import IntegrateDecision
from ...textrules import is_cjk, plain, split_sentences
from ...textrules.nlp import english_docs
from .answers import Answer, QuestionsAnswered
from .chat import chat_kind, is_user
from .naming import describing
from .noun_topics import WEEKDAYS
from .replies import (
    answers_about_it,
    asked_of_him_or_her,
    asked_of_user,
    completes_before,
    echoes_the_verb,
    headline,
    heard_topics,
    names_it,
    names_what_was_asked,
    says_who_it_is,
    speaks_of_it,
    tells_of_him_or_her,
    told_of_before,
    took_up,
)
from .statements import Block, Statement
from .topics import (
    Reading,
    Topic,
    clause_of,
    first_person,
    is_question,
    masked,
    named_as,
    own_line,
    read_chinese,
    read_english,
    same_topic,
    second_person,
    topic_from_chunk,
    topic_of,
)
from .units import UnitPlan
from .weave import cites
from .zh_statements import asked_of_listener, asks_about_listener, refers_back

__all__ = [
    "CONVERSATION_UNITS", "plan_conversation", "ConversationSkip", "Topic", "topic_of",
    "same_topic", "said_about", "render_bullet", "person_topic_match", "conversation_decision",
    "resolve_dates", "clean_turn", "attributed",
]

CONVERSATION_UNITS = 12  # units of one session at most: the topics with most said of them

# -- reading a turn ----------------------------------------------------------------------------

# what a turn shows rather than says: "[image: a photo of a dog]", "[shares a photo …]"
_CAPTION = re.compile(
    r"\s*[\[(](?:image|img|photo|picture|pic|sticker|gif|video|link|shares?|sent|图片|照片|表情|视频)"
    r"\b[^\])]*[\])]|\s*!\[[^\]]*\]\([^)]*\)|\s*\[(?:图片|照片|表情)[^\]]*\]", re.I)
def clean_turn(text: str) -> str:
    """A turn's words as said: image captions and ids taken out (emoji and "lol" stay:
    they are the speaker's)."""
    text = _CAPTION.sub(" ", plain(text))
    text = re.sub(r"(?<=\w)-(?=\s)", " -", text)  # "books- classics": a dash, not a hyphen
    return " ".join(text.split()).strip(" ,")


# -- when --------------------------------------------------------------------------------------

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_RELATIVE = re.compile(
    r"\b(yesterday|today|tonight|this morning|this afternoon|this evening|tomorrow|"
    r"last night|last weekend|this weekend|next weekend|last week|this week|next week|"
    r"last month|this month|next month|last year|this year|next year|"
    r"(?:last|this|next|on) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?:a|one|two|three|four|five|six|\d+) (?:days?|weeks?|months?|years?) ago)\b", re.I)
_RELATIVE_ZH = re.compile(r"(昨天|前天|今天|明天|后天|上周末|上周|下周|本周|这周|上个月|下个月|这个月|去年|明年|今年)")
_NUMBER = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _month_shift(d: date, months: int) -> date:
    m = d.month - 1 + months
    return date(d.year + m // 12, m % 12 + 1, 1)


def _resolve(expr: str, d: date) -> str:
    """One relative expression on day `d` as a date, a week, a month or a year."""
    e = expr.lower()
    if e in ("today", "tonight", "this morning", "this afternoon", "this evening", "今天"):
        return d.isoformat()
    if e in ("yesterday", "last night", "昨天"):
        return (d - timedelta(days=1)).isoformat()
    if e == "前天":
        return (d - timedelta(days=2)).isoformat()
    if e in ("tomorrow", "明天"):
        return (d + timedelta(days=1)).isoformat()
    if e == "后天":
        return (d + timedelta(days=2)).isoformat()
    if e in ("last weekend", "上周末"):
        sat = d - timedelta(days=(d.weekday() - 5) % 7 or 7)
        return f"the weekend of {sat.isoformat()}"
    if e in ("this weekend", "next weekend"):
        sat = d + timedelta(days=(5 - d.weekday()) % 7 + (7 if e.startswith("next") else 0))
        return f"the weekend of {sat.isoformat()}"
    if e in ("last week", "上周"):
        return f"the week of {(d - timedelta(days=7 + d.weekday())).isoformat()}"
    if e in ("this week", "本周", "这周"):
        return f"the week of {(d - timedelta(days=d.weekday())).isoformat()}"
    if e in ("next week", "下周"):
        return f"the week of {(d + timedelta(days=7 - d.weekday())).isoformat()}"
    if e in ("last month", "上个月", "this month", "这个月", "next month", "下个月"):
        shift = -1 if e in ("last month", "上个月") else 1 if e in ("next month", "下个月") else 0
        m = _month_shift(d, shift)
        return f"{_MONTHS[m.month - 1]} {m.year}"
    if e in ("last year", "去年", "this year", "今年", "next year", "明年"):
        return str(d.year + (-1 if e in ("last year", "去年") else 1 if e in ("next year", "明年") else 0))
    m = re.match(r"(last|this|next|on) (\w+day)$", e)
    if m:
        target = WEEKDAYS.index(m.group(2))
        if m.group(1) in ("last", "on"):
            back = (d.weekday() - target) % 7 or 7
            return (d - timedelta(days=back)).isoformat()
        return (d + timedelta(days=(target - d.weekday()) % 7 or 7)).isoformat()
    m = re.match(r"(\w+) (day|week|month|year)s? ago$", e)
    if m:
        n = int(m.group(1)) if m.group(1).isdigit() else _NUMBER.get(m.group(1), 1)
        if m.group(2) == "day":
            return (d - timedelta(days=n)).isoformat()
        if m.group(2) == "week":
            return f"the week of {(d - timedelta(days=7 * n + d.weekday())).isoformat()}"
        if m.group(2) == "month":
            m2 = _month_shift(d, -n)
            return f"{_MONTHS[m2.month - 1]} {m2.year}"
        return str(d.year - n)
    return ""


def resolve_dates(text: str, day: date | None) -> list[str]:
    """The relative dates `text` names, each resolved from the session's day:
    ["yesterday = 2023-05-07", "last year = 2022", "上周 = the week of 2023-05-01"]."""
    if day is None:
        return []
    out = []
    for m in [*_RELATIVE.finditer(text), *_RELATIVE_ZH.finditer(text)]:
        when = _resolve(m.group(1), day)
        if when:
            out.append(f"{m.group(1)} = {when}")
    return list(dict.fromkeys(out))


# -- planning ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConversationSkip:
    """A turn or a session that gave no unit, and why (reported by dream)."""

    part: str
    reason: str


@dataclass
class _Said:
    speaker: str
    text: str  # the sentence as said (captions, emoji, laughter taken out)
    topics: tuple[Topic, ...]
    turn: int  # the turn group: a burst of one speaker's lines is one turn
    statement: Statement  # the segment it came from (order, provenance)
    confirms: str = ""  # the assistant's words the user confirmed with this sentence
    context: bool = False  # states nothing about the speaker; goes with the statement beside it
    order: int = 0  # its place in the session
    label: str = ""  # the speaker's label as written
    answers: Answer | None = None  # the question this sentence answers (answers.py)


_AFFIRMATION = re.compile(r"^(?:yes|yeah|yep|yup|right|correct|exactly|that's right|that's me|"
                          r"indeed|true|sure|对|是的|是啊|没错|对的|嗯)\b", re.I)


def _person(label: str, assistant_chat: bool) -> str:
    """Who a note is about: the speaker as named, or "the user" for a bare role label."""
    if assistant_chat and is_user(label):
        return "用户" if is_cjk(label[:1]) else "the user"
    return label


def _contracted_be(doc) -> list[tuple[int, str]]:
    """Where a name's "'s" is "is" or "has", not a possessive, as spaCy's small model
    reads it ("Oskar's a carpenter", "Nadia's in plaster", "the flat's sold."): a possessive
    is followed by the thing possessed, never by a determiner, preposition or adverb, or
    by an adjective or participle that ends the clause. (char offset of the "'s", "is"/"has")"""
    found = []
    for tok in doc[:-1]:
        if tok.tag_ != "POS" or tok.head.pos_ != "PROPN" or tok.i != tok.head.i + 1:
            continue
        after = doc[tok.i + 1]
        ends = tok.i + 2 >= len(doc) or doc[tok.i + 2].is_punct or doc[tok.i + 2].pos_ in (
            "CCONJ", "SCONJ")
        if after.pos_ in ("DET", "ADP", "ADV") or (after.tag_ == "PRP$") or (
                after.tag_ in ("JJ", "VBN", "VBD") and ends):
            participle = after.tag_ in ("VBN", "VBD") and not ends
            found.append((tok.idx, "has" if participle else "is"))
    return found


def _english_read(text: str) -> tuple:
    """`text`'s spaCy doc, with each name's "'s" that is "is"/"has" written out before the
    parse (`_contracted_be`), and where each character of what was parsed stands in `text`."""
    doc = english_docs([text])[0]
    found = _contracted_be(doc)
    if not found:
        return doc, None
    out, where, at = [], [], 0
    for idx, word in found:
        out.append(text[at:idx])
        where += range(at, idx)
        out.append(" " + word)
        where += [idx] * (len(word) + 1)
        at = idx + 2
    out.append(text[at:])
    where += range(at, len(text) + 1)
    return english_docs(["".join(out)])[0], where


def _sentences(texts: list[str]) -> list[list[tuple[str, object]]]:
    """Each text cut into sentences: (the sentence as said, the spaCy span the English
    pipeline read of it — None for Chinese, read by jieba)."""
    read = [masked(t) for t in texts]
    english = [m for m in read if not sum(map(is_cjk, m)) > len(m) / 3]
    english_docs(english)  # one batch through the pipeline
    docs = {m: _english_read(m) for m in english}
    out = []
    for text, m in zip(texts, read, strict=True):
        found = []
        if m in docs:
            doc, where = docs[m]
            for span in doc.sents:
                start, end = (span.start_char, span.end_char) if where is None else (
                    where[span.start_char], where[span.end_char])
                # a chat signal blanked before a comma ("BTW, recently …") leaves the
                # comma: a sentence is quoted from its first word
                said = " ".join(text[start:end].split()).lstrip(",;: ")
                if span.text.strip():
                    found.append((said, span))
        else:
            at = 0
            for sentence in split_sentences(m) or []:
                start = m.find(sentence, at)
                start = at if start < 0 else start
                at = start + len(sentence)
                said = " ".join(text[start:at].split())
                if sentence.strip():
                    found.append((said, sentence))
        out.append(found)
    return out


def _no_topic(readings: list[Reading | None]) -> bool:
    """Whether no reading of a sentence found a topic (a later rule may then give it one)."""
    return not any(r is not None and r.topics for r in readings)


# A day of the month as typed: "14th", "3rd", "1st" (the pipeline reads "the 14th" as a
# DATE only in a well-formed sentence; "so now its the 14th" gives it an ORDINAL or nothing)
_DAY_OF_MONTH = re.compile(r"^(?:[12]?\d|3[01])(?:st|nd|rd|th)$", re.I)


def _names_a_day(span) -> bool:
    """An English sentence that names a day or a time: a date the pipeline found, a
    weekday texted in lowercase, which it does not ("fridays mostly"), or a day of the
    month after "the" that counts no noun ("now its the 14th", not "the 2nd time")."""
    return not isinstance(span, str) and (
        any(e.label_ in ("DATE", "TIME") for e in span.ents)
        or any(t.lower_.rstrip("s") in WEEKDAYS for t in span)
        or any(_DAY_OF_MONTH.match(t.text) and t.i > span.start
               and span.doc[t.i - 1].lower_ == "the" and not (
                   t.i + 1 < span.end and span.doc[t.i + 1].pos_ == "NOUN")
               for t in span))


def said_about(blocks: Sequence[Block], statements: Sequence[Statement]) -> tuple[list[_Said], int]:
    """Every sentence that states something about its speaker, and how many turns there
    were. In a chat with an assistant, only the user's (and what they confirm)."""
    assistant_chat = chat_kind(blocks) == "assistant"
    first: dict[int, Statement] = {}
    for st in statements:
        first.setdefault(st.block.index, st)
    turns = [b for b in blocks if b.speaker and b.index in first]
    names = frozenset(b.speaker for b in turns) | frozenset(
        b.speaker.split()[0] for b in turns)
    texts = [clean_turn(b.text) for b in turns]
    split = _sentences(texts)
    said: list[_Said] = []
    group, last = -1, None
    asked = asked_you = False
    earlier: dict[str, str] = {}  # each speaker's turn before (what 它 may stand for)
    # the user's notes to themselves (one speaker, no assistant): every line is theirs and
    # its own note — "Book club moved to Thursday", "读书会改到周五" — however it is cut
    own = assistant_chat and not any(b.role == "assistant" for b in turns)
    heard: list[Topic] = []  # what the assistant's reply since the user's last turn named
    spoken_of: list[Topic] = []  # what of it the user spoke of since ("helmets look dorky")
    asked_after: tuple[Topic, ...] = ()  # the thing of the user's its question named
    asked_verb = ""  # "Is she eating properly now?": eat, of a being the user told of
    previous = (None, "")  # the user's sentence before since the assistant last spoke, as said
    answered = None if assistant_chat else QuestionsAnswered(names)  # people: answers.py
    # a request on a thing of the user's the turn ended with, still open while the
    # assistant only asks about it: "… a summary of my mother's needs?" — "What does she
    # need help with?" — "She's 84. …" tells of it (`Reading.requested`)
    request_open: tuple[_Said, tuple[Topic, ...]] | None = None
    for i, (block, sentences) in enumerate(zip(turns, split, strict=True)):
        if block.role == "assistant":  # a question to the user keeps their thread going:
            previous = (None, "")
            if i and turns[i - 1].role != "assistant":
                heard, spoken_of = [], []
            heard += [t for _, span in sentences if not isinstance(span, str)
                      for t in heard_topics(span, names)]
            asked_after = next((found for _, span in reversed(sentences) if assistant_chat
                                and not isinstance(span, str)
                                and (found := asked_of_user(span, names))), ())
            asked_verb = next((v for _, span in reversed(sentences) if assistant_chat
                               and (v := asked_of_him_or_her(span))), "")
            asked = texts[i].rstrip().endswith(("?", "？"))  # "What does she like?" — "pottery"
            if not asked:
                request_open = None
            # 你考哪个学校？ — "复旦的金融学": the reply to a Chinese question about the user
            # is theirs, though it has no subject and often no verb (read as their own words)
            asked_you = assistant_chat and any(
                isinstance(span, str) and asks_about_listener(span, earlier.get(last or "", ""))
                for _, span in sentences)
            continue
        if own or (block.speaker != last and not (asked and block.speaker == said_by(said))):
            group = group + 1
        answer, asked_you = asked_you, False
        last, asked = block.speaker, False
        if not (i and turns[i - 1].role == "assistant"):
            asked_after = ()  # only the reply right after the question answers it
        was_asked = bool(i and turns[i - 1].role == "assistant"
                         and texts[i - 1].rstrip().endswith(("?", "？")))
        confirmed = ""
        asked_of: tuple[_Said, tuple[Topic, ...]] | None = None  # "my ferret", in a question
        if request_open is not None and i and turns[i - 1].role == "assistant":
            asked_of = request_open
        request_open = None
        if assistant_chat and i and turns[i - 1].role == "assistant" and \
                _AFFIRMATION.match(texts[i]):
            confirmed = _confirmed(split[i - 1], names)
        for k, (text, span) in enumerate(sentences):
            # 它 and a left-out object may stand for what the speaker's turn before named
            # (乌龟怎么办？… 那还是放我姐那边: the turtle)
            before = sentences[k - 1][1] if k and isinstance(sentences[k - 1][1], str) else ""
            # the user of a chat with an assistant tells of their life without "I" too
            told = heard if assistant_chat and block.role == "user" else None
            readings = (read_chinese(span, names, own=own or answer, before=before,
                                     earlier=earlier.get(block.speaker, ""))
                        if isinstance(span, str) else [read_english(span, names, told)])
            answer_to = answered.answer(block.speaker, span, readings) if answered else None
            if answer_to is not None:  # "How often do you see sunsets?" — "I see them weekly"
                readings = [answer_to.reading]
            if own and not isinstance(span, str):
                readings = [own_line(span, names, readings[0])]
            elif asked_after and not isinstance(span, str) and _no_topic(readings) \
                    and answers_about_it(span):
                readings = [Reading(asked_after)]  # "How did Theo's gala go?" — "it went well"
                asked_after = ()
            if told is not None and k == 0 and was_asked and not isinstance(span, str) \
                    and _no_topic(readings) and (what := names_what_was_asked(span, names)):
                readings = [Reading(what)]  # "What's the job?" — "It's a data analyst job"
            if told is not None and k == 0 and turns[i - 1].role == "assistant" \
                    and not isinstance(span, str) and echoes_the_verb(span, asked_verb) and (being := _being_told_of(
                        said, _person(block.speaker, assistant_chat))):
                readings = [Reading(tuple(dict.fromkeys((being, *(  # "Is she eating?" —
                    t for r in readings if r is not None for t in r.topics)))))]  # "Eating again"
            if told is not None and readings == [None] and _names_a_day(span):
                readings = [Reading((), context=True)]  # "fridays mostly": when
            english_told = told is not None and not isinstance(span, str)
            if english_told and headline(span) and (after := _told_next(
                    sentences[k + 1:] or (split[i + 1] if i + 1 < len(turns) and turns[
                        i + 1].speaker == block.speaker else []), names, told)):
                readings = [Reading(after)]  # "got the keys!!!" — "Completion went through"
            if english_told and _no_topic(readings) and (being := names_it(span, names)):
                readings = [Reading(being)]  # "its Bisto, the brown lad": who it is
            if english_told and _no_topic(readings) and \
                    (being := told_of_before(span, previous[0], names)):
                readings = [Reading(being)]  # "pip is ok now" — "he sleeps on the radiator"
                if said and said[-1].text == previous[1] and not said[-1].topics:
                    said[-1].topics, said[-1].context = being, False  # "pip is ok now" too
            if english_told and k == 0 and turns[i - 1].role != "assistant" \
                    and _no_topic(readings) and said and said[-1].text == previous[1] \
                    and not said[-1].topics and (
                        whole := completes_before(span, previous[0], names)):
                # "failed 🙃" — "roundabouts": one sentence texted as two messages (not
                # "Sent. Thanks", two sentences of one message)
                readings = [Reading(whole)]
                said[-1].topics, said[-1].context = whole, False
            if english_told and _no_topic(readings) and \
                    (taken := took_up(span, heard, spoken_of)):
                readings = [Reading(taken)]  # the helmet suggested — "bought one"
            if english_told:
                spoken_of += [t for t in heard_topics(span, names)  # in the user's words
                              if any(same_topic(h, t) for h in heard)]
            previous_text = previous[1]
            previous = (None, "") if isinstance(span, str) else (span, text)
            if english_told and said and said[-1].text == previous_text and said[-1].topics \
                    and says_who_it_is(span):  # "taco has skin stuck …" — "hes my leopard
                # gecko btw": the note on Taco, saying what Taco is
                readings = [Reading(tuple(dict.fromkeys((said[-1].topics[0], *(
                    t for r in readings if r is not None for t in r.topics)))))]
            requested = next((r.requested for r in readings if r is not None and r.requested), ())
            if requested and said and (k or turns[i - 1].role != "assistant") \
                    and said[-1].text == previous_text and not said[-1].topics:
                readings = [Reading(requested)]  # "ugh postponed again" — "can u help me prep
                # answers for my nursing interview": what the burst told of
            elif requested:
                asked_of = None
            if asked_of is not None and not isinstance(span, str) and speaks_of_it(span) \
                    and _no_topic(readings):
                asked_of[0].topics, asked_of[0].context = asked_of[1], False
                asked_of = None  # "Can you help me price my packages?" — "I've been doing it …"
            if asked_of is not None and not isinstance(span, str) and \
                    tells_of_him_or_her(span) and _no_topic(readings):
                asked_of[0].topics, asked_of[0].context = asked_of[1], False
                asked_of = None  # "Is it ok to give my ferret chicken?" — "She's called …"
            for reading in (r for r in readings if r is not None):
                said.append(_Said(_person(block.speaker, assistant_chat), text, reading.topics,
                                  group, first[block.index], context=reading.context,
                                  order=len(said), label=block.speaker,
                                  answers=answer_to))
                said += [_Said(said[-1].speaker, text, clause, group, first[block.index],
                               order=len(said) + n, label=block.speaker)
                         for n, clause in enumerate(reading.apart)]
                if reading.asked_of:
                    asked_of = (said[-1], reading.asked_of)
                if reading.requested and not reading.topics:
                    asked_of = request_open = (said[-1], reading.requested)
        if request_open is not asked_of:
            request_open = None  # taken up in the turn, or another thing asked after it
        if answered is not None:
            answered.turn_ends(block.speaker, sentences)
        if not refers_back(texts[i]):  # 它今年九岁了: still the dog named before
            earlier[block.speaker] = texts[i]
        if confirmed:  # the "yes" itself, quoted with the question it answers
            topics = _confirmed_topics(split[i - 1], names)
            yes = sentences[0][0] if sentences else texts[i]
            said.append(_Said(_person(block.speaker, assistant_chat), yes, topics, group,
                              first[block.index], confirms=confirmed, order=len(said),
                              label=block.speaker))
    return said, len(turns)


def _told_next(sentences: list[tuple[str, object]], names: frozenset[str],
               heard: list[Topic]) -> tuple[Topic, ...]:
    """The topics of the next sentence of the speaker's, when it is English and names any."""
    if not sentences or isinstance(sentences[0][1], str):
        return ()
    reading = read_english(sentences[0][1], names, heard)
    return reading.topics if reading is not None else ()


def _being_told_of(said: list[_Said], speaker: str) -> Topic | None:
    """The note of the statement where the speaker last said what one they name is
    ("Pixel's a rescue", `topics.named_as`) — whom a "he"/"she" of the assistant's stands
    for: an answer about them goes with what was said of them."""
    for s in reversed(said):
        if s.speaker == speaker and s.topics and not s.context and not is_cjk(s.text[:1]) \
                and any(named_as(sent, frozenset()) for sent in english_docs([s.text])[0].sents):
            return s.topics[0]
    return None


def said_by(said: list[_Said]) -> str:
    """The label of who spoke last among `said`'s turns ('' before any)."""
    return said[-1].label if said else ""


def _confirmed(sentences: list[tuple[str, object]], names: frozenset[str]) -> str:
    """The assistant's question about the user that a "yes" confirms ("So you're allergic
    to peanuts?", "Your driving test?"): its sentence whose subject is "you", or a
    question that names a thing of theirs, and that names a topic."""
    for text, span in reversed(sentences):
        if (isinstance(span, str) or is_question(span) or any(
                second_person(t) and t.dep_ in ("nsubj", "nsubjpass") for t in span)) \
                and _you_topics(span, names):
            return text
    return ""


def _you_topics(span, names: frozenset[str]) -> tuple[Topic, ...]:
    if isinstance(span, str):  # Chinese (你是在深圳工作吗？): jieba's parts of speech
        return tuple(Topic(t, (t,)) for t in asked_of_listener(span, names))
    heads = [t.head for t in span if second_person(t) and t.dep_ in ("nsubj", "nsubjpass")]
    found = []
    for head in heads:
        domain = {t.i for t in clause_of(head, names)}
        found += [tp for c in span.noun_chunks if c.root.i in domain and not second_person(c.root)
                  and (tp := topic_from_chunk(c, names))]
    if not found and is_question(span) and not any(
            first_person(t) and t.dep_ == "nsubj" for t in span):  # "Your driving test?":
        # the thing of the user's a question names is what their "yes" is about (not an
        # offer: "Should I add a paragraph on your Excel skills?")
        found = [tp for c in span.noun_chunks if len(c) > 1 and second_person(c[0])
                 and c[0].dep_ == "poss"
                 and (tp := topic_from_chunk(c[1:], names, any_role=True, yours=True))]
    return tuple(found)


def _confirmed_topics(sentences: list[tuple[str, object]], names: frozenset[str]) -> tuple[Topic, ...]:
    for _, span in reversed(sentences):
        if found := _you_topics(span, names):
            return found
    return ()


@dataclass
class _Unit:
    person: str
    topic: Topic
    said: list[_Said] = field(default_factory=list)


def plan_conversation(
    blocks: Sequence[Block], statements: Sequence[Statement], *, day: date | None,
    max_units: int = CONVERSATION_UNITS,
) -> tuple[list[UnitPlan], list[ConversationSkip]]:
    """Units about the people of one session (see the module doc), and why nothing came
    of the session when nothing did."""
    said, turns = said_about(blocks, statements)
    assistant_chat = chat_kind(blocks) == "assistant"
    units: list[_Unit] = []
    waiting: list[_Said] = []  # context before the first statement of its turn
    for s in said:
        if not s.topics:  # "I love it so much", "the commute is 40 minutes": it joins the
            # unit its turn is on (context: or the next statement's in the same turn)
            home = next((u for u in reversed(units) if u.person == s.speaker
                         and u.said[-1].turn == s.turn), None)
            if home is not None:
                home.said.append(s)
            elif s.context or assistant_chat:  # "postponed again", texted to an assistant
                waiting.append(s)  # before what was postponed: it waits too
            continue
        early = [w for w in waiting if w.speaker == s.speaker and w.turn == s.turn]
        waiting = [w for w in waiting if w.turn == s.turn and w not in early]
        main = s.topics[0]
        home = next((u for u in units if u.person == s.speaker and same_topic(u.topic, main)),
                    None)
        if home is None:
            units.append(_Unit(s.speaker, main, [*early, s]))
        else:
            home.said += [*early, s]
            if len(main.words) < len(home.topic.words) and main.key <= home.topic.key:
                pass  # the unit keeps the fuller name ("LGBTQ support group", not "group")
            elif home.topic.key < main.key:
                home.topic = main
    if not units:
        why = "small talk only" if turns else "no statement"
        return [], [ConversationSkip("the whole session", why)]
    bucket = "personal" if assistant_chat else "wiki"
    plans = [_plan(u, bucket, day) for u in units]
    chosen = sorted(plans, key=lambda p: (-p.score, p.position))[:max_units]
    return sorted(chosen, key=lambda p: p.position), []


def _plan(unit: _Unit, bucket: str, day: date | None) -> UnitPlan:
    person, topic = unit.person, unit.topic.text
    if person == "the user" and any(map(is_cjk, topic)):  # a role label ("User:", a JSON
        person = "用户"  # role) in a Chinese chat: the user is named in Chinese
    cjk = is_cjk(topic[:1]) or is_cjk(person[:1])
    name = f"{person}的{topic}" if cjk else (
        f"{person} {topic}" if unit.topic.predicate else f"{person}'s {topic}")
    if name[:1].islower():
        name = name[:1].upper() + name[1:]
    unit.said.sort(key=lambda s: s.order)
    statements = list(dict.fromkeys(s.statement for s in unit.said))
    plan = UnitPlan(bucket, name[:120], float(len(unit.said)) + 0.1 * len(unit.topic.words),
                    statements, head=statements[0])
    plan.person, plan.topic = person, topic
    plan.topics = list(dict.fromkeys(t.text for s in unit.said for t in s.topics))
    plan.said = [_quote(s, cjk) for s in unit.said]
    dates = list(dict.fromkeys(d for s in unit.said for d in resolve_dates(s.text, day)))
    plan.when = "; ".join(dates)
    plan.summary = f"{person}: " + " ".join(plan.said)
    told = [s for s in unit.said if s.topics and not s.context]
    heard = told + [s for s in unit.said if s not in told]  # a statement of it first
    lead = heard[0] if cjk else heard[describing(
        [s.text for s in heard], unit.topic.words,
        framed=frozenset(i for i, s in enumerate(heard) if s.confirms))]
    plan.description = _shorten(f"{person}：{_quote(lead, True)}" if cjk
                                else f"{person}: {_quote(lead, False)}")
    return plan


def attributed(label: str, said: str) -> str:
    """What a speaker of a chat with an assistant said, as a description: who said it
    (their name, or "the user" for a bare label) and their words in quotation marks."""
    person = _person(label, True)
    cjk = is_cjk(person[:1]) or is_cjk(said.strip()[:1])
    return _shorten(f"{person}：“{said.strip()}”" if cjk else f'{person}: "{said.strip()}"')


def _shorten(text: str, limit: int = 200) -> str:
    """A description of at most `limit` characters, cut at a word with "…" and its
    closing quotation mark kept."""
    if len(text) <= limit:
        return text
    close = text[-1] if text[-1] in "\"”" else ""
    cut = text[: limit - 2].rsplit(" ", 1)[0] if " " in text[:limit] else text[: limit - 2]
    return cut.rstrip(",;: ") + "…" + close


def _quote(s: _Said, cjk: bool) -> str:
    text = s.text.strip()
    if s.answers is not None:  # "them" says what only with the question it answers
        return f'answering {s.answers.asker}\'s "{s.answers.question}": "{text}"'
    if s.confirms:
        lead = "确认了助手的" if cjk else "confirming the assistant's "
        return f"{lead}“{s.confirms}”：“{text}”" if cjk else f'{lead}"{s.confirms}": "{text}"'
    return f"“{text}”" if cjk else f'"{text}"'


def render_bullet(plan: UnitPlan, day: date | None, provenance_target: str) -> str:
    """One session's bullet: its date, who said it, what they said in quotes, the relative
    dates resolved, and the session as provenance, inline so that every bullet says where
    it came from."""
    when = f"**{day.isoformat()}** " if day else ""
    cjk = is_cjk(plan.person[:1]) or is_cjk(plan.topic[:1])
    quotes = " ".join(plan.said)
    dates = f" ({plan.when})" if plan.when else ""
    return (f"- {when}{plan.person}{'：' if cjk else ': '}{quotes}{dates} "
            f"(derived_from:: [[{provenance_target}]])")


# -- integrate ------------------------------------------------------------------------------------


def _topic_of_name(name: str, person: str) -> Topic | None:
    """The topic part of a note named by person and topic ("caroline-s-lgbtq-support-group",
    "Caroline's LGBTQ support group", "王芳的猫"), or what it says of them ("Marek does not
    cycle": the verb, as `topic_of` reads it)."""
    text = re.sub(r"[-_]+", " ", name).strip()
    bare = re.sub(r"^the ", "", person, flags=re.I)  # "the user's allotment": user-s-allotment
    for sep in (f"{person}'s ", f"{person}’s ", f"{person} s ", f"{person}的", f"{person} ",
                f"{bare} s "):
        if text.lower().startswith(sep.lower()):
            rest = text[len(sep):]  # a slug is lowercase: a name the tagger then reads as no
            # noun ("nikon") is still the topic the note was named by, word for word
            return topic_of(rest) or Topic(rest, tuple(w.lower() for w in rest.split()))
    return None


def person_topic_match(request: IntegrateRequest, plan: UnitPlan) -> CandidateNote | None:
    """The note about the same person and topic (docs/spec.md §5.5.4): of the unit's
    bucket, named by the person and a topic that is the unit's (`same_topic`)."""
    mine = [t for t in (topic_of(plan.topic), *map(topic_of, plan.topics[:2])) if t]
    for cand in request.candidates:
        if not cand.path.startswith(f"digest/{plan.bucket}/"):
            continue
        theirs = _topic_of_name(cand.name, plan.person)
        if theirs is not None and mine and (same_topic(mine[0], theirs)
                                            or one_key(plan.name, cand.name)):
            return cand  # one_key: the name's words read as a noun ("dreams"), dream/keys.py
    return None


def conversation_decision(request: IntegrateRequest, plan: UnitPlan, day: date | None
                          ) -> IntegrateDecision:
    """CORROBORATE the note on the same person and topic with this session's dated bullet
    (the old body kept byte for byte, the bullet after it), or CREATE one; a note that
    already holds this session's words is left as it is (the pipeline proposes nothing)."""
    material = request.material.path
    bullet = render_bullet(plan, day, material)
    match = person_topic_match(request, plan)
    if match is not None:
        body = match.body
        if not cites(body, material) or not all(said in body for said in plan.said):
            # after the old body as it is, blank lines too: a corroborate only adds lines
            # (docs/spec.md §3.7.3), else it waits for a person
            body += ("" if not body or body.endswith("\n") else "\n") + bullet + "\n"
        description = (match.description.strip() or plan.description or plan.name)[:300]
        return IntegrateDecision(
            action="UPDATE", flavor="CORROBORATE", target_path=match.path,
            name=match.name.strip() or None, description=description, body=body,
            rationale=(f"offline rules: {match.path} is the note on {plan.person}'s "
                       f"{plan.topic}; CORROBORATE: old body kept, this session's words "
                       "added as a dated, quoted bullet with its provenance."))
    return IntegrateDecision(
        action="CREATE", name=plan.name, description=(plan.description or plan.name)[:300],
        body=bullet + "\n",
        rationale=(f"offline rules: no note on {plan.person}'s {plan.topic} among the "
                   "candidates; what they said, quoted, a dated bullet per session."))
