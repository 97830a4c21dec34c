"""jq numbers: IEEE doubles, plus number literals kept as written (jq 1.7).

Values use Python `int` for integers within ±2**53 (exactly what a double
holds), `float` otherwise, and `LitNum` -- a float that remembers the
canonical decimal text of the literal it came from -- for literals whose text
differs from how jq prints the double (`1.000`, `1E+2`, `100000000000000000001`).
Any arithmetic on a LitNum returns a plain float, which is jq 1.7's rule that a
mutated number loses its literal.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_SAFE = 2**53
DBL_MAX = 1.7976931348623157e308
# decNumber's largest exponent; literals beyond it become infinities in jq
_DEC_EMAX = 999_999_999


class LitNum(float):
    """A double that prints as the literal it was parsed from."""

    __slots__ = ("lit",)
    lit: str


NUMBER_TYPES = (int, float, LitNum)


def make_literal(text: str) -> int | float:
    """The value of a number literal (JSON input or jq program).

    Raises ValueError when the text is not a number jq accepts."""
    if len(text) < 16 and text.isascii() and text.isdigit():
        # (what the decimal path gives a plain integer below 2**53; decimal, ~5 M instructions to
        # import, is for the other literals: `jq -n 1+1` imports none)
        return int(text)
    from decimal import Decimal, InvalidOperation  # (after the first: a lookup in sys.modules)

    try:
        dec = Decimal(text)
    except InvalidOperation:
        raise ValueError(text) from None
    if dec.is_nan():
        return math.nan
    if dec.is_infinite() or (dec.adjusted() > _DEC_EMAX):
        return math.inf if dec > 0 else -math.inf
    canon = str(dec)
    value = float(dec)
    if math.isinf(value):
        # out of double range but a finite decimal: prints as written
        out = LitNum(value)
        out.lit = canon
        return out
    if value.is_integer() and -MAX_SAFE < value < MAX_SAFE and canon == str(int(value)):
        return int(value)
    # beyond double precision two literals can share a double: keep the text
    # so that comparisons can tell them apart
    if canon == format_double(value) and not value.is_integer() and len(dec.as_tuple().digits) <= 15:
        return value
    out = LitNum(value)
    out.lit = canon
    return out


def json_int(text: str) -> int | float:
    """parse_int hook for the json module: small integers stay ints."""
    if len(text) < 16 and text != "-0":
        return int(text)
    return make_literal(text)


def json_float(text: str) -> int | float:
    """parse_float hook: plain floats unless the text would print differently."""
    if "e" not in text and "E" not in text and text[-1] != "0":
        value = float(text)
        # shortest round-trip text in fixed notation: jq prints it the same way
        if repr(value) == text:
            return value
    return make_literal(text)


def json_constant(name: str) -> float:
    """parse_constant hook: NaN, Infinity, -Infinity (jq accepts them too)."""
    if name == "NaN":
        return math.nan
    return math.inf if name == "Infinity" else -math.inf


def normalize(x: int) -> int | float:
    """An integer result of arithmetic: keep it an int only while exact."""
    if -MAX_SAFE < x < MAX_SAFE:
        return x
    return float(x)


def format_number(x: Any) -> str:
    """jq's text for a number (output, tostring, tojson)."""
    t = type(x)
    if t is int:
        if -MAX_SAFE < x < MAX_SAFE:
            return str(x)
        return format_double(float(x))
    if t is LitNum:
        return str(x.lit)
    return format_double(x)


def format_double(d: float) -> str:
    """jq's dtoa formatting: shortest round-trip digits, exponent form when
    the decimal point is more than 15 places past the digits or below 1e-4."""
    if d != d:
        return "null"
    if d.is_integer() and -1e16 < d < 1e16:
        if d == 0 and math.copysign(1.0, d) < 0:
            return "-0"
        return str(int(d))
    if d > DBL_MAX:
        d = DBL_MAX
    elif d < -DBL_MAX:
        d = -DBL_MAX
    sign = "-" if d < 0 else ""
    digits, decpt = _digits(abs(d))
    nd = len(digits)
    if decpt <= -4 or decpt > nd + 15:
        exp = decpt - 1
        mant = digits[0] + ("." + digits[1:] if nd > 1 else "")
        esign = "-" if exp < 0 else "+"
        return f"{sign}{mant}e{esign}{abs(exp):02d}"
    if decpt <= 0:
        return f"{sign}0.{'0' * -decpt}{digits}"
    if decpt >= nd:
        return sign + digits + "0" * (decpt - nd)
    return f"{sign}{digits[:decpt]}.{digits[decpt:]}"


def _digits(d: float) -> tuple[str, int]:
    """Shortest significant digits of a positive double and the decimal
    point position (value = 0.DIGITS * 10**decpt)."""
    s = repr(d)
    exp = 0
    if "e" in s:
        s, e = s.split("e")
        exp = int(e)
    ip, _, fp = s.partition(".")
    all_digits = ip + fp
    stripped = all_digits.lstrip("0")
    lead = len(all_digits) - len(stripped)
    return stripped.rstrip("0") or "0", len(ip) - lead + exp


def to_double(x: int | float) -> float:
    return float(x)


def to_int_index(d: float | int) -> int:
    """C's (int) cast after clamping to the int range, as jq indexes arrays."""
    if type(d) is int:
        return d  # type: ignore[return-value]
    if d != d:
        return 0
    if d < -2147483648:
        return -2147483648
    if d > 2147483647:
        return 2147483647
    return int(d)


def dtoi(d: float | int) -> int:
    """jq's dtoi for `%`: clamp to intmax_t and truncate toward zero."""
    if type(d) is int:
        return min(max(d, -(2**63)), 2**63 - 1)  # type: ignore[type-var,return-value]
    if d != d:
        return 0
    if d <= -9.223372036854775808e18:
        return -(2**63)
    if d >= 9.223372036854775807e18:
        return 2**63 - 1
    return int(d)
