"""Job lookup (interp/jobs.py) and Job.wait (interp/runtime.py) alone. What wait, kill and disown
print for each kind of argument is checked against bash in tests/spec/cases/jobspec.txt."""

from __future__ import annotations

import threading
import time
from typing import cast

import pytest

from sandbash.interp.jobs import JOBSPEC, NEITHER, PID, AmbiguousJob, find_job, job_for
from sandbash.interp.runtime import Job
from sandbash.limits import Budget, LimitExceeded, LimitKind


def table() -> dict[int, Job]:
    jobs = [Job(1, 101, None, "sleep 5"), Job(2, 102, None, "grep x file"), Job(4, 104, None, "sleep 9")]
    return {j.jid: j for j in jobs}


@pytest.mark.parametrize(
    ("spec", "jid"),
    [
        ("%1", 1),
        ("%4", 4),
        ("%3", None),
        ("%", 4),
        ("%%", 4),
        ("%+", 4),
        ("%-", 2),
        ("%sleep 9", 4),
        ("%grep", 2),
        ("%?x f", 2),
        ("%?9", 4),
        ("%?nothing", None),
        ("%cat", None),
    ],
)
def test_find_job(spec: str, jid: int | None) -> None:
    found = find_job(table(), spec)
    assert (found.jid if found else None) == jid


@pytest.mark.parametrize(
    ("spec", "text"), [("%sleep", "sleep"), ("%s", "s"), ("%?sleep", "sleep"), ("%?e", "e")]
)
def test_find_job_ambiguous(spec: str, text: str) -> None:
    """A prefix or text that more than one job matches names none (bash: "ambiguous job spec")."""
    with pytest.raises(AmbiguousJob) as info:
        find_job(table(), spec)
    assert info.value.text == text


def test_find_job_with_one_or_no_job() -> None:
    one = {7: Job(7, 107, None, "x")}
    assert find_job(one, "%-") is one[7]
    assert find_job({}, "%%") is None and find_job({}, "%-") is None


@pytest.mark.parametrize(
    ("arg", "signed", "kind", "jid"),
    [
        ("%2", False, JOBSPEC, 2),
        ("%9", False, JOBSPEC, None),
        ("104", False, PID, 4),
        ("999", False, PID, None),
        ("-104", True, PID, None),  # a process group: no job has a negative pid
        ("-104", False, NEITHER, None),
        ("abc", True, NEITHER, None),
        ("", False, NEITHER, None),
        ("--5", True, NEITHER, None),
        ("1x", False, NEITHER, None),
    ],
)
def test_job_for(arg: str, signed: bool, kind: str, jid: int | None) -> None:
    got_kind, job = job_for(table(), arg, signed)
    assert (got_kind, job.jid if job else None) == (kind, jid)


class FakeBudget:
    def __init__(self, fail_after: int | None = None) -> None:
        self.checks = 0
        self.fail_after = fail_after

    def check_time(self) -> None:
        self.checks += 1
        if self.fail_after is not None and self.checks > self.fail_after:
            raise LimitExceeded(LimitKind.TIMEOUT, 1)


def test_wait_returns_at_once_for_a_finished_job() -> None:
    job = Job(1, 1, None, "x")
    job.done.set()
    budget = FakeBudget()
    assert job.wait(cast(Budget, budget)) is True
    assert budget.checks == 0


def test_wait_blocks_until_the_job_ends_checking_the_budget() -> None:
    job = Job(1, 1, None, "x")
    budget = FakeBudget()
    threading.Timer(0.05, job.done.set).start()
    assert job.wait(cast(Budget, budget), 0.01) is True
    assert budget.checks >= 1


def test_wait_until_gives_up_at_the_time() -> None:
    job = Job(1, 1, None, "x")
    budget = FakeBudget()
    start = time.monotonic()
    assert job.wait(cast(Budget, budget), 0.01, until=start + 0.05) is False
    assert time.monotonic() - start < 5  # generous: the point is that it returns
    assert budget.checks >= 1
    assert job.wait(cast(Budget, budget), 0.01, until=start - 1) is False  # already past


def test_wait_ends_with_the_waiters_limit() -> None:
    job = Job(1, 1, None, "x")
    with pytest.raises(LimitExceeded):
        job.wait(cast(Budget, FakeBudget(fail_after=2)), 0.001)
