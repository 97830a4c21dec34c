"""expr: grammar, arithmetic, regex matching, statuses and messages against GNU expr."""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.testing import run_command

CASES = [
    ["1", "+", "x"],
    ["1", "2"],
    [],
    ["length"],
    ["(", "1"],
    ["(", "1", "x"],
    [")"],
    ["1", "/", "0"],
    ["abc", ":", "^a"],
    ["abc", ":", "a\\(b\\)"],
    ["abc", ":", "x\\(b\\)"],
    ["abc", ":", "\\("],
    ["abc", ":", "a*"],
    ["5", "%", "-3"],
    ["-5", "/", "3"],
    ["-5", "%", "3"],
    ["substr", "hello", "2", "3"],
    ["substr", "hello", "0", "1"],
    ["substr", "hello", "a", "1"],
    ["substr", "hello", "2", "100"],
    ["substr", "hello", "-1", "2"],
    ["index", "hello", "lo"],
    ["length", "héllo"],
    ["+", "match"],
    ["match", "abc", "b"],
    ["match", "abc", ".b"],
    ["a", "<", "b"],
    ["10", "<", "9"],
    ["10", "<", "9a"],
    ["0", "|", "0"],
    ["", "|", "0"],
    ["a", "&", "0"],
    ["1", "/", "0", "|", "1"],
    ["0", "&", "1", "/", "0"],
    ["-0"],
    ["00"],
    ["99999999999999999999", "*", "99999999999999999999"],
    ["1", "+"],
    ["+"],
    ["abc", ":", "a\\{2"],
    ["a", "=", "a", "=", "1"],
    ["3", "-", "-", "2"],
    ["--"],
    ["--", "5"],
    ["-5"],
    ["abc", ":", "\\(a\\)\\1"],
    ["aab", ":", "\\(a\\)\\1"],
    ["match"],
    ["1", "(", "2"],
    ["a", ":", "b", ":", "c"],
    ["--help2"],
    ["", ":", ""],
    ["abc", ":", ".*"],
    ["héllo", ":", ".*"],
    ["a b", ":", "[a-z] \\(.\\)"],
    ["x", "|", "y"],
    ["", "&", "y"],
    ["2", ">", "10"],
    ["a", "!=", "b"],
    ["1", "==", "1"],
    ["abc", ":", "a\\|x"],
    ["(", "1", "+", "2", ")", "*", "3"],
    ["length", "+", "length"],
    ["abc", ":", "[b"],
    ["1", "-", "2", "-", "3"],
    ["10", "/", "3", "*", "3"],
    ["index", "abc", ""],
    ["substr", "abc", "1"],
    ["1", "+", "2", "*", "3"],
    ["(", "1", "+", "2", ")"],
    ["(", "1", "+", "2"],
    ["(", "1", "+", "2", "x"],
    ["substr", "héllo", "2", "2"],
    ["index", "héllo", "l"],
    ["-1", "+", "1"],
    ["1", "+", "+1"],
    ["abc", ":", "b"],
    ["abc", "<", "abd"],
    ["b", ">=", "abc"],
    ["123456789012345678901234567890", "%", "7"],
    ["-7", "%", "2"],
    ["7", "/", "-2"],
    ["a", "*", "2"],
]


@pytest.mark.skipif(not have("expr"), reason="expr not installed")
@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_matches_gnu(args: list[str]) -> None:
    ours = run_command(["expr", *args])
    out, err, status = real_command(["expr", *args])
    assert (ours.stdout, ours.stderr.decode(), ours.status) == (out, err.decode(), status)


@pytest.mark.parametrize(
    "args, out, status",
    [
        (["2", "**", "3"], "", 2),
        (
            ["99999999999999999999", "*", "99999999999999999999"],
            "9999999999999999999800000000000000000001\n",
            0,
        ),
        (["abc", ":", "\\(b*\\)"], "\n", 1),
        (["0"], "0\n", 1),
        (["", "|", ""], "0\n", 1),
    ],
)
def test_fixed(args: list[str], out: str, status: int) -> None:
    r = run_command(["expr", *args])
    assert (r.stdout.decode(), r.status) == (out, status)
