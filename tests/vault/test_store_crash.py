"""Test the store like a database: kill -9 a writer anywhere, recover, and find the old
state or the new one — never a mix. Plus concurrent writers that must not lose updates.

A child process applies one changeset of 200 ops (creates, edits, deletes) plus an audit
entry. It dies either at a chosen durable step (`REME_JOURNAL_CRASH_AT`, the hook in
journal.py) or from SIGKILL after a random delay. The parent then runs `Store.recover()`
and checks every file is wholly old or wholly new, all on the same side, with no journal
or temp file left behind.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reme_workbench.vault import journal
from reme_workbench.vault.journal import JournalOp, write_journal
from reme_workbench.vault.store import Changeset, Edit, NamedCheck, Store, apply_with_replan

REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
AUDIT = "audit/2026-11-02/crash_test.md"
N_CREATE, N_EDIT, N_DELETE = 66, 68, 66  # 200 ops

CHILD = r"""
import json, os, sys, time
from datetime import datetime, UTC
from pathlib import Path
from reme_workbench.vault import journal
from reme_workbench.vault.store import AuditEntry, Changeset, Store

root, mode = Path(sys.argv[1]), sys.argv[2]
store = Store(root, clock=lambda: datetime(2026, 11, 2, 9, 30, tzinfo=UTC))
if mode == "recover":
    store.recover()
    sys.exit(0)
labels = []
if mode == "calibrate":  # record the sequence of durable steps
    real_step = journal._step
    def _step(label):
        labels.append(label)
        real_step(label)
    journal._step = _step
plan = json.loads(Path(sys.argv[3]).read_text())
ops = []
for kind, rel, content in plan:
    if kind == "create":
        ops.append(store.plan_create(rel, content))
    elif kind == "edit":
        ops.append(store.plan_edit(rel, content))
    else:
        ops.append(store.plan_delete(rel))
changeset = Changeset(tuple(ops), audit=AuditEntry("crash_test", "200 ops"))
print("ready", flush=True)
started = time.perf_counter()
store.apply(changeset)
print(json.dumps({"labels": labels, "elapsed": time.perf_counter() - started}), flush=True)
"""


def _tmpfs() -> Path | None:
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else None


@pytest.fixture(scope="module")
def fast_tmp(tmp_path_factory):
    """A scratch folder on tmpfs when there is one.

    kill -9 loses no page cache, so a process crash behaves the same on tmpfs as on
    disk; tmpfs just keeps 100+ crash runs fast on a busy machine.
    """
    shm = _tmpfs()
    if shm is None:
        yield tmp_path_factory.mktemp("crash")
        return
    folder = Path(tempfile.mkdtemp(prefix="reme-crash-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def child_env(crash_at: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != journal.CRASH_ENV}
    env["PYTHONPATH"] = str(REPO)
    if crash_at is not None:
        env[journal.CRASH_ENV] = crash_at
    return env


def build_case(base: Path) -> tuple[Path, Path, dict, dict]:
    """A fresh vault in `base`; returns (root, plan file, old state, new state)."""
    root = base / "vault"
    (root / "digest/wiki").mkdir(parents=True)
    (root / "audit").mkdir()
    old: dict[str, bytes | None] = {AUDIT: None}
    new: dict[str, bytes | None] = {AUDIT: b"# crash_test 2026-11-02\n\n200 ops\n"}
    plan = []
    for i in range(N_CREATE):
        rel = f"digest/wiki/sub{i % 3}/c-{i:03}.md"  # sub-folders must be created too
        old[rel], new[rel] = None, f"created {i}\n".encode()
        plan.append(("create", rel, f"created {i}\n"))
    for i in range(N_EDIT):
        rel = f"digest/wiki/e-{i:03}.md"
        old[rel], new[rel] = f"old {i}\n".encode(), f"new {i}\n".encode() * 3
        plan.append(("edit", rel, f"new {i}\n" * 3))
    for i in range(N_DELETE):
        rel = f"digest/wiki/d-{i:03}.md"
        old[rel], new[rel] = f"doomed {i}\n".encode(), None
        plan.append(("delete", rel, None))
    for rel, data in old.items():
        if data is not None:
            (root / rel).write_bytes(data)
    plan_file = base / "plan.json"
    plan_file.write_text(json.dumps(plan))
    return root, plan_file, old, new


def state_of(root: Path, old: dict, new: dict) -> str:
    """'old' or 'new' if the whole vault is on one side; fails the test otherwise."""
    sides: dict[str, list[str]] = {"old": [], "new": []}
    for rel in old:
        path = root / rel
        current = path.read_bytes() if path.exists() else None
        if current == old[rel]:
            sides["old"].append(rel)
        elif current == new[rel]:
            sides["new"].append(rel)
        else:
            pytest.fail(f"{rel} is neither old nor new: {current!r}")
    mixed = {side: len(paths) for side, paths in sides.items()}
    assert 0 in mixed.values(), f"vault is a mix of old and new files: {mixed}"
    journal_dir = root / ".reme/journal"  # absent if killed before the first write
    assert not journal_dir.exists() or os.listdir(journal_dir) == [], "journal not cleaned up"
    leftovers = [p for p in root.rglob("*") if p.name.endswith(".reme-tmp")]
    assert not leftovers, f"temp files left behind: {leftovers}"
    assert not (root / ".reme/recovered").exists()
    return "old" if mixed["new"] == 0 else "new"


def run_child(root: Path, plan_file: Path, mode: str, crash_at: str | None = None):
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(root), mode, str(plan_file)],
        env=child_env(crash_at),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def calibration(fast_tmp):
    """Run once without crashing: the step labels and how long an apply takes."""
    root, plan_file, old, new = build_case(fast_tmp / "calibrate")
    proc = run_child(root, plan_file, "calibrate")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout.splitlines()[-1])
    assert state_of(root, old, new) == "new"
    return info


def test_calibration_sees_the_commit_point(calibration):
    labels = calibration["labels"]
    # new sides (creates, edits, the audit file) and old sides (edits, deletes) are staged
    assert labels.count("fsync-stage") == (N_CREATE + N_EDIT + 1) + (N_EDIT + N_DELETE)
    assert labels.index("fsync-stage") < labels.index("rename-manifest") < labels.index("link")
    # an edit swaps its new file in (one atomic exchange where the file system has it, else
    # a move into the journal and a link); edits and deletes move the old file aside
    swaps = labels.count("exchange")
    assert swaps in (0, N_EDIT)
    assert labels.count("rename-aside") == N_EDIT + N_DELETE
    assert labels.count("link") == N_CREATE + 1 + (0 if swaps else N_EDIT)  # + the audit file


def crash_case(base: Path, crash_at: int, commit_step: int, recover_crash: int | None) -> str:
    root, plan_file, old, new = build_case(base)
    proc = run_child(root, plan_file, "apply", str(crash_at))
    assert proc.returncode == 137, f"child did not crash at step {crash_at}: {proc.stderr}"
    if recover_crash is not None:  # crash again, this time in the middle of recovery
        again = run_child(root, plan_file, "recover", str(recover_crash))
        assert again.returncode in (0, 137), again.stderr
    Store(root).recover()
    side = state_of(root, old, new)
    # The manifest rename is the commit point: before it old, from it on new.
    assert side == ("new" if crash_at >= commit_step else "old"), (crash_at, commit_step)
    if side == "new":
        assert Store(root).recover() == []  # idempotent: nothing left to do
    return side


@pytest.mark.slow
def test_crash_at_every_kind_of_step_leaves_old_or_new(calibration, fast_tmp):
    labels = calibration["labels"]
    total = len(labels)
    commit_step = labels.index("rename-manifest") + 1
    rng = random.Random(20261102)
    chosen = {1, 2, commit_step - 2, commit_step - 1, commit_step, commit_step + 1, total}
    # one of each label kind (first and last occurrence), then random ones to 70
    for label in set(labels):
        chosen.add(labels.index(label) + 1)
        chosen.add(total - labels[::-1].index(label))
    while len(chosen) < 70:
        chosen.add(rng.randint(1, total))
    # every third case also crashes the recovery once, at a random step of its own
    cases = [
        (fast_tmp / f"case{i}", n, rng.randint(1, 3 * N_CREATE) if i % 3 == 0 else None)
        for i, n in enumerate(sorted(chosen))
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        sides = list(pool.map(lambda c: crash_case(c[0], c[1], commit_step, c[2]), cases))
    assert sides.count("old") >= 5 and sides.count("new") >= 5, sides


def kill_case(base: Path, delay: float) -> tuple[str, bool]:
    root, plan_file, old, new = build_case(base)
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), "apply", str(plan_file)],
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.communicate(timeout=60)
    journal_dir = root / ".reme/journal"
    mid_write = journal_dir.exists() and bool(os.listdir(journal_dir))
    Store(root).recover()
    return state_of(root, old, new), mid_write


@pytest.mark.slow
def test_kill_9_at_random_instants_leaves_old_or_new(calibration, fast_tmp):
    rng = random.Random(7)
    span = max(calibration["elapsed"], 0.01) * 1.3
    # the issue asks for >= 100 real kill -9s of a process applying 200 files
    delays = [rng.uniform(0, span) for _ in range(100)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(
            pool.map(lambda a: kill_case(fast_tmp / f"k{a[0]}", a[1]), enumerate(delays))
        )
    # the delays are spread over one apply, so some kills must land inside the journal
    assert sum(mid for _, mid in results) >= 5, results


# --------------------------------------------------------------------------- in-process


def test_recovery_undoes_the_whole_change_when_someone_wrote_after_the_crash(tmp_path):
    """A change committed, then the process died before any op ran, then a person edited
    three of its files: recovery applies none of it (b stays old too), keeps each of
    their files, and keeps the change's own versions under audit/ — never only in .reme/."""
    root = tmp_path / "vault"
    (root / "digest/wiki").mkdir(parents=True)
    (root / "digest/wiki/a.md").write_text("old a\n")
    (root / "digest/wiki/b.md").write_text("old b\n")
    (root / "digest/wiki/gone.md").write_text("old gone\n")
    ops = [
        JournalOp("edit", "digest/wiki/a.md", b"new a\n", b"old a\n"),
        JournalOp("edit", "digest/wiki/b.md", b"new b\n", b"old b\n"),
        JournalOp("create", "digest/wiki/c.md", b"new c\n", None),
        JournalOp("delete", "digest/wiki/gone.md", None, b"old gone\n"),
    ]
    write_journal(root, "j1", ops, description="merge x into y")
    (root / "digest/wiki/a.md").write_text("user a\n")
    (root / "digest/wiki/c.md").write_text("user c\n")
    (root / "digest/wiki/gone.md").write_text("user kept this\n")
    messages = Store(root, clock=lambda: NOW).recover()
    text = "\n".join(messages)
    assert (root / "digest/wiki/a.md").read_text() == "user a\n"
    assert (root / "digest/wiki/c.md").read_text() == "user c\n"
    assert (root / "digest/wiki/gone.md").read_text() == "user kept this\n"
    assert (root / "digest/wiki/b.md").read_text() == "old b\n"  # the change is all or nothing
    kept = root / "audit/2026-11-02/set_aside-j1.md"
    page = kept.read_text()
    assert "new a" in page and "new c" in page and "merge x into y" in page
    assert "audit/2026-11-02/set_aside-j1.md" in text and "not applied" in text
    assert "digest/wiki/a.md changed" in text
    assert not (root / ".reme/recovered").exists()
    assert os.listdir(root / ".reme/journal") == []


def test_journal_stages_new_and_backups_before_commit(tmp_path, monkeypatch):
    root = tmp_path / "vault"
    (root / "digest/wiki").mkdir(parents=True)
    (root / "digest/wiki/a.md").write_text("old a\n")
    ops = [
        JournalOp("edit", "digest/wiki/a.md", b"new a\n", b"old a\n"),
        JournalOp("delete", "digest/wiki/b.md", None, b"old b\n"),
    ]
    seen = []
    real_step = journal._step
    monkeypatch.setattr(journal, "_step", lambda label: (seen.append(label), real_step(label)))
    jdir = write_journal(root, "j0", ops)
    assert (jdir / "new-0").read_bytes() == b"new a\n"
    assert (jdir / "old-0").read_bytes() == b"old a\n"  # backup of the old content
    assert (jdir / "old-1").read_bytes() == b"old b\n"
    manifest = json.loads((jdir / "manifest.json").read_text())
    assert [op["path"] for op in manifest["ops"]] == ["digest/wiki/a.md", "digest/wiki/b.md"]
    # everything staged is fsynced before the manifest appears
    assert seen.index("staged") < seen.index("rename-manifest")
    assert seen.count("fsync-stage") == 3
    assert (root / "digest/wiki/a.md").read_text() == "old a\n"  # nothing applied yet


def test_create_never_overwrites_even_if_the_target_appears_late(tmp_path, monkeypatch):
    """The existence check and the write race with editors that take no lock: link() wins,
    and the change is undone whole rather than written in part."""
    from reme_workbench.vault import guarded

    root = tmp_path / "vault"
    (root / "digest/wiki").mkdir(parents=True)
    (root / "digest/wiki/c.md").write_text("user c\n")
    (root / "digest/wiki/d.md").write_text("old d\n")
    real_sha = guarded.file_sha
    monkeypatch.setattr(  # pretend c.md was still absent whenever it was checked
        guarded, "file_sha",
        lambda target, rel: None if rel.endswith("c.md") else real_sha(target, rel),
    )
    write_journal(root, "j9", [JournalOp("edit", "digest/wiki/d.md", b"new d\n", b"old d\n"),
                               JournalOp("create", "digest/wiki/c.md", b"mine\n", None)])
    messages = Store(root, clock=lambda: NOW).recover()
    assert (root / "digest/wiki/c.md").read_text() == "user c\n"
    assert (root / "digest/wiki/d.md").read_text() == "old d\n"  # undone with it
    assert "mine" in (root / "audit/2026-11-02/set_aside-j9.md").read_text()
    assert any("not applied" in m and "digest/wiki/c.md" in m for m in messages)
    assert not list((root / "digest/wiki").glob(".*reme-tmp"))


def test_uncommitted_journal_is_discarded(tmp_path):
    root = tmp_path / "vault"
    (root / "digest/wiki").mkdir(parents=True)
    (root / "digest/wiki/a.md").write_text("old\n")
    jdir = root / ".reme/journal/j2"
    jdir.mkdir(parents=True)
    (jdir / "new-0").write_bytes(b"new\n")  # staged, but no manifest: never committed
    messages = Store(root).recover()
    assert (root / "digest/wiki/a.md").read_text() == "old\n"
    assert any("Discarded" in m and "j2" in m for m in messages)
    assert os.listdir(root / ".reme/journal") == []


def test_apply_finishes_a_pending_journal_first(tmp_path):
    root = tmp_path / "vault"
    (root / "digest/wiki").mkdir(parents=True)
    (root / "digest/wiki/a.md").write_text("old\n")
    store = Store(root, clock=lambda: NOW)
    planned = store.plan_edit("digest/wiki/a.md", "mine\n")
    write_journal(root, "j3", [JournalOp("edit", "digest/wiki/a.md", b"crashed\n", b"old\n")])
    # the stamp was taken before the crashed change: after roll-forward it is stale
    with pytest.raises(Exception, match="changed since"):
        store.apply(Changeset((planned,)))
    assert (root / "digest/wiki/a.md").read_text() == "crashed\n"


# --------------------------------------------------------------------------- concurrency

WORKER = r"""
import json, random, sys, time
from pathlib import Path
from reme_workbench.errors import StaleChangesetError
from reme_workbench.vault.store import Changeset, Edit, Store, apply_with_replan

root, worker, rounds = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = Store(root)
rng = random.Random(worker)
counts = [0, 0, 0]
plans = gave_up = 0
for _ in range(rounds):
    targets = rng.sample(range(3), 2)  # each change bumps two counters together
    def plan():
        global plans
        plans += 1
        ops = []
        for k in targets:
            rel = f"digest/wiki/counter-{k}.md"
            data, stamp = store.read(rel)  # content and stamp from one read
            ops.append(Edit(rel, str(int(data) + 1), stamp))
        time.sleep(rng.uniform(0, 0.002))  # widen the read-modify-write window
        return Changeset(tuple(ops))
    while True:
        try:
            apply_with_replan(store, plan)
            break
        except StaleChangesetError:
            gave_up += 1
    for k in targets:
        counts[k] += 1
print(json.dumps({"counts": counts, "plans": plans, "gave_up": gave_up}))
"""


@pytest.mark.slow
def test_concurrent_writers_lose_no_update(tmp_path):
    root = tmp_path / "vault"
    (root / "digest/wiki").mkdir(parents=True)
    for k in range(3):
        (root / f"digest/wiki/counter-{k}.md").write_text("0")
    workers, rounds = 4, 30
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), str(w), str(rounds)],
            env=child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(workers)
    ]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        reports.append(json.loads(out))
    expected = [sum(r["counts"][k] for r in reports) for k in range(3)]
    final = [int((root / f"digest/wiki/counter-{k}.md").read_text()) for k in range(3)]
    assert sum(expected) == workers * rounds * 2
    assert final == expected, f"lost updates: {final} != {expected}"


def test_apply_with_replan_in_threads_loses_no_update(tmp_path):
    """Same, with threads in one process: each VaultLock opens its own fd, so they queue."""
    root = tmp_path / "vault"
    (root / "digest/wiki").mkdir(parents=True)
    (root / "digest/wiki/n.md").write_text("0")
    store = Store(root)

    def slow_check(ctx) -> list[str]:
        time.sleep(0.002)
        return []

    def bump(_: int) -> None:
        def plan() -> Changeset:
            # content and stamp from the same read, or an update could be lost
            data, stamp = store.read("digest/wiki/n.md")
            edit = Edit("digest/wiki/n.md", str(int(data) + 1), stamp)
            # the check runs between the stamp check and the write: only the lock
            # keeps another thread out of that window
            return Changeset((edit,), checks=(NamedCheck("slow", slow_check),))

        while True:
            try:
                apply_with_replan(store, plan, max_attempts=10)
                return
            except Exception as exc:  # give-ups are retried; anything else fails below
                if "keep changing" not in str(exc):
                    raise

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(bump, range(40)))
    assert (root / "digest/wiki/n.md").read_text() == "40"
