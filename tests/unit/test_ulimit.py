"""ulimit: the sandbox's limits as the starting values, per-shell changes, an unprivileged user's rules.

Formats and the rules that do not depend on the host's limits are in tests/spec/cases/builtin_options.txt
(checked against /bin/bash); these cases need the sandbox's own values.
"""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.limits import Limits

LIMITS = Limits(max_file_descriptors=64, timeout=10.0, max_pipeline_depth=20, max_filesystem_bytes=1 << 20)


def run(script: str) -> tuple[str, int]:
    r = Bash(limits=LIMITS).exec("{ " + script + "\n} 2>&1")
    out = r.stdout if isinstance(r.stdout, str) else r.stdout.decode()
    return out, r.exit_code


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # the sandbox's limits, soft and hard
        ("ulimit -n; ulimit -Hn", "64\n64\n"),
        ("ulimit -t; ulimit -u; ulimit -f", "10\n20\n1024\n"),
        ("ulimit", "1024\n"),
        (
            "ulimit -n -t",
            "open files                          (-n) 64\ncpu time                   (seconds, -t) 10\n",
        ),
        # lowering persists for the shell; the soft limit may go back up to the hard one
        ("ulimit -Sn 10; ulimit -n; ulimit -Sn 64; ulimit -n", "10\n64\n"),
        ("ulimit -n 10; ulimit -n; ulimit -Hn", "10\n10\n"),
        # a hard limit never goes up again, and the sandbox's are hard
        (
            "ulimit -n 10; ulimit -n 20; echo $?",
            "bash: line 1: ulimit: open files: cannot modify limit: Operation not permitted\n1\n",
        ),
        (
            "ulimit -n 100; echo $?",
            "bash: line 1: ulimit: open files: cannot modify limit: Operation not permitted\n1\n",
        ),
        (
            "ulimit -Sn 100; echo $?",
            "bash: line 1: ulimit: open files: cannot modify limit: Invalid argument\n1\n",
        ),
        (
            "ulimit -t unlimited; echo $?",
            "bash: line 1: ulimit: cpu time: cannot modify limit: Operation not permitted\n1\n",
        ),
        ("ulimit -Sn 16; ulimit -Hn 32; ulimit -Sn hard; ulimit -n", "32\n"),
        (
            "ulimit -Hn 32; echo $?",
            "bash: line 1: ulimit: open files: cannot modify limit: Invalid argument\n1\n",
        ),
        # children inherit, the parent keeps its own
        ("(ulimit -n 8; ulimit -n); ulimit -n", "8\n64\n"),
        ("ulimit -n 16; (ulimit -n); echo $(ulimit -n)", "16\n16\n"),
        ("ulimit -n 16 | cat; ulimit -n", "64\n"),
        ("f() { ulimit -n 12; }; f; ulimit -n", "12\n"),
    ],
)
def test_ulimit(script: str, expected: str) -> None:
    assert run(script) == (expected, 0)


def test_each_run_starts_from_the_sandbox_values() -> None:
    bash = Bash(limits=LIMITS)
    bash.exec("ulimit -n 5")
    r = bash.exec("ulimit -n")
    assert r.stdout in ("64\n", b"64\n")


def test_listing_shows_the_sandbox_values() -> None:
    out, status = run("ulimit -a")
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 17
    assert "open files                          (-n) 64" in lines
    assert "file size                   (blocks, -f) 1024" in lines
    assert "max user processes                  (-u) 20" in lines
