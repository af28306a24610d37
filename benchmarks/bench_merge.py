"""Benchmark merge on generated vaults with planted duplicates: candidates, votes, time.

    python benchmarks/bench_merge.py [--sizes 1000,10000] [--vaults planted,template]
                                     [--embedder minilm] [--pairs 0.05]

Two vaults per size N (`reme_lab.generator`), generated untimed:

* **planted** — the vault the merge figures were first measured on: topical communities
  of 8-30 notes linked inside, N × `--pairs` duplicate pairs (the same facts
  paraphrased, under another name, in the original's community) and as many near
  misses (two distinct notes of one topic and kind, every value different);
* **template** — 30 % of the N files are a community wiki's plugin pages built from one
  template (badges, `%% %%` comments, field labels, footer; category, developer and
  mobile pages list them with short links), with 5 % of the plugins listed twice under
  two file names on two category pages (a duplicate across communities) and 5 % forked
  (same name and description, another developer, repository and id: a near miss); the
  other 70 % are planted notes as above, a third of their twins placed in another
  community (linked from its notes, not their original's).

Then one subprocess per vault, from a cold scan cache:

1. `Vault.open` and `update_communities` (Leiden, as consolidate runs it);
2. the vault's index is built (`VaultIndex.refresh`, untimed for the target but printed:
   dream keeps it current as it writes, and it holds every digest note's description
   vector);
3. `mine_candidates(vault, communities, embedder, index=index)` over the whole digest —
   the time of candidate mining is the target; the embedder's share of it is printed
   beside it, and the model is loaded before the clock starts;
4. `plan_merges(..., dry_run=True)` with `OfflineConsolidateBrain(embedder)`: what the
   merge phase would propose — pairs whose identifiers differ reported *distinct*
   without a vote, the three votes on the others (judges reading bodies less the
   digest's common lines), ≥ 2 agreeing → a proposal, 1 → *uncertain*; each note in at
   most one merge.

Printed per vault: planted pairs Leiden put in one community; *candidate recall*
(planted pairs mined and not called distinct / planted); near misses mined and how many
were called distinct; *proposals for distinct pairs* (any proposal that is not a planted
pair), with the worst ones; *planted duplicates proposed or reported* (a proposal or an
uncertain pair / planted); the same by kind of pair. Targets: candidate recall ≥ 0.9,
no proposal for a distinct pair, planted duplicates proposed or reported ≥ 0.9, mining
at 10k < 10 s.
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
TARGET_REPORTED = 0.9
TEMPLATE_SHARE = 0.3  # of a template vault's files, plugin pages
TARGET_MINING_N = 10_000
TARGET_MINING_S = 10.0
NOW = datetime(2026, 12, 2, 3, 0, tzinfo=UTC)
CANDIDATES = "reme_workbench.consolidate.candidates"
OFFLINE = "reme_workbench.brains.offline_consolidate"


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
    from reme_lab.generator import read_truth
    from reme_workbench.config import CommunitySettings
    from reme_workbench.consolidate.communities import update_communities
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
    communities = dict(update_communities(vault, CommunitySettings(), now=NOW).partition.communities)
    out["communities"] = time.perf_counter() - t0
    duplicates = {frozenset((p["a"], p["b"])): p for p in planted["duplicates"]}
    near = {frozenset((p["a"], p["b"])) for p in planted["near_misses"]}
    out["planted"], out["near_misses"] = len(duplicates), len(near)
    out["together"] = sum(communities.get(p["a"]) == communities.get(p["b"])
                          for p in planted["duplicates"])
    out["found_communities"] = len(set(communities.values()))
    from reme_lab.generator import normalized_mutual_info

    out["nmi"] = normalized_mutual_info(planted["communities"]["notes"], communities)
    out["planted_communities"] = len(planted["communities"]["sizes"])
    if missing(CANDIDATES):
        out["missing"].append(CANDIDATES)
        return out
    from reme_workbench.config import MergeSettings
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
    mined = mine_candidates(vault, communities, embedder, MergeSettings(), now=NOW, index=index)
    out["mining"], out["mining_cpu"] = time.perf_counter() - t0, time.process_time() - cpu
    out["mining_embed"], out["mining_texts"] = embedder.seconds, embedder.texts
    index.close()
    duplicates_of = planted["duplicates"]
    live = [c for c in mined if c.skipped is None]
    pairs = {frozenset((c.a, c.b)) for c in live if c.distinct is None}
    distinct = {frozenset((c.a, c.b)): c.distinct for c in live if c.distinct}
    out["candidates"], out["distinct"] = len(pairs), len(distinct)
    out["mined_planted"] = len(pairs & duplicates.keys())
    out["planted_called_distinct"] = sorted(
        [*sorted(p), distinct[p]] for p in distinct.keys() & duplicates.keys())
    out["mined_near"] = len((pairs | distinct.keys()) & near)
    out["near_distinct"] = len(distinct.keys() & near)
    out["distinct_examples"] = [[*sorted(p), why] for p, why in sorted(
        distinct.items(), key=lambda kv: sorted(kv[0]))[:3]]
    if missing(OFFLINE):
        out["missing"].append(OFFLINE)
        return out
    from reme_workbench.brains.offline_consolidate import OfflineConsolidateBrain
    from reme_workbench.config import MergeSettings, Settings
    from reme_workbench.consolidate.merge import MergeContext, plan_merges

    brain = OfflineConsolidateBrain(embedder.inner, Settings())
    t0 = time.perf_counter()
    merged = plan_merges(vault, brain, live, MergeSettings(),
                         MergeContext(now=NOW, parallel_votes=False, audit=False, dry_run=True))
    out["votes"] = time.perf_counter() - t0
    proposed = {frozenset((p.story["winner"], p.story["loser"])): p for p in merged.proposals}
    uncertain = {frozenset((u.candidate.a, u.candidate.b)) for u in merged.uncertain}
    reported = proposed.keys() | uncertain
    out["proposed"], out["uncertain"] = len(proposed), len(uncertain)
    out["proposed_planted"] = len(proposed.keys() & duplicates.keys())
    out["reported_planted"] = len(reported & duplicates.keys())
    out["proposed_near"] = len(proposed.keys() & near)
    out["run_distinct"] = len(merged.distinct)
    out["skipped_in_run"] = len(merged.skipped)
    # a merged body its checks refused (keeps_values, links, provenance): never proposed
    out["rejected_in_run"] = [r.reason[:300] for r in merged.rejected]
    wrong = [p for pair, p in proposed.items() if pair not in duplicates]
    wrong.sort(key=lambda p: -p.story["candidate"]["score"])
    out["distinct_proposed"] = [
        {"pair": sorted((p.story["winner"], p.story["loser"])),
         "communities": p.story["candidate"]["communities"],
         "votes": [f"{'yes' if v['agrees'] else 'no'} {v['reason']}" for v in p.story["votes"]]}
        for p in wrong]
    kinds = planted["notes"]
    out["distinct_by_kind"] = Counter(
        "+".join(sorted({kinds[x]["kind"] for x in p["pair"]})) for p in out["distinct_proposed"]
    ).most_common()
    out["by_kind"] = by_kind(duplicates_of, pairs, set(proposed), reported)
    return out


def by_kind(duplicates: list[dict], mined: set, proposed: set, reported: set) -> dict:
    """planted / mined / proposed / reported, per kind of planted pair."""
    rows: dict[str, list[int]] = {}
    for info in duplicates:
        pair = frozenset((info["a"], info["b"]))
        if info["kind"] == "plugin":
            label = f"plugin page listed twice ({info['strength']})"
        else:
            label = (f"paraphrase {info['strength']}"
                     + (", across communities" if info.get("across") else ""))
        for key in (label, *(["mixed language"] if info["mixed_language"] else [])):
            row = rows.setdefault(key, [0, 0, 0, 0])
            row[0] += 1
            row[1] += pair in mined
            row[2] += pair in proposed
            row[3] += pair in reported
    return rows


# -- the parent -----------------------------------------------------------------------------

def spec_for(kind: str, n: int, share: float):
    """The VaultSpec of a `kind` vault ("planted" or "template") of `n` files."""
    from reme_lab.generator import VaultSpec
    from reme_lab.template_notes import pages_for

    if kind == "planted":
        pairs = max(1, int(n * share))
        return VaultSpec(notes=n, duplicates=pairs, near_misses=pairs, seed=7)
    plugins = int(n * TEMPLATE_SHARE)
    plugin_pairs = max(1, int(plugins * share))
    pairs = max(1, int((n - pages_for(plugins)) * share))
    return VaultSpec(notes=n, duplicates=pairs, near_misses=pairs, across=pairs // 3,
                     templated=plugins, templated_duplicates=plugin_pairs,
                     templated_near_misses=plugin_pairs, seed=7)


def bench(kind: str, n: int, share: float, embedder: str, timeout: float) -> tuple[dict, float]:
    from reme_lab.generator import generate_vault

    with tempfile.TemporaryDirectory(prefix=f"reme-bench-merge-{kind}-{n}-") as tmp:
        t0 = time.perf_counter()
        made = generate_vault(Path(tmp) / "vault", spec_for(kind, n, share))
        generated = time.perf_counter() - t0
        root, truth = made.root, made.truth_path
        del made
        gc.collect()
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(root), str(truth),
               embedder]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if done.returncode:
            raise SystemExit(f"the run of the {kind} vault at {n} notes failed:\n{done.stderr}")
        return json.loads(done.stdout.strip().splitlines()[-1]), generated


def ratio(a: int, b: int) -> str:
    return "-" if not b else f"{a / b:.2f}"


def report(kind: str, n: int, r: dict, generated: float) -> list[tuple[str, bool]]:
    """Print one vault's figures; returns (verdict, passed) for each target it measured."""
    print(f"\n{kind} vault, {n} notes (generated in {generated:.1f} s): {r['planted']} planted "
          f"pairs, {r['near_misses']} near misses; scan {r['scan']:.2f} s, communities "
          f"{r['communities']:.2f} s ({r['found_communities']} found, {r['planted_communities']} "
          f"planted, NMI {r['nmi']:.2f}); planted pairs in one community "
          f"{r['together']}/{r['planted']}", flush=True)
    if "candidates" not in r:
        print(f"  NOT MEASURED: {CANDIDATES} missing (candidates, votes)")
        return []
    verdicts = []
    recall = r["mined_planted"] / r["planted"] if r["planted"] else 1.0
    print(f"  candidates {r['candidates']} (+ {r['distinct']} distinct: identifiers differ): "
          f"recall {recall:.2f} ({r['mined_planted']}/{r['planted']}), precision "
          f"{ratio(r['mined_planted'], r['candidates'])}; near misses mined {r['mined_near']}/"
          f"{r['near_misses']}, of which called distinct {r['near_distinct']}; planted pairs "
          f"called distinct {len(r['planted_called_distinct'])}", flush=True)
    for example in r["distinct_examples"]:
        print(f"    distinct: {example[0]}  +  {example[1]}: {example[2]}")
    for example in r["planted_called_distinct"][:3]:
        print(f"    PLANTED BUT CALLED DISTINCT: {example[0]}  +  {example[1]}: {example[2]}")
    print(f"  mining {r['mining']:.2f} s ({r['mining_cpu']:.2f} s CPU) with {r['embedder']} and "
          f"the index (embedding {r['mining_texts']} texts {r['mining_embed']:.2f} s); untimed: "
          f"model load {r['model_load']:.2f} s, index build {r['index_build']:.1f} s "
          f"({r['index_texts']} texts embedded)", flush=True)
    verdicts.append((f"{kind} {n}: candidate recall {recall:.2f} (>= {TARGET_RECALL})",
                     recall >= TARGET_RECALL))
    if n == TARGET_MINING_N:
        verdicts.append((f"{kind} {n}: mining {r['mining']:.1f} s with {r['embedder']} and the "
                         f"index (< {TARGET_MINING_S:.0f} s)", r["mining"] < TARGET_MINING_S))
    if "proposed" not in r:
        print(f"  NOT MEASURED: {OFFLINE} missing (votes)")
        return verdicts
    wrong = r["proposed"] - r["proposed_planted"]
    found = r["reported_planted"] / r["planted"] if r["planted"] else 1.0
    print(f"  merge run (dry, offline brain, {r['votes']:.1f} s): {r['proposed']} proposals "
          f"(precision {ratio(r['proposed_planted'], r['proposed'])}, recall "
          f"{ratio(r['proposed_planted'], r['planted'])}), {r['uncertain']} uncertain, "
          f"{r['run_distinct']} distinct, {r['skipped_in_run']} skipped, "
          f"{len(r.get('rejected_in_run', []))} rejected by their checks; planted duplicates "
          f"proposed or reported {found:.2f} ({r['reported_planted']}/{r['planted']})")
    print(f"  merge proposals for a distinct pair: {wrong} ({r['proposed_near']} near misses)")
    for reason in r.get("rejected_in_run", [])[:3]:
        print(f"    rejected: {reason}")
    if r["distinct_by_kind"]:
        print("    by kind: " + ", ".join(f"{k} {v}" for k, v in r["distinct_by_kind"]))
    for item in r["distinct_proposed"][:5]:
        print(f"    distinct but proposed: {item['pair'][0]}  +  {item['pair'][1]} "
              f"(communities {' / '.join(item['communities'])}): " + " | ".join(item["votes"]))
    print("  by kind (planted: mined / proposed / proposed or reported): " + "; ".join(
        f"{k} {v[0]}: {v[1]}/{v[2]}/{v[3]}" for k, v in sorted(r["by_kind"].items())))
    verdicts.append((f"{kind} {n}: {wrong} merge proposals for distinct pairs (0)", wrong == 0))
    verdicts.append((f"{kind} {n}: planted duplicates proposed or reported {found:.2f} "
                     f"(>= {TARGET_REPORTED})", found >= TARGET_REPORTED))
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated note counts")
    parser.add_argument("--vaults", default="planted,template",
                        help="which vaults: planted, template or both (comma-separated)")
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
    kinds = [k.strip() for k in args.vaults.split(",") if k.strip()]
    if not set(kinds) <= {"planted", "template"}:
        parser.error("--vaults takes planted, template or both")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), load average "
          f"{os.getloadavg()[0]:.1f}; embedder {args.embedder}; {args.pairs:g} duplicate and "
          f"{args.pairs:g} near-miss pairs per note; {datetime.now(UTC):%Y-%m-%d}")
    verdicts: list[tuple[str, bool]] = []
    not_measured: set[str] = set()
    for n in sizes:
        for kind in kinds:
            r, generated = bench(kind, n, args.pairs, args.embedder, args.timeout)
            not_measured.update(r["missing"])
            verdicts += report(kind, n, r, generated)
    print()
    print(f"targets: candidate recall >= {TARGET_RECALL}, no merge proposal for a distinct pair, "
          f"planted duplicates proposed or reported >= {TARGET_REPORTED}, mining at 10k < "
          f"{TARGET_MINING_S:.0f} s")
    for module in sorted(not_measured):
        print(f"NOT MEASURED: {module} missing")
    print("\n".join(f"{v} {'PASS' if ok else 'MISS'}" for v, ok in verdicts)
          if verdicts else "(nothing with a target was measured)")
    return 0 if all(ok for _, ok in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
