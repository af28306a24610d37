"""The probes of the `[server]` keys for tests/ops/test_settings_act.py (which proves
every key of the settings acts): `reme-workbench serve` on a small vault with the key
set, and a real socket that shows the key's value in what the server does."""

from __future__ import annotations

import signal
from contextlib import contextmanager

import httpx

from .serving import (
    FILES,
    connect,
    error_of,
    read_until_closed,
    request_head,
    start_serve,
    status_of,
    wait_for_serve_json,
)


@contextmanager
def _serving(make_vault, toml: str, name: str):
    """`reme-workbench serve` on a small vault with `toml`; its serve.json."""
    root = make_vault({**FILES, "reme.toml": FILES["reme.toml"] + toml}, name=name)
    proc = start_serve(root, "--port", "0")
    try:
        yield wait_for_serve_json(root / ".reme" / "serve.json", proc)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def _closed_after(info, first: bytes) -> tuple[float | None, bytes]:
    """Open a connection, send `first` (maybe nothing), then wait: seconds until the server
    closed it, and what it said."""
    sock = connect(info)
    sock.sendall(first)
    answer, closed = read_until_closed(sock, 5.0)
    sock.close()
    return closed, answer


def probe_server_max_body_bytes(make_vault, **_):
    with _serving(make_vault, "[server]\nmax_body_bytes = 2000\n", "body") as info:
        def recall(size: int) -> int:
            body = b'{"query": "pool size", "k": 3}'
            return httpx.post(info["url"] + "/recall", content=body.ljust(size), timeout=30, headers={
                "Authorization": f"Bearer {info['token']}", "Content-Type": "application/json"}).status_code
        assert recall(2000) == 200 and recall(2001) == 413


def probe_server_idle_timeout_s(make_vault, **_):
    with _serving(make_vault, "[server]\nidle_timeout_s = 1.5\n", "idle") as info:
        closed, _ = _closed_after(info, b"")
    assert closed is not None and 1.4 <= closed < 4.0, closed


def probe_server_header_timeout_s(make_vault, **_):
    with _serving(make_vault, "[server]\nheader_timeout_s = 1.5\n", "head") as info:
        closed, answer = _closed_after(info, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    assert closed is not None and 1.4 <= closed < 4.0, closed
    assert status_of(answer) == 408 and "header_timeout_s" in error_of(answer)


def probe_server_body_timeout_s(make_vault, **_):
    with _serving(make_vault, "[server]\nbody_timeout_s = 1.5\n", "body") as info:
        head = request_head(info, "POST", "/recall", {"Content-Length": "100"})
        closed, answer = _closed_after(info, head + b'{"query": ')
    assert closed is not None and 1.4 <= closed < 4.0, closed
    assert status_of(answer) == 408 and "body_timeout_s" in error_of(answer)


def probe_server_max_connections(make_vault, **_):
    with _serving(make_vault, "[server]\nmax_connections = 2\n", "cap") as info:
        held = [connect(info), connect(info)]
        closed, answer = _closed_after(info, b"")
        for sock in held:
            sock.close()
    assert closed is not None and closed < 1.0, closed  # at once, not after idle_timeout_s
    assert status_of(answer) == 503 and "max_connections" in error_of(answer)


SERVER_PROBES = {
    "server.max_body_bytes": probe_server_max_body_bytes,
    "server.idle_timeout_s": probe_server_idle_timeout_s,
    "server.header_timeout_s": probe_server_header_timeout_s,
    "server.body_timeout_s": probe_server_body_timeout_s,
    "server.max_connections": probe_server_max_connections,
}
