"""Concurrent runs on one vault queue, they do not fail (docs/spec.md §3.5).

Writers queue on the vault lock for each changeset; index refreshes queue on
`.reme/index.lock` for the whole refresh; SQLite caches wait for a busy file. Every test
here runs real processes: the kernel's locks are what is tested.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reme_workbench.errors import RemeError
from reme_workbench.index.chunking import is_indexable
from reme_workbench.vault.layout import is_digest_note
from reme_workbench.vault.lock import IndexLock, VaultLock, connect_sqlite
from reme_workbench.vault.vault import init_vault

REPO = Path(__file__).resolve().parents[2]
NOT_QUEUED = ("database is locked", "run it again", "Traceback", "cannot be used", "Error:")


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["PYTHONPATH"] = str(REPO)
    return env


def run_python(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)], env=child_env(), cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def start_cli(vault: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "reme_workbench", "--vault", str(vault), *args, "--json"],
        env=child_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def finish(proc: subprocess.Popen, what: str) -> tuple[str, str]:
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, f"{what} exited {proc.returncode}:\n{err}"
    for sign in NOT_QUEUED:
        assert sign not in err, f"{what} did not queue ({sign!r}):\n{err}"
    return out, err


# --------------------------------------------------------------------------- the locks

HOLD = r"""
import sys, time
from pathlib import Path
from reme_workbench.vault.lock import IndexLock
root, beats = Path(sys.argv[1]), int(sys.argv[2])
with IndexLock(root) as lock:
    lock.set_status("indexing 0/9 files")
    print("held", flush=True)
    for i in range(beats):  # a refresh that keeps reporting progress
        time.sleep(0.1)
        lock.set_status(f"indexing {i + 1}/9 files")
    if beats == 0:
        time.sleep(30)  # a refresh that hangs
"""


def test_an_index_lock_waiter_waits_while_the_holder_makes_progress(tmp_path):
    """The bound is on time without progress: a holder that reports every 0.1 s for
    1.5 s is waited for by a waiter whose bound is 0.5 s."""
    holder = run_python(HOLD, tmp_path, 15)
    try:
        assert holder.stdout.readline().strip() == "held"
        with IndexLock(tmp_path, timeout=0.5) as lock:
            assert lock.held
        assert holder.wait(timeout=30) == 0  # it finished: the waiter got the lock after it
    finally:
        holder.kill()
        holder.wait()


def test_an_index_lock_waiter_gives_up_on_a_stalled_holder_and_names_it(tmp_path):
    holder = run_python(HOLD, tmp_path, 0)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(RemeError) as info:
            IndexLock(tmp_path, timeout=0.3).acquire()
        message = str(info.value)
        assert str(tmp_path / ".reme" / "index.lock") in message
        assert f"process {holder.pid}" in message and "indexing 0/9 files" in message
        assert "reported no progress for 0.3 s" in message and "run this again" in message
        assert not IndexLock(tmp_path).acquire(blocking=False)  # still held
    finally:
        holder.kill()
        holder.wait()
    with IndexLock(tmp_path, timeout=5) as lock:  # the kernel dropped the dead holder's lock
        assert lock.held
    assert (tmp_path / ".reme" / "index.lock").read_bytes() == b""  # no stale holder left


def test_the_vault_lock_and_the_index_lock_are_independent(tmp_path):
    """A long refresh never holds up a write, and a write never holds up a refresh."""
    with IndexLock(tmp_path) as index_lock, VaultLock(tmp_path, timeout=0.1) as vault_lock:
        assert index_lock.held and vault_lock.held


def _open_new_cache(path: str, start: float, queue) -> None:
    while time.time() < start:  # every process opens the new file at the same instant
        pass
    try:
        conn = connect_sqlite(path, timeout=10)
        conn.execute("CREATE TABLE IF NOT EXISTS t (x TEXT)")
        with conn:
            conn.execute("INSERT INTO t VALUES ('x')")
        conn.close()
        queue.put(None)
    except sqlite3.Error as exc:
        queue.put(repr(exc))


def test_processes_opening_one_new_cache_wait_instead_of_database_is_locked(tmp_path):
    """Switching a new SQLite file to WAL answers "database is locked" at once, without
    the busy timeout, when another process opens it too (the first run of two commands
    on a new vault); connect_sqlite retries the switch."""
    ctx = multiprocessing.get_context("fork")
    errors = []
    for n in range(12):
        path = str(tmp_path / f"cache-{n}.db")
        queue = ctx.Queue()
        start = time.time() + 0.3
        procs = [ctx.Process(target=_open_new_cache, args=(path, start, queue)) for _ in range(6)]
        for proc in procs:
            proc.start()
        errors += [e for e in (queue.get(timeout=60) for _ in procs) if e]
        for proc in procs:
            proc.join()
        rows = sqlite3.connect(path).execute("SELECT count(*) FROM t").fetchone()[0]
        assert rows == 6 - len(errors)
    assert errors == []


# --------------------------------------------------------------------------- two refreshes

REFRESHER = r"""
import json, sys, time
from pathlib import Path
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.index.store import VaultIndex

root, role, signals, rounds = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])


def wait_for(*names):
    deadline = time.monotonic() + 60
    while not any((signals / n).exists() for n in names):
        if time.monotonic() > deadline:
            sys.exit(f"{role}: no {names} after 60 s")
        time.sleep(0.005)


class Paced(HashingEmbedder):
    # The first refresher's embedder: on its first embed call it lets the second process
    # start a refresh (which must then wait for the index lock), and on each call gives it
    # time to commit (without the lock, each commit made the first re-plan; three in a row
    # made it fail). Only the first call waits: the second's next refreshes come after
    # the first is done, and a refresh commits its vectors in several batches.
    calls = 0

    def embed(self, texts):
        Paced.calls += 1
        (signals / f"embedding-{Paced.calls}").touch()
        if Paced.calls == 1:
            wait_for("second-refreshing-1")
        time.sleep(0.3)
        return super().embed(texts)


if role == "first":
    try:
        with VaultIndex(root, Paced()) as index:
            delta = index.refresh()
            generations = [index.generation]
    finally:
        (signals / "first-done").touch()  # the second one stops waiting for embed calls
    indexed = [len(delta.indexed)]
else:
    wait_for("embedding-1")
    generations, indexed = [], []
    with VaultIndex(root, HashingEmbedder()) as index:
        for k in range(1, rounds + 1):
            if k > 1:
                wait_for(f"embedding-{k}", "first-done")
            rel = f"digest/wiki/extra-{k}.md"
            (root / rel).write_text(f"---\nname: extra-{k}\ndescription: Extra {k}.\n---\n"
                                    f"Extra note {k} about the wombat{k} quarry.\n")
            (signals / f"second-refreshing-{k}").touch()
            delta = index.refresh(paths=[rel])
            generations.append(index.generation)
            indexed.append(len(delta.indexed))
print(json.dumps({"generations": generations, "indexed": indexed}))
"""


def test_two_refreshes_in_two_processes_both_succeed(tmp_path):
    """The second refresher waits for the first (the index lock), then finds the first
    one's work done and indexes only its own new files."""
    root = tmp_path / "vault"
    init_vault(root, sample=True)
    signals = tmp_path / "signals"
    signals.mkdir()
    rounds = 4
    first = run_python(REFRESHER, root, "first", signals, rounds)
    second = run_python(REFRESHER, root, "second", signals, rounds)
    first_out, _ = finish(first, "the first refresh")
    second_out, _ = finish(second, "the second refresher")
    a, b = json.loads(first_out), json.loads(second_out)
    sources = [p for p in root.rglob("*") if p.is_file() and is_indexable(p.name)
               and p.relative_to(root).parts[0] in ("daily", "resource")]
    assert a == {"generations": [1], "indexed": [len(sources)]}  # nobody got in before it
    assert b == {"generations": [2, 3, 4, 5], "indexed": [1, 1, 1, 1]}  # each saw the last

    from reme_workbench.index.embeddings import HashingEmbedder
    from reme_workbench.index.store import VaultIndex

    with VaultIndex(root, HashingEmbedder()) as index:
        assert index.refresh().indexed == ()  # consistent: nothing left to index
        stats = index.stats()
        assert stats["files"] == len(sources) + rounds
        assert stats["vectors"] == stats["chunks"] - stats["keyword_only_chunks"]
        hits = index.keyword_search("wombat3", scope="digest")
        assert [index.chunk(i).path for i, _ in hits] == ["digest/wiki/extra-3.md"]


# --------------------------------------------------------------------------- the CLI

def _note(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


def _prepare_round(vault: Path, r: int) -> tuple[str, str, str]:
    """New material for dream, and a note (with an inbound link) for rename to move."""
    day = f"2026-11-{10 + r:02d}"
    (vault / "daily" / day).mkdir(parents=True, exist_ok=True)
    (vault / "daily" / day / f"restart-quarry-{r}.md").write_text(
        f"# Restart the quarry{r} service\n\nMei asked me to restart quarry{r} on the build "
        "box.\n\n1. Checked the queue was empty: `quarryctl queue --env prod`\n"
        f"2. Restarted it: `systemctl restart quarry{r}`\n3. Watched the logs for five "
        "minutes; no errors.\n\nMei prefers a one-line summary in #ops when I finish.\n"
    )
    old, new = f"digest/wiki/lock-target-{r}.md", f"digest/wiki/lock-target-{r}-moved.md"
    (vault / old).write_text(_note(
        f"lock-target-{r}", f"The zanzibar{r} checklist.", f"Every step of the zanzibar{r} list."
    ))
    linker = f"digest/wiki/lock-linker-{r}.md"
    (vault / linker).write_text(_note(
        f"lock-linker-{r}", f"Points at checklist {r}.",
        f"See [[{old}]] and [[{old}|the list]] first.",
    ))
    return old, new, linker


def _index(vault: Path) -> dict:
    out, _ = finish(start_cli(vault, "index"), "index")
    return json.loads(out)


@pytest.mark.slow  # ~20 s: five CLI processes at once, three rounds
def test_dream_consolidate_rename_and_recall_at_once_all_succeed_and_lose_nothing(tmp_path):
    """Two dreams (as in the report: started together), consolidate, rename and recall at
    once on one vault, three rounds: the first on a new vault (every cache is created by
    five processes at once), the others on the vault the round before left, with new
    material. Every command exits 0 and queues (no "database is locked", no "run it
    again"), and every result is there afterwards."""
    vault = tmp_path / "vault"
    init_vault(vault, sample=True)
    (vault / "reme.toml").write_text('[recall]\nembedder = "hashing"\n')
    for r in (1, 2, 3):
        old, new, linker = _prepare_round(vault, r)
        procs = {
            "dream": start_cli(vault, "dream"),
            "another dream": start_cli(vault, "dream"),
            "consolidate": start_cli(vault, "consolidate", "--force"),
            "rename": start_cli(vault, "rename", old, new),
            "recall": start_cli(vault, "recall", f"zanzibar{r} checklist"),
        }
        out = {name: json.loads(finish(proc, f"round {r}: {name}")[0])
               for name, proc in procs.items()}

        # rename: moved, and both inbound links point at the new path
        assert not (vault / old).exists() and (vault / new).is_file()
        assert out["rename"]["links_rewritten"] == {linker: 2}
        text = (vault / linker).read_text()
        assert f"[[{new}]]" in text and f"[[{new}|the list]]" in text and old not in text
        # dream: the two queued (.reme/dream.lock), so no material was dreamt twice and
        # this round's was dreamt once; every note they applied is there
        dreams = (out["dream"], out["another dream"])
        first, second = (set(d["materials"]) for d in dreams)
        assert not first & second, "two dreams dreamt the same material: duplicate notes"
        material = f"daily/2026-11-{10 + r:02d}/restart-quarry-{r}.md"
        assert material in first | second
        applied = [o for d in dreams for o in d["outcomes"] if o["state"] == "applied"]
        assert any(o["material"] == material for o in applied)
        for o in applied:
            assert (vault / o["target_path"]).is_file() or o["target_path"] == old, o
        # consolidate: every phase ran and its files are whole
        assert {"communities", "archive", "cooldowns", "health"} <= set(out["consolidate"]["ran"])
        for name in ("communities", "community_changes", "recency", "archived",
                     "consolidate_state"):
            doc = json.loads((vault / "meta" / f"{name}.json").read_text())
            assert {"version", "computed_at"} <= doc.keys(), name
        assert (vault / out["consolidate"]["audit"]).is_file()
        # recall ran against some consistent index; a fresh one finds the moved note
        assert isinstance(out["recall"]["hits"], list)
        again, _ = finish(start_cli(vault, "recall", f"zanzibar{r} checklist"), "recall")
        paths = [hit["path"] for hit in json.loads(again)["hits"]]
        assert paths[0] == new and old not in paths

    # the index matches the files: nothing to do, and a rebuild from scratch agrees
    final = _index(vault)
    assert final["indexed"] == [] and final["removed"] == []
    wanted = [p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file()]
    wanted = [p for p in wanted if is_digest_note(p) or (
        p.split("/")[0] in ("daily", "resource") and is_indexable(p))]
    assert final["stats"]["files"] == len(wanted)
    copy = tmp_path / "copy"
    shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".reme"))
    fresh = _index(copy)
    for key in ("files", "chunks", "vectors", "layers"):
        assert final["stats"][key] == fresh["stats"][key], key
    # dream's record of what it dreamt survived the races: nothing is dreamt twice
    last, _ = finish(start_cli(vault, "dream"), "a last dream")
    assert json.loads(last)["materials"] == []
