"""`ScriptedBrain`: a brain that answers from a script, shipped for users' own tests.

Like httpx's MockTransport or llm's MockModel: enqueue the replies you expect, run your
code, then look at `history`. Replies may be model objects or raw strings; raw strings
take the same repair / validation / retry path as `LLMBrain`, so a test can script a
malformed reply followed by a good one (attempts == 2), or two bad ones (BrainError)::

    brain = ScriptedBrain()
    brain.enqueue_extract([MemoryUnit(name="Bullets", bucket="personal", summary="...")])
    brain.enqueue_integrate('```json\\n{"action": "CREATE", ...}\\n```')

It is a consolidate brain too: `enqueue_vote`, `enqueue_merge`, `enqueue_split`,
`enqueue_hub` script `vote`, `merge`, `plan_split` and `write_hub` (history and
`pending` name them vote, merge, split, hub). Votes may run in parallel threads, so
which call takes the next shared reply is not fixed; `enqueue_vote(reply, judge=1)`
reserves a reply for judge 1, which makes scripted parallel votes deterministic.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from ..llm.base import Brain, BrainError, BrainReply, IntegrateRequest, Material, Usage
from ..llm.cassette import Exchange
from ..llm.consolidate import ConsolidateBrain, HubRequest, MergeRequest, PairRequest, SplitRequest
from ..llm.schema import (
    ExtractedUnits,
    HubNote,
    IntegrateDecision,
    MemoryUnit,
    MergedNote,
    PairVote,
    SplitPlan,
)
from ..llm.structured import complete_structured

METHODS = ("extract", "integrate", "vote", "merge", "split", "hub")

__all__ = ["ScriptedBrain"]


class ScriptedBrain(Brain, ConsolidateBrain):
    """Answers each call with the next enqueued reply for that capability."""

    def __init__(self, model: str = "scripted") -> None:
        self.model = model
        self.history: list[tuple[str, Any]] = []  # (method, request) in call order
        self._queues: dict[str, deque[str]] = {method: deque() for method in METHODS}
        self._judge_queues: dict[int, deque[str]] = {}  # votes reserved for one judge
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

    def enqueue_vote(
        self, reply: PairVote | Mapping | str, *, judge: int | None = None
    ) -> ScriptedBrain:
        """Queue one `vote` answer; with `judge`, only a request of that judge takes it."""
        raw = _raw(reply, PairVote, "enqueue_vote")
        if judge is None:
            return self._enqueue("vote", raw)
        with self._lock:
            self._judge_queues.setdefault(judge, deque()).append(raw)
        return self

    def enqueue_merge(self, reply: MergedNote | Mapping | str) -> ScriptedBrain:
        """Queue one `merge` answer: a MergedNote (or its dict), or the raw model text."""
        return self._enqueue("merge", _raw(reply, MergedNote, "enqueue_merge"))

    def enqueue_split(self, reply: SplitPlan | Mapping | str) -> ScriptedBrain:
        """Queue one `plan_split` answer: a SplitPlan (or its dict), or the raw model text."""
        return self._enqueue("split", _raw(reply, SplitPlan, "enqueue_split"))

    def enqueue_hub(self, reply: HubNote | Mapping | str) -> ScriptedBrain:
        """Queue one `write_hub` answer. Like a real reply, its pillars are checked against
        each call's members."""
        return self._enqueue("hub", _raw(reply, HubNote, "enqueue_hub"))

    def _enqueue(self, method: str, raw: str) -> ScriptedBrain:
        with self._lock:
            self._queues[method].append(raw)
        return self

    @property
    def pending(self) -> dict[str, int]:
        """Replies still queued per method (assert it is all zeros at the end of a test)."""
        with self._lock:
            counts = {method: len(queue) for method, queue in self._queues.items()}
            counts["vote"] += sum(len(queue) for queue in self._judge_queues.values())
            return counts

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

    def vote(self, request: PairRequest) -> BrainReply[PairVote]:
        with self._lock:
            self.history.append(("vote", request))
        return self._answer("vote", PairVote, None, judge=request.judge)

    def merge(self, request: MergeRequest) -> BrainReply[MergedNote]:
        with self._lock:
            self.history.append(("merge", request))
        return self._answer("merge", MergedNote, None)

    def plan_split(self, request: SplitRequest) -> BrainReply[SplitPlan]:
        with self._lock:
            self.history.append(("split", request))
        return self._answer("split", SplitPlan, None)

    def write_hub(self, request: HubRequest) -> BrainReply[HubNote]:
        with self._lock:
            self.history.append(("hub", request))
        return self._answer("hub", HubNote, {"member_paths": request.member_paths})

    def _answer(
        self, method: str, reply_model: type, context: dict | None, *, judge: int | None = None
    ) -> BrainReply[Any]:
        def send(_messages: list[dict]) -> Exchange:
            return Exchange(raw=self._pop(method, judge), usage=Usage(), model=self.model)

        return complete_structured(
            send=send,
            messages=[],
            reply_model=reply_model,
            model=self.model,
            language="en",
            context=context,
            what=f"{method} reply",
        )

    def _pop(self, method: str, judge: int | None = None) -> str:
        with self._lock:
            reserved = self._judge_queues.get(judge) if judge is not None else None
            queue = reserved if reserved else self._queues[method]
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


def _raw(reply: Any, model: type, what: str) -> str:
    """A scripted reply as the raw text a model would send: strings pass as they are
    (malformed ones take the repair / retry path), objects and dicts are validated now."""
    if isinstance(reply, str):
        return reply
    if isinstance(reply, model):
        return reply.model_dump_json()
    if isinstance(reply, Mapping):
        return model.model_validate(dict(reply)).model_dump_json()
    raise TypeError(f"{what} takes a {model.__name__}, a dict or a str, not {reply!r}")
