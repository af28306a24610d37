"""Record model exchanges once, replay them without a model (experiments, tests, CI).

File format: JSON Lines, one exchange per line, in the order they were recorded::

    {"hash": "<sha256>", "action": "integrate", "request": {"model", "messages",
     "response_format", "temperature"}, "response": {"raw": "...", "usage": {...},
     "model": "..."}}

The hash covers exactly the request fields shown — never the API key or base, so a
cassette recorded against one endpoint replays for another and holds no secret.
`action` (extract, integrate, vote, merge, split, hub) is there for the reader and the
error message only: it is not hashed, and cassettes recorded without it replay. The
temperature is hashed, so a vote (temperature > 0) never replays another call's reply,
and the three votes on one pair differ in their messages (the judge's number), so each
judge replays its own. One
hash may appear several times (a model asked the same thing twice); replay serves
them in order and then repeats the last. Re-recording a request replaces what an
earlier session stored for it. Every write rewrites the file atomically (temp file +
rename), so a crash never leaves half a cassette.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from ..errors import RemeError
from .base import Usage

__all__ = ["Cassette", "Exchange", "request_hash", "CASSETTE_MODES"]

CASSETTE_MODES = ("record", "replay")


@dataclass(frozen=True)
class Exchange:
    """What a model answered to one request."""

    raw: str
    usage: Usage
    model: str


def request_hash(request: dict) -> str:
    """sha256 of the canonical JSON of model, messages, response_format, temperature."""
    keyed = {k: request.get(k) for k in ("model", "messages", "response_format", "temperature")}
    canonical = json.dumps(keyed, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _last_user_text(request: dict) -> str:
    for message in reversed(request.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


class Cassette:
    """A cassette file in mode "record" (call the model, store the reply) or "replay"
    (never call a model; a request not in the file is an error)."""

    def __init__(self, path: str | os.PathLike, mode: str = "replay") -> None:
        if mode not in CASSETTE_MODES:
            raise RemeError(f"Cassette mode {mode!r} is unknown; use 'record' or 'replay'.")
        self.path = Path(path)
        self.mode = mode
        self._lock = threading.Lock()
        self._lines: list[dict] = []  # as stored, in order
        self._served: dict[str, int] = {}
        self._rerecorded: set[str] = set()
        if self.path.exists():
            self._lines = self._load()
        elif mode == "replay":
            raise RemeError(
                f"Cassette {self.path} does not exist; record it first (run with --record).",
                path=str(self.path),
            )

    def _load(self) -> list[dict]:
        lines = []
        text = self.path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                entry["hash"], entry["response"]["raw"]  # noqa: B018 - shape check
            except (ValueError, KeyError, TypeError):
                raise RemeError(
                    f"Cassette {self.path} line {number} is not a recorded exchange; "
                    "delete the file and re-record with --record.",
                    path=str(self.path),
                ) from None
            lines.append(entry)
        return lines

    def __len__(self) -> int:
        return len(self._lines)

    def lookup(self, request: dict, *, action: str | None = None) -> Exchange:
        """The recorded reply to `request`; RemeError when it was never recorded."""
        digest = request_hash(request)
        with self._lock:
            matches = [e for e in self._lines if e["hash"] == digest]
            if not matches:
                preview = _last_user_text(request)[:200]
                call = f"{action} call, " if action else ""
                raise RemeError(
                    f"Cassette {self.path} has no recorded reply for request {digest} "
                    f"({call}model {request.get('model')!r}); the last user message starts "
                    f"{preview!r}. The prompts, model or material changed since it was "
                    "recorded: re-record with --record.",
                    path=str(self.path),
                )
            index = min(self._served.get(digest, 0), len(matches) - 1)
            self._served[digest] = index + 1
            response = matches[index]["response"]
        usage = response.get("usage") or {}
        return Exchange(
            raw=response["raw"],
            usage=Usage(
                int(usage.get("prompt_tokens", 0)),
                int(usage.get("completion_tokens", 0)),
                int(usage.get("cached_tokens", 0)),
            ),
            model=str(response.get("model") or request.get("model") or ""),
        )

    def structured_output(self, model: str) -> str | None:
        """The `response_format` kind the recorded requests to `model` used — "json_schema",
        "json_object" or "none" — or None when it has none for the model or they disagree.

        Replaying must send exactly what was recorded, and this answers the "auto" question
        without asking litellm (whose import takes seconds)."""
        kinds = set()
        with self._lock:
            for entry in self._lines:
                request = entry.get("request")
                if not isinstance(request, dict) or request.get("model") != model:
                    continue
                fmt = request.get("response_format")
                kind = fmt.get("type") if isinstance(fmt, dict) else (None if fmt else "none")
                kinds.add(kind if kind in ("json_schema", "json_object", "none") else None)
        return kinds.pop() if len(kinds) == 1 else None

    def record(self, request: dict, exchange: Exchange, *, action: str | None = None) -> None:
        """Store one exchange and rewrite the file atomically."""
        digest = request_hash(request)
        stored = {
            k: request.get(k) for k in ("model", "messages", "response_format", "temperature")
        }
        entry = {
            "hash": digest,
            **({"action": action} if action else {}),
            "request": stored,
            "response": {
                "raw": exchange.raw,
                "usage": exchange.usage.to_json(),
                "model": exchange.model,
            },
        }
        with self._lock:
            if digest not in self._rerecorded:
                # a new recording session replaces what an older one stored for this request
                self._lines = [e for e in self._lines if e["hash"] != digest]
                self._rerecorded.add(digest)
            self._lines.append(entry)
            self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                for entry in self._lines:
                    fh.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def __repr__(self) -> str:
        return f"Cassette({str(self.path)!r}, mode={self.mode!r}, exchanges={len(self._lines)})"
