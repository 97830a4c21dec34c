"""printf's floating-point numbers as bash and coreutils read and print them: x87 `long double`.

bash's printf reads a number with strtold and formats it with glibc's `%Lf`, `%Le`, `%Lg`, `%La`:
64 bits of significand and exponents to 2**16383, so `printf '%.20f' 0.1` gives
0.10000000000000000000 (a C double would give ...555) and `%a` prints `0x8p-3` for 1. A number is
kept exactly as the long double it rounds to (an integer significand and a power of two), and
decimal output is rounded from that exact value, half to even, as glibc does.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same class, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass

# strtold's syntax (the longest prefix it takes): inf/nan words, hex with a binary exponent, decimal
_NUMBER = re.compile(
    r"[+-]?(?:inf(?:inity)?|nan(?:\([0-9a-z_]*\))?"
    r"|0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)",
    re.IGNORECASE,
)
_MANT_BITS = 64
_MIN_EXP = -16445  # the exponent of the smallest denormal: 2**-16445
_MAX_EXP = 16383 - (_MANT_BITS - 1)  # the largest finite value is (2**64 - 1) * 2**16320
_TOP = 1 << (_MANT_BITS - 1)


@dataclass(frozen=True)
class LongDouble:
    """A long double: `kind` "num" (value mant * 2**exp), "inf" or "nan"; `neg` its sign bit."""

    neg: bool
    kind: str = "num"
    mant: int = 0
    exp: int = 0

    @classmethod
    def from_int(cls, n: int) -> LongDouble:
        return _round(n < 0, Fraction(abs(n)))[0]


def scan(text: str) -> int:
    """How many characters of `text` strtold would read (0: none)."""
    m = _NUMBER.match(text)
    return m.end() if m else 0


def parse(text: str) -> tuple[LongDouble, bool]:
    """The long double strtold makes of `text`, which scan() accepted whole, and whether it is
    out of range (ERANGE: an overflow to inf, or an inexact denormal or 0 from a nonzero number)."""
    neg = text[:1] == "-"
    body = text.lstrip("+-").lower()
    if body.startswith("inf"):
        return LongDouble(neg, "inf"), False
    if body.startswith("nan"):
        return LongDouble(neg, "nan"), False
    value = _exact(body)
    if value is None:  # an exponent far out of range: no need to compute it
        huge = _exponent(body) > 0
        return LongDouble(neg, "inf" if huge else "num"), True
    return _round(neg, value)


def _exponent(body: str) -> int:
    mark = "p" if body.startswith("0x") else "e"
    _, _, exp = body.partition(mark)
    return int(exp) if exp else 0


def _exact(body: str) -> Fraction | None:
    """The exact rational value of a decimal or hex literal, or None when its exponent puts it far
    outside long double's range (1e999999999 must not be computed)."""
    if body.startswith("0x"):
        digits, _, exp_text = body[2:].partition("p")
        whole, _, frac = digits.partition(".")
        mant = int((whole + frac) or "0", 16)
        exp2 = (int(exp_text) if exp_text else 0) - 4 * len(frac)
        if mant and not -20000 < exp2 + mant.bit_length() < 20000:
            return None
        return Fraction(mant) * (Fraction(2) ** exp2)
    digits, _, exp_text = body.partition("e")
    whole, _, frac = digits.partition(".")
    mant = int((whole + frac) or "0")
    exp10 = (int(exp_text) if exp_text else 0) - len(frac)
    if mant and not -6000 < exp10 + len(str(mant)) < 6000:
        return None
    return Fraction(mant) * (Fraction(10) ** exp10)


def _round(neg: bool, value: Fraction) -> tuple[LongDouble, bool]:
    """`value` (>= 0) rounded half to even to 64 significant bits, as the FPU stores it."""
    if value == 0:
        return LongDouble(neg), False
    n, d = value.numerator, value.denominator
    top = n.bit_length() - d.bit_length()  # floor(log2(value)) is top or top - 1
    below = n < (d << top) if top >= 0 else (n << -top) < d
    if below:
        top -= 1
    exp = max(top - (_MANT_BITS - 1), _MIN_EXP)
    scaled = value / (Fraction(2) ** exp)
    mant = _half_even(scaled.numerator, scaled.denominator)
    inexact = mant != scaled
    if mant >> _MANT_BITS:
        mant >>= 1
        exp += 1
    if exp > _MAX_EXP:
        return LongDouble(neg, "inf"), True
    return LongDouble(neg, "num", mant, exp), mant < _TOP and inexact  # (C's underflow)


def _half_even(n: int, d: int) -> int:
    q, r = divmod(n, d)
    if 2 * r > d or (2 * r == d and q & 1):
        q += 1
    return q


def _decimal(x: LongDouble) -> Decimal:
    """The exact decimal value of a finite long double (its magnitude)."""
    if x.exp >= 0:
        return Decimal(x.mant << x.exp)
    return _scale(Decimal(x.mant * 5 ** (-x.exp)), x.exp)


def _scale(value: Decimal, power: int) -> Decimal:
    """value * 10**power, exactly (Decimal's own scaleb rounds to 28 digits)."""
    return value.scaleb(power, context=Context(prec=len(value.as_tuple().digits) + 2))


def _fixed(value: Decimal, prec: int) -> str:
    """`value` with `prec` digits after the point, rounded half to even."""
    ctx = Context(prec=max(value.adjusted(), 0) + prec + 5, rounding=ROUND_HALF_EVEN)
    return format(value.quantize(Decimal(1).scaleb(-prec), context=ctx), "f")


def _scientific(value: Decimal, prec: int) -> tuple[str, int]:
    """`value` as d.ddd (prec digits after the point) and its power of ten."""
    if not value:
        return _fixed(value, prec), 0
    power = value.adjusted()
    digits = _fixed(_scale(value, -power), prec)
    if digits.startswith("10"):  # rounding carried into a new digit: 9.99 -> 10.0
        power += 1
        digits = _fixed(_scale(value, -power), prec)
    return digits, power


def _strip_zeros(text: str) -> str:
    if "." not in text:
        return text
    return text.rstrip("0").rstrip(".")


def _body(x: LongDouble, conv: str, prec: int | None, alt: bool) -> str:
    """The digits of a finite number's magnitude for %f %e %g %a (lower case)."""
    if conv == "a":
        return _hex(x, prec, alt)
    value = _decimal(x)
    p = 6 if prec is None else prec
    if conv == "f":
        text = _fixed(value, p)
        return text + "." if alt and "." not in text else text
    if conv == "g":
        p = p or 1
        _, power = _scientific(value, p - 1)
        if -4 <= power < p:
            text = _fixed(value, p - 1 - power)
            text = text + "." if alt and "." not in text else text
            return text if alt else _strip_zeros(text)
        conv, p = "e", p - 1
        digits, power = _scientific(value, p)
        digits = digits if alt else _strip_zeros(digits)
    else:
        digits, power = _scientific(value, p)
    if alt and "." not in digits:
        digits += "."
    return f"{digits}e{'-' if power < 0 else '+'}{abs(power):02d}"


def _hex(x: LongDouble, prec: int | None, alt: bool) -> str:
    """glibc's %La on x86: the first hex digit holds the top 4 bits of the 64-bit significand."""
    if x.mant == 0:
        lead, frac, power, nfrac = 0, 0, 0, 15
    else:
        lead, frac, nfrac = x.mant >> 60, x.mant & ((1 << 60) - 1), 15
        power = x.exp + 60 if x.mant >= _TOP else _MIN_EXP + 60  # a denormal keeps the least exponent
    if prec is None:
        digits = f"{frac:015x}".rstrip("0") if frac else ""
    else:
        if prec < nfrac:
            drop = 4 * (nfrac - prec)
            frac = _half_even(frac, 1 << drop) if drop else frac
            if frac >> (4 * prec):  # the carry reaches the first digit
                frac &= (1 << (4 * prec)) - 1
                lead += 1
            digits = f"{frac:0{prec}x}" if prec else ""
        else:
            digits = f"{frac:015x}" + "0" * (prec - nfrac)
        if lead == 16:  # 0x10.00p+n is written 0x1.00p+(n+4)
            lead, power = 1, power + 4
    point = "." if digits or alt else ""
    return f"0x{lead:x}{point}{digits}p{'-' if power < 0 else '+'}{abs(power)}"


def format_long(x: LongDouble, conv: str, flags: str, width: str, prec: str | None) -> str:
    """One %e %E %f %F %g %G %a %A conversion of `x`, with C's flags, width and precision."""
    lower = conv.lower()
    p = None if prec is None else int(prec or "0")
    if x.kind == "num":
        body = _body(x, lower, p, "#" in flags)
    else:
        body = x.kind  # inf, nan: no zero padding
    if conv.isupper():
        body = body.upper()
    sign = "-" if x.neg else "+" if "+" in flags else " " if " " in flags else ""
    size = int(width) if width else 0
    fill = max(size - len(sign) - len(body), 0)
    if "-" in flags:
        return sign + body + " " * fill
    if "0" in flags and x.kind == "num":
        if lower == "a":  # zeros go after the 0x
            return sign + body[:2] + "0" * fill + body[2:]
        return sign + "0" * fill + body
    return " " * fill + sign + body
