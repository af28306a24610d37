"""The archive batch compacts the access log (docs/spec.md §7.3.11): lines older than
every window that counts hits fold into each path's last use and last touch, with their
count; recency, the touches since a batch and abstract's active members read the same
from the compacted log as from the whole one; the file stays bounded over many batches;
and a line appended by another process while the batch compacts is never lost."""

from __future__ import annotations

import json
import multiprocessing
import random
from datetime import UTC, datetime, timedelta

from reme_workbench.config import ArchiveSettings
from reme_workbench.consolidate.archive import (
    compact_log,
    note_activity,
    read_access_log,
    update_archive,
)
from reme_workbench.vault.archive_state import ArchiveBatch
from reme_workbench.vault.meta import log_access, read_meta, rewrite_jsonl
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

NOTES = [f"digest/wiki/n{i:02d}.md" for i in range(12)]
EVENTS = ("recall", "open", "dream.refine", "recall", "recall", "thaw")


def _line(path: str, event: str, when) -> bytes:
    return (json.dumps({"ts": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "path": path, "event": event,
                        "query": "q"}) + "\n").encode()


def _events(data: bytes):
    from reme_workbench.vault.meta import parse_utc

    for raw in data.splitlines():
        try:
            doc = json.loads(raw)
        except ValueError:
            continue
        when = parse_utc(doc.get("ts")) if isinstance(doc, dict) else None
        if when is not None and isinstance(doc.get("path"), str) and isinstance(doc.get("event"), str):
            yield doc["path"], doc["event"], when


def _history(seed: int, days: int = 400) -> bytes:
    rng = random.Random(seed)
    lines = []
    for _ in range(3000):
        path = rng.choice(NOTES)
        # the last notes were last used long ago: only the compacted lines speak of them
        low = 0 if path < NOTES[-3] else days / 4
        when = FIXED_NOW - timedelta(days=rng.uniform(low, days))
        lines.append(_line(path, rng.choice(EVENTS), when))
    lines.insert(100, b'{"ts": "2026-01-01T00:00:00Z", "path": "digest/wiki/n01.md", "ev')  # torn
    lines.insert(200, b"not json at all\n")
    return b"".join(lines)


def test_compaction_keeps_everything_a_later_batch_reads():
    data = _history(7)
    cutoff = FIXED_NOW - timedelta(days=30)
    small = compact_log(data, before=cutoff)
    assert len(small) < len(data) / 3
    for later in (0, 1, 29, 45, 400):
        at = FIXED_NOW + timedelta(days=later)
        for window in (30, 7):  # the archive's hits and a shorter window (abstract's)
            assert note_activity(_events(small), now=at, window_days=window) == \
                note_activity(_events(data), now=at, window_days=window)
    # per path, the count of lines survives, and so does it through a second compaction
    again = compact_log(small + _line(NOTES[0], "recall", FIXED_NOW), before=FIXED_NOW + timedelta(days=60))
    for log in (small, again):
        counts: dict[str, int] = {}
        for raw in log.splitlines():
            doc = json.loads(raw)
            counts[doc["path"]] = counts.get(doc["path"], 0) + doc.get("aggregated", 1)
        total = {p: sum(1 for q, _, _ in _events(data) if q == p) for p in NOTES}
        total[NOTES[0]] += log is again
        assert counts == total
    assert len(again.splitlines()) <= 2 * len(NOTES)


def _vault(make_vault, name: str) -> Vault:
    files = {p: f"---\nname: {p[12:15]}\ndescription: Note {p}.\n---\nBody of {p}.\n\n"
                f"derived_from:: [[daily/2026-01-01/log.md]]\n" for p in NOTES}
    files["daily/2026-01-01/log.md"] = "log\n"
    return Vault.open(make_vault(files, name=name), clock=lambda: FIXED_NOW)


def test_the_archive_batch_compacts_and_no_score_or_touch_moves(make_vault):
    """Two vaults with the same history, one batch a day for 150 days: one compacts its
    log (as every batch does), the other keeps every line (its windows reach back
    further than the history). Their scores, archived lists and the notes recall counts
    as touched since the batch are the same every day; the compacted log stays bounded."""
    vaults = [_vault(make_vault, "compacted"), _vault(make_vault, "whole")]
    rng = random.Random(3)
    history = _history(11, days=200)
    for v in vaults:
        (v.root / "meta").mkdir(exist_ok=True)
        (v.root / "meta/access_log.jsonl").write_bytes(history)
    cfg = ArchiveSettings(max_share_per_run=1.0)
    sizes = []
    for day in range(150):
        now = FIXED_NOW + timedelta(days=day)
        for v, keep in zip(vaults, (None, 10_000), strict=True):
            v.refresh()
            update_archive(v, cfg, now=now, keep_days=keep)
        recency = [read_meta(v.root, "recency", version=1).data["scores"] for v in vaults]
        archived = [read_meta(v.root, "archived", version=1).data for v in vaults]
        assert recency[0] == recency[1], day
        assert archived[0]["archived"] == archived[1]["archived"], day
        # touches after the batch: the same notes thaw at once in both
        for _ in range(rng.randrange(0, 4)):
            path, event = rng.choice(NOTES), rng.choice(EVENTS)
            when = now + timedelta(hours=rng.uniform(1, 20))
            for v in vaults:
                log_access(v.root, path, when, event)
        thawed = [ArchiveBatch.from_doc(doc).thawed(v.root) for doc, v in zip(archived, vaults, strict=True)]
        assert thawed[0] == thawed[1], day
        sizes.append(len((vaults[0].root / "meta/access_log.jsonl").read_bytes().splitlines()))
    whole = len((vaults[1].root / "meta/access_log.jsonl").read_bytes().splitlines())
    # two lines per note at most for what is older than the window, and the ~3 lines a
    # day of the last 31 days: bounded, while the whole log only grows
    assert whole > 3000 and max(sizes[40:]) <= 2 * len(NOTES) + 3 * 32
    assert sum(1 for _ in read_access_log(vaults[0].root)) == sizes[-1]


def _append(root: str, worker: int, count: int) -> None:
    from pathlib import Path

    for i in range(count):
        log_access(Path(root), NOTES[i % len(NOTES)], FIXED_NOW, "recall", marker=f"{worker}-{i}")


def test_a_line_appended_while_the_log_is_compacted_is_never_lost(tmp_path):
    """Four processes append 400 lines each while this one compacts the log over and over
    (old lines are added before each compaction, so each one really replaces the file)."""
    root = tmp_path / "vault"
    (root / "meta").mkdir(parents=True)
    old = FIXED_NOW - timedelta(days=100)
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_append, args=(str(root), w, 400)) for w in range(4)]
    for w in workers:
        w.start()
    replaced = 0
    while any(w.is_alive() for w in workers) or replaced < 5:
        for path in NOTES[:3]:
            log_access(root, path, old, "open")
        replaced += rewrite_jsonl(root, "access_log",
                                  lambda data: compact_log(data, before=FIXED_NOW - timedelta(days=30)))
    for w in workers:
        w.join()
        assert w.exitcode == 0
    markers = [json.loads(raw).get("marker") for raw in (root / "meta/access_log.jsonl").read_bytes().splitlines()]
    assert replaced >= 5
    assert sorted(m for m in markers if m) == sorted(f"{w}-{i}" for w in range(4) for i in range(400))


def test_consolidate_compacts_the_log_and_keeps_abstracts_window(make_vault):
    """Through the CLI: the archive phase says it compacted the log, and keeps every line
    of the longest window that counts hits — here abstract's, set to 90 days."""
    from click.testing import CliRunner

    from reme_workbench.cli import cli

    vault = _vault(make_vault, "cli")
    (vault.root / "reme.toml").write_text("[abstract]\nactive_window_days = 90\n")
    log = vault.root / "meta/access_log.jsonl"
    log.parent.mkdir(exist_ok=True)
    now = datetime.now(UTC)  # the CLI's clock is the real one: stamp the lines around it
    ages = [1, 20, 60, 89, 91, 150, 300]
    original = b"".join(_line(p, "recall", now - timedelta(days=d)) for p in NOTES for d in ages)
    log.write_bytes(original)
    result = CliRunner().invoke(cli, ["--vault", str(vault.root), "consolidate", "--only", "archive",
                                      "--force", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (phase,) = json.loads(result.stdout)["phases"]
    before, after = phase["details"]["access_log_compacted"]
    assert "access log compacted" in phase["summary"] and after < before == len(original)
    kept = [json.loads(raw) for raw in log.read_bytes().splitlines()]
    recent = [d for d in kept if "aggregated" not in d]
    assert len(recent) == len(NOTES) * 4  # 1, 20, 60 and 89 days: inside abstract's 90
    assert sorted({(d["path"], d["aggregated"]) for d in kept if "aggregated" in d}) == \
        [(p, 3) for p in NOTES]  # 91, 150, 300 days: one line each, standing for three


def test_without_file_locks_the_log_is_still_written_and_never_rewritten(tmp_path, monkeypatch):
    """A file system that refuses `flock` (some network mounts): a line is appended as
    before, and the log is left whole rather than rewritten without the appenders' lock."""
    import errno
    import fcntl

    def refuse(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    root = tmp_path / "vault"
    (root / "meta").mkdir(parents=True)
    monkeypatch.setattr(fcntl, "flock", refuse)
    log_access(root, NOTES[0], FIXED_NOW - timedelta(days=100), "open")
    log_access(root, NOTES[0], FIXED_NOW - timedelta(days=90), "open")
    before = (root / "meta/access_log.jsonl").read_bytes()
    assert len(before.splitlines()) == 2
    assert not rewrite_jsonl(root, "access_log", lambda data: compact_log(data, before=FIXED_NOW))
    assert (root / "meta/access_log.jsonl").read_bytes() == before
