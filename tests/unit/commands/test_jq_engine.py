"""jq engine properties: bounded by the run's limits, deep values, path
expressions, and the compile/evaluate API used by yq."""

from __future__ import annotations

import json
import time

import pytest

from sandbash.commands.jq.engine import CompileErrors, Program, evaluate
from sandbash.commands.jq.runtime import Rt
from sandbash.limits import LimitExceeded, Limits
from sandbash.testing import run_command

SMALL = Limits(max_work=200_000, timeout=20)


@pytest.mark.parametrize(
    ("program", "limit"),
    [
        ("[limit(1e9; repeat(1))]", "max_work"),
        ("[range(1e9)] | length", "max_work"),
        ("last(range(1e12))", "max_work"),
        ("[recurse(. + 1)]", "max_work"),
        ("0 | until(false; . + 1)", "max_work"),
        ("def f: f; f", "max_call_depth"),
        ("def f: 1 + f; f", "max_call_depth"),
        ('"x" * 1e9', "max_string_length"),
        ('reduce range(40) as $i ("xy"; . + .)', "max_string_length"),
        ("reduce range(40) as $i ([1]; . + .)", "max_array_elements"),
    ],
)
def test_runaway_programs_end_with_a_limit(program: str, limit: str) -> None:
    with pytest.raises(LimitExceeded) as e:
        run_command(["jq", "-n", program], limits=SMALL)
    assert e.value.limit == limit


def test_parse_depth_limit_is_jqs() -> None:
    ok = run_command(["jq", "-c", "length"], stdin=b"[" * 10000 + b"]" * 10000)
    assert (ok.status, ok.stdout) == (0, b"1\n")
    deep = run_command(["jq", "-c", "."], stdin=b"[" * 10000 + b"]" * 10000)
    assert deep.stdout == b"[" * 10000 + b"]" * 10000 + b"\n"
    too = run_command(["jq", "-c", "."], stdin=b"[" * 10001 + b"]" * 10001)
    assert too.status == 4
    assert too.stderr == b"jq: parse error: Exceeds depth limit for parsing at line 1, column 10001\n"
    objs = run_command(["jq", "-c", "length"], stdin=b'{"a":' * 5001 + b"1" + b"}" * 5001)
    assert objs.status == 4


def test_deep_values_print_iteratively() -> None:
    r = run_command(["jq", "-n", "-c", "reduce range(20000) as $i (0; [.]) | tojson | length"])
    assert r.stdout == b"40001\n"


def test_big_input_is_fast_enough() -> None:
    data = json.dumps([{"x": i % 11, "name": f"n{i}", "v": i / 7} for i in range(20000)]).encode()
    start = time.monotonic()
    r = run_command(["jq", "[.[] | select(.x > 5)] | length"], stdin=data)
    assert r.stdout == b"9090\n"
    assert time.monotonic() - start < 10


def test_streams_of_many_values() -> None:
    data = b"".join(b'{"i":%d}\n' % i for i in range(5000))
    r = run_command(["jq", "-c", "select(.i % 1000 == 0) | .i"], stdin=data)
    assert r.stdout == b"0\n1000\n2000\n3000\n4000\n"


@pytest.mark.parametrize(
    ("program", "value", "expected"),
    [
        ("[paths]", {"a": [1, {"b": 2}]}, [[["a"], ["a", 0], ["a", 1], ["a", 1, "b"]]]),
        ("[path(..)]", [[1]], [[[], [0], [0, 0]]]),
        ("path(.a[0].b)", None, [["a", 0, "b"]]),
        ("[path(.[] | select(. > 1))]", [1, 2, 3], [[[1], [2]]]),
        ('del(.[] | select(. == "x"))', ["x", "y", "x"], [["y"]]),
        ("to_entries", {"a": 1}, [[{"key": "a", "value": 1}]]),
        (".[1:] |= map(. * 10)", [1, 2, 3], [[1, 20, 30]]),
        ("(.. | numbers) |= . + 1", {"a": [1, {"b": 2}]}, [{"a": [2, {"b": 3}]}]),
        ("reduce .[] as $x ({}; .[$x] += 1)", ["a", "b", "a"], [{"a": 2, "b": 1}]),
        (". as [$a, {b: $c}] ?// $a | [$a, $c]", [1, {"b": 2}], [[1, 2]]),
        ("[.[] as [$a] ?// $a | $a]", [[1], 2], [[1, 2]]),
        ("[limit(2; .[])], [first(empty)], isempty(.[])", [5, 6, 7], [[5, 6], [], False]),
        ('getpath(["a", "b"]) = 5', None, [{"a": {"b": 5}}]),
        ('sub("(?<x>[a-z]+)"; "<\\(.x)>"; "g")', "ab cd", ["<ab> <cd>"]),
        ('[match("a+"; "g") | .offset]', "aa b aaa", [[0, 5]]),
        ('test("A"; "ix")', "b a", [True]),
        ('[scan("(\\\\w)(\\\\d)")]', "a1 b2", [[["a", "1"], ["b", "2"]]]),
        (
            'strftime("%Y-%m-%dT%H:%M:%SZ"), (gmtime | mktime)',
            1700000000,
            ["2023-11-14T22:13:20Z", 1700000000],
        ),
        ('strptime("%d/%m/%Y %H:%M") | mktime', "02/01/2024 10:30", [1704191400]),
    ],
)
def test_evaluate(program: str, value: object, expected: list[object]) -> None:
    assert evaluate(program, value) == expected


def test_closures_and_recursion() -> None:
    prog = "def f(g): def h: g; [h, (1 | g)]; 5 as $x | f($x + .)"
    assert evaluate(prog, 10) == [[15, 6]]
    fact = "def fact: if . <= 1 then 1 else . * (. - 1 | fact) end; [range(1; 8) | fact]"
    assert evaluate(fact) == [[1, 2, 6, 24, 120, 720, 5040]]


def test_compile_errors_are_collected() -> None:
    with pytest.raises(CompileErrors) as e:
        Program("foo | $bar | baz(1)")
    assert [err.message for err in e.value.errors] == [
        "foo/0 is not defined",
        "$bar is not defined",
        "baz/1 is not defined",
    ]


def test_runtime_inputs_and_variables() -> None:
    rt = Rt()
    values = iter([1, 2])

    def next_input() -> object:
        try:
            return next(values)
        except StopIteration:
            from sandbash.commands.jq.errors import JqError

            raise JqError("break") from None

    rt.next_input = next_input
    prog = Program("[., $x, inputs]", ["x"])
    assert list(prog.run(0, rt, ["v"])) == [[0, "v", 1, 2]]
