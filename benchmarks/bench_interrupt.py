"""How fast Ctrl-C acts: the seconds from SIGINT to the program's exit, in each long phase.

Runs the real program (`python -m reme_workbench`) on copies of the bundled sample vault:
indexing with MiniLM and with e5 (the first e5 call also unpacks its weights), dream, and
consolidate (every phase forced). Each is interrupted once its run lock says it is at
work, then `delay` seconds later. Target: under 2 s in every phase.

    python benchmarks/bench_interrupt.py [--delay 0.5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXE = [sys.executable, "-m", "reme_workbench"]
TARGET_S = 2.0


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("REME_")}


def _run(*args: str) -> None:
    subprocess.run([*EXE, *args], check=True, capture_output=True, env=_env())


def _interrupted(root: Path, args: list[str], busy: str, delay: float) -> tuple[float, int]:
    proc = subprocess.Popen([*EXE, "--vault", str(root), *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=_env())
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        locks = list((root / ".reme").glob("*.lock")) if (root / ".reme").is_dir() else []
        if any(busy in lock.read_text(errors="replace") for lock in locks if lock.is_file()):
            break
        time.sleep(0.02)
    time.sleep(delay)
    if proc.poll() is not None:
        return float("nan"), proc.returncode
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=300)
    return time.monotonic() - sent, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.5, help="seconds after the work starts")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reme-bench-interrupt-") as tmp:
        sample = Path(tmp) / "sample"
        _run("init", str(sample), "--sample", "--json")
        indexed = Path(tmp) / "indexed"
        shutil.copytree(sample, indexed)
        _run("--vault", str(indexed), "index", "--embedder", "minilm", "--json")
        dreamt = Path(tmp) / "dreamt"
        shutil.copytree(indexed, dreamt)
        _run("--vault", str(dreamt), "dream", "--json")
        cases = [
            ("index, MiniLM", sample, ["index", "--embedder", "minilm", "--json"], "scanning"),
            ("index, e5", sample, ["index", "--embedder", "e5", "--json"], "scanning"),
            ("dream", indexed, ["dream", "--json"], "dreaming"),
            ("consolidate", dreamt, ["consolidate", "--force", "--json"], "consolidat"),
        ]
        print(f"{'phase':<16} {'median s':>9} {'max s':>7}  exit  (target < {TARGET_S:g} s)")
        for label, template, command, busy in cases:
            seconds, codes = [], set()
            for k in range(args.repeat):
                root = Path(tmp) / f"run-{label.replace(' ', '').replace(',', '')}-{k}"
                shutil.copytree(template, root)
                took, code = _interrupted(root, command, busy, args.delay)
                seconds.append(took)
                codes.add(code)
                shutil.rmtree(root, ignore_errors=True)
            done = [s for s in seconds if s == s]
            if not done:
                print(f"{label:<16} finished before it could be interrupted")
                continue
            print(f"{label:<16} {statistics.median(done):>9.2f} {max(done):>7.2f}  "
                  f"{','.join(str(c) for c in sorted(codes))}"
                  + ("" if max(done) < TARGET_S else "  OVER TARGET"))


if __name__ == "__main__":
    main()
