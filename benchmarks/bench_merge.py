"""Benchmark merge on generated vaults with planted duplicates: candidates, votes, time.

    python benchmarks/bench_merge.py [--sizes 1000,10000] [--embedder minilm] [--pairs 0.05]

For each size N a vault of N digest notes is generated untimed
(`reme_workbench.experiments.generator`: topical communities of 8-30 notes linked
inside, N × `--pairs` planted duplicate pairs — the same facts paraphrased, under
another name — and as many near misses — two distinct notes of one topic and kind,
every value different). Then one subprocess, from a cold scan cache:

1. `Vault.open` and `update_communities` (Leiden, as consolidate runs it);
2. the vault's index is built (`VaultIndex.refresh`, untimed for the target but printed:
   dream keeps it current as it writes, and it holds every digest note's description
   vector);
3. `mine_candidates(vault, communities, embedder, index=index)` — the time of candidate
   mining, as consolidate runs it on a vault dream wrote, is the target; the embedder's
   share of it (all its `embed` calls) is printed beside it, and the model is loaded
   before the clock starts. Then once more without the index and without any cache
   (every description embedded: a vault of hand-written notes never indexed), printed
   beside it;
4. the three votes of `OfflineConsolidateBrain(embedder)` on every candidate, as the
   merge phase asks them (`PairRequest(a, b, judge, a_links, b_links)`, links = the
   targets of each body). A vote agrees when is_same with confidence ≥ 0.8; ≥ 2
   agreeing → *proposed* (a merge proposal), exactly 1 → *uncertain*
   (`dups_uncertain.md`), 0 → dropped.

Printed: how many planted pairs Leiden left in one community (no candidate can be
found across two), candidate recall (planted pairs mined / planted pairs) and
precision, how many near misses were mined; precision and recall of the proposed pairs
and of the proposed-or-uncertain ones; proposals for a distinct pair (a near miss or
any other pair that is not planted); the same recalls by paraphrase strength. Targets:
candidate recall ≥ 0.9, no merge proposal for a distinct pair, mining at 10k < 10 s.

The consolidate modules this measures are imported lazily: while one is missing the
benchmark prints "NOT MEASURED: <module> missing" for what needs it.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_RECALL = 0.9
TARGET_MINING_N = 10_000
TARGET_MINING_S = 10.0
MIN_CONFIDENCE, MIN_AGREE = 0.8, 2  # docs/spec.md §7.7.2
NOW = datetime(2026, 12, 2, 3, 0, tzinfo=UTC)
CANDIDATES = "reme_workbench.consolidate.candidates"
OFFLINE = "reme_workbench.consolidate.offline"


def missing(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            return True
        raise
    return False


class TimedEmbedder:
    """The embedder, with the seconds and texts of its `embed` calls counted."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.seconds, self.texts = 0.0, 0

    def embed(self, texts):
        t0 = time.perf_counter()
        out = self.inner.embed(texts)
        self.seconds += time.perf_counter() - t0
        self.texts += len(texts)
        return out


# -- the child process ----------------------------------------------------------------------

def run(root: Path, truth_file: Path, embedder_spec: str) -> dict:
    from reme_workbench.consolidate.communities import update_communities
    from reme_workbench.experiments.generator import read_truth
    from reme_workbench.index.factory import get_embedder
    from reme_workbench.vault.vault import Vault

    planted = read_truth(truth_file)["planted"]
    shutil.rmtree(root / ".reme", ignore_errors=True)
    for name in ("communities", "community_changes"):
        (root / "meta" / f"{name}.json").unlink(missing_ok=True)
    out: dict = {"missing": []}
    t0 = time.perf_counter()
    vault = Vault.open(root, clock=lambda: NOW)
    vault.graph  # noqa: B018 - the scan and the link graph, timed here
    out["scan"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    communities = dict(update_communities(vault, now=NOW).partition.communities)
    out["communities"] = time.perf_counter() - t0
    duplicates = {frozenset((p["a"], p["b"])): p for p in planted["duplicates"]}
    near = {frozenset((p["a"], p["b"])) for p in planted["near_misses"]}
    out["planted"], out["near_misses"] = len(duplicates), len(near)
    out["together"] = sum(communities.get(p["a"]) == communities.get(p["b"])
                          for p in planted["duplicates"])
    out["found_communities"] = len(set(communities.values()))
    from reme_workbench.experiments.generator import normalized_mutual_info

    out["nmi"] = normalized_mutual_info(planted["communities"]["notes"], communities)
    out["planted_communities"] = len(planted["communities"]["sizes"])
    if missing(CANDIDATES):
        out["missing"].append(CANDIDATES)
        return out
    from reme_workbench.consolidate.candidates import chance_level, mine_candidates
    from reme_workbench.index.store import VaultIndex

    t0 = time.perf_counter()
    embedder = TimedEmbedder(get_embedder(embedder_spec))
    embedder.embed(["load the model before the clock starts"])
    for lang in ("en", "zh"):  # once per process, as in a long-lived consolidate
        chance_level(embedder.inner, lang)
    out["embedder"], out["model_load"] = embedder.name, time.perf_counter() - t0
    t0 = time.perf_counter()
    index = VaultIndex(root, embedder, scan=vault.scan)
    index.refresh()
    out["index_build"], out["index_texts"] = time.perf_counter() - t0, embedder.texts
    embedder.seconds = embedder.texts = 0
    t0, cpu = time.perf_counter(), time.process_time()
    mined = mine_candidates(vault, communities, embedder, now=NOW, index=index)
    out["mining"], out["mining_cpu"] = time.perf_counter() - t0, time.process_time() - cpu
    out["mining_embed"], out["mining_texts"] = embedder.seconds, embedder.texts
    index.close()
    embedder.seconds = embedder.texts = 0
    t0 = time.perf_counter()
    cold = mine_candidates(vault, communities, embedder, now=NOW, cache=False)
    out["mining_cold"], out["mining_cold_embed"] = time.perf_counter() - t0, embedder.seconds
    out["mining_cold_texts"] = embedder.texts
    out["mining_cold_differs"] = len({(c.a, c.b) for c in cold} ^ {(c.a, c.b) for c in mined})
    candidates = [c for c in mined if c.skipped is None]
    pairs = {frozenset((c.a, c.b)) for c in candidates}
    out["candidates"] = len(pairs)
    out["mined_planted"] = len(pairs & duplicates.keys())
    out["mined_near"] = len(pairs & near)
    if missing(OFFLINE):
        out["missing"].append(OFFLINE)
        out["by_strength"] = strengths(duplicates, pairs, set(), set())
        return out
    from reme_workbench.consolidate.offline import OfflineConsolidateBrain
    from reme_workbench.llm.consolidate import JUDGES, NoteView, PairRequest
    from reme_workbench.vault.links import parse_links
    from reme_workbench.vault.note import parse

    brain = OfflineConsolidateBrain(embedder.inner)
    views: dict[str, tuple] = {}

    def view(path: str) -> tuple:
        if path not in views:
            note = parse((root / path).read_text(encoding="utf-8"), path)
            name = note.name or path.rsplit("/", 1)[1].removesuffix(".md")
            links = tuple(sorted({lk.target for lk in parse_links(note.body) if lk.target}))
            views[path] = (NoteView(path, name, note.description or "", note.body), links)
        return views[path]

    agreeing: Counter = Counter()
    t0 = time.perf_counter()
    for c in candidates:
        (a, a_links), (b, b_links) = view(c.a), view(c.b)
        for judge in range(JUDGES):
            vote = brain.vote(PairRequest(a, b, judge, a_links, b_links)).value
            agreeing[frozenset((c.a, c.b))] += bool(vote.is_same and vote.confidence >= MIN_CONFIDENCE)
    out["votes"] = time.perf_counter() - t0
    proposed = {p for p in pairs if agreeing[p] >= MIN_AGREE}
    reported = {p for p in pairs if agreeing[p] >= 1}
    for label, chosen in (("proposed", proposed), ("reported", reported)):
        hits = len(chosen & duplicates.keys())
        out[label] = len(chosen)
        out[f"{label}_planted"] = hits
        out[f"{label}_near"] = len(chosen & near)
    distinct = proposed - duplicates.keys()
    out["distinct_proposed"] = sorted(sorted(p) for p in distinct)
    kinds = planted["notes"]
    out["distinct_by_kind"] = Counter(
        "+".join(sorted({kinds[x]["kind"] for x in p})) for p in distinct).most_common()
    out["by_strength"] = strengths(duplicates, pairs, proposed, reported)
    return out


def strengths(duplicates: dict, mined: set, proposed: set, reported: set) -> dict:
    """planted / mined / proposed / reported, per paraphrase strength and mixed language."""
    rows: dict[str, list[int]] = {}
    for pair, info in duplicates.items():
        for label in (info["strength"], *(["mixed language"] if info["mixed_language"] else [])):
            row = rows.setdefault(label, [0, 0, 0, 0])
            row[0] += 1
            row[1] += pair in mined
            row[2] += pair in proposed
            row[3] += pair in reported
    return rows


# -- the parent -----------------------------------------------------------------------------

def bench(n: int, share: float, embedder: str, timeout: float) -> tuple[dict, float]:
    from reme_workbench.experiments.generator import VaultSpec, generate_vault

    pairs = max(1, int(n * share))
    with tempfile.TemporaryDirectory(prefix=f"reme-bench-merge-{n}-") as tmp:
        t0 = time.perf_counter()
        made = generate_vault(Path(tmp) / "vault", VaultSpec(
            notes=n, duplicates=pairs, near_misses=pairs, seed=7))
        generated = time.perf_counter() - t0
        root, truth = made.root, made.truth_path
        del made
        gc.collect()
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(root), str(truth),
               embedder]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if done.returncode:
            raise SystemExit(f"the run at {n} notes failed:\n{done.stderr}")
        return json.loads(done.stdout.strip().splitlines()[-1]), generated


def ratio(a: int, b: int) -> str:
    return "-" if not b else f"{a / b:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated note counts")
    parser.add_argument("--pairs", type=float, default=0.05,
                        help="duplicate pairs (and near-miss pairs) per note")
    parser.add_argument("--embedder", default="minilm",
                        help="embedder spec for mining and the votes (minilm, e5, hashing, …)")
    parser.add_argument("--timeout", type=float, default=10800.0, help="seconds per subprocess")
    parser.add_argument("--child", nargs=3, metavar=("ROOT", "TRUTH", "EMBEDDER"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        root, truth, embedder = args.child
        print(json.dumps(run(Path(root), Path(truth), embedder)))
        return 0

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), load average "
          f"{os.getloadavg()[0]:.1f}; embedder {args.embedder}; {args.pairs:g} duplicate and "
          f"{args.pairs:g} near-miss pairs per note; {datetime.now(UTC):%Y-%m-%d}")
    verdicts, missed, not_measured = [], False, set()
    for n in sizes:
        r, generated = bench(n, args.pairs, args.embedder, args.timeout)
        not_measured.update(r["missing"])
        print(f"\n{n} notes (generated in {generated:.1f} s): {r['planted']} planted pairs, "
              f"{r['near_misses']} near misses; scan {r['scan']:.2f} s, communities "
              f"{r['communities']:.2f} s ({r['found_communities']} found, {r['planted_communities']} "
              f"planted, NMI {r['nmi']:.2f}); planted pairs in one "
              f"community {r['together']}/{r['planted']}", flush=True)
        if "candidates" not in r:
            print(f"  NOT MEASURED: {CANDIDATES} missing (candidates, votes)")
            continue
        recall = r["mined_planted"] / r["planted"] if r["planted"] else 1.0
        print(f"  candidates {r['candidates']}: recall {recall:.2f} "
              f"({r['mined_planted']}/{r['planted']}), precision "
              f"{ratio(r['mined_planted'], r['candidates'])}, near misses mined "
              f"{r['mined_near']}/{r['near_misses']}", flush=True)
        print(f"  mining with the vault's index {r['mining']:.2f} s ({r['mining_cpu']:.2f} s CPU) "
              f"with {r['embedder']} (embedding {r['mining_texts']} texts "
              f"{r['mining_embed']:.2f} s, the rest {r['mining'] - r['mining_embed']:.2f} s); "
              f"without an index or cache {r['mining_cold']:.2f} s (embedding "
              f"{r['mining_cold_texts']} texts {r['mining_cold_embed']:.2f} s); untimed: model "
              f"load {r['model_load']:.2f} s, index build {r['index_build']:.1f} s "
              f"({r['index_texts']} texts embedded); pairs found by only one of the two "
              f"{r['mining_cold_differs']}", flush=True)
        ok = recall >= TARGET_RECALL
        missed |= not ok
        verdicts.append(f"{n} notes: candidate recall {recall:.2f} (>= {TARGET_RECALL}) "
                        f"{'PASS' if ok else 'MISS'}")
        if n == TARGET_MINING_N:
            ok = r["mining"] < TARGET_MINING_S
            missed |= not ok
            verdicts.append(f"{n} notes: mining {r['mining']:.1f} s with {r['embedder']} and the index "
                            f"(< {TARGET_MINING_S:.0f} s) {'PASS' if ok else 'MISS'}")
        if "proposed" not in r:
            print(f"  NOT MEASURED: {OFFLINE} missing (votes)")
            continue
        for label, what in (("proposed", "proposed (>= 2 agree)"),
                            ("reported", "proposed or uncertain (>= 1 agree)")):
            print(f"  {what}: {r[label]}, precision {ratio(r[label + '_planted'], r[label])}, "
                  f"recall {ratio(r[label + '_planted'], r['planted'])}, near misses "
                  f"{r[label + '_near']}")
        distinct = r["proposed"] - r["proposed_planted"]
        print(f"  merge proposals for a distinct pair: {distinct} ({r['proposed_near']} near "
              f"misses, {distinct - r['proposed_near']} other); votes {r['votes']:.2f} s")
        if r["distinct_by_kind"]:
            print("    by kind: " + ", ".join(f"{k} {v}" for k, v in r["distinct_by_kind"]))
        for pair in r["distinct_proposed"][:5]:
            print(f"    distinct but proposed: {pair[0]}  +  {pair[1]}")
        print("  by strength (planted: mined / proposed / reported): " + "; ".join(
            f"{k} {v[0]}: {v[1]}/{v[2]}/{v[3]}" for k, v in sorted(r["by_strength"].items())))
        ok = distinct == 0
        missed |= not ok
        verdicts.append(f"{n} notes: {distinct} merge proposals for distinct pairs (0) "
                        f"{'PASS' if ok else 'MISS'}")
    print()
    print(f"targets: candidate recall >= {TARGET_RECALL}, no merge proposal for a distinct pair, "
          f"mining at 10k < {TARGET_MINING_S:.0f} s")
    for module in sorted(not_measured):
        print(f"NOT MEASURED: {module} missing")
    print("\n".join(verdicts) if verdicts else "(nothing with a target was measured)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
