"""Loops and builtins made cheaper per iteration (interp/loops.py LoopFrame.tick with the budget's
checkpoint inline, fastbuiltins.plain_builtin: a builtin run without the dispatch) keep the run's
policy, audit and limits: a denied builtin is denied at every iteration of a compiled loop, an
audit sees every command, and the command-count, iteration, work and time limits still end an
endless loop with the right limit. Compiled and walked runs are compared on the same scripts."""

from __future__ import annotations

import time
from typing import cast

import pytest

from sandbash import Bash, ExecutionLimitError, Limits, Policy
from sandbash.audit import Audit
from sandbash.interp.loops import LoopFrame
from sandbash.interp.state import ShellState
from sandbash.limits import Budget, DeadlineExpired, LimitExceeded, SubBudget

from .loopshapes import LOOPS


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize(
    ("policy", "cmd", "name"),
    [
        (Policy(["cat"], implicit_builtins=False), ": x", ":"),
        (Policy(["cat"], implicit_builtins=False), "true", "true"),
        (Policy(deny=["printf"]), "printf %s x", "printf"),
        (Policy(deny=["echo"]), 'echo "$i"', "echo"),
        (Policy(deny=["printf"]), 'v=$(printf %s x); echo "[$v]"', "printf"),
    ],
)
def test_a_denied_builtin_is_denied_at_every_iteration(
    loop: str, policy: Policy, cmd: str, name: str
) -> None:
    r = Bash(policy=policy).exec(loop.format(cmd=cmd))
    assert r.stderr.count(f"{name}: policy denied this command") == 3, r.stderr
    assert "x" not in r.stdout


@pytest.mark.parametrize("loop", LOOPS)
def test_an_audit_sees_every_builtin_of_a_loop(loop: str) -> None:
    r = Bash(audit=Audit()).exec(loop.format(cmd=": tick"))
    starts = [e for e in r.events if e["kind"] == "command.start" and e["argv"] == [":", "tick"]]
    assert len(starts) == 3
    assert all(e["command_kind"] == "builtin" for e in starts)


ENDLESS = [
    "while :; do :; done",
    "until false; do true; done",
    "for ((;;)); do :; done",
    "for ((i=0;;i++)); do echo $i >/dev/null; done",
    "f() { :; }; while true; do f; done",
    "while :; do [ 1 = 1 ]; let x=1; printf -v y %s 1; done",
]


@pytest.mark.parametrize("script", ENDLESS)
@pytest.mark.parametrize(
    ("limits", "limit"),
    [
        ({"max_command_count": 3000, "max_loop_iterations": 10**9, "max_work": 10**12}, "max_command_count"),
        (
            {"max_loop_iterations": 2000, "max_command_count": 10**9, "max_work": 10**12},
            "max_loop_iterations",
        ),
        ({"max_work": 2500, "max_command_count": 10**9, "max_loop_iterations": 10**9}, "max_work"),
    ],
)
def test_endless_loops_end_with_the_counting_limit(script: str, limits: dict[str, int], limit: str) -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=Limits(**limits)).exec(script)
    assert e.value.limit == limit


@pytest.mark.parametrize("script", ENDLESS)
def test_endless_loops_end_with_the_timeout(script: str) -> None:
    limits = Limits(timeout=0.3, max_command_count=10**12, max_loop_iterations=10**12, max_work=10**15)
    cpu = time.process_time()
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=limits).exec(script)
    assert e.value.limit == "timeout"
    assert time.process_time() - cpu < 30  # (generous: a loaded host)


def test_the_iteration_limit_is_exact_with_a_builtin_body() -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=Limits(max_loop_iterations=100)).exec("for ((i=1;;i++)); do echo $i; done")
    assert e.value.limit == "max_loop_iterations"
    assert e.value.result.stdout.split() == [str(i) for i in range(1, 101)]


class _State:
    loop_depth = 0
    last_status = 0


def _frame(budget: Budget, limit: int = 10**9) -> LoopFrame:
    return LoopFrame(cast(ShellState, _State()), budget, limit)


def test_tick_charges_the_run_budget_as_its_checkpoint_does() -> None:
    # (the steps are charged at the loop's checks and as it ends: see LoopFrame)
    budget = Budget(Limits(max_work=150))
    with _frame(budget) as loop:
        for _ in range(100):
            loop.tick()
    other = Budget(Limits(max_work=150))
    for _ in range(100):
        other.checkpoint()
    assert (budget.work, budget.ticks) == (other.work, other.ticks) == (100, 100 % 64)
    loop = _frame(budget)
    for _ in range(50):
        loop.tick()
    with pytest.raises(LimitExceeded) as e:
        loop.tick()
    assert e.value.limit == "max_work"


def test_tick_reads_the_clock_every_64_charges() -> None:
    budget = Budget(Limits(timeout=1000))
    loop = _frame(budget)
    for _ in range(63):
        loop.tick()
    budget.deadline = time.monotonic() - 1  # (passed: the next read of the clock ends the run)
    with pytest.raises(LimitExceeded) as e:
        loop.tick()
    assert e.value.limit == "timeout"
    budget.ticks = 0
    budget.deadline = float("inf")
    budget.stopped = True  # (the run is over: a job's loop ends at its next clock read)
    with pytest.raises(BaseException) as c:
        for _ in range(64):
            loop.tick()
    assert type(c.value).__name__ == "Cancelled"


def test_tick_on_a_sub_budget_checks_its_own_deadline() -> None:
    parent = Budget(Limits())
    sub = SubBudget(parent, 1000)
    loop = _frame(sub)
    for _ in range(10):
        loop.tick()
    assert parent.work == 10 and sub.ticks == 10
    sub.own_deadline = time.monotonic() - 1
    with pytest.raises(DeadlineExpired):
        for _ in range(64):
            loop.tick()


SCRIPTS = [
    # a function defined, then unset, mid-loop shadows the builtin; enable -n; command/builtin
    'for i in 1 2 3 4; do : $i; echo "$_"; [ $i = 2 ] && { :() { echo fn; }; }; [ $i = 3 ] && unset -f :; done',
    "for i in 1 2 3; do true; echo $?; enable -n true; done 2>&1; enable true",
    'echo() { builtin echo "f:$*"; }; for i in 1 2; do echo $i; command echo c$i; builtin echo b$i; done',
    "for i in 1 2 3; do [ $i = 2 ] && set -x; : $i; set +x; done 2>&1",
    "(for i in 1 2 3; do false; [ $i = 2 ] && set -e; done); echo $?",
    "for i in 1 2 3; do : w$i; [ $i = 2 ] && trap 'echo \"d $BASH_COMMAND\"' DEBUG; done; trap - DEBUG",
    'a=(x y); for i in 1 2; do unset \'a[0]\'; echo "[$_]"; declare v=$i; echo "[$_] ${PIPESTATUS[*]}"; done',
    "declare -i n; for n in 1+1 3*3; do echo $n; done; declare -n r; for r in a b; do :; done; echo $r",
    "set -o posix; :() { echo fn; }; for i in 1 2; do :; echo $?; done",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_compiled_runs_as_walked(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import sandbash.interp.evaluator as evaluator

    compiled = Bash().exec(script)
    monkeypatch.setattr(evaluator, "TREE_WALKER", True)
    walked = Bash().exec(script)
    assert (compiled.stdout, compiled.stderr, compiled.exit_code) == (
        walked.stdout,
        walked.stderr,
        walked.exit_code,
    )
