"""Benchmark indexing one large note: time and peak memory from 1 KB to 5 MB.

    python benchmarks/bench_large_notes.py [--sizes 1K,10K,100K,500K,1M,5M]
                                           [--kinds log,prose,long] [--embedder minilm]

Each run is a fresh vault holding one file, `daily/2026-10-05/<kind>.md`, indexed by
`VaultIndex.refresh()` in a subprocess of its own (so the peak memory of one size does
not leak into the next). Three shapes of text, generated untimed and deterministic:

* log   — a daily log of short timestamped lines, a blank line every ~50 lines;
* prose — paragraphs of sentences under `#`/`##`/`###` headings;
* long  — lines of ~200 KB of sentences each (few newlines; one line below 200 KB).

Printed per run: the seconds of `refresh()` (chunking, embedding, FTS5 and faiss; the
model is loaded and warmed before the clock starts) in wall-clock and CPU time (the
encoder uses both cores, so CPU ~2x wall on an idle machine, and wall grows when other
processes share the cores), the chunks written, the chunks
with a vector, the process's peak RSS and its growth over the RSS after the warm-up.
Target (issue 10): a 5 MiB note indexes in seconds with MiniLM — here < 10 s — with
memory that does not grow with the note (< 300 MB over the warmed process).
`--embedder hashing` measures our code without a model.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_5MB_S = 10.0
TARGET_GROWTH_MB = 300.0
KINDS = ("log", "prose", "long")
WORDS = """the a to of and in for on with is was we it that this by at from as be are not
deploy rollout staging prod canary payments api ledger worker pool size config restart
health check latency error rate timeout retry queue batch settlement database migration
index schema backup restore cluster node disk memory cpu alert page incident review
customer vendor contract invoice meeting notes decision owner deadline release tag build
test smoke green failed passed fixed bug patch hotfix branch merge approve token key
rotation secret vault cert expiry renew dns proxy cache cdn region zone replica""".split()


def _sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(6, 18))
    return " ".join(words).capitalize() + rng.choice(".....?;")


def daily_log(size: int, rng: random.Random) -> str:
    out, n, t = ["# Log 2026-10-05", ""], 0, 0
    while n < size:
        t += rng.randint(1, 40)
        level = rng.choice(("INFO", "WARN", "DEBUG"))
        line = (f"{t // 3600 % 24:02d}:{t // 60 % 60:02d}:{t % 60:02d} {level} "
                + " ".join(rng.choices(WORDS, k=rng.randint(4, 12))))
        out.append(line)
        n += len(line) + 1
        if rng.random() < 0.02:
            out.append("")
    return "\n".join(out) + "\n"


def prose(size: int, rng: random.Random) -> str:
    out, n, section = [], 0, 0
    while n < size:
        if rng.random() < 0.15:
            section += 1
            heading = f"{'#' * rng.randint(1, 3)} Section {section} " + " ".join(rng.choices(WORDS, k=3))
            out += [heading, ""]
            n += len(heading) + 2
        paragraph = " ".join(_sentence(rng) for _ in range(rng.randint(3, 7)))
        out += [paragraph, ""]
        n += len(paragraph) + 2
    return "\n".join(out)


def long_lines(size: int, rng: random.Random, line_bytes: int = 200_000) -> str:
    out, n = [], 0
    while n < size:
        parts, m = [], 0
        while m < min(line_bytes, size - n):
            s = _sentence(rng)
            parts.append(s)
            m += len(s) + 1
        line = " ".join(parts)
        out.append(line)
        n += len(line) + 1
    return "\n".join(out) + "\n"


GENERATORS = {"log": daily_log, "prose": prose, "long": long_lines}


def parse_size(text: str) -> int:
    text = text.strip().upper()
    for suffix, factor in (("K", 1000), ("M", 1_000_000)):
        if text.endswith(suffix):
            return int(float(text[:-1]) * factor)
    return int(text)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_one(kind: str, size: int, embedder_spec: str) -> dict:
    """Index one generated note in a fresh vault; runs inside the child process."""
    from reme_workbench.index.factory import get_embedder
    from reme_workbench.index.store import VaultIndex

    text = GENERATORS[kind](size, random.Random(7))
    root = Path(tempfile.mkdtemp(prefix=f"bench-large-{kind}-{size}-"))
    try:
        path = root / "daily" / "2026-10-05" / f"{kind}.md"
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
        embedder = get_embedder(embedder_spec)
        embedder.embed(["warm up the model", "and its tokenizer"])
        base = _rss_mb()
        with VaultIndex(root, embedder) as index:
            cpu = _cpu_seconds()
            start = time.perf_counter()
            index.refresh()
            seconds = time.perf_counter() - start
            cpu = _cpu_seconds() - cpu
            stats = index.stats()
        peak = _rss_mb()
        return {"kind": kind, "bytes": len(text.encode("utf-8")), "seconds": seconds, "cpu": cpu,
                "chunks": stats["chunks"], "vectors": stats["vectors"], "peak_mb": peak,
                "growth_mb": peak - base}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1K,10K,100K,500K,1M,5M",
                        help="comma-separated sizes in bytes (K = 1000, M = 1,000,000)")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--embedder", default="minilm", help="minilm (default), hashing, e5")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one[0], parse_size(args.one[1]), args.embedder)))
        return 0

    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in GENERATORS]
    if unknown:
        parser.error(f"unknown kind {unknown[0]!r}; use {', '.join(KINDS)}")
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), embedder {args.embedder}")
    print(f"{'kind':<6} {'bytes':>10} {'index s':>9} {'cpu s':>7} {'chunks':>7} {'vectors':>8} "
          f"{'peak MB':>8} {'growth MB':>10}")
    ok = True
    for kind in kinds:
        for size in sizes:
            cmd = [sys.executable, __file__, "--one", kind, str(size), "--embedder", args.embedder]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print(f"{kind:<6} {size:>10,} {'> ' + format(args.timeout, '.0f'):>9}  (stopped)",
                      flush=True)
                ok &= size < 5_000_000
                continue
            if done.returncode:
                print(f"{kind:<6} {size:>10,} failed:\n{done.stderr.strip()}", flush=True)
                ok = False
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{kind:<6} {r['bytes']:>10,} {r['seconds']:>9.2f} {r['cpu']:>7.2f} {r['chunks']:>7,} "
                  f"{r['vectors'] if r['vectors'] is not None else '-':>8} "
                  f"{r['peak_mb']:>8.0f} {r['growth_mb']:>10.0f}", flush=True)
            if size >= 5_000_000:
                fast = r["seconds"] < TARGET_5MB_S
                flat = r["growth_mb"] < TARGET_GROWTH_MB
                ok &= fast and flat
                print(f"  5 MB {kind}: {r['seconds']:.1f} s (target < {TARGET_5MB_S:.0f} s, ratio "
                      f"{r['seconds'] / TARGET_5MB_S:.2f}), memory growth {r['growth_mb']:.0f} MB "
                      f"(target < {TARGET_GROWTH_MB:.0f} MB) {'PASS' if fast and flat else 'MISS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
