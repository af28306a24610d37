"""Weaving synapses: the links a new digest note gets at write time (docs/spec.md §5.6).

Wikilink sparsity is solved when a note is written ("织突触"), not by consolidate. The
offline brain cannot judge meaning, so it links by form, on CREATE only (a CORROBORATE
keeps the old body byte for byte, E-1):

* relatedness is the set cosine of content tokens (code, `pred::` lines, link targets, a
  Related section and the brain's own labels left out) — the cosine, not the share of the
  unit in the candidate, because a long runbook holds a few words of almost everything;
  below RELATED_SHARED tokens and RELATED_MIN a shared word or two is chance;
* a sibling (a note citing the same material: one task, one session) is related by
  construction: a lower bar, a bonus, and at most MAX_SIBLINGS, so a review log that
  touches ten topics does not become a clique;
* never the note itself, a covering candidate (the same concept, corroborated), one the
  brain already links, a path that was not a candidate or cannot be a plain link;
* at most MAX_RELATED, strongest first, untyped (a predicate is a claim the rules cannot
  make), as `- [[digest/…]]` bullets under a `**Related:**` (`**相关：**`) label before the
  provenance line. Zero links is legal (§4.3.6).

A bold label, not a `## Related` heading: the index starts a chunk at every heading and
scores a file by its best two chunks, so a link-list chunk nearly doubled a note's recall
score and turned two CORROBORATEs of the sample into duplicate CREATEs. `strip_related`
reads both forms, so a model's or a person's `## Related` is read the same way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from ...llm.base import CandidateNote
from ...textrules import tokens
from ...vault.links import format_link, is_provenance, parse_links

__all__ = ["MAX_RELATED", "RELATED_HEADINGS", "FENCED", "PRED_LINE", "Related", "cites",
           "content_tokens", "related_notes", "related_section", "strip_related"]

RELATED_MIN = 0.18  # cosine for an unrelated-material candidate
RELATED_SHARED = 3  # ... and this many shared content tokens
SIBLING_MIN = 0.08  # a note of the same material: related by construction, a lower bar
SIBLING_SHARED = 2
SIBLING_BONUS = 0.05  # ranks a sibling above a stranger of about the same strength
MAX_RELATED = 3
MAX_SIBLINGS = 2
RELATED_HEADINGS = {"en": "Related", "zh": "相关"}

FENCED = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.S | re.M)
PRED_LINE = re.compile(r"^\s*[A-Za-z]\w*::\s")
_RELATED_WORDS = "|".join(map(re.escape, RELATED_HEADINGS.values()))
# "## Related" (another brain, a person) or "**Related:**" (this module)
_RELATED_HEADING = re.compile(
    rf"^(?:#{{1,6}}\s+(?:{_RELATED_WORDS})\s*#*|\*\*(?:{_RELATED_WORDS})\s*[:：]\s*\*\*)$", re.I)
_LINK_ONLY = re.compile(r"^\s*(?:[-*+]\s+)?(?:!?\[\[[^\]]*\]\][\s,;]*)+$")
_BARE_LINK = re.compile(r"!?\[\[[^\]|]*\]\]")  # a target only: a path, not words
_LINKABLE = re.compile(r"^digest/[^\[\]|#\r\n]+\.md$")  # a note, as a plain link can name it


class Related(NamedTuple):
    """One woven link: the candidate, its cosine, whether it cites the same material."""

    path: str
    score: float
    sibling: bool


def strip_related(body: str) -> str:
    """`body` without its Related section: the `**Related:**` / `## Related` line and
    the link-only lines under it."""
    out, inside = [], False
    for line in body.splitlines():
        if _RELATED_HEADING.match(line.strip()):
            inside = True
            continue
        if inside and (not line.strip() or _LINK_ONLY.match(line)):
            continue
        inside = False
        out.append(line)
    return "\n".join(out)


@lru_cache(maxsize=2048)  # Phase 2 sees the same few candidates again and again
def content_tokens(text: str, noise: frozenset[str] = frozenset()) -> frozenset[str]:
    """The tokens of what a body *says*: no code, `pred::` lines, link-only lines,
    bare link targets or Related section; minus `noise` (the brain's own labels)."""
    text = FENCED.sub("", strip_related(text))
    lines = [ln for ln in text.splitlines()
             if not PRED_LINE.match(ln) and not _LINK_ONLY.match(ln)]
    return tokens(_BARE_LINK.sub(" ", "\n".join(lines))) - noise


def cites(body: str, material: str) -> bool:
    """Whether a note's body cites `material` as its provenance."""
    return any(is_provenance(lk, material) for lk in parse_links(body))


def related_notes(
    unit_toks: frozenset[str],
    candidates: Iterable[CandidateNote],
    *,
    material: str,
    exclude: Iterable[str] = (),
    noise: frozenset[str] = frozenset(),
) -> list[Related]:
    """The candidates to link from a new note whose content tokens are `unit_toks`,
    strongest first (see the module docstring for the rules)."""
    pool: dict[str, tuple[CandidateNote, frozenset[str]]] = {}
    for cand in candidates:
        if cand.path not in pool and _LINKABLE.match(cand.path):
            name = cand.name.replace("-", " ").replace("_", " ")  # a slug names words
            text = f"{name}\n{cand.description}\n{cand.body}"
            pool[cand.path] = cand, content_tokens(text, noise)
    skip = set(exclude)
    found: list[tuple[float, str, Related]] = []
    for cand, cand_toks in pool.values():
        if cand.path in skip:
            continue
        shared = len(unit_toks & cand_toks)
        if not shared:
            continue
        cosine = shared / math.sqrt(len(unit_toks) * len(cand_toks))
        sibling = cites(cand.body, material)
        need, floor = (SIBLING_SHARED, SIBLING_MIN) if sibling else (RELATED_SHARED, RELATED_MIN)
        if shared < need or cosine < floor:
            continue
        rank = cosine + (SIBLING_BONUS if sibling else 0.0)
        found.append((-rank, cand.path, Related(cand.path, round(cosine, 3), sibling)))
    out: list[Related] = []
    siblings = 0
    for _, _, rel in sorted(found):
        if rel.sibling:
            if siblings >= MAX_SIBLINGS:
                continue
            siblings += 1
        out.append(rel)
        if len(out) >= MAX_RELATED:
            break
    return out


def related_section(paths: Iterable[str], language: str = "en") -> str:
    """The `**Related:**` (`**相关：**`) label and one `- [[path]]` line per path, or ""
    when there is none."""
    lines = [f"- {format_link(p)}" for p in paths]
    if not lines:
        return ""
    label = RELATED_HEADINGS.get(language, RELATED_HEADINGS["en"])
    colon = "：" if language == "zh" else ":"
    return "\n".join([f"**{label}{colon}**", "", *lines]) + "\n"
