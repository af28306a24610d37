"""Candidate statements from material: Markdown-aware segmentation, cue scoring, overlap.

Pure functions on strings (no I/O, no model); `OfflineBrain` builds its units from them.

* `segment(text)` cuts material into `Block`s (paragraph, list item, numbered step,
  table row) and each block into sentence `Statement`s. Frontmatter is skipped, headings
  become the context of what follows, a fenced code block belongs to the block before it,
  `pred:: [[x]]` lines are links rather than content. A chat transcript (every form
  `chat.py` reads: `**Lin:** …`, `User:` / `Assistant:`, JSON role lines, a WhatsApp
  export, `张三：…`) is read as turns: each turn one block with its speaker and role, the
  label and timestamp taken out. English sentences end at `.!?` before a capital; Chinese
  ones at `。！？；` and at line ends; nothing is cut inside a code span or a quotation.
* `score(statement)` gives cue scores for the three buckets plus a noise verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ...dream.markdown import CALLOUT, neutralise
from ...textrules import HAN_CHARS, is_cjk, plain, split_sentences, tokens
from ...vault.frontmatter import find_frontmatter
from .chat import (
    answering_speaker,
    breaks_turn,
    chat_speakers,
    normalise_transcript,
    read_turn,
    speaker_role,
    system_notice,
)
from .naming import imperative_frame, is_imperative
from .standalone import parse_ahead

__all__ = [
    "Block", "Statement", "Scores", "segment",
    "score", "score_all", "has_reason", "GENERIC_HEADINGS", "PROC_HEADING",
    "TOO_SHORT", "chat_speakers", "has_rule_words_zh",
]

BlockKind = Literal["step", "item", "para", "row"]
TOO_SHORT = "too short to carry an idea"  # noise that still counts as a (terse) step


@dataclass(frozen=True)
class Block:
    """A paragraph, list item, numbered step or table row, with its Markdown context."""

    index: int
    kind: BlockKind
    text: str  # the block's text, inline Markdown kept, lines joined
    heading: str  # nearest heading above ("" before the first one)
    section: int  # counts headings: blocks under one heading share it
    run: int  # consecutive items of one list share it; -1 for paragraphs and rows
    depth: int  # list nesting (0 = top level)
    parent: int  # index of the enclosing list item, -1 at top level
    line: int  # 1-based line in the material (frontmatter counted)
    code: tuple[str, ...] = ()  # fenced code blocks that follow this block
    lead: str = ""  # the "...:" paragraph that introduces this block's list
    callout: str = ""  # inside `> [!note]`: the callout's type ("note", "warning", ...)
    callout_title: str = ""  # the callout's own title line, when it has a body
    path: tuple[str, ...] = ()  # the heading tree above: ("Internal links", "Link to a file")
    level: int = 0  # the nearest heading's level (1-6; 7: a bold line used as a heading)
    levels: tuple[int, ...] = ()  # the level of each heading in `path`
    speaker: str = ""  # a chat turn's speaker as labelled ("Lin", "林晓", "User"), label removed
    entry: str = ""  # under an appended entry's `## HH:MM` heading: its time (not its title)
    role: str = ""  # a chat turn's speaker: "assistant", "user" or "person" (chat.speaker_role)

    @property
    def context(self) -> str:
        return f"{self.heading} {self.lead}".strip()


@dataclass(frozen=True)
class Statement:
    """One sentence of a block; `index` is its position in the material."""

    index: int
    text: str
    block: Block
    first: bool  # the block's first sentence


@dataclass(frozen=True)
class Scores:
    procedure: float
    personal: float
    wiki: float
    noise: str | None  # why the statement is chit-chat / content-free, else None

    @property
    def bucket(self) -> str:
        # Ties go to wiki, the fallback bucket (docs/spec.md §1.2).
        best = max(self.wiki, self.personal, self.procedure)
        if self.wiki == best:
            return "wiki"
        return "personal" if self.personal == best else "procedure"


# --- segmentation -----------------------------------------------------------------------

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?(\s*:?-{2,}:?\s*\|)+\s*(:?-{2,}:?\s*)?\|?\s*$")
_PRED_LINE = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_]*::\s")
_HRULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
# "[00:12] Oskar: ..." — the timestamp and the speaker are dropped
_TIMESTAMP = re.compile(r"^\s*\[\d{1,2}:\d{2}(:\d{2})?\]\s*([A-Z][\w.-]*( [A-Z][\w.-]*)?:\s+)?")
# An entry a client appended (docs/spec.md §3.6.4): "## 14:40 Rotate the token". The time
# says when it was written, never what it is about: it is kept apart from the title.
_ENTRY_HEADING = re.compile(r"^(\d{1,2}:\d{2})(?:\s+(.*))?$")
_QUOTE_MARK = re.compile(r"^\s*(?:>\s?)+")  # every level: a nested quote reads as its text
# a paragraph that is one bold line and nothing else reads as a sub-heading
_BOLD_HEADING = re.compile(r"^\s{0,3}(?:\*\*|__)([^*_\n]{2,80}?)[:：]?(?:\*\*|__)[:：]?\s*$")
_BOLD_LEAD = re.compile(r"^(?:\*\*|__)([^*_\n]{2,80}?)[:：]?(?:\*\*|__)")
_LINK_ONLY = re.compile(r"^\s*(!?\[\[[^\]]*\]\]\s*)+$")


_CJK_PUNCT = set("。！？；，、：“”‘’（）《》「」")


def _ends_cjk(line: str) -> bool:
    s = line.rstrip()
    return bool(s) and (is_cjk(s[-1]) or s[-1] in _CJK_PUNCT)


class _Builder:
    def __init__(self, plain_text: bool, bold_headings: bool = False) -> None:
        self.plain_text = plain_text  # .txt: a line is its own block unless hard-wrapped
        self.bold_headings = bold_headings  # a bold line alone, or a bold lead-in, is a heading
        self.blocks: list[Block] = []
        self.heading, self.section, self.kind = "", 0, "para"
        self.lines: list[str] = []  # the open block's lines, and its code blocks
        self.code: list[str] = []
        self.start = self.indent = self.next_run = 0  # indent: the open item's content column
        self.gap = False  # a blank line since the open item's last line
        self.levels: list[tuple[int, int, int, bool]] = []  # (indent, block, run, ordered)
        self.run_lead: dict[int, str] = {}  # top-level list run -> its lead-in paragraph
        self.callout, self.callout_title = "", ""  # the callout being read, if any
        self.callout_body = False  # the open callout has lines after its title (an embed counts)
        self.tree: list[tuple[int, str]] = []  # (level, heading) from the top down
        self.speaker, self.role = "", ""  # of the chat turn being read
        self.entry = ""  # the time of the appended entry being read ("14:40"), if any

    def heading_line(self, level: int, text: str) -> None:
        self.close()
        self.levels = []
        entry = _ENTRY_HEADING.match(text) if level <= 6 else None
        if entry:  # "## 14:40 Rotate the token": the title is the heading, the time is not
            text = (entry.group(2) or "").strip()
        if level <= 6:
            self.entry = entry.group(1) if entry else ("" if level <= 2 else self.entry)
        self._push_heading(level, text)

    def _push_heading(self, level: int, text: str) -> None:
        while self.tree and self.tree[-1][0] >= level:
            self.tree.pop()
        self.tree.append((level, text))
        self.heading, self.section = text, self.section + 1

    def open_callout(self, kind: str, title: str, line_no: int) -> None:
        self.end_callout()
        self.close()
        self.levels = []
        self.callout, self.callout_title, self.callout_body = kind.lower(), title, False
        self.start = line_no

    def end_callout(self) -> None:
        """A callout with no body says it all in its title line: that line is its text."""
        if not self.callout:
            return
        self.close()
        if not self.callout_body and self.callout_title:
            self.lines, self.kind = [self.callout_title], "para"
            self.callout_title = ""
            self.close()
        self.callout, self.callout_title = "", ""
        self.levels = []

    @property
    def in_item(self) -> bool:
        return bool(self.lines) and self.kind in ("step", "item")

    def close(self) -> None:
        if not self.lines:
            return
        text = ""
        for line in self.lines:
            line = line.strip()
            if not text:
                text = line
            elif _ends_cjk(text) or text.endswith(":"):
                text += "\n" + line  # a CJK line end (or a lead-in colon) ends a sentence
            else:
                text += " " + line  # an English hard wrap
        depth, parent, run, lead = 0, -1, -1, ""
        if self.kind in ("step", "item"):
            depth, run, top = len(self.levels) - 1, self.levels[-1][2], self.levels[0][2]
            parent = self.levels[-2][1] if len(self.levels) > 1 else -1
            if top not in self.run_lead:  # the list's first item: a "...:" paragraph before it
                last = self.blocks[-1] if self.blocks else None
                intro = last is not None and last.kind == "para" and last.section == self.section
                intro = intro and last.text.rstrip("*").endswith((":", "："))
                self.run_lead[top] = plain(last.text).rstrip(":：") if intro else ""
            lead = self.run_lead[top]
        self.blocks.append(Block(len(self.blocks), self.kind, text, self.heading, self.section,
                                 run, depth, parent, self.start, tuple(self.code), lead,
                                 self.callout, self.callout_title,
                                 tuple(h for _, h in self.tree),
                                 self.tree[-1][0] if self.tree else 0,
                                 tuple(lv for lv, _ in self.tree), self.speaker, self.entry,
                                 self.role))
        self.lines, self.code = [], []
        lead_in = _BOLD_LEAD.match(text) if self.kind == "para" and self.bold_headings else None
        if lead_in and text.rstrip("*").endswith((":", "：")):
            self._push_heading(7, _clean_heading(lead_in.group(1)))  # "**Rules** (…):" + a list

    def attach_code(self, code: str) -> None:
        # Code belongs to the step (or paragraph) before it.
        if not code.strip():
            return
        if self.lines:
            self.code.append(code)
        elif self.blocks:
            last = self.blocks[-1]
            self.blocks[-1] = Block(**{**last.__dict__, "code": last.code + (code,)})

    def item(self, indent: int, marker: str, text: str, line_no: int) -> None:
        self.close()
        ordered = marker[0].isdigit()
        while self.levels and self.levels[-1][0] > indent:
            self.levels.pop()
        if self.levels and self.levels[-1][0] == indent and self.levels[-1][3] == ordered:
            run = self.levels.pop()[2]
        else:
            if self.levels and self.levels[-1][0] == indent:
                self.levels.pop()  # same level, other list type: a new list
            run, self.next_run = self.next_run, self.next_run + 1
        self.levels.append((indent, len(self.blocks), run, ordered))
        self.kind = "step" if ordered else "item"
        self.lines, self.start = [text], line_no
        self.indent = indent + len(marker) + 1
        self.gap = False

    def text_line(self, line: str, line_no: int) -> None:
        indent = len(line) - len(line.lstrip())
        if self.in_item and (not self.gap or indent >= self.indent):
            self.lines.append(line)  # continuation, also after the step's code block
            self.gap = False
            return
        if self.in_item:
            self.close()
        if indent == 0:
            self.levels = []  # an unindented paragraph ends the list
        if self.plain_text and self.lines and not _continues(self.lines[-1], line):
            self.close()
        if not self.lines:
            self.kind, self.start = "para", line_no
        self.lines.append(line)

    def end_turn(self, speaker: str = "", role: str = "") -> None:
        """The chat turn being read is over: what follows is `speaker`'s (by default nobody's)."""
        self.close()
        self.speaker, self.role = speaker, role

    def continue_turn(self, line: str) -> bool:
        """A line right below a turn's own line continues that turn (a message of several
        lines), in a text file too."""
        if not (self.speaker and self.lines and self.kind == "para"):
            return False
        self.lines.append(line)
        return True

    def blank(self) -> None:
        self.gap = True  # an item may go on after a blank line, indented; a paragraph not
        if not self.in_item:
            self.close()

    def finish(self) -> list[Block]:
        self.close()
        self.end_callout()
        return self.blocks


def _continues(prev: str, line: str) -> bool:
    """Plain text: a line continues the previous one only mid-sentence (hard wrap)."""
    p, s = prev.rstrip(), line.lstrip()
    return bool(p and s) and p[-1] not in ".!?:。！？；" and s[0].islower()


def segment(
    text: str, *, plain_text: bool = False, bold_headings: bool = False,
    agent_names: tuple[str, ...] = (),
) -> tuple[list[Block], list[Statement]]:
    """Cut material into blocks and sentence statements (see the module docstring).
    `bold_headings`: a paragraph that is only a bold line, or a bold lead-in to a list
    ("**Working rules** (…):"), opens a sub-section, as documentation pages use them.
    `agent_names`: names the agent goes by in a chat, besides "assistant", "AI", …"""
    span = find_frontmatter(text)
    first_line = 1
    if span is not None:
        first_line += text.count("\n", 0, span.end)
        text = text[span.end :]
    # JSON role lines, app exports → "Name: …" turns; a document's checklist stays its steps
    text = normalise_transcript(text, notes_to_self=not bold_headings)
    original = text.splitlines()
    if not plain_text:
        text = neutralise(text)  # same line count: `original[i]` is line i before it
    text_lines = text.splitlines()
    speakers = chat_speakers(text_lines, agent_names)
    answering = answering_speaker(text_lines, speakers)
    if answering is not None:  # an assistant by its own name ("Aria: …")
        agent_names = (*agent_names, answering)
        speakers = chat_speakers(text_lines, agent_names)
    roles = {s: speaker_role(s, speakers, agent_names) for s in speakers}
    # in a chat with an assistant a turn runs to the next one (its replies have paragraphs
    # and lists); between people, a turn is its line and the lines right below it
    whole_turns = len(speakers) >= 2 and "assistant" in roles.values()
    last_turn = max((i for i, x in enumerate(text_lines) if speakers
                     and (t := read_turn(x)) and t.label in speakers), default=-1)
    b = _Builder(plain_text, bold_headings)
    table_head: list[str] | None = None
    label_alone = False  # the last line was a label alone on its line ("**user**")
    fence: tuple[str, int] | None = None
    code: list[str] = []
    for n, raw in enumerate(text_lines, start=first_line):
        line = raw.rstrip()
        quoted = fence is None and bool(_QUOTE_MARK.match(line))
        if fence is None and not plain_text:  # a text file has no callouts
            callout = CALLOUT.match(line)
            if callout:
                b.open_callout(callout.group(1), plain(callout.group(2)), n)
                continue
            if b.callout and not quoted:
                b.end_callout()  # a callout ends at the first line that is not quoted
            elif b.callout and _QUOTE_MARK.sub("", original[n - first_line], count=1).strip():
                b.callout_body = True
        if quoted:
            line = _QUOTE_MARK.sub("", line, count=1)
        if fence is not None:
            m = _FENCE.match(line)
            closing = m and m.group(2)[0] == fence[0] and len(m.group(2)) >= fence[1]
            if closing and not line[m.end() :].strip():
                b.attach_code(_dedent(code))
                fence, code = None, []
            else:
                code.append(line)
            continue
        m = _FENCE.match(line)
        if m:
            fence, code = (m.group(2)[0], len(m.group(2))), []
            if not m.group(1) and b.kind == "para":
                b.close()  # an unindented fence ends a paragraph
            continue
        if not line.strip():
            b.blank()
            if b.speaker and not whole_turns and not label_alone:
                b.end_turn()  # between people a turn ends at a blank line
            table_head = None
            continue
        h = _HEADING.match(line)
        said = read_turn(line) if h and speakers else None
        if said and said.label in speakers and not quoted:  # an exporter's "### ChatGPT"
            b.end_turn(said.label, roles[said.label])
            label_alone = True
            continue
        if h and not quoted:
            if breaks_turn(line, whole_turns=whole_turns, turn_follows=last_turn > n - first_line):
                b.end_turn()
            b.heading_line(len(h.group(1)), _clean_heading(h.group(2)))
            continue
        bold = _BOLD_HEADING.match(line)
        if bold and bold_headings and not quoted and not b.lines and _alone(text_lines, n - first_line):
            b.heading_line(7, _clean_heading(bold.group(1)))  # "**Linking to subheadings**"
            continue
        if _HRULE.match(line) or _PRED_LINE.match(line) or _LINK_ONLY.match(line):
            b.close()
            if _HRULE.match(line) and breaks_turn(line, whole_turns=whole_turns,
                                                  turn_follows=last_turn > n - first_line):
                b.end_turn()
            continue
        if _TABLE_ROW.match(line):  # a row becomes "header: cell; header: cell"
            b.close()
            b.levels = []
            cells = _cells(line)
            if table_head is None or _TABLE_SEP.match(line):
                table_head = table_head or cells
                continue
            pairs = [f"{h}: {c}" if h else c for h, c in zip(table_head, cells, strict=False) if c]
            b.lines, b.kind, b.start = ["; ".join(pairs)], "row", n
            b.close()
            continue
        table_head = None
        item = _ITEM.match(line)
        if item and not plain_text:
            b.item(len(item.group(1)), item.group(2), item.group(3), n)
            label_alone = False
            continue
        turn = read_turn(line) if speakers else None
        if turn and turn.label in speakers:  # one labelled line, one turn, one block
            b.end_turn(turn.label, roles[turn.label])
            label_alone = turn.alone
            if turn.text:
                b.text_line(turn.text, n)
            continue
        label_alone = False
        if speakers and system_notice(line):
            b.end_turn()  # "Messages and calls are end-to-end encrypted": no one said it
            continue
        stamp = _TIMESTAMP.match(line)
        if stamp:
            b.end_turn()
            line = line[stamp.end() :]
        elif b.continue_turn(line):
            continue
        b.text_line(line, n)
    if fence is not None and code:
        b.attach_code(_dedent(code))  # an unclosed fence still belongs to its step
    blocks = b.finish()
    statements: list[Statement] = []
    for block in blocks:
        for i, sentence in enumerate(split_sentences(block.text)):
            statements.append(Statement(len(statements), sentence, block, i == 0))
    return blocks, statements


# a cell and the pipe that ends it (a link runs to its `]]`, or to the row's end)
_CELL = re.compile(r"((?:\[\[.*?(?:\]\]|$)|\\\||[^|])*)(\||$)")


def _cells(row: str) -> list[str]:
    r"""The cells of a table row; `\|` and a pipe inside `[[...]]` do not separate cells."""
    cells = [c.replace("\\|", "|").strip() for c, end in _CELL.findall(row.strip().removeprefix("|"))
             if end or c.strip()]  # the last cell only when it holds something
    return cells or [""]


def _alone(lines: list[str], i: int) -> bool:
    """Line i stands between blank lines (or the text's ends): a paragraph of its own."""
    return (i == 0 or not lines[i - 1].strip()) and (i + 1 >= len(lines) or not lines[i + 1].strip())


def _dedent(lines: list[str]) -> str:
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(indents, default=0)
    return "\n".join(x[cut:] for x in lines).strip("\n")


def _clean_heading(text: str) -> str:
    text = re.sub(r"^\d+(\.\d+)*[.)]?\s+", "", text)  # "2. Database migrations"
    return plain(text).strip()


# --- scoring ----------------------------------------------------------------------------


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


# Explicit "don't keep this" markers: the whole rest of the block is noise.
_NOISE_MARK = _rx(
    r"^(also read|see also|source|sources|last reviewed)\b|"
    r"nothing to (keep|remember|act on)|not relevant|not memory|no real task|pure fun|"
    r"chit-?chat|small talk|unrelated|nothing work-related|one-off|闲聊|不用记|没什么要记|无关"
)
# A sentence that only points back ("就这样", "that's it", "yes, like that"): a fragment
# that needs its context — dropped rather than kept as a note of its own.
_BACK_REFERENCE = _rx(
    r"(^|[“\"「：:]\s*)(就这样|就这么|这样就|对[，,]|是的|好的|没错|that's it|exactly|"
    r"yes,? like that|same as before|we said this|as (i|we) said|like (i|we) said)"
    r"|(以后就这样|以后都这样|就这样吧|就按这个|like that from now on)[。.!！]?[”\"」]?"
    # an instance of a rule said before, not the rule: "……——周五没合是按她的规矩"
    r"|按(她|他|梅|用户)?的?规矩|规矩再次确认|再次确认|\b(per|following|as per) (her|his|their|\w+'s) rule\b"
    r"|^(this|that) (is|was) (action item|item|the same|what)\b"
    r"|\bwe said this\b|\bsame (preference|rule|thing) as\b|和上次一样|同上"
)
_TASK_ITEM = re.compile(r"^\[[ xX]\]\s")  # "- [ ] Lin: check the billing alert"
# Chit-chat topics: the sentence (and the rest of its block) is noise.
_NOISE_TOPIC = _rx(
    r"\b(hi|hello|hey|thanks|thank you|good (morning|night|evening)|halloween|costume|recipe|"
    r"pun|joke|jokes|lunch|dinner|breakfast|coffee|weather|rain|hiking|podcast|quiz|birthday|"
    r"movie|holiday plans|cups? of)\b|你好|谢谢|天气|午饭|晚饭|咖啡|笑话|爬山|照片|心情"
)
_IMPERATIVE_ZH = re.compile(
    r"^(先|然后|再|运行|执行|检查|确认|改|建|打开|安装|备份|恢复|验证|记录|导出|重启|切换)"
)
_RULE = _rx(
    r"\b(always|never|don'?t|do not|no exceptions?|prefers?|preferred|preference|rather than|"
    r"must not|please|no \w+ without)\b|^\W*no\b"
)
_WEAK_RULE = _rx(r"\b(must|should|avoid|only|unless|make sure)\b")
_RULE_ZH = re.compile(
    r"喜欢|偏好|不要|别|总是|一定|以后都|以后|习惯|规矩|惯例|必须|务必|千万|就这样|不[写用发合]"
)
_HABIT = _rx(r"每周|每天|每次|每条|\bevery\b")
# "Mei's rule", "her rule", "她的规矩": a rule and its owner in one phrase.
_OWN_RULE = re.compile(
    r"\b([A-Z][a-z]+'s|[Hh]er|[Hh]is|[Tt]heir) (rule|preference)s?\b|她的规矩|她的习惯"
)
# A named person (or she / he / I) wanting something is a preference by itself.
_WANTS = re.compile(
    r"\b([Ss]he|[Hh]e|[Tt]hey|[A-Z][a-z]+|I)\s+(wants?|prefers?|likes?|hates?|insists?|"
    r"would rather|'d rather)\b"
)
_USER = _rx(
    r"\b(she|he|they)\s+(asked for|said|reminded|stopped me|caught)\b|"
    r"\b[A-Z][a-z]+'s (rule|preference)|"
    r"\b[A-Z][a-z]+ (asked for|answered|replied|said|told me|insisted)\b|"
    r"\b(her|his|their|my|user'?s?) (rule|preference|habit)s?\b|\bI (prefer|like|want|hate)\b|"
    r"\bI'd rather\b|^(preference|rule|working rule)s?\b|^\w+: \**[\"“]|stopped me"
)
# She said / asked / stressed; a speaker (any 1-4 CJK characters) quoted: 某某："……"
_USER_ZH = re.compile(
    rf"[她他]说|她要|她用|她提醒|要求|强调|她的习惯|她的规矩|我用中文|^[{HAN_CHARS}]{{1,4}}[：:]\s*[“\"]"
    rf"|^[{HAN_CHARS}]{{1,4}}说"
)
_REASON = _rx(
    r"\bbecause\b|\bso that\b|\botherwise\b|\bif it breaks\b|\bthe reason\b|\bsince it\b|"
    r" — it'?s\b|因为|(?<!就)这样(?!就|。|$)|否则|以免|免得|为了"
)
_DECISION = _rx(
    r"\b(decided|decision|chose|chosen|choose|rejected|instead of|agreed|we will|"
    r"went with|trade-?off)\b|决定|选择|否决|采用|确认"
)
_CAUSE = _rx(r"\b(caused by|because|due to|the reason|reason:|reasons)\b|导致|由于")
_ROOT_CAUSE = _rx(r"\broot cause|根本原因|根因|原因是")
_DEFINE = _rx(
    r"\b(is|are|means|refers to|stands for|listens on|runs on|owns|default(s)? to|"
    r"default|lives? in|uses)\b| = |是|指|即|位于|端口"
)
_OBSERVE = _rx(
    r"\b(found|turned out|is wrong|wrong|no longer|changed|is now|are now|confirmed|"
    r"became|obsolete|does not|doesn't|cannot|can't)\b|发现|变成|改为|不再|有误"
)
_FACT = _rx(
    r"\b(port|endpoint|host|version|ip|address|replicas?|database|role|owner|lead)\b|"
    r"\d{2,}|地址|端口|版本"
)
_WIKI_CUES = ((_DECISION, 1.5), (_CAUSE, 1.2), (_ROOT_CAUSE, 2.0), (_DEFINE, 0.5),
              (_OBSERVE, 0.6), (_FACT, 0.4))
PROC_HEADING = _rx(
    r"deploy|procedure|steps|runbook|how to|rotat|migrat|restore|setup|set up|"
    r"install|rollout|cutover|checklist|步骤|流程|操作|恢复"
)
_PERSONAL_HEADING = _rx(r"prefer|偏好|rules?\b|习惯|规矩")
_SAID_HEADING = _rx(r"what \w+ (said|added|wants)")
_WIKI_HEADING = _rx(
    r"facts?|decision|root cause|findings|lessons|summary|what went wrong|"
    r"systems|notes|事实|决定|原因|发现|结论|注意"
)
_NARRATIVE_HEADING = _rx(r"^(outcome|what i did|background|context|timeline.*|结果|过程)$")
_TASK_HEADING = _rx(r"^(task|goal|request|任务|目标)$")

GENERIC_HEADINGS = _rx(
    r"^(task|outcome|what i did|steps|procedure|notes( for next time)?|summary|findings|"
    r"corrected procedure|current .*procedure|facts worth keeping|what \w+ (said|added)|"
    r"(corrected|current|updated|new) (order|steps)|how i did it|"
    r"details|misc|用户偏好.*|任务|结果|步骤|流程)$"
)


def score(
    statement: Statement, *, noise_before: bool = False, resource: bool = False,
) -> Scores:
    """Cue scores per bucket (weights are relative; the thresholds live in offline.py).
    `noise_before`: an earlier sentence of the block was chit-chat, so this one is too.
    A chat turn's role says whose it is: the user's words can be their rules, the
    assistant's never are (chat.speaker_role)."""
    text, block = plain(statement.text), statement.block
    heading = block.context
    toks = tokens(text)
    size = len([t for t in toks if not is_cjk(t[0])]) + sum(map(is_cjk, text)) / 2
    noise = (
        "the agent's own chat line" if block.role == "assistant"
        else "marked as not worth keeping" if _NOISE_MARK.search(text) or _NOISE_MARK.search(heading)
        else "chit-chat topic" if _NOISE_TOPIC.search(text)
        else "continues a chit-chat sentence" if noise_before
        else "refers back to what was said before" if _BACK_REFERENCE.search(text)
        else "a task on a checklist, not knowledge" if _TASK_ITEM.match(block.text)
        else TOO_SHORT if size < 3 else None
    )
    unlabeled = re.sub(r"^\**[\w ]{1,20}[:：]\**\s*", "", text)  # "So: ", "Fix: " labels
    imperative = block.role != "assistant" and any(  # the agent's lines are noise: not asked
        _IMPERATIVE_ZH.search(t) if is_cjk(t[:1]) else is_imperative(t)  # English: parsed
        for t in (text, unlabeled) if t)
    chain = text.count("→") >= 2 or text.count("->") >= 2  # "a → b → c" is a compact runbook
    proc = (2.0 * (block.kind == "step" and block.depth == 0) + 1.0 * imperative
            + 0.5 * bool(block.code) + 2.5 * chain + 0.5 * bool(PROC_HEADING.search(heading)))

    wants = bool(_WANTS.search(text) or _OWN_RULE.search(text))  # "Mei wants", "her rule"
    rule = wants or bool(_RULE.search(text) or _RULE_ZH.search(text))
    weak = not rule and bool(_WEAK_RULE.search(text))
    user = wants or any(rx.search(t) for rx in (_USER, _USER_ZH) for t in (text, statement.text))
    user = user or block.role == "user"  # the user's own turn, talking to the assistant
    personal = 1.5 * rule + 0.8 * weak + (1.5 if rule or weak else 0.7) * user
    personal += 0.5 * bool(_HABIT.search(text))
    if _PERSONAL_HEADING.search(heading):
        personal += 2.0  # listed under "Preferences" / "Working rules": a rule by place
    elif _SAID_HEADING.search(heading):
        personal += 1.0
    if block.kind == "step" and not (rule and user):
        personal -= 0.5  # narrated steps mention the user all the time
    if rule and "`" in statement.text and not user:
        personal, proc = personal - 0.5, proc + 0.5  # "always follow with `x`": a tip

    wiki = 0.3 + sum(w for rx, w in _WIKI_CUES if rx.search(text))  # the fallback starts ahead
    wiki += 1.0 * bool(_WIKI_HEADING.search(heading)) + 1.0 * resource  # sources say what X is
    if _TASK_HEADING.search(block.heading):  # what was asked, not what was learnt
        wiki, personal, proc = wiki - 1.5, personal - 1.5, proc - 1.0
    elif _NARRATIVE_HEADING.search(block.heading) and not _PERSONAL_HEADING.search(block.lead):
        wiki, personal = wiki - 0.7, personal - 0.3
    if block.kind == "step":
        wiki -= 0.5  # a step's sentences belong to its procedure
    if text.rstrip().endswith(("?", "？")):
        wiki, personal = wiki - 1.0, personal - 1.0  # a question is not knowledge yet
    return Scores(round(proc, 2), round(personal, 2), round(wiki, 2), noise)


def has_rule_words_zh(text: str) -> bool:
    """Whether a Chinese sentence holds the words of a rule or a preference (不要, 别, 总是,
    一律, 必须, 喜欢 …): what the log rules keep of a Chinese chat with an assistant
    (user_rules.py reads an English one from its parse)."""
    return bool(_RULE_ZH.search(text))


def score_all(statements: list[Statement], *, resource: bool = False) -> list[Scores]:
    """Scores for every statement, carrying chit-chat forward within a block."""
    parse_ahead([imperative_frame(t) for st in statements if st.block.role != "assistant"
                 and (t := plain(st.text)) and not is_cjk(t[:1])])  # each asks is_imperative
    out: list[Scores] = []
    noisy_block = -1
    for st in statements:
        s = score(st, noise_before=st.block.index == noisy_block, resource=resource)
        if s.noise and s.noise != TOO_SHORT:
            noisy_block = st.block.index
        out.append(s)
    return out


def has_reason(text: str) -> re.Match[str] | None:
    return _REASON.search(text)
