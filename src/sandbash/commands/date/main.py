"""The date command: reads the sandbox clock (`ctx.clock()`), the zone from TZ in the
command's environment, and formats with GNU's directives. Setting the clock is refused
(`cannot set date: Operation not permitted`) after printing the date, as GNU date does for an
unprivileged user."""

from __future__ import annotations

import datetime as _dt
import errno
import re

from ...posix.zones import UTC, local_zone
from ...stdio.streams import StreamReadError
from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..gnuquote import quoteaf
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, declare
from ..shellutils.common import quote, usage_fail
from .fmt import FormatTooLong, Moment, format_moment
from .parse import NS, parse_datetime, to_nanos

SPEC = CommandSpec(
    "date",
    "[OPTION]... [+FORMAT]\n  or:  date [-u|--utc|--universal] [MMDDhhmm[[CC]YY][.ss]]",
    "Display date and time in the given FORMAT.",
    opts=(
        Opt("d", "date", "required", metavar="STRING", help="display time described by STRING, not 'now'"),
        Opt(None, "debug", help="annotate the parsed date, and warn about questionable usage to stderr"),
        Opt("f", "file", "required", metavar="DATEFILE", help="like --date; once for each line of DATEFILE"),
        Opt("I", "iso-8601", "optional", metavar="FMT", help="output date/time in ISO 8601 format"),
        Opt(None, "resolution", help="output the available resolution of timestamps"),
        Opt("R", "rfc-email", help="output date and time in RFC 5322 format"),
        Opt(None, "rfc-822", dest="rfc_email"),
        Opt(None, "rfc-2822", dest="rfc_email"),
        Opt(None, "rfc-3339", "required", metavar="FMT", help="output date/time in RFC 3339 format"),
        Opt("r", "reference", "required", metavar="FILE", help="display the last modification time of FILE"),
        Opt("s", "set", "required", metavar="STRING", help="set time described by STRING"),
        Opt("u", "utc", help="print or set Coordinated Universal Time (UTC)"),
        Opt(None, "universal", dest="utc"),
    ),
)
DEFAULT_FORMAT = "%a %b %e %H:%M:%S %Z %Y"
ISO_FORMATS = {
    "date": "%Y-%m-%d",
    "hours": "%Y-%m-%dT%H%:z",
    "minutes": "%Y-%m-%dT%H:%M%:z",
    "seconds": "%Y-%m-%dT%H:%M:%S%:z",
    "ns": "%Y-%m-%dT%H:%M:%S,%N%:z",
}
RFC3339_FORMATS = {"date": "%Y-%m-%d", "seconds": "%Y-%m-%d %H:%M:%S%:z", "ns": "%Y-%m-%d %H:%M:%S.%N%:z"}


def _choice(ctx: Ctx, value: str, option: str, choices: list[str]) -> str:
    """argmatch: a unique prefix of one of `choices`, or GNU's listing of them."""
    matches = [c for c in choices if c.startswith(value)]
    if value in choices:
        return value
    if len(matches) == 1:
        return matches[0]
    kind = "ambiguous" if matches else "invalid"
    listing = "".join(f"  - {quote(c)}\n" for c in choices)
    ctx.error(f"{kind} argument {quote(value)} for {quote(option)}")
    ctx.stderr.write(
        f"Valid arguments are:\n{listing}Try '{ctx.help_prog} --help' for more information.\n".encode()
    )
    raise CommandExit(1)


def _output_format(ctx: Ctx, opts: Parsed, operands: list[str], given_date: bool) -> str:
    formats = []
    if opts.has("iso_8601"):
        value = opts["iso_8601"]
        formats.append(
            ISO_FORMATS[
                _choice(ctx, value, "--iso-8601", ["hours", "minutes", "date", "seconds", "ns"])
                if value
                else "date"
            ]
        )
    if opts.has("rfc_3339"):
        formats.append(
            RFC3339_FORMATS[_choice(ctx, opts["rfc_3339"], "--rfc-3339", ["date", "seconds", "ns"])]
        )
    if opts.has("rfc_email"):
        formats.append("%a, %d %b %Y %H:%M:%S %z")
    if operands:
        if len(operands) > 1:
            raise usage_fail(ctx, SPEC, f"extra operand {quote(operands[1])}")
        if operands[0].startswith("+"):
            formats.append(operands[0][1:])
        elif given_date:
            raise usage_fail(
                ctx,
                SPEC,
                f"the argument {quote(operands[0])} lacks a leading '+';\n"
                "when using an option to specify date(s), any non-option\n"
                "argument must be a format string beginning with '+'",
            )
    if len(formats) > 1:
        ctx.error("multiple output formats specified")
        raise CommandExit(1)
    return formats[0] if formats else DEFAULT_FORMAT


_SET_FORMAT = re.compile(r"(\d\d)(\d\d)(\d\d)(\d\d)((?:\d\d)?\d\d)?(?:\.(\d\d))?")


def _posix_set_time(text: str, now: _dt.datetime) -> int | None:
    """`date MMDDhhmm[[CC]YY][.ss]`: the time it would set, or None."""
    m = _SET_FORMAT.fullmatch(text)
    if m is None:
        return None
    month, day, hour, minute = (int(g) for g in m.groups()[:4])
    year = now.year
    if m.group(5):
        year = int(m.group(5))
        if len(m.group(5)) == 2:
            year += 1900 if year >= 69 else 2000
    try:
        when = _dt.datetime(year, month, day, hour, minute, int(m.group(6) or 0), tzinfo=now.tzinfo)
    except ValueError:
        return None
    return int(when.timestamp()) * NS


def _show(ctx: Ctx, fmt: str, when: int, tz: _dt.tzinfo) -> bool:
    seconds, nanos = divmod(when, NS)
    try:
        moment = Moment(seconds, nanos, tz)
    except (OverflowError, ValueError, OSError):
        ctx.error(f"time {seconds} is out of range")
        return False
    try:
        text = format_moment(fmt, moment, ctx.limits.max_string_length)
    except FormatTooLong as e:  # `+%999999999Y`: refused before the field is built
        if e.directive is not None:
            ctx.error(f"field width too large: {quote(e.directive)}")
        else:
            ctx.error(f"output too long: more than {e.limit} characters")
        return False
    ctx.out(text + "\n")
    return True


@declare("date", spec=SPEC, effects=Effects.DATE)
def cmd_date(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC)
    tz = UTC if opts.has("utc") else local_zone(ctx.env)
    now_ns = to_nanos(ctx.clock())
    sources = [k for k in ("date", "file", "reference", "set") if opts.has(k)]
    if len(sources) > 1:
        if "set" in sources:
            raise usage_fail(ctx, SPEC, "the options to print and set the time may not be used together")
        raise usage_fail(ctx, SPEC, "the options to specify dates for printing are mutually exclusive")
    if opts.has("resolution"):
        ctx.out("0.000000001\n")
        return 0
    fmt = _output_format(ctx, opts, operands, bool(sources))
    if opts.has("file"):
        return _from_file(ctx, opts["file"], fmt, now_ns, tz)
    when = now_ns
    status = 0
    if opts.has("date") or opts.has("set"):
        text = opts["date"] if opts.has("date") else opts["set"]
        parsed = parse_datetime(text, now_ns, tz)
        if parsed is None:
            ctx.error(f"invalid date {quote(text)}")
            return 1
        when = parsed
        if opts.has("set"):
            ctx.error("cannot set date: Operation not permitted")
            status = 1
    elif opts.has("reference"):
        path = opts["reference"]
        try:
            when = ctx.fs.stat(path).mtime_ns
        except FsError as e:
            ctx.fs_error(e, path)
            return 1
    elif operands and not operands[0].startswith("+"):
        setting = _posix_set_time(operands[0], _dt.datetime.fromtimestamp(now_ns // NS, tz))
        if setting is None:
            ctx.error(f"invalid date {quote(operands[0])}")
            return 1
        ctx.error("cannot set date: Operation not permitted")
        when, status = setting, 1
    return status if _show(ctx, fmt, when, tz) else 1


def _from_file(ctx: Ctx, path: str, fmt: str, now_ns: int, tz: _dt.tzinfo) -> int:
    try:
        stream = ctx.open_in(path)
    except FsError as e:
        if e.errno == errno.EISDIR:
            return 0  # (a directory opens; its first read fails and ends the loop)
        ctx.fs_error(e, path)
        return 1
    status = 0
    try:
        for raw in stream.lines(budget=ctx.budget):
            status |= _from_line(ctx, raw, fmt, now_ns, tz)
    except StreamReadError as e:
        # GNU's getline loop ends at a failed read without a word (a directory); the close of a
        # closed standard input fails, and that is reported
        if e.errno == errno.EBADF:
            ctx.error(f"{quoteaf('standard input' if path == '-' else path)}: {e.strerror}")
            return 1
    return status


def _from_line(ctx: Ctx, raw: bytes, fmt: str, now_ns: int, tz: _dt.tzinfo) -> int:
    """One line of `date -f`: its date shown, or why not (status 1)."""
    ctx.checkpoint()
    # (a line is a C string to GNU's parse_datetime: it ends at a NUL)
    line = raw.decode("utf-8", "surrogateescape").rstrip("\n").partition("\0")[0]
    when = parse_datetime(line, now_ns, tz)
    if when is None:
        ctx.error(f"invalid date {quote(line)}")
        return 1
    return 0 if _show(ctx, fmt, when, tz) else 1
