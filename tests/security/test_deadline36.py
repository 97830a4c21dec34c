"""Deadline round 36: pure-Python passes over a large input with no deadline check in them (sec-deadline36).

`fmt` filled a whole input with no check (one 9 MB line, or a million short ones, went seconds past a 2 s
timeout) and read its words a Python step a character; `column` split, measured and wrote a table
with no check, and `-l N` copied the rest of the line once a cell (quadratic); `printf %q`, `${x@Q}`
and `declare -p` quoted a value a Python step a character (3.4 s for 9 MB). fmt and column now check
the deadline every so many words or cells; the quoting is a str.replace for each character to
escape that the value holds. A loop reads the clock every 64 commands, and `declare -p` of a 9 MB
value is one command that wrote 11 MB: a builtin's long output now reads the clock (Shell.out).

Each row does or repeats the work until the run's timeout ends it: it must end by the `timeout` limit, on
time. Rows run in a forked child (secharness)."""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, verify_bomb

TIME = ("timeout",)
_LINE = "yes 'ab cd' | head -c 9000000 | tr '\\n' ' ' > /tmp/l; "
_LOOP = "while :; do {cmd} > /dev/null; done"

SLOW = {
    "fmt-one-long-line": _LINE + _LOOP.format(cmd="fmt /tmp/l"),
    "fmt-narrow": _LINE + _LOOP.format(cmd="fmt -w 10 /tmp/l"),
    "fmt-many-lines": "seq 1000000 > /tmp/l; " + _LOOP.format(cmd="fmt /tmp/l"),
    "fmt-split-only": "seq 1000000 > /tmp/l; " + _LOOP.format(cmd="fmt -s /tmp/l"),
    "column-table-one-long-line": _LINE + _LOOP.format(cmd="column -t /tmp/l"),
    "column-table-many-lines": "seq 1000000 | paste - - - > /tmp/l; " + _LOOP.format(cmd="column -t /tmp/l"),
    # -l N copied the rest of the line for each of its N - 1 cells
    "column-columns-limit": _LINE + _LOOP.format(cmd="column -t -l 1000000 /tmp/l"),
    # -s split a Python step a character
    "column-separators": _LINE + _LOOP.format(cmd="column -t -s 'a ' /tmp/l"),
    "column-fill": "seq 1000000 > /tmp/l; " + _LOOP.format(cmd="column -c 200 /tmp/l"),
    "column-fill-rows": "seq 1000000 > /tmp/l; " + _LOOP.format(cmd="column -x -c 200 /tmp/l"),
    # the quoting of a 9 MB value: backslashes, $'...' for control characters, declare -p's "..."
    "printf-q": "x=$(yes 'ab cd' | head -c 9000000); " + _LOOP.format(cmd='printf %q "$x"'),
    "printf-q-control": "x=$(yes $'a\\001' | head -c 9000000); " + _LOOP.format(cmd='printf %q "$x"'),
    # (4 MB: its quoted form stays under the default max_string_length of 10 MB)
    "at-Q-control": "x=$(yes $'a\\001' | head -c 4000000); " + _LOOP.format(cmd='echo "${x@Q}"'),
    # a builtin's long output is one step of a loop, which reads the clock every 64 steps
    "declare-p": "x=$(yes 'a$b' | head -c 9000000); " + _LOOP.format(cmd="declare -p x"),
    # ${x//pat/rep} on a text that is not ASCII: RE2's binding encoded the whole text at each
    # search, quadratic (20,000 characters of é: 2.3 s); now it searches one UTF-8 form
    "patsub-non-ascii": "x=$(yes 'é€' | head -c 3000000); " + _LOOP.format(cmd='echo "${x//?/.}"'),
    "set-listing": "x=$(yes 'a b' | head -c 9000000); " + _LOOP.format(cmd="set"),
}
CASES = [
    param(
        name,
        script,
        timeout=2,
        profile="default",
        overrides={"max_memory": 1 << 30},
        expect=TIME,
    )
    for name, script in sorted(SLOW.items())
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_a_long_input_meets_the_deadline")


@pytest.mark.parametrize("case", CASES)
def test_a_long_input_meets_the_deadline(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])
