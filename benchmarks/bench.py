#!/usr/bin/env python3
"""Benchmarks: sandbash against real bash on the same machine, as ratios.

    python benchmarks/bench.py                  # every workload, 5 timed pairs each
    python benchmarks/bench.py --only core      # interpreter workloads only (no input files)
    python benchmarks/bench.py --only agent     # the loops agents write over a CSV
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
# the loops agents write over a CSV ($DATA/orders.csv): read and split lines, sum into arrays, match
AGENT = ["read_sum", "assoc_sum", "read_array", "case_loop", "concat", "regex_loop", "collect", "strip_cmp"]
ORDERS = 30000  # lines of orders.csv: bash takes about 0.1-0.3 s on each agent row


# ------------------------------------------------------------ input data


def make_data(data_dir: Path, log_mb: int) -> None:
    """Deterministic inputs: a web-style log and a JSON array."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir / f"log{log_mb}.txt"
    if not log.exists():
        rng = random.Random(1234)
        levels = ["INFO"] * 6 + ["DEBUG"] * 3 + ["WARN", "ERROR"]
        words = [
            "alpha",
            "beta",
            "gamma",
            "delta",
            "foo",
            "bar",
            "baz",
            "qux",
            "request",
            "response",
            "cache",
            "miss",
            "hit",
            "user",
            "login",
        ]
        target = log_mb * 1024 * 1024
        with open(log.with_suffix(".tmp"), "w") as f:
            size = 0
            i = 0
            while size < target:
                line = (
                    f"2024-01-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d} "
                    f"{rng.choice(levels)} user{rng.randrange(400)} "
                    f"{' '.join(rng.choice(words) for _ in range(rng.randrange(3, 12)))} "
                    f"ms={rng.randrange(1, 5000)}\n"
                )
                f.write(line)
                size += len(line)
                i += 1
        os.replace(log.with_suffix(".tmp"), log)
    js = data_dir / "data.json"
    if not js.exists():
        rng = random.Random(99)
        items = [
            {"id": i, "x": rng.randrange(10), "name": f"item{i}", "tags": ["a", "b"][: rng.randrange(3)]}
            for i in range(60000)
        ]
        js.write_text(json.dumps(items))
    orders = data_dir / "orders.csv"
    if not orders.exists():
        rng = random.Random(7)
        rows = (
            f"user{rng.randrange(1, 301)},item{rng.randrange(1, 100)},{rng.randrange(1, 10)}\n"
            for _ in range(ORDERS)
        )
        orders.write_text("".join(rows))


# ------------------------------------------------------------ measuring


def measure(cmd: list[str], stdin: bytes, cwd: str, env: dict[str, str]) -> dict[str, object]:
    """Run `cmd` in a child measuring process; returns cpu, wall, rss, output."""
    probe = [sys.executable, __file__, "_measure", "--", *cmd]
    p = subprocess.run(probe, input=stdin, capture_output=True, cwd=cwd, env=env, timeout=1800)
    stats: dict[str, object] = json.loads(p.stderr.decode().rsplit("\n@@STATS ", 1)[1])
    stats["stdout"] = p.stdout
    return stats


def _measure_main(cmd: list[str]) -> int:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdin=sys.stdin.buffer, stdout=sys.stdout.buffer, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stdout.flush()
    stats = {
        "cpu": ru.ru_utime + ru.ru_stime,
        "wall": wall,
        "rss_mb": ru.ru_maxrss / 1024,
        "status": p.returncode,
    }
    sys.stderr.write("\n@@STATS " + json.dumps(stats))
    return 0


# ------------------------------------------------------------ running

SYSTEMS = ("bash", "bashkit", "sandbash")


def systems(data: Path, work: Path, bashkit_python: str) -> dict[str, list[str]]:
    sandbash = [
        sys.executable,
        "-m",
        "sandbash",
        "-s",
        "--limits",
        "generous",
        "--mount",
        f"{data}:/data:ro",
        "--mount",
        f"{work}:/work:rw",
        "--cwd",
        "/work",
    ]
    found = {"bash": ["/bin/bash", "-s"], "sandbash": sandbash}
    if bashkit_python:
        found["bashkit"] = [bashkit_python, __file__, "_bashkit", str(data), str(work)]
    return found


def _bashkit_main(data: str, work: str) -> int:
    """Run stdin's script through bashkit's in-process Python API (same mounts as sandbash)."""
    import bashkit  # type: ignore[import-not-found]  # benchmark venv only, never a sandbash dependency

    # the Interactive profile lifts the Standard one's 100,000-commands-per-session cap
    bash = bashkit.Bash(
        cwd="/work",
        max_commands=10**9,
        max_loop_iterations=10**9,
        timeout_seconds=1800,
        profile=bashkit.ExecutionProfile.Interactive,
    )
    bash.mount("/data", bashkit.FileSystem.real(data), read_only=True)
    bash.mount("/work", bashkit.FileSystem.real(work, writable=True))
    result = bash.execute_sync(sys.stdin.read())
    sys.stdout.buffer.write(result.stdout.encode("utf-8", "surrogateescape"))
    sys.stdout.flush()
    return int(result.exit_code)


def prelude(system: str, data: Path, work: Path, log_mb: int) -> str:
    d, w = (str(data), str(work)) if system == "bash" else ("/data", "/work")
    return f"export LC_ALL=C DATA={d} WORK={w} LOG={d}/log{log_mb}.txt\ncd {w}\n"


def variants_of(name: str) -> list[str]:
    """`NAME.VARIANT.sh` files: the same workload as `NAME.sh`, spelled as a model might write it."""
    return sorted(p.name[:-3] for p in WORKLOADS.glob(f"{name}.*.sh"))


def run_workloads(
    names: list[str],
    runs: int,
    log_mb: int,
    scratch: Path,
    bashkit_python: str = "",
    out: Path | None = None,
    slow: float = 0.0,
) -> list[dict[str, object]]:
    data = scratch / "data"
    make_data(data, log_mb)
    rows: list[dict[str, object]] = []
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(scratch),
        "LC_ALL": "C",
        "PYTHONPATH": str(HERE.parent / "src"),
    }
    for name in names:
        row = run_one(name, runs, log_mb, scratch, data, env, bashkit_python, slow)
        rows.append(row)
        if out is not None:  # written after every row, so a long run stopped early keeps what it measured
            out.write_text(json.dumps(rows, indent=1))
        print(
            f"{name}: "
            + " ".join(
                f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                for k, v in row.items()
                if "ratio" in k or k.endswith("wrong")
            ),
            file=sys.stderr,
        )
    mark_variants(rows)
    return rows


def run_one(
    name: str,
    runs: int,
    log_mb: int,
    scratch: Path,
    data: Path,
    env: dict[str, str],
    bashkit_python: str,
    slow: float = 0.0,
) -> dict[str, object]:
    """One row: every system's output checked against bash's, then `runs` alternating timed rounds.
    `slow` (seconds, 0: off): a system whose checking run took longer is timed in one round only,
    so a quadratic case (bashkit's 50,000 array appends) does not hold up the table for an hour."""
    script = (WORKLOADS / f"{name}.sh").read_text()
    cmds: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for system in SYSTEMS:
        work = scratch / f"work-{system}"
        work.mkdir(exist_ok=True)
        found = systems(data, work, bashkit_python)
        if system in found:
            cmds[system] = found[system]
            texts[system] = prelude(system, data, work, log_mb) + script
    row: dict[str, object] = {"workload": name}
    outputs = {s: measure(cmds[s], texts[s].encode(), str(scratch / f"work-{s}"), env) for s in cmds}
    expected = (outputs["bash"]["stdout"], outputs["bash"]["status"])
    timed = ["bash"]
    for system in cmds:
        if system == "bash":
            continue
        got = (outputs[system]["stdout"], outputs[system]["status"])
        if got == expected:
            timed.append(system)
        else:  # a wrong answer is reported, never timed as if it were equal
            row[f"{system}_wrong"] = f"status {got[1]}, stdout {bytes(got[0])[:50]!r}"  # type: ignore[call-overload]
    results: dict[str, list[dict[str, object]]] = {s: [] for s in timed}
    once = {s for s in timed if s != "bash" and slow > 0 and float(outputs[s]["cpu"]) > slow}  # type: ignore[arg-type]
    for i in range(runs):
        order = timed if i % 2 == 0 else timed[::-1]
        for system in order:
            if system in once and results[system]:
                continue
            stats = measure(cmds[system], texts[system].encode(), str(scratch / f"work-{system}"), env)
            stats.pop("stdout")
            results[system].append(stats)
    bash_cpu = [float(r["cpu"]) for r in results["bash"]]  # type: ignore[arg-type]
    for system, res in results.items():
        for key in ("cpu", "wall", "rss_mb"):
            row[f"{system}_{key}"] = statistics.median(float(r[key]) for r in res)  # type: ignore[arg-type]
        if system != "bash":
            cpu = [float(r["cpu"]) for r in res]  # type: ignore[arg-type]
            # (a system timed once is compared with bash's first round)
            row[f"{system}_ratio"] = statistics.median(
                c / b if b > 0 else float("inf") for c, b in zip(cpu, bash_cpu[: len(cpu)], strict=True)
            )
            if len(res) < runs:
                row[f"{system}_rounds"] = len(res)
    return row


def mark_variants(rows: list[dict[str, object]]) -> None:
    """Each variant group (NAME and NAME.*): sandbash's CPU over the group's best (vs_best), and its
    ratio to bash over the group's best ratio (ratio_vs_best: a spelling that costs bash itself
    more work, `let` in a `while [ ]` loop, is judged by how much more it costs sandbash)."""
    groups: dict[str, list[dict[str, object]]] = {}
    for r in rows:
        groups.setdefault(str(r["workload"]).split(".")[0], []).append(r)
    for members in groups.values():
        if len(members) < 2:
            continue
        timed = [r for r in members if "sandbash_cpu" in r]
        if not timed:
            continue
        best = min(float(r["sandbash_cpu"]) for r in timed)  # type: ignore[arg-type]
        for r in timed:
            r["vs_best"] = float(r["sandbash_cpu"]) / best if best > 0 else 1.0  # type: ignore[arg-type]
        ratios = [r for r in timed if "sandbash_ratio" in r]
        if ratios:
            best_ratio = min(float(r["sandbash_ratio"]) for r in ratios)  # type: ignore[arg-type]
            for r in ratios:
                ratio = float(r["sandbash_ratio"])  # type: ignore[arg-type]
                r["ratio_vs_best"] = ratio / best_ratio if best_ratio > 0 else 1.0


def table(rows: list[dict[str, object]]) -> str:
    """Markdown: CPU seconds and ratios to bash, peak MB, who leads, variants against their best."""
    kit = any("bashkit_cpu" in r or "bashkit_wrong" in r for r in rows)
    head = ["workload", "bash cpu s"] + (["bashkit cpu s", "bashkit ×bash"] if kit else [])
    head += ["sandbash cpu s", "sandbash ×bash", "peak MB bash" + ("/bashkit" if kit else "") + "/sandbash"]
    head += (["sandbash leads"] if kit else []) + ["variant vs best", "×bash vs best ×bash"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [str(r["workload"]), _num(r, "bash_cpu")]
        if kit:
            cells += [_num(r, "bashkit_cpu"), _ratio(r, "bashkit")]
        cells += [_num(r, "sandbash_cpu"), _ratio(r, "sandbash")]
        cells.append("/".join(_num(r, f"{s}_rss_mb", "{:.0f}") for s in SYSTEMS if kit or s != "bashkit"))
        if kit:
            cells.append(_lead(r))
        for key in ("vs_best", "ratio_vs_best"):
            vs = r.get(key)
            cells.append("" if vs is None else f"{vs:.2f}" + ("" if float(vs) <= 1.25 else " **>25%**"))  # type: ignore[arg-type]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _lead(r: dict[str, object]) -> str:
    if "sandbash_wrong" in r:
        return "**no** (wrong output)"
    if "bashkit_wrong" in r:
        return "yes (bashkit fails)"
    if "sandbash_ratio" not in r or "bashkit_ratio" not in r:
        return "–"
    return "yes" if float(r["sandbash_ratio"]) <= float(r["bashkit_ratio"]) else "**no**"  # type: ignore[arg-type]


def _num(r: dict[str, object], key: str, fmt: str = "{:.3f}") -> str:
    return fmt.format(r[key]) if key in r else "–"


def _ratio(r: dict[str, object], system: str) -> str:
    if f"{system}_wrong" in r:
        return f"WRONG ({r[f'{system}_wrong']})"
    rounds = r.get(f"{system}_rounds")
    return _num(r, f"{system}_ratio", "×{:.2f}") + (f" ({rounds} round)" if rounds == 1 else "")


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
    return (
        f"sandbash warm exec: {per_wall * 1000:.3f} ms wall, {per_cpu * 1000:.3f} ms cpu per call; "
        f"bash fork+exec: {bash_wall * 1000:.3f} ms"
    )


def precompile() -> None:
    """Write the bytecode of every sandbash module first: a run that finds no .pyc compiles what it
    imports from source (with PYTHONDONTWRITEBYTECODE set, every run does), which once put 0.2-0.4 s of
    compiling into each sandbash row of a table."""
    import compileall

    import sandbash

    compileall.compile_dir(str(Path(sandbash.__file__).parent), quiet=1)


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "_measure":
        return _measure_main(sys.argv[3:])
    if len(sys.argv) == 4 and sys.argv[1] == "_bashkit":
        return _bashkit_main(sys.argv[2], sys.argv[3])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "latency"])
    ap.add_argument("--only", default="", help="comma-separated workloads, or 'core' / 'data' / 'agent'")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--log-mb", type=int, default=20, help="size of the log input (20 or 100)")
    ap.add_argument("--scratch", default=os.environ.get("SANDBASH_BENCH_DIR", ""))
    ap.add_argument("--out", default="bench-results.json")
    ap.add_argument(
        "--bashkit",
        default=os.environ.get("SANDBASH_BENCH_BASHKIT", ""),
        metavar="PYTHON",
        help="a Python with bashkit installed (a separate venv): adds a bashkit column",
    )
    ap.add_argument("--no-variants", action="store_true", help="skip the NAME.VARIANT.sh rewrites")
    ap.add_argument(
        "--slow",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="time a system in one round only where its checking run took longer (0: never)",
    )
    args = ap.parse_args()
    if args.mode == "latency":
        print(latency(500))
        return 0
    names = CORE + DATA + AGENT
    if args.only in ("core", "data", "agent"):
        names = {"core": CORE, "data": DATA, "agent": AGENT}[args.only]
    elif args.only:
        names = args.only.split(",")
    if not args.no_variants:
        names = [v for n in names for v in [n, *([] if "." in n else variants_of(n))]]
    scratch = Path(args.scratch) if args.scratch else Path(tempfile.gettempdir()) / "sandbash-bench"
    scratch.mkdir(parents=True, exist_ok=True)
    precompile()
    rows = run_workloads(names, args.runs, args.log_mb, scratch, args.bashkit, Path(args.out), args.slow)
    Path(args.out).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
