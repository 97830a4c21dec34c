"""The command line: -c, -s, script files, arguments, exit status."""

from __future__ import annotations

import subprocess
import sys


def _run(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "sandbash", *args], input=stdin, capture_output=True, timeout=60)


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
