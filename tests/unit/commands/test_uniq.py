"""uniq: compared with GNU uniq 9.1."""

from __future__ import annotations

import pytest

from .test_textbasic import compare

DATA = b"a x\na x\nA x\nb y\nb  y\nc z\nc z\nc z\nd\n"
FIELDS = b"1 foo bar\n2 foo bar\n3 foo baz\n  4 foo baz\nq\nq"

CASES = [
    ["uniq"],
    ["uniq", "-c"],
    ["uniq", "-d"],
    ["uniq", "-D"],
    ["uniq", "-u"],
    ["uniq", "-i"],
    ["uniq", "-ic"],
    ["uniq", "-f1"],
    ["uniq", "-s", "1"],
    ["uniq", "-w", "1"],
    ["uniq", "-w1", "-c"],
    ["uniq", "-dc"],
    ["uniq", "--all-repeated=separate"],
    ["uniq", "--all-repeated=prepend"],
    ["uniq", "--all-repeated=p"],
    ["uniq", "--group"],
    ["uniq", "--group=both"],
    ["uniq", "--group=prepend"],
    ["uniq", "--group=append"],
    ["uniq", "-cD"],
    ["uniq", "--group", "-c"],
    ["uniq", "-f", "x"],
    ["uniq", "-s", "-1"],
    ["uniq", "a", "b", "c"],
    ["uniq", "--group=x"],
    ["uniq", "--all-repeated=x"],
    ["uniq", "-z"],
    ["uniq", "-1"],
    ["uniq", "+2"],
    ["uniq", "-du"],
    ["uniq", "nope"],
    ["uniq", "-x"],
    ["uniq", "-Du"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_data(argv: list[str]) -> None:
    compare(argv, DATA)


@pytest.mark.parametrize("args", [["-f", "1"], ["-f", "2"], ["-f2", "-c"], ["-f1", "-s2"], ["-f", "9"]])
def test_fields(args: list[str]) -> None:
    compare(["uniq", *args], FIELDS)


def test_output_file() -> None:
    from sandbash.testing import run_command

    r = run_command(["uniq", "in", "out"], files={"in": "a\na\nb\n"})
    assert r.status == 0 and r.stdout == b""
    assert r.vfs.view("/home/user").read_bytes("out") == b"a\nb\n"


def test_zero() -> None:
    compare(["uniq", "-z", "-c"], b"a\0a\0b\0")
