"""awk values: numbers, strings, strnums and the uninitialized value.

An awk value is one of
- `float`: a number (awk has only doubles);
- `str`: a string (a constant or the result of a string operation);
- `Input`: a string that came from input (fields, getline, split, ARGV,
  ENVIRON, -v); it compares as a number when it looks like one ("strnum");
- `UNINIT`: the value of a variable never assigned; both "" and 0.
An array is a `dict` (a global array) or an `AwkArray` (a subarray, a local array).

`Input` and `Uninit` subclass `str` so string operations need no conversion;
type tests use `v.__class__ is ...`, which is the cheapest check in CPython.
"""

from __future__ import annotations

import math
import re

# A fixed pattern (not user input): the longest numeric prefix strtod accepts,
# plus gawk's signed inf/nan spellings.
_NUM_PREFIX = re.compile(
    r"[ \t\n\r\f\v]*([-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|(?:inf|nan)(?![a-z])))",
    re.IGNORECASE,
)
_AWK_SPACE = " \t\n\r\f\v"


class Input(str):
    """A string from input: a number in comparisons when it looks numeric."""

    __slots__ = ()


class Uninit(str):
    """The uninitialized value: "" as a string, 0 as a number."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNINIT"


UNINIT = Uninit()
# an element assigned the uninitialized value: a scalar for good, unlike an element only
# referenced (UNINIT), which gawk still lets become a subarray
ASSIGNED_UNINIT = Uninit()


ArrayName = str | tuple["ArrayName", str]


class AwkArray(dict):  # type: ignore[type-arg]
    """A subarray (gawk's arrays of arrays) or a function's local array: a dict that knows
    its name for error messages and can be tracked weakly for memory accounting.

    The name is a chain (parent's name, index) spelled out only for a message, so
    subarrays nested n deep hold O(n) of names, not O(n^2)."""

    __slots__ = ("name", "__weakref__")

    def __init__(self, name: ArrayName) -> None:
        super().__init__()
        self.name = name

    def spelled(self) -> str:
        parts: list[str] = []
        name = self.name
        while isinstance(name, tuple):
            name, k = name
            parts.append(f'["{k}"]')
        return name + "".join(reversed(parts))


class Plain(str):
    """A string assigned to a field: stored marked so that reading the field
    back gives a string, not a strnum (raw split results are plain `str`)."""

    __slots__ = ()


Value = float | str


_HEAD_FIRST = frozenset("0123456789+-.")
_HEAD_LAST = frozenset("0123456789.")


def _slow_str2num(s: str) -> float:
    m = _NUM_PREFIX.match(s)
    if m is None:
        return 0.0
    text = m.group(1)
    low = text.lower()
    if low.endswith(("inf", "nan")):
        # gawk accepts inf/nan only as the whole value, with an explicit sign
        if low[0] not in "+-" or s.strip(_AWK_SPACE).lower() != low:
            return 0.0
        value = math.inf if low[1:] == "inf" else math.nan
        return -value if low[0] == "-" else value
    return float(text)


def str2num(s: str) -> float:
    """The numeric value of a string: its longest numeric prefix, else 0."""
    i = s.find(" ")
    if i > 0:
        # a number and text after a space (`$3` of "12 ms x"): the head alone, when it starts and
        # ends as a decimal number does, is the whole numeric prefix (no failed float() first)
        head = s[:i]
        if head[0] in _HEAD_FIRST and head[-1] in _HEAD_LAST and "_" not in head:
            try:
                return float(head)
            except ValueError:
                return _slow_str2num(s)
    try:
        v = float(s)
    except ValueError:
        return _slow_str2num(s)
    if v - v == 0.0 and "_" not in s:
        return v
    return _slow_str2num(s)


def looks_numeric(s: str) -> bool:
    """Whether input text is a number as a whole (gawk's strnum test)."""
    try:
        v = float(s)
    except ValueError:
        return False
    if "_" in s:
        return False
    if v - v == 0.0:
        return True
    # inf/nan words count only when signed; 1e999 counts
    t = s.strip(_AWK_SPACE)
    m = _NUM_PREFIX.match(t)
    return m is not None and m.end() == len(t) and (not t[-1].isalpha() or t[0] in "+-")


def to_num(v: Value) -> float:
    if v.__class__ is float:
        return v  # type: ignore[return-value]
    return str2num(v)  # type: ignore[arg-type]


def special_str(x: float) -> str:
    """gawk's spelling of inf and nan: always signed."""
    if x != x:
        return "-nan" if math.copysign(1.0, x) < 0 else "+nan"
    return "+inf" if x > 0 else "-inf"


def truth(v: Value) -> bool:
    """awk truth: numbers are true when non-zero, strings when non-empty."""
    c = v.__class__
    if c is float:
        return v != 0.0
    if c is Input:
        if looks_numeric(v):  # type: ignore[arg-type]
            return str2num(v) != 0.0  # type: ignore[arg-type]
        return v != ""
    return v != ""


NULL_FIELD = Input("")  # a field past NF: gawk calls its type "unassigned"


def typeof(v: object) -> str:
    if v is NULL_FIELD:
        return "unassigned"
    c = v.__class__
    if c is float:
        return "number"
    if c is Uninit:
        return "untyped"
    if c is Input:
        return "strnum" if looks_numeric(v) else "string"  # type: ignore[arg-type]
    if c is dict or c is AwkArray:
        return "array"
    return "string"


def strnum_value(s: str) -> float | None:
    """The number an input string stands for, or None when it is not numeric."""
    try:
        v = float(s)
    except ValueError:
        return None
    if "_" in s:
        return None
    if v - v == 0.0:
        return v
    return str2num(s) if looks_numeric(s) else None


def num_value(v: Value) -> float | None:
    """For comparisons: the numeric value, or None when v compares as a string."""
    c = v.__class__
    if c is float:
        return v  # type: ignore[return-value]
    if c is Input:
        return strnum_value(v)  # type: ignore[arg-type]
    if c is Uninit:
        return 0.0
    return None
