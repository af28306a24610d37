"""`ScriptedBrain`: a brain that answers from a script, shipped for users' own tests.

Like httpx's MockTransport or llm's MockModel: enqueue the replies you expect, run your
code, then look at `history`. Replies may be model objects or raw strings; raw strings
take the same repair / validation / retry path as `LLMBrain`, so a test can script a
malformed reply followed by a good one (attempts == 2), or two bad ones (BrainError)::

    brain = ScriptedBrain()
    brain.enqueue_extract([MemoryUnit(name="Bullets", bucket="personal", summary="...")])
    brain.enqueue_integrate('```json\\n{"action": "CREATE", ...}\\n```')
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from .base import Brain, BrainError, BrainReply, IntegrateRequest, Material, Usage
from .cassette import Exchange
from .schema import ExtractedUnits, IntegrateDecision, MemoryUnit
from .structured import complete_structured

__all__ = ["ScriptedBrain"]


class ScriptedBrain(Brain):
    """Answers each call with the next enqueued reply for that capability."""

    def __init__(self, model: str = "scripted") -> None:
        self.model = model
        self.history: list[tuple[str, Any]] = []  # (method, request) in call order
        self._queues: dict[str, deque[str]] = {"extract": deque(), "integrate": deque()}
        self._lock = threading.Lock()

    # -- scripting --------------------------------------------------------------------

    def enqueue_extract(
        self, reply: ExtractedUnits | Iterable[MemoryUnit | Mapping] | str
    ) -> ScriptedBrain:
        """Queue one `extract` answer: units, an ExtractedUnits, or the raw model text."""
        if isinstance(reply, str):
            raw = reply
        elif isinstance(reply, ExtractedUnits):
            raw = reply.model_dump_json()
        else:
            units = [
                u if isinstance(u, MemoryUnit) else MemoryUnit.model_validate(u) for u in reply
            ]
            raw = ExtractedUnits(units=units).model_dump_json()
        return self._enqueue("extract", raw)

    def enqueue_integrate(self, reply: IntegrateDecision | Mapping | str) -> ScriptedBrain:
        """Queue one `integrate` answer: a decision (or its dict), or the raw model text.

        Decisions are validated against each call's candidates like real replies, so an
        UPDATE must target a path the request offered."""
        if isinstance(reply, str):
            raw = reply
        elif isinstance(reply, IntegrateDecision):
            raw = reply.model_dump_json()
        elif isinstance(reply, Mapping):
            raw = IntegrateDecision.model_validate(dict(reply)).model_dump_json()
        else:
            raise TypeError(f"enqueue_integrate takes a decision, a dict or a str, not {reply!r}")
        return self._enqueue("integrate", raw)

    def _enqueue(self, method: str, raw: str) -> ScriptedBrain:
        with self._lock:
            self._queues[method].append(raw)
        return self

    @property
    def pending(self) -> dict[str, int]:
        """Replies still queued per method (assert it is all zeros at the end of a test)."""
        with self._lock:
            return {method: len(queue) for method, queue in self._queues.items()}

    # -- the brain ----------------------------------------------------------------------

    def extract(self, material: Material) -> BrainReply[ExtractedUnits]:
        with self._lock:
            self.history.append(("extract", material))
        return self._answer("extract", ExtractedUnits, None)

    def integrate(self, request: IntegrateRequest) -> BrainReply[IntegrateDecision]:
        with self._lock:
            self.history.append(("integrate", request))
        return self._answer(
            "integrate", IntegrateDecision, {"candidate_paths": request.candidate_paths}
        )

    def _answer(self, method: str, reply_model: type, context: dict | None) -> BrainReply[Any]:
        def send(_messages: list[dict]) -> Exchange:
            return Exchange(raw=self._pop(method), usage=Usage(), model=self.model)

        return complete_structured(
            send=send,
            messages=[],
            reply_model=reply_model,
            model=self.model,
            language="en",
            context=context,
            what=f"{method} reply",
        )

    def _pop(self, method: str) -> str:
        with self._lock:
            queue = self._queues[method]
            if not queue:
                calls = sum(1 for m, _ in self.history if m == method)
                raise BrainError(
                    f"ScriptedBrain has no {method} reply left (call {calls} of {method}); "
                    f"queue one with brain.enqueue_{method}(...) for every expected call, "
                    "and one more for each scripted reply that fails validation.",
                    model=self.model,
                )
            return queue.popleft()

    def __repr__(self) -> str:
        return f"ScriptedBrain(model={self.model!r}, pending={self.pending})"
