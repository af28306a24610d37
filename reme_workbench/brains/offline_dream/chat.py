"""Chat transcripts: which lines are turns, who says each, and in what role (docs/spec.md
§5.2.11). Pure functions on strings; `statements.segment` reads material with them.

* `normalise_transcript(text)` turns a role transcript an agent writes — JSON lines
  (`{"role": "user", "content": "…"}` one per line), a JSON list of such objects (or
  `{"messages": [...]}`), `role: user` / `content: …` pairs — into ordinary labelled turns
  (`User: …`, `Assistant: …`; a user's `name` field is their label), system and tool
  messages left out; an app's export with each sender on a line of their own, and LINE's
  tab lines, into `Name: …` turns (chat_exports.py); a checklist a file opens with into the
  user's own turns. Any other text comes back unchanged.
* `read_turn(line)` is the speaker-line grammar: `Name: text`, `Name：text`, `**Name:**`,
  `**Name**:`, a label alone on its line (`**User:**`, `**user**`, `You said:`, `### ChatGPT`) with the
  turn below it, a time or date before or after the name (`[9:41 PM] Kate:`,
  `10:02 Kate:`, `Kate (10:02):`, `[08:02] 张三：`, a WhatsApp export's
  `12/01/2024, 21:15 - Kate: …` or `[12/01/2024, 21:15:03] Kate: …`), an IRC `<kate>`,
  and a turn id in brackets (`**Caroline** (D1:3):`). The stamp and the label are not
  part of the turn's text; nor is a message's metadata (`<This message was edited>`).
* `chat_speakers(lines)` decides whether the lines are a chat and who its speakers are;
  `speaker_role(label, speakers)` whether a speaker is the assistant, the user or a
  person; `chat_kind(blocks)` whether a segmented chat is between people or the vault's
  user's (with an assistant).

Rule-based and says so: a label is read by its form and by a short list of words that
label a log's lines rather than a person ("Note:", "TODO:", "注意："); what the turns say
is for the rules that read them (conversation.py, the log rules in statements.py).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import takewhile
from typing import Literal, Protocol

from ...textrules import is_cjk
from ...textrules.nlp import chinese_tagged, english_docs
from .chat_exports import CLOCK, DATE, HANDLE, NAME, STAMP, export_turns
from .zh_parse import KIN_WORDS, clauses

__all__ = [
    "TurnLine", "read_turn", "chat_speakers", "speaker_role", "chat_kind", "is_assistant",
    "is_user", "normalise_transcript", "system_notice", "breaks_turn", "Role", "ChatKind",
    "answering_speaker",
]

Role = Literal["assistant", "user", "person"]
ChatKind = Literal["people", "assistant"]

# -- labels ------------------------------------------------------------------------------------

# The assistant, by its label: the generic words and the products people talk to (not
# those that are also people's names: Alexa, Ernie, Kimi — Claude stays, as it always was).
_ASSISTANT = re.compile(
    r"^(?:(?:the|my|your|an?)\s+)?(?:ai|a\.i\.|assistant|ai[\s_-]?assistant|bot|chat\s?bot|agent|"
    r"ai[\s_-]?agent|llm|model|helper|chatgpt|chat\s?gpt|gpt(?:[\s-]?[\w.]+)?|"
    r"claude(?:[\s-][\w.\s-]+)?|gemini(?:[\s-][\w.\s-]+)?|bard|copilot|bing|perplexity|grok|"
    r"llama(?:[\s-][\w.]+)?|mistral|deepseek(?:[\s-]\w+)?|qwen(?:[\s-]?[\w.]+)?|doubao|"
    r"ai\s?助手|助手|助理|机器人|智能体|智能助手|小助手|豆包|通义千问|通义|文心一言|文心|元宝|"
    r"\w+[\s_-]?bot|\w+[\s_-]?assistant|\w+助手)$",
    re.I,
)
# The vault's user, by their label.
_USER = re.compile(r"^(?:user|human|me|myself|you|i|用户|我|本人|提问者)$", re.I)
# Labels of a log's lines, never a person: "Note: …", "TODO: …", "Decision: …", "注意：…"
# (the months that are also names — April, May, June, August — can be a person's).
_NOT_SPEAKER = frozenset("""
note notes nb n.b fyi ps p.s todo to-do todos done decision decisions decided action actions
action-item fix fixed status summary tl;dr tldr result results outcome outcomes problem
problems issue issues cause causes reason reasons why what how when where who which answer
answers question questions q a step steps tip tips hint warning warnings caution danger
important info information update updates edit edited context background goal goals task
tasks owner owners date dates time times day location place venue topic topics subject
from to cc bcc re fw fwd title tags tag source sources link links url http https ref refs
see example examples e.g i.e output input error errors command commands cmd usage reminder
reminders follow-up followup next then first second third finally also and but so or plan
plans agenda attendees participants present absent lesson lessons learned pros cons yes no
ok okay pending blocked bug bugs feature features version port host name email phone address
age type kind category priority deadline due start end duration cost price total budget
aside bonus spoiler idea ideas conclusion verdict rule rules preference preferences
observation observations finding findings risk risks mitigation impact severity incident
timeline description definition meaning translation remember quote
today tomorrow yesterday tonight now later before after morning afternoon evening night
monday tuesday wednesday thursday friday saturday sunday january february march july
september october november december pro con one two three here there
this that these those it self new old current previous original revised
meeting call standup stand-up lunch break btw p.p.s
注意 备注 注 决定 决策 结论 问题 原因 待办 总结 小结 时间 地点 结果 步骤 提示 警告 更新 计划 目标 任务 答 例如
比如 原文 翻译 链接 来源 主题 议题 参会 参会人 负责人 事实 发现 教训 风险 优点 缺点 理由 背景 进展 状态 说明
要点 重点 补充 附注 备忘 日期 地址 电话 邮箱 姓名 名称 类型 议程 行动项 后续 下一步 今天 明天 昨天 上午 下午 晚上
""".split())
# "林晓说：" opens a quotation, not a turn: the label ends on a verb of saying
_SPEECH_VERB = re.compile(r"(?:说|问|道|答|讲|回答|回复|表示|提到|强调|补充|写道|认为)$")


def _key(label: str) -> str:
    return " ".join(label.lower().replace("’", "'").split())


def is_assistant(label: str, agent_names: Iterable[str] = ()) -> bool:
    key = _key(label)
    return bool(_ASSISTANT.match(key)) or key in {_key(n) for n in agent_names}


def is_user(label: str) -> bool:
    return bool(_USER.match(_key(label)))


def speaker_role(label: str, speakers: Iterable[str], agent_names: Iterable[str] = ()) -> Role:
    """The role of a chat's speaker, by its label; any other name is the user in a chat
    with an assistant and as the only speaker of a session (a person's notes to themselves,
    `**Owen:** …`, in their own vault); in a chat of people without an assistant, a person."""
    names = tuple(agent_names)
    if is_assistant(label, names):
        return "assistant"
    if is_user(label):
        return "user"
    alone = set(speakers) <= {label}
    return "user" if alone or any(is_assistant(s, names) for s in speakers) else "person"


class _Spoken(Protocol):
    speaker: str
    role: str


def chat_kind(blocks: Sequence[_Spoken]) -> ChatKind | None:
    """`"assistant"` when an assistant speaks in the chat or its only speaker is the vault's
    user (their own log, `speaker_role`): the user's words are read as the user's;
    `"people"` between people; None when the material is no chat."""
    roles = {b.speaker: b.role for b in blocks if b.speaker}
    if not roles:
        return None
    if "assistant" in roles.values() or set(roles.values()) == {"user"}:
        return "assistant"
    return "people"


# An assistant called by its own name ("Aria: …") has no life to tell: over a whole chat it
# never says I or my, where a person speaks of themselves in almost every turn. The
# singular first person is a closed class of pronouns (as typed: "im", "i've", "我").
_SELF = re.compile(r"(?<![\w'’])(?:i|me|my|mine|myself|im|i['’](?:m|ve|d|ll))(?![\w'’])"
                   r"|我(?!们)", re.I)
_SELF_OBJECT = re.compile(r"(?<![\w'’])me(?![\w'’])", re.I)  # "let me know": a helper says it
# the share of an assistant's turns that may speak of it ("my speciality") when it answers
# a burst of short texts at length (`answering_speaker`)
SELF_SHARE = 0.25
ANSWERING_TURNS = 3  # a speaker's turns, at least, before their silence about themselves counts
# ... or two turns, each answer on average at least this many times as long as the other's
# turns: an assistant asked for a plan answers with one ("帮我做个行程" → a day-by-day plan)
LONG_ANSWER = 2.0


def answering_speaker(lines: Sequence[str], speakers: Iterable[str]) -> str | None:
    """In a chat of two speakers neither of whose labels names a role, the one who is an
    assistant by what it says: in ANSWERING_TURNS turns or more it never speaks of itself
    (no my or mine, no I but the I of offering and advising — "I'd suggest", "I can draft
    it for you"; "let me know" is a helper's) — or in two turns each LONG_ANSWER times as
    long as the other's, on average (a plan asked for) — while the other does (or tells of
    themselves with the subject left out, "Booking the B&B tonight then"), and it answers
    at more length than it is asked (its turns no shorter than the other's, on average) —
    a friend's few words back ("How's the pottery going?", "Oh no, sorry!") are no
    assistant's; answering a burst of short texts at LONG_ANSWER times their length, it
    may speak of itself in SELF_SHARE of its turns. Of the user's own label (`Me`) and a
    name, only the name may be the assistant (docs/spec.md §5.2.11)."""
    pair = list(speakers)
    if len(pair) != 2 or any(is_assistant(s) for s in pair) or all(is_user(s) for s in pair):
        return None
    # the user's own label ("Me" in an iMessage export) talks to someone named: the named
    # one may be the assistant, the user never is
    me = next((s for s in pair if is_user(s)), None)
    turns: dict[str, list[str]] = {s: [] for s in pair}
    for line in lines:
        turn = read_turn(line)
        if turn is not None and turn.label in turns and turn.text:
            turns[turn.label].append(turn.text)

    def telling(texts: list[str]) -> int:
        """How many of the turns tell of their speaker."""
        return sum(bool(_tells_of_self_en(t) or _tells_of_self_zh(t) or _leaves_self_out([t]))
                   for t in texts)

    def tells_of_self(texts: list[str]) -> bool:
        return telling(texts) > 0

    def answers_at_length(s: str) -> bool:
        other = next(o for o in pair if o != s)
        if s in KIN_WORDS:  # 妈妈：… — a mother's long advice in two turns: a person's
            return False
        if s == me:
            return False
        return len(turns[s]) >= ANSWERING_TURNS or (
            len(turns[s]) == 2 and _mean_length(turns[s]) >= LONG_ANSWER * _mean_length(turns[other]))

    def silent_about_self(s: str) -> bool:
        """Never of itself — or, answering LONG_ANSWER times as long as the other speaks
        (a burst of texts, each answered at length), in at most SELF_SHARE of its
        ANSWERING_TURNS turns or more ("Dumb things are my speciality. Go on."): people
        texting each other speak of themselves in a fifth of their turns or fewer too,
        but at the same length."""
        told = telling(turns[s])
        other = next(o for o in pair if o != s)
        return told == 0 or (len(turns[s]) >= ANSWERING_TURNS and told <= SELF_SHARE * len(turns[s])
                             and _mean_length(turns[s]) >= LONG_ANSWER * _mean_length(turns[other]))

    silent = [s for s in pair if answers_at_length(s) and silent_about_self(s)]
    if len(silent) != 1:
        return None
    other = next(s for s in pair if s != silent[0])
    if not tells_of_self(turns[other]) or _mean_length(turns[silent[0]]) < _mean_length(turns[other]):
        return None
    return silent[0]


# The I of offering and advising, which an assistant says of nothing but its help: a
# conditional ("I'd suggest", "I'd plan six days", "I wouldn't worry") or a promise or
# ability to the listener ("I can draft it for you") or of a verb of helping ("I'll check");
# a wish ("I'd love to") is a person's, and so is what would have been ("I'd never have known").
_FIRST_SINGULAR = frozenset(("i", "me", "my", "mine", "myself", "im"))
_CONDITIONAL = frozenset(("would", "'d", "’d", "d", "could", "might", "should"))
_WISHING = frozenset(("love", "like", "want", "prefer", "hate", "be", "have"))
_HELPING_EN = frozenset(("help", "draft", "write", "check", "look", "find", "explain", "show",
                         "list", "sketch", "suggest", "recommend", "advise", "outline", "send",
                         "remind", "note", "summarise", "summarize", "compare", "walk", "plan"))


def _offers(i: object) -> bool:
    """Whether the pronoun I (a spaCy token) is the subject of an offer or advice."""
    verb = i.head  # type: ignore[attr-defined]
    if i.dep_ != "nsubj" or verb.tag_ not in ("VB", "VBP"):  # type: ignore[attr-defined]
        return False
    auxes = [c.lower_ for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if verb.tag_ == "VBP":  # "I suggest you book early", never "I have", "I think"
        return not auxes and verb.lemma_ in ("suggest", "recommend", "advise")
    if "have" in auxes or verb.lemma_ in _WISHING or not auxes:
        return False
    if any(a in _CONDITIONAL for a in auxes):
        return True
    return verb.lemma_ in _HELPING_EN or any(t.lower_ in ("you", "your") for t in verb.subtree)


def _tells_of_self_en(text: str) -> bool:
    """An English turn whose speaker speaks of themselves: my, mine, myself, or I as the
    subject of anything but an offer or advice (`_offers`, read from the parse,
    `textrules.nlp`); me as an object is a helper's too ("let me know", "tell me")."""
    if _SELF.search(_SELF_OBJECT.sub(" ", text.replace("我", " "))) is None:
        return False
    pronouns = [t for t in english_docs([text])[0] if t.lower_ in _FIRST_SINGULAR]
    # a form the tokenizer reads otherwise than as a pronoun counts as one, as typed
    return not pronouns or any(t.lower_ != "me" and not (t.lower_ == "i" and _offers(t))
                               for t in pronouns)


# what a helper says it does as it helps (我建议, 我觉得, 我来帮你, 我可以帮你…): a closed
# class of verbs of advising, judging and helping; a modal before one (可以, 能, 会) is the
# helper's only when such a verb follows it (我可以帮你改; 我可以明天再去 is a person's plan)
_HELPING = frozenset(("建议", "觉得", "认为", "推荐", "来", "帮", "帮你", "理解", "明白", "猜",
                      "给", "给你", "陪你", "查", "整理", "列", "写", "算"))
_MODAL = frozenset(("可以", "能", "会", "能够"))
_NEGATION = frozenset(("不", "没", "没有", "别", "不太"))
# what 我 owns when it stands right before it: home and kin (送去我妈家, 放我姐家) — the
# kin words and the one-character forms of them a chat writes
_OWN = KIN_WORDS | frozenset("家 妈 爸 姐 哥 弟 妹 爷 奶 姥 舅 姑 姨".split())


def _tells_of_self_zh(text: str) -> bool:
    """A Chinese turn whose speaker speaks of themselves: 我 as a subject of anything but
    the helper's own acts of helping (我建议…, 我来帮你…, not negated: 我不会游泳 is a
    person's), or owning home and kin (我妈家), and not the object of a verb or a
    preposition (找我, 告诉我, 给我: "let me know") — read clause by clause (a texted
    space ends one: "算了 我不会游泳")."""
    return "我" in text and any(_tells_in_clause([(w, f) for w, f in chinese_tagged(c) if w.strip()])
                               for c in clauses(text) if "我" in c)


def _tells_in_clause(tagged: list[tuple[str, str]]) -> bool:
    for i, (word, _) in enumerate(tagged):
        if not word.startswith("我") or word.startswith("我们"):
            continue
        rest = [w for w, _ in tagged[i + 1:]]
        if word != "我":
            if word[1:] not in _MODAL:
                return True  # 我家, 我妈: a life of one's own
            rest = [word[1:], *rest]  # 我会/n 帮你查: 我 and a modal
        if rest and rest[0] in _OWN:
            return True
        if i and tagged[i - 1][1][:1] in ("v", "p"):
            continue  # the object: 找我, 给我
        adverbs = {w for w, f in tagged[i + 1:] if f.startswith(("d", "t"))}  # 也, 明天
        lead = list(takewhile(adverbs.__contains__, rest))
        after = rest[len(lead):]
        if not after or any(w in _NEGATION for w in lead):
            return True
        verb = after[1] if after[0] in _MODAL and len(after) > 1 else after[0]
        if verb not in _HELPING:
            return True
    return False


def _mean_length(texts: list[str]) -> float:
    """How long turns are on average: their words, each Chinese character one (Chinese
    writes no spaces: a long answer is one "word" by spaces, a texted burst "好 我下次试试" two)."""
    return sum(sum(map(is_cjk, t)) + len("".join(" " if is_cjk(c) else c for c in t).split())
               for t in texts) / max(1, len(texts))


def _leaves_self_out(texts: list[str]) -> bool:
    """Whether a turn tells of its speaker with the subject left out, as people text
    ("been busy volunteering", "just started doing aerial yoga"): a sentence whose head is
    a past or -ing verb with no subject and no "you" in it (read from the parse,
    `textrules.nlp`) — an inflected one: a root whose form is its lemma is a word the
    tagger misread ("Re-read the lease tonight" parsed with the root `Re`, VBG), not one
    that tells of the past or the doing."""
    english = [t for t in texts if not sum(map(is_cjk, t)) * 3 > len(t)]
    return any(sent.root.tag_ in ("VBD", "VBN", "VBG") and not sent.text.rstrip().endswith("?")
               and sent.root.lower_ != sent.root.lemma_.lower()
               and not any(c.dep_.startswith(("nsubj", "csubj", "expl")) for c in sent.root.children)
               and not any("2" in t.morph.get("Person") for t in sent)  # "so put your …"
               for doc in english_docs(english) for sent in doc.sents)


# -- the speaker-line grammar -----------------------------------------------------------------

_INVISIBLE = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_BOLD = r"(?:\*\*|__)"
# a turn id in brackets after the name ("**Caroline** (D1:3):"); a time there is a stamp
_AFTER = r"\s*[(\[][\w:.#-]{1,16}[)\]]"
_LEAD = (rf"(?P<lead>\[{STAMP}\]\s*|\({STAMP}\)\s*|{STAMP}\s+[-–—]\s+|{STAMP}\s+)?")
_LINE = re.compile(
    rf"^\s*{_LEAD}{_BOLD}?(?P<name>{NAME}|{HANDLE}){_BOLD}?"
    rf"(?:\s*[(\[](?P<time>{STAMP})[)\]]|{_AFTER}|\s+(?P<clock>{CLOCK}))?\s*{_BOLD}?"
    rf"[:：]{_BOLD}?[ \t]*(?P<text>.*)$")
_IRC = re.compile(rf"^\s*{_LEAD}<(?P<name>[\w.'’-]{{1,32}})>\s+(?P<text>.*)$")
# a label alone on its line without a colon: "**user**", "You said:", an exporter's
# "## User" / "### ChatGPT:" (roles only: a bold name or a heading alone is a sub-heading)
_ROLE_ALONE = re.compile(rf"^\s*(?:{_BOLD}(?P<bold>{NAME}){_BOLD}|(?P<said>{NAME}) said:|"
                         rf"#{{1,6}}\s+{_BOLD}?(?P<heading>{NAME}){_BOLD}?\s*[:：]?{_BOLD}?)\s*$")
# what a chat app adds to a message and the person did not say
_METADATA = re.compile(
    r"\s*(?:<This message was edited>|\((?:edited|已编辑)\)|（已编辑）|\[edited\])\s*$", re.I)
# a stamped line without a label in an export: the app's own notice ("Messages and calls
# are end-to-end encrypted", "Kate added Sam"), not a turn
_NOTICE = re.compile(rf"^\s*(?:\[{DATE},?\s*{CLOCK}\]\s*|{DATE},?\s*{CLOCK}\s+[-–—]\s+)(?P<text>.*)$")


@dataclass(frozen=True)
class TurnLine:
    """A line that opens a chat turn: its label as written, the turn's text on that line
    ("" when the label stands alone and the turn follows below), and whether a timestamp
    came with it (an app's export: strong evidence of a chat)."""

    label: str
    text: str
    stamped: bool
    alone: bool


def read_turn(line: str) -> TurnLine | None:
    """`line` read as the opening of a turn (see the module doc), or None."""
    # segment reads each line up to three times; a long line is read, not kept
    return _read_turn(line) if len(line) < 2000 else _read_turn.__wrapped__(line)


@lru_cache(maxsize=8192)
def _read_turn(line: str) -> TurnLine | None:
    line = _INVISIBLE.sub("", line)
    m = _LINE.match(line) or _IRC.match(line)
    if m:
        label = m.group("name").strip()
        text = _METADATA.sub("", m.group("text")).strip()
        stamped = any(m.groupdict().get(g) for g in ("lead", "time", "clock"))
        if _is_label(label) and not label.lower().startswith(("http", "www")):
            return TurnLine(label, text, stamped, not text)
        return None
    m = _ROLE_ALONE.match(line)
    if m:
        label = (m.group("bold") or m.group("said") or m.group("heading")).strip()
        if is_user(label) or is_assistant(label):
            return TurnLine(label, "", False, True)
    return None


def _is_label(label: str) -> bool:
    key = _key(label)
    return key not in _NOT_SPEAKER and not _SPEECH_VERB.search(label) and not key.isdigit()


def system_notice(line: str) -> bool:
    """A chat app's stamped notice without a speaker ("12/01/2024, 21:14 - Messages and
    calls are end-to-end encrypted…"): no one said it."""
    return bool(_NOTICE.match(_INVISIBLE.sub("", line))) and read_turn(line) is None


# -- who the speakers are ----------------------------------------------------------------------


def _name_like(label: str) -> bool:
    """A label that could be a person's name by its form: one word, or capitalised words."""
    words = label.split()
    return len(words) == 1 or all(w[:1].isupper() for w in words)


def chat_speakers(lines: Sequence[str], agent_names: Iterable[str] = ()) -> frozenset[str]:
    """The speakers of a chat transcript, or none when `lines` are no chat.

    A label speaks when it opens a turn at least twice, when it names a role (`User`,
    `Assistant`, `AI`, `助手`, the agent's own name) or when its turn came with a timestamp;
    a label alone on its line counts only when it names a role ("Methods:" titles a list).
    The lines are a chat when those turns are most of the text — counting an unlabelled
    line right after a turn as part of it (a message of several lines), and in a chat with
    an assistant everything up to the next turn (its replies have paragraphs and lists)
    — and either two or more speakers take turns or one speaker opens two or more (a
    person's own log). Then a name-like label that opens one turn is a speaker too, in a
    chat between people ("sam: no way" in a burst of kate's). A log's labels ("Note:",
    "Decision:", "TODO:") are never speakers."""
    agents = tuple(agent_names)
    read: list[TurnLine | None] = []
    content: list[int] = []  # indices of the lines that count
    fence = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fence = not fence
        if fence or not stripped or stripped.startswith(("```", "~~~", "|")):
            read.append(None)
            continue
        content.append(i)
        read.append(read_turn(line))  # a heading opens a turn only when it is a role's label
    counts: dict[str, int] = {}
    strong: set[str] = set()
    saying: set[str] = set()  # labels with words after them on their line
    for turn in read:
        role = turn is not None and (is_user(turn.label) or is_assistant(turn.label, agents))
        if turn is None or (turn.alone and not role):
            continue  # "Methods:" alone on its line titles what follows; "User:" opens a turn
        counts[turn.label] = counts.get(turn.label, 0) + 1
        if turn.stamped or role:
            strong.add(turn.label)
        if turn.text:
            saying.add(turn.label)
    found = {k for k, v in counts.items() if v >= 2} | strong
    if not found or (len(found) == 1 and counts[next(iter(found))] < 2):
        return frozenset()  # one line of one label: a label, not a chat
    assistant = any(is_assistant(s, agents) for s in found)
    covered = _turn_lines(lines, read, found, whole_turns=assistant and len(found) >= 2)
    if len(covered & set(content)) < 0.5 * len(content):
        return frozenset()
    if not assistant:  # "sam: no wayyy" once, in kate's burst: a person too
        found |= {k for k in saying if _name_like(k)}
    return frozenset(found)


_ENTRY = re.compile(r"^\s{0,3}#{1,6}\s+\d{1,2}:\d{2}(?:\s|$)")  # "## 14:40 …" (spec §3.6.4)


def breaks_turn(line: str, *, whole_turns: bool, turn_follows: bool) -> bool:
    """A heading (or a rule) ends the turn above it — except in a chat with an assistant,
    where a heading with another turn after it is part of the reply ("### Option 1");
    an appended entry's `## 14:40` heading always ends it."""
    return not (whole_turns and turn_follows) or bool(_ENTRY.match(line))


def _turn_lines(lines: Sequence[str], read: Sequence[TurnLine | None], speakers: set[str],
                *, whole_turns: bool) -> set[int]:
    """The indices of the lines inside the speakers' turns: a turn's own line and the
    unlabelled lines right below it; with `whole_turns`, every line up to the next turn
    (see `breaks_turn`)."""
    out: set[int] = set()
    open_turn = False
    starts = [i for i, t in enumerate(read) if t is not None and t.label in speakers]
    for i, line in enumerate(lines):
        turn = read[i]
        stripped = line.strip()
        if turn is not None and turn.label in speakers:
            out.add(i)
            open_turn = True
        elif stripped.startswith("#") and breaks_turn(line, whole_turns=whole_turns,
                                                      turn_follows=bool(starts) and starts[-1] > i):
            open_turn = False
        elif turn is not None and not whole_turns:
            open_turn = False
        elif not stripped:
            above = read[i - 1] if i else None
            open_turn = open_turn and (whole_turns or bool(above and above.alone))
        elif open_turn:
            out.add(i)
    return out


# -- role transcripts -------------------------------------------------------------------------

# a message on one line: JSON, or the same written with single quotes (a Python dict)
_ROLE_LINE = re.compile(r'^\s*\{.*["\'](?:role|from)["\']\s*:.*\}\s*,?\s*$')
_YAML_ROLE = re.compile(r"^(?P<indent>\s*)(?:-\s+)?role:\s*(?P<role>[\w-]+)\s*$")
_YAML_FIELD = re.compile(r"^(?P<indent>\s*)(?:-\s+)?(?P<key>content|name|text):\s?(?P<value>.*)$")
_USER_ROLES = {"user", "human"}
_ASSISTANT_ROLES = {"assistant", "gpt", "model", "bot", "ai", "chatgpt"}
_KNOWN_ROLES = _USER_ROLES | _ASSISTANT_ROLES | {"system", "tool", "function", "developer"}


def normalise_transcript(text: str, *, notes_to_self: bool = True) -> str:
    """A role transcript as labelled turns (`User: …`, `Assistant: …`, the user's `name`
    field as their label; system and tool messages left out); an app's export as `Name: …`
    turns (`chat_exports.export_turns`: WeChat, Telegram, Discord, Slack, LINE); a checklist
    the file opens with as the user's own lines (`_checklist_to_self`); any other text
    unchanged. Role transcripts: JSON lines (headings between them kept), a JSON list of
    messages or `{"messages": [...]}`, and `role:` / `content:` pairs. `notes_to_self`
    False: a checklist stays a list (a document's checklist is steps, not the user's notes)."""
    turns = export_turns(_role_transcript(text))
    return _checklist_to_self(turns) if notes_to_self else turns


# a task, its box holding any one mark: done, open, or a task plugin's "/" (doing), "-"
# (cancelled), ">" (moved)
_TASK = re.compile(r"^\s{0,3}[-*+]\s+\[[^\]]\]\s+(?P<text>\S.*)$")


def _checklist_to_self(text: str) -> str:
    """A file that opens with a checklist (`- [x] …` / `- [ ] …`, two lines or more, no
    speaker) and holds nothing after it but a chat of the user's: each task is a line the
    file's author wrote to themselves, as a one-speaker note to self is (`speaker_role`) —
    a turn of the user, labelled as the chat below labels them (`**Emily:**`), else `User`.
    A checklist above prose, or above a chat between people, is left as it is: a list."""
    lines = text.splitlines()
    first = next((i for i, x in enumerate(lines) if x.strip()), None)
    if first is None or not _TASK.match(lines[first]):
        return text
    end = first
    while end < len(lines) and _TASK.match(lines[end]):
        end += 1
    if end - first < 2:
        return text
    rest = lines[end:]
    label = "User"
    if any(x.strip() for x in rest):
        labels = {t.label for x in rest if (t := read_turn(x)) is not None}
        others = {x for x in labels if not is_assistant(x)}
        if others == labels and not any(map(is_user, labels)):
            return text  # no assistant and no user: prose, or people talking
        users = sorted(x for x in others if is_user(x)) or sorted(others)
        label = users[0] if len(users) == 1 else label
    tasks = [f"{label}: {_TASK.match(x).group('text')}" for x in lines[first:end]]  # type: ignore[union-attr]
    tail = ["", *rest] if rest and rest[0].strip() else rest
    return "\n".join([*lines[:first], *tasks, *tail]) + ("\n" if text.endswith("\n") else "")


def _role_transcript(text: str) -> str:
    """`normalise_transcript` for role transcripts alone."""
    stripped = text.strip()
    if not stripped:
        return text
    if stripped[0] in "[{":
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):  # not JSON, or nested past what it reads
            value = None
        turns = _render(_messages(value) or [])
        if turns:
            return turns
    lines = stripped.splitlines()
    json_lines = [line for line in lines if _ROLE_LINE.match(line)]
    if len(json_lines) >= 2 and all(not x.strip() or x.lstrip().startswith("#") or _ROLE_LINE.match(x)
                                    for x in lines):
        out = []
        for line in lines:
            if not _ROLE_LINE.match(line):
                out.append(line)  # a heading ("# Chat with Nova, 12 May") or a blank
                continue
            try:
                value = _load_line(line)
            except (ValueError, RecursionError):
                return text
            messages = _messages([value])
            if messages is None and not _has_role(value):
                return text  # a system or tool message is left out; anything else is no transcript
            out.append(_render(messages or []).rstrip("\n"))
        if any(out):
            return "\n".join(out) + "\n"
    turns = _render(_yaml_messages(lines) or [])
    return turns or text


def _load_line(line: str) -> object:
    """One message line: JSON, or a Python literal with single quotes ({'role': 'user', …});
    ValueError when it is neither."""
    text = line.strip().rstrip(",")
    try:
        return json.loads(text)
    except ValueError:
        try:
            return ast.literal_eval(text)
        except (SyntaxError, TypeError, MemoryError) as exc:
            raise ValueError(str(exc)) from exc


def _has_role(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role", value.get("from")), str)


def _messages(value: object) -> list[tuple[str, str, str]] | None:
    """(role, name, content) of each message when `value` is a list of role messages (or
    `{"messages": [...]}`) with at least one from the user or the assistant — or, in an
    app's export, from a named sender (`{"from": "Kate", "text": …}`: role "person")."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        others = [v for k, v in value.items() if k != "messages"]
        if len(others) > 6 or any(isinstance(v, dict | list) for v in others):
            return None  # a record that carries messages among much else (a request log)
        value = value["messages"]
    if not isinstance(value, list) or not value:
        return None
    out = []
    for item in value:
        if not isinstance(item, dict):
            return None
        if item.get("type") == "service":
            continue  # a chat app's notice ("Kate joined the group"): no one said it
        role = item.get("role", item.get("from"))
        content = _content_text(item.get("content", item.get("value", item.get("text"))))
        if not isinstance(role, str):
            return None  # not a message: a list of something else
        name = item.get("name")
        name = name if isinstance(name, str) else ""
        if role.lower() not in _KNOWN_ROLES and (is_user(role) or is_assistant(role)):
            role = "user" if is_user(role) else "assistant"  # a role in the user's language: 用户, 助手
        if "role" not in item and role.lower() not in _KNOWN_ROLES:
            role, name = "person", role  # an app's export names the sender: {"from": "Kate"}
        out.append((role.lower(), name, content))
    if not any(r in _USER_ROLES | _ASSISTANT_ROLES or (r == "person" and c) for r, _, c in out):
        return None  # a list of roles of another kind ({"role": "owner", …})
    return out


def _content_text(content: object) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, dict) else p for p in content]
        # plain strings among the parts: an app's inline fragments ("her name is ", bold
        # "Miso"); only parts: a model's content blocks, each its own paragraph
        sep = "" if any(isinstance(p, str) for p in content) else "\n"
        return sep.join(p for p in parts if isinstance(p, str) and p)
    return ""


def _yaml_messages(lines: Sequence[str]) -> list[tuple[str, str, str]] | None:
    """`role: user` / `content: …` pairs (`- role:` list items too; `content: |` and an
    indented block after it; a quoted value), or None when any other line is there."""
    messages: list[list[str]] = []  # [role, name, content]
    block: list[str] | None = None  # the lines of a `content: |` block being read
    block_indent = -1
    for line in lines:
        if block is not None:
            indent = len(line) - len(line.lstrip())
            if not line.strip() or (block_indent < 0 and indent > 0) or indent >= block_indent > 0:
                block_indent = indent if block_indent < 0 and line.strip() else block_indent
                block.append(line.strip())
                continue
            messages[-1][2] = "\n".join(block).strip()
            block = None
        if not line.strip():
            continue
        role = _YAML_ROLE.match(line)
        if role:
            messages.append([role.group("role").lower(), "", ""])
            continue
        field = _YAML_FIELD.match(line)
        if not field or not messages:
            return None
        value = field.group("value").strip()
        if field.group("key") == "name":
            messages[-1][1] = _unquote(value)
        elif value in ("|", ">", "|-", ">-"):
            block, block_indent = [], -1
        else:
            messages[-1][2] = _unquote(value)
    if block is not None and messages:
        messages[-1][2] = "\n".join(block).strip()
    if len(messages) < 2 and not (messages and messages[0][2]):
        return None
    return _messages([{"role": r, "name": n, "content": c} for r, n, c in messages])


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return str(json.loads(value))
        except (ValueError, RecursionError):
            return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


_MARKDOWN_BREAK = re.compile(r"^(?:#{1,6}\s+|(?:[-*_]\s*){3,}$)")


def _render(messages: Sequence[tuple[str, str, str]]) -> str:
    """Each user or assistant message as a turn: its label, then its lines (a heading's or
    a rule's marks dropped, so the message ends only where it does); a blank line between
    turns. "" when there is no turn."""
    out = []
    for role, name, content in messages:
        if role in _USER_ROLES:
            label = name.strip() or "User"
        elif role in _ASSISTANT_ROLES:
            label = "Assistant"
        elif role == "person" and read_turn(f"{name}: x") is not None:
            label = name.strip()
        else:
            continue  # system, tool, function: what the app told the model, not a turn
        body = "\n".join(_MARKDOWN_BREAK.sub("", line.strip()) for line in content.splitlines())
        body = re.sub(r"\n{3,}", "\n\n", body).strip()  # paragraphs and lists keep their breaks
        if body:
            out.append(f"{label}: {body}")
    return "\n\n".join(out) + "\n" if out else ""
