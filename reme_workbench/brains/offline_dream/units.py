"""A unit while the offline brain plans it: what Phase 1 found, before it is a reply —
and what its note says of itself away from the material (docs/spec.md §5.3.6–§5.3.7):
its description read on its own (`body_description`), a name that is only a date with
the material's topic in front (`dated_name`), the steps "the corrected order" refers to
(`referred_steps`, `spelled_out`).

Mutable on purpose (names are de-duplicated and cautions attached after planning); the
brain's answer is the frozen reply schema (`llm.schema.MemoryUnit`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...textrules import plain, split_sentences, tokens
from .naming import cjk_count, describe, trim
from .standalone import names_a_time, references
from .statements import Block, Statement

__all__ = ["LABELS", "UnitPlan", "unique_names", "body_description", "dated_name", "referred_steps",
           "spelled_out"]

# Section labels the brain writes; the sentences themselves stay in the material's words.
LABELS = {
    "en": {"when": "When", "steps": "Steps", "watch": "Watch out", "why": "Why",
           "how": "How to apply",
           "maybe": "this may update {0}; the offline brain does not judge which is current."},
    "zh": {"when": "适用场景", "steps": "步骤", "watch": "注意", "why": "原因", "how": "做法",
           "maybe": "这条可能更新了 {0}；离线规则无法判断哪条是现行的。"},
}


@dataclass
class UnitPlan:
    """One unit while it is planned (mutable; the reply is the frozen schema)."""

    bucket: str
    name: str
    score: float
    statements: list[Statement]
    head: Statement | None = None  # what the unit rests on (personal: the rule)
    steps: list[Block] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)
    when: str = ""
    watch: list[str] = field(default_factory=list)
    body: str = ""  # rendered already (documentation sections); else offline._render does it
    description: str = ""  # what the note holds, when the planner knows it
    summary: str = ""  # Phase 1's summary, when the planner wrote it
    page: bool = False  # the unit is a whole page, named by its title (what it is about)
    # a conversation's unit (conversation.py): who it is about, the topic, and what that
    # person said of it, attributed and dated; empty for every other unit
    person: str = ""
    topic: str = ""
    said: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)  # every topic phrase its statements name
    # "the corrected order" of a statement, as the material gives it elsewhere: (phrase,
    # heading, its steps), written into the note so that it says which (offline._referred)
    referred: list[tuple[str, str, tuple[Block, ...]]] = field(default_factory=list)

    @property
    def position(self) -> int:
        return min((s.index for s in self.statements), default=0)

    def toks(self) -> frozenset[str]:
        code = [c for b in self.steps for c in b.code]
        texts = [self.name, *self.chain, *(s.text for s in self.statements), *code]
        return tokens(" ".join(texts))


def unique_names(plans: list[UnitPlan]) -> None:
    """A second unit of one name (case aside) becomes "Name (2)", a third "Name (3)"."""
    seen: dict[str, int] = {}
    for p in plans:
        seen[p.name.lower()] = n = seen.get(p.name.lower(), 0) + 1
        p.name = p.name if n == 1 else f"{p.name} ({n})"


def body_description(body: str, name: str = "", topic: str = "") -> str:
    """The first sentence of the prose (the trigger, the rule, the fact) that is not the
    name again, read on its own (`naming.describe`: with the sentences of its line it
    continues or that continue it; `topic` in front when it does not say what it is
    about)."""
    steps: list[str] = []
    sentences: list[str] = []
    lines: list[int] = []
    fence = False
    for number, line in enumerate(body.splitlines()):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        step = re.match(r"\s*\d+[.)]\s+(.+)", line)
        if fence or step:
            if step and not fence:
                steps.append(plain(step.group(1)).rstrip(" .。"))
            continue
        if line.strip() and not re.match(r"#|- |> |\*\*[^*]{1,20}[:：]\*\*|[A-Za-z]\w*::", line):
            found = split_sentences(line.strip()) or [line]
            sentences += found
            lines += [number] * len(found)
    described = describe(sentences, name, blocks=lines, min_words=3, min_cjk=4, topic=topic)
    if described:
        return described
    if steps:  # a runbook with no prose: what its first steps do
        sep = "；" if cjk_count(steps[0]) else "; "
        return trim(sep.join(steps[:3]) + ("…" if len(steps) > 3 else ""), 200, None)
    return ""


def dated_name(name: str, topic: str) -> str:
    """A name that is only a date or a time ("Staging Monday the 19th") says when, not
    what: the material's topic goes in front ("PgBouncer rollout sync: staging Monday
    the 19th"), docs/spec.md §5.3.7."""
    if not topic or not names_a_time(name) or tokens(name) & tokens(topic):
        return name
    first = name.split(" ", 1)[0]
    lower = first.isalpha() and first[1:].islower()  # not "PgBouncer", "API"
    return f"{topic}: {name[:1].lower() + name[1:] if lower else name}"


def referred_steps(plan: UnitPlan, blocks: list[Block],
                   max_steps: int) -> list[tuple[str, str, tuple[Block, ...]]]:
    """What "the corrected order" of a statement is, when the material says it: the steps
    (or items) under a heading that has the phrase's modifier ("Corrected procedure"),
    docs/spec.md §5.3.6. Each phrase once."""
    out: list[tuple[str, str, tuple[Block, ...]]] = []
    for s in plan.statements:
        for ref in references(plain(s.text)):
            if any(ref.phrase.lower() == r[0].lower() for r in out):
                continue
            for heading in dict.fromkeys(b.heading for b in blocks if b.heading):
                if heading == s.block.heading or not ref.named_by(plain(heading)):
                    continue
                listed = [b for b in blocks if b.heading == heading and b.depth == 0
                          and b.kind in ("step", "item")]
                steps = [b for b in listed if b.kind == "step"] or listed
                if len(steps) >= 2:
                    out.append((ref.phrase, heading, tuple(steps[:max_steps])))
                    break
    return out


def spelled_out(description: str, plan: UnitPlan, limit: int = 300) -> str:
    """A description that refers to "the corrected order" says which: its steps follow."""
    for phrase, _, steps in plan.referred:
        if phrase.lower() not in description.lower():
            continue
        parts = [re.split(r":\s|。|\.\s", plain(b.text).strip(), maxsplit=1)[0].rstrip(" .:;。")
                 for b in steps]  # each step's first clause
        out = f"{description.rstrip(' .。…')}: {parts[0]}"
        for part in parts[1:]:
            if len(out) + len(part) + 4 > limit:
                return out[:limit - 2] + "; …"
            out += f"; {part}"
        description = out[:limit - 1] + "."
    return description
