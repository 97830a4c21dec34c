#!/usr/bin/env python3
"""How the static check (`sandbash.check`, `sandbash --check`) scales with the script's size.

    python benchmarks/check_scaling.py                 # 500 .. 16,000 lines
    python benchmarks/check_scaling.py --sizes 2000,20000 --runs 3

Each size is a script of that many lines cycling through common shapes (pipelines with
redirections, if/for with globs, function definitions, command substitutions, arithmetic, cd,
find -exec). The table shows the median CPU time of the check (the deadline is switched off),
the time per 1,000 lines, and the ratio to the previous size over the ratio of sizes: about 1.0
means linear, 2.0 at a doubling means quadratic. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from sandbash.check import check
from sandbash.policy import Policy

SHAPES = [
    "cat /data/a.txt | grep x > /workspace/o{i}",
    "if [ -f /data/b ]; then echo hi; fi",
    'for f in /data/*; do wc -l "$f"; done',
    "f{i}() {{ ls /data; }}",
    "x=$(head -1 /data/a.txt)",
    "echo $((i + 1))",
    "cd /workspace",
    "find /data -name '*.txt' -exec cat {{}} +",
]
POLICY = Policy(["cat", "grep", "wc", "ls", "head", "find"], paths=["/data:ro", "/workspace:rw"])


def script(lines: int) -> str:
    return "\n".join(SHAPES[i % len(SHAPES)].format(i=i) for i in range(lines)) + "\n"


def measure(text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        check(text, POLICY, deadline=None)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="500,1000,2000,4000,8000,16000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'lines':>8} {'cpu s':>8} {'ms/1k lines':>12} {'growth':>8}")
    prev: tuple[int, float] | None = None
    for n in sizes:
        t = measure(script(n), args.runs)
        growth = f"{(t / prev[1]) / (n / prev[0]):.2f}" if prev and prev[1] > 0 else "-"
        print(f"{n:>8} {t:>8.3f} {1e6 * t / n:>12.1f} {growth:>8}")
        prev = (n, t)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
