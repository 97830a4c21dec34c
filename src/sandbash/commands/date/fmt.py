"""GNU date's strftime: every directive, the flags `- _ 0 ^ #`, widths, `%N`
and the `%z` colon forms, in the C locale."""

from __future__ import annotations

import datetime as _dt

from . import DAYS, MONTHS

# composite directives, expanded before their flags and width apply
_COMPOSITE = {
    "c": "%a %b %e %H:%M:%S %Y",
    "D": "%m/%d/%y",
    "F": "%Y-%m-%d",
    "r": "%I:%M:%S %p",
    "R": "%H:%M",
    "T": "%H:%M:%S",
    "x": "%m/%d/%y",
    "X": "%H:%M:%S",
    "h": "%b",
}
# numeric directives: (default width, default pad)
_NUMERIC = {
    "C": (2, "0"),
    "d": (2, "0"),
    "e": (2, " "),
    "g": (2, "0"),
    "G": (4, "0"),
    "H": (2, "0"),
    "I": (2, "0"),
    "j": (3, "0"),
    "k": (2, " "),
    "l": (2, " "),
    "m": (2, "0"),
    "M": (2, "0"),
    "q": (1, "0"),
    "s": (1, "0"),
    "S": (2, "0"),
    "u": (1, "0"),
    "U": (2, "0"),
    "V": (2, "0"),
    "w": (1, "0"),
    "W": (2, "0"),
    "y": (2, "0"),
    "Y": (4, "0"),
}


class FormatTooLong(ValueError):
    """The formatted text would be longer than the caller's limit (checked
    before a wide field is built). `directive` is the too-wide directive, or
    None when the fields add up past the limit."""

    def __init__(self, directive: str | None, limit: int) -> None:
        super().__init__(directive, limit)
        self.directive = directive
        self.limit = limit


class Moment:
    """A point in time seen in a zone: the fields every directive needs."""

    def __init__(self, seconds: int, nanos: int, tz: _dt.tzinfo) -> None:
        self.seconds = seconds
        self.nanos = nanos
        self.dt = _dt.datetime.fromtimestamp(seconds, tz)
        offset = self.dt.utcoffset()
        self.offset = int(offset.total_seconds()) if offset is not None else 0
        self.zone = self.dt.tzname() or ""

    def number(self, conv: str) -> int:
        dt = self.dt
        wday = (dt.weekday() + 1) % 7  # Sunday = 0
        yday = dt.timetuple().tm_yday - 1
        iso = dt.isocalendar()
        values = {
            "C": dt.year // 100,
            "d": dt.day,
            "e": dt.day,
            "g": iso[0] % 100,
            "G": iso[0],
            "H": dt.hour,
            "I": (dt.hour + 11) % 12 + 1,
            "j": yday + 1,
            "k": dt.hour,
            "l": (dt.hour + 11) % 12 + 1,
            "m": dt.month,
            "M": dt.minute,
            "q": (dt.month - 1) // 3 + 1,
            "s": self.seconds,
            "S": dt.second,
            "u": iso[2],
            "U": (yday + 7 - wday) // 7,
            "V": iso[1],
            "w": wday,
            "W": (yday + 7 - (wday + 6) % 7) // 7,
            "y": dt.year % 100,
            "Y": dt.year,
        }
        return values[conv]

    def text(self, conv: str) -> str | None:
        dt = self.dt
        if conv == "a":
            return DAYS[(dt.weekday() + 1) % 7][:3]
        if conv == "A":
            return DAYS[(dt.weekday() + 1) % 7]
        if conv == "b":
            return MONTHS[dt.month - 1][:3]
        if conv == "B":
            return MONTHS[dt.month - 1]
        if conv == "p":
            return "AM" if dt.hour < 12 else "PM"
        if conv == "P":
            return "am" if dt.hour < 12 else "pm"
        if conv == "Z":
            return self.zone
        if conv == "n":
            return "\n"
        if conv == "t":
            return "\t"
        return None

    def zone_offset(self, colons: int) -> str:
        sign = "-" if self.offset < 0 else "+"
        hours, rest = divmod(abs(self.offset), 3600)
        minutes, secs = divmod(rest, 60)
        if colons == 0:
            return f"{sign}{hours:02d}{minutes:02d}"
        if colons == 1:
            return f"{sign}{hours:02d}:{minutes:02d}"
        if colons == 2:
            return f"{sign}{hours:02d}:{minutes:02d}:{secs:02d}"
        # %:::z: only as precise as needed
        if secs:
            return f"{sign}{hours:02d}:{minutes:02d}:{secs:02d}"
        return f"{sign}{hours:02d}" + (f":{minutes:02d}" if minutes else "")


def _pad(text: str, width: int, pad: str) -> str:
    if width <= len(text) or pad == "":
        return text
    if pad == "0" and text[:1] in "+-":
        return text[0] + text[1:].rjust(width - 1, "0")
    return text.rjust(width, pad)


def _case(text: str, upper: bool, swap: bool, conv: str) -> str:
    if upper:
        return text.upper()
    if swap:
        # GNU's `#`: names in upper case, AM/PM and the zone in lower case
        return text.lower() if conv in "pZ" else text.upper()
    return text


def format_moment(fmt: str, m: Moment, limit: int | None = None) -> str:
    """Format m with GNU's directives; with a limit, a field width or a result
    longer than it raises FormatTooLong instead of building the text."""
    out: list[str] = []
    total = 0
    i, n = 0, len(fmt)
    while i < n:
        ch = fmt[i]
        if ch != "%" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        start = i
        i += 1
        flags = ""
        while i < n and fmt[i] in "-_0^#+":
            flags += fmt[i]
            i += 1
        digits = ""
        while i < n and fmt[i].isdigit():
            digits += fmt[i]
            i += 1
        width = (int(digits) if len(digits) <= 18 else 10**18) if digits else -1
        while i < n and fmt[i] in "EO":
            i += 1
        colons = 0
        while i < n and fmt[i] == ":":
            colons += 1
            i += 1
        if i >= n:
            out.append(fmt[start:])
            break
        conv = fmt[i]
        i += 1
        if limit is not None and width > limit:
            raise FormatTooLong(fmt[start:i], limit)
        text = _directive(fmt[start:i], conv, flags, width, colons, m)
        total += len(text)
        if limit is not None and total > limit:
            raise FormatTooLong(None, limit)
        out.append(text)
    return "".join(out)


def _directive(spec: str, conv: str, flags: str, width: int, colons: int, m: Moment) -> str:
    pad_flag = next((f for f in reversed(flags) if f in "-_0"), "")
    upper, swap = "^" in flags, "#" in flags
    if colons and conv != "z":
        return _pad(spec, width, " ")
    if conv in _COMPOSITE:
        text = format_moment(_COMPOSITE[conv], m)
        return _pad(
            _case(text, upper, swap, conv), width, "" if pad_flag == "-" else "0" if pad_flag == "0" else " "
        )
    if conv in _NUMERIC:
        default_width, default_pad = _NUMERIC[conv]
        pad = {"-": "", "_": " ", "0": "0"}.get(pad_flag, default_pad)
        value = m.number(conv)
        text = str(value)
        if conv in ("Y", "G") and "+" in flags and width > 4 and value >= 0:
            text = "+" + text
        if pad == " " and width < 0:
            return text.rjust(default_width)
        return _pad(text, width if width >= 0 else default_width, pad)
    if conv == "N":
        digits = f"{m.nanos:09d}"
        size = width if width > 0 else 9
        return digits[:size] if size <= 9 else digits.ljust(size, "0")
    if conv == "z":
        return _pad(m.zone_offset(colons), width, {"-": "", "_": " "}.get(pad_flag, "0"))
    if conv == "%":
        return _pad("%", width, " ")
    text_value = m.text(conv)
    if text_value is None:
        return _pad(spec, width, " ")  # unknown directives are copied
    return _pad(
        _case(text_value, upper, swap, conv),
        width,
        "" if pad_flag == "-" else "0" if pad_flag == "0" else " ",
    )
