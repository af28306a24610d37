"""Appended entries (docs/spec.md §3.6.4, §5.2.7): the one-line how-to an agent appends
becomes a runbook, and every entry (or a whole log) that gives no unit is reported with
the reason (§4.2.5).

* "To rotate the Keybox API token, run `keybox rotate …` and restart the pods." — an
  entry none of whose sentences seeded a unit, whose sentence is a how-to lead ("To X,")
  over instructions, is a procedure unit named by its purpose ("Rotate the Keybox API
  token"), its steps the instructions joined by "and" / "then" / ";";
* `set_aside`: the entries that gave no unit, or the whole log when nothing did, with
  why — only small talk, only questions, or no statement the rules can keep.
"""

from __future__ import annotations

import re

from ...llm.base import SetAside
from ...textrules import plain
from .naming import is_imperative, statement_name
from .statements import TOO_SHORT, Scores, Statement
from .units import UnitPlan

__all__ = ["how_to_entries", "set_aside", "HOW_TO_SCORE"]

HOW_TO_SCORE = 3.0  # a how-to entry ranks with a log's procedures
_HOW_TO = re.compile(r"^To ([a-z][^,;:]{3,100}),\s+(.+)$")
_THEN = re.compile(r",?\s+(?:and then|then|and)\s+(?=[a-z])|;\s*|,\s+then\s+")


def how_to_entries(kept: list[Statement], plans: list[UnitPlan]) -> list[UnitPlan]:
    """A how-to sentence in an entry no unit covers: a procedure unit (see the module doc)."""
    covered = {s.block.section for p in plans for s in p.statements}
    out = []
    for s in kept:
        if not s.block.entry or s.block.section in covered:
            continue
        m = _HOW_TO.match(plain(s.text))
        if not m or not is_imperative(m.group(2)):  # instructions: a verb first, parsed
            continue
        steps = [p.strip(" .。") for p in _THEN.split(s.text.split(",", 1)[1].strip())]
        steps = [p[:1].upper() + p[1:] for p in steps if p]
        name = statement_name(plain(s.text)) or m.group(1)[:1].upper() + m.group(1)[1:]
        plan = UnitPlan("procedure", name, HOW_TO_SCORE, [s], head=s, chain=steps,
                        when=f"To {m.group(1)}.")
        plan.description = "; ".join(plain(p) for p in steps)[:200]  # what it does
        out.append(plan)
        covered.add(s.block.section)
    return out


def set_aside(statements, scores: dict[int, Scores], chosen: list[UnitPlan]) -> list[SetAside]:
    """docs/spec.md §4.2.5: the appended entries (or the whole log) that gave no unit, and
    why: only small talk, or no statement a rule can keep."""
    used = {s.block.section for p in chosen for s in p.statements}
    parts: dict[str, list[Statement]] = {}
    for s in statements:
        if s.block.entry:
            if s.block.section not in used:
                title = f" {s.block.heading}" if s.block.heading else ""
                parts.setdefault(f"the entry '## {s.block.entry}{title}'", []).append(s)
        elif not chosen:
            parts.setdefault("the whole file", []).append(s)
    out = []
    for part, members in parts.items():
        noise = [scores[s.index].noise for s in members]
        small = all(n and n != TOO_SHORT for n in noise) or any(
            n in ("chit-chat topic", "continues a chit-chat sentence") for n in noise)
        questions = all(plain(s.text).rstrip().endswith(("?", "？")) for s in members)
        why = ("small talk only" if small else "only questions" if questions
               else "no statement (no fact, rule, decision or step its rules can keep)")
        out.append(SetAside(part, why))
    return out


