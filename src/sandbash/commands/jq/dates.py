"""Date builtins: gmtime, mktime, strftime, strptime and friends.

Times are always UTC (the sandbox has no time zone database); formatting and
parsing are done here rather than by the C library so results do not
depend on the host.
"""

from __future__ import annotations

import math

from ..date import DAYS as _DAYS
from ..date import MONTHS as _MONTHS
from .builtins_core import Registry, rt_value, value
from .errors import JqError
from .values import add, is_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def gmtime(v: Any) -> Any:
    if not is_number(v):
        raise JqError("gmtime() requires numeric inputs")
    f = float(v)
    if not math.isfinite(f) or abs(f) > 1e17:
        raise JqError("error converting number of seconds since epoch to datetime")
    secs = int(f)
    import datetime as _dt  # (imported by the time functions only: ~5 M instructions of a first jq)

    try:
        d = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=secs)
    except OverflowError:
        raise JqError("error converting number of seconds since epoch to datetime") from None
    sec: Any = d.second + (f - math.floor(f))
    if sec == int(sec):
        sec = int(sec)
    return [
        d.year,
        d.month - 1,
        d.day,
        d.hour,
        d.minute,
        sec,
        (d.weekday() + 1) % 7,
        d.timetuple().tm_yday - 1,
    ]


def _tm(v: Any, what: str) -> list[int]:
    if type(v) is not list or len(v) < 6:
        raise JqError(f"{what} requires parsed datetime inputs")
    if len(v) < 8 or not all(is_number(x) for x in v[:8]):
        raise JqError(f"{what} requires parsed datetime inputs")
    return [math.floor(float(x)) if i == 5 else int(float(x)) for i, x in enumerate(v[:8])]


def mktime(v: Any) -> Any:
    if type(v) is not list:
        raise JqError("mktime requires array inputs")
    tm = _tm(v, "mktime")
    year, mon, mday, hour, minute, sec = tm[:6]
    # timegm normalizes out-of-range fields the same way
    days = _days_from_civil(year + (mon // 12), mon % 12 + 1, 1) + mday - 1
    return days * 86400 + hour * 3600 + minute * 60 + sec


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def strftime(v: Any, fmt: Any) -> Any:
    if is_number(v):
        v = gmtime(v)
    elif type(v) is not list:
        raise JqError("strftime/1 requires parsed datetime inputs")
    if type(fmt) is not str:
        raise JqError("strftime/1 requires a string format")
    tm = _tm(v, "strftime/1")
    return _format(tm, fmt)


def _format(tm: list[int], fmt: str) -> str:
    year, mon, mday, hour, minute, sec, wday, yday = tm
    out: list[str] = []
    i = 0
    n = len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = fmt[i + 1]
        i += 2
        out.append(_directive(d, year, mon, mday, hour, minute, sec, wday, yday))
    return "".join(out)


def _directive(
    d: str, year: int, mon: int, mday: int, hour: int, minute: int, sec: int, wday: int, yday: int
) -> str:
    h12 = hour % 12 or 12
    wd = wday % 7
    simple = {
        "Y": str(year),
        "C": f"{year // 100:02d}",
        "y": f"{year % 100:02d}",
        "m": f"{mon + 1:02d}",
        "d": f"{mday:02d}",
        "e": f"{mday:2d}",
        "H": f"{hour:02d}",
        "k": f"{hour:2d}",
        "I": f"{h12:02d}",
        "l": f"{h12:2d}",
        "M": f"{minute:02d}",
        "S": f"{sec:02d}",
        "j": f"{yday + 1:03d}",
        "a": _DAYS[wd][:3],
        "A": _DAYS[wd],
        "b": _MONTHS[mon % 12][:3],
        "h": _MONTHS[mon % 12][:3],
        "B": _MONTHS[mon % 12],
        "p": "AM" if hour < 12 else "PM",
        "P": "am" if hour < 12 else "pm",
        "Z": "UTC",
        "z": "+0000",
        "n": "\n",
        "t": "\t",
        "%": "%",
        "u": str(wd or 7),
        "w": str(wd),
    }
    if d in simple:
        return simple[d]
    if d == "D":
        return f"{mon + 1:02d}/{mday:02d}/{year % 100:02d}"
    if d == "F":
        return f"{year}-{mon + 1:02d}-{mday:02d}"
    if d == "T":
        return f"{hour:02d}:{minute:02d}:{sec:02d}"
    if d == "R":
        return f"{hour:02d}:{minute:02d}"
    if d == "r":
        return f"{h12:02d}:{minute:02d}:{sec:02d} {'AM' if hour < 12 else 'PM'}"
    if d == "c":
        return f"{_DAYS[wd][:3]} {_MONTHS[mon % 12][:3]} {mday:2d} {hour:02d}:{minute:02d}:{sec:02d} {year}"
    if d == "x":
        return f"{mon + 1:02d}/{mday:02d}/{year % 100:02d}"
    if d == "X":
        return f"{hour:02d}:{minute:02d}:{sec:02d}"
    if d == "s":
        return str(mktime([year, mon, mday, hour, minute, sec, wday, yday]))
    if d in "UW":
        first = (wd - yday) % 7  # weekday of Jan 1
        offset = (7 - first) % 7 if d == "U" else (8 - first) % 7
        return f"{(yday + 7 - offset) // 7 if yday >= offset else 0:02d}"
    if d in "GgV":
        import datetime as _dt

        try:
            iso = _dt.date(year, mon + 1, mday).isocalendar()
        except ValueError:
            return ""
        if d == "G":
            return str(iso[0])
        if d == "g":
            return f"{iso[0] % 100:02d}"
        return f"{iso[1]:02d}"
    return "%" + d


def strptime(v: Any, fmt: Any) -> Any:
    if type(v) is not str or type(fmt) is not str:
        raise JqError("strptime/1 requires string inputs and arguments")
    res = _parse(v, fmt)
    if res is None:
        raise JqError(f'date "{v}" does not match format "{fmt}"')
    fields, rest = res
    year, mon, mday, hour, minute, sec, wday, yday = fields
    if wday is None or yday is None:
        import datetime as _dt

        try:
            date = _dt.date(year, mon + 1, mday)
            if wday is None:
                wday = (date.weekday() + 1) % 7
            if yday is None:
                yday = date.timetuple().tm_yday - 1
        except ValueError:
            wday = wday if wday is not None else 0
            yday = yday if yday is not None else 0
    out: list[Any] = [year, mon, mday, hour, minute, sec, wday, yday]
    if rest:
        out.append(rest)
    return out


def _parse(s: str, fmt: str) -> tuple[list[Any], str] | None:
    year, mon, mday, hour, minute, sec = 1900, 0, 0, 0, 0, 0
    wday: int | None = None
    yday: int | None = None
    pm: bool | None = None
    i = 0
    j = 0
    n = len(s)

    def number(maxlen: int, signed: bool = False) -> int | None:
        nonlocal i
        start = i
        if signed and i < n and s[i] in "+-":
            i += 1
        while i < n and s[i].isdigit() and i - start < maxlen:
            i += 1
        if i == start or not s[start:i].lstrip("+-"):
            return None
        return int(s[start:i])

    def name(options: tuple[str, ...]) -> int | None:
        nonlocal i
        low = s[i:].lower()
        for k, opt in enumerate(options):
            for cand in (opt.lower(), opt[:3].lower()):
                if low.startswith(cand):
                    i += len(cand)
                    return k
        return None

    while j < len(fmt):
        c = fmt[j]
        if c.isspace():
            while i < n and s[i].isspace():
                i += 1
            j += 1
            continue
        if c != "%" or j + 1 >= len(fmt):
            if i >= n or s[i] != c:
                return None
            i += 1
            j += 1
            continue
        d = fmt[j + 1]
        j += 2
        if d in "ntx" and d != "x":
            while i < n and s[i].isspace():
                i += 1
            continue
        if d == "%":
            if i >= n or s[i] != "%":
                return None
            i += 1
            continue
        if d in "YmdHMSjeyCIkl":
            while i < n and s[i].isspace() and d in "ekl":
                i += 1
            val = number(4 if d == "Y" else (3 if d == "j" else 2), signed=d == "Y")
            if val is None:
                return None
            if d == "Y":
                year = val
            elif d == "m":
                mon = val - 1
            elif d in "de":
                mday = val
            elif d in "Hk":
                hour = val
            elif d in "Il":
                hour = val % 12
            elif d == "M":
                minute = val
            elif d == "S":
                sec = val
            elif d == "j":
                yday = val - 1
            elif d == "y":
                year = val + (2000 if val < 69 else 1900)
            elif d == "C":
                year = val * 100 + year % 100
            continue
        if d in "aA":
            k = name(_DAYS)
            if k is None:
                return None
            wday = k
            continue
        if d in "bBh":
            k = name(_MONTHS)
            if k is None:
                return None
            mon = k
            continue
        if d == "p":
            up = s[i : i + 2].upper()
            if up not in ("AM", "PM"):
                return None
            pm = up == "PM"
            i += 2
            continue
        if d == "z":
            if s[i : i + 1] == "Z":
                i += 1
                continue
            start = i
            if i < n and s[i] in "+-":
                i += 1
            while i < n and (s[i].isdigit() or s[i] == ":"):
                i += 1
            if i - start < 3:
                return None
            continue
        if d == "Z":
            while i < n and (s[i].isalpha()):
                i += 1
            continue
        if d == "s":
            val = number(20, signed=True)
            if val is None:
                return None
            t = gmtime(val)
            year, mon, mday, hour, minute, sec, wday, yday = t
            continue
        if d in "TDFR":
            sub = {"T": "%H:%M:%S", "D": "%m/%d/%y", "F": "%Y-%m-%d", "R": "%H:%M"}[d]
            inner = _parse(s[i:], sub)
            if inner is None:
                return None
            f2, rest = inner
            consumed = len(s) - i - len(rest)
            i += consumed
            if d in "TR":
                hour, minute = f2[3], f2[4]
                if d == "T":
                    sec = f2[5]
            else:
                year, mon, mday = f2[0], f2[1], f2[2]
            continue
        return None
    if pm is not None:
        hour = hour % 12 + (12 if pm else 0)
    rest = s[i:]
    if rest and not rest[0].isspace():
        return None
    return [year, mon, mday, hour, minute, sec, wday, yday], rest


def _strflocaltime(v: Any, fmt: Any) -> Any:
    try:
        return strftime(v, fmt)
    except JqError as e:
        raise JqError(str(e.value).replace("strftime/1", "strflocaltime/1")) from None


def _now(rt: Any, v: Any) -> Any:
    return rt.clock()


def register(reg: Registry) -> None:
    value(reg, "gmtime", 0, gmtime)
    value(reg, "localtime", 0, gmtime)
    value(reg, "mktime", 0, mktime)
    value(reg, "strftime", 1, strftime)
    value(reg, "strflocaltime", 1, _strflocaltime)
    value(reg, "strptime", 1, strptime)
    value(reg, "todate", 0, lambda v: strftime(v, "%Y-%m-%dT%H:%M:%SZ"))
    value(reg, "todateiso8601", 0, lambda v: strftime(v, "%Y-%m-%dT%H:%M:%SZ"))
    value(reg, "date", 0, lambda v: strftime(v, "%Y-%m-%dT%H:%M:%SZ"))
    value(reg, "fromdate", 0, lambda v: mktime(strptime(v, "%Y-%m-%dT%H:%M:%SZ")))
    value(reg, "fromdateiso8601", 0, lambda v: mktime(strptime(v, "%Y-%m-%dT%H:%M:%SZ")))
    value(reg, "dateadd", 2, lambda v, u, n: _add(v, n))
    value(reg, "datesub", 2, lambda v, u, n: _add(v, -n if is_number(n) else n))
    rt_value(reg, "now", 0, _now)


def _add(v: Any, n: Any) -> Any:
    return add(v, n)
