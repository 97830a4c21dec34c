"""awk's command line through the one option parser, checked live against gawk (when awk is
gawk here): stdout, stderr and status."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

import oracle
from sandbash import Bash

SCRIPTS = [
    "awk -f",
    "awk -Z 1",
    "awk --foo 1",
    "awk --fi",
    "awk -v",
    "awk -v x 1",
    "awk -F",
    "awk --source",
    "awk -- 'BEGIN{print 1}'",
    "awk",
    "awk -v x=1 'BEGIN{print x}'",
    "awk -vx=2 -vy=3 'BEGIN{print x y}'",
    "awk --assign=x=4 'BEGIN{print x}'",
    "awk --assign x=5 'BEGIN{print x}'",
    "awk --ass x=6 'BEGIN{print x}'",
    "echo a:b | awk -F: '{print $2}'",
    "echo a:b | awk -F : '{print $2}'",
    "echo a:b | awk --field-separator=: '{print $2}'",
    "awk -e 'BEGIN{printf 1}' -e 'BEGIN{print 2}'",
    "awk --source 'BEGIN{print 3}'",
    "echo 'BEGIN{print 4}' > p.awk; awk -f p.awk",
    "echo 'BEGIN{printf 5}' > p.awk; awk -f p.awk -e 'BEGIN{print 6}'",
    "awk 'BEGIN{print ARGV[1]}' -v",
    "awk 'BEGIN{print ARGV[1], ARGV[2]}' -- -x",
    "echo x | awk -- '{print}' -",
    "awk -f nope.awk",
    "awk -S 'BEGIN{print 8}'",
    "awk -bS 'BEGIN{print 9}'",
    "awk --posix 'BEGIN{print 10}'",
    "awk --version | head -1 | cut -c1-8",
    "awk -V | head -1 | cut -c1-8",
    "awk --help | head -2",
    "awk -h | head -1",
    "awk -F, -v",
    "awk -vx",
]


def _gawk(script: str) -> tuple[str, int] | None:
    if not os.path.exists("/bin/bash") or "gawk" not in os.path.realpath(shutil.which("awk") or ""):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        r = oracle.run(
            ["bash", "-c", "{ " + script + "\n} 2>&1"],
            executable="/bin/bash",
            capture_output=True,
            text=True,
            cwd=tmp,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        )
    return r.stdout, r.returncode


def _head(text: str) -> str:
    """The message and the first usage line: sandbash's usage text is shorter than gawk 5.2's."""
    return "\n".join(text.split("\n")[:2])


@pytest.mark.parametrize("script", SCRIPTS)
def test_awk_command_line_matches_gawk(script: str) -> None:
    real = _gawk(script)
    if real is None:
        pytest.skip("gawk is not the awk here")
    r = Bash().exec("{ " + script + "\n} 2>&1")
    assert (_head(r.stdout), r.exit_code) == (_head(real[0]), real[1])
