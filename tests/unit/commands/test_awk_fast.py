"""awk's chunked fast path (commands/awk/fast.py) against its general record loop.

Each program runs twice over the same input: as written (one rule of a shape the
fast path takes) and with a second rule that never fires (`0 {}`), which sends it
through the compiled per-record loop. Both must print the same bytes and leave
NR, the sum and $0 the same for END. The inputs mix what field splitting has to
get right: runs of blanks and tabs, \\r \\v \\f, leading blanks, empty lines and
fields, records with fewer fields than asked for, a missing final newline, and
inputs longer than one read chunk.
"""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.commands.awk import fast
from sandbash.testing import run_command

_SMALL = (
    "a b c d\n"
    "  lead  two\tthree   four five\n"
    "\n"
    "one\n"
    "x\ty\tz\n"
    "cr\rin field\r\n"
    "v\x0bf\x0cw tail\n"
    "1 2.5 3e2 -4\n"
    "p,q,,s\n"
    ":a:b::c\n"
    "last line without newline"
)
# past one 64 KiB chunk, so records cross chunk ends
_BIG = "".join(f"{i} user{i % 7} w{i % 3} {i * 3 % 11}\n" for i in range(12000)) + "tail 1 2"
_NUMS = "".join(f"r{i} {i % 97} {i / 8}\n" for i in range(5000)) + "x y\n"

PROGRAMS = [
    ([], "{print $3}"),
    ([], "{print $1}"),
    ([], "{print $5}"),
    ([], "{print $1, $4, $3}"),
    ([], "{print $0, $2}"),
    ([], "{print $2, $2, $0}"),
    ([], "{print}"),
    ([], '$2 == "b"'),
    ([], '$2 != "b" {print $1}'),
    ([], '$3 == "w1" {print $2, $4}'),
    ([], "{s += $2} END {print s, NR, $0}"),
    ([], "{s += $4} END {print s + 0}"),
    ([], "{print $1} END {print NR, $0}"),
    (["-F,"], "{print $3}"),
    (["-F,"], "{print $1, $4}"),
    (["-F:"], "{print $2}"),
    (["-F\t"], "{print $2}"),
    (["-F "], "{print $2}"),
    (["-v", "OFS=-"], "{print $1, $2}"),
    (["-v", "ORS=|"], "{print $2}"),
    ([], 'BEGIN {OFS = "::"} {print $3, $1} END {print NR}'),
] + (
    LAST_FIELD := [
        ([], "{print $NF}"),
        ([], "{print $(NF)} END {print NR, $0, NF}"),
        (["-F,"], "{print $NF}"),
        (["-F:"], "{print $NF}"),
        (["-F\t"], "{print $NF}"),
        ([], '$2 == "b" {print $NF}'),
        ([], '$1 != "x" {print $NF}'),
        (["-v", "ORS=|"], "BEGIN {NF = 3} {print $NF}"),
    ]
)


def _awk(args: list[str], prog: str, data: str) -> tuple[bytes, int]:
    r = run_command(["awk", *args, prog], stdin=data.encode("utf-8", "surrogateescape"))
    return r.stdout, r.status


@pytest.mark.parametrize("data", [_SMALL, _BIG, _NUMS], ids=["edges", "big", "numbers"])
@pytest.mark.parametrize(("args", "prog"), PROGRAMS, ids=[" ".join([*a, p]) for a, p in PROGRAMS])
def test_fast_path_matches_record_loop(
    args: list[str], prog: str, data: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[object] = []
    real_run = fast.run

    def spy(*a: object) -> None:
        taken.append(a)
        real_run(*a)  # type: ignore[arg-type]

    monkeypatch.setattr(fast, "run", spy)
    got = _awk(args, prog, data)
    assert taken, "the fast path did not take this program"
    taken.clear()
    want = _awk(args, prog + "\n0 {}", data)
    assert not taken
    assert got == want


@pytest.mark.skipif(not have("gawk"), reason="gawk not installed")
@pytest.mark.parametrize(("args", "prog"), PROGRAMS[:12], ids=[" ".join([*a, p]) for a, p in PROGRAMS[:12]])
def test_fast_path_matches_gawk(args: list[str], prog: str) -> None:
    out, _err, status = real_command(["gawk", *args, prog], stdin=_SMALL.encode())
    assert _awk(args, prog, _SMALL) == (out, status)


@pytest.mark.skipif(not have("gawk"), reason="gawk not installed")
@pytest.mark.parametrize("data", [_SMALL, _BIG + "\n  \n\t\n \x0b x\n"], ids=["edges", "big"])
@pytest.mark.parametrize(("args", "prog"), LAST_FIELD, ids=[" ".join([*a, p]) for a, p in LAST_FIELD])
def test_last_field_matches_gawk(args: list[str], prog: str, data: str) -> None:
    out, _err, status = real_command(["gawk", *args, prog], stdin=data.encode())
    assert _awk(args, prog, data) == (out, status)
