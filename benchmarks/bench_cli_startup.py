"""How long `reme-workbench --help` takes, end to end in a fresh process.

Target (vault-core issue): under 1 s. Prints the median of several runs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

TARGET_S = 1.0


def main(runs: int = 7) -> bool:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "reme_workbench", "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    verdict = "PASS" if median < TARGET_S else "MISS"
    print(f"cli --help: median {median * 1000:.0f} ms over {runs} runs "
          f"(target < {TARGET_S * 1000:.0f} ms, ratio {median / TARGET_S:.2f}) {verdict}")
    return median < TARGET_S


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
