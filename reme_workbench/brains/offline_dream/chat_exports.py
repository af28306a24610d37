"""The forms chat apps export and people paste, rewritten as one labelled line per turn
(`Name: text`), the form `chat.read_turn` reads (docs/spec.md §5.2.11). Pure functions on
strings; `chat.normalise_transcript` calls `export_turns`.

* A sender and a time on a line of their own, the message on the lines below it, some
  a date, brackets or a dash with the time, or else some sender heading two messages or
  more: WeChat
  (`老马 2027-11-22 06:10`), Telegram (`Priya Nair, [03.11.27 23:41]`), Discord
  (`Priya — Today at 11:41 PM`), Slack (`Priya Nair  11:41 PM`), Teams
  (`[11:41 PM] Priya Nair`). Each message becomes
  `[time] Name: first line` with its other lines below it; the blank line between
  messages stays.
* LINE's export, one message a line: `23:41<TAB>Name<TAB>text`.
* iMessage (imessage-exporter's txt, a copy from Messages): a date-time line
  (`Dec 01, 2027  7:48:12 PM`), the sender alone on the next (`Me`, a name, a number or an
  email address), then the text.
* A table of texts a phone backup tool writes (iMazing's CSV, an Android SMS backup's
  columns): a sent row is `Me`'s, a received one its sender's.
* A chat page pasted (Messenger, a web chat): each sender's name alone on a line over
  their text, told by structure — short name-like lines that recur and alternate, each
  over talk (`_name_lines`).
* What an app writes in place of a message nobody typed (`<Media omitted>`, `image
  omitted`, `This message was deleted`, `[图片]`, `该消息已撤回`) is no text: the message
  is left out, unless its sender says nothing else (they still take part in the chat).

Also the grammar atoms of a time, a date and a sender's name, which `chat` reads too.
Rule-based and says so: a form is recognised by its layout, at least two headed messages.
"""

from __future__ import annotations

import csv
import re

from ...textrules import HAN_CHARS

__all__ = ["export_turns", "is_placeholder", "CLOCK", "DATE", "STAMP", "NAME", "HANDLE", "LETTER"]

CLOCK = (r"(?:(?:上午|下午|晚上|早上|中午|凌晨)\s?)?\d{1,2}[:：]\d{2}(?:[:：]\d{2})?"
         r"(?:\s?[AaPp]\.?[Mm]\.?)?")
DATE = r"(?:\d{4}[/.-]\d{1,2}[/.-]\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}年\d{1,2}月\d{1,2}日)"
STAMP = rf"(?:{DATE}(?:,?\s*|T){CLOCK}|{DATE}|{CLOCK})"
# a name: a CJK one of 1-6 characters, or a word of letters with up to two capitalised words
# after it ("Kate", "kate", "Kate Miller", "GPT-4o", "Zoë", "AI Assistant")
LETTER = "A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"
# a Chinese nickname may end on a Latin name (阿May, 小Ken) — a capitalised word, so that
# 方案A: and 步骤B: of a document are no speakers — or, after a nickname's prefix (阿, 小,
# 老), on Latin letters written in lower case (阿ken)
NAME = (rf"(?:[{HAN_CHARS}][{HAN_CHARS}·]{{0,5}}|[{HAN_CHARS}]{{1,2}}[A-Z][a-z]{{1,11}}|[阿小老][a-z]{{2,11}}|"
        rf"[{LETTER}][{LETTER}0-9_.'’-]{{0,24}}(?: [A-Z\u00c0-\u00de][{LETTER}0-9_.'’-]{{0,24}}){{0,2}}"
        rf"(?:\s?[{HAN_CHARS}]{{1,3}})?)")

# a sender an export names by their handle, not in the address book: an international phone
# number or an email address (iMessage: "+447700900123", "pat@example.org")
HANDLE = r"(?:\+\d[\d ()-]{5,18}\d|[\w.+-]{1,40}@[\w-]{1,40}(?:\.[\w-]{1,20}){1,4})"

# a sender's line: the name, then (after a comma, a dash or spaces) the time of the message,
# maybe in brackets, maybe a day word before it ("Today at"), and nothing else
_DAY = r"(?:(?:Today|Yesterday|今天|昨天)\s*(?:at\s+)?)"
_HEADER = re.compile(
    rf"^\s*(?P<name>{NAME})(?P<sep>\s*,\s*|\s+[-–—]\s+|\s+)(?P<open>[\[(])?(?P<day>{_DAY}|{DATE},?\s+)?"
    rf"(?P<clock>{CLOCK})[\])]?\s*$")
# Teams' copy: the time in brackets first, then the sender, alone on the line
_HEADER_LEAD = re.compile(
    rf"^\s*\[(?P<day>{_DAY}|{DATE},?\s+)?(?P<clock>{CLOCK})\]\s*(?P<name>{NAME})\s*$")


def _header(line: str) -> tuple[str, str, bool] | None:
    """A sender's line: (name, time, whether more than a bare "Name 11:41" marks it)."""
    m = _HEADER.match(line)
    if m:
        return (m.group("name").strip(), m.group("clock"),
                bool(m.group("sep").strip() or m.group("open") or m.group("day")))
    m = _HEADER_LEAD.match(line)
    # "[07:30] Gym" over what was done there is a log's entry as often: a date marks a chat
    return (m.group("name").strip(), m.group("clock"), bool(m.group("day"))) if m else None


# LINE: a clock, the sender and the message, separated by tabs
_LINE_APP = re.compile(rf"^(?P<clock>{CLOCK})\t(?P<name>[^\t]{{1,40}})\t(?P<text>.*)$")
# what an app writes where a message had media or was taken back (WhatsApp on Android and
# iOS, WeChat, LINE): a closed class of the apps' own strings
_PLACEHOLDER = re.compile(
    r"^(?:<Media omitted>|<(?:attached|附件)[:：][^>]*>|"
    r"(?:image|video|audio|sticker|GIF|document|Contact card) omitted|"
    r"This message was deleted\.?|You deleted this message\.?|null|"
    r"\[(?:图片|表情|动画表情|语音|视频|文件|位置|链接|聊天记录|红包|转账|Photo|Sticker|Image)\]|"
    r"[^\s:：]+(?: [^\s:：]+)? unsent a message\.?|(?:\S+\s*)?撤回了一条消息|该消息已撤回|此消息已删除)$",
    re.I,
)
# a stamped one-line message ("03/11/2027, 23:42 - Sam: <Media omitted>"): its text
_STAMPED_TEXT = re.compile(
    rf"^\s*(?:\[{STAMP}\]\s*|{STAMP}\s+[-–—]\s+)(?P<name>[^:：]{{1,60}})[:：]\s*(?P<text>.*)$")
MIN_MESSAGES = 2  # headed messages, at least, before lines are read as an export


def is_placeholder(text: str) -> bool:
    """Whether a message's text is what an app writes instead of one (`_PLACEHOLDER`)."""
    return bool(_PLACEHOLDER.match(text.replace("\u200e", "").strip()))


def export_turns(text: str) -> str:
    """`text` with an app's export rewritten as `Name: text` turns (see the module doc);
    any other text unchanged."""
    lines = text.splitlines()
    out = (_line_app(lines) or _message_table(lines) or _headed(lines) or _stamp_over_sender(lines)
           or _name_lines(lines) or lines)
    kept = _without_placeholders(out)
    if kept == lines:
        return text
    return "\n".join(kept) + ("\n" if text.endswith("\n") else "")


def _without_placeholders(lines: list[str]) -> list[str]:
    """`lines` without the stamped messages that are an app's placeholder — those of a
    sender who says something else in the chat: one whose every message was a photo still
    speaks in it (a chat of two stays a chat of two, not one person's log)."""
    read = [_STAMPED_TEXT.match(x.replace("\u200e", "")) for x in lines]
    saying = {m.group("name").strip() for m in read if m and not is_placeholder(m.group("text"))}
    return [x for x, m in zip(lines, read, strict=True)
            if not (m and is_placeholder(m.group("text")) and m.group("name").strip() in saying)]


def _line_app(lines: list[str]) -> list[str] | None:
    """LINE's lines as `[time] Name: text`, when at least MIN_MESSAGES lines are LINE's;
    its other lines (a date line, "[LINE] Chat history with …") kept as they are."""
    matches = [_LINE_APP.match(x) for x in lines]
    if sum(m is not None for m in matches) < MIN_MESSAGES:
        return None
    return [x if m is None else f"[{m.group('clock')}] {m.group('name').strip()}: {m.group('text')}"
            for x, m in zip(lines, matches, strict=True)]


def _headed(lines: list[str]) -> list[str] | None:
    """Messages under a sender's line as `[time] Name: …` turns, when at least MIN_MESSAGES
    sender's lines each have a message below them; a placeholder among a message's lines
    is left out (a message that is only one is left to `_without_placeholders`)."""
    heads = [i for i, x in enumerate(lines) if _header(x) and _message_below(lines, i)]
    found = [h for i in heads if (h := _header(lines[i]))]
    names = [name for name, _, _ in found]
    dated = all(marked for _, _, marked in found)
    if len(heads) < MIN_MESSAGES or (not dated and len(set(names)) == len(names)):
        return None  # a bare "Name 11:41": someone sends twice in a chat; "Gym 18:00" is a log
    out: list[str] = []
    bounds = [*heads, len(lines)]
    out.extend(lines[: heads[0]])
    for start, end in zip(bounds, bounds[1:], strict=False):
        name, clock, _ = _header(lines[start]) or ("", "", False)
        body = lines[start + 1 : end]
        words = [x for x in body if x.strip()]
        if not words:
            continue
        kept = [x for x in words if not is_placeholder(x)] or words[:1]  # see _without_placeholders
        first = body.index(kept[0])
        rest = [x for x in body[first + 1 :] if not is_placeholder(x)]
        out.append(f"[{clock}] {name}: {body[first].strip()}")
        while rest and not rest[-1].strip():
            rest.pop()
        out.extend(rest)
        out.append("")  # the blank line between messages
    return out


# iMessage (imessage-exporter's txt, a copy from Messages): a date and time alone on a line —
# "Dec 01, 2027  7:48:12 PM", maybe a note of when it was read after it — then the sender
_MONTH_DATE = (r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}"
               r"|\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{4}")
_STAMP_ALONE = re.compile(
    rf"^\s*(?:{_MONTH_DATE}|{DATE}),?\s+(?:at\s+)?(?P<clock>{CLOCK})\s*(?:\([^()]*\))?\s*$")
_SENDER_ALONE = re.compile(rf"^\s*(?P<name>{NAME}|{HANDLE})\s*$")


def _stamp_over_sender(lines: list[str]) -> list[str] | None:
    """iMessage's messages — a date-time line, the sender's line, the text below — as
    `[time] Name: …` turns, when at least MIN_MESSAGES messages are so laid out; a line
    above the first (a title) is kept."""
    heads = [i for i in range(len(lines) - 2) if _STAMP_ALONE.match(lines[i])
             and _SENDER_ALONE.match(lines[i + 1]) and lines[i + 2].strip()
             and not _STAMP_ALONE.match(lines[i + 2])]
    if len(heads) < MIN_MESSAGES:
        return None
    out = lines[: heads[0]]
    for start, end in zip(heads, [*heads[1:], len(lines)], strict=True):
        clock = _STAMP_ALONE.match(lines[start]).group("clock")  # type: ignore[union-attr]
        name = lines[start + 1].strip()
        out.extend(_message(name, clock, lines[start + 2 : end]))
    return out


def _message(name: str, clock: str, body: list[str]) -> list[str]:
    """One message as a turn's lines: `[time] Name: first line`, its other lines below, a
    placeholder among them left out (a message that is only one is left to
    `_without_placeholders`), then the blank line between messages; [] when it has no text."""
    words = [x for x in body if x.strip()]
    if not words:
        return []
    kept = [x for x in words if not is_placeholder(x)] or words[:1]
    first = body.index(kept[0])
    rest = [x for x in body[first + 1 :] if not is_placeholder(x)]
    while rest and not rest[-1].strip():
        rest.pop()
    stamp = f"[{clock}] " if clock else ""
    return [f"{stamp}{name}: {body[first].strip()}", *rest, ""]


# a table of messages, a row each, as phone backup tools write it (iMazing's CSV, "SMS
# Backup" tools, a spreadsheet of texts): the header names its columns — of these, the
# first each row has (lower case, spaces and underscores alike)
_TEXT_COLUMNS = ("text", "body", "message", "message text", "content", "msg")
_SENDER_COLUMNS = ("sender name", "sender", "from", "author", "contact name", "contact", "name",
                   "sender id", "address")
_WAY_COLUMNS = ("type", "direction", "is from me", "from me", "sent", "folder")
_DATE_COLUMNS = ("message date", "date", "readable date", "date sent", "timestamp", "time",
                 "sent date")
# the values of a row's direction that say the user sent it: "Outgoing", "sent", an Android
# SMS `type` of 2 (1 is received), a true "is from me"
_OUTGOING = frozenset(("outgoing", "sent", "out", "2", "true", "yes", "me"))
_FROM_ME_COLUMNS = ("is from me", "from me")


def _message_table(lines: list[str]) -> list[str] | None:
    """A table of messages (comma, semicolon or tab separated, its header first) as
    `[time] Name: text` turns — the user's rows (sent, outgoing) as `Me`, the others under
    the sender's name or number; rows with no text (a photo) left out. None unless the
    header names a text column and a sender or direction column and MIN_MESSAGES rows have
    text."""
    body = [x for x in lines if x.strip()]
    if len(body) < MIN_MESSAGES + 1 or not any(d in body[0] for d in ",;\t"):
        return None
    try:
        dialect = csv.Sniffer().sniff("\n".join(body[:5]), delimiters=",;\t")
        header = [" ".join(h.replace("_", " ").lower().split())
                  for h in next(csv.reader(body[:1], dialect))]
        if any(len(h.split()) > 3 for h in header):
            return None  # a sentence with commas, not a header
        rows = list(csv.reader(body, dialect))
    except (csv.Error, StopIteration):
        return None

    def column(names: tuple[str, ...]) -> int | None:
        return next((header.index(n) for n in names if n in header), None)

    text, sender, way, date = (column(_TEXT_COLUMNS), column(_SENDER_COLUMNS),
                               column(_WAY_COLUMNS), column(_DATE_COLUMNS))
    if text is None or (sender is None and way is None) or len(header) < 3:
        return None
    from_me = way is not None and header[way] in _FROM_ME_COLUMNS
    out: list[str] = []
    for row in rows[1:]:
        if len(row) != len(header) or not row[text].strip() or is_placeholder(row[text]):
            continue
        outgoing = way is not None and row[way].strip().lower() in (
            _OUTGOING if not from_me else frozenset(("1", "true", "yes")))
        name = "Me" if outgoing else (row[sender].strip() if sender is not None else "")
        if not name:
            continue
        when = row[date].strip() if date is not None else ""
        stamp = f"[{when}] " if re.fullmatch(STAMP, when) else ""  # a time the turn reads
        message = row[text].strip().splitlines()
        out.extend([f"{stamp}{name}: {message[0]}", *message[1:], ""])
    return out if sum(1 for x in out if x) >= MIN_MESSAGES else None


# a sender's name alone on its line, as a chat page shows it (Messenger, a web chat): one to
# three words, each capitalised, or one word; no mark of a sentence or of markdown
_NAME_LINE = re.compile(
    rf"^(?P<name>[{LETTER}][{LETTER}'’-]{{0,24}}(?: [A-Z\u00c0-\u00de][{LETTER}'’-]{{0,24}}){{0,2}})$")
# people talking: a person's pronoun, as typed, or a question (a closed class)
_TALK = re.compile(r"(?<![\w'’])(?:i|im|i['’]\w{1,2}|me|my|you|u|ur|your|we|us|our)(?![\w'’])|[?？]|[我你]",
                   re.I)
MAX_SENDERS = 4  # a pasted page of more names than this is a list, not a chat


def _name_lines(lines: list[str]) -> list[str] | None:
    """A chat page pasted — each sender's name alone on a line over their text — as
    `Name: …` turns. Told by structure, not by the names: two to MAX_SENDERS short
    name-like lines each recur (at least twice), each stands over text that is not another
    of them, the senders change at least twice (they take turns), the first line with words
    is one, and no line is a heading or a list item (a document's recurring sub-titles)."""
    words = [x.strip() for x in lines if x.strip()]
    if any(x.startswith(("#", "- ", "* ", "|", "```", ">")) for x in words):
        return None
    counts: dict[str, int] = {}
    for x in words:
        if _NAME_LINE.match(x):
            counts[x] = counts.get(x, 0) + 1
    names = {x for x, n in counts.items() if n >= 2}
    # a recurring line right under a name is that sender's text ("Ok"), not a name
    names -= {b for a, b in zip(words, words[1:], strict=False) if a in names}
    if not 2 <= len(names) <= MAX_SENDERS or words[0] not in names:
        return None
    heads = [i for i, x in enumerate(lines) if x.strip() in names]
    order = [lines[i].strip() for i in heads]
    if sum(a != b for a, b in zip(order, order[1:], strict=False)) < 2:
        return None
    bodies = [lines[a + 1 : b] for a, b in zip(heads, [*heads[1:], len(lines)], strict=True)]
    if any(not any(x.strip() for x in body) for body in bodies):
        return None  # a name over no text: a list of names
    if not any(_TALK.search(x) for body in bodies for x in body):
        return None  # sub-titles over lists ("Packing" / "Food"): nobody talks to anybody
    out = lines[: heads[0]]
    for start, end in zip(heads, [*heads[1:], len(lines)], strict=True):
        out.extend(_message(lines[start].strip(), "", lines[start + 1 : end]))
    return out


def _message_below(lines: list[str], i: int) -> bool:
    """Whether the line after a sender's line is a message: words, not another sender's line."""
    below = lines[i + 1] if i + 1 < len(lines) else ""
    return bool(below.strip()) and _header(below) is None
