"""Attack round 14, new ground: the features added in the last sessions, read as an attacker
(line continuations, arithmetic templates and generated `x=$(( ))` stores, `IFS=... read`,
the SQLite and Monty workers).

Fell and fixed: an unquoted here-document whose lines end in backslashes is joined line by
line (syntax/lexer._join_continued); each join copied and rescanned the whole joined text, so
300,000 continued lines took 3.4 s of CPU and ended 5 s past a 1 s deadline (quadratic; with
max_input_size raised, minutes). The lines are now joined once and only the newest is scanned.

Held (see the report): templates and generated stores across two Bash objects and sessions
(an associative array in one, an indexed one in the other; assoc_expand_once; readonly,
uppercase and nameref targets), recursion in a generated `x=$(( a ))`, `IFS=: read` of an
endless line (max_string_length) and of an endless stream (timeout), nested `$( )`/`${ }`
with continuations (max_substitution_depth, max_ast_depth).
"""

from __future__ import annotations

import pytest
from secharness import run_isolated

from sandbash import Bash


@pytest.mark.parametrize(
    "script",
    [
        "cat <<E | wc -c\n" + "a\\\n" * 1_000_000 + "\nE\n",
        "cat <<-E | wc -c\n" + "\ta\\\n" * 800_000 + "\n\tE\n",
        "cat <<E | wc -c\n" + "\\\\\\\n" * 600_000 + "\nE\n",  # (odd runs: each line goes on)
    ],
    ids=["plain", "tabs", "backslash-runs"],
)
def test_continued_heredoc_lines_are_joined_in_linear_time(script: str) -> None:
    out = run_isolated(
        script,
        limits="default",
        overrides={"timeout": 20, "max_input_size": 8 << 20, "max_heredoc_size": 8 << 20},
    )
    assert out.kind == "result", out.describe()
    assert out.exit_code == 0, out.describe()


@pytest.mark.parametrize(
    ("first", "second", "want"),
    [
        (
            "declare -A a; a[k]=5; for i in {1..300}; do x=$(( a[k] + 1 )); done; echo $x",
            "a=(7 9); k=1; for i in {1..300}; do x=$(( a[k] + 1 )); done; echo $x",
            "10\n",
        ),
        (
            "declare -A m; k=z; for i in {1..300}; do (( m[$k]++ )); done; echo ${m[z]}",
            "m=(1 2); k=1; for i in {1..300}; do (( m[$k]++ )); done; echo ${m[@]}",
            "1 302\n",
        ),
        (
            "for i in {1..300}; do x=$(( i * 2 )); done; echo $x",
            "declare -u x; declare -n y=x; for i in {1..300}; do y=$(( i )); done; echo $x",
            "300\n",
        ),
    ],
    ids=["assoc-then-indexed", "assoc-store-then-indexed", "plain-then-nameref"],
)
def test_generated_arithmetic_keeps_nothing_of_another_bash(first: str, second: str, want: str) -> None:
    """A site's generated code is keyed by its text and shared by the process: what one Bash
    made of it (a key as text, a plain store) never decides another's run."""
    Bash().exec(first)
    r = Bash().exec(second)
    assert (r.stdout, r.exit_code) == (want, 0), r.stderr
