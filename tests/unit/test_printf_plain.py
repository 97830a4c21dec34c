"""printf's plain formats (posix/printf.py `_render_plain`: text and %s/%d/%i/%x/%X with - and 0 flags
and a width, found once by their text) give what the general scan gives, output and status and
reports, for every argument: compared format by format with the plain way on and off."""

from __future__ import annotations

import random

import pytest

from sandbash.posix import printf
from sandbash.posix.printf import FieldTooWide, format_printf

TOKENS = [
    "%s",
    "%d",
    "%i",
    "%5s",
    "%-5s|",
    "%05d",
    "%-05d",
    "%3i",
    "%00d",
    "%x",
    "%04X",
    "%-3x|",
    "%0x",
    "%%",
    "x",
    "=",
    "\\n",
    "\\t",
    "\\101",
    "é",
]
ARGS = [
    "",
    "0",
    "7",
    "-3",
    "-0",
    "42",
    "007",
    "08",
    "0x1f",
    "+5",
    " 5",
    "12abc",
    "'A",
    "abc",
    "é",
    "99999999999999999999",
    "-",
    "255",
    "-255",
    "18446744073709551615",
]


def _run(fmt: str, args: list[str], plain: bool, monkeypatch: pytest.MonkeyPatch, max_field: int) -> object:
    with monkeypatch.context() as m:
        if not plain:
            m.setattr(printf, "_plain_format", lambda fmt: None)
        reports: list[str] = []
        marks: list[int] = []
        try:
            text, status = format_printf(fmt, args, reports.append, max_field=max_field, marks=marks)
        except FieldTooWide:
            return "too wide"
        return text, status, reports, marks


@pytest.mark.parametrize("seed", range(6))
def test_plain_formats_give_what_the_scan_gives(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    plain_seen = 0
    for _ in range(200):
        fmt = "".join(rng.choice(TOKENS) for _ in range(rng.randrange(0, 5)))
        plain_seen += printf._plain_format(fmt) is not None
        for count in range(4):
            args = [rng.choice(ARGS) for _ in range(count)]
            for max_field in (3, 1 << 20):
                fast = _run(fmt, args, True, monkeypatch, max_field)
                assert fast == _run(fmt, args, False, monkeypatch, max_field), (fmt, args, max_field)
    assert plain_seen > 100


@pytest.mark.parametrize(
    "fmt",
    ["%.2s", "%+d", "% d", "%#x", "%.3x", "%o", "%b", "%q", "%(%s)T", "%ld", "%*d", "\\x", "%c", "%s%n"],
)
def test_other_formats_are_not_plain(fmt: str) -> None:
    assert printf._plain_format(fmt) is None


def test_the_table_of_formats_is_bounded() -> None:
    for i in range(1000):
        printf._plain_format(f"%s {i}")
    assert 0 < len(printf._PLAIN) <= printf._PLAIN_MAX
