"""The brain: the one task-level interface the pipelines depend on.

Like simonw/llm's `Model.execute`, each capability is one abstract method; `LLMBrain`
(prompts + litellm) is just one implementation, `ScriptedBrain` another, and the
dream module's `OfflineBrain` a third. Inputs are frozen dataclasses built by the
caller (trusted); outputs are pydantic models validated from the model's reply
(untrusted), wrapped in a `BrainReply` that says what it cost.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..errors import RemeError
from ..vault.layout import BUCKETS
from .schema import ExtractedUnits, IntegrateDecision, MemoryUnit

__all__ = [
    "Material",
    "CandidateNote",
    "SetAside",
    "IntegrateRequest",
    "Usage",
    "BrainReply",
    "Brain",
    "BrainError",
    "order_units_for_cache",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Material:
    """A daily log or resource the brain reads. `language` is a hint: "en", "zh" or
    "auto" (detect from the text) — used only when the brain's own setting is "auto"."""

    path: str  # vault-relative, e.g. daily/2026-10-05/deploy-payments-api.md
    text: str  # the body, frontmatter removed
    date: str | None = None
    language: str = "auto"
    # what the file says about itself: frontmatter title / first H1 / file name, and its
    # own frontmatter description, aliases and tags
    title: str = ""
    description: str = ""
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    # phrases it shares with most material of its folder, layer or run (a template's
    # lines and field labels, dream/boilerplate.py): not what this file is about
    shared: tuple[str, ...] = ()


@dataclass(frozen=True)
class CandidateNote:
    """A recalled digest note shown to Phase 2 as evidence (docs/spec.md §4.3.2, hit)."""

    path: str
    name: str
    description: str
    body: str


@dataclass(frozen=True)
class SetAside:
    """A part of the material (an appended entry, a session, the whole file) that gave no
    unit, and why ("small talk only", "no statement"): dream reports it."""

    part: str
    reason: str


@dataclass(frozen=True)
class IntegrateRequest:
    """One Phase 2 call: the unit to integrate, the material it came from, the candidates.

    `feedback` explains a mechanical rule the previous decision broke (E-1, provenance,
    ...), for the pipeline's one retry; it is sent after everything else.
    """

    material: Material
    unit: MemoryUnit
    candidates: tuple[CandidateNote, ...] = ()
    feedback: str | None = None
    # how near a candidate is to the unit in meaning, 0 (unrelated text, for the vault's
    # embedder) to 1 (the same), measured on demand (dream/meaning.py); None: not measured
    meaning: Callable[[CandidateNote], float | None] | None = None

    @property
    def candidate_paths(self) -> frozenset[str]:
        return frozenset(c.path for c in self.candidates)


@dataclass(frozen=True)
class Usage:
    """Tokens one call (or a sum of calls) cost; cached_tokens ⊆ prompt_tokens."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }


@dataclass(frozen=True)
class BrainReply(Generic[T]):
    """A validated answer plus its story: the raw text, what it cost, how many tries."""

    value: T
    raw: str  # the model's last raw reply, before repair
    usage: Usage  # summed over all attempts
    model: str
    attempts: int = 1
    set_aside: tuple[SetAside, ...] = ()  # extract: the parts that gave no unit, and why


class BrainError(RemeError):
    """A brain could not produce a usable answer; `model` and `raw` say what it sent."""

    def __init__(self, message: str, *, model: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.model = model
        self.raw = raw


class Brain(ABC):
    """What the pipelines may ask of a model, one method per capability.

    Phase 1 `extract` and Phase 2 `integrate` of dream (docs/spec.md §4) are here; later
    issues add methods here for consolidate (judge overload / plan a split, vote on
    same-concept pairs, write a community summary, merge two bodies).
    Implementations must be safe to call from several threads at once.
    """

    model: str = "brain"

    @abstractmethod
    def extract(self, material: Material) -> BrainReply[ExtractedUnits]:
        """Phase 1: the abstractions worth remembering in `material`, each with a bucket;
        an empty list when there is nothing (the gate)."""

    @abstractmethod
    def integrate(self, request: IntegrateRequest) -> BrainReply[IntegrateDecision]:
        """Phase 2: CREATE a note for `request.unit`, or UPDATE one of the candidates
        (CORROBORATE / REFINE / CORRECT), with the full new body."""


def order_units_for_cache(units: Iterable[MemoryUnit]) -> list[MemoryUnit]:
    """Units grouped by bucket (stable), so consecutive Phase 2 calls share the same
    system prompt *and* material prefix and provider prefix caches can hit."""
    rank = {bucket: i for i, bucket in enumerate(BUCKETS)}
    return sorted(units, key=lambda u: rank.get(u.bucket, len(rank)))
