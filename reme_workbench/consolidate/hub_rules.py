"""The rules of a hub's form, of counting the vault for one, and of telling a member that
already is the community's hub (docs/spec.md §7.6, §7.9.5).

The abstract planner, the communities run, the screens and every brain that writes a hub
(`ConsolidateBrain.write_hub`) read them alike, so they live with the planner:

* **The hub a community has** (`member_hub`): the member linking the most others is the
  community's hub when it links at least the coverage share (`[abstract] hub_coverage`,
  60 %) of the other members, or — written as a list of links (`index_shaped`: an index,
  a map of content the person wrote) — more than `INDEX_SHARE` (half: "most") of them;
  either way only when it stands out, linking at least `HUB_LEAD` (0.25) more of the
  others than the community's median member does. In a dense community where every note
  links most of the others (five notes each linking the next three) no note stands out:
  it has no hub yet, and abstract may propose one.

* **Headings.** `heading_texts` are a note's headings (frontmatter and fenced code
  skipped); `own_headings` those that name something of the note's own — not a generic
  one ("Notes", "Steps") nor one a template gave many notes: `template_headings` are the
  heading keys (`heading_key`) at least `TEMPLATE_HEADING_NOTES` notes and
  `TEMPLATE_HEADING_SHARE` of the digest hold ("Plugins" on every author page).
* **Topic words** (`topic_words`): the content words of a note's name, description (else
  its lead sentence, `lead_sentence`: an imported note has no description) and own
  headings — what a hub may be named by, and what the planner counts the vault on (a
  body's words, which pairs are gated on, are `candidates.body_topic_words`).
* **Provenance** (`provenance_lines`): a hub's sources on grouped `derived_from::` lines,
  `PROVENANCE_PER_LINE` links a line.
* **The least a hub holds** (`hub_floor_tokens`): its provenance lines and a bare link to
  each member the share needs (`links_needed`); when that alone is over the budget the
  planner asks no brain.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..textrules import GENERIC_HEADING, content_words, reader_text, split_note_line
from ..vault.links import PROVENANCE_PREDICATE, format_link
from ..vault.tokens import content_tokens

__all__ = [
    "TEMPLATE_HEADING_NOTES", "TEMPLATE_HEADING_SHARE", "PROVENANCE_PER_LINE", "HUB_LEAD",
    "INDEX_SHARE", "INDEX_LINES", "MemberHub", "member_hub", "index_shaped", "lead_sentence",
    "heading_texts", "heading_key", "own_headings", "template_headings", "topic_words",
    "provenance_lines", "links_needed", "hub_floor_tokens",
]

# a heading this many notes (and this share of the digest) hold is a template's: not a topic
TEMPLATE_HEADING_NOTES = 10
TEMPLATE_HEADING_SHARE = 0.02
PROVENANCE_PER_LINE = 8  # links on one derived_from:: line of a hub
# A hub links at least this much more of the other members than the median member does:
# in a dense community every note links most of the others, and none of them is its hub.
HUB_LEAD = 0.25
# A note written as a list of links (an index, a map of content) is the community's hub
# when it lists more than this share of the other members: "most" of them.
INDEX_SHARE = 0.5
# ... written as a list of links: at least this share of its lines of text are list items
# or table rows holding a link, and at least INDEX_MIN_ITEMS of them.
INDEX_LINES = 0.5
INDEX_MIN_ITEMS = 3

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


# -- the hub a community already has ------------------------------------------------------


@dataclass(frozen=True)
class MemberHub:
    """What a community's members say about its hub (`member_hub`)."""

    member: str | None  # the member linking the most others (the hub when `found`)
    share: float  # of the other members, the share it links
    links: int  # how many other members it links
    others: int  # the other members
    typical: float  # the median share of the other members
    index: bool  # it is written as a list of links (`index_shaped`)
    found: bool  # it is the community's hub

    def to_json(self) -> dict:
        return {"member": self.member, "links": self.links, "others": self.others,
                "typical": round(self.typical, 4), "index": self.index, "hub": self.found}


def member_hub(members: Iterable[str], targets: Callable[[str], set[str]], *, coverage: float,
               is_index: Callable[[str], bool] = lambda _path: False) -> MemberHub:
    """The member that is the community's hub, if one is (module doc), else the member that
    links the most others. `targets(path)` is the set of notes `path` links to (any
    predicate); `is_index(path)` says whether a note is written as a list of links (asked
    only of a member that links more than `INDEX_SHARE` of the others). Ties go to the
    smaller path; a community of one has no hub."""
    group = sorted(set(members))
    if len(group) < 2:
        return MemberHub(None, 0.0, 0, 0, 0.0, False, False)
    wanted, others = set(group), len(group) - 1
    linked = {p: len((targets(p) & wanted) - {p}) for p in group}
    ranked = sorted(group, key=lambda p: (-linked[p], p))
    shares = [linked[p] / others for p in ranked]
    best: MemberHub | None = None
    for k, path in enumerate(ranked):  # the best first; an index further down may still do
        share = shares[k]
        if share <= INDEX_SHARE:
            break  # the rest link fewer: neither a hub nor an index
        typical = statistics.median(shares[:k] + shares[k + 1:])
        index = is_index(path)
        found = (share >= coverage or index) and share - typical >= HUB_LEAD - 1e-9
        seen = MemberHub(path, share, linked[path], others, typical, index, found)
        if found:
            return seen
        best = best or seen
    if best is None:
        path = ranked[0]
        best = MemberHub(path, shares[0], linked[path], others,
                         statistics.median(shares[1:]), False, False)
    return best


_LINK = re.compile(r"\[\[[^\]\n]+\]\]|\[[^\]\n]+\]\([^)\n]+\)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")
_PREDICATE = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_]*::")


def index_shaped(text: str) -> bool:
    """Whether a note is written as a list of links — an index, a map of content: of its
    lines of text (headings, code, frontmatter and `pred::` lines left out), at least
    `INDEX_LINES` are list items or table rows holding a link, and at least
    `INDEX_MIN_ITEMS` of them."""
    listed = lines = 0
    for line in _text_lines(text):
        if _PREDICATE.match(line):
            continue
        lines += 1
        if (_LIST_ITEM.match(line) or line.lstrip().startswith("|")) and _LINK.search(line):
            listed += 1
    return listed >= INDEX_MIN_ITEMS and listed >= INDEX_LINES * lines


def _prose_lines(text: str) -> Iterator[str]:
    """The lines of a note's text outside a leading frontmatter and fenced code."""
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        start = end + 1 if end is not None else 0
    fence = None
    for line in lines[start:]:
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)[0]
            fence = None if fence == mark else (fence or mark)
            continue
        if fence is None:
            yield line


def _text_lines(text: str) -> list[str]:
    """The non-blank lines of a note's text that are neither frontmatter, a heading nor
    fenced code."""
    return [line for line in _prose_lines(text) if line.strip() and not _HEADING.match(line)]


def lead_sentence(text: str) -> str:
    """The first sentence of a note's prose (`text`: its body or whole text): what a note
    without a `description` says first. List items count; link-only lines, tables,
    quotes' markers and `pred::` lines do not."""
    for line in _text_lines(text):
        if _PREDICATE.match(line) or line.lstrip().startswith("|"):
            continue
        line = _LIST_ITEM.sub("", line.lstrip("> \t"))
        if not _LINK.sub("", line).strip(" \t.,;:-—"):
            continue  # a line of links says where to go, not what the note is
        sentences = split_note_line(line.strip())
        if sentences:
            return sentences[0]
    return ""


# -- words -------------------------------------------------------------------------------


def heading_texts(text: str) -> list[str]:
    """The headings of a note's text (a leading frontmatter and fenced code skipped: a
    `# comment` there is no heading)."""
    return [h.group(1) for line in _prose_lines(text) if (h := _HEADING.match(line))]


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
    """The content words of a note's name, description (else its `lead_sentence`) and own
    headings (`text`: its body, or its whole text): what a hub may be named by, and what
    the vault is counted on."""
    headings = " ".join(own_headings(text, template))
    return content_words(f"{name}\n{description or lead_sentence(text)}\n{headings}")


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
