"""Run the local HTTP API for one vault: `.reme/serve.json`, one server per vault.

`serve(root, port=…)` binds 127.0.0.1 only (`port=0`: a free port), draws a random bearer
token, and writes `<vault>/.reme/serve.json` — `{port, token, pid, url}`, mode 0600,
created exclusively — before it answers, so a client (an Obsidian plugin) reads the port
and the token from there. A second `serve` on the same vault finds the file of a running
server and says so; a file whose pid has exited, or whose port does not answer its token
(the pid now names another program), is replaced with one line saying so (docs/spec.md
§3.9.3). The file is removed when the server stops: Ctrl-C (SIGINT) or a service
manager's SIGTERM.

uvicorn runs the API with the `[server]` limits of the vault's reme.toml (`limits.py`):
bodies over a size refused unread, idle and slow connections closed, a connection cap.

From start-up the vault is indexed in the background, keyword first and vectors behind
(`ops.start_background_index`): the first recall answers within a second on a vault
never indexed, and `GET /index/status` says how far the index is.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import RemeError
from ..ops import CACHE_DIR

__all__ = ["serve", "serve_file", "read_serve_file"]


def serve_file(root: Path | str) -> Path:
    return Path(root) / CACHE_DIR / "serve.json"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    except OSError:
        return False
    return True


# a running server answers its token within this (its event loop answers while jobs and
# the indexer work in threads); one that does not is left alone, not replaced
PROBE_TIMEOUT_S = 3.0


def _read(path: Path) -> dict | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("pid"), int) else None


def _answers(doc: dict) -> bool | None:
    """Whether a server answers `doc`'s token on `doc`'s port: True (the server the file
    names), False (nothing listens there, or something that does not know the token),
    None (it took the connection and said nothing within PROBE_TIMEOUT_S)."""
    import http.client

    port, token = doc.get("port"), doc.get("token")
    if not isinstance(port, int) or not 0 < port < 65536 or not isinstance(token, str):
        return False
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PROBE_TIMEOUT_S)
    try:
        conn.request("GET", "/index/status", headers={"Authorization": f"Bearer {token}"})
        return conn.getresponse().status == 200
    except TimeoutError:
        return None
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def _stale_because(doc: dict | None) -> str | None:
    """Why serve.json names no running server of this vault, or None when it does (or
    may: a server that holds its port but did not answer in time is not replaced).

    A live pid alone proves nothing: after a crash or a reboot the system gives the
    number to another program, and that file blocked every `serve` until deleted by hand.
    The token proves it: only the server that wrote the file knows it."""
    if doc is None:
        return "it could not be read"
    if not _alive(doc["pid"]):
        return f"pid {doc['pid']} named there has exited"
    if _answers(doc) is False:
        return (f"pid {doc['pid']} named there is another program now (nothing answers the "
                f"file's token on port {doc.get('port')})")
    return None


def read_serve_file(root: Path | str) -> dict | None:
    """The running server's {port, token, pid, url}, or None (no file, unreadable, its
    process gone, or its port does not answer its token)."""
    doc = _read(serve_file(root))
    return doc if doc is not None and _stale_because(doc) is None else None


def _claim(path: Path, doc: dict, on_notice: Callable[[str], None]) -> None:
    """Write serve.json exclusively (0600); replace a file that names no running server
    (saying so through `on_notice`), refuse a running one's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            running = _read(path)
            why = _stale_because(running)
            if why is None:
                raise RemeError(
                    f"A server is already running for this vault (pid {running['pid']}, "
                    f"{running.get('url', 'port ' + str(running.get('port')))}); use it, or stop "
                    f"it first. If pid {running['pid']} is no reme-workbench server, delete "
                    f"{path} and start again.") from None
            path.unlink(missing_ok=True)
            on_notice(f"Replaced {path}: {why}.")
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        return
    raise RemeError(f"{path} keeps coming back; is another server starting? Try again.")


def _exit_on_term(_signum, _frame) -> None:
    raise SystemExit(128 + signal.SIGTERM)  # unwinds: the finally below removes serve.json


def serve(root: Path | str, *, port: int = 0, origins: Iterable[str] | None = None,
          on_ready: Callable[[dict], None] | None = None,
          on_notice: Callable[[str], None] = lambda _line: None, workspace=None) -> None:
    """Serve the vault at `root` until interrupted (see the module doc); `on_notice` gets
    the one line saying a stale serve.json was replaced; `workspace`: the front end's view
    of it (its settings and model keys), else one made from `root`."""
    import uvicorn

    from ..ops import Workspace, start_background_index, stop_background_index
    from .app import OBSIDIAN_ORIGIN, create_app, guard
    from .limits import protocol_with_deadlines

    if not 0 <= port <= 65535:
        raise RemeError(f"--port {port} is not a port; give 1-65535, or 0 for a free one.")
    ws = workspace if workspace is not None else Workspace(root)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise RemeError(f"Cannot listen on 127.0.0.1:{port} ({exc.strerror}); choose another "
                        "--port, or --port 0 for a free one.") from None
    sock.listen(64)
    bound = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    doc = {"port": bound, "token": token, "pid": os.getpid(), "url": f"http://127.0.0.1:{bound}"}
    path = serve_file(ws.root)
    try:
        _claim(path, doc, on_notice)
    except BaseException:
        sock.close()
        raise
    # uvicorn shuts down on SIGTERM, then raises the signal again under the handler it
    # found: with the default one the process would die before the file is removed
    previous = signal.signal(signal.SIGTERM, _exit_on_term)
    try:
        # keyword first, vectors behind: a request never waits for the index (ops/indexing.py)
        start_background_index(ws)
        limits = ws.settings.server
        app = guard(create_app(ws), token, origins=origins or (OBSIDIAN_ORIGIN,),
                    max_body_bytes=limits.max_body_bytes)
        server = uvicorn.Server(uvicorn.Config(
            app, log_level="warning", lifespan="off", http=protocol_with_deadlines(limits),
            timeout_keep_alive=limits.idle_timeout_s))
        if on_ready is not None:
            on_ready({k: v for k, v in doc.items() if k != "token"})
        server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)
        stop_background_index(ws, timeout=5.0)  # seen between batches; a daemon thread anyway
        sock.close()
        current = _read(path)  # another server's file, if one replaced ours, stays
        if current is None or current.get("token") == token:
            path.unlink(missing_ok=True)
