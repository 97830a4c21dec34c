"""A line read charges the run's budget inline (`budget.work += 1`, Budget.work_slow at
`work_stop`): each limit still ends a run that only reads a huge input. `mapfile -s` skips every
line, so the run is one command whose only checks are its lines' charges; `while read` is the
compiled read's own charge, beside the loop's."""

from __future__ import annotations

import threading

import pytest

from sandbash import Bash, CancelToken, ExecutionCancelled, ExecutionLimitError

LINES = 3_000_000
SKIP_ALL = "mapfile -s 999999999 a < /big"


def _bash() -> Bash:
    return Bash(files={"/big": b"x\n" * LINES})


def _limit(script: str, **limits: float) -> str:
    with pytest.raises(ExecutionLimitError) as info:
        _bash().exec(script, limits={"max_loop_iterations": 10**9, **limits})
    return info.value.limit


@pytest.mark.parametrize("script", [SKIP_ALL, "while read -r l; do :; done < /big"])
def test_max_work_ends_a_read(script: str) -> None:
    assert _limit(script, max_work=1000) == "max_work"


def test_the_deadline_ends_a_read_of_lines() -> None:
    # (a deadline well inside the read: mapfile skips 3,000,000 lines in ~0.25 s of a quiet machine)
    assert _limit(SKIP_ALL, timeout=0.02, max_work=10**9) == "timeout"


def test_max_command_count_ends_a_loop_of_reads() -> None:
    assert _limit("while read -r l; do :; done < /big", max_command_count=5000, max_work=10**9) == (
        "max_command_count"
    )


def test_max_output_ends_a_loop_of_reads() -> None:
    script = 'while read -r l; do echo "$l"; done < /big'
    assert _limit(script, max_output_size=10_000, max_work=10**9) == "max_output_size"


def test_cancel_ends_a_read_of_lines() -> None:
    token = CancelToken()
    timer = threading.Timer(0.2, token.cancel)
    timer.start()
    try:
        with pytest.raises(ExecutionCancelled):
            _bash().exec(SKIP_ALL, cancel=token, limits={"max_work": 10**9, "timeout": 600})
    finally:
        timer.cancel()


def test_a_sub_deadline_ends_a_read_of_lines() -> None:
    """Under `timeout` the budget is a SubBudget: each unit charged inline goes to its parent
    and the sub-command's own deadline is read."""
    r = _bash().exec(f"timeout 0.3 bash -c '{SKIP_ALL}'; echo $?", limits={"max_work": 10**9, "timeout": 600})
    assert r.stdout == "124\n"


# read -n/-N take the input a piece at a time (builtins/io._read_chars): each piece is charged as
# work, a byte a unit, and the value is bounded as it grows
@pytest.mark.parametrize("opt", ["-N", "-n", "-rN"])
def test_max_string_length_ends_a_read_of_characters(opt: str) -> None:
    script = f"read {opt} 999999999 -d '' v < /big"
    assert _limit(script, max_string_length=100_000, max_work=10**9) == "max_string_length"


@pytest.mark.parametrize("opt", ["-N", "-n"])
def test_max_work_ends_a_read_of_characters(opt: str) -> None:
    assert _limit(f"read {opt} 999999999 -d '' v < /big", max_work=100_000) == "max_work"


def test_the_deadline_ends_a_read_of_dropped_bytes() -> None:
    """NUL bytes are dropped (no value grows): only the clock ends reading /dev/zero."""
    assert _limit("read -N 999999999999 v < /dev/zero", timeout=0.3, max_work=10**12) == "timeout"


def test_a_read_of_characters_is_as_the_bytes_it_took() -> None:
    script = "{ read -N 5000 a; read -rn 7 b; read -N 4 c; echo ${#a} $b $c; } < /big"
    assert _bash().exec(script).stdout == "5000 x x x\n"  # (bash 5.2: b is x, c is "x\\nx\\n")
