"""Ask a brain, turn its reply into a plan, check the plan, and ask once more with the
violations as feedback — the loop dream's integrate, the split and the hub share
(docs/spec.md §4.5.3).

`plan_with_feedback(ask, request, make_plan, describe=...)` calls `ask(request)`; a reply
becomes a plan through `make_plan(reply)`, which returns the plan and the checks it fails
(or raises `PlanRefused` when the reply cannot become a plan at all); while some fail,
the request is asked again with `feedback` set to them (`explain(violations)`, by default
joined with "; "), `attempts` times in all. Every
reply is recorded for the proposal's story (`describe(reply)`, plus its violations).
A brain that gives no usable reply (a `RemeError`) ends the loop with `error` set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from ..errors import RemeError
from .base import BrainError, BrainReply, Usage

__all__ = ["PlanRefused", "PlanLoop", "plan_with_feedback"]

P = TypeVar("P")


class PlanRefused(RemeError):
    """The brain's reply cannot become a plan; the message is its feedback."""


@dataclass
class PlanLoop(Generic[P]):
    """How the loop ended: the last plan (None when no reply became one), the checks it
    still fails, the last usable reply, the brain's error when it gave none, one story
    record per attempt, the usage of every reply, and `stopped` — what `stop(reply)`
    returned when it ended the loop early."""

    plan: P | None = None
    failures: list[str] = field(default_factory=list)
    reply: BrainReply | None = None
    error: RemeError | None = None
    attempts: list[dict] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    calls: int = 0
    stopped: Any = None

    @property
    def raw_error(self) -> str | None:
        """The unusable reply's text, when the brain's error carried it."""
        return self.error.raw if isinstance(self.error, BrainError) else None


def plan_with_feedback(
    ask: Callable[[Any], BrainReply],
    request: Any,
    make_plan: Callable[[BrainReply, dict], tuple[P, list[str]]],
    *,
    describe: Callable[[BrainReply], dict],
    stop: Callable[[BrainReply], Any] | None = None,
    describe_error: Callable[[RemeError], dict] | None = None,
    explain: Callable[[list[str]], str] = "; ".join,
    attempts: int = 2,
) -> PlanLoop[P]:
    """Run the loop of the module doc. `make_plan(reply, record)` may add what it found to
    the attempt's story `record`; `stop(reply)` may end the loop before planning (a split
    judged not overloaded) by returning anything but None. `calls` counts the usable
    replies."""
    loop: PlanLoop[P] = PlanLoop()
    for _ in range(attempts):
        try:
            reply = ask(request)
        except RemeError as exc:
            loop.error = exc
            raw = exc.raw if isinstance(exc, BrainError) else None
            loop.attempts.append(describe_error(exc) if describe_error is not None
                                 else {"error": str(exc), "raw": (raw or "")[:4000]})
            return loop
        loop.calls += 1
        loop.usage += reply.usage
        loop.reply = reply
        record = describe(reply)
        loop.attempts.append(record)
        if stop is not None and (stopped := stop(reply)) is not None:
            record["violations"] = []
            loop.stopped = stopped
            return loop
        try:
            loop.plan, loop.failures = make_plan(reply, record)
        except PlanRefused as exc:
            loop.plan, loop.failures = None, [str(exc)]
        record["violations"] = loop.failures
        if not loop.failures:
            break
        request = replace(request, feedback=explain(loop.failures))
    return loop
