"""Load test of stateless MCP replicas on one session store (loopback only, bounded).

Starts N `sandbash mcp --transport http --stateless --store URL` replicas on 127.0.0.1, runs S
sessions at once, each making C calls in a random replica order, kills one replica (SIGKILL)
half-way through and starts it again, then checks every session's final state against what the
calls would give one after another: nothing lost, nothing applied twice.

Each call is idempotent by its sequence number (a call that a killed replica saved but could not
answer is sent again; the script sees it already applied):

    [ "${last:--1}" -lt K ] && { n=$((n+1)); last=K; echo cK >> /tmp/log; }; echo $n

    python benchmarks/sessions_load.py --stores sqlite,redis,postgres            # 200 x 20 per store
    python benchmarks/sessions_load.py --sessions 20 --calls 5 --stores sqlite  # a quick look

Redis and PostgreSQL are started here on 127.0.0.1 when their servers are installed (as the
tests do). Prints calls per second and p50/p99 latency per store; exit status 1 if any
session's state is wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit" / "sessions"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Replica:
    def __init__(self, store: str, port: int) -> None:
        self.store, self.port = store, port
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        self.launch()
        self.wait()

    def launch(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sandbash",
                "mcp",
                "--transport",
                "http",
                "--port",
                str(self.port),
                "--store",
                self.store,
                "--stateless",
                "--cwd",
                "/tmp",
                "--max-sessions",
                "100000",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def wait(self) -> None:
        end = time.monotonic() + 120
        while time.monotonic() < end:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5),
            ):
                return
            time.sleep(0.1)
        raise RuntimeError(f"replica on port {self.port} did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def _command(k: int) -> str:
    return f'[ "${{last:--1}}" -lt {k} ] && {{ n=$((n+1)); last={k}; echo c{k} >> /tmp/log; }}; echo $n'


async def run_store(store: str, replicas: int, sessions: int, calls: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    reps = [Replica(store, free_port()) for _ in range(replicas)]
    for r in reps:
        r.launch()  # all at once: a loaded host takes a while to start each
    for r in reps:
        r.wait()
    latencies: list[float] = []
    retries = 0
    done = 0
    total = sessions * calls
    killed = asyncio.Event()

    http = httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=400))
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
    }

    async def call(sid: str, command: str) -> dict[str, Any]:
        """One stateless tools/call on a random replica; a failure goes again, to any replica."""
        nonlocal retries
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": command, "session_id": sid}},
        }
        for attempt in range(60):
            rep = rng.choice(reps)
            try:
                resp = await http.post(rep.url, json=body, headers=headers)
                resp.raise_for_status()
                data = next(
                    json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:")
                )
                return dict(data["result"]["structuredContent"])
            except Exception:
                retries += 1
                await asyncio.sleep(0.05 * (attempt + 1))
        raise RuntimeError("a call failed 60 times")

    async def session_task(i: int) -> tuple[str, str]:
        nonlocal done
        first = await call(f"new-{i}", _command(0))  # a name the server did not issue: it issues one
        sid = first["session_id"]
        done += 1
        for k in range(1, calls):
            started = time.monotonic()
            await call(sid, _command(k))
            latencies.append(time.monotonic() - started)
            done += 1
        final = await call(sid, "echo $n; cat /tmp/log | tr '\\n' ' '")
        return sid, final["stdout"]

    async def chaos() -> None:
        while done < total // 2:
            await asyncio.sleep(0.05)
        victim = reps[-1]
        await asyncio.to_thread(victim.kill)
        killed.set()
        await asyncio.sleep(1.0)
        await asyncio.to_thread(victim.start)

    started = time.monotonic()
    try:
        chaos_task = asyncio.create_task(chaos())
        results = await asyncio.gather(*(session_task(i) for i in range(sessions)))
        elapsed = time.monotonic() - started
        await chaos_task  # the killed replica is back before the replicas stop
    finally:
        await http.aclose()
        for r in reps:
            r.stop()
    want_log = " ".join(f"c{k}" for k in range(calls)) + " "
    wrong = [sid for sid, out in results if out != f"{calls}\n{want_log}"]
    lat = sorted(latencies)
    return {
        "store": store.split(":")[0],
        "calls": total,
        "seconds": elapsed,
        "calls_per_s": total / elapsed,
        "p50_ms": 1000 * statistics.median(lat) if lat else 0.0,
        "p99_ms": 1000 * lat[int(len(lat) * 0.99) - 1] if lat else 0.0,
        "retries": retries,
        "replica_killed": killed.is_set(),
        "wrong_sessions": len(wrong),
    }


@contextlib.contextmanager
def store_url(kind: str) -> Iterator[str | None]:
    """A store URL for `kind`, starting the server here as the tests do (None when it cannot be had)."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as d:
            yield f"sqlite://{d}/sessions.db"
        return
    from servers import Unavailable, postgres_server, redis_server  # tests/unit/sessions/servers.py

    try:
        with redis_server() if kind == "redis" else postgres_server() as url:
            yield url
    except Unavailable as e:
        print(f"{kind}: skipped ({e})", file=sys.stderr)
        yield None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--stores", default="sqlite,redis,postgres")
    p.add_argument("--replicas", type=int, default=3)
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    rows = []
    for kind in args.stores.split(","):
        with store_url(kind) as url:
            if url is None:
                continue
            rows.append(asyncio.run(run_store(url, args.replicas, args.sessions, args.calls, args.seed)))
    print(
        f"{'store':10} {'calls':>6} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'retries':>7} {'killed':>6} "
        f"{'wrong':>5}"
    )
    for r in rows:
        print(
            f"{r['store']:10} {r['calls']:6d} {r['calls_per_s']:8.1f} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f} "
            f"{r['retries']:7d} {r['replica_killed']!s:>6} {r['wrong_sessions']:5d}"
        )
    return 1 if any(r["wrong_sessions"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
