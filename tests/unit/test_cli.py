"""The command line: -c, -s, script files, arguments, exit status."""

from __future__ import annotations

import subprocess
import sys


def _run(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "sandbash", *args], input=stdin, capture_output=True, timeout=60
    )


def test_dash_c_with_name_and_args() -> None:
    p = _run(["-c", 'echo "$0|$1|$2"; exit 4', "myname", "a", "b c"])
    assert p.stdout == b"myname|a|b c\n"
    assert p.returncode == 4


def test_dash_s_reads_script_from_stdin() -> None:
    p = _run(["-s", "x"], b'echo "hi $1"\n')
    assert p.stdout == b"hi x\n"


def test_script_file(tmp_path: object) -> None:
    import pathlib

    path = pathlib.Path(str(tmp_path)) / "s.sh"
    path.write_text('echo "$0 $#"\n')
    p = _run([str(path), "1", "2"])
    assert p.stdout == f"{path} 2\n".encode()


def test_limit_error_is_reported() -> None:
    p = _run(["--limits", "hardened", "-c", "while :; do :; done"])
    assert p.returncode == 126
    assert p.stderr.startswith(b"bash: sandbash limit exceeded: max_")


def test_dash_c_commands_read_the_hosts_stdin() -> None:
    p = _run(["-c", 'read first; echo "[$first]"; tr a-z A-Z; wc -l < /dev/stdin'], b"one\ntwo\nthree\n")
    assert p.stdout == b"[one]\nTWO\nTHREE\n0\n"


def test_stdin_that_never_ends_is_cut_by_the_timeout() -> None:
    # an inherited pipe nobody writes to must not hang the run
    import os

    r, w = os.pipe()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "sandbash", "--timeout", "1", "-c", "cat; echo after"],
            stdin=r,
            capture_output=True,
            timeout=30,
        )
    finally:
        os.close(r)
        os.close(w)
    out, err = proc.stdout, proc.stderr
    assert b"after" not in out
    assert b"timeout" in err
    assert proc.returncode != 0


def test_unknown_limits_profile_is_a_usage_error() -> None:
    p = _run(["--limits", "nope", "-c", "echo"])
    assert p.returncode == 2
    assert b"unknown limits profile" in p.stderr
