"""Time zones from the TZ variable: zone database names through zoneinfo, and
POSIX TZ strings (`EST5EDT,M3.2.0,M11.1.0`, `<+03>-3`, `UTC0`) parsed here, as
glibc does; an unusable TZ means UTC under the name it spelled."""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from functools import lru_cache

UTC = _dt.UTC
_POSIX = re.compile(
    r"(?P<std>[A-Za-z]{3,}|<[A-Za-z0-9+-]+>)(?P<soff>[+-]?\d{1,2}(?::\d{1,2}){0,2})"
    r"(?:(?P<dst>[A-Za-z]{3,}|<[A-Za-z0-9+-]+>)(?P<doff>[+-]?\d{1,2}(?::\d{1,2}){0,2})?"
    r"(?:,(?P<start>[^,]+),(?P<end>[^,]+))?)?"
)
_RULE = re.compile(r"(?:M(\d{1,2})\.(\d)\.(\d)|J(\d{1,3})|(\d{1,3}))(?:/([+-]?\d{1,3}(?::\d{1,2}){0,2}))?")


def _seconds(text: str) -> int:
    sign = -1 if text.startswith("-") else 1
    parts = [int(p) for p in text.lstrip("+-").split(":")] + [0, 0]
    # glibc takes at most 24 hours, 59 minutes and 59 seconds (compute_offset's MIN); datetime
    # takes offsets under a day, so 24:00:00 reads as 23:59:59 (TZ=EST40 was a ValueError that
    # escaped Bash.exec through printf's %(...)T)
    off = min(parts[0], 24) * 3600 + min(parts[1], 59) * 60 + min(parts[2], 59)
    return sign * min(off, 86399)


class PosixZone(_dt.tzinfo):
    """A POSIX TZ rule: a standard offset and an optional daylight-saving rule."""

    def __init__(
        self,
        std: str,
        std_off: int,
        dst: str | None = None,
        dst_off: int = 0,
        start: str = "M3.2.0",
        end: str = "M11.1.0",
    ) -> None:
        self.std_name, self.std_off = std, std_off
        self.dst_name, self.dst_off = dst, dst_off
        self.start, self.end = start, end

    def _transition(self, year: int, rule: str) -> _dt.datetime:
        """The local wall-clock moment a rule names in `year`."""
        m = _RULE.fullmatch(rule)
        if m is None:
            raise ValueError(rule)
        at = _seconds(m.group(6)) if m.group(6) else 7200
        if m.group(1):
            month, week, wday = int(m.group(1)), int(m.group(2)), int(m.group(3))
            first = _dt.datetime(year, month, 1)
            # day of the month of the first `wday` (0 = Sunday)
            day = 1 + (wday - (first.weekday() + 1) % 7) % 7 + 7 * (week - 1)
            nxt = _dt.datetime(year + (month == 12), month % 12 + 1, 1)
            while first + _dt.timedelta(days=day - 1) >= nxt:
                day -= 7
            base = _dt.datetime(year, month, day)
        elif m.group(4):
            n = int(m.group(4))  # 1..365, February 29 never counted
            base = _dt.datetime(year, 1, 1) + _dt.timedelta(days=n - 1)
            if n >= 60 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
                base += _dt.timedelta(days=1)
        else:
            base = _dt.datetime(year, 1, 1) + _dt.timedelta(days=int(m.group(5)))
        return base + _dt.timedelta(seconds=at)

    def _is_dst(self, naive: _dt.datetime) -> bool:
        if self.dst_name is None:
            return False
        try:
            start = self._transition(naive.year, self.start)
            end = self._transition(naive.year, self.end)
        except ValueError:
            return False
        # `end` is given in daylight time; compare both in standard wall time
        end -= _dt.timedelta(seconds=self.dst_off - self.std_off)
        if start <= end:
            return start <= naive < end
        return not (end <= naive < start)

    def _wall_is_dst(self, dt: _dt.datetime) -> bool:
        """Whether a local wall-clock time is daylight time. In the repeated hour
        after the change back, fold 0 is the daylight one, fold 1 the standard."""
        naive = dt.replace(tzinfo=None, fold=0)
        if dt.fold:
            return self._is_dst(naive)
        return self._is_dst(naive - _dt.timedelta(seconds=self.dst_off - self.std_off))

    def utcoffset(self, dt: _dt.datetime | None) -> _dt.timedelta:
        if dt is None:
            return _dt.timedelta(seconds=self.std_off)
        return _dt.timedelta(seconds=self.dst_off if self._wall_is_dst(dt) else self.std_off)

    def dst(self, dt: _dt.datetime | None) -> _dt.timedelta:
        if dt is None or not self._wall_is_dst(dt):
            return _dt.timedelta(0)
        return _dt.timedelta(seconds=self.dst_off - self.std_off)

    def tzname(self, dt: _dt.datetime | None) -> str:
        if dt is not None and self.dst_name and self._wall_is_dst(dt):
            return self.dst_name
        return self.std_name

    def fromutc(self, dt: _dt.datetime) -> _dt.datetime:
        naive = dt.replace(tzinfo=None)
        std = naive + _dt.timedelta(seconds=self.std_off)
        if self._is_dst(std):
            return (naive + _dt.timedelta(seconds=self.dst_off)).replace(tzinfo=self)
        # a standard time that also reads as daylight time is the second of the two
        fold = int(self._wall_is_dst(std))
        return std.replace(tzinfo=self, fold=fold)


def _posix_zone(spec: str) -> _dt.tzinfo | None:
    m = _POSIX.fullmatch(spec)
    if m is None:
        return None
    std = m.group("std").strip("<>")
    # POSIX offsets count hours west of Greenwich
    std_off = -_seconds(m.group("soff"))
    dst = m.group("dst")
    if dst is None:
        return _dt.timezone(_dt.timedelta(seconds=std_off), std) if std_off or std != "UTC" else UTC
    dst_off = -_seconds(m.group("doff")) if m.group("doff") else std_off + 3600
    start, end = m.group("start") or "M3.2.0", m.group("end") or "M11.1.0"
    return PosixZone(std, std_off, dst.strip("<>"), dst_off, start, end)


def zone_from_spec(spec: str) -> _dt.tzinfo:
    """The zone a TZ value names (glibc rules; never an error)."""
    # the cache is the process's and keys the value whole: a TZ of up to max_string_length (and
    # the zone named after its letters) is not kept past the run
    return _zone_cached(spec) if len(spec) <= 256 else _zone(spec)


def _zone(spec: str) -> _dt.tzinfo:
    spec = spec[1:] if spec.startswith(":") else spec
    if not spec or spec in ("UTC", "UTC0", "GMT", "GMT0", "Z"):
        return UTC
    if not spec.startswith("/") and ".." not in spec.split("/"):
        # (imported for a zone name only: zoneinfo with sysconfig is ~16 M instructions, most
        # of a first date, ls -l or find -newermt whose TZ is unset or UTC)
        import zoneinfo

        try:
            return zoneinfo.ZoneInfo(spec)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            pass
    posix = _posix_zone(spec)
    if posix is not None:
        return posix
    # glibc: an unknown zone is UTC, shown under the leading letters of its name
    name = re.match(r"[A-Za-z]*", spec)
    shown = name.group(0) if name and len(name.group(0)) >= 3 else "UTC"
    return _dt.timezone(_dt.timedelta(0), shown)


_zone_cached = lru_cache(maxsize=64)(_zone)


def local_zone(env: Mapping[str, str]) -> _dt.tzinfo:
    """The zone for a command's environment: TZ, or UTC when unset."""
    return zone_from_spec(env.get("TZ", ""))
