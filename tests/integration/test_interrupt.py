"""Ctrl-C through the command line: the program stops, says so, and leaves nothing
half-written — the next run goes on from where things are (docs/spec.md §3.4).

How fast it acts is measured by `benchmarks/bench_interrupt.py`; here the outcome is."""

from __future__ import annotations

import json
import os
import re
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


def _index_on_a_terminal(root: Path, *, stop_when: str | None = None, timeout: float = 180):
    """`index --embedder minilm` with stderr on a pseudo-terminal (so the progress line is
    drawn); with `stop_when`, Ctrl-C as soon as the terminal shows that text. Returns
    (exit code, terminal text, seconds from the Ctrl-C to the exit or None)."""
    import pty
    import select

    master, slave = pty.openpty()
    proc = subprocess.Popen([*EXE, "--vault", str(root), "index", "--embedder", "minilm"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                            env=_env(), preexec_fn=_as_in_a_terminal)
    os.close(slave)
    seen, sent = bytearray(), None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        if stop_when and sent is None and stop_when in seen.decode("utf-8", "replace"):
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
    code = proc.wait(timeout=60)
    took = None if sent is None else time.monotonic() - sent
    os.close(master)
    return code, seen.decode("utf-8", "replace"), took


def _cached_vectors(root: Path) -> int:
    import sqlite3

    with sqlite3.connect(root / ".reme" / "index.db") as conn:
        return conn.execute("SELECT count(*) FROM vector_cache_v1").fetchone()[0]


def test_ctrl_c_while_embedding_keeps_the_finished_batches_and_the_next_run_goes_on(tmp_path):
    root = _sample(tmp_path, keep=1000)
    material = [p for layer in ("daily", "resource") for p in (root / layer).rglob("*")
                if p.is_file()]
    # the first batch of 64 chunks is committed: the line moves past it with a rate
    code, term, took = _index_on_a_terminal(root, stop_when=" left")
    assert code == 130, (term, _parent_sigint())
    assert re.search(r"embedding: 64/\d+ chunks, [\d,k]+/[\d,k]+ tokens, [\d,]+ tokens/s, "
                     r"\d+:\d\d left", term), term
    assert "Stopped (Ctrl-C)" in term and "Traceback" not in term
    assert took is not None and took < 2.0, f"Ctrl-C took {took:.2f} s to return"
    kept = _cached_vectors(root)
    assert kept >= 64  # what it finished is kept ...
    code, term, _ = _index_on_a_terminal(root)
    assert code == 0, term
    # ... and the next run reads it instead of embedding it again
    assert re.search(rf"embedding: \d+/(\d+) chunks \({kept:,} done before\)", term), term
    done = subprocess.run([*EXE, "--vault", str(root), "index", "--json"],
                          capture_output=True, text=True, env=_env(), check=True)
    assert json.loads(done.stdout)["stats"]["files"] == len(material)


def test_a_demo_stopped_by_ctrl_c_goes_on_when_run_again(tmp_path, demo_vault):
    import random

    path = tmp_path / "stopped"  # demo_vault is tmp_path/reme-demo
    marker = path / ".reme" / "demo-unfinished.json"
    args = [*EXE, "demo", str(path), "--embedder", "hashing", "--json"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(), preexec_fn=_as_in_a_terminal)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:  # its first notes are written
        if any((path / "digest").rglob("*.md")) if (path / "digest").is_dir() else False:
            break
        time.sleep(0.02)
    time.sleep(random.uniform(0, 1.5))  # somewhere in its weeks
    if proc.poll() is not None:
        pytest.fail(f"the demo ended before it could be interrupted: {proc.stderr.read()}")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (err, _parent_sigint())
    assert "Run the command again to go on" in err and "Traceback" not in err
    kept = json.loads(marker.read_text())["weeks"] if marker.is_file() else None
    again = subprocess.run(args, capture_output=True, text=True, env=_env())
    assert again.returncode == 0, again.stderr  # as the Ctrl-C message says
    assert kept is not None and len(kept) < 4
    report = json.loads(again.stdout)
    assert [w["first"] for w in report["weeks"]] == ["2026-10-05", "2026-10-12", "2026-10-19",
                                                     "2026-10-26"]
    assert report["weeks"][: len(kept)] == [{k: w[k] for k in report["weeks"][0]} for w in kept]
    assert not marker.exists()
    assert report["kept"] == []  # nobody wrote in it: nothing kept aside
    # the same vault as a demo never stopped (the session's, built once: tests/conftest.py)
    got, want = _demo_vault(path), _demo_vault(demo_vault)
    assert sorted(set(got["notes"]) ^ set(want["notes"])) == []  # none twice, none lost
    assert got == want
    # a finished demo, and a folder that is not a demo's, are refused and left as they are
    for folder in (path, tmp_path / "mine"):
        folder.mkdir(exist_ok=True)
        (folder / "keep.txt").write_text("mine\n", encoding="utf-8")
        before = snapshot(folder)
        refused = subprocess.run(args[:4] + [str(folder)] + args[5:], capture_output=True,
                                 text=True, env=_env())
        assert refused.returncode == 1 and "already exists and is not empty" in refused.stderr
        assert snapshot(folder) == before


# -- the demo stopped at a chosen write ---------------------------------------------
# Ctrl-C lands anywhere; what a run leaves on disk changes only at a write. Raising
# KeyboardInterrupt right after a chosen write, in the command itself (CliRunner), stops
# the demo at that moment every time. Two weeks of the demo: a week stopped and a week
# gone on to after one that finished.
DEMO_WEEKS = 2


def _first_weeks(patch) -> None:
    from reme_workbench.ops import demo

    weeks = demo.material_weeks
    patch.setattr(demo, "material_weeks", lambda path: weeks(path)[:DEMO_WEEKS])


def _run_demo(path: Path, output: str = "--json") -> tuple[int, str, str]:
    from click.testing import CliRunner

    from reme_workbench.cli import cli

    result = CliRunner().invoke(cli, ["demo", str(path), "--embedder", "hashing", output])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def _demo_vault(path: Path) -> dict:
    """What the demo leaves to look at: every note (path and bytes: kind, name and text)
    and the proposals by action and state."""
    from collections import Counter

    notes = {p.relative_to(path).as_posix(): p.read_bytes() for p in (path / "digest").rglob("*.md")}
    proposals = Counter()
    for p in (path / "meta" / "proposals").glob("*.json"):
        row = json.loads(p.read_text(encoding="utf-8"))
        proposals[(row["action"], row["state"])] += 1
    return {"notes": notes, "proposals": dict(proposals)}


@pytest.fixture(scope="module")
def never_stopped(tmp_path_factory) -> dict:
    from tests.conftest import _isolate

    with pytest.MonkeyPatch.context() as patch:
        _isolate(patch, tmp_path_factory)
        _first_weeks(patch)
        path = tmp_path_factory.mktemp("never-stopped") / "reme-demo"
        code, out, err = _run_demo(path)
        assert code == 0, err
        return {"report": json.loads(out), "vault": _demo_vault(path)}


def _stop_after(patch, root: Path, write: str, nth: int) -> list[str]:
    """KeyboardInterrupt right after the `nth` write under `root` whose path starts with
    `write`: a note put in place through the vault's changeset (`Vault.apply`), or a file
    renamed into place (`os.replace`: proposals, meta files, the demo's own state).
    Returns the writes seen, for a failure message (the last: where it stopped)."""
    from reme_workbench.vault.vault import Vault

    seen: list[str] = []
    apply, rename = Vault.apply, os.replace

    def wrote(rel: str) -> None:
        seen.append(rel)
        if rel.startswith(write) and sum(s.startswith(write) for s in seen) == nth:
            seen.append(f"stopped after {len(seen)} writes, the last {rel}")
            raise KeyboardInterrupt

    def applying(self, changeset):
        result = apply(self, changeset)
        if self.root == root:
            for rel in result.written:
                if not rel.startswith("audit/"):
                    wrote(rel)
        return result

    def renaming(src, dst, *args, **kwargs):
        rename(src, dst, *args, **kwargs)
        if Path(dst).is_relative_to(root):
            wrote(Path(dst).relative_to(root).as_posix())

    patch.setattr(Vault, "apply", applying)
    patch.setattr(os, "replace", renaming)
    return seen


@pytest.mark.parametrize("write, nth", [
    ("digest/", 10),  # a note whose proposal is not recorded, its file not marked dreamt
    ("meta/dreamt.json", 3),  # a file marked dreamt, the next one not begun
    ("meta/communities.json", 1),  # the first week's consolidation, half done
    ("digest/", 50),  # a note of the second week
], ids=lambda v: str(v))
def test_a_demo_stopped_at_any_write_goes_on_to_the_vault_of_a_demo_never_stopped(
        tmp_path, monkeypatch, never_stopped, write, nth):
    _first_weeks(monkeypatch)
    path = tmp_path / "reme-demo"
    with pytest.MonkeyPatch.context() as patch:
        seen = _stop_after(patch, path, write, nth)
        code, _, err = _run_demo(path)
    stop = next(s for s in seen if s.startswith("stopped after"))
    assert code == 130, (stop, err)
    assert "Run the command again to go on" in err
    code, out, err = _run_demo(path)
    assert code == 0, err
    got, want = _demo_vault(path), never_stopped["vault"]
    # the same notes: none written twice or under another name, none lost, each as written
    assert sorted(set(got["notes"]) - set(want["notes"])) == [], stop
    assert sorted(set(want["notes"]) - set(got["notes"])) == [], stop
    assert [n for n in want["notes"] if got["notes"][n] != want["notes"][n]] == [], stop
    assert got["proposals"] == want["proposals"], stop  # none made twice, none lost
    report = json.loads(out)
    assert report["weeks"] == never_stopped["report"]["weeks"], stop  # what it says it did
    assert report["notes"] == never_stopped["report"]["notes"], stop
    assert report["kept"] == [], stop  # the week's writes are its own: none kept aside
    assert not (path / "kept-from-stopped-demo").exists()
    assert not list((path / ".reme").glob("demo-*"))  # the demo's own state is gone


@pytest.mark.parametrize("record", ["written", "killed before writing it"])
def test_a_persons_notes_in_a_stopped_demo_are_kept_when_it_goes_on(tmp_path, monkeypatch,
                                                                    never_stopped, record):
    # the README invites a person to open the demo in Obsidian: one who writes in a demo
    # stopped inside a week and runs it again finds every word still there. Killed (no
    # record of the week's writes), the week's own half-written files are kept aside too.
    _first_weeks(monkeypatch)
    path = tmp_path / "reme-demo"
    with pytest.MonkeyPatch.context() as patch:
        seen = _stop_after(patch, path, "digest/", 50)  # inside the second week
        code, _, err = _run_demo(path)
    assert code == 130, (seen[-1], err)
    start = path / ".reme" / "demo-week-1"  # the vault as the second week began
    assert start.is_dir()
    notes = sorted(p.relative_to(path).as_posix() for p in (path / "digest").rglob("*.md"))
    untouched = next(n for n in notes if (start / n).is_file()
                     and (start / n).read_bytes() == (path / n).read_bytes())
    written, also_written = [n for n in notes if not (start / n).is_file()
                             or (start / n).read_bytes() != (path / n).read_bytes()][:2]
    mine = {"notes/mine.md": "# Mine\n\nWritten by a person in the stopped demo.\n",
            "digest/wiki/mine.md": "# Also mine\n\nA wiki note of my own.\n"}
    for rel, text in mine.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text, encoding="utf-8")
    for rel in (untouched, written):
        text = (path / rel).read_text(encoding="utf-8")
        mine[rel] = text + f"\nA line a person added to {rel}.\n"
        (path / rel).write_text(mine[rel], encoding="utf-8")
    (tmp_path / "outside").mkdir()  # a link to a folder of the person's, kept as a link
    (path / "notes" / "elsewhere").symlink_to(tmp_path / "outside", target_is_directory=True)
    written_record = path / ".reme" / "demo-week-1.written.json"
    assert written_record.is_file()
    if record != "written":
        written_record.unlink()
    code, out, err = _run_demo(path, "--json" if record == "written" else "--text")
    assert code == 0, err
    on_disk = {p.read_text(encoding="utf-8", errors="replace"): p.relative_to(path).as_posix()
               for p in path.rglob("*") if p.is_file() and ".reme" not in p.parts}
    lost = [rel for rel, text in mine.items() if text not in on_disk]
    assert lost == [], f"lost what a person wrote in {lost}"
    now = {on_disk[text] for text in mine.values()}
    assert (path / "kept-from-stopped-demo" / "notes" / "elsewhere").is_symlink()
    now.add("kept-from-stopped-demo/notes/elsewhere")
    assert all(rel.startswith("kept-from-stopped-demo/") for rel in now), now
    if record == "written":  # only the person's files are kept aside, each said
        report = json.loads(out)
        assert sorted(report["kept"]) == sorted(now)
        assert report["weeks"] == never_stopped["report"]["weeks"]
    else:
        listed = out.split("Kept aside", 1)[1] if "Kept aside" in out else ""
        assert [rel for rel in now if rel not in listed] == [], out
        kept = path / "kept-from-stopped-demo" / also_written  # the week's own, too
        assert kept.is_file() and f"kept-from-stopped-demo/{also_written}" in listed
    # the demo itself: the vault of a demo never stopped, the person's files aside
    got = _demo_vault(path)
    assert got["notes"] == never_stopped["vault"]["notes"]
    assert got["proposals"] == never_stopped["vault"]["proposals"]
