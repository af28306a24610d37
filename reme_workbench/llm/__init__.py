"""The brain interfaces the pipelines depend on (docs/spec.md §4.10), and the plumbing a
model brain uses.

`Brain` has one method per capability (`extract`, `integrate`); the brains that
implement it — `LLMBrain` (prompt files and litellm), `ScriptedBrain` (a script, for
tests) and the offline ones — live in `reme_workbench.brains`. Every call
returns a `BrainReply` (validated value, raw text, usage, attempts). Cassettes record
and replay exchanges; a `TokenLedger` counts tokens. Importing this package does not
import litellm.
"""

from __future__ import annotations

from .base import (
    Brain,
    BrainError,
    BrainReply,
    CandidateNote,
    IntegrateRequest,
    Material,
    Usage,
    order_units_for_cache,
)
from .cassette import Cassette, Exchange, request_hash
from .ledger import TokenLedger
from .prompts import detect_language, shared_prefix_tokens, system_prompt
from .repair import extract_json
from .schema import ExtractedUnits, IntegrateDecision, MemoryUnit

__all__ = [
    "Brain",
    "BrainError",
    "BrainReply",
    "CandidateNote",
    "Cassette",
    "Exchange",
    "ExtractedUnits",
    "IntegrateDecision",
    "IntegrateRequest",
    "Material",
    "MemoryUnit",
    "TokenLedger",
    "Usage",
    "detect_language",
    "extract_json",
    "order_units_for_cache",
    "request_hash",
    "shared_prefix_tokens",
    "system_prompt",
]
