"""HTML the review views show: story sections, diffs with links marked, note bodies.

Everything from a note or a model is escaped; wikilinks are marked so a reviewer sees
at a glance which links a change adds (green) or removes (red).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from ..ops import FileDiff, Section

__all__ = ["esc", "sections_html", "diff_html", "note_html", "table_html", "message_html",
           "side_by_side_html"]

_LINK = re.compile(r"(?:[A-Za-z][A-Za-z0-9_]*::\s*)?!?\[\[[^\[\]\n]+\]\]")
_BOX = "font-family: var(--jp-code-font-family, monospace); font-size: 12px;"
_GREEN, _RED, _GREY = "#e6ffec", "#ffebe9", "#f6f8fa"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _marked(line: str, color: str | None) -> str:
    """`line` escaped, its wikilinks in <mark> (in `color` on changed lines)."""
    out, last = [], 0
    for m in _LINK.finditer(line):
        out.append(esc(line[last:m.start()]))
        style = f"background:{color};font-weight:600" if color else "background:#fff8c5"
        out.append(f'<mark class="reme-link" style="{style}">{esc(m.group(0))}</mark>')
        last = m.end()
    out.append(esc(line[last:]))
    return "".join(out)


def table_html(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th style='text-align:left;padding:2px 8px'>{esc(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td style='padding:2px 8px;vertical-align:top'>{esc(c)}</td>" for c in row)
        + "</tr>" for row in rows)
    return f"<table class='reme-table'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def sections_html(sections: Iterable[Section]) -> str:
    parts = []
    for s in sections:
        parts.append(f"<h4 style='margin:8px 0 2px'>{esc(s.title)}</h4>")
        parts += [f"<div>{esc(line)}</div>" for line in s.lines]
        if s.rows:
            parts.append(table_html(s.header, s.rows))
    return "".join(parts)


_PRE = "white-space:pre-wrap;line-height:1.35;margin:0;padding:4px;border:1px solid #d0d7de"


def diff_html(diff: FileDiff) -> str:
    """One file: its path and kind, the links it adds and removes, then its lines."""
    chips = "".join(
        f"<span class='reme-link-added' style='background:{_GREEN};margin-right:6px'>+ {esc(k)}</span>"
        for k in diff.links_added) + "".join(
        f"<span class='reme-link-removed' style='background:{_RED};margin-right:6px'>− {esc(k)}</span>"
        for k in diff.links_removed)
    rows = []
    for line in diff.lines:
        sign = line[:1]
        color = {"+": _GREEN, "-": _RED, "@": _GREY}.get(sign)
        style = f" style='background:{color};display:block'" if color else " style='display:block'"
        rows.append(f"<span{style}>{_marked(line, color if sign in '+-' else None) or ' '}</span>")
    return (f"<div class='reme-diff' style='margin:6px 0;{_BOX}'>"
            f"<div style='font-weight:600'>{esc(diff.kind)} {esc(diff.path)}</div>"
            f"<div>{chips or '<i>no link added or removed</i>'}</div>"
            f"<pre style='{_PRE}'>{''.join(rows) or '<i>no change</i>'}</pre>"
            "</div>")


def note_html(text: str, *, title: str = "") -> str:
    head = f"<div style='font-weight:600'>{esc(title)}</div>" if title else ""
    body = "\n".join(_marked(ln, None) for ln in text.split("\n"))
    return f"<div style='{_BOX}'>{head}<pre style='{_PRE}'>{body}</pre></div>"


def side_by_side_html(left: str, right: str, left_title: str, right_title: str) -> str:
    return ("<table style='width:100%;table-layout:fixed'><tr>"
            f"<td style='vertical-align:top;width:50%'>{note_html(left, title=left_title)}</td>"
            f"<td style='vertical-align:top;width:50%'>{note_html(right, title=right_title)}</td>"
            "</tr></table>")


def message_html(text: str, *, ok: bool = True) -> str:
    color = "#1a7f37" if ok else "#cf222e"
    return f"<div class='reme-status' style='color:{color}'>{esc(text)}</div>"
