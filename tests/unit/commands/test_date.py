"""date and cal: GNU date strings, formats and options against GNU date; cal layouts."""

from __future__ import annotations

import datetime as _dt

import pytest

from realtools import have, real_command
from sandbash.commands.context import Ctx
from sandbash.commands.date.main import cmd_date
from sandbash.commands.date.parse import parse_date
from sandbash.limits import Budget, Limits
from sandbash.stdio.streams import BufferWriter, BytesReader
from sandbash.testing import make_vfs, run_command

pytestmark = pytest.mark.skipif(not have("date"), reason="date not installed")
ZONES = ["UTC", "America/New_York", "Europe/Berlin", "EST5EDT", "Asia/Kolkata"]
# strings that name an absolute time (or reject it): identical whatever the clock says
STRINGS = [
    "jan",
    "noon",
    "24:00",
    "2024-02-30",
    "2024-01-15T10:30:00Z",
    "2024-01-15 10:30 +0500",
    "10:30 UTC+3",
    "Jan 5 2024",
    "5 Jan 2024",
    "Jan 5, 2024",
    "17-JUN-1992",
    "JUN-17-1992",
    "01/15/2024",
    "2024/01/15",
    "1/2/3",
    "20240115",
    "1030",
    "Jan 5 1030",
    "2 monday",
    "next monday",
    "last monday",
    "monday",
    "this monday",
    "fri",
    "1 day 2 hours ago",
    "month",
    "next month",
    "last year",
    "fortnight",
    "3days",
    "- 3 days",
    "+1 day +2 hours",
    "12am",
    "12pm",
    "13pm",
    "0:30am",
    "10:30:15.123",
    "tomorrow 9am",
    "@1700000000.5",
    "@-1",
    "2024-01-15 EST",
    "2024-01-15 10:00 PDT",
    "Z",
    "t",
    "now",
    "",
    "2024-01-31 +1 month",
    "10:30 pm",
    "10.30",
    "thu, 01 jan 1970 00:00:00 +0000",
    "Sat Mar  2 10:00:00 UTC 2024",
    "2024-13-01",
    "0:0",
    "1 2 3",
    'TZ="Asia/Tokyo" 2024-01-15 09:00',
    "ago",
    "2 ago",
    "1 week ago monday",
    "2024-01-15 (comment) 10:00",
    "a",
    "1969-12-31",
    "99-01-01",
    "68-01-01",
    "10:30 a.m.",
    "2024-06-15 +2 months -3 days 1 hour ago",
    "1 sec",
    "5 mins",
    "x",
    "2024-01-15T10:30:00+05:30",
    "2024-01-15 10:30:00.5 -0800",
    "tuesday next week",
    "yesterday",
    "tomorrow",
    "today",
    "last week",
    "3 weeks ago",
    "+3 hours",
    "2 days ago",
    "Jan 5",
    "5 Jan",
    "2024-07-04 12:00 CEST",
    "2024-03-10 02:30",
    "December 25, 2023 18:00",
    "now + 90 minutes",
    "next year",
    "2024-02-29 +1 year",
    "1 month ago",
    "sept 5",
    "wed",
    "Wednesday",
    "1 thursday",
    "first friday",
    "2024-01-01 next friday",
]
ARGS = [
    [
        "-d",
        "@1720000000.123456789",
        "+[%10A|%-10A|%_5d|%-d|%05e|%^b|%#b|%#Z|%#p|%P|%3N|%12N|%-N|%:z|%::z|%:::z|%Q|%5Q|%q|%G %V %U %W %j %C %g|%c|%D|%x|%X|%r|%^c|%20c|%_10Y|%010s|%-5H|%e|%k|%l|%I|%E|%Oy|%Ey|%+4Y|%-j|%_j|%%|%]",
    ],
    ["-d", "@1720000000.123456789", "+%"],
    ["-d", "@1720000000.123456789", "+%a %A %b %B %h %n %t %T %R %F %s %u %w %y %Y %H %M %S %p %Z %z"],
    ["-d", "@1720000000.123456789", "+%_3m|%03e|%-3m|%^5a|%#5A|%010Z"],
    ["-d", "@1720000000.123456789", "+%N %6N %1N %:::z"],
    ["-d", "@1720000000.123456789", "+%-I%p %_H %_M %-S %05j"],
    [
        "-d",
        "@0",
        "+[%10A|%-10A|%_5d|%-d|%05e|%^b|%#b|%#Z|%#p|%P|%3N|%12N|%-N|%:z|%::z|%:::z|%Q|%5Q|%q|%G %V %U %W %j %C %g|%c|%D|%x|%X|%r|%^c|%20c|%_10Y|%010s|%-5H|%e|%k|%l|%I|%E|%Oy|%Ey|%+4Y|%-j|%_j|%%|%]",
    ],
    ["-d", "@0", "+%"],
    ["-d", "@0", "+%a %A %b %B %h %n %t %T %R %F %s %u %w %y %Y %H %M %S %p %Z %z"],
    ["-d", "@0", "+%_3m|%03e|%-3m|%^5a|%#5A|%010Z"],
    ["-d", "@0", "+%N %6N %1N %:::z"],
    ["-d", "@0", "+%-I%p %_H %_M %-S %05j"],
    [
        "-d",
        "2024-12-30",
        "+[%10A|%-10A|%_5d|%-d|%05e|%^b|%#b|%#Z|%#p|%P|%3N|%12N|%-N|%:z|%::z|%:::z|%Q|%5Q|%q|%G %V %U %W %j %C %g|%c|%D|%x|%X|%r|%^c|%20c|%_10Y|%010s|%-5H|%e|%k|%l|%I|%E|%Oy|%Ey|%+4Y|%-j|%_j|%%|%]",
    ],
    ["-d", "2024-12-30", "+%"],
    ["-d", "2024-12-30", "+%a %A %b %B %h %n %t %T %R %F %s %u %w %y %Y %H %M %S %p %Z %z"],
    ["-d", "2024-12-30", "+%_3m|%03e|%-3m|%^5a|%#5A|%010Z"],
    ["-d", "2024-12-30", "+%N %6N %1N %:::z"],
    ["-d", "2024-12-30", "+%-I%p %_H %_M %-S %05j"],
    [
        "-d",
        "2021-01-03 23:59:59",
        "+[%10A|%-10A|%_5d|%-d|%05e|%^b|%#b|%#Z|%#p|%P|%3N|%12N|%-N|%:z|%::z|%:::z|%Q|%5Q|%q|%G %V %U %W %j %C %g|%c|%D|%x|%X|%r|%^c|%20c|%_10Y|%010s|%-5H|%e|%k|%l|%I|%E|%Oy|%Ey|%+4Y|%-j|%_j|%%|%]",
    ],
    ["-d", "2021-01-03 23:59:59", "+%"],
    ["-d", "2021-01-03 23:59:59", "+%a %A %b %B %h %n %t %T %R %F %s %u %w %y %Y %H %M %S %p %Z %z"],
    ["-d", "2021-01-03 23:59:59", "+%_3m|%03e|%-3m|%^5a|%#5A|%010Z"],
    ["-d", "2021-01-03 23:59:59", "+%N %6N %1N %:::z"],
    ["-d", "2021-01-03 23:59:59", "+%-I%p %_H %_M %-S %05j"],
    [
        "-d",
        "2024-02-29 13:05:09",
        "+[%10A|%-10A|%_5d|%-d|%05e|%^b|%#b|%#Z|%#p|%P|%3N|%12N|%-N|%:z|%::z|%:::z|%Q|%5Q|%q|%G %V %U %W %j %C %g|%c|%D|%x|%X|%r|%^c|%20c|%_10Y|%010s|%-5H|%e|%k|%l|%I|%E|%Oy|%Ey|%+4Y|%-j|%_j|%%|%]",
    ],
    ["-d", "2024-02-29 13:05:09", "+%"],
    ["-d", "2024-02-29 13:05:09", "+%a %A %b %B %h %n %t %T %R %F %s %u %w %y %Y %H %M %S %p %Z %z"],
    ["-d", "2024-02-29 13:05:09", "+%_3m|%03e|%-3m|%^5a|%#5A|%010Z"],
    ["-d", "2024-02-29 13:05:09", "+%N %6N %1N %:::z"],
    ["-d", "2024-02-29 13:05:09", "+%-I%p %_H %_M %-S %05j"],
    ["-d", "2024-01-01", "-Ihours"],
    ["-d", "2024-01-01", "--rfc-3339=ns"],
    ["-d", "2024-01-01", "-R"],
    ["-d", "2024-01-01"],
    ["-d", "2024-01-01", "-I", "-R"],
    ["-Ix", "-d", "2024-01-01"],
    ["-d", "2024-01-01", "x"],
    ["-d", "2024-01-01", "+%F", "+%T"],
    ["foo"],
    ["-r", "/nonexist"],
    ["--rfc-3339"],
    ["-d", "2024-01-01", "-u", "+%Z"],
    ["-d", "2024-01-01", "--iso-8601=ns"],
    ["-d", "2024-07-01 12:00", "-Iminutes"],
    ["-d", "2024-07-01 12:00", "-Is"],
    ["-d", "2024-07-01 12:00", "--rfc-3339=s"],
    ["-d", "2024-07-01 12:00", "--rfc-3339=d"],
    ["-d", "x", "-d", "2024-01-01"],
    ["-d", "@1", "-r", "x"],
    ["-u", "-d", "10:00", "+%H:%M %Z"],
    ["--resolution"],
    ["-d", "2024-01-01", "--rfc-email"],
    ["-d"],
    ["--date=2024-01-01 00:00:01", "+%s"],
]


def env(tz: str) -> dict[str, str]:
    return {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "TZ": tz}


def compare(argv: list[str], tz: str) -> None:
    # relative strings depend on the clock: retry once if a minute boundary passed in between
    for _ in range(2):
        ours = run_command(argv, env=env(tz))
        out, err, status = real_command(argv, env=env(tz))
        if (ours.stdout, ours.stderr, ours.status) == (out, err, status):
            return
    assert (ours.stdout.decode(), ours.stderr.decode(), ours.status) == (out.decode(), err.decode(), status)


@pytest.mark.parametrize("tz", ["UTC", "America/New_York"])
@pytest.mark.parametrize("text", STRINGS)
def test_date_strings(text: str, tz: str) -> None:
    compare(["date", "-d", text, "+%Y-%m-%d %H:%M %Z %z"], tz)


@pytest.mark.parametrize("tz", ZONES)
def test_zones_and_dst(tz: str) -> None:
    for text in (
        "2024-01-15 12:00",
        "2024-07-15 12:00",
        "2024-03-10 02:30",
        "2024-03-31 02:30",
        "2024-01-15 +6 months",
        "2024-10-27 01:30 +1 day",
        "@1720000000",
    ):
        compare(["date", "-d", text, "+%F %T %Z %z %::z"], tz)


@pytest.mark.parametrize("argv", ARGS, ids=" ".join)
def test_formats_and_options(argv: list[str]) -> None:
    compare(["date", *argv], "America/New_York")


def test_date_file_and_reference() -> None:
    files = {"dates": "2024-01-01\nfoo\n@0\n"}
    r = run_command(["date", "-f", "dates", "+%F"], files=files, env=env("UTC"))
    assert (r.stdout, r.stderr, r.status) == (
        b"2024-01-01\n1970-01-01\n",
        "date: invalid date ‘foo’\n".encode(),
        1,
    )
    vfs = make_vfs({"f": "x"})
    vfs.view("/").utime("/home/user/f", 0, 86400 * 365 * 10**9)
    r = run_command(["date", "-r", "f", "+%F %T"], vfs=vfs, env=env("UTC"))
    assert r.stdout == b"1971-01-01 00:00:00\n"


def test_setting_the_clock_is_refused() -> None:
    r = run_command(["date", "-s", "2024-01-01", "+%F"], env=env("UTC"))
    assert (r.stdout, r.stderr, r.status) == (
        b"2024-01-01\n",
        b"date: cannot set date: Operation not permitted\n",
        1,
    )
    r = run_command(["date", "0101120024"], env=env("UTC"))
    assert (r.stdout, r.status) == (b"Mon Jan  1 12:00:00 UTC 2024\n", 1)


def _run_at(argv: list[str], now: float, tz: str = "UTC") -> str:
    out = BufferWriter()
    ctx = Ctx(
        "date",
        argv,
        BytesReader(b""),
        out,
        BufferWriter(),
        make_vfs().view("/"),
        env(tz),
        Budget(Limits()),
        clock=lambda: now,
    )
    assert cmd_date(ctx) == 0
    return out.getvalue().decode()


def test_clock_and_relative_items_with_a_fixed_now() -> None:
    now = 1705321845.25  # Mon Jan 15 12:30:45.25 UTC 2024
    assert _run_at([], now) == "Mon Jan 15 12:30:45 UTC 2024\n"
    assert _run_at(["+%N"], now) == "250000000\n"
    assert _run_at(["-d", "yesterday", "+%F %T"], now) == "2024-01-14 12:30:45\n"
    assert _run_at(["-d", "next monday", "+%F %T"], now) == "2024-01-22 00:00:00\n"
    assert _run_at(["-d", "last week", "+%F"], now) == "2024-01-08\n"
    assert _run_at(["-d", "2 days ago 10:00", "+%F %T"], now) == "2024-01-13 10:00:00\n"
    assert _run_at(["-d", "friday", "+%F"], now) == "2024-01-19\n"
    assert _run_at(["-d", "", "+%F %T"], now) == "2024-01-15 00:00:00\n"


def test_parse_date_is_reusable() -> None:
    assert parse_date("2024-01-15 10:30", 0.0, _dt.UTC) == 1705314600.0
    assert parse_date("bogus words", 0.0, _dt.UTC) is None
    assert parse_date("@1.5", 0.0, _dt.UTC) == 1.5


CAL_2024_02 = (
    "    February 2024   \n"
    "Su Mo Tu We Th Fr Sa\n"
    "             1  2  3\n"
    " 4  5  6  7  8  9 10\n"
    "11 12 13 14 15 16 17\n"
    "18 19 20 21 22 23 24\n"
    "25 26 27 28 29      \n"
    "                    \n"
)


@pytest.mark.parametrize(
    "argv, first_lines",
    [
        (["2", "2024"], CAL_2024_02),
        (["feb", "2024"], CAL_2024_02),
        (["-m", "1", "2024"], "    January 2024    \nMo Tu We Th Fr Sa Su\n 1  2  3  4  5  6  7\n"),
        (
            ["9", "1752"],
            "   September 1752   \nSu Mo Tu We Th Fr Sa\n       1  2 14 15 16\n17 18 19 20 21 22 23\n",
        ),
        (
            ["-3", "1", "2024"],
            "    December 2023         January 2024          February 2024   \n"
            "Su Mo Tu We Th Fr Sa  Su Mo Tu We Th Fr Sa  Su Mo Tu We Th Fr Sa\n",
        ),
        (
            ["2024"],
            " " * 31 + "2024" + " " * 31 + "\n\n"
            "       January               February                 March       \n",
        ),
        (["1", "2000"], "    January 2000    \nSu Mo Tu We Th Fr Sa\n                   1\n"),
    ],
)
def test_cal_layouts(argv: list[str], first_lines: str) -> None:
    r = run_command(["cal", *argv])
    assert r.status == 0
    assert r.stdout.decode().startswith(first_lines)


def test_cal_shape_and_errors() -> None:
    r = run_command(["cal", "2024"])
    lines = r.stdout.decode().split("\n")
    assert len(lines) == 3 + 4 * 8
    assert all(len(line) == 66 for line in lines[3:-1])
    assert run_command(["cal", "13", "2024"]).stderr == b"cal: illegal month value: use 1-12\n"
    assert run_command(["cal", "0"]).stderr == b"cal: illegal year value: use positive integer\n"
    assert run_command(["cal", "foo"]).status == 1
