"""strftime() and mktime() in the sandbox's time zone (TZ from the
environment, UTC when unset), through the date command's zone and format
code so both tools agree. The date modules, and datetime itself (~5 M instructions), are imported at
the first call: most awk programs never ask for the time, and loading them costs every awk run ~10 ms."""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt

DEFAULT_FORMAT = "%a %b %e %H:%M:%S %Z %Y"


def zone(env: Mapping[str, str], utc: bool = False) -> dt.tzinfo:
    if utc:
        import datetime as dt

        return dt.timezone(dt.timedelta(0), "GMT")  # gmtime()'s zone name
    from ...posix.zones import zone_from_spec

    return zone_from_spec(env.get("TZ", ""))


def _glibc_only(fmt: str) -> str:
    """Escape what GNU date adds to strftime (%q, %N, %:z): glibc prints those as written."""
    out: list[str] = []
    i = 0
    n = len(fmt)
    while i < n:
        if fmt[i] != "%":
            out.append(fmt[i])
            i += 1
            continue
        j = i + 1
        while (j < n and fmt[j] in "-_0^#:") or (j < n and fmt[j].isdigit()):
            j += 1
        spec = fmt[i : j + 1]
        if j < n and (fmt[j] in "qN" or ":" in spec):
            out.append("%" + spec)  # "%%..." prints the spec itself
        else:
            out.append(spec)
        i = j + 1
    return "".join(out)


def strftime(fmt: str, ts: float, env: Mapping[str, str], utc: bool = False) -> str:
    if not fmt:
        return ""
    from ..date.fmt import Moment, format_moment

    try:
        moment = Moment(int(ts), 0, zone(env, utc))
    except (OverflowError, OSError, ValueError):
        return ""
    return format_moment(_glibc_only(fmt), moment)


def mktime(spec: str, env: Mapping[str, str], utc: bool = False) -> float:
    """ "YYYY MM DD HH MM SS [DST]" in local time; out-of-range fields carry
    over as C's mktime does; -1 when the text is not such a date."""
    parts = spec.split()
    if len(parts) < 6:
        return -1.0
    try:
        year, month, day, hour, minute, second = (int(p) for p in parts[:6])
    except ValueError:
        return -1.0
    tz = zone(env, utc)
    import datetime as dt

    try:
        y, m = divmod(year * 12 + (month - 1), 12)
        moment = dt.datetime(y, m + 1, 1) + dt.timedelta(
            days=day - 1, hours=hour, minutes=minute, seconds=second
        )
        return float(int(moment.replace(tzinfo=tz).timestamp()))
    except (ValueError, OverflowError):
        return -1.0
