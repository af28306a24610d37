"""LoCoMo session-level retrieval benchmark for recall (keyword, vector, fused).

    python benchmarks/locomo_recall.py [--conversations 0-4] [--modes keyword,vector,fused]
                                       [--workdir DIR] [--embedder minilm] [--per-conversation]
                                       [--embed-windows all|cover] [--embed-context every|none]
                                       [--window-lines 3] [--window-step 1] [--max-tokens 256]

Each LoCoMo conversation becomes its own vault (one daily file per session, see
reme_lab/locomo.py); the vault is indexed with VaultIndex and every
question with evidence runs through `recall_batch` (scope "sources", k=10, no access
log). A question's ground truth is the set of sessions its evidence ids name.

Printed per mode, overall ("all"), without the adversarial questions ("1-4", the
headline group of basic-memory's LoCoMo benchmark) and per category (1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop, 5 adversarial):

* R@k    — recall@k, the standard definition (and basic-memory's): the fraction of the
           question's evidence sessions found in the top k, averaged over questions;
* hit@k  — the lenient one: share of questions with ANY evidence session in the top k
           (equal to R@k for the ~84 % of questions with one evidence session; they
           differ on multi-hop questions, whose evidence spans 2-9 sessions);
* MRR    — mean of 1 / rank of the first evidence session in the top 10 (0 if none);
* p50/p95 latency of one recall call (query embedding included) after indexing;
* the texts and tokens a cold index of the vaults embeds (MiniLM's word pieces).

The chunk-rule flags (benchmarks/embed_rules.py, `chunking.ChunkRules`) run a variant of
what the index embeds, to measure a cut (issue #32 item 2); their defaults are the
index's. A `--workdir` indexed under other rules is re-chunked, and its vector cache
embeds only the texts it has not seen: copy a baseline's workdir to measure a cut of it
at the cost of its new texts alone.

Targets (the "Index and recall" issue): fused recall@5 >= 0.92 and MRR >= 0.85 on
conversations 0-4, p50 latency < 30 ms. `--workdir` keeps the vaults and their indexes
so a second run re-embeds nothing; without it a temporary folder is used and removed.
The data (CC BY-NC 4.0) is read from ../shared/data/locomo/; when it is absent the
script says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # embed_rules

from embed_rules import EmbeddedTokens, add_rule_flags, embedded_tokens, rules_from  # noqa: E402

from reme_lab import locomo  # noqa: E402
from reme_workbench.index.chunking import DEFAULT_RULES, ChunkRules  # noqa: E402
from reme_workbench.index.factory import get_embedder  # noqa: E402
from reme_workbench.index.recall import MODES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo10_conv0-4.json"
TARGET_RECALL5, TARGET_MRR, TARGET_P50_MS = 0.92, 0.85, 30.0
K = 10
GROUPS = ("all", locomo.HEADLINE, *locomo.CATEGORIES.values())


def parse_range(spec: str) -> list[int]:
    """"0-4" / "0,2,3" / "1" → sorted conversation indexes."""
    out: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return sorted(out)


def fmt_table(title: str, scores: dict[str, locomo.Scores]) -> str:
    lines = [title, f"  {'group':<12} {'n':>4}  {'R@5':>5}  {'R@10':>5}  {'hit@5':>5}  "
                    f"{'hit@10':>6}  {'MRR':>5}"]
    for g in GROUPS:
        s = scores.get(g)
        if s is None or not s.n:
            continue
        lines.append(f"  {g:<12} {s.n:>4}  {s.recall5:5.3f}  {s.recall10:5.3f}  {s.hit5:5.3f}  "
                     f"{s.hit10:6.3f}  {s.mrr:5.3f}")
    return "\n".join(lines)


def run_conversation(sample, root: Path, embedder, modes, *, rebuild: bool, fusion: str,
                     rules: ChunkRules = DEFAULT_RULES
                     ) -> tuple[locomo.ConversationRun, EmbeddedTokens]:
    """`locomo.run_conversation` with the index under `rules`, and what its index embeds."""
    embedded: list[EmbeddedTokens] = []
    run = locomo.run_conversation(sample, root, embedder, modes, k=K, rebuild=rebuild,
                                  fusion=fusion, rules=rules,
                                  on_index=lambda index: embedded.append(
                                      embedded_tokens(index, embedder)))
    return run, embedded[0]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--conversations", default="0-4", help="indexes into the data file, e.g. 0-4 or 0,2")
    ap.add_argument("--modes", default="keyword,vector,fused")
    ap.add_argument("--workdir", type=Path, default=None,
                    help="keep vaults and indexes here (reused by the next run)")
    ap.add_argument("--embedder", default="minilm", help="embedder spec (minilm, e5, hashing, ...)")
    ap.add_argument("--rebuild", action="store_true", help="re-index from scratch")
    ap.add_argument("--fusion", default="rrf", choices=["rrf", "relative"],
                    help="how fused mode combines the lists (default: weighted RRF, k=60)")
    ap.add_argument("--per-conversation", action="store_true", help="also print each conversation")
    ap.add_argument("--json", type=Path, default=None, help="write the figures (and rankings) here")
    add_rule_flags(ap)
    args = ap.parse_args(argv)
    try:
        rules = rules_from(args)
    except ValueError as exc:
        ap.error(str(exc))

    if not args.data.is_file():
        print(f"LoCoMo data not found at {args.data}; skipping (see ../shared/data/SOURCES.md).")
        return 0
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad:
        ap.error(f"unknown mode(s) {bad}; choose from {', '.join(MODES)}")
    samples = locomo.load_conversations(args.data)
    wanted = parse_range(args.conversations)
    if not wanted or wanted[-1] >= len(samples):
        ap.error(f"--conversations must index into the {len(samples)} conversations of {args.data}")

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="locomo-recall-"))
    embedder = get_embedder(args.embedder)
    print(f"LoCoMo recall: {args.data.name}, conversations {args.conversations}, embedder "
          f"{embedder.name}, k={K}, scope sources, fusion {args.fusion}, chunk rules "
          f"{rules.key or 'the index default'}; vaults in {workdir}")
    results: list[locomo.ConversationRun] = []
    tokens: EmbeddedTokens | None = None
    t_start = time.perf_counter()
    cpu_start = time.process_time()
    try:
        for i in wanted:
            run, embedded = run_conversation(samples[i], workdir / f"conv{i}", embedder, modes,
                                             rebuild=args.rebuild, fusion=args.fusion, rules=rules)
            tokens = embedded if tokens is None else tokens + embedded
            print(f"  conv {i} ({run.sample_id}): {run.files} sessions, {run.chunks} chunks, "
                  f"{len(run.questions)} questions; refresh {run.index_s:.1f} s; embeds "
                  f"{embedded.texts:,} texts, {embedded.tokens:,} {embedded.unit}", flush=True)
            results.append(run)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)

    all_q = [q for r in results for q in r.questions]
    report: dict = {"data": args.data.name, "conversations": wanted, "embedder": embedder.name,
                    "rules": rules.key or "default", "modes": {},
                    "embedded": {"texts": tokens.texts, "tokens": tokens.tokens,
                                 "unit": tokens.unit}}
    print()
    for mode in modes:
        rankings = {qid: rk for r in results for qid, rk in r.rankings[mode].items()}
        scores = locomo.score_rankings(rankings, all_q)
        times = [t for r in results for t in r.latency_ms[mode]]
        p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
        print(fmt_table(f"[{mode}]  latency p50 {p50:.1f} ms, p95 {p95:.1f} ms", scores))
        entry = {"scores": {g: s.as_dict() for g, s in scores.items()},
                 "latency_ms": {"p50": p50, "p95": p95}, "per_conversation": {},
                 "rankings": rankings}
        for i, r in zip(wanted, results, strict=True):
            sc = locomo.score_rankings(r.rankings[mode], r.questions)["all"]
            entry["per_conversation"][i] = sc.as_dict()
            if args.per_conversation:
                print(f"    conv {i}: n={sc.n} R@5 {sc.recall5:.3f} R@10 {sc.recall10:.3f} "
                      f"hit@5 {sc.hit5:.3f} MRR {sc.mrr:.3f}")
        report["modes"][mode] = entry
        print()
    total = time.perf_counter() - t_start
    print(f"{len(all_q)} questions, {sum(r.index_s for r in results):.1f} s indexing, "
          f"{total:.1f} s in all ({time.process_time() - cpu_start:.1f} CPU-s); a cold index "
          f"embeds {tokens.texts:,} texts, {tokens.tokens:,} {tokens.unit}")
    ok = True
    if "fused" in modes:
        s = locomo.score_rankings(
            {qid: rk for r in results for qid, rk in r.rankings["fused"].items()}, all_q)["all"]
        p50 = report["modes"]["fused"]["latency_ms"]["p50"]
        ok = s.recall5 >= TARGET_RECALL5 and s.mrr >= TARGET_MRR and p50 < TARGET_P50_MS
        print(f"fused vs target: recall@5 {s.recall5:.3f} (>= {TARGET_RECALL5}), MRR {s.mrr:.3f} "
              f"(>= {TARGET_MRR}), p50 {p50:.1f} ms (< {TARGET_P50_MS:.0f}) -> "
              f"{'met' if ok else 'MISSED'}")
    if args.json:
        report["questions"] = {q.qid: {"text": q.text, "category": q.category,
                                       "sessions": sorted(q.sessions)} for q in all_q}
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
