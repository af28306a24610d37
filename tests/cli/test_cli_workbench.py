"""`workbench` as a person meets it in a terminal: JupyterLab starts at the vault, and one
Ctrl-C stops it, as its --help and its start line say."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli

pytest.importorskip("jupyterlab", reason="the workbench extra (JupyterLab) is not installed")


def _as_in_a_terminal() -> None:
    """The child gets Ctrl-C as a terminal's foreground command does: delivered, not
    ignored (a long test session may have SIGINT blocked, and a child inherits that)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _read(master: int, seen: bytearray, until, timeout: float) -> bool:
    """Read the terminal into `seen` until `until(seen)` holds or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if until(seen):
            return True
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every end of the terminal closed
                return until(seen)
            if not chunk:
                return until(seen)
            seen += chunk
    return until(seen)


def test_one_ctrl_c_stops_the_workbench(tmp_path):
    root = tmp_path / "v"
    assert CliRunner().invoke(cli, ["init", str(root), "--json"]).exit_code == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REME_", "JUPYTER"))}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(tmp_path / name.lower())  # nothing of this machine's Jupyter set-up
    help_text = CliRunner().invoke(cli, ["workbench", "--help"]).output
    assert "Ctrl-C" in help_text
    master, slave = pty.openpty()  # stdin a terminal: where JupyterLab asks before stopping
    proc = subprocess.Popen(
        [sys.executable, "-m", "reme_workbench", "--vault", str(root), "workbench",
         "--no-browser", "--port", "0"],
        stdin=slave, stdout=slave, stderr=slave, env=env, preexec_fn=_as_in_a_terminal)
    os.close(slave)
    seen = bytearray()
    try:
        started = _read(master, seen, lambda s: b"/lab" in s and b"127.0.0.1:" in s
                        and b"token=" in s, timeout=180)
        assert started, f"JupyterLab did not start:\n{seen.decode(errors='replace')}"
        time.sleep(1.0)  # its signal handlers are in place once it serves
        proc.send_signal(signal.SIGINT)  # one Ctrl-C
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline:
            _read(master, seen, lambda _s: False, timeout=0.5)
        text = seen.decode(errors="replace")
        assert proc.poll() is not None, f"one Ctrl-C did not stop JupyterLab:\n{text[-1500:]}"
        assert "Shut down this Jupyter server" not in text
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        os.close(master)
