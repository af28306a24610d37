"""Answers from the first second: a served vault that was never indexed, and recall with
part of the vectors.

    python benchmarks/bench_first_answer.py [--sizes 1000,10000] [--embedder minilm]
                                            [--watch 60] [--conversations 0-4]

1. **Time to first answer.** For each size N, a fresh vault of N digest notes (the
   generator of bench_index.py: ~200 words each, links, a provenance line; no `.reme/`)
   is served by the real program (`python -m reme_workbench --vault V serve`), as an
   Obsidian plugin starts it. Measured: start-up (spawn to `.reme/serve.json`), then a
   `POST /recall` for one note's name, sent the moment the server is up and repeated
   every 50 ms as a client that retries: the first answer's latency and what it saw
   ("vectors": "0/10,000 files"), and when an answer first holds that note; then
   `GET /index/status` until the keyword index is whole, and the vectors' progress for
   `--watch` seconds. Target: the asked note answered < 2 s after the server is up,
   at 1k and 10k notes.
2. **Recall with part of the vectors.** LoCoMo conversations (raw sessions as daily
   logs, every question with evidence; ../shared/data/locomo, skipped when absent) with
   the index keyword-only, then half the chunks embedded, then all: session recall@5
   and MRR of the fused search, so the price of answering before the vectors is known.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_index  # noqa: E402  (the generator of N digest notes)

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo10_conv0-4.json"
TARGET_FIRST_S = 2.0


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("REME_")}


def _call(info: dict, method: str, path: str, body: dict | None = None, timeout: float = 60.0):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(info["url"] + path, data=data, method=method, headers={
        "Authorization": f"Bearer {info['token']}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


def first_answer(n: int, embedder: str, watch: float) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"reme-first-{n}-") as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        bench_index.generate(root, n)
        (root / "reme.toml").write_text(f'[recall]\nembedder = "{embedder}"\n', encoding="utf-8")
        target = bench_index.note_path(7)
        words = (root / target).read_text(encoding="utf-8").split("\n")[1]  # "name: note-000007"
        query = words.split(":", 1)[1].strip()
        serve_json = root / ".reme" / "serve.json"
        spawned = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "reme_workbench", "--vault", str(root), "serve", "--port", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_env())
        try:
            while not serve_json.is_file():
                if proc.poll() is not None:
                    raise SystemExit(f"serve exited: {proc.stderr.read().decode()[-2000:]}")
                time.sleep(0.01)
            time.sleep(0.05)  # the file is written before uvicorn listens: one beat
            info = json.loads(serve_json.read_text())
            up = time.monotonic()
            answer = _call(info, "POST", "/recall", {"query": query, "k": 10, "scope": "digest"})
            answered = time.monotonic()
            first_hits, first_vectors = len(answer["hits"]), answer.get("vectors")
            asked = 1
            # then as a client that retries: when does the answer hold the asked note?
            while not any(h["path"] == target for h in answer["hits"]) and time.monotonic() - up < 60:
                time.sleep(0.05)
                answer = _call(info, "POST", "/recall", {"query": query, "k": 10, "scope": "digest"})
                asked += 1
            found_at = time.monotonic() - up if any(h["path"] == target for h in answer["hits"]) else None
            keyword_whole = None
            seen: list[tuple[float, dict]] = []
            deadline = time.monotonic() + watch
            while time.monotonic() < deadline:
                status = _call(info, "GET", "/index/status")
                now = time.monotonic()
                seen.append((now - up, status))
                if keyword_whole is None and status["state"] in ("vectors", "ready"):
                    keyword_whole = now - up
                if status["state"] in ("ready", "failed"):
                    break
                time.sleep(0.5)
            second = _call(info, "POST", "/recall", {"query": query, "k": 10, "scope": "digest"})
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
    last_t, last = seen[-1] if seen else (0.0, {})
    return {"n": n, "startup_s": up - spawned, "first_s": answered - up, "found_s": found_at,
            "asked": asked, "first_vectors": first_vectors, "first_hits": first_hits,
            "keyword_whole_s": keyword_whole, "last_t": last_t, "last": last,
            "second_vectors": second.get("vectors")}


def partial_vectors(conversations: list[int], embedder_spec: str) -> list[tuple[float, float, float, int]]:
    """(share of chunks with vectors, recall@5, MRR, questions) over the conversations."""
    from reme_lab import locomo
    from reme_workbench.index.factory import get_embedder
    from reme_workbench.index.recall import recall_batch
    from reme_workbench.index.store import VaultIndex

    samples = locomo.load_conversations(LOCOMO)
    embedder = get_embedder(embedder_spec)
    rows: dict[float, dict[str, list[int]]] = {}
    asked = []
    with tempfile.TemporaryDirectory(prefix="reme-partial-") as tmp:
        for c in conversations:
            root = Path(tmp) / f"conv{c}"
            locomo.write_vault(root, samples[c])
            qs = locomo.questions(samples[c])
            asked += qs
            with VaultIndex(root, embedder) as index:
                index.refresh(vectors=False)
                total = index.coverage().pending_chunks
                done = 0
                for share in (0.0, 0.5, 1.0):
                    done += index.embed_pending(limit=max(0, int(share * total) - done))
                    answers = recall_batch(index, ((q.qid, q.text) for q in qs), k=10,
                                           scope="sources", log_access=False)
                    ranked = rows.setdefault(share, {})
                    for qid, hits in answers:
                        ranked[qid] = [s for h in hits if (s := locomo.session_of_path(h.path)) is not None]
    out = []
    for share, ranked in rows.items():
        scores = locomo.score_rankings(ranked, asked)["all"]
        out.append((share, scores.recall5, scores.mrr, scores.n))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated note counts")
    parser.add_argument("--embedder", default="minilm", help="the served vault's embedder")
    parser.add_argument("--watch", type=float, default=60.0,
                        help="seconds to follow the background index after the first answer")
    parser.add_argument("--conversations", default="0-4",
                        help="LoCoMo conversations for the partial-vector figures ('' skips)")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), load average {load:.1f}; "
          f"embedder {args.embedder}")
    ok = True
    for n in (int(s) for s in args.sizes.split(",") if s):
        r = first_answer(n, args.embedder, args.watch)
        found = r["found_s"]
        good = found is not None and found < TARGET_FIRST_S
        ok &= good
        print(f"\n{n:,} notes, never indexed, served: start-up {r['startup_s']:.2f} s; first "
              f"answer {r['first_s']:.2f} s after ({r['first_hits']} hits, vectors "
              f"{r['first_vectors']}); the asked note first in an answer "
              + (f"{found:.2f} s after it was up (request {r['asked']}; target < "
                 f"{TARGET_FIRST_S:.0f} s, ratio {found / TARGET_FIRST_S:.2f}) "
                 f"{'PASS' if good else 'MISS'}" if found is not None else "never (MISS)"))
        if r["keyword_whole_s"] is not None:
            print(f"  keyword index whole after {r['keyword_whole_s']:.1f} s "
                  f"({n / r['keyword_whole_s']:,.0f} notes/s)")
        last = r["last"]
        print(f"  after {r['last_t']:.0f} s: state {last.get('state')}, keyword "
              f"{last.get('keyword')}, vectors {last.get('vectors')} "
              f"({last.get('pending_chunks')} chunks waiting); a recall then: vectors "
              f"{r['second_vectors']}")
    spec = args.conversations.strip()
    if spec:
        if not LOCOMO.is_file():
            print(f"\nLoCoMo not found at {LOCOMO}: the partial-vector figures are skipped.")
        else:
            from locomo_recall import parse_range

            print(f"\nLoCoMo conversations {spec}, fused recall over raw sessions, by share of "
                  "chunks with vectors:")
            print(f"  {'vectors':>8} {'R@5':>6} {'MRR':>6} {'n':>5}")
            for share, r5, mrr, n in partial_vectors(parse_range(spec), args.embedder):
                print(f"  {share:>8.0%} {r5:>6.3f} {mrr:>6.3f} {n:>5}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
