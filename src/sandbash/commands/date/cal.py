"""cal: util-linux's calendar layout (not a tty, so no highlighting).

Each month is 20 columns wide and 6 week lines tall; months side by side are
separated by 2 columns (3 in year view). The Julian calendar applies up to
September 1752, when 11 days were dropped, as in util-linux.
"""

from __future__ import annotations

import datetime as _dt

from ...posix.zones import local_zone
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from . import DAYS, MONTHS

SPEC = CommandSpec(
    "cal",
    "[options] [[[day] month] year]",
    "Display a calendar, or some part of it.",
    opts=(
        Opt("1", "one", help="show only a single month (default)"),
        Opt("3", "three", help="show three months spanning the date"),
        Opt("n", "months", "required", metavar="num", help="show num months starting with date's month"),
        Opt("S", "span", help="span the date when displaying multiple months"),
        Opt("s", "sunday", help="Sunday as first day of week"),
        Opt("m", "monday", help="Monday as first day of week"),
        Opt("y", "year", help="show the whole year"),
        Opt("Y", "twelve", help="show the next twelve months"),
        Opt(None, "color", "optional", metavar="when", help="colorize messages (auto, always or never)"),
    ),
)
WIDTH = 20
REFORM_YEAR = 1752


def _leap(year: int) -> bool:
    if year <= REFORM_YEAR:
        return year % 4 == 0
    return (year % 4 == 0 and year % 100 != 0) or year % 400 == 0


def _month_days(year: int, month: int) -> list[int]:
    if year == REFORM_YEAR and month == 9:
        return [1, 2] + list(range(14, 31))
    n = [31, 29 if _leap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return list(range(1, n + 1))


def _weekday(year: int, month: int, day: int) -> int:
    """0 = Sunday, from the Julian day number in the calendar in force."""
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    jdn = day + (153 * m + 2) // 5 + 365 * y + y // 4
    if (year, month, day) > (REFORM_YEAR, 9, 2):
        jdn += y // 400 - y // 100 - 32045
    else:
        jdn -= 32083
    return (jdn + 1) % 7


def _center(text: str, width: int) -> str:
    # util-linux (mbsalign) puts the odd space on the left
    spaces = max(0, width - len(text))
    return " " * (spaces - spaces // 2) + text + " " * (spaces // 2)


def _month_block(year: int, month: int, monday: bool, with_year: bool) -> list[str]:
    """Header, weekday names and 6 week lines, each WIDTH columns."""
    title = f"{MONTHS[month - 1]} {year:04d}" if with_year else MONTHS[month - 1]
    names = [DAYS[(i + monday) % 7][:2] for i in range(7)]
    days = _month_days(year, month)
    lead = (_weekday(year, month, 1) - monday) % 7
    cells: list[int | None] = [None] * lead + list(days)
    cells += [None] * (42 - len(cells))
    weeks = []
    for w in range(6):
        row = cells[w * 7 : w * 7 + 7]
        weeks.append(" ".join(f"{d:2d}" if d else "  " for d in row))
    return [_center(title, WIDTH), " ".join(names)] + weeks


def _render(months: list[tuple[int, int]], per_row: int, gutter: int, monday: bool, with_year: bool) -> str:
    lines: list[str] = []
    for start in range(0, len(months), per_row):
        blocks = [_month_block(y, m, monday, with_year) for y, m in months[start : start + per_row]]
        for i in range(len(blocks[0])):
            lines.append((" " * gutter).join(b[i] for b in blocks))
    return "\n".join(lines) + "\n"


def _fail(ctx: Ctx, message: str) -> CommandExit:
    ctx.error(message)
    return CommandExit(1)


def _month_number(name: str) -> int | None:
    low = name.lower()
    for i, full in enumerate(MONTHS):
        if low in (full.lower(), full[:3].lower()):
            return i + 1
    return None


def _int(text: str, message: str, ctx: Ctx) -> int:
    try:
        return int(text)
    except ValueError:
        raise _fail(ctx, f"{message}: '{text}'")


@declare("cal", spec=SPEC, effects=Effects.NONE)
def cmd_cal(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC)
    today = _dt.datetime.fromtimestamp(ctx.clock(), local_zone(ctx.env))
    year, month = today.year, today.month
    whole_year = opts.has("year")
    count = 3 if opts.has("three") else 12 if opts.has("twelve") else 1
    if opts.has("months"):
        count = _int(opts["months"], "invalid number of months argument", ctx)
    span = opts.has("three") or opts.has("span")
    if len(operands) == 1 and not operands[0].isdigit():
        found = _month_number(operands[0])
        if found is None:
            raise _fail(ctx, f"failed to parse timestamp or unknown month name: {operands[0]}")
        month = found
    elif len(operands) > 3:
        ctx.error("bad usage")
        ctx.stderr.write(b"Try 'cal --help' for more information.\n")
        return 1
    elif operands:
        args = list(operands)
        day = None
        if len(args) == 3:
            day = _int(args.pop(0), "illegal day value", ctx)
            if not 1 <= day <= 31:
                raise _fail(ctx, "illegal day value: use 1-31")
        if len(args) == 2:
            text = args.pop(0)
            found = int(text) if text[:1].isdigit() and text.isdigit() else _month_number(text)
            if found is None:
                raise _fail(ctx, f"unknown month name: {text}")
            if not 1 <= found <= 12:
                raise _fail(ctx, "illegal month value: use 1-12")
            month = found
        elif not opts.has("three") and not opts.has("months"):
            whole_year = True  # `cal 2024` shows the year
        year = _int(args[0], "illegal year value", ctx)
        if year < 1:
            raise _fail(ctx, "illegal year value: use positive integer")
        if day is not None and day > len(_month_days(year, month)) + (
            11 if (year, month) == (1752, 9) else 0
        ):
            raise _fail(ctx, f"illegal day value: use 1-{len(_month_days(year, month))}")
    monday = opts.has("monday")
    out = []
    if whole_year:
        months = [(year, m) for m in range(1, 13)]
        out.append(_center(f"{year:04d}", 3 * WIDTH + 2 * 3) + "\n\n")
        out.append(_render(months, 3, 3, monday, False))
    elif opts.has("twelve"):
        months = [(year + (month - 1 + i) // 12, (month - 1 + i) % 12 + 1) for i in range(12)]
        out.append(_render(months, 3, 3, monday, True))
    else:
        first = month - count // 2 if span else month
        months = [(year + (first - 1 + i) // 12, (first - 1 + i) % 12 + 1) for i in range(max(count, 1))]
        out.append(_render(months, 3, 2, monday, True))
    ctx.out("".join(out))
    return 0
