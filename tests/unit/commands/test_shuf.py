"""shuf: permutations from the seeded sandbox generator, GNU option errors."""

from __future__ import annotations

import pytest

from sandbash.testing import run_command

from .test_textbasic import compare


def test_permutation_and_counts() -> None:
    r = run_command(["shuf", "-i", "1-10"])
    assert sorted(int(x) for x in r.stdout.split()) == list(range(1, 11))
    r = run_command(["shuf", "-e", "a", "b", "c", "-n", "2"])
    assert len(r.stdout.split()) == 2
    r = run_command(["shuf", "-r", "-n", "5", "-e", "x"])
    assert r.stdout == b"x\n" * 5
    r = run_command(["shuf"], stdin=b"1\n2\n3\n")
    assert sorted(r.stdout.split()) == [b"1", b"2", b"3"]
    r = run_command(["shuf", "-z", "-e", "a", "b"])
    assert sorted(r.stdout.split(b"\0")[:-1]) == [b"a", b"b"]


def test_output_file() -> None:
    r = run_command(["shuf", "-o", "out", "-i", "1-3"])
    assert sorted(r.vfs.view("/home/user").read_bytes("out").split()) == [b"1", b"2", b"3"]


@pytest.mark.parametrize(
    "argv",
    [
        ["shuf", "-i", "x"],
        ["shuf", "-n", "-1", "-e", "a"],
        ["shuf", "-i", "1-0"],
        ["shuf", "-e"],
        ["shuf", "-e", "-i", "1-2"],
        ["shuf", "a", "b"],
        ["shuf", "nope"],
        ["shuf", "-n", "0", "-i", "1-5"],
    ],
)
def test_errors_match_gnu(argv: list[str]) -> None:
    compare(argv)
