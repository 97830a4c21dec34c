"""/usr/bin/kill (procps-ng's, what `env kill` and `xargs kill` run), declared for the one option
parser: compared live with the real procps kill on harmless forms only (signal 0, invalid
signals, listings, and pids above any pid_max, which no host process can have)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import oracle
from sandbash.testing import run_command

FORMS: list[list[str]] = [
    [],
    ["-0", "99999999"],
    ["-l"],
    ["-L"],
    ["-l", "9"],
    ["-l", "KILL"],
    ["-l", "9", "15"],
    ["-l", "SIGKILL"],
    ["-l", "130"],
    ["-l", "99"],
    ["-l", "FOO"],
    ["-l", "0"],
    ["-l", "sigterm"],
    ["-l", "term"],
    ["-l", "6"],
    ["-l", "29"],
    ["-l", "iot"],
    ["-l=9"],
    ["--list=9"],
    ["--list"],
    ["--list", "9"],
    ["--table"],
    ["-lz"],
    ["-Lz"],
    ["-z", "-l"],
    ["-z"],
    ["-FOO", "99999999"],
    ["-s", "FOO", "99999999"],
    ["-0", "abc"],
    ["--foo", "1"],
    ["-s"],
    ["--signal"],
    ["-s", "0"],
    ["-s", "0", "99999999"],
    ["--signal", "0", "99999999"],
    ["--signal=0", "99999999"],
    ["--sig", "0", "99999999"],
    ["--table=x"],
    ["-0", "--", "99999999"],
    ["-q"],
    ["-q", "x", "99999999"],
    ["-q", "5", "-0", "99999999"],
    ["-V"],
    ["-h"],
    ["-sig", "99999999"],
    ["99999999"],
    ["-0", "99999999", "88888888"],
    ["-0", "99999999", "abc", "88888888"],
    ["-IOT", "99999999"],
    ["-SIGRTMAX", "99999999"],
    ["-RTMIN+1", "99999999"],
    ["-s", "0", "-0", "99999999"],
    ["-0", "+99999999"],
    ["-0", " 99999999"],
]


def _procps_kill() -> str | None:
    path = shutil.which("kill")
    if path is None:
        return None
    version = subprocess.run([path, "--version"], capture_output=True, text=True, check=False).stdout
    return path if "procps-ng" in version else None


@pytest.mark.parametrize("args", FORMS, ids=[" ".join(f) or "(none)" for f in FORMS])
def test_kill_command_as_procps(args: list[str]) -> None:
    real = _procps_kill()
    if real is None:
        pytest.skip("no procps-ng kill here")
    p = oracle.run(["env", "kill", *args], capture_output=True, check=False, env={"PATH": "/usr/bin:/bin"})
    r = run_command(["kill", *args])
    assert (r.stdout, r.stderr, r.status) == (p.stdout, p.stderr, p.returncode)
