"""Checks for values read from an untrusted snapshot: each names what was wrong, never a traceback."""

from __future__ import annotations

import math

from .errors import SnapshotError


def check_str(value: object, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise SnapshotError(f"{what}: expected text")
    if len(value) > limit:
        raise SnapshotError(f"{what}: longer than {limit} characters")
    return value


def check_name(value: str, what: str) -> str:
    if (
        value in ("", ".", "..")
        or "/" in value
        or "\0" in value
        or len(value.encode("utf-8", "surrogatepass")) > 255
    ):
        raise SnapshotError(f"{what}: bad file name {value[:40]!r}")
    return value


def check_int(value: object, what: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise SnapshotError(f"{what}: expected a whole number from {low} to {high}")
    return value


def check_float(value: object, what: str) -> float:
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not math.isfinite(value)
        or not -1e11 < value < 1e11
    ):
        raise SnapshotError(f"{what}: expected a time")
    return float(value)


def check_list(value: object, what: str, limit: int) -> list[object]:
    if not isinstance(value, list):
        raise SnapshotError(f"{what}: expected a list")
    if len(value) > limit:
        raise SnapshotError(f"{what}: more than {limit} items")
    return value


def check_dict(value: object, what: str, limit: int) -> dict[str, object]:
    if not isinstance(value, dict):
        raise SnapshotError(f"{what}: expected an object")
    if len(value) > limit:
        raise SnapshotError(f"{what}: more than {limit} entries")
    return value


def check_bool(value: object, what: str) -> bool:
    if type(value) is not bool:
        raise SnapshotError(f"{what}: expected true or false")
    return value


def check_str_map(value: object, what: str, limit: int, text_limit: int) -> dict[str, str]:
    d = check_dict(value, what, limit)
    for k, v in d.items():
        check_str(v, f"{what} {k[:40]!r}", text_limit)
    return d  # type: ignore[return-value]


# ---------------------------------------------------------------- JSON texts before decoding
#
# json.loads builds every value of a text, each ~64 bytes of Python whatever its text (`[],` is 3
# bytes): an untrusted text (a snapshot, a tool's result line) is bounded in values first.

_SEPARATORS = (b",", b":", b"[", b"{")
# every byte but a quote and the separators (bytes.translate deletes them)
_NOT_COUNTED = bytes(c for c in range(256) if c not in b'",:[{')
_CHUNK = 1 << 20


def json_values(raw: bytes) -> int:
    """An upper bound on the values a JSON text holds: every value but the first follows one of
    `[{,:`. Counted in the whole text (C speed): characters inside strings count too."""
    return sum(map(raw.count, _SEPARATORS)) + 1


def json_values_outside_strings(raw: bytes) -> int:
    """json_values of the text outside its strings, a chunk at a time (a regular expression's
    substitution would build a piece per string: gigabytes for millions of short strings). Each
    chunk loses its escaped backslashes and quotes, then everything but quotes and separators:
    what is left alternates outside and inside strings at each quote. No chunk ends on a backslash,
    so no escape is cut."""
    count, outside, start, n = 1, True, 0, len(raw)
    while start < n:
        end = min(n, start + _CHUNK)
        while end < n and raw[end - 1] == 0x5C:  # (a backslash: take the escaped byte too)
            end += 1
        kept = raw[start:end].replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_COUNTED)
        parts = kept.split(b'"')
        count += sum(map(len, parts[0 if outside else 1 :: 2]))
        if len(parts) % 2 == 0:
            outside = not outside
        start = end
    return count


def json_within(raw: bytes, max_values: int) -> bool:
    """Whether the JSON text holds at most `max_values` values: the quick count, and only when it
    is over, the count without the strings' own characters."""
    return json_values(raw) <= max_values or json_values_outside_strings(raw) <= max_values
