"""Attacks of round 13 (sec-sqlite13): SQLite's own memory, charged to the run.

- SQLite allocates on its C heap for what a query builds: the sorter of ORDER BY / GROUP BY, the
  ephemeral tables of UNION, DISTINCT, IN (SELECT ...) and recursive CTEs, window partitions,
  TEMP tables. None of it was charged and nothing capped it per run (SQLite's heap limits are
  process-wide): `ORDER BY randomblob(100)` over a recursive CTE held 910 MB resident after 4 s
  under the hardened profile's 64 MB (ended by the timeout), a window 315 MB, a recursive UNION
  387 MB, a TEMP table 413 MB, a GROUP BY 347 MB in 3 s. SQLite now runs in a worker process
  (runtimes/sqlite_child.py) whose data segment is capped at the run's memory left: each of these
  ends with max_memory, the worker's peak within the budget and its slack.
- `PRAGMA temp_store_directory='/host/dir'` and `PRAGMA temp_store=FILE` made SQLite create its
  temporary files in any host directory the process could write (and fill the host's disk with a
  spilled sort); both are refused by the authorizer now (reading them is not).
- One long C call (a sort of millions of rows) ran past the deadline: the parent now kills the
  worker at the deadline, inside the call.
Rows run in forked children (secharness); the worker's own peak is read in a child process.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

from sandbash import Bash


def _rows(n: int) -> str:
    return f"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT {n})"


ROWS = _rows(30_000_000)
# one statement: a sort that grows its worker by about 40 MB (charged only at its answer before)
SORT_400K = f"{_rows(400_000)} SELECT count(*) FROM (SELECT x, randomblob(100) b FROM c ORDER BY b);"


def _sql(query: str, both: bool = False) -> str:
    """The query run by sqlite3 and its status (`both`: its errors on stdout too, in order)."""
    return f'sqlite3 :memory: "{query}"{" 2>&1" if both else ""}; echo status=$?'


# each would hold hundreds of MB (measured above) long before its 10 s deadline
MEMORY_ROWS = [
    param(
        "sqlite-order-by",
        _sql(f"{ROWS} SELECT count(*) FROM (SELECT x, randomblob(100) b FROM c ORDER BY b);"),
        timeout=10.0,
        expect=("max_memory",),
    ),
    param(
        "sqlite-window-partition",
        _sql(
            f"{ROWS} SELECT max(n) FROM (SELECT count(*) OVER (ORDER BY x ROWS BETWEEN UNBOUNDED "
            "PRECEDING AND UNBOUNDED FOLLOWING) n, randomblob(100) FROM c);"
        ),
        timeout=10.0,
        expect=("max_memory",),
    ),
    param(
        "sqlite-recursive-union",
        _sql(
            "WITH RECURSIVE c(x,b) AS (SELECT 1, randomblob(100) UNION SELECT x+1, randomblob(100) "
            "FROM c WHERE x<30000000) SELECT count(*) FROM c;"
        ),
        timeout=10.0,
        expect=("max_memory",),
    ),
    param(
        "sqlite-temp-table",
        _sql(f"CREATE TEMP TABLE t AS {ROWS} SELECT randomblob(100) FROM c; SELECT count(*) FROM t;"),
        timeout=10.0,
        expect=("max_memory",),
    ),
    param(
        "sqlite-group-by",
        _sql(f"{ROWS} SELECT count(*) FROM (SELECT hex(randomblob(40)) k, count(*) FROM c GROUP BY k);"),
        timeout=10.0,
        expect=("max_memory",),
    ),
    param(
        "sqlite-in-list",
        _sql(f"{ROWS} SELECT count(*) FROM c WHERE x IN (SELECT hex(randomblob(60)) || x FROM c);"),
        timeout=10.0,
        expect=("max_memory",),
    ),
    param(
        "sqlite-distinct-wide",
        _sql(f"{ROWS} SELECT count(DISTINCT randomblob(1000)) FROM c;"),
        timeout=10.0,
        expect=("max_memory",),
    ),
    # the database itself is bounded as before (max_page_count): the limit, not "disk full"
    param(
        "sqlite-table-grows",
        _sql(f"CREATE TABLE t AS {ROWS} SELECT randomblob(1000) FROM c;"),
        timeout=10.0,
        expect=("max_memory",),
    ),
    # a sort of 4 M small rows is one long C call: killed at the deadline, within it
    param(
        "sqlite-long-sort-killed-at-deadline",
        _sql(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 4000000) "
            "SELECT count(*) FROM (SELECT x FROM c ORDER BY random());"
        ),
        timeout=1.0,
        expect=("timeout",),
        profile="default",
        overrides={"max_memory": 1 << 30},
    ),
    # host temporary files: refused, with what was refused named
    param(
        "sqlite-temp-store-directory",
        _sql("PRAGMA temp_store_directory='/tmp';", both=True),
        expect=("result",),
        contains="not authorized (PRAGMA temp_store_directory=/tmp is not available in sandbash)\nstatus=1",
    ),
    param(
        "sqlite-temp-store-file",
        _sql("PRAGMA temp_store=FILE;", both=True),
        expect=("result",),
        contains="not authorized (PRAGMA temp_store=FILE is not available in sandbash)\nstatus=1",
    ),
    param(
        "sqlite-temp-store-default",
        _sql("PRAGMA temp_store=0;", both=True),
        expect=("result",),
        contains="(PRAGMA temp_store=0 is not available in sandbash)\nstatus=1",
    ),
    param(
        "sqlite-temp-store-memory-and-reads-stay",
        _sql("PRAGMA temp_store=memory; PRAGMA temp_store; PRAGMA temp_store_directory;", both=True),
        expect=("result",),
        contains="2\nstatus=0",
    ),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_sqlite_memory_is_the_runs")


@pytest.mark.parametrize("case", MEMORY_ROWS)
def test_sqlite_memory_is_the_runs(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify(case, outcomes[case["id"]])


# Runs whose memory would be the test process's own if SQLite were not in its worker: each in a
# child Python (its address space capped), which prints what it saw as JSON. The forked harness
# watches its child's memory, not the worker's (a process of its own): the child reads that too.
CHILD_PRELUDE = """
import json, resource, sys
from sandbash import Bash, ExecutionLimitError
def run(bash, script, **kw):
    try:
        r = bash.exec(script, **kw)
        return {"limit": None, "stdout": r.stdout}
    except ExecutionLimitError as e:
        return {"limit": e.limit, "stdout": None}
def peaks():
    # (this process's own high-water mark from /proc: ru_maxrss of RUSAGE_SELF keeps the peak of the
    # process it was forked from across exec, which is the whole test run's pytest in CI)
    with open("/proc/self/status") as f:
        hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    return {"worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, "self": hwm * 1024}
"""
CHILD_AS = 1 << 30


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_AS, CHILD_AS))


def _child(body: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD_PRELUDE + body],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_cap,
    )
    assert proc.returncode == 0, proc.stderr
    got: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return got


# the worker's peak may pass max_memory (64 MB) by its own Python and SQLite's (about 15 MB
# resident at start) and the slack of its cap (sqlite_child.DATA_SLACK)
WORKER_PEAK = (64 + 16 + 24) << 20
BOMB = f"{ROWS} SELECT count(*) FROM (SELECT x, randomblob(100) b FROM c ORDER BY b);"


@pytest.mark.parametrize(
    "query",
    [BOMB, f"CREATE TEMP TABLE t AS {ROWS} SELECT randomblob(100) FROM c;"],
    ids=["order-by", "temp-table"],
)
def test_the_workers_peak_stays_within_the_budget(query: str) -> None:
    script = f'sqlite3 :memory: "{query}"'
    got = _child(
        f"out = run(Bash(limits='hardened'), {script!r}, limits={{'timeout': 20}})\n"
        "print(json.dumps({**out, **peaks()}))"
    )
    assert got["limit"] == "max_memory", got
    assert 0 < got["worker"] <= WORKER_PEAK, got
    assert got["self"] <= 200 << 20, got  # nothing of it in sandbash's own process


def test_a_database_is_not_written_when_its_run_ends_at_a_limit() -> None:
    bomb = f'sqlite3 t.db "INSERT INTO k VALUES(2); {BOMB}"'
    got = _child(
        "s = Bash(limits='hardened').session()\n"
        "s.exec(\"sqlite3 t.db 'CREATE TABLE k(v); INSERT INTO k VALUES(1);'\")\n"
        f"out = run(s, {bomb!r}, limits={{'timeout': 20}})\n"
        "after = s.exec(\"sqlite3 t.db 'SELECT group_concat(v) FROM k'\").stdout\n"
        "print(json.dumps({**out, 'after': after}))"
    )
    assert got["limit"] == "max_memory", got
    # the whole image as it was before the run: no part of the failed run's changes
    assert got["after"] == "1\n", got


def test_a_small_query_after_a_limit_is_not_charged_for_it() -> None:
    """A worker that grew large is not kept: the next run's worker starts small."""
    bomb = f'sqlite3 :memory: "{BOMB}"'
    got = _child(
        "b = Bash(limits='hardened')\n"
        f"first = run(b, {bomb!r}, limits={{'timeout': 20}})\n"
        "after = [run(b, \"sqlite3 :memory: 'SELECT 1'\") for _ in range(3)]\n"
        "print(json.dumps({'first': first['limit'], 'after': after}))"
    )
    assert got["first"] == "max_memory", got
    assert got["after"] == [{"limit": None, "stdout": "1\n"}] * 3, got


def test_a_kept_worker_holds_nothing_of_the_last_run() -> None:
    """The worker of a run that ended cleanly serves the next one (sessions of any tenant): its
    TEMP tables, pragmas and functions are gone."""
    b = Bash()
    first = b.exec("sqlite3 :memory: 'CREATE TEMP TABLE t(x); INSERT INTO t VALUES(7); PRAGMA cache_size=7;'")
    assert first.exit_code == 0, first.stderr
    r = b.exec("sqlite3 :memory: 'PRAGMA cache_size; SELECT * FROM t;'")
    assert r.stdout == "-2000\n"
    assert r.stderr == "Error: in prepare, no such table: t\n" and r.exit_code == 1


def test_two_workers_of_a_pipeline_share_the_budget() -> None:
    """Each worker is charged as it grows (its progress handler reports between opcodes), not
    only when it answers: one sort that grows its worker by about 40 MB fits in 64 MB, two at
    once in a pipeline do not (before, each was capped at the budget left when it started:
    about 134 MB resident together, and the run's result). Run in a child Python, not a forked
    one: its pipeline stages overlap as they do in any embedding process."""
    one = f"sqlite3 :memory: '{SORT_400K}'"
    two = f"{one} | {one}"
    got = _child(
        "b = Bash(limits='hardened')\n"
        f"print(json.dumps({{'one': run(b, {one!r}, limits={{'timeout': 30}}),"
        f" 'two': run(b, {two!r}, limits={{'timeout': 30}})}}))"
    )
    assert got["one"] == {"limit": None, "stdout": "400000\n"}, got
    assert got["two"]["limit"] == "max_memory", got
