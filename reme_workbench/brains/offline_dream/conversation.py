"""Conversations between people (docs/spec.md §5.2.8–5.2.10): what each person states
about themselves becomes a unit about them, the rest of the talk is left out.

A chat whose speakers are all people (no agent among them: a conversation between two
friends, a chat a person logged) is read turn by turn:

* a turn keeps its speaker; an image caption or id in brackets (`[image: …]`,
  `(D1:3)`) is not something the speaker said;
* each sentence is a *reaction* — a greeting, thanks, a compliment, "sounds like …",
  "looks like …", "that's great", "wow", a question back, an emoji — and left out,
  whatever its grammatical form, unless it states something about the speaker (a first
  person: I, my, we, 我) *and* names a topic (a noun phrase: "a LGBTQ support group",
  "pottery", "陶艺课"). "I love them so much" names none and is a reaction too;
* what is left is a *statement*, attributed to its speaker ("I went" → "Caroline
  went"; "you" → the other person), its relative dates resolved from the session's date
  ("yesterday" → "yesterday (2023-05-07)");
* a speaker's statements of one session that share a topic word (or one turn) are one
  unit, named by person and topic ("Caroline's support group", "林晓的陶艺课");
* its note is a list of dated bullets, one per session, each with its session as
  provenance (`(derived_from:: [[…]])`), so a later session on the same person and topic
  CORROBORATEs the note with one more bullet (offline.py) instead of writing a second.

Who a note is about decides its bucket (docs/spec.md §5.2.9): the people of a
conversation with no agent in it are other people than the vault's user, and what is
known about other people is `wiki` (what X is, what happened). A chat with the agent is
read by the log rules: there the other speaker is the user, whose rules are `personal`.

Rule-based and says so: topics are found by form (a determiner before a noun phrase, an
activity in -ing, a proper noun; jieba's parts of speech for Chinese), never by meaning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from ...llm.base import CandidateNote, IntegrateRequest
from ...llm.schema import IntegrateDecision
from ...textrules import STOPWORDS, is_cjk, plain, split_sentences, tokens
from ...vault.links import is_provenance, parse_links
from .statements import Block, Statement, is_agent
from .units import UnitPlan

__all__ = [
    "CONVERSATION_UNITS", "is_conversation", "plan_conversation", "ConversationSkip",
    "resolve_dates", "attribute", "is_reaction", "topic_phrases", "same_topic",
    "render_bullet", "topic_of_name", "person_topic_match", "conversation_decision",
]

CONVERSATION_UNITS = 12  # units of one session at most: the topics with most to say
MIN_STATEMENT_WORDS = 3  # content words a statement carries besides its topic's (a dated
# event with a topic is kept with fewer: "We had a picnic last week")
MAX_TOPIC_WORDS = 3

# -- reading a turn ----------------------------------------------------------------------------

# what a turn shows rather than says: "[image: a photo of a dog]", "[shares a photo …]"
_CAPTION = re.compile(
    r"\s*[\[(](?:image|img|photo|picture|pic|sticker|gif|video|link|shares?|sent|图片|照片|表情|视频)"
    r"\b[^\])]*[\])]|\s*!\[[^\]]*\]\([^)]*\)|\s*\[(?:图片|照片|表情)[^\]]*\]", re.I)
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200d]+")
# a sentence's opening interjection: "Yeah, I painted …", "Hey Mel! …", "哈哈，…"
_INTERJECTION = re.compile(
    r"^(?:(?:yeah|yea|yes|yep|yup|oh|ooh|oh wow|wow|whoa|hey|hi|hello|well|haha+|hehe|lol|aw+|"
    r"omg|thanks|thank you|so|and|but|btw|by the way|anyway|anyways|honestly|actually|totally|"
    r"thankfully|luckily|fortunately|unfortunately|sadly|on (?:another|a (?:different|side|lighter))"
    r" note|in other news|speaking of which|"
    r"definitely|sure|right|ok|okay|nah|no|gosh|man|hmm+|ha|ah|um+|true|exactly|absolutely|"
    r"awesome|cool|great|nice|sweet|lovely|amazing|congrats|congratulations)"
    r"(?:\s+[A-Z][a-z]+)?\s*[,!.…~-]+\s*)+", re.I)
_INTERJECTION_ZH = re.compile(r"^(?:对了|话说|是啊|是的|没错|其实|还行|哈+|嗯+|哦+|啊+|哇+|呀|嘿|好的?|对)[，,！!。~～\s]*")
# a reaction, whatever follows: compliments, agreement, "sounds like …", "that's great"
_REACTION = re.compile(
    r"^(?:wow|whoa|aw+|omg|yay|haha|lol|thanks|thank you|thx|congrats|congratulations|"
    r"sounds?|looks?|seems?|that'?s|that is|this is|those are|these are|what a|how (?:cool|nice|"
    r"great|awesome|lovely|sweet|fun|amazing|exciting|wonderful)|so (?:cool|nice|great|sweet|"
    r"fun|true|glad|happy|proud)|you(?:'re| are|'ve| have|'d| would|'ll| will| can| must| should"
    r"| did| got| look| sound|r)\b|good (?:for you|luck|idea|point|to hear|job|one)|well done|"
    r"glad|happy (?:for|to hear)|proud of|sorry|bye|goodbye|see you|see ya|take care|talk soon|"
    r"talk to you|catch you|have (?:a|fun)|enjoy|keep (?:it )?up|can'?t wait|i bet|hope (?:you|it|"
    r"that|so)|i hope (?:you|it|that|so)|i (?:totally |completely |really )?(?:agree|understand|"
    r"know (?:what|how|right)|get (?:it|that|you)|hear you|feel you|see what)|i(?:'m| am) (?:so |"
    r"really |super |truly )?(?:happy|glad|proud|sorry|excited|thrilled) (?:of|for|to hear|that you|you)|"
    r"i(?:'m| am|'ll| will) (?:always )?(?:be )?(?:here|there) for you|i(?:'d| would) "
    r"love to (?:see|hear)|love (?:it|that|this|them|your|the)|i (?:love|like|adore) (?:it|that|this|"
    r"them|those|your)|me too|same here|no way|of course|for sure|it'?s (?:so|really|great|good|"
    r"awesome|amazing|cool|nice|lovely|beautiful|wonderful|fantastic|incredible|inspiring)|"
    r"let me know|let'?s (?:catch up|talk|chat)|cheers|hugs|xoxo|give|tell|say hi|send|"
    r"come (?:over|visit)|stay (?:warm|safe|cool))\b", re.I)
_REACTION_ZH = re.compile(
    r"^(?:哇|哈|太[棒好美赞厉]|真[棒好美赞厉不]|好[棒厉美]|谢谢|多谢|感谢|恭喜|加油|辛苦|听起来|看起来|"
    r"你(?:真|太|好|一定|肯定|会|也|呢|说|看)|拜拜|再见|晚安|早安|早上好|周末愉快|不错|厉害|羡慕|"
    r"好羡慕|我也是|同意|确实|是啊|对啊|没问题|玩得开心|祝你)")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we|we're|we've|our|us)\b", re.I)
_FIRST_PERSON_ZH = re.compile(r"我")


_CLAUSE = re.compile(r"\s+[-–—]+\s+|;\s+|——|；")


def clean_turn(text: str) -> str:
    """A turn's words as said: its image captions, ids and emoji taken out."""
    return " ".join(_EMOJI.sub(" ", _CAPTION.sub(" ", plain(text))).split())


def _strip_interjections(sentence: str) -> str:
    s = _INTERJECTION.sub("", sentence).strip()
    s = _INTERJECTION_ZH.sub("", s).strip()
    return s[:1].upper() + s[1:] if s and s[0].isalpha() and not is_cjk(s[0]) else s


_NAMED_SUBJECT = re.compile(r"^([A-Z][a-z]{2,})\s+([a-z]+s|is|was|has|had|just|still|"
                            r"finally|loves|went|got|made|took|ran|started|turned)\b")
# what ends a noun or an adjective, never a verb of a name ("Thank goodness", "Check this")
_NOT_VERB = re.compile(r"(?:ness|ss|ous|us|is|ics|ies)$")


def _named_subject(sentence: str, names: frozenset[str] = frozenset()) -> bool:
    """A sentence about someone or something named ("Comet sleeps all day on the sofa",
    "Anika found a flat"): a statement too, though it has no first person. By form: the
    subject is not an activity in -ing ("Dancing is …" is a remark on dancing), and the
    word after it can be a verb ("Thank goodness …" is thanks: -ness ends a noun)."""
    m = _NAMED_SUBJECT.match(sentence.strip())
    if not m or m.group(1) in names or m.group(1).lower() in _NOT_TOPIC \
            or m.group(1).lower() in _PRESENT or m.group(1).lower() in _COMMANDS:
        return False
    verb = m.group(2)
    return not m.group(1).endswith("ing") and not (verb.endswith("s") and _NOT_VERB.search(verb)
                                                   and verb not in ("is", "was", "has"))


def is_reaction(sentence: str) -> bool:
    """Backchannel: a greeting, thanks, compliment, agreement, "sounds like …", a
    question back, an emoji — never a unit, whatever its form."""
    s = sentence.strip().strip("\"'“”「」*_ ")
    if not s or not any(ch.isalnum() for ch in s):
        return True
    if s.endswith(("?", "？")) or re.search(r"[?？]\s*[!！.。]*$", s):
        return True
    cjk = sum(map(is_cjk, s)) > len(s) / 3
    if cjk:
        return bool(_REACTION_ZH.match(s)) or not _FIRST_PERSON_ZH.search(s)
    if _REACTION.match(s) or _general_remark(s):
        return True
    return not (_FIRST_PERSON.search(s) or _named_subject(s))


_SINGULAR_FIRST = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself)\b", re.I)
_GERUND_SUBJECT = re.compile(r"^[A-Z][a-z]+ing\b")
_GENERIC_US = re.compile(r"\b(?:us|ourselves)\b", re.I)
_WE_FIRST = re.compile(r"^(?:we|we're|we've|we'd|we'll)\b", re.I)
# a past or finished event: "we had a blast", "it reminded me", "we went"
_PAST = re.compile(r"\b(?:was|were|had|did|went|got|made|took|saw|felt|came|met|\w{3,}ed)\b", re.I)


def _general_remark(sentence: str) -> bool:
    """A remark on life in general, not a statement about the speaker, when the first
    person, if any, is only "we / our / us" — people at large: an activity as the subject
    ("Showing off our true selves is the best thing ever", "Investing in our future
    generations is key"), or "us" said of everyone in the present tense ("Our loved ones
    give us strength", "Art's awesome for showing us who we really are"). With "I / my /
    me" it is about the speaker ("Painting landscapes is my favorite") and stays, as does
    an event ("We had a blast at the Pride fest", "We bond over stories")."""
    if _SINGULAR_FIRST.search(sentence):
        return False
    if _GERUND_SUBJECT.match(sentence):
        return True
    return bool(_GENERIC_US.search(sentence) and not _WE_FIRST.match(sentence)
                and not _PAST.search(sentence))


# -- who said it ---------------------------------------------------------------------------------

# present-tense verbs a person says of themselves ("I love", "I work"): after a name they
# take an -s; any other word after "I" is left as it is ("I went", "I painted")
_PRESENT = frozenset(
    "love like want need have do go think know feel enjoy hope work live plan try make take get "
    "play paint run read write teach study volunteer own keep prefer hate miss wish believe "
    "remember use spend visit see say mean find call watch help adore practice practise collect "
    "cook bake swim dance sing draw hike travel attend belong care dream wonder agree guess "
    "struggle worry cherish value admire appreciate look seem sound stay come bring carry drive "
    "walk ride train coach mentor lead manage rent raise foster adopt start stop finish begin "
    "move plan".split())
# verbs that open a command ("Gather documents like references …"), not a name
_COMMANDS = frozenset(
    "gather check ask join bring put send give show grab pick build fill book sign register "
    "apply contact email text message click follow share post set tell".split())
_ADVERB = frozenset(
    "also just really totally finally recently actually always never usually still even already "
    "often sometimes only truly definitely honestly mostly absolutely especially".split())


def _third_person(verb: str) -> str:
    """A present-tense verb after a name: "love" -> "loves" (a short list, said so)."""
    low = verb.lower()
    if low not in _PRESENT:
        return {"am": "is", "were": "was"}.get(low, verb)
    if low in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[low]
    if low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    if low.endswith(("sh", "ch", "x", "z", "o", "ss")):
        return verb + "es"
    return verb + "s"


def attribute(sentence: str, speaker: str, other: str = "") -> str:
    """The sentence with its speaker's name for "I" and the other person's for "you":
    a note about a person never says "I" or "you" (docs/spec.md §5.2.8)."""
    if sum(map(is_cjk, sentence)) > len(sentence) / 3:
        out = re.sub(r"我(?=妈|爸|哥|姐|弟|妹|老公|老婆|女朋友|男朋友|家)", f"{speaker}的", sentence)
        out = re.sub(r"我(?!们)", speaker, out)
        return re.sub(r"你(?!们)", other, out) if other else out
    name = speaker

    def subject(m: re.Match[str]) -> str:
        word = m.group(2)
        if word.lower() in _ADVERB and m.group(3):  # "I really love" -> "really loves"
            return f"{name} {word} {_third_person(m.group(3))}"
        return f"{name} {_third_person(word)}" + (f" {m.group(3)}" if m.group(3) else "")

    out = re.sub(r"\bI'm\b|\bI am\b", f"{name} is", sentence)
    out = re.sub(r"\bI've\b", f"{name} has", out)
    out = re.sub(r"\bI'd\b", f"{name} would", out)
    out = re.sub(r"\bI'll\b", f"{name} will", out)
    out = re.sub(r"\b(I) ([A-Za-z]+)(?: ([a-z]+))?\b", subject, out)
    out = re.sub(r"\bI\b", name, out)
    out = re.sub(r"\b[Mm]y\b|\b[Mm]ine\b", f"{name}'s", out)
    out = re.sub(r"\b[Mm]yself\b", "themselves", out)  # "express myself": not "express Caroline"
    out = re.sub(r"(?<![A-Za-z'-])me\b(?!-)", name, out)
    if other:
        out = re.sub(r"\b[Yy]our\b|\b[Yy]ours\b", f"{other}'s", out)
        out = re.sub(r"\b[Yy]ou're\b", f"{other} is", out)
        out = re.sub(r"\b[Yy]ou've\b", f"{other} has", out)
        out = re.sub(r"\b[Yy]ou\b(?! guys| all)", other, out)
    return out


# -- when ------------------------------------------------------------------------------------------

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
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
        target = _WEEKDAYS.index(m.group(2))
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


def resolve_dates(text: str, day: date | None) -> str:
    """Relative dates resolved from the session's day: "yesterday" -> "yesterday
    (2023-05-07)", "last year" -> "last year (2022)", "上周" -> "上周（the week of …）"."""
    if day is None:
        return text

    def en(m: re.Match[str]) -> str:
        when = _resolve(m.group(1), day)
        return f"{m.group(1)} ({when})" if when else m.group(1)

    def zh(m: re.Match[str]) -> str:
        when = _resolve(m.group(1), day)
        return f"{m.group(1)}（{when}）" if when else m.group(1)

    return _RELATIVE_ZH.sub(zh, _RELATIVE.sub(en, text))


# -- topics ----------------------------------------------------------------------------------------

_DETERMINERS = frozenset(
    "a an the my our his her their your this that these those some another any every "
    "two three four five several few".split())
_PREPOSITIONS = frozenset("to at in into on about for with from of".split())
# an activity in -ing is a topic after these ("love painting", "went camping", "into pottery")
_ACTIVITY_AFTER = frozenset(
    "love loves loved like likes liked enjoy enjoys enjoyed start started starting try tried "
    "go goes went gone going been into of for about do did doing took take keep kept hate miss "
    "missed learn learning new favorite favourite my our some".split())
# words that end or never start a topic: function words, verbs of saying and being
_NOT_TOPIC = STOPWORDS | frozenset(
    "really so too very pretty quite such much lot lots bit kind sort way ways thing things stuff "
    "something anything everything nothing someone anyone everyone one ones people person guy guys "
    "time times day days week weeks month months year years moment while place part end start "
    "life world kind feeling feelings idea ideas reason others other same whole own sure able "
    "fun great good nice cool awesome amazing lovely beautiful wonderful fantastic special big "
    "little huge small best better new old real whole favorite favourite incredible exciting "
    "inspiring interesting important hard tough happy glad sad proud excited lucky busy tired "
    "yesterday today tomorrow tonight morning evening night weekend last next ago recently soon "
    "gonna wanna gotta got get gets getting been being doing going having making taking trying "
    "thinking feeling looking saying telling seeing knowing felt feel think know thought "
    "love loved loves like liked likes enjoy enjoyed want wanted need needed hope hoped "
    "is are was were be am has have had did does do done made make take took went go goes "
    "said says tell told see saw seen let lets keep kept try tried start started finally "
    "also just even still always never usually actually totally definitely honestly "
    "i i'm i've i'd i'll me my mine myself we us our you your he she it they them "
    "you're you've you'll you'd we're we've they're it's that's there's here's what's "
    "happened happen remind reminds sense celebrate relax chat chats pic pics photo photos "
    "picture pictures help bring sign eye eyes quiet step steps lots plenty bunch couple "
    "fri sat sun mon tue wed thu yeah yes okay wow thanks hey hi super totally awesome "
    "soon ago later lately still far close around else enough matter sometime "
    "isn't aren't wasn't weren't don't doesn't didn't can't won't wouldn't haven't hasn't "
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "june july august september october november december right wrong true perfect "
    # what a remark is about, never a memory ("make a difference", "had a blast")
    "fan fans difference blast challenge challenges nudge precaution soul motivation togetherness "
    "spot strength courage peace serenity awe joy happiness beauty power bad worse worst "
    "fine random bummer effort everywhere anywhere somewhere nowhere anytime whenever "
    "afterward afterwards beside besides shouldn't couldn't mustn't needn't "
    "it'll that'll we'll they'll you'll he'll she'll it'd that'd won't "
    "one two three four five six seven eight nine ten eleven twelve twenty hundred "
    "thousand".split())
# what ends a phrase before it starts: a placeholder noun the determiner was for ("the place
# look like …", "some people outside of …", "a look at the sunset", "our true selves") or a
# preposition ("our all during …"); a modifier before the phrase ("a really big …") is skipped
_PHRASE_BREAK = _PREPOSITIONS | frozenset(
    "thing things stuff place places people person one ones way ways time times day days "
    "moment moments while part end kind sort lot lots bit look looks sound sounds pic pics "
    "photo photos picture pictures self selves spot during outside inside over under before after "
    "since until through around without across behind beyond near between among against "
    "toward towards than".split())
# past tenses that end no -ed: a phrase ends before them ("my brother wrote a book")
_PAST_VERBS = frozenset(
    "wrote went got made took saw came said told gave found thought felt met ran sent bought "
    "brought left kept began knew grew drew drove flew won lost paid read sold spent taught"
    .split())
_OBJECTS = frozenset("me us him her them you".split())
_QUANTITY = frozenset(
    "group groups bunch couple pair set handful ton tons number series variety range kind "
    "sort type lot lots bit piece".split())
_PLACEHOLDER = frozenset(
    "thing things stuff place places people person one ones way ways time times day days "
    "moment moments while part end kind sort lot lots bit look looks self selves spot".split())
_NOT_ACTIVITY = frozenset(
    "something anything everything nothing morning evening during thing amazing exciting "
    "interesting inspiring relaxing rewarding challenging fascinating annoying boring "
    "surprising touching heartwarming encouraging refreshing satisfying calming stunning "
    "charming exhausting going doing getting thinking feeling trying looking making taking "
    "having being saying telling seeing knowing planning hoping wanting loving liking "
    "starting keeping letting coming bring bringing putting realizing realising wondering "
    "remembering talking speaking happening finding".split())
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9'-]*|[.,;:!?()&/\"“”–—]")
_ZH_NOUN = frozenset(("n", "nz", "ns", "nt", "nr", "vn", "nrt", "nw", "an"))
_ZH_NOT_TOPIC = frozenset(
    "时候 事情 东西 感觉 时间 地方 事儿 样子 问题 一下 今天 昨天 明天 周末 朋友们 有点 一点 有些 "
    "最近 现在 以后 之前 下次 那边 这边 小时 分钟 公里 块钱".split())


def _verb_s(word: str) -> bool:
    """A present-tense verb after a noun ("brings", "gives", "makes"), by a short list."""
    return word.endswith("s") and (word[:-1] in _PRESENT or word[:-1] in _COMMANDS
                                   or (word.endswith("es") and word[:-2] in _PRESENT))


def _clean_word(w: str) -> str:
    return w.lower().strip("'").removesuffix("'s")


def topic_phrases(sentence: str, names: frozenset[str] = frozenset()) -> list[str]:
    """Noun phrases a statement is about, by form: after a determiner ("a LGBTQ support
    group"), a preposition's object ("keen on counseling"), an activity ("love painting"),
    a proper noun ("Paris"); for Chinese, jieba's nouns (陶艺课). Best first; names of the
    speakers are not topics."""
    if sum(map(is_cjk, sentence)) > len(sentence) / 3:
        return _topics_zh(sentence, names)
    words = _WORD_RE.findall(sentence)
    lower = [_clean_word(w) for w in words]
    names = names | {w for w in words if w[:1].isupper() and len(w) >= 3
                     and any(n.startswith(w) and n != w for n in names)}  # "Mel" for Melanie
    found: list[tuple[float, int, str]] = []

    def take(i: int, bonus: float) -> None:
        run: list[str] = []
        j = i
        while j < len(words) and len(run) < MAX_TOPIC_WORDS + 1:
            w, lw = words[j], lower[j]
            if lw.endswith("s") and j + 1 < len(words) and lower[j + 1] in _OBJECTS:
                break  # "that's what drives us", "it brings me joy": a verb, no topic
            if lw in _QUANTITY and j + 1 < len(words) and lower[j + 1] == "of":
                if run:
                    break
                j += 2  # "a group of religious conservatives": the conservatives
                continue
            if lw in _PHRASE_BREAK:
                if lw in _PLACEHOLDER:  # "a trans person", "a bad spot": modifiers of a
                    run = []  # placeholder name nothing
                break
            proper = (w[0].isupper() and j > 0 and words[j - 1] not in (".", "!", "?")
                      and j + 1 < len(words) and words[j + 1][:1].isupper()
                      and lw in _NOT_TOPIC and lw.isalpha() and len(lw) > 2)
            if (not w[0].isalnum() or lw in _NOT_TOPIC or w in names) and not proper:
                if run or lw not in _NOT_TOPIC or j - i >= 2:
                    break  # "the togetherness and power you were talking": no phrase
                j += 1  # "a really big ..." : a filler before the phrase
                continue
            if ((lw.endswith("ly") and len(lw) > 4) or (run and lw.endswith("ed"))
                    or ("-" in lw and lw.endswith(("ing", "ed")))  # "awe-inspiring"
                    or (run and (_verb_s(lw) or lw in _PAST_VERBS))):  # "music brings",
                # "my brother wrote": the phrase ends at the verb
                break  # "a retired greyhound called Comet": the phrase ends at "called"
            run.append((w if w.isupper() or (w[0].isupper() and j > 0) else lw).strip("-'"))
            j += 1
            if re.search(r"\w['’]s$", w):  # "Miles Davis's records": the owner is the topic
                break
        run = run[:MAX_TOPIC_WORDS]
        if len(run) == 1 and re.fullmatch(r"[a-z]{2,}[^e]ed", run[0]):
            run = []  # "some mixed feelings": a participle alone names nothing ("speed" does)
        if run:  # "Ed Sheeran's": the owner, not the possessive
            run[-1] = re.sub(r"['’]s$", "", run[-1])
        if run:  # the first phrase is most often what the sentence is about, a place not
            place = i > 1 and lower[i - 2] in ("at", "in", "on", "from", "near", "by")
            score = (bonus + 0.3 * (len(run) - 1) + 0.3 * sum(w[0].isupper() for w in run)
                     - 0.1 * len(found) - 0.6 * place)
            found.append((score, i, " ".join(run)))

    if (len(words) > 1 and words[0][:1].isupper() and lower[0] not in _NOT_TOPIC
            and words[0] not in names and (lower[1] in ("is", "are", "was", "were", "has", "have")
                                           or _named_subject(sentence, names))):
        # "Pottery is a huge part of my life"; "Comet sleeps all day": a name as subject
        found.append((0.9, 0, words[0] if _named_subject(sentence, names) else lower[0]))
    for i, lw in enumerate(lower):
        nxt = i + 1
        if lw in _DETERMINERS:
            if lw in ("that", "this") and nxt < len(words) and _verb_s(lower[nxt]):
                continue  # "That seems like …": a pronoun, not a determiner
            take(nxt, 1.0)
        elif (lw in _PREPOSITIONS and nxt < len(words) and lower[nxt] not in _DETERMINERS
              and (lw != "to" or words[nxt][0].isupper())):  # "to express": a verb
            take(nxt, 0.6)
        elif (lw.endswith("ing") and len(lw) > 5 and lw not in _NOT_ACTIVITY
              and (i == 0 or lower[i - 1] in _ACTIVITY_AFTER)):
            found.append((0.8, i, lw))
        elif words[i][0].isupper() and i > 0 and words[i] not in names and lw not in _NOT_TOPIC \
                and words[i - 1] not in (".", "!", "?") and len(lw) > 1:
            take(i, 0.9)
    found.sort(key=lambda f: (-f[0], f[1]))
    return list(dict.fromkeys(p for _, _, p in found))


def _topics_zh(sentence: str, names: frozenset[str]) -> list[str]:
    import jieba.posseg as posseg  # imported only for Chinese; the jieba dictionary is shared

    out: list[str] = []
    run: list[str] = []
    for pair in posseg.lcut(sentence):
        word, flag = pair.word, pair.flag
        if flag in _ZH_NOUN and word not in names and word not in _ZH_NOT_TOPIC and len(word) >= 1:
            run.append(word)
            continue
        if run:
            out.append("".join(run))
            run = []
    if run:
        out.append("".join(run))
    out = [t for t in out if len(t) >= 2 and t not in names]
    return sorted(dict.fromkeys(out), key=lambda t: -len(t))


def topic_of_name(name: str, person: str) -> str:
    """The topic part of a note named by person and topic ("Caroline's pottery class")."""
    for sep in (f"{person}'s ", f"{person}’s ", f"{person}的"):
        if name.startswith(sep):
            return name[len(sep):]
    return ""


def same_topic(a: str, b: str) -> bool:
    """Two topic phrases name one topic: they share their head word (the last) — and one
    more word when both have two or more: "activist group" is not "support group" — or
    most of their words ("LGBTQ support group" / "support group"; "陶艺课" / "陶艺")."""
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb or modifiers_clash(a, b):
        return False
    if not is_cjk(a[-1:] or " ") and not is_cjk(b[-1:] or " "):
        ha, hb = tokens(a.split()[-1]), tokens(b.split()[-1])
        if ha and ha == hb:  # "activist group" is not "support group"; "group" is either
            return min(len(ta), len(tb)) < 2 or len(ta & tb) > len(ha)
    return len(ta & tb) / min(len(ta), len(tb)) >= 0.5


def modifiers_clash(a: str, b: str) -> bool:
    """Two phrases with one head and another word right before it name two things
    ("LGBTQ activist group" / "LGBTQ support group", "abstract painting" / "horse
    painting"); "LGBTQ support group" / "support group" do not clash."""
    wa, wb = re.sub(r"[-_]+", " ", a).split(), re.sub(r"[-_]+", " ", b).split()
    if len(wa) < 2 or len(wb) < 2 or tokens(wa[-1]) != tokens(wb[-1]) or not tokens(wa[-1]):
        return False
    return tokens(wa[-2]) != tokens(wb[-2])


# -- planning ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConversationSkip:
    """A turn or a session that gave no unit, and why (reported by dream)."""

    part: str
    reason: str


@dataclass
class _Said:
    statement: Statement
    speaker: str
    text: str  # attributed and dated
    topics: list[str]
    toks: frozenset[str]
    turn: int  # the block (turn) index


def is_conversation(blocks: Sequence[Block]) -> bool:
    """A chat between people: two or more speakers, none of them an agent."""
    speakers = {b.speaker for b in blocks if b.speaker}
    return len(speakers) >= 2 and not any(is_agent(s) for s in speakers)


def plan_conversation(
    blocks: Sequence[Block], statements: Sequence[Statement], *, day: date | None,
    max_units: int = CONVERSATION_UNITS,
) -> tuple[list[UnitPlan], list[ConversationSkip]]:
    """Units about the people of one session (see the module doc), and why nothing came
    of the session when nothing did."""
    speakers = list(dict.fromkeys(b.speaker for b in blocks if b.speaker))
    names = frozenset(speakers) | frozenset(n.split()[0] for n in speakers)
    said: list[_Said] = []
    turns = 0
    for st in statements:
        block = st.block
        if not block.speaker:
            continue
        turns += st.first
        other = next((s for s in speakers if s != block.speaker), "") if len(speakers) == 2 else ""
        for sentence in split_sentences(clean_turn(st.text)) or []:
            clauses = [_strip_interjections(c) for c in _CLAUSE.split(_strip_interjections(sentence))]
            kept = [c for c in clauses if c and not is_reaction(c)]  # "… – I'm proud of you!"
            if not kept:
                continue
            s = " – ".join(kept)
            topics = topic_phrases(s, names)  # none: it may only join its turn's unit
            text = resolve_dates(attribute(s, block.speaker, other), day)
            toks = tokens(s) - {t for n in names for t in tokens(n)}
            dated = bool(topics) and bool(_RELATIVE.search(s))  # "We had a picnic last week"
            if len(toks) < MIN_STATEMENT_WORDS and not is_cjk(s[:1]) and not dated:
                continue  # an event is kept however short: people ask when it was
            said.append(_Said(st, block.speaker, text, topics, toks, block.index))
    loose = [s for s in said if not s.topics]  # "They've been there for me every step …"
    said = [s for s in said if s.topics]
    if not said:
        why = "small talk only" if turns else "no statement"
        return [], [ConversationSkip("the whole session", why)]
    clusters: list[list[_Said]] = []
    for s in said:
        home = None
        for c in reversed(clusters):
            if c[0].speaker != s.speaker:
                continue
            heads = {t for m in c for t in m.topics}
            shift = bool(_SHIFT.match(plain(s.statement.text)))  # "Also, …", "对了，…"
            follows = c is clusters[-1] and c[-1].turn >= s.turn - 4 and _short(s)
            if (((c[-1].turn == s.turn or follows) and not shift)  # one thread of talk
                    or any(same_topic(t, h) for t in s.topics[:2] for h in heads)
                    or len(s.toks & frozenset().union(*(m.toks for m in c))) >= 2):
                home = c
                break
        if home is None:
            clusters.append([s])
        else:
            home.append(s)
    for s in loose:  # a statement naming no topic belongs to its turn's unit, or to none
        home = next((c for c in clusters if c[0].speaker == s.speaker
                     and any(m.turn == s.turn for m in c)), None)
        if home is not None:
            home.append(s)
            home.sort(key=lambda m: (m.turn, m.statement.index))
    seen: dict[str, int] = {}  # in how many statements of the session a topic comes up
    for s in said:
        for t in dict.fromkeys(s.topics):
            seen[t] = seen.get(t, 0) + 1
    plans = []
    for c in clusters:
        person = c[0].speaker
        topic = _best_topic(c, seen)
        name = f"{person}的{topic}" if is_cjk(topic[:1]) else f"{person}'s {topic}"
        score = len(frozenset().union(*(m.toks for m in c))) + 2.0 * (len(c) - 1)
        plan = UnitPlan("wiki", name[:120], score, [m.statement for m in c], head=c[0].statement)
        plan.person, plan.topic = person, topic
        plan.topics = list(dict.fromkeys(t for m in c for t in m.topics))
        plan.said = [m.text for m in c]
        plan.summary = _summary(plan.said)
        plan.description = plan.said[0][:200]
        plans.append(plan)
    merged: dict[str, UnitPlan] = {}
    for p in plans:  # one person, one topic: one unit of the session
        key = p.name.lower()
        if key in merged:
            m = merged[key]
            m.statements += p.statements
            m.said += p.said
            m.score += p.score
            m.summary = _summary(m.said)
        else:
            merged[key] = p
    chosen = sorted(merged.values(), key=lambda p: (-p.score, p.position))[:max_units]
    return sorted(chosen, key=lambda p: p.position), []


# words that open another topic in the same turn: the sentence starts a unit of its own
_SHIFT = re.compile(r"^(?:also|and also|plus|oh|oh and|by the way|btw|anyway|big news|my news|"
                    r"in other news|speaking of|another thing|on another note)\b|^(?:对了|另外|还有|话说)",
                    re.I)


def _short(s: _Said) -> bool:
    text = plain(s.statement.text)
    return len(text.split()) <= 8 if not is_cjk(text[:1]) else len(text) <= 24


def _best_topic(cluster: list[_Said], seen: dict[str, int]) -> str:
    """The phrase the cluster is most about: said most often in it, and less often in the
    rest of the session (the kids both talk about are no one's topic), then longest."""
    counts: dict[str, float] = {}
    for rank_base, s in enumerate(cluster):
        for rank, t in enumerate(s.topics[:4]):
            counts[t] = counts.get(t, 0.0) + 1.0 / (1 + rank) + 0.01 / (1 + rank_base)
    for t in list(counts):  # a phrase counts for the shorter phrase it contains
        for u in counts:
            if u != t and same_topic(t, u):
                counts[t] += 0.3
    own = {t: sum(1 for s in cluster if t in s.topics) for t in counts}
    return max(counts, key=lambda t: (counts[t] * (own[t] / seen.get(t, 1)) ** 0.5, len(t)))


def _summary(said: list[str]) -> str:
    text = " ".join(said)
    return text if len(text) <= 1500 else text[:1499].rstrip() + "…"


def render_bullet(plan: UnitPlan, day: date | None, provenance_target: str) -> str:
    """One session's bullet: its date, what the person said (attributed, dated) and the
    session as provenance, inline so that every bullet says where it came from."""
    when = f"**{day.isoformat()}**: " if day else ""
    text = " ".join(_ended(s) for s in plan.said)
    return f"- {when}{text} (derived_from:: [[{provenance_target}]])"


def _ended(said: str) -> str:
    """A statement with its full stop: one whose reaction was cut off ("… a big fan of
    pottery – the skill is awesome!") must not run into the next ("pottery Pottery is …")."""
    said = said.rstrip()
    if not said or said[-1] in ".!?…。！？)\"'”":
        return said
    return said + ("。" if is_cjk(said[-1]) else ".")


# -- integrate ------------------------------------------------------------------------------------


def _slug_topic(name: str, person: str) -> str:
    """The topic words of a note named by person and topic ("caroline-s-lgbtq-support-group"
    -> "lgbtq support group")."""
    words = re.sub(r"[-_]+", " ", name).split()
    own = person.lower().split()
    if [w.lower() for w in words[: len(own)]] == own:
        words = words[len(own):]
        words = words[1:] if words[:1] == ["s"] else words
    return " ".join(words)


def _topic_tokens(text: str, person: str) -> frozenset[str]:
    return tokens(re.sub(r"[-_]+", " ", text), split=True) - tokens(person, split=True)


def _cites(body: str, material: str) -> bool:
    return any(is_provenance(lk, material) for lk in parse_links(body))


def person_topic_match(request: IntegrateRequest, plan: UnitPlan) -> CandidateNote | None:
    """The note about the same person and topic (docs/spec.md §5.5.4): of the unit's
    bucket, its name holding the person's name and the topic's head word, and most of
    the topic's words ("caroline-s-lgbtq-support-group" for "Caroline's support group").
    The unit's topic is its name's and the first two it names: a friend mentioned in
    passing ("a friend made it for my birthday") does not send it to the friends note."""
    person = tokens(plan.person, split=True)
    mine = [_topic_tokens(t, plan.person) for t in [plan.topic, *plan.topics[:2]]]
    for cand in request.candidates:
        if not cand.path.startswith(f"digest/{plan.bucket}/"):
            continue
        name = tokens(re.sub(r"[-_]+", " ", cand.name), split=True)
        theirs = _topic_tokens(cand.name, plan.person)
        if not person <= name or not theirs:
            continue
        # the topic the note is named by is one the person talks about here, or a name the
        # statements are about is in the note's description ("Comet" for the greyhound)
        head = tokens(re.sub(r"[-_]+", " ", cand.name).split()[-1]) & theirs
        named = _slug_topic(cand.name, plan.person)
        if named and modifiers_clash(plan.topic, named):
            continue  # the unit is about another thing of that kind ("activist group")
        if any(t and len(t & theirs) / min(len(t), len(theirs)) >= 0.5
               and (head <= t or len(t & theirs) >= 2) for t in mine):
            return cand  # ("LGBTQ community" is not the note on the LGBTQ support group)
        said = cand.description  # a proper name, capitalised there too ("Family" opening
        if any(t[:1].isupper() and tokens(t)  # a sentence is not "family" in it)
               and re.search(rf"(?<!\w){re.escape(t)}(?!\w)", said) for t in plan.topics):
            return cand
    return None


def conversation_decision(request: IntegrateRequest, plan: UnitPlan, day: date | None
                          ) -> IntegrateDecision:
    """CORROBORATE the note on the same person and topic with this session's dated bullet
    (the old body kept byte for byte, the bullet after it), or CREATE one; a note that
    already holds this session's statements is left as it is (the pipeline proposes
    nothing), one that cites the session for another unit of it gets this unit's bullet."""
    material = request.material.path
    bullet = render_bullet(plan, day, material)
    match = person_topic_match(request, plan)
    if match is not None:
        body = match.body
        # a second unit of this session on the note (or a first): its statements are added
        # unless the note holds them already (a re-dream of the same session adds nothing)
        if not _cites(body, material) or not all(said in body for said in plan.said):
            # after the old body as it is, blank lines too: a corroborate only adds lines
            # (docs/spec.md §3.7.3), else it waits for a person
            body += ("" if not body or body.endswith("\n") else "\n") + bullet + "\n"
        description = (match.description.strip() or plan.description or plan.name)[:300]
        return IntegrateDecision(
            action="UPDATE", flavor="CORROBORATE", target_path=match.path,
            name=match.name.strip() or None, description=description, body=body,
            rationale=(f"offline rules: {match.path} is the note on {plan.person}'s "
                       f"{plan.topic}; CORROBORATE: old body kept, this session's statements "
                       "added as a dated bullet with its provenance."))
    return IntegrateDecision(
        action="CREATE", name=plan.name, description=(plan.description or plan.name)[:300],
        body=bullet + "\n",
        rationale=(f"offline rules: no note on {plan.person}'s {plan.topic} among the "
                   "candidates; extractive note of what they said, a dated bullet per session."))
