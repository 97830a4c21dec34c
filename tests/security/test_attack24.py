"""Attack round 24: last round's leftovers (T-TEN-7, T-TEN-8) and new ground.

Fell and fixed: positional parameters made by `set` (or `shift`) inside a run were charged to
nothing: four functions each `set -- $(seq 400000)` held 164 MB beyond the interpreter under
max_memory 64 MiB (each caller's list stays alive under its callee's). They are charged to the
shell's account as they are set (64 bytes and their text each) and given back as they are
replaced, shifted, or dropped when the call or sourced file that made them ends (T-TEN-8).

Fell and fixed (a false limit): the fields a subshell's last expansion charged to max_memory
(`(a=($(seq 100000)))`) were given back by its next command, which never came: twenty such
subshells in a row ended on max_memory 26 MiB holding nothing. A subshell gives them back as it
ends.
"""

from __future__ import annotations

import pytest

from sandbash import Bash, ExecutionLimitError, Limits

MEMORY = Limits(max_memory=26 << 20, max_expansion_bytes=1 << 30, timeout=60)


def _limit_of(script: str, limits: Limits = MEMORY) -> str | None:
    """The limit that ended the run, or None when it completed (status 0 expected)."""
    try:
        r = Bash(limits=limits).exec(script)
    except ExecutionLimitError as e:
        return e.limit
    assert r.exit_code == 0, r
    return None


# each list of 100,000 parameters is charged ~7 MB: four held at once (a caller's list stays
# alive under its callee's `set`) are over 26 MiB, while one at a time fits
PARAMS_HELD = [
    "set -- $(seq 100000); f() { set -- $(seq 100000); g; }; g() { set -- $(seq 100000); h; };"
    " h() { set -- $(seq 100000); }; f",
    "set -- $(seq 100000); f() { set -- $(seq 100000); f2; }; f2() { set -- $(seq 100000); : ; };"
    " f; b=($(seq 60000))",
    "echo 'set -- $(seq 100000); f' > /tmp/s; f() { set -- $(seq 100000); g; }; g() { set -- $(seq 100000);"
    " source /tmp/s2 x; }; echo 'set -- $(seq 100000); set -- $(seq 100000) 1' > /tmp/s2; set -- $(seq 100000); f",
    'set -- $(seq 100000); shift; f() { set -- $(seq 100000); shift 2; g "$@"; }; g() { set -- $(seq 100000); }; f',
]


@pytest.mark.parametrize("script", PARAMS_HELD)
def test_positional_parameters_are_charged_to_max_memory(script: str) -> None:
    assert _limit_of(script) == "max_memory"


# ... and given back: each of these holds one such list at a time, twenty times over (140 MB)
PARAMS_GIVEN_BACK = [
    "for i in $(seq 20); do set -- $(seq 100000); done",
    "for i in $(seq 20); do set -- $(seq 100000); shift 99999; done",
    "f() { set -- $(seq 100000); shift 3; }; for i in $(seq 20); do f; done",
    "echo 'set -- $(seq 100000)' > /tmp/s; f() { source /tmp/s a; }; for i in $(seq 20); do f; source /tmp/s b; done",
    "set -- $(seq 100000); for i in $(seq 20); do (set -- $(seq 100000)); done",
    "for i in $(seq 20); do set - $(seq 100000); set +; done",
    # a subshell's last expansion: what it charged was kept past the subshell's end (no next
    # command of its own gave it back), so these ended on max_memory holding nothing
    "for i in $(seq 20); do (a=($(seq 100000))); done",
    "for i in $(seq 20); do : | b=($(seq 100000)); done",
    "for i in $(seq 20); do b=($(seq 100000)) & wait; done",
]


@pytest.mark.parametrize("script", PARAMS_GIVEN_BACK)
def test_positional_parameters_give_their_charge_back(script: str) -> None:
    assert _limit_of(script) is None


def test_positional_parameters_are_counted_once_in_a_session() -> None:
    session = Bash().session()
    session.exec(":")
    base = session.held
    session.exec("set -- $(seq 10000)")
    grown = session.held - base
    assert 10000 * 64 <= grown <= 10000 * 64 + 48894 + (64 << 10), grown  # (text 48,894 bytes; one grain)
    session.exec("f() { set -- 1; shift; }; f a b; shift 9999; set --")
    assert session.held - base <= len("f() { set -- 1; shift; }") * 4 + (64 << 10)
    # a snapshot's parameters are charged as set: restored, they are counted once too
    again = Bash().restore(session.snapshot())
    again.exec("set -- $(seq 10000)")
    restored = Bash().restore(again.snapshot())
    assert restored.exec("echo $# ${10000}").stdout == "10000 10000\n"
    assert restored.held <= again.held + (64 << 10)
