"""Benchmark the no-brain consolidate on generated vaults: time per step and peak memory.

    python benchmarks/bench_consolidate.py [--sizes 1000,10000,50000] [--mixing 0.1]

For each size N a vault of N digest notes in planted communities is generated untimed
(`reme_lab.generator`, the one generator of benchmarks and experiments:
topical communities of 5-40 notes, ~6 links a note, `--mixing` of them leaving the
community, notes as dream writes them). Then two subprocesses run on
it, each from a cold scan cache (no `.reme/scan.db`; files in the OS page cache), so
one size's memory never leaks into the next:

* whole — `Vault.open` + `consolidate_vault(vault, Settings(), only=…, force=True)`:
  every phase of the no-brain consolidate (communities, split, archive, cooldowns,
  health; not abstract and merge, which ask a brain), as the CLI runs it — split looks
  at every digest note (docs/spec.md §7.8.4) and asks a brain only about a note over
  the threshold, and the generated notes are all under it, so it times that look;
  its wall time and the process's peak RSS are the targets;
* parts — the same work step by step: vault scan + link graph, `digest_graph`, `leiden`
  (5 seeds), `stability` of that partition against the planted one (a previous run
  whose ids and sets differ), `update_communities` a first and a second time (the second
  reads the first as its previous run), and recency (`update_archive`).

Printed also: communities found against planted, NMI against
the planted truth, modularity. Targets: the whole consolidate of 10k notes < 10 s, 50k
< 60 s, peak memory < 1 GiB at 50k.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGETS_S = {10_000: 10.0, 50_000: 60.0}
TARGET_MEMORY_N = 50_000
TARGET_MEMORY_MB = 1024.0
NOW = datetime(2026, 12, 2, 3, 0, tzinfo=UTC)


def phases() -> tuple[str, ...]:
    """The no-brain phases: abstract and merge ask a brain (benchmarks/bench_merge.py
    measures merge); split asks one only about a note over the threshold (none here);
    the targets are for the mechanical consolidate."""
    from reme_workbench.consolidate.run import PHASES

    return tuple(p for p in PHASES if p not in ("abstract", "merge"))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def cold(root: Path) -> None:
    shutil.rmtree(root / ".reme", ignore_errors=True)
    for name in ("communities", "community_changes", "recency", "archived", "consolidate_state"):
        (root / "meta" / f"{name}.json").unlink(missing_ok=True)


# -- the child processes --------------------------------------------------------------------

def run_whole(root: Path) -> dict:
    from reme_workbench.config import Settings
    from reme_workbench.consolidate.run import consolidate_vault
    from reme_workbench.ops import Workspace
    from reme_workbench.vault.vault import Vault

    cold(root)
    # as the CLI builds them: split asks the brain only about a note over the threshold
    ws = Workspace(root, settings=Settings())
    brain = ws.get_consolidate_brain()
    t0 = time.perf_counter()
    vault = Vault.open(root, clock=lambda: NOW)
    report = consolidate_vault(vault, ws.settings, only=phases(), force=True, brain=brain,
                               embedder=ws.get_embedder())
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "phases": {p.phase: p.seconds for p in report.phases},
            "ran": list(report.ran), "peak_mb": peak_mb()}


def run_parts(root: Path, truth: Path) -> dict:
    from reme_lab.generator import normalized_mutual_info, read_truth
    from reme_workbench.config import ArchiveSettings, CommunitySettings
    from reme_workbench.consolidate.communities import (
        digest_graph,
        leiden,
        stability,
        update_communities,
    )
    from reme_workbench.vault.vault import Vault

    planted = {p: f"p{c}" for p, c in
               read_truth(truth)["planted"]["communities"]["notes"].items()}
    cold(root)
    out: dict = {}
    vault = Vault.open(root, clock=lambda: NOW)
    out["scan_graph"], links = timed(lambda: vault.graph)
    out["digest_graph"], graph = timed(lambda: digest_graph(links))
    out["edges"] = graph.number_of_edges()
    out["leiden"], partition = timed(lambda: leiden(graph))
    out["stability"], stable = timed(lambda: stability(partition.communities, planted))
    out["update_first"], _ = timed(lambda: update_communities(vault, CommunitySettings(), now=NOW))
    out["update_second"], second = timed(lambda: update_communities(vault, CommunitySettings(), now=NOW))
    assert set(second.stability.values()) == {1.0}, "the same vault must give the same sets"
    from reme_workbench.consolidate.archive import update_archive

    out["recency"], _ = timed(lambda: update_archive(vault, ArchiveSettings(), now=NOW))
    values = sorted(stable.values())
    out.update(
        communities=len(set(partition.communities.values())),
        planted=len(set(planted.values())),
        nmi=normalized_mutual_info(planted, partition.communities),
        modularity=partition.modularity,
        stability_vs_planted_median=values[len(values) // 2],
        peak_mb=peak_mb(),
    )
    return out


# -- the parent -----------------------------------------------------------------------------

def child(mode: str, root: Path, truth: Path, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, str(root), str(truth)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode:
        raise SystemExit(f"the {mode} run failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(n: int, mixing: float, timeout: float) -> tuple[dict, dict, float]:
    from reme_lab.generator import VaultSpec, generate_vault

    with tempfile.TemporaryDirectory(prefix=f"reme-bench-consolidate-{n}-") as tmp:
        t0 = time.perf_counter()
        made = generate_vault(Path(tmp) / "vault", VaultSpec(
            notes=n, duplicates=0, near_misses=0, min_community=5, max_community=40,
            mixing=mixing, links_per_note=6, seed=7))
        root, truth = made.root, made.truth_path
        del made
        gc.collect()
        generated = time.perf_counter() - t0
        whole = child("whole", root, truth, timeout)
        parts = child("parts", root, truth, timeout)
        return whole, parts, generated


def fmt(x: float | None, spec: str = ".2f") -> str:
    return "-" if x is None else format(x, spec)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated note counts")
    parser.add_argument("--mixing", type=float, default=0.1, help="share of links leaving a community")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per subprocess")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "ROOT", "TRUTH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, root, truth = args.child
        result = run_whole(Path(root)) if mode == "whole" else run_parts(Path(root), Path(truth))
        print(json.dumps(result))
        return 0

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s); mixing {args.mixing}; "
          f"phases measured: {', '.join(phases())}")
    print(f"{'notes':>7} {'edges':>7} {'whole s':>8} {'peak MB':>8} | {'scan+graph':>10} "
          f"{'digest_g':>8} {'leiden':>7} {'stabil.':>7} {'update':>7} {'update2':>7} "
          f"{'recency':>7} {'parts MB':>8} | {'found':>5} {'planted':>7} {'NMI':>5} {'Q':>5}")
    verdicts, missed = [], False
    for n in sizes:
        whole, p, _ = bench(n, args.mixing, args.timeout)
        print(
            f"{n:>7} {p['edges']:>7} {fmt(whole and whole['seconds']):>8} "
            f"{fmt(whole and whole['peak_mb'], '.0f'):>8} | {p['scan_graph']:>10.2f} "
            f"{p['digest_graph']:>8.2f} {p['leiden']:>7.2f} {p['stability'] * 1000:>5.0f}ms "
            f"{p['update_first']:>7.2f} {p['update_second']:>7.2f} {fmt(p['recency']):>7} "
            f"{p['peak_mb']:>8.0f} | {p['communities']:>5} {p['planted']:>7} {p['nmi']:>5.2f} "
            f"{p['modularity']:>5.3f}",
            flush=True,
        )
        if whole:
            print(f"{'':>7} whole run by phase: "
                  + ", ".join(f"{k} {v:.2f} s" for k, v in whole["phases"].items())
                  + f"; the rest (open, scan, state, audit) "
                  f"{whole['seconds'] - sum(whole['phases'].values()):.2f} s", flush=True)
        if n in TARGETS_S and whole:
            ok = whole["seconds"] < TARGETS_S[n]
            missed |= not ok
            verdicts.append(f"{n} notes: whole consolidate {whole['seconds']:.1f} s "
                            f"(< {TARGETS_S[n]:.0f} s) {'PASS' if ok else 'MISS'}")
        if n == TARGET_MEMORY_N and whole:
            peak = max(whole["peak_mb"], p["peak_mb"])
            ok = peak < TARGET_MEMORY_MB
            missed |= not ok
            verdicts.append(f"{n} notes: peak memory {peak:.0f} MB (< {TARGET_MEMORY_MB:.0f} MB) "
                            f"{'PASS' if ok else 'MISS'}")
    print()
    print("targets: whole consolidate 10k < 10 s, 50k < 60 s; peak memory < 1 GiB at 50k")
    print("\n".join(verdicts) if verdicts else "(no size with a target was run)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
