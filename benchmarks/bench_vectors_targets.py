"""Issue #32's targets for vectors, against a baseline of the code in the same run.

    python benchmarks/bench_vectors_targets.py [--notes 10000] [--baseline 2cc7778]
        [--embedder auto] [--conversations 0-4] [--course-notes 1000]
        [--only cold,rename,locomo,consolidate] [--json FILE]

The same steps run twice, each in its own process: with this checkout ("now") and with
the code of `--baseline REF` (default 2cc7778, where issue #32's work on the embedder
branched off), exported by `git archive` into a temporary folder and put first on
PYTHONPATH. `--embedder` is passed to both as given, so `auto` (the default) is each
side's own default embedder. Printed per step: both sides' figures, now / baseline, and
whether now meets the target:

1. cold — a cold index of `--notes` generated digest notes (bench_index.py's generator:
   150-250 words each, 8 links) with the embedder: wall and CPU seconds, texts and
   tokens embedded (the embedder's word pieces when it has a tokenizer, else an
   estimate), tokens per second of wall time and per CPU-second (what a loaded machine
   does not change). Target: <= 300 s for 10,000 notes on 2 cores (scaled to
   `--notes`);
2. rename — a folder of 100 of those notes renamed, then a refresh: the texts sent to
   the embedder, counted by `index/metered.py`'s MeteredEmbedder. Target: 0;
3. locomo — LoCoMo conversations `--conversations` (benchmarks/locomo_recall.py's
   set-up: a vault per conversation, recall scope sources, k 10, fused), session
   recall@5 and MRR. Target: within 0.005 of the baseline's; skipped, and said so,
   without the data in ../shared/data/locomo/;
4. consolidate — a `--course-notes` course vault (reme_lab/course_vault.py), through
   the CLI as a person runs it: `init`, `import`, `index` (the vectors) and the first
   `consolidate`. Target: the vectors of a 1,000-note imported vault (its `index`)
   <= 120 s (scaled to `--course-notes`); `consolidate` is printed beside it.

CPU seconds are the processes' own (user + system, every thread), so a loaded machine
shows in wall time, not in them. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parents[1]
STEPS = ("cold", "rename", "locomo", "consolidate")
DEFAULT_BASELINE = "2cc7778"
COLD_TARGET_S_PER_10K = 300.0
VECTORS_TARGET_S_PER_1K = 120.0
RECALL_TOLERANCE = 0.005
RENAMED = 100  # notes in the renamed folder
LOCOMO = REPO.parent / "shared" / "data" / "locomo" / "locomo10_conv0-4.json"
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|\w+|[^\w\s]")


# -- the worker: one side's steps, with the reme_workbench that PYTHONPATH gives ---------------


class TokenCount:
    """The embedder with the tokens of what it embeds counted (its tokenizer's word pieces,
    cut at its maximum length, when it has one; else words, marks and CJK characters)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.tokens = 0
        model = getattr(inner, "_model", None)
        self._ids = None
        if callable(model):
            ids = getattr(model(), "token_ids", None)
            self._ids = ids if callable(ids) else None
        self.unit = "word pieces" if self._ids is not None else "approx. tokens"

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def embed(self, texts):
        if self._ids is not None:
            self.tokens += sum(len(ids) for ids in self._ids(list(texts)))
        else:
            self.tokens += sum(len(_WORD.findall(t)) for t in texts)
        return self.inner.embed(texts)


def generated_vault(root: Path, notes: int) -> None:
    """bench_index.py's digest notes, the first RENAMED of them in digest/wiki/course/."""
    sys.path.insert(0, str(HERE.parent))
    from bench_index import BUCKETS, note_path, note_text

    rng = random.Random(11)
    for bucket in BUCKETS:
        (root / "digest" / bucket).mkdir(parents=True, exist_ok=True)
    for layer in ("daily", "resource", "meta", "audit"):
        (root / layer).mkdir(exist_ok=True)
    (root / "digest/wiki/course").mkdir()
    for i in range(notes):
        rel = note_path(i)
        if i < RENAMED:
            rel = f"digest/wiki/course/{rel.rsplit('/', 1)[1]}"
        (root / rel).write_text(note_text(i, notes, rng), encoding="utf-8")


def step_cold_and_rename(spec: str, notes: int, work: Path) -> tuple[dict, dict]:
    from reme_workbench.index.factory import get_embedder
    from reme_workbench.index.metered import MeteredEmbedder
    from reme_workbench.index.store import VaultIndex

    root = work / "generated"
    generated_vault(root, notes)
    embedder = get_embedder(spec)
    embedder.embed(["warm-up"])  # the model's load is not the index's cost
    counted = TokenCount(embedder)
    metered = MeteredEmbedder(counted)
    wall, cpu = time.perf_counter(), time.process_time()
    with VaultIndex(root, metered) as index:
        index.refresh()
        stats = index.stats()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    cold = {"embedder": embedder.name, "notes": notes, "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1), "texts": metered.texts, "tokens": counted.tokens,
            "unit": counted.unit, "tokens_per_s": round(counted.tokens / wall, 1),
            "tokens_per_cpu_s": round(counted.tokens / cpu, 1) if cpu else 0.0,
            "chunks": stats["chunks"]}
    (root / "digest/wiki/course").rename(root / "digest/wiki/lectures")
    metered = MeteredEmbedder(embedder)
    with VaultIndex(root, metered) as index:
        delta = index.refresh()
    rename = {"notes": RENAMED, "files_reindexed": len(delta.indexed), "texts": metered.texts}
    return cold, rename


def step_locomo(spec: str, conversations: list[int], work: Path) -> dict:
    if not LOCOMO.is_file():
        return {"skipped": f"no LoCoMo data at {LOCOMO}"}
    from reme_lab import locomo
    from reme_workbench.index.factory import get_embedder

    embedder = get_embedder(spec)
    samples = locomo.load_conversations(LOCOMO)
    rankings: dict = {}
    questions = []
    wall, cpu = time.perf_counter(), time.process_time()
    for i in conversations:
        run = locomo.run_conversation(samples[i], work / f"locomo{i}", embedder, ("fused",), k=10)
        rankings.update(run.rankings["fused"])
        questions += run.questions
    score = locomo.score_rankings(rankings, questions)["all"]
    return {"embedder": embedder.name, "questions": score.n, "recall5": round(score.recall5, 4),
            "mrr": round(score.mrr, 4), "wall_s": round(time.perf_counter() - wall, 1),
            "cpu_s": round(time.process_time() - cpu, 1)}


def _cli(args: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one `reme-workbench` command in a child process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "reme_workbench", *args], capture_output=True,
                          text=True, env=env, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"`reme-workbench {' '.join(args)}` failed (exit {proc.returncode}):\n"
                         f"{proc.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def step_consolidate(spec: str, notes: int, work: Path) -> dict:
    from reme_lab.course_vault import write_course_vault

    source, vault = work / "course-vault", work / "reme"
    made = write_course_vault(source, notes=notes)
    _cli(["init", str(vault), "--json"])
    (vault / "reme.toml").write_text(f'[recall]\nembedder = "{spec}"\n', encoding="utf-8")
    out: dict = {"notes": made.notes}
    for name in ("import", "index", "consolidate"):
        extra = [str(source)] if name == "import" else []
        wall, cpu = _cli(["--vault", str(vault), name, *extra, "--json"])
        out[name] = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}
    return out


def worker(args: argparse.Namespace) -> None:
    import reme_workbench

    out: dict = {"code": str(Path(reme_workbench.__file__).resolve().parent.parent)}
    with tempfile.TemporaryDirectory(prefix="reme-targets-") as tmp:
        work = Path(tmp)
        if "cold" in args.only or "rename" in args.only:
            out["cold"], out["rename"] = step_cold_and_rename(args.embedder, args.notes, work)
        if "locomo" in args.only:
            out["locomo"] = step_locomo(args.embedder, parse_range(args.conversations), work)
        if "consolidate" in args.only:
            out["consolidate"] = step_consolidate(args.embedder, args.course_notes, work)
    print(json.dumps(out))


# -- the driver -----------------------------------------------------------------------------


def parse_range(spec: str) -> list[int]:
    """"0-4" / "0,2,3" -> sorted indexes."""
    out: set[int] = set()
    for part in filter(None, (p.strip() for p in spec.split(","))):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return sorted(out)


def export_baseline(ref: str, into: Path) -> Path:
    """The tree of `ref` (its reme_workbench and benchmarks) written under `into`."""
    archive = into / "baseline.tar"
    proc = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", "-o", str(archive),
                           ref, "reme_workbench", "benchmarks"], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"cannot export --baseline {ref!r} ({proc.stderr.strip()}); give a "
                         "commit of this repository, e.g. --baseline 2cc7778.")
    tree = into / "baseline"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    archive.unlink()
    return tree


def run_side(code: Path, args: argparse.Namespace) -> dict:
    """One side's figures: this script's worker with `code` first on the import path."""
    env = dict(os.environ, PYTHONPATH=str(code), LITELLM_LOCAL_MODEL_COST_MAP="True")
    cmd = [sys.executable, str(HERE), "--worker", "--embedder", args.embedder,
           "--notes", str(args.notes), "--conversations", args.conversations,
           "--course-notes", str(args.course_notes), "--only", ",".join(args.only)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=code)
    if proc.returncode:
        raise SystemExit(f"the run with the code in {code} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def ratio(now: float, base: float) -> str:
    return f"{now / base:.2f}x" if base else "-"


def _unmeasured(side: dict) -> dict:
    """The figures of a step the baseline did not run (`--baseline none`): every number 0,
    printed as such, and no ratio."""
    return {k: (_unmeasured(v) if isinstance(v, dict) else ("not run" if isinstance(v, str) else 0))
            for k, v in side.items()}


def report(now: dict, base: dict, args: argparse.Namespace) -> bool:
    """Print both sides and the targets; True when every target measured is met."""
    ok = True
    if not base:
        base = {step: _unmeasured(now[step]) for step in now if isinstance(now[step], dict)}
        if "locomo" in now:  # its target is a comparison: nothing to compare with
            base["locomo"] = {"skipped": "no baseline (--baseline none)"}
    if "cold" in now:
        n, b = now["cold"], base["cold"]
        target = COLD_TARGET_S_PER_10K * args.notes / 10_000
        met = n["wall_s"] <= target
        ok &= met
        print(f"cold index of {args.notes:,} notes ({n['chunks']:,} chunks), embedder now "
              f"{n['embedder']}, baseline {b['embedder']}:")
        for key, label in (("wall_s", "wall s"), ("cpu_s", "CPU s"), ("texts", "texts embedded"),
                           ("tokens", f"{n['unit']} embedded"), ("tokens_per_s", "tokens/s"),
                           ("tokens_per_cpu_s", "tokens per CPU-s")):
            print(f"  {label:<22} {n[key]:>12,} {b[key]:>12,}   {ratio(n[key], b[key])}")
        print(f"  target: <= {target:.0f} s wall -> {'met' if met else 'MISSED'}\n")
    if "rename" in now:
        n, b = now["rename"], base["rename"]
        met = n["texts"] == 0
        ok &= met
        print(f"rename of a folder of {RENAMED} notes: texts sent to the embedder now "
              f"{n['texts']:,}, baseline {b['texts']:,} ({n['files_reindexed']} files "
              f"re-indexed); target 0 -> {'met' if met else 'MISSED'}\n")
    if "locomo" in now:
        n, b = now["locomo"], base["locomo"]
        if "skipped" in n or "skipped" in b:
            print(f"LoCoMo: skipped ({n.get('skipped') or b.get('skipped')})\n")
        else:
            met = (abs(n["recall5"] - b["recall5"]) < RECALL_TOLERANCE
                   and abs(n["mrr"] - b["mrr"]) < RECALL_TOLERANCE)
            ok &= met
            print(f"LoCoMo conversations {args.conversations} ({n['questions']} questions, "
                  f"fused, k 10), now {n['embedder']} / baseline {b['embedder']}:")
            print(f"  recall@5 {n['recall5']:.3f} / {b['recall5']:.3f}   MRR {n['mrr']:.3f} / "
                  f"{b['mrr']:.3f}   indexing and recall {n['wall_s']:.0f} / {b['wall_s']:.0f} s "
                  f"wall, {n['cpu_s']:.0f} / {b['cpu_s']:.0f} CPU-s")
            print(f"  target: within {RECALL_TOLERANCE} -> {'met' if met else 'MISSED'}\n")
    if "consolidate" in now:
        n, b = now["consolidate"], base["consolidate"]
        target = VECTORS_TARGET_S_PER_1K * args.course_notes / 1000
        met = n["index"]["wall_s"] <= target
        ok &= met
        print(f"an imported course vault of {n['notes']:,} notes, through the CLI (now / "
              "baseline):")
        for name in ("import", "index", "consolidate"):
            print(f"  {name:<12} wall {n[name]['wall_s']:>7.1f} / {b[name]['wall_s']:>7.1f} s "
                  f"({ratio(n[name]['wall_s'], b[name]['wall_s'])})   CPU "
                  f"{n[name]['cpu_s']:>7.1f} / {b[name]['cpu_s']:>7.1f} s")
        print(f"  target: its vectors (index) <= {target:.0f} s wall -> "
              f"{'met' if met else 'MISSED'}\n")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=10_000, help="notes of the cold index")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="the commit to compare with, or none to measure this code only")
    ap.add_argument("--embedder", default="auto", help="embedder spec for both sides")
    ap.add_argument("--conversations", default="0-4", help="LoCoMo conversations, e.g. 0-4")
    ap.add_argument("--course-notes", type=int, default=1000,
                    help="notes of the imported course vault")
    ap.add_argument("--only", default=",".join(STEPS), help="a subset of " + ",".join(STEPS))
    ap.add_argument("--json", type=Path, help="write both sides' figures here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    if unknown := set(args.only) - set(STEPS):
        ap.error(f"unknown step(s) {', '.join(sorted(unknown))}; use {', '.join(STEPS)}")
    if args.notes < RENAMED or args.course_notes < 1:
        ap.error(f"--notes must be at least {RENAMED} and --course-notes at least 1")
    if args.worker:
        worker(args)
        return 0
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), load "
          f"{os.getloadavg()[0]:.1f}; baseline {args.baseline}, embedder {args.embedder}, "
          f"steps {', '.join(args.only)}\n", flush=True)
    with tempfile.TemporaryDirectory(prefix="reme-targets-base-") as tmp:
        start = time.perf_counter()
        now = run_side(REPO, args)
        print(f"(now: {time.perf_counter() - start:.0f} s)", flush=True)
        base: dict = {}
        # `--baseline none` measures this code only: the absolute targets, no ratios (a
        # cold 10k index of the old float encoder alone takes ~2,000 CPU-s).
        if args.baseline != "none":
            base_code = export_baseline(args.baseline, Path(tmp))
            start = time.perf_counter()
            base = run_side(base_code, args)
            print(f"(baseline: {time.perf_counter() - start:.0f} s)\n", flush=True)
    print(f"now: the code in {now['code']}; baseline: {args.baseline}"
          + (f", in {base['code']}\n" if base else " (not run)\n"))
    ok = report(now, base, args)
    if args.json:
        args.json.write_text(json.dumps({"now": now, "baseline": base, "args": {
            k: v for k, v in vars(args).items() if k not in ("json", "worker")}}, indent=2),
            encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
