"""uniq over runs of equal lines that cross the 64 KiB reads, against GNU uniq: the
count of a run must carry from one chunk to the next, in every counting mode and
with the options that compare only part of a line."""

from __future__ import annotations

import pytest

from .test_textbasic import compare

# runs of 1 to 5000 equal lines, so some runs span several reads and some reads hold many runs
_RUNS = b"".join((b"Key%d tail%d\n" % (i % 37, i % 3)) * (1 + (i * 7919) % 5000) for i in range(60))
# short runs (unsorted input: most lines start a group), which a batch finds all at once, and
# batches that switch between that and the long runs' way, a group carried from one to the other
_SHORT = b"".join(b"Key%d tail%d\n" % ((i * 7) % 11, i % 2) * (1 + i % 3) for i in range(40000))
_MIXED = b"".join(
    (b"long%d x\n" % j) * (3000 + j) + b"".join(b"s%d %d\n" % (i % 5, j) * (1 + i % 2) for i in range(9000))
    for j in range(6)
)
_DATA = {
    "runs": _RUNS,
    "no-final-newline": _RUNS + b"key1 tail1",
    "short": b"a\na\nb\nB\nb\n\n\n",
    "short-runs": _SHORT,
    "mixed": _MIXED,
    "big-counts": b"x\n" * 70000 + b"y\nx\n" * 9000 + b"x\n" * 300,
    # short groups with a group of 256 or more lines inside the same read (the count column made
    # for a batch beyond the common counts), CRLF, NUL bytes and broken UTF-8 in the lines
    "short-with-long": b"".join(
        b"".join(b"r%d\r\n" % (i % 3) for i in range(2000)) + b"\xff\0big %d\n" % j * (250 + j * 3)
        for j in range(12)
    ),
}


@pytest.mark.parametrize("name", sorted(_DATA))
@pytest.mark.parametrize(
    "args",
    [
        [],
        ["-c"],
        ["-d"],
        ["-u"],
        ["-cd"],
        ["-cu"],
        ["-du"],
        ["-ic"],
        ["-f", "1", "-c"],
        ["-s", "3", "-c"],
        ["-w", "3", "-c"],
    ],
    ids=lambda a: " ".join(a) or "plain",
)
def test_runs_across_reads_match_gnu(args: list[str], name: str) -> None:
    compare(["uniq", *args], _DATA[name])
