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
