"""The rules of a hub's form and of counting the vault for one (docs/spec.md §7.6, §7.9.5).

The abstract planner and every brain that writes a hub (`ConsolidateBrain.write_hub`) read
them alike, so they live with the planner:

* **Headings.** `heading_texts` are a note's headings (frontmatter and fenced code
  skipped); `own_headings` those that name something of the note's own — not a generic
  one ("Notes", "Steps") nor one a template gave many notes: `template_headings` are the
  heading keys (`heading_key`) at least `TEMPLATE_HEADING_NOTES` notes and
  `TEMPLATE_HEADING_SHARE` of the digest hold ("Plugins" on every author page).
* **Topic words** (`topic_words`): the content words of a note's name, description and
  own headings — what a hub may be named by, and what the planner counts the vault on.
* **Provenance** (`provenance_lines`): a hub's sources on grouped `derived_from::` lines,
  `PROVENANCE_PER_LINE` links a line.
* **The least a hub holds** (`hub_floor_tokens`): its provenance lines and a bare link to
  each member the share needs (`links_needed`); when that alone is over the budget the
  planner asks no brain.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from ..textrules import GENERIC_HEADING, content_words, reader_text
from ..vault.links import PROVENANCE_PREDICATE, format_link
from ..vault.tokens import content_tokens

__all__ = [
    "TEMPLATE_HEADING_NOTES", "TEMPLATE_HEADING_SHARE", "PROVENANCE_PER_LINE",
    "heading_texts", "heading_key", "own_headings", "template_headings", "topic_words",
    "provenance_lines", "links_needed", "hub_floor_tokens",
]

# a heading this many notes (and this share of the digest) hold is a template's: not a topic
TEMPLATE_HEADING_NOTES = 10
TEMPLATE_HEADING_SHARE = 0.02
PROVENANCE_PER_LINE = 8  # links on one derived_from:: line of a hub

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


# -- words -------------------------------------------------------------------------------


def heading_texts(text: str) -> list[str]:
    """The headings of a note's text (a leading frontmatter and fenced code skipped: a
    `# comment` there is no heading)."""
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        start = end + 1 if end is not None else 0
    out, fence = [], None
    for line in lines[start:]:
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)[0]
            fence = None if fence == mark else (fence or mark)
            continue
        if fence is None and (h := _HEADING.match(line)):
            out.append(h.group(1))
    return out


def heading_key(heading: str) -> str:
    """A heading as the vault's count of template headings keys it."""
    return " ".join(reader_text(heading).lower().split())


def own_headings(text: str, template: frozenset[str] = frozenset()) -> list[str]:
    """The headings of `text` that name something of the note's own: not a generic one
    ("Notes", "Steps"), not one a template gave many notes ("Plugins" on every author
    page, "This note in GitHub" on every plugin page: `template`, by `heading_key`)."""
    return [h for h in heading_texts(text)
            if not GENERIC_HEADING.match(h.strip()) and heading_key(h) not in template]


def template_headings(counts: Counter, notes: int) -> frozenset[str]:
    """The heading keys at least `TEMPLATE_HEADING_NOTES` notes and
    `TEMPLATE_HEADING_SHARE` of the `notes` hold: a template's, not a topic."""
    floor = max(TEMPLATE_HEADING_NOTES, TEMPLATE_HEADING_SHARE * notes)
    return frozenset(h for h, n in counts.items() if n >= floor)


def topic_words(name: str, description: str, text: str,
                template: frozenset[str] = frozenset()) -> frozenset[str]:
    """The content words of a note's name, description and own headings (`text`: its
    body, or its whole text): what a hub may be named by, and what the vault is counted on."""
    headings = " ".join(own_headings(text, template))
    return content_words(f"{name}\n{description}\n{headings}")


# -- the body ----------------------------------------------------------------------------


def provenance_lines(targets: Iterable[str]) -> list[str]:
    """`derived_from:: [[a]] [[b]] …`, `PROVENANCE_PER_LINE` links a line, each target once
    in the order given (a predicate line types every link on it, §2.1.2)."""
    unique = list(dict.fromkeys(targets))
    return [f"{PROVENANCE_PREDICATE}:: " + " ".join(f"[[{t}]]" for t in unique[k:k + PROVENANCE_PER_LINE])
            for k in range(0, len(unique), PROVENANCE_PER_LINE)]


def links_needed(members: int, share: float) -> int:
    """How many members a hub must link to cover `share` of `members`."""
    return min(members, max(0, math.ceil(share * members - 1e-9)))


def hub_floor_tokens(member_paths: Sequence[str], sources: Iterable[str], *,
                     share: float, pillars: int) -> int:
    """The fewest estimated tokens a hub body of these members can have: its provenance
    lines, and a bare link to each of the members the share needs (at least `pillars`),
    taken in the order given (central first, as the hub takes them), under two headings."""
    need = max(links_needed(len(member_paths), share), min(pillars, len(member_paths)))
    links = "\n".join(f"- {format_link(p)}" for p in member_paths[:need])
    return content_tokens("## x\n\n## x\n\n" + links + "\n\n" + "\n".join(provenance_lines(sources)))
