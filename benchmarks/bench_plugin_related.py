"""What the Obsidian plugin waits for on the demo vault: related notes, search and a note
open over the real server, from its first request; and what the related panel's query
length costs.

    python benchmarks/bench_plugin_related.py [--vault reme-demo] [--embedder minilm] [--notes 12]

1. **Over the local API.** The demo vault (`--vault`, else a fresh `reme-workbench demo`
   in a temporary folder, ~1 min of CPU) served by the real program as the plugin starts
   it (`reme-workbench --vault V serve`). Measured, each with its wall time and the
   server's CPU seconds (/proc/<pid>/stat): the first `POST /related` sent the moment
   serve.json is there (the server's index loads meanwhile), then once the index is
   `ready`: `POST /related` for `--notes` notes (the longest first), `POST /recall` for
   five queries, `POST /note/opened`. Target: an answer within 1 s from the first request
   (issue #34) — on an idle machine; the load average is printed, other work slows it.
2. **numpy's BLAS threads.** In-process on the same vault, for the same notes: the related
   query (a note's description and body, up to 2,000 characters) through plain `recall`
   (numpy's BLAS on its default threads, as `POST /recall` embeds a query) and through
   `related` (one BLAS thread, ops/reading.py): CPU per call, and whether the top 8 agree.
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

QUERIES = ["pgbouncer port", "how to deploy payments-api", "weekly report", "备份",
           "database migration"]
TARGET_S = 1.0


def command() -> list[str]:
    script = Path(sys.executable).parent / "reme-workbench"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "reme_workbench"]


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("REME_")} | {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def call(info: dict, pid: int, method: str, path: str, body: dict | None = None) -> tuple[dict, float, float]:
    """(answer, wall s, server CPU s) of one request."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(info["url"] + path, data=data, method=method, headers={
        "Authorization": f"Bearer {info['token']}", "Content-Type": "application/json"})
    cpu, start = cpu_s(pid), time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as resp:
        answer = json.loads(resp.read())
    return answer, time.perf_counter() - start, cpu_s(pid) - cpu


def longest_notes(root: Path, n: int) -> list[str]:
    notes = sorted((root / "digest").rglob("*.md"), key=lambda p: p.stat().st_size, reverse=True)
    return [p.relative_to(root).as_posix() for p in notes[:n]]


def over_the_api(root: Path, n: int) -> None:
    serve_json = root / ".reme" / "serve.json"
    proc = subprocess.Popen([*command(), "--vault", str(root), "serve"], env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        spawned = time.perf_counter()
        while not (serve_json.exists() and serve_json.stat().st_size):
            if proc.poll() is not None:
                raise SystemExit(f"serve stopped: {proc.stderr.read()}")
            time.sleep(0.02)
        info = json.loads(serve_json.read_text())
        up = time.perf_counter() - spawned
        notes = longest_notes(root, n)
        answer, wall, cpu = call(info, proc.pid, "POST", "/related", {"path": notes[0], "k": 8})
        print(f"server up (spawn to serve.json): {up:.2f} s")
        print(f"first request, POST /related: {wall:.2f} s wall, {cpu:.2f} server CPU-s, "
              f"{len(answer['hits'])} hits, vectors {answer['vectors'] or '-'}"
              f"  [{'met' if wall <= TARGET_S else 'NOT met'}: target {TARGET_S:.0f} s]")
        while call(info, proc.pid, "GET", "/index/status")[0]["state"] not in ("ready", "failed"):
            time.sleep(0.5)
        for label, requests in (
            ("POST /related", [("/related", {"path": p, "k": 8}) for p in notes]),
            ("POST /recall", [("/recall", {"query": q, "k": 10}) for q in QUERIES]),
            ("POST /note/opened", [("/note/opened", {"path": p}) for p in notes[:5]]),
        ):
            walls, cpus = [], []
            for path, body in requests:
                _, wall, cpu = call(info, proc.pid, "POST", path, body)
                walls.append(wall)
                cpus.append(cpu)
            walls.sort()
            print(f"{label:18} x{len(walls):<3} wall median {walls[len(walls) // 2]:.3f} s, "
                  f"max {walls[-1]:.3f} s; server CPU {sum(cpus) / len(cpus):.3f} s per request")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def blas_threads_cost(root: Path, n: int) -> None:
    from reme_workbench.ops import RecallRequest, Workspace, reading, recall

    ws = Workspace(root)
    recall(ws, RecallRequest(query="warm up"))  # the model and the index loaded once
    notes = longest_notes(root, n)
    runs = {
        "recall, default BLAS threads": lambda path, query: [
            h.path for h in recall(ws, RecallRequest(query=query, k=9)).hits if h.path != path][:8],
        "related, one BLAS thread": lambda path, _query: [
            h.path for h in reading.related(ws, reading.RelatedRequest(path=path, k=8)).hits],
    }
    tops = {}
    for label, run in runs.items():
        cpus, tops[label] = [], []
        for path in notes:
            query = reading.related_query((root / path).read_text(encoding="utf-8"))
            start = time.process_time()
            tops[label].append(run(path, query))
            cpus.append(time.process_time() - start)
        cpus.sort()
        print(f"{label:30} CPU median {cpus[len(cpus) // 2]:.3f} s, max {cpus[-1]:.3f} s per call")
    first, second = tops.values()
    same = [len(set(a) & set(b)) for a, b in zip(first, second, strict=True)]
    print(f"top 8 the same: {sum(same)} of {8 * len(same)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, help="a demo vault; default: a fresh demo")
    parser.add_argument("--embedder", default="minilm", help="for a fresh demo")
    parser.add_argument("--notes", type=int, default=12, help="how many notes to ask about")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    start = time.process_time()
    with tempfile.TemporaryDirectory(prefix="reme-plugin-bench-") as tmp:
        root = args.vault
        if root is None:
            root = Path(tmp) / "reme-demo"
            subprocess.run([*command(), "demo", str(root), "--embedder", args.embedder, "--json"],
                           env=_env(), check=True, stdout=subprocess.DEVNULL)
        over_the_api(root.resolve(), args.notes)
        blas_threads_cost(root.resolve(), args.notes)
    print(f"load average after: {os.getloadavg()[0]:.2f}; this process's CPU: "
          f"{time.process_time() - start:.1f} s")


if __name__ == "__main__":
    main()
