#!/usr/bin/env python3
"""Benchmarks: sandbash against real bash on the same machine, as ratios.

    python benchmarks/bench.py                  # every workload, 5 timed pairs each
    python benchmarks/bench.py --only core      # interpreter workloads only (no input files)
    python benchmarks/bench.py --only fib,grep_count --runs 9
    python benchmarks/bench.py latency          # in-process cost of one small exec

Each workload is a script in benchmarks/workloads/. It runs through `/bin/bash`
and through `python -m sandbash -s` (the script on stdin, host data mounted
read-only at /data and a scratch directory read-write at /work). sandbash's
stdout and exit status must equal bash's before anything is timed. Each run is
a fresh process measured from outside (CPU time of the process tree, wall time,
peak RSS); pairs alternate which system goes first; the table reports medians
and the median of the per-pair ratios. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = HERE / "workloads"
CORE = ["startup", "arith_loop", "funcs", "fib", "strings", "array_append", "assoc_count", "cmdsubst"]
DATA = ["grep_count", "sed_wc", "top_users", "cut_sort", "jq_select", "fs_tree"]


# ------------------------------------------------------------ input data


def make_data(data_dir: Path, log_mb: int) -> None:
    """Deterministic inputs: a web-style log and a JSON array."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir / f"log{log_mb}.txt"
    if not log.exists():
        rng = random.Random(1234)
        levels = ["INFO"] * 6 + ["DEBUG"] * 3 + ["WARN", "ERROR"]
        words = "alpha beta gamma delta foo bar baz qux request response cache miss hit user login".split()
        target = log_mb * 1024 * 1024
        with open(log.with_suffix(".tmp"), "w") as f:
            size = 0
            i = 0
            while size < target:
                line = (f"2024-01-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d} "
                        f"{rng.choice(levels)} user{rng.randrange(400)} "
                        f"{' '.join(rng.choice(words) for _ in range(rng.randrange(3, 12)))} "
                        f"ms={rng.randrange(1, 5000)}\n")
                f.write(line)
                size += len(line)
                i += 1
        os.replace(log.with_suffix(".tmp"), log)
    js = data_dir / "data.json"
    if not js.exists():
        rng = random.Random(99)
        items = [{"id": i, "x": rng.randrange(10), "name": f"item{i}", "tags": ["a", "b"][: rng.randrange(3)]}
                 for i in range(60000)]
        js.write_text(json.dumps(items))


# ------------------------------------------------------------ measuring


def measure(cmd: list[str], stdin: bytes, cwd: str, env: dict[str, str]) -> dict[str, object]:
    """Run `cmd` in a child measuring process; returns cpu, wall, rss, output."""
    probe = [sys.executable, __file__, "_measure", "--", *cmd]
    p = subprocess.run(probe, input=stdin, capture_output=True, cwd=cwd, env=env, timeout=1800)
    stats = json.loads(p.stderr.decode().rsplit("\n@@STATS ", 1)[1])
    stats["stdout"] = p.stdout
    return stats


def _measure_main(cmd: list[str]) -> int:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdin=sys.stdin.buffer, stdout=sys.stdout.buffer, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stdout.flush()
    stats = {"cpu": ru.ru_utime + ru.ru_stime, "wall": wall, "rss_mb": ru.ru_maxrss / 1024, "status": p.returncode}
    sys.stderr.write("\n@@STATS " + json.dumps(stats))
    return 0


# ------------------------------------------------------------ running


def systems(data: Path, work: Path) -> dict[str, tuple[list[str], str]]:
    sandbash = [sys.executable, "-m", "sandbash", "-s", "--limits", "generous",
                "--mount", f"{data}:/data:ro", "--mount", f"{work}:/work:rw", "--cwd", "/work"]
    return {"bash": (["/bin/bash", "-s"], ""), "sandbash": (sandbash, "")}


def prelude(system: str, data: Path, work: Path, log_mb: int) -> str:
    d, w = (str(data), str(work)) if system == "bash" else ("/data", "/work")
    return f"export LC_ALL=C DATA={d} WORK={w} LOG={d}/log{log_mb}.txt\ncd {w}\n"


def run_workloads(names: list[str], runs: int, log_mb: int, scratch: Path) -> list[dict[str, object]]:
    data = scratch / "data"
    make_data(data, log_mb)
    rows: list[dict[str, object]] = []
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(scratch), "LC_ALL": "C",
           "PYTHONPATH": str(HERE.parent / "src")}
    for name in names:
        script = (WORKLOADS / f"{name}.sh").read_text()
        results: dict[str, list[dict[str, object]]] = {"bash": [], "sandbash": []}
        outputs: dict[str, tuple[bytes, object]] = {}
        for i in range(runs + 1):
            order = ["bash", "sandbash"] if i % 2 == 0 else ["sandbash", "bash"]
            for system in order:
                work = scratch / f"work-{system}"
                work.mkdir(exist_ok=True)
                cmd, _ = systems(data, work)[system]
                text = prelude(system, data, work, log_mb) + script
                stats = measure(cmd, text.encode(), str(work), env)
                if i == 0:
                    outputs[system] = (stats.pop("stdout"), stats["status"])  # type: ignore[arg-type]
                else:
                    stats.pop("stdout")
                    results[system].append(stats)
            if i == 0 and outputs["bash"] != outputs["sandbash"]:
                break
        row: dict[str, object] = {"workload": name}
        if outputs["bash"] != outputs["sandbash"]:
            row["error"] = f"WRONG output: bash {outputs['bash'][0][:60]!r} vs sandbash {outputs['sandbash'][0][:60]!r}"
            rows.append(row)
            print(f"{name}: {row['error']}", file=sys.stderr)
            continue
        for key in ("cpu", "wall", "rss_mb"):
            b = [float(r[key]) for r in results["bash"]]  # type: ignore[arg-type]
            s = [float(r[key]) for r in results["sandbash"]]  # type: ignore[arg-type]
            row[f"bash_{key}"] = statistics.median(b)
            row[f"sandbash_{key}"] = statistics.median(s)
            if key != "rss_mb":
                row[f"ratio_{key}"] = statistics.median(si / bi if bi > 0 else float("inf") for si, bi in zip(s, b))
        rows.append(row)
        print(f"{name}: cpu ratio {row['ratio_cpu']:.2f} wall ratio {row['ratio_wall']:.2f}", file=sys.stderr)
    return rows


def table(rows: list[dict[str, object]]) -> str:
    out = ["| workload | bash cpu s | sandbash cpu s | cpu ratio | wall ratio | sandbash peak MB |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['workload']} | | | {r['error']} | | |")
            continue
        out.append(f"| {r['workload']} | {r['bash_cpu']:.3f} | {r['sandbash_cpu']:.3f} | {r['ratio_cpu']:.2f} | "
                   f"{r['ratio_wall']:.2f} | {r['sandbash_rss_mb']:.0f} |")
    return "\n".join(out)


def latency(n: int) -> str:
    sys.path.insert(0, str(HERE.parent / "src"))
    from sandbash import Bash

    bash = Bash()
    script = "x=1; echo $((x+1))"
    for _ in range(20):
        bash.exec(script)
    t0 = time.perf_counter()
    c0 = time.process_time()
    for _ in range(n):
        bash.exec(script)
    per_wall = (time.perf_counter() - t0) / n
    per_cpu = (time.process_time() - c0) / n
    t0 = time.perf_counter()
    for _ in range(min(n, 200)):
        subprocess.run(["/bin/bash", "-c", script], capture_output=True)
    bash_wall = (time.perf_counter() - t0) / min(n, 200)
    return (f"sandbash warm exec: {per_wall * 1000:.3f} ms wall, {per_cpu * 1000:.3f} ms cpu per call; "
            f"bash fork+exec: {bash_wall * 1000:.3f} ms")


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "_measure":
        return _measure_main(sys.argv[3:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "latency"])
    ap.add_argument("--only", default="", help="comma-separated workloads, or 'core' / 'data'")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--log-mb", type=int, default=20, help="size of the log input (20 or 100)")
    ap.add_argument("--scratch", default=os.environ.get("SANDBASH_BENCH_DIR", ""))
    ap.add_argument("--out", default="bench-results.json")
    args = ap.parse_args()
    if args.mode == "latency":
        print(latency(500))
        return 0
    names = CORE + DATA
    if args.only == "core":
        names = CORE
    elif args.only == "data":
        names = DATA
    elif args.only:
        names = args.only.split(",")
    scratch = Path(args.scratch) if args.scratch else Path(tempfile.gettempdir()) / "sandbash-bench"
    scratch.mkdir(parents=True, exist_ok=True)
    rows = run_workloads(names, args.runs, args.log_mb, scratch)
    Path(args.out).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
