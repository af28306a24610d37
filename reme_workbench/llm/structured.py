"""The one loop every brain shares: ask, repair + validate, retry once, or fail loudly.

Shared by `LLMBrain` and `ScriptedBrain`, so a scripted malformed reply takes exactly
the path a real one would (never a silent empty result).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import BrainError, BrainReply, Usage
from .cassette import Exchange
from .prompts import retry_message
from .schema import format_validation_error, parse_reply

__all__ = ["complete_structured", "RAW_PREVIEW_CHARS", "MAX_ATTEMPTS"]

MAX_ATTEMPTS = 2  # the first answer plus one retry that quotes the validation error
RAW_PREVIEW_CHARS = 2000


def complete_structured(
    *,
    send: Callable[[list[dict]], Exchange],
    messages: list[dict],
    reply_model: type,
    model: str,
    language: str,
    context: dict | None = None,
    what: str = "reply",
) -> BrainReply[Any]:
    """Send `messages`, parse the answer as `reply_model`; on failure resend once with
    the model's answer and the validation error appended, then raise BrainError."""
    usage = Usage()
    raw = ""
    error = ""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        exchange = send(messages)
        usage += exchange.usage
        raw = exchange.raw
        try:
            value = parse_reply(raw, reply_model, context=context)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            error = format_validation_error(exc)
            messages = [
                *messages,
                {"role": "assistant", "content": raw},
                retry_message(language, error),
            ]
            continue
        return BrainReply(value=value, raw=raw, usage=usage, model=model, attempts=attempt)
    preview = raw if len(raw) <= RAW_PREVIEW_CHARS else raw[:RAW_PREVIEW_CHARS] + " …[truncated]"
    raise BrainError(
        f"Model {model!r} gave no usable {what} after {MAX_ATTEMPTS} attempts: {error}. "
        f"Its last raw reply was: {preview!r}. Try a model that follows JSON instructions "
        "better (or one with structured-output support), or check the server's chat template.",
        model=model,
        raw=raw,
    )
