"""Benchmark the archive batch on a long access log, and what its compaction saves.

    python benchmarks/bench_access_log.py [--notes 200] [--lines 300000] [--days 730] [--batches 3]

A generated vault of `--notes` digest notes and an access log of `--lines` lines
(recall hits and opens, at random moments over the last `--days` days); then one
archive batch a day for `--batches` days (`consolidate.archive.update_archive`, which
compacts the lines older than the hit window, docs/spec.md §7.3.11). Prints, per batch,
the log's size before and after and the batch's CPU and wall seconds; and the ratio of
the first batch's CPU to a later one's — what every batch paid before compaction (it
re-read the whole log) against what it pays once the log is compacted. No target is
asserted: the figures are the point (the machine may be loaded: read the CPU seconds).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from reme_workbench.config import ArchiveSettings
from reme_workbench.consolidate.archive import update_archive
from reme_workbench.vault.vault import Vault, init_vault

NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


def build(root: Path, notes: int, lines: int, days: float) -> None:
    init_vault(root)
    paths = [f"digest/wiki/n{i:04d}.md" for i in range(notes)]
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"---\nname: n\ndescription: A note.\n---\nBody of {path}.\n")
    rng = random.Random(1)
    with open(root / "meta/access_log.jsonl", "w", encoding="utf-8") as fh:
        for _ in range(lines):
            when = NOW - timedelta(days=rng.uniform(0, days))
            fh.write(json.dumps({"ts": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "path": rng.choice(paths),
                                 "event": rng.choice(("recall", "recall", "open")),
                                 "query": "how do I rotate the token", "rank": 3}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--days", type=float, default=730)
    parser.add_argument("--batches", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        build(root, args.notes, args.lines, args.days)
        vault = Vault.open(root, clock=lambda: NOW)
        log = root / "meta/access_log.jsonl"
        cpu = []
        for day in range(args.batches):
            before = log.stat().st_size
            c, w = time.process_time(), time.perf_counter()
            update_archive(vault, ArchiveSettings(), now=NOW + timedelta(days=day))
            cpu.append(time.process_time() - c)
            print(f"batch {day}: access log {before:,} -> {log.stat().st_size:,} bytes, "
                  f"{cpu[-1]:.2f} CPU-s, {time.perf_counter() - w:.2f} s wall")
        if len(cpu) > 1 and cpu[-1] > 0:
            print(f"first batch (reads the whole log, compacts it) / last batch: "
                  f"{cpu[0] / cpu[-1]:.1f}x CPU")


if __name__ == "__main__":
    main()
