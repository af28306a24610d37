"""How long the demo takes: `reme-workbench demo <fresh dir>`, run as a user runs it.

    python benchmarks/bench_demo.py [--embedder minilm|e5|...] [--repeat 1] [--keep]

Runs the real program (`.venv/bin/reme-workbench`, else `python -m reme_workbench`) in a
subprocess on a new folder, with the demo's default embedder unless `--embedder` names
one, its stderr on a pseudo-terminal so it draws its progress bar as it does for a
person. Prints each phase the bar shows (each week's dream and consolidate, then the
notebooks and Obsidian views) with its time, the total from start to exit (Python
start-up and imports included) and the figure the demo prints itself, the CPU seconds
the run took, and the load average before and after: other work on the machine slows
the demo, so the figure is only the demo's own on an idle machine. README.md and
`reme-workbench demo --help` state the figure this measures.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import pty
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_STEP_RE = re.compile(r"\[[#·]+\] (\d+)/(\d+) (.+)")


def command() -> list[str]:
    script = Path(sys.executable).parent / "reme-workbench"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "reme_workbench"]


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["COLUMNS"] = "200"  # the bar is cut to the terminal's width; a pty reports none
    return env


def run_demo(embedder: str | None, keep: bool) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="reme-bench-demo-"))
    target = tmp / "reme-demo"
    args = command() + ["demo", str(target)] + (["--embedder", embedder] if embedder else [])
    master, slave = pty.openpty()
    steps: list[tuple[float, str]] = []
    load_before = os.getloadavg()[0]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                            env=_env(), cwd=tmp, text=True)
    os.close(slave)

    def read_bar() -> None:
        # each redraw is "\r\x1b[K[###···] k/n what", flushed at once and not ended: a
        # step is timed when its number is first seen, named by its latest drawing
        buffer = ""
        seen: dict[str, int] = {}
        decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            now = time.perf_counter() - start
            *drawn, buffer = (buffer + decode(data)).split("\r")
            for text in [*drawn, buffer]:  # the last one again when more of it comes
                found = _STEP_RE.search(text.replace("\x1b[K", ""))
                if found is None:
                    continue
                step, what = found.group(1), found.group(3).strip()
                if step in seen:
                    steps[seen[step]] = (steps[seen[step]][0], what)
                else:
                    seen[step] = len(steps)
                    steps.append((now, what))

    reader = threading.Thread(target=read_bar, daemon=True)
    reader.start()
    out, _ = proc.communicate()
    total = time.perf_counter() - start
    reader.join(timeout=2)
    os.close(master)
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    said = _said(out or "")
    if keep:
        print(f"kept: {target}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"code": proc.returncode, "total": total, "steps": steps, "cpu": cpu,
            "embedder": said[0], "said": said[1],
            "load": (load_before, os.getloadavg()[0]), "output": out or ""}


def _said(out: str) -> tuple[str, float | None]:
    """(embedder, seconds) the demo reports: JSON when its stdout is not a terminal (as
    here), else its first line ("Demo vault at P (minilm embedder, 28 s).")."""
    try:
        data = json.loads(out)
        return str(data.get("embedder", "?")), data.get("seconds")
    except ValueError:
        found = re.search(r"Demo vault at .* \((.+?) embedder, (\d+) s\)", out)
        return (found.group(1), float(found.group(2))) if found else ("?", None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--embedder", default=None, help="as `demo --embedder` (default: the demo's)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the demo vault (prints where)")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s); {' '.join(command())} demo DIR"
          + (f" --embedder {args.embedder}" if args.embedder else ""))
    totals = []
    for k in range(args.repeat):
        r = run_demo(args.embedder, args.keep)
        if r["code"] != 0:
            print(f"run {k + 1}: the demo failed (exit {r['code']}):\n{r['output']}")
            return 1
        totals.append(r["total"])
        print(f"\nrun {k + 1}: {r['embedder']} embedder, load average {r['load'][0]:.1f} before, "
              f"{r['load'][1]:.1f} after")
        marks = r["steps"] or [(r["total"], "(no progress bar seen)")]
        marks = marks + [(r["total"], "exit")]
        print(f"  {'start-up (Python, imports, the sample copied)':<52} {marks[0][0]:>6.1f} s")
        for (at, what), (until, _) in zip(marks, marks[1:], strict=False):
            print(f"  {what:<52} {until - at:>6.1f} s")
        print(f"  total {r['total']:.1f} s from start to exit; CPU {r['cpu']:.1f} s")
        print(f"  the demo's own figure: {r['said']} s")
    if args.repeat > 1:
        totals.sort()
        print(f"\nmedian total over {args.repeat} runs: {totals[len(totals) // 2]:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
