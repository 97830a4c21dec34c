"""Attacks of round 13 (sec-sqlite13) on the other runtimes' own allocations.

jq charges an estimate of what it builds and, when the estimates pile up, sets the charge to what
the live values come to (commands/jq/memory.py). Arrays made by builtins that collect a user
filter's outputs were not among the live values while they grew, so each measurement forgot what
their elements held: `[range(300)] | map("x" * 900000)` held 281 MB resident under the hardened
profile's 64 MB and printed its answer; sort_by/group_by/unique_by/min_by keys, map_values,
with_entries and walk the same. They are collected as `[f]` is now (JqMemory.collect) or kept
live while they grow. Held already: `[.[] | f]`, reduce, `[limit(n; repeat(f))]`, lua string.rep /
table.concat / big tables, python3 lists, dicts and strings (its worker's cap), awk arrays.
Rows run in forked children (secharness).
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

BIG = '"x" * 900000'  # under the hardened 1 MB string limit; 300 of them are 270 MB

JQ_ROWS = [
    param(f"jq-{name}", f"jq -n '[range(300)] | {f} | length'", timeout=6.0, expect=("max_memory",))
    for name, f in [
        ("map", f"map({BIG})"),
        ("map-many", f"map({BIG}, 1)"),
        ("map-values", f"map_values({BIG})"),
        ("map-values-object", f"[.[] | {{(tostring): .}}] | add | map_values({BIG})"),
        ("with-entries", f"with_entries(.value = {BIG})"),
        ("sort-by", f"sort_by({BIG})"),
        ("group-by", f"group_by({BIG} + tostring)"),
        ("unique-by", f"unique_by({BIG} + tostring)"),
        ("min-by", f"min_by({BIG}, 1)"),
        ("walk", f'walk(if type == "number" then {BIG} else . end)'),
        ("walk-object", f'[.[] | {{(tostring): .}}] | add | walk(if type == "number" then {BIG} else . end)'),
        # held before: the array constructor, reduce, a repeat under limit
        ("collect", f"[.[] | {BIG}]"),
        ("reduce", f"reduce .[] as $i ([]; . + [{BIG}])"),
        ("limit-repeat", f"[limit(300; repeat({BIG}))]"),
    ]
] + [
    # small ones keep their answers
    param(
        "jq-map-small",
        "jq -nc '[range(5)] | map(. * 2), sort_by(-.), walk(.)'",
        expect=("result",),
        contains="[0,2,4,6,8]\n[4,3,2,1,0]\n[0,1,2,3,4]\n",
    ),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_jq_collected_values_are_charged")


@pytest.mark.parametrize("case", JQ_ROWS)
def test_jq_collected_values_are_charged(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify(case, outcomes[case["id"]])


# python3: Monty caps its heap, and its worker process is killed when allocations outrun that
# check; the second was shown as the program's own MemoryError (status 1, no limit named)
PY_ROWS = [
    param(
        "python3-nested-lists",
        "python3 -c 'x = [[i] for i in range(20000000)]; print(len(x))'",
        timeout=6.0,
        expect=("max_memory",),
    ),
    param(
        "python3-set-of-strings",
        "python3 -c 'x = {str(i) for i in range(20000000)}; print(len(x))'",
        timeout=6.0,
        expect=("max_memory",),
    ),
    # the program's own MemoryError stays its own
    param(
        "python3-own-memory-error",
        "python3 -c 'raise MemoryError(\"mine\")'; echo status=$?",
        timeout=6.0,
        expect=("result",),
        contains="status=1\nTraceback (most recent call last):",
    ),
]


@pytest.fixture(scope="module")
def py_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_python_worker_killed_for_memory_is_max_memory")


@pytest.mark.parametrize("case", PY_ROWS)
def test_python_worker_killed_for_memory_is_max_memory(
    case: dict[str, Any], py_outcomes: dict[str, Outcome]
) -> None:
    verify(case, py_outcomes[case["id"]])
