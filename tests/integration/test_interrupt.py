"""Ctrl-C through the command line: the program stops, says so, and leaves nothing
half-written — the next run goes on from where things are (docs/spec.md §3.4).

How fast it acts is measured by `benchmarks/bench_interrupt.py`; here the outcome is."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import snapshot

EXE = [sys.executable, "-m", "reme_workbench"]


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("REME_")}


def _sample(tmp_path: Path, keep: int = 6) -> Path:
    """The bundled sample with its first `keep` material files: a few seconds of work."""
    root = tmp_path / "v"
    subprocess.run([*EXE, "init", str(root), "--sample", "--json"], check=True,
                   capture_output=True, env=_env())
    material = sorted(p for layer in ("daily", "resource") for p in (root / layer).rglob("*")
                      if p.is_file())
    for extra in material[keep:]:
        extra.unlink()
    return root


def _as_in_a_terminal() -> None:
    """The child starts with Ctrl-C as a terminal's foreground command has it: delivered
    and not ignored. Run inside a long test session, this process's main thread may have
    SIGINT blocked or ignored by something earlier (a child inherits both), and the
    interrupt then never arrives (seen as exit 0 in the full suite only)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _parent_sigint() -> str:
    """This process's SIGINT state, for a failure message."""
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    return f"SIGINT in this test process: blocked={blocked}, handler={signal.getsignal(signal.SIGINT)}"


def _interrupt_while(root: Path, args: list[str], busy: str | tuple[str, ...],
                     timeout: float = 120) -> subprocess.CompletedProcess:
    """Start `args`, wait until its run lock says `busy` (any of them), then Ctrl-C it."""
    busy = (busy,) if isinstance(busy, str) else busy
    proc = subprocess.Popen([*EXE, "--vault", str(root), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(),
                            preexec_fn=_as_in_a_terminal)
    deadline = time.monotonic() + timeout
    locks = list((root / ".reme").glob("*.lock")) if (root / ".reme").is_dir() else []
    while time.monotonic() < deadline and proc.poll() is None:
        locks = list((root / ".reme").glob("*.lock")) if (root / ".reme").is_dir() else []
        if any(b in lock.read_text(errors="replace") for lock in locks if lock.is_file()
               for b in busy):
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.fail(f"{args} ended before it could be interrupted: {proc.stderr.read()}")
    time.sleep(0.5)  # well inside the work
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_ctrl_c_while_indexing_stops_and_the_next_run_goes_on(tmp_path):
    # the whole sample: six files were indexed within the half second on an idle machine
    root = _sample(tmp_path, keep=1000)
    material = [p for layer in ("daily", "resource") for p in (root / layer).rglob("*")
                if p.is_file()]
    before = snapshot(root)
    stopped = _interrupt_while(root, ["index", "--embedder", "minilm", "--json"],
                               ("scanning", "indexing", "embedding"))  # a phase is brief
    assert stopped.returncode == 130, (stopped.stderr, _parent_sigint())
    assert "Stopped (Ctrl-C). Nothing is half-written" in stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert snapshot(root) == before  # the notes and material: untouched
    assert not [p for p in (root / ".reme").iterdir() if p.name.endswith(".tmp")]
    done = subprocess.run([*EXE, "--vault", str(root), "index", "--embedder", "minilm", "--json"],
                          capture_output=True, text=True, env=_env(), check=True)
    assert json.loads(done.stdout)["stats"]["files"] == len(material)


def test_ctrl_c_while_dreaming_leaves_every_note_whole(tmp_path):
    root = _sample(tmp_path)
    subprocess.run([*EXE, "--vault", str(root), "index", "--embedder", "minilm", "--json"],
                   capture_output=True, env=_env(), check=True)
    stopped = _interrupt_while(root, ["dream", "--json"], "dreaming")
    assert stopped.returncode == 130, (stopped.stderr, _parent_sigint())
    assert "Nothing is half-written" in stopped.stderr
    # every note on disk is whole (frontmatter, body, provenance) and the journal is empty
    notes = list((root / "digest").rglob("*.md"))
    for note in notes:
        text = note.read_text(encoding="utf-8")
        assert text.startswith("---\n") and "derived_from:: [[" in text, note
    assert not list((root / ".reme" / "journal").glob("*")) if (root / ".reme/journal").exists() else True
    again = subprocess.run([*EXE, "--vault", str(root), "dream", "--json"], capture_output=True,
                           text=True, env=_env())
    assert again.returncode == 0, again.stderr
    assert len(list((root / "digest").rglob("*.md"))) > len(notes)  # it went on
