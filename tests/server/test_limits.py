"""The local API refuses what it should, early: a body over `[server] max_body_bytes`
(declared or counted as it arrives), connections that say nothing or trickle their
request in, more connections than `[server] max_connections`, paths no file system
takes, and a `.reme/serve.json` left by a process that is no server of this vault.

Every test talks to a real `reme-workbench serve` over a raw socket, so it controls
every byte the server gets (a body never sent, a header a byte at a time)."""

from __future__ import annotations

import json
import select
import signal
import socket
import subprocess
import time

import httpx
import pytest

from .serving import (
    POOL,
    connect,
    error_of,
    read_until_closed,
    request_head,
    start_serve,
    status_of,
    wait_for_serve_json,
    write_vault,
)

LIMIT = 100_000  # [server] max_body_bytes of the served test vault
TIMEOUT = 1.0  # its idle, header and body timeouts (s)
CAP = 16  # its max_connections
SLACK = 4.0  # a loaded test machine answers late; a guard that works answers far sooner
SERVER_TOML = (f"[server]\nmax_body_bytes = {LIMIT}\nidle_timeout_s = {TIMEOUT}\n"
               f"header_timeout_s = {TIMEOUT}\nbody_timeout_s = {TIMEOUT}\nmax_connections = {CAP}\n")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = write_vault(tmp_path_factory.mktemp("limits") / "vault")
    with (root / "reme.toml").open("a") as toml:
        toml.write(SERVER_TOML)
    proc = start_serve(root, "--port", "0")
    info = wait_for_serve_json(root / ".reme" / "serve.json", proc)
    yield root, info
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)


def _health(info) -> int:
    """A fresh client's GET /health: the server still answers a well-behaved request."""
    return httpx.get(info["url"] + "/health", timeout=30,
                     headers={"Authorization": f"Bearer {info['token']}"}).status_code


def test_a_body_declared_over_the_limit_is_refused_before_it_is_sent(served):
    _, info = served
    sock = connect(info)
    # the headers only: a server that waited for the 50 MB would never answer
    sock.sendall(request_head(info, "POST", "/daily", {
        "Content-Type": "application/json", "Content-Length": str(50 * 1024 * 1024),
        "Origin": "app://obsidian.md"}))
    answer, closed = read_until_closed(sock, TIMEOUT + SLACK)
    sock.close()
    assert status_of(answer) == 413, answer[:300]
    assert closed is not None, "the connection stays open for a body that is refused"
    assert f"{LIMIT:,} bytes" in error_of(answer) and "max_body_bytes" in error_of(answer)
    # the plugin's origin sees the 413, not a CORS failure
    assert b"access-control-allow-origin: app://obsidian.md" in answer.lower()
    assert _health(info) == 200


def test_a_chunked_body_is_cut_off_at_the_limit(served):
    _, info = served
    sock = connect(info)
    sock.sendall(request_head(info, "POST", "/daily", {
        "Content-Type": "application/json", "Transfer-Encoding": "chunked"}))
    piece = b"x" * 65536
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    offered, sent = 50 * 1024 * 1024, 0
    try:
        while sent < offered:
            if select.select([sock], [], [], 0)[0]:
                break  # the server has answered: stop sending
            sock.sendall(chunk)
            sent += len(piece)
        else:
            sock.sendall(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server closed the connection mid-body: cut off
    answer, closed = read_until_closed(sock, TIMEOUT + SLACK)
    sock.close()
    assert status_of(answer) == 413, (sent, answer[:300])
    assert sent < offered and closed is not None
    assert _health(info) == 200


def _stalled_sockets(info, count: int) -> list[socket.socket]:
    """`count` connections that stop: a third say nothing, a third send half a request
    line and headers, a third send their headers and 10 of 1,000 body bytes."""
    socks = []
    for i in range(count):
        sock = connect(info)
        if i % 3 == 1:
            sock.sendall(request_head(info, "GET", "/health")[:40])
        elif i % 3 == 2:
            sock.sendall(request_head(info, "POST", "/daily", {
                "Content-Type": "application/json", "Content-Length": "1000"}) + b'{"text": "')
        socks.append(sock)
    return socks


def test_stalled_connections_are_closed_within_the_timeouts(served):
    _, info = served
    socks = _stalled_sockets(info, 200)
    start = time.monotonic()
    open_ = dict.fromkeys(socks)
    answers = []
    while open_ and time.monotonic() - start < TIMEOUT + SLACK:
        for sock in select.select(list(open_), [], [], 0.2)[0]:
            answer, closed = read_until_closed(sock, 0.5)
            if closed is not None:
                answers.append(status_of(answer))
                del open_[sock]
    for sock in socks:
        sock.close()
    assert not open_, f"{len(open_)} of 200 stalled connections still open after " \
                      f"{time.monotonic() - start:.1f} s"
    # over the cap: refused at once (503); the others timed out (408, or closed when idle)
    assert answers.count(503) > 100, answers
    assert set(answers) <= {503, 408, None}, answers
    assert _health(info) == 200


@pytest.mark.parametrize("phase", ["header", "body"])
def test_a_request_trickled_in_is_dropped(served, phase):
    """Slowloris: a byte every 0.1 s keeps any per-read timeout (uvicorn's keep-alive)
    from firing; the request as a whole must arrive within the timeout."""
    _, info = served
    sock = connect(info)
    if phase == "header":
        sock.sendall(b"POST /recall HTTP/1.1\r\n")
        trickle = f"Host: 127.0.0.1:{info['port']}\r\nX-Slow: {'a' * 200}".encode()
    else:
        sock.sendall(request_head(info, "POST", "/daily", {
            "Content-Type": "application/json", "Content-Length": "1000"}))
        trickle = b'{"text": "' + b"a" * 900
    start = time.monotonic()
    try:
        for byte in trickle:
            if select.select([sock], [], [], 0.1)[0]:
                break  # the server answered or closed
            sock.sendall(bytes([byte]))
    except (BrokenPipeError, ConnectionResetError):
        pass
    answer, closed = read_until_closed(sock, 1.0)
    elapsed = time.monotonic() - start
    sock.close()
    assert closed is not None and elapsed < TIMEOUT + SLACK, (elapsed, answer[:200])
    assert status_of(answer) == 408 and "timeout_s" in error_of(answer), answer[:300]


def test_an_idle_connection_is_closed(served):
    _, info = served
    silent = connect(info)  # never says anything
    kept = connect(info)  # asks once, then keeps the connection alive and idle
    kept.sendall(request_head(info, "GET", "/health"))
    first = b""
    while b"\r\n\r\n" not in first:
        first += kept.recv(65536)
    assert status_of(first) == 200
    for sock in (silent, kept):
        _, closed = read_until_closed(sock, TIMEOUT + SLACK)
        sock.close()
        assert closed is not None and closed < TIMEOUT + SLACK - 1, closed


BAD_PATHS = {
    "a name over 255 bytes": ("digest/wiki/" + "a" * 300 + ".md", "255 bytes"),
    "a name over 255 bytes (UTF-8)": ("digest/wiki/" + "é" * 130 + ".md", "255 bytes"),
    "a path over 1,000 bytes": ("digest/wiki/" + ("é" * 100 + "/") * 5 + "x.md", "1,000 bytes"),
    "..": ("digest/wiki/../../etc/passwd", "'..'"),
    "absolute": ("/etc/passwd", "relative to the vault"),
    "NUL": ("digest/wiki/pool\x00.md", "NUL"),
    "not a note": ("digest/wiki/pool-size.txt", "not a digest note"),
}


@pytest.mark.parametrize("name", sorted(BAD_PATHS))
def test_a_bad_note_path_gets_a_4xx_that_says_what_to_fix(served, name):
    _, info = served
    path, says = BAD_PATHS[name]
    answer = httpx.post(info["url"] + "/note", json={"path": path}, timeout=30,
                        headers={"Authorization": f"Bearer {info['token']}"})
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    assert says in answer.text, answer.text[:300]


@pytest.mark.parametrize("route, body", [
    ("/jobs/dream", {"files": ["daily/" + "a" * 300 + ".md"]}),
    ("/proposals/accept", {"id": "p-20260101-000000-abcdef", "edited": {"a" * 300 + ".md": "x"}}),
])
def test_the_other_routes_that_take_a_path_refuse_an_impossible_one(served, route, body):
    _, info = served
    answer = httpx.post(info["url"] + route, json=body, timeout=30,
                        headers={"Authorization": f"Bearer {info['token']}"})
    assert answer.status_code == 422 and "255 bytes" in answer.text, answer.text[:300]


def test_the_good_path_still_answers(served):
    _, info = served
    answer = httpx.post(info["url"] + "/note", json={"path": POOL}, timeout=30,
                        headers={"Authorization": f"Bearer {info['token']}"})
    assert answer.status_code == 200 and answer.json()["name"] == "pool-size"


@pytest.fixture
def sleeper():
    """A live process that is not a server: the pid a dead server's serve.json may name
    once the system gave its number to another program."""
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.mark.parametrize("port_is", ["free", "another server's"])
def test_a_serve_json_naming_another_program_is_replaced(served, tmp_path, sleeper, port_is):
    """serve.json names a live pid, but that process is another program (the pid was
    reused): nothing answers the file's token on its port — no server at all, or a server
    of another vault with its own token."""
    _, other = served
    if port_is == "free":
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    else:
        port = other["port"]
    root = write_vault(tmp_path / "vault")
    stale = root / ".reme" / "serve.json"
    stale.parent.mkdir()
    stale.write_text(json.dumps({"port": port, "token": "t" * 43, "pid": sleeper.pid,
                                 "url": f"http://127.0.0.1:{port}"}))
    proc = start_serve(root, "--port", "0")
    try:
        deadline = time.monotonic() + 60
        while (info := json.loads(stale.read_text() or "{}")).get("pid") != proc.pid:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert _health(info) == 200
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    [line] = [line for line in err.splitlines() if "serve.json" in line]
    assert f"pid {sleeper.pid}" in line and "another program" in line, err
    assert sleeper.poll() is None  # serve never touches the process it named


def test_a_serve_json_whose_port_takes_the_connection_but_never_answers_is_kept(tmp_path, sleeper):
    """A server that is busy (or hung) still holds its port: `serve` does not take the
    vault from it, and says how to remove the file if it is no server at all."""
    root = write_vault(tmp_path / "vault")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # the kernel takes the connection; nothing ever answers
        port = silent.getsockname()[1]
        stale = root / ".reme" / "serve.json"
        stale.parent.mkdir()
        doc = {"port": port, "token": "t" * 43, "pid": sleeper.pid, "url": f"http://127.0.0.1:{port}"}
        stale.write_text(json.dumps(doc))
        proc = start_serve(root, "--port", "0")
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert f"already running for this vault (pid {sleeper.pid}" in err and "delete" in err, err
    assert json.loads(stale.read_text()) == doc
