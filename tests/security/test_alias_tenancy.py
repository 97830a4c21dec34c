"""T-TEN-5 for aliases read into substitutions: in POSIX mode bash expands a `$( )`'s aliases when it
reads the script, so the body sandbash parses holds the run's own alias values. The process-wide
arithmetic templates (expand/arithwords.py) kept the parts of the first word of a given text, and a
second Bash (another tenant) running the same text ran the first one's alias: `$(( $(number) + 1 ))`
gave 7 (the other run's `alias number='echo 6'`) instead of 6 from its own function. Each shape is
run by one tenant with the alias, then by another with a function of that name, in a fresh process,
and compared with the second tenant alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

SHAPES = [
    "echo $(( $(number) + 1 ))",
    "echo $(( $(( $(number) )) + 1 ))",
    "echo $(( `number` + 1 ))",
    "(( x = $(number) + 1 )); echo $x",
    'let "x = $(number) + 1"; echo $x',
    "for ((i=$(number); i<7; i++)); do echo $i; done",
    "a=(1 2 3 4 5 6 7 8); echo ${a[$(number)]} $(( a[$(number)] ))",
    'y=$(number); echo $y "$(number)" $(number | cat) ${u:-$(number)}',
    "f() { echo $(number); }; f; cat <(number)",
    "case $(number) in *) echo $(( $(number) * 2 ));; esac",
]

CHILD = r"""
import json, sys
from sandbash import Bash
shapes = json.loads(sys.argv[1])
if sys.argv[2] == "both":
    for s in shapes:
        other = Bash()
        for _ in range(3):
            other.exec("shopt -s expand_aliases; set -o posix; alias number='echo 6'\n" + s)
print(json.dumps([Bash().exec("number() { echo 5; }\n" + s).stdout for s in shapes]))
"""


@pytest.mark.parametrize("walker", ["", "1"], ids=["compiled", "walked"])
def test_one_runs_aliases_never_reach_another_through_shared_caches(walker: str) -> None:
    env = {**os.environ, "SANDBASH_TREE_WALKER": walker}

    def outputs(mode: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(SHAPES), mode],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=True,
        )
        result: list[str] = json.loads(done.stdout)
        return result

    alone, after = outputs("alone"), outputs("both")
    assert alone[0] == "6\n"  # (its own function)
    for shape, want, got in zip(SHAPES, alone, after, strict=True):
        assert got == want, shape
