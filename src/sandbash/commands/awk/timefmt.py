"""strftime() and mktime() in the sandbox's time zone (TZ from the
environment; UTC when unset or unknown)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

DEFAULT_FORMAT = "%a %b %e %H:%M:%S %Z %Y"


def zone(env: Mapping[str, str], utc: bool = False) -> dt.tzinfo:
    if utc:
        return dt.UTC
    name = env.get("TZ", "")
    if name.startswith(":"):
        name = name[1:]
    if not name or name in ("UTC", "UTC0", "GMT", "GMT0", "Etc/UTC"):
        return dt.UTC
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except (ValueError, OSError, ImportError):
        return dt.UTC
    except Exception:  # zoneinfo raises its own error types for unknown keys
        return dt.UTC


def strftime(fmt: str, ts: float, env: Mapping[str, str], utc: bool = False) -> str:
    tz = zone(env, utc)
    try:
        when = dt.datetime.fromtimestamp(int(ts), tz)
    except (OverflowError, OSError, ValueError):
        return ""
    if not fmt:
        return ""
    # Python's strftime cannot encode lone surrogates; such bytes pass through as they are
    out: list[str] = []
    i = 0
    n = len(fmt)
    while i < n:
        j = fmt.find("%", i)
        if j < 0:
            out.append(fmt[i:])
            break
        out.append(fmt[i:j])
        if j + 1 >= n:
            out.append("%")
            break
        spec = fmt[j : j + 2]
        if spec[1] in "EO" and j + 2 < n:
            spec = "%" + fmt[j + 2]
            j += 1
        try:
            out.append(when.strftime(spec) if spec != "%%" else "%")
        except (ValueError, UnicodeError):
            out.append(spec)
        i = j + 2
    return "".join(out)


def mktime(spec: str, env: Mapping[str, str], utc: bool = False) -> float:
    parts = spec.split()
    if len(parts) < 6:
        return -1.0
    try:
        nums = [int(p) for p in parts[:7]]
    except ValueError:
        return -1.0
    year, month, day, hour, minute, second = nums[:6]
    tz = zone(env, utc)
    try:
        y, m = divmod(year * 12 + (month - 1), 12)
        base = dt.datetime(y, m + 1, 1, tzinfo=tz if isinstance(tz, dt.timezone) else None)
        moment = base + dt.timedelta(days=day - 1, hours=hour, minutes=minute, seconds=second)
        if not isinstance(tz, dt.timezone):
            moment = moment.replace(tzinfo=tz)
        return float(int(moment.timestamp()))
    except (ValueError, OverflowError):
        return -1.0
