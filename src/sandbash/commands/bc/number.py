"""bc's numbers: arbitrary-precision decimals with an explicit scale.

A `Num` is `n / 10**scale` with `n` a Python int. Every operation follows
bc's scale rules and truncates toward zero, so results agree digit for digit
with GNU bc; conversion to and from other bases follows GNU's algorithms.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal

# Numbers are capped at this many digits (or the run's max_string_length when
# smaller, set per command in DIGITS): Python's int arithmetic and decimal
# conversion are quadratic past a few thousand digits and cannot be
# interrupted, so a bigger result (`scale=999999999; 1/3`) is refused before
# it is computed, as a runtime error.
MAX_DIGITS = 50_000
DIGITS: ContextVar[int] = ContextVar("bc_digits", default=MAX_DIGITS)
_LOG10_2 = 0.30102999566398120
_STR_DIGITS = 4000  # below Python's int/str conversion limit (4300 digits)


class BcError(Exception):
    """A runtime error (`Divide by zero`); `warning` ones only print."""

    def __init__(self, message: str, warning: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.warning = warning


def _upper_digits(n: int) -> int:
    """An upper bound on the decimal digits of n, from its bit length (cheap)."""
    return int(n.bit_length() * _LOG10_2) + 1


def ndigits(n: int) -> int:
    """The decimal digits of |n| (1 for 0), without str()."""
    n = abs(n)
    if n < 10**18:
        return len(str(n))
    k = int((n.bit_length() - 1) * _LOG10_2) + 1  # the digits are k or k+1
    return k + 1 if n >= 10**k else k


def digit_string(n: int) -> str:
    """str(|n|) for any size (str() refuses more than 4300 digits)."""
    n = abs(n)
    return str(n) if n < 10**_STR_DIGITS else str(Decimal(n))


def int_of_digits(text: str) -> int:
    """int(text) for a decimal digit string of any length."""
    return int(text) if len(text) <= _STR_DIGITS else int(Decimal(text))


def check_digits(digits: int, factor: int = 1) -> None:
    """Refuse a result of more digits than the cap (an intermediate product:
    `factor` times the cap), before computing it."""
    cap = DIGITS.get()
    if digits > cap * factor:
        raise BcError(f"number too long: more than {cap} digits")


def _tdiv(a: int, b: int) -> int:
    """Integer division truncating toward zero (C semantics)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@dataclass(frozen=True, slots=True)
class Num:
    n: int
    scale: int = 0

    # ------------------------------------------------------------ basics

    @staticmethod
    def of(value: int) -> Num:
        return Num(value, 0)

    def rescale(self, scale: int) -> Num:
        """The same value at another scale (truncating when it shrinks)."""
        if scale == self.scale:
            return self
        if scale > self.scale:
            if self.n == 0:
                return Num(0, scale)
            check_digits(_upper_digits(self.n) + scale - self.scale)
            return Num(self.n * 10 ** (scale - self.scale), scale)
        return Num(_tdiv(self.n, 10 ** (self.scale - scale)), scale)

    def is_zero(self) -> bool:
        return self.n == 0

    def sign(self) -> int:
        return (self.n > 0) - (self.n < 0)

    def to_int(self) -> int:
        """The integer part (truncated)."""
        return _tdiv(self.n, 10**self.scale) if self.scale else self.n

    def cmp(self, other: Num) -> int:
        s = max(self.scale, other.scale)
        a, b = self.rescale(s).n, other.rescale(s).n
        return (a > b) - (a < b)

    def __neg__(self) -> Num:
        return Num(-self.n, self.scale)

    # ------------------------------------------------------------ arithmetic

    def add(self, other: Num) -> Num:
        s = max(self.scale, other.scale)
        return Num(self.rescale(s).n + other.rescale(s).n, s)

    def sub(self, other: Num) -> Num:
        return self.add(-other)

    def mul(self, other: Num, scale: int) -> Num:
        full = self.scale + other.scale
        check_digits(_upper_digits(self.n) + _upper_digits(other.n), 2)
        prod = Num(self.n * other.n, full)
        return prod.rescale(min(full, max(scale, self.scale, other.scale)))

    def div(self, other: Num, scale: int) -> Num:
        if other.n == 0:
            raise BcError("Divide by zero")
        # (a/10^sa) / (b/10^sb) at `scale` digits: a*10^(sb+scale) / (b*10^sa)
        check_digits(scale)
        check_digits(_upper_digits(self.n) + other.scale + scale, 2)
        num = self.n * 10 ** (other.scale + scale)
        den = other.n * 10**self.scale
        return Num(_tdiv(num, den), scale)

    def mod(self, other: Num, scale: int) -> Num:
        """a - (a/b)*b with the quotient at `scale`; result scale max(scale+sb, sa)."""
        if other.n == 0:
            raise BcError("Modulo by zero")
        q = self.div(other, scale)
        rscale = max(scale + other.scale, self.scale)
        return self.sub(q.mul(other, rscale)).rescale(rscale)

    def power(self, e: int, scale: int, charge: Callable[[int], None]) -> Num:
        """self^e for an integer e (the caller warns about a fraction in it)."""
        if e == 0:
            return Num(1, 0)
        if self.n == 0:
            if e < 0:
                raise BcError("divide by zero")
            return Num(0, min(self.scale * e, max(scale, self.scale)))
        # the exact power has about |e| times the digits: charge for it before computing
        digits = int(abs(e) * math.log10(abs(self.n))) + 1
        charge(digits)
        check_digits(digits)
        exact = Num(self.n ** abs(e), self.scale * abs(e))
        if e < 0:
            return Num(1, 0).div(exact, scale)
        return exact.rescale(min(self.scale * e, max(scale, self.scale)))

    def sqrt(self, scale: int) -> Num:
        if self.n < 0:
            raise BcError("Square root of a negative number")
        rscale = max(scale, self.scale)
        # isqrt of n * 10^(2*rscale - scale) gives exactly rscale digits, truncated
        check_digits(rscale)
        check_digits(_upper_digits(self.n) + 2 * rscale - self.scale, 2)
        shifted = self.n * 10 ** (2 * rscale - self.scale)
        return Num(math.isqrt(shifted), rscale)

    # ------------------------------------------------------------ bc's length() and scale()

    def length(self) -> int:
        """Significant digits (GNU: 0.001 has length 3, its scale)."""
        if self.n == 0:
            return 1 if self.scale == 0 else self.scale
        return max(ndigits(self.n), self.scale)


# ------------------------------------------------------------ input


def _digit(ch: str) -> int:
    return ord(ch) - ord("0") if ch.isdigit() else ord(ch) - ord("A") + 10


def parse_number(text: str, ibase: int, clamp: bool = True) -> Num:
    """A numeric constant as bc reads it: a single digit keeps its value in any
    base; in longer numbers a digit too big for ibase counts as ibase-1 (dc
    keeps its value: clamp=False)."""
    top = ibase - 1 if clamp else 35
    if text in (".", ""):
        return Num(0, 0)
    if len(text) == 1:
        return Num(_digit(text), 0)
    whole, _, frac = text.partition(".")
    check_digits(len(whole) + len(frac))
    if ibase == 10 and (whole + frac).isdigit():
        return Num(int_of_digits((whole or "0") + frac), len(frac))
    value = 0
    for ch in whole:
        value = value * ibase + min(_digit(ch), top)
    if not frac:
        return Num(value, 0)
    num = 0
    for ch in frac:
        num = num * ibase + min(_digit(ch), top)
    scale = len(frac)
    # whole + num / ibase^len(frac), truncated to as many digits as were written
    fraction = _tdiv(num * 10**scale, ibase ** len(frac))
    return Num(value * 10**scale + fraction, scale)


# ------------------------------------------------------------ output


def format_number(x: Num, obase: int, charge: Callable[[int], None] | None = None) -> str:
    """The digits bc prints for x (without line breaking); `charge` is called
    in the digit loops of other bases (they are quadratic in the length)."""
    if x.n == 0:
        return "0"
    sign = "-" if x.n < 0 else ""
    a = abs(x.n)
    if obase == 10:
        if x.scale == 0:
            return sign + digit_string(a)
        whole, frac = divmod(a, 10**x.scale)
        return sign + (digit_string(whole) if whole else "") + "." + digit_string(frac).rjust(x.scale, "0")
    step = 1 + _upper_digits(a) // 1000  # work per digit: one division of the whole number
    whole, frac = divmod(a, 10**x.scale)
    width = len(str(obase - 1))
    big = obase > 16

    def digit(d: int, space: bool) -> str:
        if not big:
            return "0123456789ABCDEF"[d]
        return (" " if space else "") + str(d).rjust(width, "0")

    out = [sign]
    digits = []
    while whole:
        whole, d = divmod(whole, obase)
        digits.append(d)
        if charge is not None:
            charge(step)
    out.extend(digit(d, True) for d in reversed(digits))
    if x.scale:
        out.append(".")
        # GNU: multiply the fraction by obase until obase^k has more than `scale` digits
        t = 1
        first = True
        unit = 10**x.scale
        while t < unit:
            frac *= obase
            d, frac = divmod(frac, unit)
            out.append(digit(d, not first))
            first = False
            t *= obase
            if charge is not None:
                charge(step)
    return "".join(out)
