"""What the local API refuses before it does any work (`[server]` in reme.toml,
docs/api.md "Limits"):

* `limit_body`, an ASGI layer: a request body over `max_body_bytes` is answered 413 and
  the connection closed — at once when its Content-Length says so (nothing of it is
  read), else as soon as the bytes of a chunked body pass the limit;
* `protocol_with_deadlines`, uvicorn's h11 protocol with deadlines: a connection that
  says nothing for `idle_timeout_s` is closed, a request whose line and headers have not
  all arrived `header_timeout_s` after its first byte, or whose body has not arrived
  `body_timeout_s` after its headers, is answered 408 and closed, and a connection over
  `max_connections` is answered 503 and closed.

The deadlines live in the protocol because an ASGI application is called only once the
headers are in: uvicorn's own `timeout_keep_alive` is restarted by every byte, so a
client sending one byte a second (slowloris) held a connection — and at shutdown the
server — forever, and a connection that never sent a byte was never closed.
"""

from __future__ import annotations

import json
from typing import ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..config import ServerSettings

__all__ = ["limit_body", "protocol_with_deadlines"]


def _answer(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, {"error": message} as its body."""
    body = json.dumps({"error": message}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


def _too_large_message(limit: int) -> str:
    return (f"The request body is over {limit:,} bytes, the server's limit ([server] "
            "max_body_bytes in the vault's reme.toml); send less per request (fewer queries "
            "in a batch, shorter entries) or raise the limit.")


class _BodyTooLarge(Exception):
    """Raised into the application from `receive` once the body passed the limit (the 413
    has been sent by then)."""


def limit_body(app, max_bytes: int):
    """`app` behind the body limit of the module doc. The 413 says `connection: close`, so
    the server closes the connection instead of reading the rest of the body to find the
    next request."""
    headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
    body = json.dumps({"error": _too_large_message(max_bytes)}).encode()
    headers.append((b"content-length", str(len(body)).encode()))

    async def limited(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        state = {"received": 0, "started": False, "refused": False}

        async def refuse() -> None:
            state["refused"] = True
            await send({"type": "http.response.start", "status": 413, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            return await refuse()  # before the application reads a byte of it

        async def counted() -> dict:
            message = await receive()
            if message["type"] == "http.request":
                state["received"] += len(message.get("body", b""))
                if state["received"] > max_bytes:
                    if not state["started"]:
                        await refuse()
                    raise _BodyTooLarge
            return message

        async def tracked(message) -> None:
            if state["refused"]:
                return  # the application's own answer to the cut body (an error) is dropped
            state["started"] = True
            await send(message)

        try:
            await app(scope, counted, tracked)
        except _BodyTooLarge:
            pass

    return limited


class _DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with one deadline per phase of a connection (module doc).
    The phase is read from h11's state after uvicorn has handled what arrived, so the
    parsing stays uvicorn's; `limits` is set by `protocol_with_deadlines`."""

    limits: ClassVar[ServerSettings]

    def connection_made(self, transport) -> None:
        self._deadline = None
        self._phase: str | None = None
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            transport.write(_answer(503, "Service Unavailable", (
                f"The server has {self.limits.max_connections} connections open, its limit "
                "([server] max_connections in the vault's reme.toml); close idle ones or "
                "retry in a moment.")))
            transport.close()
            return
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _current_phase(self) -> str | None:
        """idle (waiting for a request), head (its line and headers coming in), body, or
        None while the application answers."""
        if self.transport.is_closing():
            return None
        theirs = self.conn.their_state
        if theirs is h11.IDLE:
            return "head" if self.conn.trailing_data[0] else "idle"
        if theirs is h11.SEND_BODY:
            return "body"
        return None

    def _watch(self) -> None:
        phase = self._current_phase()
        if phase == self._phase:
            return  # the phase's deadline runs on: more bytes do not extend it
        self._disarm()
        self._phase = phase
        if phase is not None:
            delay = {"idle": self.limits.idle_timeout_s, "head": self.limits.header_timeout_s,
                     "body": self.limits.body_timeout_s}[phase]
            self._deadline = self.loop.call_later(delay, self._expire, phase)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, phase: str) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle if phase == "body" else None
        if phase != "idle" and not (cycle is not None and cycle.response_started):
            key = "header_timeout_s" if phase == "head" else "body_timeout_s"
            limit = getattr(self.limits, key)
            self.transport.write(_answer(408, "Request Timeout", (
                f"The request's {'headers' if phase == 'head' else 'body'} did not arrive "
                f"within {limit:g} s ([server] {key} in the vault's reme.toml); send the "
                "whole request at once.")))
        if cycle is not None and not cycle.response_complete:
            # as uvicorn does when a client goes: the application's receive() answers
            # http.disconnect and what it sends is dropped, not written after the 408
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()


def protocol_with_deadlines(limits: ServerSettings) -> type[H11Protocol]:
    """The protocol class uvicorn is given (`Config(http=...)`), bound to `limits`."""
    return type("DeadlineProtocol", (_DeadlineProtocol,), {"limits": limits})
