"""Benchmark the vault scan and link graph: cold build, warm reopen, one-file refresh.

    python benchmarks/bench_vault.py [--sizes 1000,10000,50000] [--profile]

For each size N it generates (untimed) a vault of N digest notes over the three buckets,
each ~1-2 KB with ~8 links (some typed) and a `derived_from::` line into a daily log,
then measures:

* cold   — no `.reme/scan.db`: VaultScan(root).refresh() + LinkGraph.from_scan
* warm   — the cache is present and nothing changed: the same calls in a new process state
* incr   — one note edited: scan.refresh([path]) + graph.update (median of 7)
* walk   — one note edited: a full stat walk scan.refresh() + graph.update (median of 3)

Targets: cold 10k notes < 5 s; one-file incremental refresh < 50 ms. "Cold" means no
scan cache; the OS page cache is warm (the files were just written).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reme_workbench.vault.graph import LinkGraph  # noqa: E402
from reme_workbench.vault.scan import VaultScan  # noqa: E402

BUCKETS = ("procedure", "personal", "wiki")
PREDICATES = ("is_a", "part_of", "see_also", "depends_on")
COLD_TARGET_S = 5.0  # at 10k notes
INCREMENTAL_TARGET_S = 0.050
WORDS = (
    "token rotation cache deploy review latency budget schema migration index retry "
    "backoff queue worker lease signing key secret vault graph community merge split "
    "archive recency provenance daily resource digest note link predicate"
).split()


def note_path(i: int) -> str:
    return f"digest/{BUCKETS[i % 3]}/note-{i:06d}.md"


def note_text(i: int, n: int, rng: random.Random, days: int, salt: str = "") -> str:
    targets = [rng.randrange(n) for _ in range(8)]
    plain = " ".join(f"[[{note_path(t)}]]" for t in targets[:4])
    typed = "\n".join(f"{rng.choice(PREDICATES)}:: [[{note_path(t)}]]" for t in targets[4:7])
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(120, 220)))
    return (
        f"---\nname: note-{i:06d}\ndescription: Note {i} about {rng.choice(WORDS)} "
        f"and {rng.choice(WORDS)}.{salt}\n---\n"
        f"# Note {i}\n\n{words[: len(words) // 2]}\n\nSee {plain} and "
        f"[[{note_path(targets[7])}|an alias]].\n\n{words[len(words) // 2 :]}\n\n"
        f"{typed}\n\nderived_from:: [[daily/2026-10-{1 + i % days:02d}/log-{i % 97:02d}.md]]\n"
    )


def generate(root: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    days = 28
    for b in BUCKETS:
        (root / "digest" / b).mkdir(parents=True, exist_ok=True)
    for d in range(1, days + 1):
        folder = root / "daily" / f"2026-10-{d:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        for k in range(97):
            if k % days == d - 1:
                (folder / f"log-{k:02d}.md").write_text(f"log {d} {k}\n", encoding="utf-8")
    for i in range(n):
        (root / note_path(i)).write_text(note_text(i, n, rng, days), encoding="utf-8")


def edit(root: Path, i: int, n: int, tag: str) -> str:
    rel = note_path(i)
    path = root / rel
    old = path.stat().st_mtime_ns
    path.write_text(note_text(i, n, random.Random(tag), 28, salt=f" ({tag})"), encoding="utf-8")
    os.utime(path, ns=(old, old + 1_000_000_000))
    return rel


def open_vault(root: Path) -> tuple[VaultScan, LinkGraph]:
    scan = VaultScan(root)
    scan.refresh()
    return scan, LinkGraph.from_scan(scan)


def timed(fn, cpu: list | None = None):
    """Wall time of fn(); with `cpu`, also append the process CPU time (noise check)."""
    c0, t0 = time.process_time(), time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - t0
    if cpu is not None:
        cpu.append(time.process_time() - c0)
    return elapsed, result


def bench(n: int, profile: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"reme-bench-{n}-") as tmp:
        root = Path(tmp)
        t_gen, _ = timed(lambda: generate(root, n))
        shutil.rmtree(root / ".reme", ignore_errors=True)
        if profile:
            prof = cProfile.Profile()
            prof.enable()
        cpu: list[float] = []
        cold, (scan, graph) = timed(lambda: open_vault(root), cpu)
        if profile:
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        assert graph.graph.number_of_nodes() == n, "every note must be a node"
        scan.close()
        warm, (scan, graph) = timed(lambda: open_vault(root))

        incr = []
        for k in range(7):
            rel = edit(root, (k * 7919) % n, n, f"incr{k}")

            def one(rel=rel):
                delta = scan.refresh([rel])
                graph.update(scan, delta)
                return delta

            dt, delta = timed(one)
            assert delta.changed == (rel,)
            incr.append(dt)
        walks = []
        for k in range(3):
            rel = edit(root, (k * 104729 + 1) % n, n, f"walk{k}")

            def walk():
                delta = scan.refresh()
                graph.update(scan, delta)
                return delta

            dt, delta = timed(walk)
            assert delta.changed == (rel,), delta
            walks.append(dt)
        check = LinkGraph.from_scan(scan)
        assert check.graph.number_of_edges() == graph.graph.number_of_edges()
        scan.close()
        return {
            "n": n,
            "gen": t_gen,
            "cold": cold,
            "cold_cpu": cpu[0],
            "warm": warm,
            "incr": statistics.median(incr),
            "walk": statistics.median(walks),
            "edges": graph.graph.number_of_edges(),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated note counts")
    parser.add_argument("--profile", action="store_true", help="cProfile the cold build")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s)")
    header = (
        f"{'notes':>7} {'edges':>8} {'cold s':>8} {'cpu s':>6} {'notes/s':>9} {'warm s':>8} "
        f"{'incr ms':>8} {'walk ms':>8} {'incr/cold':>10}"
    )
    print(header)
    missed = False
    verdicts = []
    for n in sizes:
        r = bench(n, args.profile)
        print(
            f"{n:>7} {r['edges']:>8} {r['cold']:>8.2f} {r['cold_cpu']:>6.2f} {n / r['cold']:>9.0f} "
            f"{r['warm']:>8.2f} "
            f"{r['incr'] * 1000:>8.1f} {r['walk'] * 1000:>8.1f} {r['incr'] / r['cold']:>10.5f}",
            flush=True,
        )
        ok_incr = r["incr"] < INCREMENTAL_TARGET_S
        verdicts.append(
            f"{n} notes: one-file incremental refresh {r['incr'] * 1000:.1f} ms "
            f"(< {INCREMENTAL_TARGET_S * 1000:.0f} ms) {'PASS' if ok_incr else 'MISS'}"
        )
        missed |= not ok_incr
        if n == 10_000:
            ok_cold = r["cold"] < COLD_TARGET_S
            verdicts.append(
                f"{n} notes: cold scan + graph {r['cold']:.2f} s (< {COLD_TARGET_S:.0f} s) "
                f"{'PASS' if ok_cold else 'MISS'}"
            )
            missed |= not ok_cold
    print()
    print("\n".join(verdicts))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
