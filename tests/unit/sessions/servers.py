"""Real Redis and PostgreSQL servers on 127.0.0.1 (or given: SANDBASH_TEST_REDIS_URL /
SANDBASH_TEST_POSTGRES_URL), for the store tests (conftest.py) and benchmarks/sessions_load.py.
Each yields the server's URL, or raises Unavailable saying why it cannot start."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], seconds: float = 30) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
        time.sleep(0.1)
    return False


class Unavailable(Exception):
    """The server cannot be had here (the reason is the message)."""


def _need(module: str, why: str) -> None:
    try:
        __import__(module)
    except ImportError:
        raise Unavailable(why) from None


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    given = os.environ.get("SANDBASH_TEST_REDIS_URL")
    if given:
        yield given
        return
    _need("redis", "the redis package is not installed (pip install 'sandbash[redis]')")
    exe = shutil.which("redis-server")
    if exe is None:
        raise Unavailable("redis-server is not installed (Debian: apt-get install redis-server)")
    port = _free_port()
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen(
            [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", d],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            if not _wait_port(port, proc):
                raise Unavailable("redis-server did not start on 127.0.0.1")
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(10)


def _pg_bin() -> str | None:
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(found)
    for base in (
        sorted(os.listdir("/usr/lib/postgresql"), reverse=True)
        if os.path.isdir("/usr/lib/postgresql")
        else []
    ):
        cand = f"/usr/lib/postgresql/{base}/bin"
        if os.path.exists(f"{cand}/initdb"):
            return cand
    return None


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    given = os.environ.get("SANDBASH_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    _need("psycopg", "psycopg is not installed (pip install 'sandbash[postgres]')")
    bindir = _pg_bin()
    if bindir is None:
        raise Unavailable("PostgreSQL server binaries are not installed (Debian: apt-get install postgresql)")
    # the server refuses to run as root: run it as the postgres user when we are root
    as_user: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            raise Unavailable("running as root without runuser: cannot start PostgreSQL as another user")
        as_user = ["runuser", "-u", "postgres", "--"]
    d = tempfile.mkdtemp(prefix="sandbash-pg-")
    if as_user:
        shutil.chown(d, "postgres")
    port = _free_port()
    init = subprocess.run(
        [*as_user, f"{bindir}/initdb", "-D", f"{d}/data", "-U", "sandbash", "--auth=trust"],
        capture_output=True,
    )
    if init.returncode != 0:
        shutil.rmtree(d, ignore_errors=True)
        raise Unavailable(f"initdb failed: {init.stderr.decode(errors='replace')[-200:]}")
    proc = subprocess.Popen(
        [
            *as_user,
            f"{bindir}/postgres",
            "-D",
            f"{d}/data",
            "-p",
            str(port),
            "-k",
            d,
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if not _wait_port(port, proc):
            raise Unavailable("PostgreSQL did not start on 127.0.0.1")
        time.sleep(0.3)
        yield f"postgresql://sandbash@127.0.0.1:{port}/postgres"
    finally:
        proc.terminate()
        proc.wait(20)
        shutil.rmtree(d, ignore_errors=True)
