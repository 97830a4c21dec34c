#!/usr/bin/env python3
"""Box mode's hot path: `bash -c true` through the alias (a fresh client process, a round trip to the
shell service, one sandbash run) against `/bin/bash -c true`, as a ratio of medians.

    python benchmarks/alias_roundtrip.py              # 60 timed pairs (alternating which goes first)
    python benchmarks/alias_roundtrip.py --runs 200

The service runs in a child process (`sandbash serve`) on a socket in a temporary directory; the
alias scripts are the ones `sandbash install-alias` writes. Also reported: the client's import time
(`python -X importtime`, its own modules only) and the entry-point form (`sandbash-alias`, which
imports the package first). Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOML = """[agent]
home = "{d}/home"
workspace = "{d}/ws"
"""


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv}: status {done.returncode}: {done.stderr.decode(errors='replace')}")
    return elapsed


def start_service(d: Path) -> subprocess.Popen[bytes]:
    for sub in ("home", "ws"):
        (d / sub).mkdir()
    (d / "box.toml").write_text(TOML.format(d=d))
    sock = d / "box.sock"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbash", "serve", "--socket", str(sock), "--config", str(d / "box.toml")],
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 60
    while not sock.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the service did not start")
        time.sleep(0.05)
    subprocess.run(
        [sys.executable, "-m", "sandbash", "install-alias", str(d / "bin"), "--socket", str(sock)],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    return proc


def import_ms(alias_dir: Path) -> float:
    """The alias module's own import time (python -X importtime), in milliseconds."""
    code = f"import sys; sys.path.insert(0, {str(alias_dir)!r}); import alias"
    done = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-c", code], capture_output=True, text=True
    )
    line = next(line for line in done.stderr.splitlines() if re.search(r"\|\s+alias$", line))
    return int(line.split("|")[1]) / 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        service = start_service(d)
        try:
            alias = [str(d / "bin/bash"), "-c", "true"]
            real = ["/bin/bash", "-c", "true"]
            # what the `sandbash-alias` entry point runs: it imports the package (and the interpreter) first
            entry = [
                sys.executable,
                "-c",
                "import sys; from sandbash.box.alias import main; sys.exit(main())",
                "-c",
                "true",
            ]
            env = {**os.environ, "SANDBASH_SOCKET": str(d / "box.sock")}
            for _ in range(5):  # warm the service and the page cache
                timed(alias)
                timed(real)
            ours, theirs = [], []
            for i in range(args.runs):
                pair = [(alias, ours), (real, theirs)]
                for argv, sink in pair if i % 2 == 0 else pair[::-1]:
                    sink.append(timed(argv))
            entry_times = [timed(entry, env) for _ in range(10)]
            alias_dir = Path(__import__("sandbash.box", fromlist=["alias"]).__file__ or "").parent
            mod_ms = import_ms(alias_dir)
        finally:
            service.terminate()
            service.wait(10)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(
        f"alias round trip   bash -c true  median {a * 1000:7.1f} ms  (p90 "
        f"{sorted(ours)[int(len(ours) * 0.9)] * 1000:.1f} ms, {len(ours)} runs)"
    )
    print(f"/bin/bash          bash -c true  median {b * 1000:7.1f} ms")
    print(f"ratio (alias / bash): {a / b:.2f}x")
    print(f"alias module import (python -X importtime): {mod_ms:.2f} ms")
    print(
        f"sandbash-alias entry point (imports the package): median {statistics.median(entry_times) * 1000:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
