"""Against the machine's own /proc: a process and a listening socket the TEST starts (sandbash
itself starts nothing) appear in ps and ss."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from sandbash import Bash
from sandbash.host import HostAccess

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not os.path.isdir("/proc/self"), reason="needs Linux /proc"
)


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(["sleep", "60"])  # harmless and bounded; killed at the end
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_a_child_of_the_test_appears_in_ps(sleeper: subprocess.Popen[bytes]) -> None:
    b = Bash(host=HostAccess())
    r = b.exec(f"ps -p {sleeper.pid} -o pid,ppid,comm,args")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["PID", "PPID", "COMMAND", "COMMAND"]
    assert lines[1].split() == [str(sleeper.pid), str(os.getpid()), "sleep", "sleep", "60"]
    r = b.exec(f"ps -e | awk '$1 == {sleeper.pid} {{print $4, $5}}'")
    assert r.stdout == "sleep 60\n"
    # the default listing is the session of the process sandbash runs in: this test and its child
    r = b.exec("ps | awk 'NR > 1 {print $1}'")
    assert {str(os.getpid()), str(sleeper.pid)} <= set(r.stdout.split())


def test_a_socket_the_test_listens_on_appears_in_ss() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = Bash(host=HostAccess()).exec(f"ss -tlnH | awk '$5 == \"127.0.0.1:{port}\" {{print $1, $2}}'")
    assert (r.stdout, r.exit_code) == ("tcp LISTEN\n", 0), r.stderr


def test_a_process_that_ended_is_not_listed() -> None:
    proc = subprocess.Popen(["true"])
    proc.wait(timeout=10)
    r = Bash(host=HostAccess()).exec(f"ps -p {proc.pid}")
    assert r.exit_code == 1 and r.stdout == "   PID TTY              TIME CMD\n"


def test_real_uname_free_and_ip() -> None:
    b = Bash(host=HostAccess())
    u = os.uname()
    r = b.exec("uname -s; uname -n; uname -r; uname -m")
    assert r.stdout.split("\n")[:4] == [u.sysname, u.nodename, u.release, u.machine]
    r = b.exec("free | awk 'NR == 2 {print $1}'; ip link show lo | head -1 | cut -d: -f2")
    assert r.stdout == "Mem:\n lo\n", r.stderr


def test_uname_matches_the_real_uname() -> None:
    # -s -n -r -v -m, not -a: some distributions' uname -a adds a processor and platform sandbash leaves out
    real = subprocess.run(
        ["uname", "-snrvm"], capture_output=True, text=True, timeout=10
    )  # harmless, bounded
    assert Bash(host=HostAccess()).exec("uname -snrvm").stdout == real.stdout
    assert Bash().exec("uname -n").stdout == "sandbox\n"  # not without host mode
