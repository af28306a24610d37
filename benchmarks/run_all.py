"""Run every benchmark in this folder, one after the other, and print their figures.

    python benchmarks/run_all.py            # default sizes
    python benchmarks/run_all.py --quick    # smaller sizes, for a smoke run

Exit status 1 when any benchmark missed its target.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUICK_ARGS = {
    "bench_vault.py": ["--sizes", "1000"],
    "bench_large_notes.py": ["--sizes", "1K,100K,5M", "--kinds", "log,long"],
}
QUICK_ARGS["bench_dream_quality.py"] = ["--embedder", "hashing"]  # the tune + holdout set, ~1 min
QUICK_ARGS["bench_recall_zh.py"] = ["--split", "holdout"]  # the holdout's files, MiniLM and e5
# issue #32's targets on small sizes against the baseline commit, ~5 min on 2 idle cores
QUICK_ARGS["bench_vectors_targets.py"] = ["--notes", "200", "--course-notes", "100",
                                          "--conversations", "0"]
QUICK_ARGS["bench_encoders.py"] = ["--texts", "40"]  # each encoder on 40 chunks of each corpus
QUICK_ARGS["bench_access_log.py"] = ["--lines", "30000"]  # compaction of a smaller log
QUICK_ARGS["bench_plugin_related.py"] = ["--notes", "5"]  # the plugin's related panel
QUICK_ARGS["bench_consolidate.py"] = ["--sizes", "1000"]  # communities + health, ~3 s
QUICK_ARGS["bench_interrupt.py"] = ["--repeat", "1"]  # four interrupts of the real program, ~60 s
QUICK_ARGS["bench_first_answer.py"] = ["--sizes", "1000", "--watch", "10", "--conversations", "0"]  # ~1 min
QUICK_ARGS["bench_first_consolidate.py"] = ["--notes", "200"]  # import, index, consolidate, ~3 min
QUICK_ARGS["bench_merge.py"] = ["--sizes", "1000", "--embedder", "hashing"]  # mining + votes, ~6 s
# the encoder's limit on fewer tokens, a cold refresh of 100 notes: ~2 min on 2 idle cores
QUICK_ARGS["bench_embed_throughput.py"] = ["--sizes", "100", "--encoder-tokens", "2048",
                                           "--padding-sample", "64"]


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        args = QUICK_ARGS.get(script.name, []) if quick else []
        code = subprocess.run([sys.executable, str(script), *args]).returncode
        if code:
            failed.append(script.name)
    if failed:
        print("missed targets: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
