"""Benchmark the index and recall at scale, with the hashing embedder.

    python benchmarks/bench_index.py [--sizes 1000,10000,50000] [--queries 200]

The hashing embedder makes the figures measure our code (chunking, FTS5, faiss,
fusion, traversal), not a model. For each size N it generates (untimed) N digest
notes over the three buckets: ~150-250 words drawn Zipf-like from a 5,000-word
vocabulary, ~8 links each, a provenance line. Then it measures:

* cold    — no .reme/: scan + chunk + embed + FTS5 + faiss, from nothing
* refresh — one note edited: index.refresh() (stat walk + re-index of that file), median of 5
* recall  — p50 / p95 latency of recall(scope=digest) over random 3-word queries

Targets (recall issue): 10k notes cold index < 20 s, one-edit refresh < 100 ms,
recall p50 < 30 ms at 10k.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reme_workbench.index.embeddings import HashingEmbedder  # noqa: E402
from reme_workbench.index.recall import recall  # noqa: E402
from reme_workbench.index.store import VaultIndex  # noqa: E402
from reme_workbench.vault.scan import VaultScan  # noqa: E402

BUCKETS = ("procedure", "personal", "wiki")
COLD_TARGET_S, REFRESH_TARGET_S, RECALL_TARGET_S = 20.0, 0.100, 0.030


def vocabulary(size: int = 5000, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnoprstuvwyz"
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(words)


VOCAB = vocabulary()
# Zipf-like weights: a few very common words, a long tail of rare ones.
WEIGHTS = [1.0 / (rank + 1) for rank in range(len(VOCAB))]


def note_path(i: int) -> str:
    return f"digest/{BUCKETS[i % 3]}/note-{i:06d}.md"


def note_text(i: int, n: int, rng: random.Random, salt: str = "") -> str:
    words = rng.choices(VOCAB, WEIGHTS, k=rng.randint(150, 250))
    links = " ".join(f"[[{note_path(rng.randrange(n))}]]" for _ in range(8))
    half = len(words) // 2
    return (
        f"---\nname: note-{i:06d}\ndescription: {' '.join(words[:8])}{salt}\n---\n"
        f"# Note {i}\n\n{' '.join(words[:half])}\n\n- {' '.join(words[half:half + 20])}\n"
        f"- {' '.join(words[half + 20:])}\n\nSee {links}.\n\n"
        f"derived_from:: [[daily/2026-10-{1 + i % 28:02d}/log.md]]\n"
    )


def generate(root: Path, n: int) -> None:
    rng = random.Random(11)
    for b in BUCKETS:
        (root / "digest" / b).mkdir(parents=True, exist_ok=True)
    for d in range(1, 29):
        folder = root / "daily" / f"2026-10-{d:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "log.md").write_text(f"log of day {d}\n", encoding="utf-8")
    for i in range(n):
        (root / note_path(i)).write_text(note_text(i, n, rng), encoding="utf-8")


def bench(n: int, queries: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix=f"bench-index-{n}-"))
    try:
        generate(tmp, n)
        start = time.perf_counter()
        index = VaultIndex(tmp, HashingEmbedder(), scan=VaultScan(tmp))
        index.refresh()
        cold = time.perf_counter() - start

        rng = random.Random(5)
        refresh_times = []
        for k in range(5):
            i = rng.randrange(n)
            path = tmp / note_path(i)
            old = path.stat().st_mtime_ns
            path.write_text(note_text(i, n, random.Random(k), salt=f" edit {k}"), encoding="utf-8")
            os.utime(path, ns=(old, old + 1_000_000_000))
            t = time.perf_counter()
            delta = index.refresh()
            refresh_times.append(time.perf_counter() - t)
            assert delta.indexed == (note_path(i),), delta

        graph = index.link_graph()
        latencies = []
        for _ in range(queries):
            query = " ".join(rng.choices(VOCAB[50:2000], k=3))
            t = time.perf_counter()
            recall(index, query, k=10, scope="digest", graph=graph, log_access=False)
            latencies.append(time.perf_counter() - t)
        latencies.sort()
        index.close()
        return {
            "n": n,
            "cold": cold,
            "refresh": statistics.median(refresh_times),
            "p50": latencies[len(latencies) // 2],
            "p95": latencies[int(len(latencies) * 0.95) - 1],
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated note counts")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), hashing embedder")
    print(f"{'notes':>7} {'cold s':>8} {'notes/s':>8} {'refresh ms':>11} {'recall p50 ms':>14} {'p95 ms':>7}")
    ok = True
    for n in (int(s) for s in args.sizes.split(",")):
        r = bench(n, args.queries)
        print(f"{n:>7} {r['cold']:>8.2f} {n / r['cold']:>8.0f} {r['refresh'] * 1000:>11.1f} "
              f"{r['p50'] * 1000:>14.1f} {r['p95'] * 1000:>7.1f}", flush=True)
        if n == 10000:
            checks = [
                ("cold index", r["cold"], COLD_TARGET_S),
                ("one-edit refresh", r["refresh"], REFRESH_TARGET_S),
                ("recall p50", r["p50"], RECALL_TARGET_S),
            ]
            for label, value, target in checks:
                verdict = "PASS" if value < target else "MISS"
                ok &= value < target
                print(f"  10k {label}: {value * 1000:.1f} ms (target < {target * 1000:.0f} ms, "
                      f"ratio {value / target:.2f}) {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
