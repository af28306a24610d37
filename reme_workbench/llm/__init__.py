"""The brain: the task-level model interface the pipelines depend on (docs/spec.md §4.10).

`Brain` has one method per capability (`extract`, `integrate`); `LLMBrain` implements
it with prompt files and litellm, `ScriptedBrain` from a script for tests. Every call
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
from .factory import brain_from_spec
from .fake import ScriptedBrain
from .ledger import TokenLedger
from .litellm_brain import LLMBrain
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
    "LLMBrain",
    "Material",
    "MemoryUnit",
    "ScriptedBrain",
    "TokenLedger",
    "Usage",
    "brain_from_spec",
    "detect_language",
    "extract_json",
    "order_units_for_cache",
    "request_hash",
    "shared_prefix_tokens",
    "system_prompt",
]
