"""GNU date strings (parse_datetime): `@N`, `now`, `yesterday`, `next monday`,
`2 days ago`, `+3 hours`, ISO 8601, `2024-01-15 10:30`, `Jan 5 2024`,
`17-JUN-1992`, time zones and military letters, `TZ="..."` prefixes, and any
combination of items, applied in GNU's order: absolute date and time, then
the day of the week, then relative years/months/days on the calendar, then
relative hours/minutes/seconds on the clock.

`parse_datetime(text, now_ns, tz)` returns nanoseconds since the epoch (None
if invalid); `parse_date(text, now, tz)` is the float-seconds form for other
commands (touch -d, find -newermt).
"""

from __future__ import annotations

import datetime as _dt
import re

from ...posix.zones import zone_from_spec
from ...vfs.base import NS as NS
from ...vfs.base import seconds_to_ns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
DAY_NAMES = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
_DAY_EXTRA = {"tues": 2, "wednes": 3, "thur": 4, "thurs": 4}
# unit -> (field, multiplier); fields: y m d s (seconds)
UNITS = {
    "year": ("y", 1),
    "month": ("m", 1),
    "fortnight": ("d", 14),
    "week": ("d", 7),
    "day": ("d", 1),
    "hour": ("s", 3600),
    "minute": ("s", 60),
    "min": ("s", 60),
    "second": ("s", 1),
    "sec": ("s", 1),
}
ORDINALS = {
    "last": -1,
    "this": 0,
    "next": 1,
    "first": 1,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
}
SHIFTS = {"tomorrow": 1, "yesterday": -1, "today": 0, "now": 0}
# abbreviation -> offset east of UTC in minutes (daylight names include their hour)
ZONES = {
    "gmt": 0,
    "ut": 0,
    "utc": 0,
    "wet": 0,
    "west": 60,
    "bst": 60,
    "art": -180,
    "brt": -180,
    "brst": -120,
    "nst": -210,
    "ndt": -150,
    "ast": -240,
    "adt": -180,
    "est": -300,
    "edt": -240,
    "cst": -360,
    "cdt": -300,
    "mst": -420,
    "mdt": -360,
    "pst": -480,
    "pdt": -420,
    "akst": -540,
    "akdt": -480,
    "hst": -600,
    "hast": -600,
    "hadt": -540,
    "sst": -660,
    "wat": 60,
    "cet": 60,
    "cest": 120,
    "met": 60,
    "mez": 60,
    "mest": 120,
    "mesz": 120,
    "eet": 120,
    "eest": 180,
    "cat": 120,
    "sast": 120,
    "eat": 180,
    "msk": 180,
    "msd": 240,
    "ist": 330,
    "sgt": 480,
    "kst": 540,
    "jst": 540,
    "gst": 600,
    "nzst": 720,
    "nzdt": 780,
}
_DAYLIGHT = {
    "west",
    "bst",
    "brst",
    "ndt",
    "adt",
    "edt",
    "cdt",
    "mdt",
    "pdt",
    "akdt",
    "hadt",
    "cest",
    "mest",
    "mesz",
    "eest",
    "msd",
    "nzdt",
}


def _military(letter: str) -> int | None:
    """Military zone letters: A-I = +1..+9, K-M = +10..+12, N-Y = -1..-12, Z = 0 (J is local)."""
    c = letter.upper()
    if c == "Z":
        return 0
    if "A" <= c <= "I":
        return 60 * (ord(c) - ord("A") + 1)
    if "K" <= c <= "M":
        return 60 * (ord(c) - ord("K") + 10)
    if "N" <= c <= "Y":
        return -60 * (ord(c) - ord("N") + 1)
    return None


@dataclass
class Tok:
    kind: str  # num snum dec sdec word punct
    text: str
    value: int = 0
    digits: int = 0
    frac: int = 0  # nanoseconds of a decimal number


class Invalid(Exception):
    pass


_TOKEN = re.compile(
    r"\s+|(\()|([+-])\s*(\d+)(?:[.,](\d+))?|(\d+)(?:[.,](\d+))?|([A-Za-z][A-Za-z.]*)|(.)", re.S
)


def _nanos(frac: str | None) -> int:
    return int((frac or "").ljust(9, "0")[:9]) if frac else 0


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise Invalid
        pos = m.end()
        if m.group(1):  # parenthesised comments nest
            depth = 1
            while pos < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[pos], 0)
                pos += 1
        elif m.group(3):
            sign = -1 if m.group(2) == "-" else 1
            kind = "sdec" if m.group(4) is not None else "snum"
            toks.append(
                Tok(kind, m.group(0), sign * int(m.group(3)), len(m.group(3)), sign * _nanos(m.group(4)))
            )
        elif m.group(5):
            kind = "dec" if m.group(6) is not None else "num"
            toks.append(Tok(kind, m.group(0), int(m.group(5)), len(m.group(5)), _nanos(m.group(6))))
        elif m.group(7):
            toks.append(Tok("word", m.group(7).lower(), 0))
        elif m.group(8) and m.group(8) not in "+-":  # a sign not before digits is skipped
            toks.append(Tok("punct", m.group(8)))
    return toks


def _word_class(word: str) -> tuple[str, int]:
    """What a word means: (class, value)."""
    w = word
    if w in ("am", "a.m."):
        return "merid", 0
    if w in ("pm", "p.m."):
        return "merid", 12
    plain = w.rstrip(".") if len(w) <= 5 else w
    for i, name in enumerate(MONTH_NAMES):
        if plain == name or (len(plain) == 3 and name.startswith(plain)) or (plain == "sept" and i == 8):
            return "month", i + 1
    for i, name in enumerate(DAY_NAMES):
        if plain == name or (len(plain) == 3 and name.startswith(plain)):
            return "wday", i
    if plain in _DAY_EXTRA:
        return "wday", _DAY_EXTRA[plain]
    if w == "dst":
        return "dst", 0
    unit = w if w in UNITS else (w[:-1] if w.endswith("s") and w[:-1] in UNITS else None)
    if unit is not None:
        return "unit", 0
    if w in ORDINALS:
        return "ordinal", ORDINALS[w]
    if w == "ago":
        return "ago", 0
    if w in SHIFTS:
        return "shift", SHIFTS[w]
    if w == "t":
        return "T", 0
    if len(w) == 1 and _military(w) is not None:
        return "zone", _military(w) or 0
    zone = w.replace(".", "")
    if zone in ZONES:
        return ("dayzone" if zone in _DAYLIGHT else "zone"), ZONES[zone]
    raise Invalid


def _unit_of(word: str) -> tuple[str, int]:
    return UNITS[word if word in UNITS else word[:-1]]


@dataclass
class Items:
    year: int | None = None
    year_digits: int = 0
    month: int | None = None
    day: int | None = None
    hour: int = 0
    minute: int = 0
    second: int = 0
    nanos: int = 0
    merid: int | None = None  # None: 24-hour clock
    zone: int | None = None  # minutes east of UTC
    wday: int | None = None
    wday_ordinal: int = 0
    rel: dict[str, int] = field(default_factory=lambda: {"y": 0, "m": 0, "d": 0, "s": 0, "ns": 0})
    dates: int = 0
    times: int = 0
    days: int = 0
    zones: int = 0
    rels: int = 0
    local_isdst: int | None = None  # a zone named by the TZ's own abbreviation: its DST flag


class _Parser:
    def __init__(self, toks: list[Tok], local: dict[str, int] | None = None) -> None:
        self.toks = toks
        self.i = 0
        self.it = Items()
        self.local = local or {}  # the TZ's own abbreviations (lower case) -> their DST flag

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def cls(self, k: int = 0) -> str:
        """A token's class: num snum dec sdec punct:X or the word class."""
        t = self.peek(k)
        if t is None:
            return ""
        if t.kind == "word":
            if t.text.lower() in self.local:  # (gnulib looks the TZ's own names up first)
                return "localzone"
            try:
                return _word_class(t.text)[0]
            except Invalid:
                return "bad"
        return t.kind if t.kind != "punct" else "punct:" + t.text

    def take(self) -> Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def parse(self) -> Items:
        while self.i < len(self.toks):
            self.item()
        it = self.it
        if it.dates > 1 or it.times > 1 or it.days > 1 or it.zones > 1:
            raise Invalid
        return it

    # ---------------------------------------------------------------- items

    def item(self) -> None:
        c = self.cls()
        if c == "num":
            self.number_item()
        elif c in ("snum", "sdec", "dec") and self.cls(1) == "unit":
            self.relative(self.take())
        elif c == "month":
            self.month_first()
        elif c == "wday":
            self.set_day(0, _word_class(self.take().text)[1])
            if self.cls() == "punct:,":
                self.take()
        elif c == "ordinal":
            value = _word_class(self.take().text)[1]
            if self.cls() == "wday":
                self.set_day(value, _word_class(self.take().text)[1])
            elif self.cls() == "unit":
                self.add_rel(self.take().text, value)
            else:
                raise Invalid
        elif c == "unit":
            self.add_rel(self.take().text, 1)
        elif c == "shift":
            self.it.rel["d"] += _word_class(self.take().text)[1]
            self.it.rels += 1
        elif c in ("zone", "dayzone", "T"):
            self.zone_item()
        elif c == "localzone":
            self.it.local_isdst = self.local[self.take().text.lower()]
            self.it.zones += 1
        else:
            raise Invalid

    def relative(self, count: Tok) -> None:
        word = self.peek(0)
        assert word is not None
        if count.kind in ("dec", "sdec") and _unit_of(word.text)[0] != "s":
            raise Invalid  # only seconds take a fraction
        self.take()
        self.add_rel(word.text, count.value, count.frac)

    def add_rel(self, unit_word: str, count: int, frac: int = 0) -> None:
        fld, mult = _unit_of(unit_word)
        sign = 1
        if self.cls() == "ago":
            self.take()
            sign = -1
        self.it.rel[fld] += sign * count * mult
        if frac:
            self.it.rel["ns"] += sign * frac
        self.it.rels += 1

    def set_day(self, ordinal: int, wday: int) -> None:
        self.it.wday, self.it.wday_ordinal = wday, ordinal
        self.it.days += 1

    def set_date(self, year: Tok | None, month: int, day: int) -> None:
        it = self.it
        if year is not None:
            it.year, it.year_digits = year.value, year.digits
        it.month, it.day = month, day
        it.dates += 1

    def number_item(self) -> None:
        c1 = self.cls(1)
        if c1 == "punct::":
            self.time_of_day()
        elif c1 == "merid":
            hour = self.take().value
            self.set_time(hour, 0, 0, 0, _word_class(self.take().text)[1])
        elif c1 == "punct:/":
            self.slash_date()
        elif c1 == "snum" and self.cls(2) == "snum":  # an ISO date, even before a unit (`2024-06-15 week`)
            year = self.take()
            month, day = -self.take().value, -self.take().value
            self.set_date(year, month, day)
            if self.cls() == "T" and self.cls(1) == "num" and self.cls(2) == "punct::":
                self.take()
                self.time_of_day()
        elif c1 == "month":
            day = self.take().value
            month = _word_class(self.take().text)[1]
            year = None
            if self.cls() == "snum":
                year = self.take()
                year.value = -year.value
            elif self.cls() == "num":
                year = self.take()
            self.set_date(year, month, day)
        elif c1 == "wday":
            ordinal = self.take().value
            self.set_day(ordinal, _word_class(self.take().text)[1])
        elif c1 == "unit":
            self.relative(self.take())
        else:
            self.bare_number(self.take())

    def bare_number(self, t: Tok) -> None:
        """GNU digits_to_date_time: a year, a YYYYMMDD date or an HHMM time."""
        it = self.it
        if it.dates and it.year is None and not it.rels and (it.times or t.digits > 2):
            it.year, it.year_digits = t.value, t.digits
        elif t.digits > 4:
            it.year, it.year_digits = t.value // 10000, t.digits - 4
            it.month, it.day = (t.value // 100) % 100, t.value % 100
            it.dates += 1
        elif t.digits <= 2:
            self.set_time(t.value, 0, 0, 0, None)
        else:
            self.set_time(t.value // 100, t.value % 100, 0, 0, None)

    def slash_date(self) -> None:
        a = self.take()
        self.take()
        if self.cls() != "num":
            raise Invalid
        b = self.take()
        if self.cls() == "punct:/" and self.cls(1) == "num":
            self.take()
            c = self.take()
            if a.digits >= 4:
                self.set_date(a, b.value, c.value)
            else:
                self.set_date(c, a.value, b.value)
        else:
            self.set_date(None, a.value, b.value)

    def month_first(self) -> None:
        month = _word_class(self.take().text)[1]
        if self.cls() == "snum" and self.cls(1) == "snum":
            day = -self.take().value
            year = self.take()
            year.value = -year.value
            self.set_date(year, month, day)
        elif self.cls() == "num":
            day = self.take().value
            year = None
            if self.cls() == "punct:," and self.cls(1) == "num":
                self.take()
                year = self.take()
            self.set_date(year, month, day)
        else:
            raise Invalid

    def time_of_day(self) -> None:
        hour = self.take().value
        self.take()  # ':'
        if self.cls() != "num":
            raise Invalid
        minute = self.take().value
        second = nanos = 0
        if self.cls() == "punct::" and self.cls(1) in ("num", "dec"):
            self.take()
            sec = self.take()
            second, nanos = sec.value, sec.frac
        merid = None
        if self.cls() == "merid":
            merid = _word_class(self.take().text)[1]
        elif self.cls() == "snum":
            # greedy, as GNU's grammar: "10:00 +3 hours" is 10:00 at +03, plus one hour
            self.set_zone(self.zone_offset(self.take()))
        self.set_time(hour, minute, second, nanos, merid)

    def zone_offset(self, t: Tok) -> int:
        """`+5`, `+0530`, `-05:30` as minutes east."""
        sign = -1 if t.value < 0 or t.text.startswith("-") else 1
        value = abs(t.value)
        if self.cls() == "punct::" and self.cls(1) == "num":
            self.take()
            minutes = value * 60 + self.take().value
        else:
            if t.digits <= 2:
                value *= 100
            minutes = (value // 100) * 60 + value % 100
        if minutes > 24 * 60:
            raise Invalid
        return sign * minutes

    def set_zone(self, minutes: int) -> None:
        self.it.zone = minutes
        self.it.zones += 1

    def zone_item(self) -> None:
        kind, value = _word_class(self.take().text)
        if kind == "T":
            value = _military("t") or 0
        if kind == "zone" and self.cls() == "dst":
            self.take()
            value += 60
        elif kind != "dayzone" and self.cls() == "snum" and self.cls(1) != "unit":
            value += self.zone_offset(self.take())
        self.set_zone(value)

    def set_time(self, hour: int, minute: int, second: int, nanos: int, merid: int | None) -> None:
        it = self.it
        it.hour, it.minute, it.second, it.nanos, it.merid = hour, minute, second, nanos, merid
        it.times += 1


def _hour24(hour: int, merid: int | None) -> int:
    if merid is None:
        if not 0 <= hour <= 23:
            raise Invalid
        return hour
    if not 1 <= hour <= 12:
        raise Invalid
    return hour % 12 + merid


def _zone_prefix(text: str) -> tuple[str | None, str]:
    """Split a leading TZ="zone" item off the string."""
    m = re.match(r'\s*TZ="((?:[^"\\]|\\.)*)"', text)
    if m is None:
        return None, text
    return re.sub(r"\\(.)", r"\1", m.group(1)), text[m.end() :]


def parse_datetime(text: str, now_ns: int, tz: _dt.tzinfo) -> int | None:
    """GNU date string to nanoseconds since the epoch, or None if invalid."""
    spec, body = _zone_prefix(text)
    if spec is not None:
        tz = zone_from_spec(spec)
    stamp = re.fullmatch(r"\s*@\s*([+-]?)\s*(\d+)(?:[.,](\d*))?\s*", body)
    if stamp is not None:
        value = int(stamp.group(2)) * NS + _nanos(stamp.group(3))
        return -value if stamp.group(1) == "-" else value
    try:
        it = _Parser(tokenize(body), _local_names(now_ns, tz)).parse()
        return _resolve(it, now_ns, tz)
    except (Invalid, ValueError, OverflowError):
        return None


def _local_names(now_ns: int, tz: _dt.tzinfo) -> dict[str, int]:
    """The TZ's abbreviations as parse-datetime learns them: the one in force now and at each
    quarter of a year ahead, each with its DST flag (`EST` 0, `EDT` 1 in America/New_York)."""
    names: dict[str, int] = {}
    for quarter in range(4):
        try:
            when = _dt.datetime.fromtimestamp(now_ns // NS + quarter * 90 * 86400, tz)
        except (OverflowError, OSError, ValueError):
            break
        name = when.tzname()
        # (GMT, UT and UTC are looked up before the local names: always universal)
        if name and name.isalpha() and name.lower() not in names and name.lower() not in ("gmt", "ut", "utc"):
            names[name.lower()] = int(bool(when.dst()))
    return names


def _resolve(it: Items, now_ns: int, tz: _dt.tzinfo) -> int:
    now_s, now_frac = divmod(now_ns, NS)
    now = _dt.datetime.fromtimestamp(now_s, tz)
    zone: _dt.tzinfo = tz if it.zone is None else _dt.timezone(_dt.timedelta(minutes=it.zone))
    year, month, day = now.year, now.month, now.day
    if it.dates:
        if it.year is not None:
            year = it.year
            if it.year_digits == 2:
                year += 1900 if year >= 69 else 2000
        assert it.month is not None and it.day is not None
        month, day = it.month, it.day
        _dt.date(year, month, day)  # raises ValueError on Feb 30 and friends
    if it.times:
        hour, minute, second, frac = _hour24(it.hour, it.merid), it.minute, it.second, it.nanos
        if minute > 59 or second > 59:
            raise Invalid
    elif it.rels and not it.dates and not it.days:
        hour, minute, second, frac = now.hour, now.minute, now.second, now_frac
    else:
        hour = minute = second = frac = 0
    base = _dt.date(year, month, day)
    absolute = bool(it.dates or it.days or it.times)
    if absolute and it.zone is None:
        # mktime_ok: a wall-clock time that does not exist (a DST gap) is invalid
        wall = _dt.datetime(year, month, day, hour, minute, second)
        seen = _dt.datetime.fromtimestamp(wall.replace(tzinfo=zone).timestamp(), zone).replace(tzinfo=None)
        if seen != wall:
            raise Invalid
    if it.days and not it.dates and it.wday is not None:
        wday = (base.weekday() + 1) % 7
        ordinal = it.wday_ordinal
        shift = (it.wday - wday + 7) % 7 + 7 * (ordinal - (1 if ordinal > 0 and wday != it.wday else 0))
        base += _dt.timedelta(days=shift)
    rel = it.rel
    moved = bool(rel["y"] or rel["m"] or rel["d"])
    if moved:
        months = base.year * 12 + base.month - 1 + rel["y"] * 12 + rel["m"]
        y, m = divmod(months, 12)
        # mktime-style normalisation: Jan 31 + 1 month is March 2 or 3
        base = _dt.date(y, m + 1, 1) + _dt.timedelta(days=base.day - 1 + rel["d"])
    local = _dt.datetime(base.year, base.month, base.day, hour, minute, second, tzinfo=zone)
    seconds = int(local.timestamp())
    if it.local_isdst is not None and int(bool(local.dst())) != it.local_isdst:
        # mktime with tm_isdst from the name moves the time an hour; mktime_ok refuses that
        raise Invalid
    if moved and not absolute:
        # GNU keeps the current time's DST flag when only relative items were given
        seconds += _dst_shift(now.dst(), local.dst())
    seconds += rel["s"]
    return seconds * NS + frac + rel["ns"]


def _dst_shift(was: _dt.timedelta | None, now: _dt.timedelta | None) -> int:
    """Seconds to add when a wall time is read with the old DST flag instead of its own."""
    was_s = int(was.total_seconds()) if was else 0
    now_s = int(now.total_seconds()) if now else 0
    if bool(was_s) == bool(now_s):
        return 0
    return now_s if not was_s else -was_s


to_nanos = seconds_to_ns  # (the VFS's conversion: one rounding for clocks and file times)


def parse_date(text: str, now: float, tz: _dt.tzinfo) -> float | None:
    """Float-seconds form of parse_datetime (for touch -d, find -newermt)."""
    value = parse_datetime(text, to_nanos(now), tz)
    return None if value is None else value / NS
