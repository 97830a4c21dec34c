"""bc -l's math library: s c a l e j.

Each function is computed well beyond the requested scale (decimal
arithmetic with guard digits) and then truncated to `scale` digits, which is
what GNU's library delivers; `l` of a non-positive number returns GNU's
sentinel 1-10^scale. Every series runs term by term and charges the run's
budget as it goes (decimal's own exp() and ln() take seconds at a few
thousand digits and cannot be interrupted), and a precision past the digit
cap is refused before it starts.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_DOWN, Context, Decimal, getcontext, localcontext

from .number import Num, check_digits, ndigits

Charge = Callable[[int], None]

GUARD = 12


def _dec(x: Num) -> Decimal:
    return Decimal(x.n).scaleb(-x.scale)


def _num(d: Decimal, scale: int) -> Num:
    with localcontext(Context(prec=max(len(d.as_tuple().digits), 1) + scale + 5)):
        q = d.scaleb(scale).to_integral_value(rounding=ROUND_DOWN)
    return Num(int(q), scale)


def _digits(x: Num) -> int:
    """Digits before the point."""
    return ndigits(x.to_int())


def _work(prec: int) -> int:
    """Budget units for one operation on `prec`-digit numbers (over 1000
    makes every charge look at the clock)."""
    return 1 + prec // 32


_PI: dict[int, Decimal] = {}  # pi by precision: a few recent ones


def _pi(prec: int, charge: Charge) -> Decimal:
    """pi to `prec` digits (Machin's formula on integers)."""
    cached = _PI.get(prec)
    if cached is not None:
        return cached
    unit = 10 ** (prec + 10)
    work = _work(prec)

    def arctan_inv(k: int) -> int:
        total, term, n, sign = 0, unit // k, 1, 1
        k2 = k * k
        while term:
            charge(work)
            total += sign * (term // n)
            term //= k2
            n += 2
            sign = -sign
        return total

    value = 4 * (4 * arctan_inv(5) - arctan_inv(239))
    pi = Decimal(value).scaleb(-(prec + 10))
    if len(_PI) >= 8:
        _PI.pop(next(iter(_PI)))
    _PI[prec] = pi
    return pi


def _series(first: Decimal, step: Callable[[Decimal, int], Decimal], charge: Charge) -> Decimal:
    """Sum terms until they vanish at the context's precision."""
    total, term, k = first, first, 1
    prec = getcontext().prec
    eps = Decimal(1).scaleb(-(prec + 2))
    work = _work(prec)
    while abs(term) > eps * (abs(total) + 1):
        charge(work)
        term = step(term, k)
        total += term
        k += 1
    return total


def _exp(v: Decimal, charge: Charge) -> Decimal:
    """e^v in the current context: v halved until it is small, the Taylor
    series, then squared back (with guard digits for the squarings)."""
    prec = getcontext().prec
    halvings = max(0, v.copy_abs().adjusted() * 10 // 3 + 1) + int(prec**0.5) // 2
    with localcontext() as c:
        c.prec = prec + halvings * 3 // 10 + 5
        w = v / (Decimal(2) ** halvings)
        total = _series(Decimal(1), lambda t, k: t * w / k, charge)
        work = _work(c.prec)
        for _ in range(halvings):
            charge(work)
            total *= total
    return +total


def _atanh_inv(q: int, charge: Charge) -> Decimal:
    """atanh(1/q) in the current context."""
    z = Decimal(1) / q
    z2 = z * z
    return _series(z, lambda t, k: t * z2 * (2 * k - 1) / (2 * k + 1), charge)


def _ln(v: Decimal, charge: Charge) -> Decimal:
    """ln(v) for v > 0 in the current context: v = m * 2^j * 10^e with m near
    1, and ln m = 2 atanh((m-1)/(m+1)); ln 2 = 2 atanh(1/3), ln 10 = 3 ln 2 + 2 atanh(1/9)."""
    prec = getcontext().prec
    with localcontext() as c:
        e = v.adjusted()
        c.prec = prec + len(str(abs(e))) + 5
        m = v.scaleb(-e)  # in [1, 10)
        j = 0
        while m > Decimal("1.5"):
            m /= 2
            j += 1
        z = (m - 1) / (m + 1)
        z2 = z * z
        total = 2 * _series(z, lambda t, k: t * z2 * (2 * k - 1) / (2 * k + 1), charge)
        if j or e:
            ln2 = 2 * _atanh_inv(3, charge)
            total += j * ln2
            if e:
                total += e * (3 * ln2 + 2 * _atanh_inv(9, charge))
    return +total


def bc_exp(x: Num, scale: int, charge: Charge) -> Num:
    v = _dec(x)
    big = int(abs(v) * Decimal("0.4343")) + 1
    if v < 0 and big > scale + 2:
        return Num(0, scale)  # e^-big truncates to 0 at this scale
    charge(big)
    prec = big + scale + GUARD + ndigits(x.n)
    check_digits(prec)
    with localcontext(Context(prec=prec, Emax=10**9, Emin=-(10**9))):
        return _num(_exp(v, charge), scale)


def bc_ln(x: Num, scale: int, charge: Charge) -> Num:
    if x.n <= 0:
        return Num((1 - 10**scale) * 10**scale, scale)
    prec = scale + GUARD + _digits(x) + x.scale
    check_digits(prec)
    charge(prec)
    with localcontext(Context(prec=prec, Emax=10**9, Emin=-(10**9))):
        return _num(_ln(_dec(x), charge), scale)


def _sin_cos(x: Num, scale: int, charge: Charge, cosine: bool) -> Num:
    prec = scale + GUARD + _digits(x)
    check_digits(prec + _digits(x))
    charge(prec)
    with localcontext(Context(prec=prec + _digits(x))):
        pi = _pi(prec + _digits(x), charge)
        v = _dec(x)
        v = v.remainder_near(2 * pi)
        if cosine:
            total = _series(Decimal(1), lambda t, k: -t * v * v / ((2 * k - 1) * (2 * k)), charge)
        else:
            total = _series(v, lambda t, k: -t * v * v / ((2 * k) * (2 * k + 1)), charge)
        return _num(total, scale)


def bc_sin(x: Num, scale: int, charge: Charge) -> Num:
    return _sin_cos(x, scale, charge, cosine=False)


def bc_cos(x: Num, scale: int, charge: Charge) -> Num:
    return _sin_cos(x, scale, charge, cosine=True)


def bc_atan(x: Num, scale: int, charge: Charge) -> Num:
    prec = scale + GUARD + _digits(x)
    check_digits(prec)
    charge(prec)
    with localcontext(Context(prec=prec)):
        v = _dec(x)
        sign = -1 if v < 0 else 1
        v = abs(v)
        invert = v > 1
        if invert:
            v = 1 / v
        halvings = 0
        work = _work(prec) * 8  # a square root
        while v > Decimal("0.1"):  # atan(v) = 2 atan(v / (1 + sqrt(1 + v^2)))
            charge(work)
            v = v / (1 + (1 + v * v).sqrt())
            halvings += 1
        total = _series(v, lambda t, k: -t * v * v * (2 * k - 1) / (2 * k + 1), charge)
        total *= 2**halvings
        if invert:
            total = _pi(prec, charge) / 2 - total
        return _num(sign * total, scale)


def bc_bessel(n: Num, x: Num, scale: int, charge: Charge) -> Num:
    order = n.to_int()
    negate = order < 0 and order % 2 == 1
    order = abs(order)
    # terms grow to about e^|x| before they shrink: carry that many more digits
    prec = scale + GUARD + int(abs(_dec(x))) + _digits(x)
    check_digits(prec)
    charge(prec)
    with localcontext(Context(prec=prec, Emax=10**9, Emin=-(10**9))):
        v = _dec(x)
        half = v / 2
        first = Decimal(1)
        work = _work(prec)
        for k in range(1, order + 1):
            charge(work)
            first = first * half / k
        total = _series(first, lambda t, k: -t * half * half / (k * (order + k)), charge)
        return _num(-total if negate else total, scale)


UNARY: dict[str, Callable[[Num, int, Charge], Num]] = {
    "s": bc_sin,
    "c": bc_cos,
    "a": bc_atan,
    "l": bc_ln,
    "e": bc_exp,
}
