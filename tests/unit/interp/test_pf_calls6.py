"""Function calls cheaper (issue 23, pf-calls6): the compiled closures count a command inline
(Budget.commands against Budget.command_stop; Budget.command_slow reads the clock every 64
commands and ends the run past max_command_count), and `return` with literal words has its status
decided as it is compiled. The count stays exact: a script ends with max_command_count at the same
command compiled and walked, and runs whole with a limit of exactly its count."""

from __future__ import annotations

import time

import pytest

import sandbash.interp.evaluator as evaluator_module
from sandbash import Bash
from sandbash.errors import ExecutionLimitError
from sandbash.interp.control import ExitShell
from sandbash.limits import Budget, JobBudget, LimitExceeded, Limits
from sandbash.stdio.streams import BufferWriter

# every closure that counts its command inline, in and out of functions, with `return`s of
# each shape (literal, $?, expanded, an error)
SCRIPTS = {
    "calls": 'f() { local v=$1 w; w=$(( v * 2 )); [ "$w" -gt 4 ] && return 3; return; }\n'
    'for ((k = 0; k < 9; k++)); do f "$k"; echo "$k:$?"; done',
    "returns": "f() { case $1 in 0) return 0 ;; 1) return 7 ;; 2) false; return ;; 3) return -1 ;;"
    ' 4) return "$1" ;; 5) return 300 ;; *) return x 2>&1 ;; esac; }\n'
    'for i in 0 1 2 3 4 5 6 0 1; do f "$i"; echo "$i=$?"; done',
    "builtins": 'x=0; for i in 1 2 3 4 5 6 7 8; do x=$((x + i)); a[i]=$x; let "y = x % 3"; echo "$x $y";'
    " : ; true; test $x -gt 3 && echo big; done",
    "subshell": 'f() { echo "in $1"; }; for i in 1 2 3; do ( f "$i"; f x ); v=$(f "$i"); echo "$v"; done',
}
# a background job counts in the run (a JobBudget: command_slow at every command); the job's
# thread and the script's race to the limit, so only the limit is checked there
JOB = 'g() { for j in 1 2 3; do echo "job $j"; done; }; g & wait; for i in 1 2 3; do g; done'


def _counted(script: str, limits: Limits, walker: bool) -> tuple[bytes, int, int, str]:
    """stdout, status, the commands the run counted and the limit it hit ("" none)."""
    out, err = BufferWriter(), BufferWriter()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluator_module, "TREE_WALKER", walker)
        sh, _ = Bash()._new_shell(limits, None, {}, "/home/user", b"", out, err, "c")
        hit = ""
        try:
            status = sh.run_text(script, None)
        except ExitShell as e:
            status = e.status
        except LimitExceeded as e:
            status, hit = -1, e.limit
    return out.getvalue(), status, sh.rt.budget.commands, hit


@pytest.mark.parametrize("script", list(SCRIPTS.values()), ids=list(SCRIPTS))
def test_the_count_is_exact_compiled_and_walked(script: str) -> None:
    out, status, count, hit = _counted(script, Limits(), False)
    assert (out, status, count, hit) == _counted(script, Limits(), True)
    assert out and not hit
    # a limit of exactly the count runs the script whole; one less ends it at its last command
    assert _counted(script, Limits(max_command_count=count), False) == (out, status, count, "")
    for cap in sorted({count - 1, count // 2, 63, 64, 65, 127, 128, 1} & set(range(1, count))):
        compiled = _counted(script, Limits(max_command_count=cap), False)
        assert compiled == _counted(script, Limits(max_command_count=cap), True)
        assert compiled[2:] == (cap + 1, "max_command_count")


def test_a_job_counts_in_the_run_compiled_and_walked() -> None:
    out, status, count, hit = _counted(JOB, Limits(), False)
    assert (out, status, count, hit) == _counted(JOB, Limits(), True)
    assert out.count(b"job") == 12 and not hit
    for walker in (False, True):
        for cap in (3, 10, count - 1):
            assert _counted(JOB, Limits(max_command_count=cap), walker)[3] == "max_command_count"


def test_an_endless_call_loop_ends_with_each_limit() -> None:
    loop = "f() { local v=$1; return 0; }; while :; do f x; done"
    for walker in (False, True):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(evaluator_module, "TREE_WALKER", walker)
            with pytest.raises(ExecutionLimitError) as e:
                Bash(limits=Limits(max_command_count=5000, max_loop_iterations=10**9)).exec(loop)
            assert e.value.limit == "max_command_count"
            started = time.monotonic()
            with pytest.raises(ExecutionLimitError) as e:
                Bash(limits=Limits(timeout=0.3, max_command_count=10**9, max_loop_iterations=10**9)).exec(
                    loop
                )
            assert e.value.limit == "timeout"
            assert time.monotonic() - started < 5


def test_budget_reads_the_clock_every_64_commands_and_stops_at_the_cap() -> None:
    budget = Budget(Limits(timeout=1000, max_command_count=200))
    for _ in range(63):
        budget.command()
    budget.deadline = time.monotonic() - 1  # (passed: the next read of the clock ends the run)
    with pytest.raises(LimitExceeded) as e:
        budget.command()
    assert e.value.limit == "timeout"
    budget.deadline = float("inf")
    while budget.commands < 200:
        budget.command()
    for _ in range(3):  # (every command past the cap ends the run, as before)
        with pytest.raises(LimitExceeded) as e:
            budget.command()
        assert e.value.limit == "max_command_count"
    assert budget.commands == 203
    assert Budget(Limits(max_command_count=0)).command_stop == 1


def test_a_job_counts_its_commands_in_the_run() -> None:
    run = Budget(Limits(max_command_count=200))
    job = JobBudget(run)
    for _ in range(70):
        job.command()
        run.command()
    assert run.commands == 140 and job.command_stop == 0
    with pytest.raises(LimitExceeded):
        for _ in range(100):
            job.command()
    assert run.commands == 201
