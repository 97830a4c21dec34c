"""bc -l's math library: s c a l e j.

Each function is computed well beyond the requested scale (decimal
arithmetic with guard digits) and then truncated to `scale` digits, which is
what GNU's library delivers; `l` of a non-positive number returns GNU's
sentinel 1-10^scale.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_DOWN, Context, Decimal, getcontext, localcontext
from functools import lru_cache

from .number import Num

GUARD = 12


def _dec(x: Num) -> Decimal:
    return Decimal(x.n).scaleb(-x.scale)


def _num(d: Decimal, scale: int) -> Num:
    with localcontext(Context(prec=max(len(d.as_tuple().digits), 1) + scale + 5)):
        q = d.scaleb(scale).to_integral_value(rounding=ROUND_DOWN)
    return Num(int(q), scale)


def _digits(x: Num) -> int:
    """Digits before the point."""
    return max(1, len(str(abs(x.to_int()))))


@lru_cache(maxsize=8)
def _pi(prec: int) -> Decimal:
    """pi to `prec` digits (Machin's formula on integers)."""
    unit = 10 ** (prec + 10)

    def arctan_inv(k: int) -> int:
        total, term, n, sign = 0, unit // k, 1, 1
        k2 = k * k
        while term:
            total += sign * (term // n)
            term //= k2
            n += 2
            sign = -sign
        return total

    value = 4 * (4 * arctan_inv(5) - arctan_inv(239))
    return Decimal(value).scaleb(-(prec + 10))


def _series(x: Decimal, first: Decimal, step: Callable[[Decimal, int], Decimal]) -> Decimal:
    """Sum terms until they vanish at the context's precision."""
    total, term, k = first, first, 1
    eps = Decimal(1).scaleb(-(getcontext().prec + 2))
    while abs(term) > eps * (abs(total) + 1):
        term = step(term, k)
        total += term
        k += 1
    return total


def bc_exp(x: Num, scale: int, charge: Callable[[int], None]) -> Num:
    big = int(abs(_dec(x)) * Decimal("0.4343")) + 1
    charge(big)
    prec = big + scale + GUARD + len(str(abs(x.n)))
    with localcontext(Context(prec=prec, Emax=10**9, Emin=-(10**9))):
        return _num(_dec(x).exp(), scale)


def bc_ln(x: Num, scale: int, charge: Callable[[int], None]) -> Num:
    if x.n <= 0:
        return Num((1 - 10**scale) * 10**scale, scale)
    prec = scale + GUARD + _digits(x) + x.scale
    charge(prec)
    with localcontext(Context(prec=prec, Emax=10**9, Emin=-(10**9))):
        return _num(_dec(x).ln(), scale)


def _sin_cos(x: Num, scale: int, charge: Callable[[int], None], cosine: bool) -> Num:
    prec = scale + GUARD + _digits(x)
    charge(prec)
    with localcontext(Context(prec=prec + _digits(x))):
        pi = _pi(prec + _digits(x))
        v = _dec(x)
        v = v.remainder_near(2 * pi)
        if cosine:
            total = _series(v, Decimal(1), lambda t, k: -t * v * v / ((2 * k - 1) * (2 * k)))
        else:
            total = _series(v, v, lambda t, k: -t * v * v / ((2 * k) * (2 * k + 1)))
        return _num(total, scale)


def bc_sin(x: Num, scale: int, charge: Callable[[int], None]) -> Num:
    return _sin_cos(x, scale, charge, cosine=False)


def bc_cos(x: Num, scale: int, charge: Callable[[int], None]) -> Num:
    return _sin_cos(x, scale, charge, cosine=True)


def bc_atan(x: Num, scale: int, charge: Callable[[int], None]) -> Num:
    prec = scale + GUARD + _digits(x)
    charge(prec)
    with localcontext(Context(prec=prec)):
        v = _dec(x)
        sign = -1 if v < 0 else 1
        v = abs(v)
        invert = v > 1
        if invert:
            v = 1 / v
        halvings = 0
        while v > Decimal("0.1"):  # atan(v) = 2 atan(v / (1 + sqrt(1 + v^2)))
            v = v / (1 + (1 + v * v).sqrt())
            halvings += 1
        total = _series(v, v, lambda t, k: -t * v * v * (2 * k - 1) / (2 * k + 1))
        total *= 2**halvings
        if invert:
            total = _pi(prec) / 2 - total
        return _num(sign * total, scale)


def bc_bessel(n: Num, x: Num, scale: int, charge: Callable[[int], None]) -> Num:
    order = n.to_int()
    negate = order < 0 and order % 2 == 1
    order = abs(order)
    # terms grow to about e^|x| before they shrink: carry that many more digits
    prec = scale + GUARD + int(abs(_dec(x))) + _digits(x)
    charge(prec)
    with localcontext(Context(prec=prec)):
        v = _dec(x)
        half = v / 2
        first = Decimal(1)
        for k in range(1, order + 1):
            first = first * half / k
        total = _series(v, first, lambda t, k: -t * half * half / (k * (order + k)))
        return _num(-total if negate else total, scale)


UNARY: dict[str, Callable[[Num, int, Callable[[int], None]], Num]] = {
    "s": bc_sin, "c": bc_cos, "a": bc_atan, "l": bc_ln, "e": bc_exp,
}
