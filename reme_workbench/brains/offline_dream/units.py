"""A unit while the offline brain plans it: what Phase 1 found, before it is a reply.

Mutable on purpose (names are de-duplicated and cautions attached after planning); the
brain's answer is the frozen reply schema (`llm.schema.MemoryUnit`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...textrules import tokens
from .statements import Block, Statement

__all__ = ["UnitPlan"]


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

    @property
    def position(self) -> int:
        return min((s.index for s in self.statements), default=0)

    def toks(self) -> frozenset[str]:
        code = [c for b in self.steps for c in b.code]
        texts = [self.name, *self.chain, *(s.text for s in self.statements), *code]
        return tokens(" ".join(texts))
