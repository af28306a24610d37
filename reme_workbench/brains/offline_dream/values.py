"""The values a statement gives, and when a new one changes an old note (docs/spec.md
§5.5.5–5.5.7).

A rule or fact names a subject and gives it values: "the weekly report goes out on
**Monday** morning", "周报改到**周五下午**", "reply in **Chinese**". Values are found by
form, in English and Chinese, and normalised so that the two languages meet:

| kind | examples | value |
|---|---|---|
| weekday | Monday, Mon., 周一, 星期一, 礼拜一 | `mon` |
| daypart | morning, afternoon, evening, 上午, 下午, 晚上 | `morning`, `afternoon`, `evening` |
| language | Chinese, 中文, 汉语; English, 英文 | `zh`, `en` |
| clock | 10:30, 15:00 | `10:30` |
| amount | 15 minutes, 6 bullets, 5 条, 30 分钟 | `15 minute`, `6 item` |

Two statements *agree* when they give the same value of some kind and no other value of
a kind both give; they *conflict* when, for a kind both give, they share no value. A
statement that reports a change ("moved from Monday to Friday", "改为周五") gives as its
values those after the change word, so "从周一改为周五" conflicts with a note that says
周一, not with one that says 周五.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["Values", "values", "new_values", "old_values", "agree", "conflict", "without_values"]

Values = Mapping[str, frozenset[str]]

_WEEKDAY_EN = {"monday": "mon", "tuesday": "tue", "wednesday": "wed", "thursday": "thu",
               "friday": "fri", "saturday": "sat", "sunday": "sun", "mon": "mon",
               "tue": "tue", "tues": "tue", "wed": "wed", "thu": "thu", "thur": "thu",
               "thurs": "thu", "fri": "fri", "sat": "sat"}
_WEEKDAY_ZH = {"一": "mon", "二": "tue", "三": "wed", "四": "thu", "五": "fri", "六": "sat",
               "日": "sun", "天": "sun"}
_DAYPART = {"morning": "morning", "mornings": "morning", "afternoon": "afternoon",
            "afternoons": "afternoon", "evening": "evening", "evenings": "evening",
            "night": "evening", "上午": "morning", "早上": "morning", "早晨": "morning",
            "下午": "afternoon", "晚上": "evening", "傍晚": "evening"}
_LANGUAGE = {"chinese": "zh", "mandarin": "zh", "中文": "zh", "汉语": "zh", "普通话": "zh",
             "english": "en", "英文": "en", "英语": "en"}
_UNITS = {"minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute",
          "分钟": "minute", "second": "second", "seconds": "second", "秒": "second",
          "hour": "hour", "hours": "hour", "小时": "hour", "bullet": "item", "bullets": "item",
          "条": "item", "items": "item", "points": "item", "要点": "item", "day": "day",
          "days": "day", "天": "day", "%": "percent", "percent": "percent"}

_EN = re.compile(r"\b(" + "|".join(sorted(_WEEKDAY_EN, key=len, reverse=True)) + r")s?\b\.?"
                 r"|\b(morning|mornings|afternoon|afternoons|evening|evenings|night)\b"
                 r"|\b(chinese|mandarin|english)\b", re.I)
_ZH = re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])|(上午|早上|早晨|下午|晚上|傍晚)"
                 r"|(中文|汉语|普通话|英文|英语)")
_CLOCK = re.compile(r"(?<![\d:])([01]?\d|2[0-3])[:：]([0-5]\d)(?![\d:])")
_AMOUNT = re.compile(r"(?<![\w.#-])(\d{1,4})\s*(minutes?|mins?|seconds?|hours?|bullets?|items|"
                     r"points|days?|percent|%|分钟|秒|小时|条|天|个要点)", re.I)
# where a reported change starts: what follows is the new value
_CHANGE_TO = re.compile(
    r"\b(?:moved|changed|switched|shifted|changes|moves)\b[^.;]*?\bto\b|\bfrom\b[^.;]*?\bto\b"
    r"|\b(?:now|instead|no longer)\b|改为|改到|改成|换成|变成|调到|调整为", re.I)


def values(text: str) -> dict[str, frozenset[str]]:
    """{kind: values} the text gives (see the module doc)."""
    found: dict[str, set[str]] = {}

    def add(kind: str, value: str) -> None:
        found.setdefault(kind, set()).add(value)

    for m in _EN.finditer(text):
        if m.group(1):
            word = m.group(1).lower()
            if word == "sat" and not m.group(0).endswith("."):
                continue  # "sat" is mostly a verb
            add("weekday", _WEEKDAY_EN[word])
        elif m.group(2):
            add("daypart", _DAYPART[m.group(2).lower()])
        else:
            add("language", _LANGUAGE[m.group(3).lower()])
    for m in _ZH.finditer(text):
        if m.group(1):
            add("weekday", _WEEKDAY_ZH[m.group(1)])
        elif m.group(2):
            add("daypart", _DAYPART[m.group(2)])
        else:
            add("language", _LANGUAGE[m.group(3)])
    for m in _CLOCK.finditer(text):
        add("clock", f"{int(m.group(1)):02d}:{m.group(2)}")
    for m in _AMOUNT.finditer(text):
        unit = _UNITS.get(m.group(2).lower().removeprefix("个"), m.group(2).lower())
        add(f"amount:{unit}", m.group(1))
    return {k: frozenset(v) for k, v in found.items()}


def new_values(text: str) -> dict[str, frozenset[str]]:
    """The values a statement gives *now*: after its change word when it reports a change
    ("from Monday to Friday" -> Friday), else all of them."""
    m = _CHANGE_TO.search(text)
    if m is None:
        return values(text)
    after = re.sub(r"[(（][^)）]*[)）]", " ", text[m.end():])  # "（原来是周一）" is the old one
    return values(after) or values(text)


def old_values(text: str) -> dict[str, frozenset[str]]:
    """The values a statement reports changing *from*: up to its change word ("moved from
    Monday morning to Friday" -> Monday, morning; "从周一上午改为周五" -> 周一, 上午), none
    when it reports no change."""
    m = _CHANGE_TO.search(text)
    return {} if m is None else values(text[:m.end()].removesuffix("to"))


def agree(a: Values, b: Values) -> bool:
    """Both give the same value of some kind and conflict on none."""
    return any(a[k] & b[k] for k in a.keys() & b.keys()) and not conflict(a, b)


def conflict(new: Values, old: Values) -> list[str]:
    """The kinds both give with no value in common ("weekday: mon -> fri")."""
    out = []
    for kind in sorted(new.keys() & old.keys()):
        if not new[kind] & old[kind]:
            out.append(f"{kind}: {', '.join(sorted(old[kind]))} -> {', '.join(sorted(new[kind]))}")
    return out


def without_values(text: str) -> str:
    """The text without its values, so two statements are compared on their subject."""
    text = _EN.sub(" ", text)
    text = _ZH.sub(" ", text)
    return _AMOUNT.sub(" ", _CLOCK.sub(" ", text))
