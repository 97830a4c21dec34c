"""`max_threads` ends the whole run as soon as any thread of it hits the limit, and a limit a thread
already hit is what the run reports even when the deadline passes before another thread looks."""

from __future__ import annotations

import ctypes
import time

import pytest

from sandbash import Bash, Limits
from sandbash.custom import Effects, command
from sandbash.errors import ExecutionLimitError
from sandbash.limits import Budget, LimitExceeded, LimitKind


def _over(kind: LimitKind, limits: Limits) -> LimitExceeded:
    try:
        raise limits.over(kind)
    except LimitExceeded as e:  # (raised, so that it carries a traceback as a real one does)
        return e


@pytest.mark.parametrize("kind", [LimitKind.MAX_THREADS, LimitKind.MAX_COMMAND_COUNT, LimitKind.MAX_MEMORY])
def test_a_recorded_limit_wins_over_a_deadline_passed_since(kind: LimitKind) -> None:
    limits = Limits(timeout=1)
    budget = Budget(limits, clock=time.monotonic() - 10)  # its deadline passed 9 s ago
    with pytest.raises(LimitExceeded) as plain:
        budget.check_time()
    assert plain.value.kind is LimitKind.TIMEOUT
    budget.fail(_over(kind, limits))  # a thread hit `kind` before this one got to look
    for _ in range(2):  # every later check says the same
        with pytest.raises(LimitExceeded) as got:
            budget.check_time()
        assert (got.value.kind, got.value.value) == (kind, getattr(limits, kind.value))


def test_the_recorded_limit_keeps_no_frames() -> None:
    """The run's budget keeps a copy: the error that was raised holds the frames it went through."""
    limits = Limits()
    budget = Budget(limits)
    error = _over(LimitKind.MAX_THREADS, limits)
    assert error.__traceback__ is not None
    budget.fail(error)
    assert budget.failure is not None and budget.failure.__traceback__ is None
    assert (budget.failure.kind, budget.failure.value) == (LimitKind.MAX_THREADS, limits.max_threads)


# A pipeline stage that cannot start the threads it needs; the last stage (in the main thread) would
# go on for seconds: before the fix the stage's error came back only through the join, after it.
@pytest.mark.parametrize(
    "script",
    [
        "(: | :) | { sleep 5; echo reached; }",
        "{ : | :; } | { sleep 5; echo reached; }",
        "f() { (: | :) | { sleep 5; echo reached; }; }; f",
        "(: | :) | while :; do sleep 0.01; done; echo reached",
        "(true | (: | :)) | { sleep 5; echo reached; }",
        "x=$( (: | :) | { sleep 5; echo reached >&2; } ); echo reached",
    ],
)
def test_max_threads_in_a_pipeline_stage_ends_the_run_at_once(script: str) -> None:
    limits = Limits(max_threads=1, timeout=20)
    with pytest.raises(ExecutionLimitError) as got:
        Bash(limits=limits).exec(script)
    assert got.value.limit == "max_threads"
    assert "reached" not in got.value.result.stdout + got.value.result.stderr


# Any limit a stage hits ends the run as soon: the parent used to re-raise it only after its own
# last stage (here a `sleep 5` that then wrote `reached`).
_STAGE_LIMITS = [
    ("while :; do :; done", "max_loop_iterations", {"max_loop_iterations": 100}),
    ("f() { f; }; f", "max_call_depth", {"max_call_depth": 20}),
    ("x=$(printf %2000s)", "max_string_length", {"max_string_length": 1000}),
    ("echo {1..5000}", "max_brace_expansion_results", {"max_brace_expansion_results": 100}),
    ("a=(); while :; do a+=(x); done", "max_array_elements", {"max_array_elements": 50}),
    ("x=$( x=$( x=$( x=$(:) ) ) )", "max_substitution_depth", {"max_substitution_depth": 2}),
]
_SHAPES = ["({}) | {{ sleep 5; echo reached; }}", ": | {{ {}; }} | {{ sleep 5; echo reached; }}"]


@pytest.mark.parametrize("shape", _SHAPES)
@pytest.mark.parametrize(("stage", "limit", "bound"), _STAGE_LIMITS)
def test_a_limit_in_a_pipeline_stage_ends_the_run_at_once(
    stage: str, limit: str, bound: dict[str, int], shape: str
) -> None:
    with pytest.raises(ExecutionLimitError) as got:
        Bash(limits=Limits().with_overrides(timeout=20, **bound)).exec(shape.format(stage))
    assert got.value.limit == limit
    assert "reached" not in got.value.result.stdout


def test_jobs_that_keep_starting_jobs_end_with_the_limit_not_quietly() -> None:
    """Each job works 0.15 s (of wall time), starts the next and works on, so the 10th is due well
    after the 1 s grace the end of a script gives working jobs: the run ended with status 0 then
    (a fork bomb on a slow host did too). The grace starts again while jobs start jobs. (Each gap is
    far below the grace: with 0.3 s gaps a loaded CI host once stalled one past it.)"""
    wait = "local t=${EPOCHREALTIME/./}; while (( ${EPOCHREALTIME/./} - t < 150000 )); do :; done"
    chain = f"g() {{ {wait}; g & while :; do :; done; }}; g & echo started"
    with pytest.raises(ExecutionLimitError) as got:
        Bash(limits=Limits(max_threads=10, timeout=60)).exec(chain)
    assert got.value.limit == "max_threads"
    assert got.value.result.stdout == "started\n"


# what the process does during a gen-2 collection of a loaded host: every thread stands still (the GIL
# is held) for seconds of wall time, here without using the CPU (a PyDLL call keeps the GIL)
_LIBC = ctypes.PyDLL(None)


@command("stall", effects=Effects.NONE)
def _stall(args: list[str], ctx: object) -> int:
    """stall SECONDS: hold the GIL that long."""
    _LIBC.usleep(int(float(args[0]) * 1_000_000))
    return 0


def test_a_stall_of_the_whole_process_does_not_use_up_the_grace() -> None:
    """The second job stands the whole process still for 1.3 s, longer than the 1 s grace, works a
    little (the waiting loop runs again meanwhile) and starts a third, past max_threads=2. When the
    grace was wall time, the end of the script saw it over after the stall and the run ended with
    status 0 (3 of 4 runs); a stall now counts as one step of the grace."""
    work = "local t=${EPOCHREALTIME/./}; while (( ${EPOCHREALTIME/./} - t < 50000 )); do :; done"
    chain = f"g() {{ stall 1.3; {work}; g & while :; do :; done; }}; g & echo started"
    with pytest.raises(ExecutionLimitError) as got:
        Bash(limits=Limits(max_threads=2, timeout=60), commands=[_stall]).exec(chain)
    assert got.value.limit == "max_threads"
    assert got.value.result.stdout == "started\n"


# Jobs the script leaves behind end with it: asleep at once, working or blocked (on a pipe no one
# writes or reads, their terminal's input) after the grace, never held until the deadline.
_LEFT_BEHIND = [
    "sleep 30 & echo started",
    "while :; do :; done & echo started",
    "f() { while :; do :; done; }; f & f & echo started",
    "{ while :; do :; done | cat; } & echo started",
    "(while :; do :; done) & disown; echo started",
    "exec 3< <(sleep 30); cat <&3 & echo started",
    "exec 3> >(sleep 30); yes >&3 & echo started",
    "coproc cat; echo started",
    "coproc yes; echo started",
    "read x & echo started",
    "{ sleep 30 | cat; } & echo started",
    "while :; do sleep 0.01; done & echo started",
]


@pytest.mark.parametrize("script", _LEFT_BEHIND)
def test_jobs_left_behind_end_with_the_run(script: str) -> None:
    start = time.monotonic()
    r = Bash(limits=Limits(timeout=60)).exec(script, stdin="")
    assert (r.stdout, r.exit_code) == ("started\n", 0)
    assert time.monotonic() - start < 30  # (the grace is 1 s on a quiet host; the deadline 60 s)


def test_a_job_left_working_ends_with_its_exec_in_a_session() -> None:
    s = Bash(limits=Limits(timeout=60)).session()
    assert s.exec("while :; do :; done & echo started").stdout == "started\n"
    r = s.exec("jobs; wait; echo waited $?")
    assert (r.stdout, r.stderr, r.exit_code) == ("waited 0\n", "", 0)


def test_the_first_grace_ends_quietly_at_the_deadline() -> None:
    """The deadline comes during the grace of a job the script left working (the job stands the
    process still past it): the job is dropped and the script's result stands."""
    work = "local t=${EPOCHREALTIME/./}; while (( ${EPOCHREALTIME/./} - t < 500000 )); do :; done"
    job = f"g() {{ {work}; stall 2; while :; do :; done; }}; g & echo started"
    r = Bash(limits=Limits(timeout=2), commands=[_stall]).exec(job)
    assert (r.stdout, r.exit_code) == ("started\n", 0)
