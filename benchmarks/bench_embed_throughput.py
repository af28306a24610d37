"""Where MiniLM indexing time goes: the encoder's own limit, and a cold index refresh.

    python benchmarks/bench_embed_throughput.py [--sizes 1000[,10000]] [--threads N]
                                                [--encoder-tokens 8192] [--skip-encoder]

1. **The encoder's limit** (the numpy all-MiniLM-L6-v2 forward pass alone, on random
   token ids of fixed length, no tokenizer, no padding): tokens/s and chunks/s at 32,
   64, 128 and 256 tokens and batch sizes 1, 8, 32 and 64, run as the embedder runs it
   (its batches on `--threads` threads, default one per core, each with a single-threaded
   BLAS), beside the old way (batches one after another, numpy's BLAS on every core) at
   32 x 128, and the CPU seconds each burns: the figures behind index/blas.py.
2. **Padding.** The chunks of the vault below, embedded in input order in batches of 32
   (each padded to its longest) against the embedder's length-sorted batches: padded
   tokens and time.
3. **A cold refresh** (`reme-workbench index` on a vault with no `.reme/`: the same
   `VaultIndex.refresh()`) of N generated digest notes (bench_index.py's generator, as
   bench_first_answer.py: ~200 random words, links, a provenance line), MiniLM, with
   the time of each part: scan, read + chunk (plan), tokenisation, encoder forward
   (with padding), description vectors, DB writes (files, chunks and FTS5 in one
   transaction; the FTS5 insert alone replayed into an in-memory table), faiss add and
   write. Then notes/s against the encoder's limit for the same tokens (each embedded
   text at the rate of the fixed length it fits, batch 32): the share of the refresh
   the encoder's own work is.

Every figure is wall time on this machine as it is; other work running at the same
time slows it, so the load average is printed beside each part.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_index  # noqa: E402  (the generator of N digest notes)

from reme_workbench.index import blas, indexdb, store  # noqa: E402
from reme_workbench.index import minilm as M  # noqa: E402
from reme_workbench.index.keyword import FTS_SCHEMA  # noqa: E402
from reme_workbench.index.pending import embed_text  # noqa: E402
from reme_workbench.vault.scan import VaultScan  # noqa: E402

LENGTHS = (32, 64, 128, 256)
BATCHES = (1, 8, 32, 64)


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def model():
    return M._load("numpy", M.model_dir())


def _fixed(length: int, rows: int, rng: np.random.Generator):
    ids = rng.integers(1000, 30000, size=(rows, length))
    ids[:, 0], ids[:, -1] = 101, 102
    return ids, np.ones((rows, length), dtype=np.float32)


def timed_forward(batches, threads: int, old_way: bool = False) -> tuple[float, float]:
    """(wall s, CPU s) of the forward passes of `batches`, as the embedder runs them
    (`old_way`: one after another, numpy's BLAS threads as numpy set them)."""
    m = model()
    wall, cpu = time.perf_counter(), time.process_time()
    if old_way or threads == 1:
        for ids, mask in batches:
            m.forward(ids, mask)
    else:
        with blas.blas_threads(1):
            M.run_parallel(lambda b: m.forward(*b), list(batches), threads)
    return time.perf_counter() - wall, time.process_time() - cpu


def encoder_limit(threads: int, tokens: int) -> dict[int, tuple[float, float]]:
    """Tokens/s of the forward pass at each fixed length and batch size; returns {length:
    (tokens/s, tokens per CPU-s)} at batch 32 (what the refresh is held against)."""
    rng = np.random.default_rng(0)
    m = model()
    m.forward(*_fixed(16, 2, rng))  # weights paged in
    print(f"\n1. The encoder's limit: numpy forward pass on fixed-length inputs, {threads} "
          f"thread(s) x 1 BLAS thread (cores {blas.cpu_count()}, numpy BLAS threads "
          f"{blas.get_blas_threads()}), ~{tokens:,} tokens per cell")
    print(f"{'length':>6} {'batch':>5} {'tokens/s':>9} {'chunks/s':>9} {'tok/CPU-s':>10}  load")
    at32: dict[int, tuple[float, float]] = {}
    for length in LENGTHS:
        for b in BATCHES:
            n = max(threads, round(tokens / (length * b)))
            batches = [_fixed(length, b, rng) for _ in range(n)]
            wall, cpu = timed_forward(batches, threads)
            rate = n * b * length / wall
            if b == 32:
                at32[length] = (rate, n * b * length / max(cpu, 1e-9))
            print(f"{length:>6} {b:>5} {rate:>9,.0f} {n * b / wall:>9.1f} "
                  f"{n * b * length / max(cpu, 1e-9):>10,.0f}  {load()}", flush=True)
    batches = [_fixed(128, 32, rng) for _ in range(max(2, round(tokens / 4096)))]
    for label, old in (("the old way: sequential, numpy BLAS on every core", True),
                       (f"as the embedder runs it: {threads} thread(s), BLAS 1 each", False)):
        wall, cpu = timed_forward(batches, threads, old_way=old)
        toks = len(batches) * 4096
        print(f"  128 x 32, {label}: {toks / wall:,.0f} tokens/s, {toks / cpu:,.0f} per CPU-s "
              f"({load()})", flush=True)
    return at32


def texts_of(root: Path) -> list[str]:
    from reme_workbench.index.chunking import plan_file

    out = []
    for p in sorted(root.rglob("*.md")):
        rel = p.relative_to(root).as_posix()
        plan = plan_file(rel, p.read_text(encoding="utf-8"))
        out += [embed_text(c) for c in plan.chunks if c.ordinal in plan.embedded]
    return out


def padding(texts: list[str], threads: int, sample: int) -> None:
    """Input-order batches of 32 against the length-sorted ones, on a sample of texts."""
    m = model()
    picked = random.Random(4).sample(texts, min(sample, len(texts)))
    ids = m.token_ids(picked)
    lengths = [len(i) for i in ids]

    def make(groups):
        out = []
        for rows in groups:
            width = max(lengths[i] for i in rows)
            a = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.float32)
            for r, i in enumerate(rows):
                a[r, :lengths[i]] = ids[i]
                mask[r, :lengths[i]] = 1
            out.append((a, mask))
        return out

    real = sum(lengths)
    order = list(range(len(picked)))
    print(f"\n2. Padding: {len(picked)} of the vault's chunks ({real:,} tokens)")
    for label, groups in (("input order, batches of 32", [order[i:i + 32] for i in range(0, len(order), 32)]),
                          ("length-sorted (the embedder's)", M.length_batches(lengths, 32))):
        batches = make(groups)
        padded = sum(a.size for a, _ in batches)
        wall, _ = timed_forward(batches, threads)
        print(f"  {label}: {padded:,} positions ({100 * (padded - real) / padded:.1f} % padding), "
              f"{wall:.1f} s, {real / wall:,.0f} real tokens/s ({load()})", flush=True)


class Clock:
    """Wall time per part of a refresh, by wrapping the functions that do each part."""

    def __init__(self) -> None:
        self.t: Counter = Counter()
        self.n: Counter = Counter()
        self.where: list[str] = []

    @contextmanager
    def part(self, name: str):
        start = time.perf_counter()
        self.where.append(name)
        try:
            yield
        finally:
            self.where.pop()
            self.t[name] += time.perf_counter() - start

    def wrap(self, owner, attr: str, name: str, undo: list):
        real = getattr(owner, attr)

        def timed(*a, **k):
            with self.part(name):
                return real(*a, **k)

        setattr(owner, attr, timed)
        undo.append((owner, attr, real))


def cold_refresh(n: int, threads: int, at32: dict[int, float] | None, sample: int) -> None:
    import faiss

    tmp = Path(tempfile.mkdtemp(prefix=f"bench-embed-{n}-"))
    undo: list = []
    try:
        root = tmp / "vault"
        root.mkdir()
        bench_index.generate(root, n)
        texts = texts_of(root)
        if sample:
            padding(texts, threads, sample)
        emb = M.MiniLMEmbedder(backend="numpy", threads=threads)
        m = model()
        clock = Clock()
        stats = Counter()
        real_forward, real_embed, real_tokens = m.forward, m.embed, m.token_ids

        def forward(ids, mask):
            stats["positions"] += ids.size
            stats["tokens"] += int(mask.sum())
            return real_forward(ids, mask)

        def token_ids(batch):
            with clock.part("tokenise"):
                got = real_tokens(batch)
            stats["truncated"] += sum(len(i) >= M.MAX_SEQ_LENGTH for i in got)
            return got

        def embed(batch, *a):
            name = "embed descriptions" if "descriptions" in clock.where else "embed chunks"
            stats["texts " + name] += len(batch)
            with clock.part(name):
                return real_embed(batch, *a)

        m.forward, m.token_ids, m.embed = forward, token_ids, embed
        undo += [(m, "forward", real_forward), (m, "token_ids", real_tokens), (m, "embed", real_embed)]
        clock.wrap(store, "plan_file", "chunk (plan)", undo)
        clock.wrap(store.VaultIndex, "_read", "read files", undo)
        clock.wrap(VaultScan, "refresh", "scan", undo)
        clock.wrap(store.VaultIndex, "_embed_descriptions", "descriptions", undo)
        clock.wrap(store, "write_refresh", "DB writes (incl. FTS5)", undo)
        clock.wrap(store.VaultIndex, "_save_vectors", "faiss write", undo)
        clock.wrap(faiss.IndexIDMap2, "add_with_ids", "faiss add", undo)
        rows: list = []
        real_fts = indexdb.fts_rows

        def keep_fts(ids, chunks):
            got = list(real_fts(ids, chunks))
            rows.extend(got)
            return got

        indexdb.fts_rows = keep_fts
        undo.append((indexdb, "fts_rows", real_fts))

        before = os.getloadavg()[0]
        start, cpu = time.perf_counter(), time.process_time()
        with store.VaultIndex(root, emb, on_embedder_change="reembed") as idx:
            delta = idx.refresh()
        total, cpu = time.perf_counter() - start, time.process_time() - cpu
        mem = sqlite3.connect(":memory:")
        mem.execute(FTS_SCHEMA)
        t = time.perf_counter()
        with mem:
            mem.executemany("INSERT INTO fts (rowid, context, body, layer) VALUES (?,?,?,?)", rows)
        fts_s = time.perf_counter() - t

        files = len(delta.indexed)
        tok, pos = stats["tokens"], stats["positions"]
        chunk_texts = stats["texts embed chunks"]
        forward_s = clock.t["embed chunks"] + clock.t["embed descriptions"] - clock.t["tokenise"]
        print(f"\n3. Cold refresh of {n:,} notes ({files:,} files, {delta.chunks:,} chunks), MiniLM, "
              f"{threads} thread(s); load {before:.1f} before, {os.getloadavg()[0]:.1f} after")
        print(f"  total {total:.1f} s: {files / total:.1f} files/s, {n / total:.1f} notes/s, "
              f"{chunk_texts / total:.1f} chunks/s; CPU {cpu:.1f} s ({n / cpu:.1f} notes per CPU-s)")
        parts = [
            ("scan", clock.t["scan"]),
            ("read files", clock.t["read files"]),
            ("chunk (plan)", clock.t["chunk (plan)"]),
            ("tokenise", clock.t["tokenise"]),
            ("encoder forward (chunks + descriptions)", forward_s),
            ("  of which description vectors (tokenise + forward)", clock.t["embed descriptions"]),
            ("DB writes (files, chunks, FTS5; one transaction)", clock.t["DB writes (incl. FTS5)"]),
            ("  of which the FTS5 insert (replayed in memory)", fts_s),
            ("faiss add", clock.t["faiss add"]),
            ("faiss write", clock.t["faiss write"]),
        ]
        accounted = sum(s for name, s in parts if not name.startswith("  "))
        for name, s in parts + [("other", total - accounted)]:
            print(f"  {name:<52} {s:>8.2f} s {100 * s / total:>5.1f} %")
        print(f"  embedded: {chunk_texts:,} chunk texts + {stats['texts embed descriptions']:,} "
              f"descriptions; {tok:,} tokens ({tok / max(1, chunk_texts + stats['texts embed descriptions']):.0f} "
              f"a text), {stats['truncated']:,} texts cut at {M.MAX_SEQ_LENGTH} tokens; padding "
              f"{100 * (pos - tok) / max(pos, 1):.1f} % of {pos:,} positions; identical chunk texts "
              f"{len(texts) - len(set(texts)):,}")
        if at32:
            lengths = _lengths(texts) + _lengths(descriptions(root))
            rate = [at32[min((L for L in LENGTHS if L >= x), default=256)] for x in lengths]
            wall = sum(x / r[0] for x, r in zip(lengths, rate, strict=True))
            need = sum(x / r[1] for x, r in zip(lengths, rate, strict=True))
            cores = blas.cpu_count()
            print(f"  the encoder's limit for these texts (chunks and descriptions; batch 32, each "
                  f"text at the rate part 1 measured for its length): {wall:.1f} s = {n / wall:.1f} "
                  f"notes/s at this load; the refresh reached {n / total:.1f} notes/s, "
                  f"{100 * wall / total:.0f} % of it")
            print(f"  in CPU: the encoder needs {need:.1f} CPU-s for them, the refresh took {cpu:.1f} "
                  f"({100 * need / cpu:.0f} % encoder); on {cores} idle core(s) the limit is "
                  f"{n * cores / need:.1f} notes/s ({n * cores / need * 3600:,.0f} an hour)")
    finally:
        for owner, attr, real in reversed(undo):
            setattr(owner, attr, real)
        shutil.rmtree(tmp, ignore_errors=True)


def descriptions(root: Path) -> list[str]:
    from reme_workbench.index.chunking import description_text
    from reme_workbench.vault.layout import is_digest_note

    with VaultScan(root) as scan:
        scan.refresh()
        return [description_text(p, r.name, r.description) for p, r in sorted(scan.records.items())
                if is_digest_note(p)]


def _lengths(texts: list[str]) -> list[int]:
    m = model()
    return [len(i) for i in m.token_ids([t.lstrip()[:M.MAX_TEXT_CHARS] for t in texts])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000", help="comma-separated note counts (10000: ~20 min+)")
    parser.add_argument("--threads", type=int, default=None,
                        help="encoder threads (default: one per core); 1 = the old way, "
                             "batches one after another with numpy's BLAS on every core")
    parser.add_argument("--encoder-tokens", type=int, default=8192, help="tokens per cell of part 1")
    parser.add_argument("--padding-sample", type=int, default=256, help="chunks for part 2 (0: skip)")
    parser.add_argument("--skip-encoder", action="store_true", help="skip part 1")
    args = parser.parse_args(argv)
    threads = args.threads or min(blas.cpu_count(), M.MAX_THREADS)
    print(f"python {sys.version.split()[0]}, {blas.cpu_count()} core(s), numpy {np.__version__}, "
          f"BLAS threads controllable: {blas.controllable()}; {load()}")
    at32 = None if args.skip_encoder else encoder_limit(threads, args.encoder_tokens)
    for n in (int(s) for s in args.sizes.split(",") if s):
        cold_refresh(n, threads, at32, args.padding_sample)
    return 0


if __name__ == "__main__":
    sys.exit(main())
