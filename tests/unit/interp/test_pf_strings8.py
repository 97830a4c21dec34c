"""The compiled forms of issue 23's string loops (pf-strings8) keep the limits the general path
charges: a double-quoted argument made by stringfn.dq_word_step ("$a$b", "x$k") counts toward
max_string_length, max_argument_bytes and max_expansion_bytes as Expander._dq_word counts it, and
`let` with words to expand (fastbuiltins' let_words) is limited as the builtin is. Each script runs
compiled and walked; the two must agree, and with the limit each case names."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.errors import ExecutionLimitError

from .walking import walking


def _run(script: str, walker: bool, limits: dict[str, int]) -> tuple[str, str, int]:
    """stdout, the limit that ended the run ("" for none) and the status."""
    with walking(walker):
        try:
            r = Bash().exec(script, limits=limits)
        except ExecutionLimitError as e:
            return e.result.stdout, e.limit, e.result.exit_code
    return r.stdout, "", r.exit_code


# (script, limits, what stdout ends with, the limit that ends the run)
CASES = {
    # each half is under max_string_length; the word they make is not
    "string-length": (
        'a=$(printf "%600s") b=$a; for k in 1 2 3; do : "$k"; echo "x$k"; : "$a$b"; echo "not $k"; done',
        {"max_string_length": 1000},
        "x1\n",
        "max_string_length",
    ),
    # 30 words of 90 characters from two parts each: 2,700 characters in one program's words (a
    # builtin's may be as long as half of max_memory: Limits.shell_words)
    "argument-bytes": (
        'a=$(printf "%40s"); for k in 1 2 3; do echo "$k"; cat 2>/dev/null '
        + " ".join(['"$a-$a$k"'] * 30)
        + '; echo "after $k"; done',
        {"max_argument_bytes": 2000},
        "1\n",
        "max_argument_bytes",
    ),
    # many short words: the run's expansions add up
    "expansion-bytes": (
        'a=$(printf "%50s"); for ((k=0; k<400; k++)); do : "$a$k$a"; done; echo "done $k"',
        {"max_expansion_bytes": 20000},
        "",
        "max_expansion_bytes",
    ),
    "let-string-length": (
        'a=$(printf "%0600d" 0); for k in 1 2 3; do let "x = $k" && echo "x$x"; let "y = $a$a"; echo "not $k"; done',
        {"max_string_length": 1000},
        "x1\n",
        "max_string_length",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dq_words_are_charged_as_the_walker_charges_them(name: str) -> None:
    script, limits, out_end, limit = CASES[name]
    walked = _run(script, True, limits)
    compiled = _run(script, False, limits)
    assert compiled == walked
    stdout, ended_by, status = compiled
    assert (ended_by, status) == (limit, 126), compiled
    assert stdout.endswith(out_end), compiled
    # and without the limit the script runs to its end
    free = _run(script, False, {})
    assert free[1:] == ("", 0) and free[0].endswith(("not 3\n", "done 400\n", "after 3\n")), free
