"""LoopFrame (interp/loops.py) alone, with a fake state and budget: the iteration guard, the loop
depth while it runs, and what a `break` or `continue` that reaches it means. The loops themselves
are checked against bash in tests/spec/cases/loops.txt."""

from __future__ import annotations

from typing import cast

import pytest

from sandbash.interp.control import BreakLoop, ContinueLoop, LoopControl
from sandbash.interp.loops import LoopFrame
from sandbash.interp.state import ShellState
from sandbash.limits import Budget, LimitExceeded


class FakeState:
    def __init__(self) -> None:
        self.loop_depth = 0
        self.last_status = 0


class FakeBudget:
    def __init__(self) -> None:
        self.checks = 0

    def checkpoint(self, n: int = 1) -> None:
        self.checks += n


def frame(limit: int = 10) -> tuple[LoopFrame, FakeState, FakeBudget]:
    state, budget = FakeState(), FakeBudget()
    return LoopFrame(cast(ShellState, state), cast(Budget, budget), limit), state, budget


def test_depth_counts_while_the_loop_runs_even_when_it_ends_by_an_exception() -> None:
    loop, state, _ = frame()
    inner = LoopFrame(cast(ShellState, state), cast(Budget, FakeBudget()), 5)
    with loop:
        assert state.loop_depth == 1
        with inner:
            assert state.loop_depth == 2
        assert state.loop_depth == 1
    assert state.loop_depth == 0
    with pytest.raises(KeyError), loop:
        raise KeyError("x")
    assert state.loop_depth == 0


@pytest.mark.parametrize("limit", [0, 1, 3, 10])
def test_tick_allows_exactly_the_limit_and_checks_the_budget_each_time(limit: int) -> None:
    loop, _, budget = frame(limit)
    for _ in range(limit):
        loop.tick()
    assert budget.checks == limit
    with pytest.raises(LimitExceeded) as e:
        loop.tick()
    assert e.value.limit == "max_loop_iterations"
    assert budget.checks == limit  # refused before the deadline check


@pytest.mark.parametrize(
    ("exc", "last_status", "status"),
    [
        (BreakLoop(1), 5, 0),  # `break`: the loop ends with 0, whatever ran before
        (BreakLoop(1, 1), 5, 1),  # `break 0` and friends carry their own status
        (ContinueLoop(1), 5, 0),  # `continue`: the builtin's status, 0, whatever ran before (bash)
        (ContinueLoop(1), 0, 0),
    ],
)
def test_caught_at_its_own_loop(exc: LoopControl, last_status: int, status: int) -> None:
    loop, state, _ = frame()
    state.last_status = last_status
    assert loop.caught(exc) == status
    assert exc.levels == 1


@pytest.mark.parametrize(
    ("exc", "until", "ends", "status"),
    [
        # a `while` condition holds with the builtin's status 0: the body skipped with it
        (BreakLoop(1), False, True, 0),
        (ContinueLoop(1), False, False, 0),
        # an `until` condition holds with 0: the loop ends with its body's last status (7)
        (BreakLoop(1), True, True, 7),
        (ContinueLoop(1), True, True, 7),
        # `break 0` (status 1): the other way round
        (BreakLoop(1, 1), False, True, 7),
        (BreakLoop(1, 1), True, True, 1),
    ],
)
def test_tested_in_a_condition(exc: LoopControl, until: bool, ends: bool, status: int) -> None:
    loop, _, _ = frame()
    assert loop.tested(exc, until, 7) == (ends, status)


@pytest.mark.parametrize(("until", "status"), [(True, 7), (False, 0)])
def test_tested_for_an_outer_loop_carries_the_status_out(until: bool, status: int) -> None:
    loop, _, _ = frame()
    exc = ContinueLoop(2)
    with pytest.raises(ContinueLoop) as e:
        loop.tested(exc, until, 7)
    assert e.value is exc and exc.levels == 1 and exc.status == status


@pytest.mark.parametrize("exc", [BreakLoop(2), BreakLoop(9, 1), ContinueLoop(2), ContinueLoop(4)])
def test_caught_for_an_outer_loop_goes_on_outwards_one_level_less(exc: LoopControl) -> None:
    loop, _, _ = frame()
    levels = exc.levels
    with pytest.raises(type(exc)) as raised:
        loop.caught(exc)
    assert raised.value is exc
    assert exc.levels == levels - 1


def test_break_and_continue_say_which_they_are() -> None:
    assert BreakLoop(1).breaks and not ContinueLoop(1).breaks
    assert isinstance(BreakLoop(1), BaseException) and not isinstance(BreakLoop(1), Exception)
