"""cut: compared with GNU cut 9.1."""

from __future__ import annotations

import pytest

from .test_textbasic import compare

DATA = b"a:b:c:d\none\n::x\n1:2\n\xc3\xa9t\xc3\xa9:x\nlast:no:newline"
TABS = b"a\tb\tc\nx\ty\nnone\n"

CASES = [
    ["-d:", "-f2"],
    # one range, split only as far as it reaches
    ["-d:", "-f3-"],
    ["-d:", "-f4-"],
    ["-d:", "-f9-"],
    ["-d:", "-f1-"],
    ["-d:", "-sf1-"],
    ["-d:", "-sf2-"],
    ["-d:", "-f2-3"],
    ["-d:", "-f1-2"],
    ["-d:", "-f3-7"],
    ["-d:", "-sf2-3"],
    ["-d:", "-f2-", "--output-delimiter=XY"],
    ["-d:", "-f2-3", "--output-delimiter=", "-z"],
    ["-d:", "-f2-", "-z"],
    ["-d:", "-f2-", "--complement"],
    ["-d:", "-f1,3"],
    ["-d:", "-f2-"],
    ["-d:", "-f-2"],
    ["-d:", "-f", "1-2,4"],
    ["-d:", "-s", "-f2"],
    ["-d:", "--complement", "-f2"],
    ["-d:", "-f2", "--output-delimiter=XY"],
    ["-d:", "-f", "3,1"],
    ["-d:", "-f", "1 3"],
    ["-d:", "-f9"],
    ["-b1-3"],
    ["-c2"],
    ["-b2-"],
    ["-b", "-2,5"],
    ["-b1,3-4", "--complement"],
    ["-b1-2,3-4", "--output-delimiter=:"],
    ["-b1-3,2-5,6", "--output-delimiter=:"],
    ["-c", "1,1,1"],
    ["-f", "0"],
    ["-f", "3-1"],
    ["-f", "-"],
    ["-f", "1,,2"],
    ["-b1", "-f2"],
    ["-d", "ab", "-f1"],
    ["-d:", "-b1"],
    ["-s", "-b1"],
    [],
    ["-f", "x"],
    ["-f", "1-2-3"],
    ["-c", "99999999999999999999"],
    ["-f", " 1 2"],
    ["-b", "0"],
    ["-b", "x"],
    ["-d:", "-f2", "nope", "-"],
    ["-z", "-d:", "-f2"],
    ["-d", "", "-f1"],
    ["-f1", "-f2"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) or "none" for c in CASES])
def test_data(args: list[str]) -> None:
    compare(["cut", *args], DATA)


@pytest.mark.parametrize("args", [["-f2"], ["-f1,3"], ["-sf3"], ["-f2", "--output-delimiter=,"]])
def test_tabs(args: list[str]) -> None:
    compare(["cut", *args], TABS)


def test_big_input_streams() -> None:
    from sandbash.testing import run_command

    line = b"k1,v1,x,y,z\n"
    r = run_command(["cut", "-d,", "-f2,4"], stdin=line * 100000)
    assert r.stdout == b"v1,y\n" * 100000


# many lines that all hold the field (one comprehension per slice), with a line short of it placed
# first, at a slice's end, in a later slice, last, or unterminated; a line without the delimiter
LONG = b"".join(b"k%d v%d x%d:y %d\n" % (i, i % 7, i % 3, i) for i in range(9000))
SHORT_AT = {
    "none": LONG,
    "first": b"lone\n" + LONG,
    "slice-end": LONG[: LONG.index(b"k4095 ")] + b"k4095 v\n" + LONG[LONG.index(b"k4096 ") :],
    "later": LONG[: LONG.index(b"k8000 ")] + b"a b\n\n" + LONG[LONG.index(b"k8000 ") :],
    "last": LONG + b"k v\n",
    "unterminated": LONG + b"tail",
    "unterminated-field": LONG + b"t a",
    "empty-lines": LONG.replace(b"k77 ", b"\nk77 "),
}


@pytest.mark.parametrize("where", sorted(SHORT_AT))
@pytest.mark.parametrize(
    "args", [["-d ", "-f1"], ["-d ", "-f2"], ["-d ", "-f3"], ["-d ", "-f5"], ["-sd ", "-f1"]]
)
def test_one_field_over_many_lines(where: str, args: list[str]) -> None:
    compare(["cut", *args], SHORT_AT[where])


@pytest.mark.parametrize("args", [["-z", "-d:", "-f2"], ["-z", "-d ", "-f1"], ["-z", "-sd ", "-f4"]])
def test_one_field_zero_terminated(args: list[str]) -> None:
    compare(["cut", *args], LONG.replace(b"\n", b"\0") + b"x:")
    compare(["cut", *args], b"x:")
