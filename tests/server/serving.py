"""Starting a real `reme-workbench serve` for the tests, and talking to it over a raw
socket where a test must control every byte (a body never sent, a header trickled in,
a connection that says nothing)."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time

MAT = "daily/2026-10-05/log.md"
POOL = "digest/wiki/pool-size.md"
FILES = {
    MAT: "09:00 raised the pool to 40\n",
    POOL: f"---\nname: pool-size\ndescription: The payments-api DB pool size\n---\nPool is 10.\n"
          f"derived_from:: [[{MAT}]]\n",
    "reme.toml": '[recall]\nembedder = "hashing"\n',
}


def write_vault(root):
    """The served test vault: the layers, a log, a note, reme.toml (hashing embedder)."""
    for layer in ("resource", "daily", "digest/procedure", "digest/personal", "digest/wiki",
                  "meta", "audit"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def start_serve(root, *args):
    """`reme-workbench --vault ROOT serve ARGS` in a child process, as a user starts it."""
    return subprocess.Popen(
        [sys.executable, "-m", "reme_workbench", "--vault", str(root), "serve", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("REME_")},
    )


def wait_for_serve_json(path, proc, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size:
            return json.loads(path.read_text())
        if proc.poll() is not None:
            raise AssertionError(f"serve exited early: {proc.stderr.read()}")
        time.sleep(0.1)
    raise AssertionError("serve did not write .reme/serve.json")


def connect(info) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", info["port"]), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def request_head(info, method: str, path: str, headers: dict[str, str] | None = None) -> bytes:
    """A request line and headers with the token and a local Host, ended by the blank line."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{info['port']}",
             f"Authorization: Bearer {info['token']}",
             *(f"{name}: {value}" for name, value in (headers or {}).items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, float | None]:
    """What the server sends until it closes the connection, and after how many seconds
    it closed it (None: still open when `timeout` ran out)."""
    start = time.monotonic()
    data = b""
    while (left := timeout - (time.monotonic() - start)) > 0:
        ready, _, _ = select.select([sock], [], [], left)
        if not ready:
            break
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data, time.monotonic() - start
        if not chunk:
            return data, time.monotonic() - start
        data += chunk
    return data, None


def status_of(answer: bytes) -> int | None:
    """The status code of a raw HTTP answer, or None when nothing came."""
    if not answer.startswith(b"HTTP/1.1 "):
        return None
    return int(answer.split(b" ", 2)[1])


def error_of(answer: bytes) -> str:
    """The `error` of a raw JSON answer."""
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]
