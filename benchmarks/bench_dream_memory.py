"""Does dream keep what people later ask about? LoCoMo conversations, dreamt, asked.

    python benchmarks/bench_dream_memory.py [--conversations 0-4] [--embedder minilm]
        [--work DIR] [--json FILE] [--show N]

For each LoCoMo conversation in ../shared/data/locomo/ (CC BY-NC: read at run time, never
copied into the repository):

1. a fresh vault, each session a daily file as a person would keep a chat
   (`daily/<session date>/<id>-session-<n>.md`, `**Name:** text` lines, image captions in
   brackets; `experiments/locomo.py`, layout "chat");
2. `reme-workbench dream --json` through the CLI (the offline brain, the default), timed;
3. every question with evidence asked through the CLI, `recall --queries FILE --scope S
   -k 10 --json`, for S = `digest` (the organised layer alone), `all` (digest and logs) and
   `sources` (the raw logs' own figure); each hit traced to sessions by provenance
   (`locomo.ranked_sessions`: a session file is its session; a digest note stands for the
   sessions its `derived_from::` links name, those on the hit's matched lines first);
4. session recall@5 and MRR (top 10) against the sessions the evidence names; notes
   written, the share of notes named from a reaction (`dream_quality.reaction_name`),
   digest tokens per material token, units per session, dream time;
5. how far the digest can lift the raw logs at all: `digest` and `sources` asked again
   with `-k 30`, each digest hit traced to its matched lines' sessions alone, and the two
   session rankings fused — weighted reciprocal rank fusion over a grid (the best setting
   pooled, and the first conversation's best setting on the others) and the raw logs'
   top four with the digest's best new session fifth (`locomo.fuse_rrf`, `one_slot_for`).

Targets: digest recall@5 >= 0.60; `all` above `sources`; notes named from a reaction 0.
Exit status 1 when one is missed. The data folder absent: the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reme_workbench.experiments.dream_quality import reaction_name  # noqa: E402
from reme_workbench.experiments.locomo import (  # noqa: E402
    HEADLINE,
    fuse_rrf,
    load_conversations,
    one_slot_for,
    questions,
    ranked_sessions,
    recall_at,
    reciprocal_rank,
    score_rankings,
    session_numbers,
    write_vault,
)
from reme_workbench.index.chunking import estimate_tokens  # noqa: E402
from reme_workbench.vault.note import parse  # noqa: E402
from reme_workbench.vault.vault import init_vault  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo10_conv0-4.json"
SCOPES = ("digest", "all", "sources")
TARGETS = {"digest_recall5": 0.60, "reaction_share": 0.0}


def cli(root: Path, *args: str) -> str:
    """One reme-workbench command on the vault at `root`, as a person runs it."""
    run = subprocess.run([sys.executable, "-m", "reme_workbench", "--vault", str(root), *args],
                         capture_output=True, text=True, env={**_env()})
    if run.returncode != 0:
        raise SystemExit(f"reme-workbench {' '.join(args[:2])} failed ({run.returncode}):\n"
                         f"{run.stderr[-2000:]}")
    return run.stdout


def _env() -> dict:
    import os

    return {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def conversation(sample: dict, work: Path, embedder: str) -> dict:
    sid = str(sample.get("sample_id"))
    root = work / sid
    init_vault(root)
    files = write_vault(root, sample, layout="chat")
    material_tokens = sum(estimate_tokens((root / rel).read_text("utf-8")) for rel in files)
    t0 = time.perf_counter()
    report = json.loads(cli(root, "dream", "--json", "--embedder", embedder))
    dream_s = time.perf_counter() - t0
    digest = sorted(p.relative_to(root).as_posix() for p in (root / "digest").rglob("*.md"))
    digest_tokens = sum(estimate_tokens(parse((root / p).read_text("utf-8"), p).body) for p in digest)
    qs = questions(sample)
    qfile = root.parent / f"{sid}-questions.jsonl"
    qfile.write_text("".join(json.dumps({"id": q.qid, "query": q.text}) + "\n" for q in qs), "utf-8")

    def read(rel: str) -> str | None:
        try:
            return (root / rel).read_text("utf-8")
        except OSError:
            return None

    scores, latency = {}, {}
    for scope in SCOPES:
        t1 = time.perf_counter()
        out = cli(root, "recall", "--queries", str(qfile), "--scope", scope, "-k", "10",
                  "--json", "--embedder", embedder)
        latency[scope] = (time.perf_counter() - t1) / max(1, len(qs))
        rankings = {}
        for line in out.splitlines():
            if line.strip():
                row = json.loads(line)
                rankings[row["id"]] = ranked_sessions(row["hits"], read)
        scores[scope] = score_rankings(rankings, qs)
    pairs = {}  # question -> (raw sessions, digest's matched sessions), 30 hits each
    for scope in ("sources", "digest"):
        out = cli(root, "recall", "--queries", str(qfile), "--scope", scope, "-k", "30",
                  "--json", "--embedder", embedder)
        for line in out.splitlines():
            if line.strip():
                row = json.loads(line)
                pairs.setdefault(row["id"], []).append(ranked_sessions(row["hits"], read, rest=False))
    names = [Path(p).stem for p in digest]
    outcomes = report["outcomes"]
    return {
        "sample_id": sid, "sessions": len(session_numbers(sample["conversation"])),
        "questions": len(qs), "notes": len(digest), "names": names,
        "reaction_names": [n for n in names if reaction_name(n)],
        "units": len(outcomes),
        "created": sum(o["action"] == "CREATE" for o in outcomes),
        "corroborated": sum(o["flavor"] == "CORROBORATE" for o in outcomes),
        "set_aside": len(report.get("set_aside", [])),
        "material_tokens": material_tokens, "digest_tokens": digest_tokens,
        "dream_s": dream_s, "scores": scores, "recall_s": latency, "root": str(root),
        "pairs": [(pairs[q.qid][0], pairs[q.qid][1], q.sessions) for q in qs if q.qid in pairs],
    }


GRID = [(k, w) for k in (1, 5, 20, 60) for w in (0.2, 0.35, 0.5, 1.0)]


def _scored(rows, rank) -> tuple[float, float]:
    """Pooled recall@5 and MRR (top 10) of `rank(raw, digest)` over (raw, digest, evidence)."""
    if not rows:
        return 0.0, 0.0
    ranked = [(rank(raw, dig), ev) for raw, dig, ev in rows]
    return (statistics.fmean(recall_at(r, ev, 5) for r, ev in ranked),
            statistics.fmean(reciprocal_rank(r[:10], ev) for r, ev in ranked))


def fusion_ceiling(runs: list[dict]) -> dict:
    """How far fusing the digest's session ranking into the raw logs' can go (step 5)."""
    rows = [row for r in runs for row in r["pairs"]]
    rest = [row for r in runs[1:] for row in r["pairs"]]
    raw = _scored(rows, lambda raw, dig: raw)
    grid = {(k, w): _scored(rows, lambda raw, dig, k=k, w=w: fuse_rrf(raw, dig, rrf_k=k, weight=w))
            for k, w in GRID}
    best = max(grid, key=lambda kw: grid[kw])
    first = max(GRID, key=lambda kw: _scored(runs[0]["pairs"], lambda raw, dig: fuse_rrf(
        raw, dig, rrf_k=kw[0], weight=kw[1])))
    missing = [(n, dig) for raw, dig, ev in rows for n in ev - set(raw[:5])]
    return {
        "raw": raw, "digest": _scored(rows, lambda raw, dig: dig),
        "top1_raw": statistics.fmean(bool(raw[:1]) and raw[0] in ev for raw, _, ev in rows),
        "top1_digest": statistics.fmean(bool(dig[:1]) and dig[0] in ev for _, dig, ev in rows),
        "missing": len(missing), "missing_in_digest5": sum(n in dig[:5] for n, dig in missing),
        "best": best, "best_scores": grid[best], "first_setting": first,
        "first_on_rest": _scored(rest, lambda raw, dig: fuse_rrf(
            raw, dig, rrf_k=first[0], weight=first[1])),
        "raw_on_rest": _scored(rest, lambda raw, dig: raw),
        "slot5": _scored(rows, lambda raw, dig: one_slot_for(raw, dig, slot=5)),
        "slot1": _scored(rows, lambda raw, dig: one_slot_for(raw, dig, slot=1)),
    }


def pooled(runs: list[dict], scope: str, group: str = "all") -> tuple[float, float, int]:
    rows = [row for r in runs if group in r["scores"][scope]
            for row in r["scores"][scope][group].per_question]
    if not rows:
        return 0.0, 0.0, 0
    return statistics.fmean(r[0] for r in rows), statistics.fmean(r[4] for r in rows), len(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--conversations", default="0-4", help="indices, e.g. 0-4 or 0,2")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--work", help="keep the vaults here (default: a temporary folder)")
    ap.add_argument("--json", dest="json_out", help="write the figures to this file")
    ap.add_argument("--show", type=int, default=0, help="print N note names per conversation")
    args = ap.parse_args(argv)
    if not DATA.is_file():
        print(f"LoCoMo data not found at {DATA}: nothing to measure.")
        return 0
    samples = load_conversations(DATA)
    spec = args.conversations
    if "-" in spec:
        a, b = spec.split("-")
        chosen = list(range(int(a), int(b) + 1))
    else:
        chosen = [int(x) for x in spec.split(",")]
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-dream-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    runs = []
    for i in chosen:
        r = conversation(samples[i], work, args.embedder)
        runs.append(r)
        d5, dm, n = pooled([r], "digest")
        print(f"{r['sample_id']}: {r['sessions']} sessions, {r['notes']} notes "
              f"({r['created']} created, {r['corroborated']} corroborations, "
              f"{r['units'] / r['sessions']:.1f} units/session), digest/material tokens "
              f"{r['digest_tokens'] / r['material_tokens']:.2f}, dream {r['dream_s']:.0f} s; "
              f"digest recall@5 {d5:.3f} MRR {dm:.3f} ({n} questions)", flush=True)
        for name in r["names"][: args.show]:
            print(f"    {name}")
    sessions = sum(r["sessions"] for r in runs)
    notes = sum(r["notes"] for r in runs)
    reactions = [n for r in runs for n in r["reaction_names"]]
    share = len(reactions) / notes if notes else 0.0
    print(f"\n{len(runs)} conversations, {sessions} sessions, "
          f"{sum(r['questions'] for r in runs)} questions, embedder {args.embedder}")
    print(f"{'scope':<10}{'recall@5':>10}{'MRR':>8}   {'recall@5 (1-4)':>15}")
    figures = {}
    for scope in SCOPES:
        r5, mrr, _ = pooled(runs, scope)
        h5, hm, _ = pooled(runs, scope, HEADLINE)
        figures[scope] = {"recall@5": r5, "mrr": mrr, "recall@5 (1-4)": h5, "mrr (1-4)": hm}
        label = "sources" if scope == "sources" else scope
        print(f"{label:<10}{r5:>10.3f}{mrr:>8.3f}   {h5:>15.3f}")
    material = sum(r["material_tokens"] for r in runs)
    digest = sum(r["digest_tokens"] for r in runs)
    print(f"notes written {notes} ({notes / sessions:.1f} per session), "
          f"units {sum(r['units'] for r in runs) / sessions:.1f} per session; "
          f"named from a reaction {len(reactions)} ({share:.1%})"
          + (f": {', '.join(reactions[:8])}" if reactions else ""))
    print(f"digest / material tokens {digest:,} / {material:,} = {digest / material:.2f}; "
          f"dream {sum(r['dream_s'] for r in runs):.0f} s "
          f"({sum(r['dream_s'] for r in runs) / sessions:.2f} s per session)")
    c = fusion_ceiling(runs)
    print("\nhow far the digest can lift the raw logs (30 hits each, a digest hit traced to its "
          "matched lines' sessions; recall@5 / MRR):")
    print(f"  raw logs {c['raw'][0]:.3f} / {c['raw'][1]:.3f}; digest {c['digest'][0]:.3f} / "
          f"{c['digest'][1]:.3f}; top hit right: raw {c['top1_raw']:.3f}, digest "
          f"{c['top1_digest']:.3f}")
    print(f"  evidence sessions missing from the raw logs' top five: {c['missing']}, "
          f"of them in the digest's top five: {c['missing_in_digest5']}")
    print(f"  best weighted RRF of {len(GRID)} (k, weight) settings: {c['best']} "
          f"{c['best_scores'][0]:.3f} / {c['best_scores'][1]:.3f}")
    if len(runs) > 1:
        print(f"  the first conversation's best setting {c['first_setting']} on the others: "
              f"{c['first_on_rest'][0]:.3f} / {c['first_on_rest'][1]:.3f} (raw logs there "
              f"{c['raw_on_rest'][0]:.3f} / {c['raw_on_rest'][1]:.3f})")
    print(f"  raw top four + the digest's best new session fifth: {c['slot5'][0]:.3f} / "
          f"{c['slot5'][1]:.3f}; the digest's best session first: {c['slot1'][0]:.3f} / "
          f"{c['slot1'][1]:.3f}")
    ok = {
        "digest recall@5 >= 0.60": figures["digest"]["recall@5"] >= TARGETS["digest_recall5"],
        "all above the raw logs": figures["all"]["recall@5"] > figures["sources"]["recall@5"],
        "no note named from a reaction": share <= TARGETS["reaction_share"],
    }
    for what, met in ok.items():
        print(f"  {'met ' if met else 'MISSED'}  {what}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({
            "figures": figures, "notes": notes, "sessions": sessions, "reaction_names": reactions,
            "digest_tokens": digest, "material_tokens": material,
            "dream_s": sum(r["dream_s"] for r in runs), "targets": ok,
            "fusion_ceiling": {k: list(v) if isinstance(v, tuple) else v for k, v in c.items()},
            "per_conversation": [{k: v for k, v in r.items() if k not in ("scores", "names", "pairs")}
                                 for r in runs],
        }, indent=2), "utf-8")
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
