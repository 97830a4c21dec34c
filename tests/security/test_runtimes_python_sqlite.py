"""Hostile programs in the embedded runtimes (python3 in Monty, sqlite3) end with a named limit.

Each row runs in a forked child (secharness): an endless loop ends at the deadline, a memory bomb
at max_memory (python3: Monty's heap is capped at the run's memory budget; its worker is another
process, so the child's RSS does not see it), endless output at max_output_size, deep recursion
as CPython's RecursionError (a result, status 1). The worker process never reaches a host file,
the host environment or the network.

Monty's runtime does not survive fork(): the python3 rows need a test process in which no python3
ran before the harness forks its children (the full suite runs tests/security before tests/spec
and tests/unit); otherwise each of them ends at once with python3's 127 "not fork-safe" message.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import ENV_CANARY, Outcome, batch, param, verify, verify_bomb

pytest.importorskip("pydantic_monty")

LOOP = "python3 -c 'while True: pass'"
CTE_COUNT = (
    "sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x+1 from c) select count(*) from c'"
)
CTE_PRINT = "sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x+1 from c) select x from c'"

LIMIT_ROWS = [
    param("py-endless-loop", LOOP, timeout=1.5, expect=("timeout",)),
    param(
        "py-endless-loop-in-function",
        "python3 -c '\ndef spin():\n    n = 0\n    while True:\n        n += 1\nspin()'",
        timeout=1.5,
        expect=("timeout",),
    ),
    param("py-endless-loop-in-pipeline", LOOP + " | cat", timeout=1.5, expect=("timeout",)),
    param(
        "py-endless-loop-reading-files",
        "echo x > f; python3 -c '\nwhile True:\n    open(\"f\").read()'",
        timeout=1.5,
        expect=("timeout",),
    ),
    param(
        "py-sleep-past-deadline", "python3 -c 'import time; time.sleep(30)'", timeout=1.0, expect=("timeout",)
    ),
    param(
        "py-endless-output",
        "python3 -c '\nwhile True:\n    print(\"y\" * 1000)'",
        timeout=10,
        expect=("max_output_size",),
    ),
    param(
        "py-endless-output-stderr",
        "python3 -c '\nimport sys\nwhile True:\n    print(\"e\" * 1000, file=sys.stderr)'",
        timeout=10,
        expect=("max_output_size",),
    ),
    param(
        "py-timeout-command",
        "timeout 1 python3 -c 'while True: pass'; echo status=$?",
        timeout=5,
        expect=("result",),
        contains="status=124",
    ),
    param(
        "py-deep-recursion",
        "python3 -c '\ndef f(n):\n    return f(n + 1)\nf(0)' 2>&1 | tail -1",
        timeout=10,
        expect=("result",),
        contains="RecursionError: maximum recursion depth exceeded",
    ),
    param(
        "py-host-file",
        "python3 -c 'print(open(\"/etc/hostname\").read())' 2>&1; echo status=$?",
        timeout=10,
        expect=("result",),
        contains="FileNotFoundError",
    ),
    param(
        "py-host-environment",
        "python3 -c 'import os; print(sorted(os.environ))'",
        timeout=10,
        expect=("result",),
    ),
    param(
        "py-no-socket",
        "python3 -c 'import socket' 2>&1 | tail -2",
        timeout=10,
        expect=("result",),
        contains="No module named 'socket'",
    ),
    # subprocess and os.system run sandbash commands: a host program is not found
    param(
        "py-no-host-process",
        'python3 -c \'import subprocess, os\nprint("rc", subprocess.run(["gcc"]).returncode, '
        'os.system("git status") >> 8)\' 2>/dev/null',
        timeout=10,
        expect=("result",),
        contains="rc 127 127",
    ),
    param(
        "py-recursion-through-subprocess",
        "echo \"import subprocess; subprocess.run(['python3', 'r.py'])\" > r.py; python3 r.py",
        timeout=10,
        expect=("max_substitution_depth", "max_memory"),
    ),
    param(
        "py-shell-bomb-through-os-system",
        "python3 -c 'import os; os.system(\"f() { f | f & }; f\")'",
        timeout=3,
        expect=("max_threads", "timeout", "max_memory"),
    ),
    param("sq-recursive-cte-count", CTE_COUNT, timeout=1.5, expect=("timeout",)),
    param("sq-recursive-cte-output", CTE_PRINT, timeout=10, expect=("max_output_size",)),
    param("sq-cte-in-pipeline", CTE_PRINT + " | tail -1", timeout=1.5, expect=("timeout",)),
    param(
        "sq-attach-host-file",
        "sqlite3 :memory: \"attach '/etc/passwd' as p\" 2>&1; echo status=$?",
        timeout=10,
        expect=("result",),
        contains="status=1",
    ),
    param(
        "sq-vacuum-into-host",
        "sqlite3 :memory: \"create table t(a); vacuum into '/tmp/escape.db'\" 2>&1; echo status=$?",
        timeout=10,
        expect=("result",),
        contains="status=1",
    ),
    param(
        "sq-load-extension",
        "sqlite3 :memory: \"select load_extension('/lib/x.so')\" 2>&1; echo status=$?",
        timeout=10,
        expect=("result",),
        contains="status=1",
    ),
]

BOMBS = [
    param(
        "py-string-bomb",
        "python3 -c 'x = \"a\" * 10**10'",
        timeout=10,
        profile="default",
        expect=("max_memory",),
    ),
    param(
        "py-list-growth",
        "python3 -c '\nx = []\nwhile True:\n    x.append(\"abcdefgh\" * 100)'",
        timeout=20,
        profile="default",
        expect=("max_memory", "timeout"),
    ),
    param(
        "py-reads-endless-stdin",
        "python3 -c 'import sys; sys.stdin.read()' < /dev/zero",
        timeout=10,
        profile="default",
        expect=("max_memory",),
    ),
    param(
        # os.environ's changes are kept by the host (outside Monty's heap): charged to the run
        "py-environ-growth",
        'python3 -c \'\nimport os\nfor i in range(10**6):\n    os.environ["K%d" % i] = "x" * 2000\'',
        timeout=20,
        profile="default",
        expect=("max_memory",),
    ),
    param(
        "sq-blob-growth",
        "sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x+1 from c) "
        "select max(length(b)) from (select zeroblob(1000000) b from c)'",
        timeout=3,
        profile="default",
        expect=("timeout", "max_memory"),
    ),
    param(
        "sq-table-growth",
        "sqlite3 :memory: 'create table t(b); with recursive c(x) as (select 1 union all "
        "select x+1 from c) insert into t select zeroblob(100000) from c'",
        timeout=20,
        profile="default",
        expect=("max_memory",),
    ),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_runtime_snippet_ends_with_a_named_limit")


@pytest.fixture(scope="module")
def bomb_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_runtime_memory_bomb_ends_with_max_memory")


@pytest.mark.parametrize("case", LIMIT_ROWS)
def test_runtime_snippet_ends_with_a_named_limit(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify(case, outcomes[case["id"]])


@pytest.mark.parametrize("case", BOMBS)
def test_runtime_memory_bomb_ends_with_max_memory(
    case: dict[str, Any], bomb_outcomes: dict[str, Outcome]
) -> None:
    verify_bomb(case, bomb_outcomes[case["id"]])


def test_python_sees_no_host_environment(outcomes: dict[str, Outcome]) -> None:
    out = outcomes["py-host-environment"]
    assert ENV_CANARY not in out.text and "SANDBASH_SECURITY_CANARY" not in out.text, out.describe()
