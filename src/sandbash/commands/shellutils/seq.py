"""seq: print a sequence of numbers.

Integers use exact Python ints and fixed-point operands exact decimals, so
`seq 1 1e12` and `seq 0 0.1 1` behave as GNU's long-double arithmetic does in
practice; output is produced lazily, a block at a time, with a checkpoint per
block so a huge range ends at the deadline or output limit. `decimal` and the
printf module are imported only when an operand or a format needs them: the
commonest `seq N` (integers, no -f) reaches neither.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator

from ...limits import LimitExceeded, LimitKind
from ..context import Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .common import fail, quote, usage_fail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from decimal import Context, Decimal
    from typing import Any
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

SPEC = CommandSpec(
    "seq",
    "[OPTION]... LAST\n  or:  seq [OPTION]... FIRST LAST\n  or:  seq [OPTION]... FIRST INCREMENT LAST",
    "Print numbers from FIRST to LAST, in steps of INCREMENT.",
    opts=(
        Opt("f", "format", "required", metavar="FORMAT", help="use printf style floating-point FORMAT"),
        Opt(
            "s",
            "separator",
            "required",
            metavar="STRING",
            help="use STRING to separate numbers (default: \\n)",
        ),
        Opt("w", "equal-width", help="equalize width by padding with leading zeroes"),
    ),
    operand_if=lambda a: len(a) > 1 and (a[1].isdigit() or a[1] == "."),
    stop_at_operand=True,  # GNU's "+f:s:w": `seq 1 -w 3` has the operand `-w`
)

_DECIMAL = re.compile(r"[ \t\n\v\f\r]*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_HEX = re.compile(r"[ \t\n\v\f\r]*[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?")
_SPECIAL = re.compile(r"[ \t\n\v\f\r]*[+-]?(inf|infinity|nan)", re.IGNORECASE)
_FORMAT = re.compile(r"%[-+ #0']*(\d*)(?:\.(\d*))?(?:L)?[aAeEfFgG]")  # groups: width, precision
UNKNOWN = 1 << 31  # GNU's INT_MAX: "precision unknown, print with %g"
_INTEGER = re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+")
_exact: tuple[Context, type[Decimal]] | None = None


def _decimal() -> tuple[Context, type[Decimal]]:
    """The exact context and the Decimal class (decimal imported on first use)."""
    global _exact
    if _exact is None:
        from decimal import Context, Decimal

        _exact = Context(prec=1000), Decimal
    return _exact


@dataclass
class Operand:
    # int when written as an integer, Decimal when fixed point, float for hex and infinities
    value: int | Decimal | float
    width: int
    precision: int


def _scan(arg: str) -> Operand:
    """GNU scan_arg: the value, and the width and precision it was written with."""
    if _INTEGER.fullmatch(arg) and (arg[-1] != "0" or "-" not in arg or int(arg)):
        value: int | Decimal | float = int(arg)  # (exact, as its Decimal would be; not -0)
    elif _DECIMAL.fullmatch(arg):
        value = _decimal()[0].create_decimal(arg.strip())
    elif _HEX.fullmatch(arg):
        text = arg.strip()
        value = float.fromhex(text)
        return Operand(value, 0, UNKNOWN)
    elif (m := _SPECIAL.fullmatch(arg)) is not None:
        if m.group(1).lower() == "nan":
            raise ValueError("nan")
        return Operand(float(arg.strip()), 0, UNKNOWN)
    else:
        raise ValueError("invalid")
    text = arg.lstrip(" \t\n\v\f\r+")
    width = len(text)
    precision = 0
    dot = text.find(".")
    e = max(text.find("e"), text.find("E"))
    if dot >= 0:
        fraction = (e if e >= 0 else len(text)) - dot - 1
        precision = fraction
        if fraction == 0:
            width -= 1  # "1." prints as "1"
        elif dot == 0 or not text[dot - 1].isdigit():
            width += 1  # ".5" and "-.5" print as "0.5" and "-0.5"
    if e >= 0:
        exponent = int(text[e + 1 :])
        precision += -exponent if exponent < 0 else -min(precision, exponent)
        width -= len(text) - e
        if exponent < 0:
            if dot < 0 or e == dot + 1:
                width += 1
            width += -exponent
        else:
            if dot >= 0 and precision == 0 and width:
                width -= 1
            width += exponent
    return Operand(value, width, precision)


def _default_format(first: Operand, step: Operand, last: Operand, equal: bool) -> tuple[str, int, int]:
    """('f', precision, width) for fixed point, or ('g', 0, 0)."""
    prec = max(first.precision, step.precision)
    if prec >= UNKNOWN or last.precision >= UNKNOWN:
        return "g", 0, 0
    if not equal:
        return "f", prec, 0
    first_width = first.width + (prec - first.precision)
    last_width = last.width + (prec - last.precision)
    if last.precision and prec == 0:
        last_width -= 1
    if last.precision == 0 and prec:
        last_width += 1
    if first.precision == 0 and prec:
        first_width += 1
    return "f", prec, max(first_width, last_width)


def _check_format(ctx: Ctx, fmt: str) -> None:
    """GNU accepts exactly one floating-point directive (plus %%)."""
    found = 0
    i = 0
    while i < len(fmt):
        if fmt[i] != "%":
            i += 1
            continue
        if fmt[i + 1 : i + 2] == "%":
            i += 2
            continue
        m = _FORMAT.match(fmt, i)
        if m is None:
            spec = re.match(r"%[-+ #0']*\d*(?:\.\d*)?L?(.?)", fmt[i:])
            kind = spec.group(1) if spec else ""
            if not kind:
                raise fail(ctx, f"format {quote(fmt)} ends in %")
            raise fail(ctx, f"format {quote(fmt)} has unknown %{kind} directive")
        found += 1
        if found > 1:
            raise fail(ctx, f"format {quote(fmt)} has too many % directives")
        _check_size(ctx, m)
        i = m.end()
    if not found:
        raise fail(ctx, f"format {quote(fmt)} has no % directive")


def _check_size(ctx: Ctx, directive: re.Match[str]) -> None:
    """Refuse a width or precision over the string limit before formatting
    (as printf does): `seq -f %499999999f` would build the string first."""
    from ...posix.printf import FieldTooWide, check_field  # (only a -f format reaches here)

    limit = ctx.limits.max_string_length
    try:
        for digits in directive.group(1, 2):
            if digits:
                check_field(digits, limit)
    except FieldTooWide:
        raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit) from None


def _c_format(fmt: str, value: float) -> str:
    """Apply a checked printf format to one number (no %a in Python: use hex())."""

    def one(m: re.Match[str]) -> str:
        spec = m.group(0).replace("L", "").replace("'", "")
        if spec[-1] in "aA":
            text = value.hex()
            return text.upper() if spec[-1] == "A" else text
        return spec % value

    return re.sub(r"%%|" + _FORMAT.pattern, lambda m: "%" if m.group(0) == "%%" else one(m), fmt)


# GNU's seq computes in x87 long double outside its all-digits fast path: a number is kept as
# (n, e), the value n * 2**e with n a signed integer of at most 64 significant bits
Pair = tuple[int, int]


def _pair(value: int | Decimal | float) -> Pair:
    """An operand as the long double strtold makes of it."""
    from ...posix.longdouble import parse  # (Fractions and Decimals: only this path needs them)

    x = parse(value.hex() if isinstance(value, float) else str(value))[0]
    return (-x.mant if x.neg else x.mant), x.exp


def _round64(n: int, e: int) -> Pair:
    """n * 2**e rounded half to even to 64 significant bits, as the FPU stores it."""
    a = -n if n < 0 else n
    extra = a.bit_length() - 64
    if extra > 0:
        q = a >> extra
        r = a - (q << extra)
        half = 1 << (extra - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a, e = q, e + extra
    return (-a if n < 0 else a), e


def _add(x: Pair, y: Pair) -> Pair:
    e = min(x[1], y[1])
    return _round64((x[0] << (x[1] - e)) + (y[0] << (y[1] - e)), e)


def _less(x: Pair, y: Pair) -> bool:
    e = min(x[1], y[1])
    return (x[0] << (x[1] - e)) < (y[0] << (y[1] - e))


def _same(x: Pair, y: Pair) -> bool:
    return not _less(x, y) and not _less(y, x)


def _long_render(fmt: str) -> Callable[[Pair, bool], tuple[str, str, str]]:
    """A printf format of one long double directive (with literal text and %% around it), as
    glibc prints it (`%.20f` of 0.1 is 0.10000000000000000000, `%a` of 1 is 0x8p-3): what is
    before the directive, the directive's text, what is after it."""
    from ...posix.longdouble import LongDouble, format_long

    m = _FORMAT.search(fmt.replace("%%", "\0\0"))
    assert m is not None  # (checked by _check_format)
    head, tail = fmt[: m.start()].replace("%%", "%"), fmt[m.end() :].replace("%%", "%")
    spec = m.group(0)
    k = 1
    while k < len(spec) and spec[k] in "-+ #0'":
        k += 1
    flags = spec[1:k].replace("'", "")
    conv = spec[-1]

    def render(x: Pair, negzero: bool) -> tuple[str, str, str]:
        n, e = x
        a = -n if n < 0 else n
        if a:
            shift = 64 - a.bit_length()  # (normalized: %a shows the top 4 bits first)
            a, e = a << shift, e - shift
        number = LongDouble(n < 0 or negzero, "num", a, e)
        return head, format_long(number, conv, flags, m.group(1), m.group(2)), tail

    return render


def _long_numbers(
    ctx: Ctx, values: list[Any], render: Callable[[Pair, bool], tuple[str, str, str]], sep: str, negzero: bool
) -> None:
    """GNU's print_numbers: x = first + i * step in long double while not past last; a number
    just past last that prints as last (and not as the one before) is printed too."""
    from ...posix.longdouble import parse, scan

    first, step, last = (_pair(v) for v in values)
    descending = step[0] < 0
    if _less(first, last) if descending else _less(last, first):
        return
    out: list[str] = []
    size = 0
    x, x_neg = first, negzero  # (`seq -0 2` starts at -0)
    i = 1
    while True:
        x0, x0_neg = x, x_neg
        text = "".join(render(x, x_neg))
        out.append(text)
        size += len(text) + len(sep)
        if size >= 16384:
            ctx.checkpoint(size // 64)
            ctx.out("".join(out))
            out, size = [], 0
        x, x_neg = _add(first, _round64(step[0] * i, step[1])), False
        i += 1
        if _less(x, last) if descending else _less(last, x):
            shown = render(x, False)[1]
            body = shown.lstrip(" \t\n\v\f\r")  # (strtold skips leading blanks)
            if not body or scan(body) != len(body) or not _same(_pair_of(parse(body)[0]), last):
                break
            if shown == render(x0, x0_neg)[1]:
                break
        out.append(sep)
    out.append("\n")
    ctx.out("".join(out))


def _pair_of(x: Any) -> Pair:
    """A finite long double as a Pair (an infinity compares as a huge number)."""
    if x.kind != "num":
        return (-1 if x.neg else 1), 1 << 20
    return (-x.mant if x.neg else x.mant), x.exp


def _numbers(first: Any, step: Any, last: Any) -> Iterator[Any]:
    """first + i*step while not past last (multiplying, as GNU does, so errors do not accumulate)."""
    context, decimal = _decimal()
    exact = isinstance(first, decimal) or isinstance(step, decimal)
    i = 0
    while True:
        # (the first number as written: `seq -0 2` starts at -0, which -0 + 0*step is not)
        x = first if i == 0 else context.add(first, context.multiply(step, i)) if exact else first + i * step
        if (step < 0 and x < last) or (step > 0 and x > last):
            return
        yield x
        i += 1


def _fast_ints(
    operands: list[str], first: Operand, step: Operand, last: Operand
) -> tuple[int, int, int] | None:
    """The numbers of GNU's seq_fast (arbitrary-precision integers), which it takes when every
    operand is all digits, or every one an integer in form (`1e3`) with first and last not
    negative, and the step is at most 200 (the caller checks: no format, no -w, a separator of
    one character); else None."""
    if not (not isinstance(step.value, float) and 0 < step.value <= 200):
        return None
    if all(a.isdigit() and a.isascii() for a in operands):
        return int(first.value), int(step.value), int(last.value)
    if any(o.precision != 0 or isinstance(o.value, float) for o in (first, step, last)):
        return None
    ends = [_pair(o.value) for o in (first, last)]  # (as long doubles: `%0.Lf` of each)
    if any(n < 0 for n, _ in ends) or _negative_zero(first.value):  # (`-0` prints with its sign)
        return None
    lo, hi = (n << e if e >= 0 else n >> -e for n, e in ends)
    return lo, int(step.value), hi


@declare("seq", spec=SPEC, effects=Effects.NONE)
def cmd_seq(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC)
    if not operands:
        raise usage_fail(ctx, SPEC, "missing operand")
    if len(operands) > 3:
        raise usage_fail(ctx, SPEC, f"extra operand {quote(operands[3])}")
    fmt = opts.get("format")
    equal = opts.has("equal_width")
    if fmt is not None:  # GNU reads the format before the -w conflict and the operands
        _check_format(ctx, fmt)
    if fmt is not None and equal:
        raise usage_fail(ctx, SPEC, "format string may not be specified when printing equal width strings")
    scanned: list[Operand] = []
    for arg in operands:
        try:
            scanned.append(_scan(arg))
        except ValueError as e:
            if str(e) == "nan":
                raise usage_fail(ctx, SPEC, f"invalid {quote('not-a-number')} argument: {quote(arg)}")
            raise usage_fail(ctx, SPEC, f"invalid floating point argument: {quote(arg)}")
    one = Operand(1, 1, 0)
    first, step, last = (
        (one, one, scanned[0])
        if len(scanned) == 1
        else ((scanned[0], one, scanned[1]) if len(scanned) == 2 else tuple(scanned))
    )
    if step.value == 0:
        raise usage_fail(ctx, SPEC, f"invalid Zero increment value: {quote(operands[1])}")
    sep = opts.get("separator", "\n")
    kind, prec, width = _default_format(first, step, last, equal)
    values: list[Any] = [first.value, step.value, last.value]
    pad = f"0{width}" if width else ""
    render: Callable[[Any], str]
    finite = all(not isinstance(v, float) or math.isfinite(v) for v in values)
    fast = None if fmt is not None or equal or len(sep) != 1 else _fast_ints(operands, first, step, last)
    if fast is not None:
        _emit_ints(ctx, *fast, "", sep)
        return 0
    if fmt is not None and _exact_in_double(values, fmt):
        render = lambda x: _c_format(fmt, float(x))  # noqa: E731
        _emit(ctx, _numbers(*values), render, sep)
        return 0
    if finite and (fmt is not None or not _exact_enough(values, prec)):
        # long double, as GNU computes and prints it (`-f %.20f`, numbers past 2**63, %a)
        default = "%Lg" if kind == "g" else f"%{pad}.{prec}Lf"
        _long_numbers(ctx, values, _long_render(fmt or default), sep, _negative_zero(first.value))
        return 0
    if fmt is not None:
        render = lambda x: _c_format(fmt, float(x))  # noqa: E731
    elif kind == "g":
        render = lambda x: _g(float(x))  # noqa: E731
    elif prec == 0 and all(_integral(v) for v in values) and not _negative_zero(first.value):
        first_i, step_i, last_i = (int(v) for v in values)  # exact, and fast in blocks
        _emit_ints(ctx, first_i, step_i, last_i, pad, sep)
        return 0
    else:
        render = lambda x: f"{x:{pad}.{prec}f}"  # noqa: E731
    if any(isinstance(v, float) for v in values):
        values = [float(v) for v in values]
    else:  # (integers as the exact decimals they were read as: `f` formats them exactly)
        decimal = _decimal()[1]
        values = [decimal(v) if type(v) is int else v for v in values]
    _emit(ctx, _numbers(*values), render, sep)
    return 0


def _exact_enough(values: list[Any], prec: int) -> bool:
    """Whether exact arithmetic prints what GNU's long double does: numbers of at most 17
    significant digits printed with `prec` decimals (then long double's own error, 2**-64 of a
    number, never reaches a printed digit); integers below 2**63 are exact in both."""
    top = max(abs(v) for v in values) + abs(values[1])  # (a bound on every number printed)
    if isinstance(top, float):
        return False  # hex operands: long double from the start
    if prec == 0 and all(_integral(v) for v in values):
        return bool(top < 1 << 63)
    return bool(top < 10 ** (17 - prec))


def _exact_in_double(values: list[Any], fmt: str) -> bool:
    """Whether a `-f` format prints the same from a double as from GNU's long double: every
    number an integer below 2**53 (exact in both: the decimal digits of a value do not depend on
    its type, and both printfs round them the same way), and no %a (whose digits show the type)."""
    if not all(type(v) is int for v in values):
        return False
    m = _FORMAT.search(fmt.replace("%%", "\0\0"))
    if m is None or m.group(0)[-1] in "aA":
        return False
    return bool(abs(values[0]) + abs(values[1]) + abs(values[2]) < 1 << 53)


def _negative_zero(value: int | Decimal | float) -> bool:
    """`-0` (read as a Decimal: an int has no sign of its own): GNU prints it as the first number."""
    return type(value) is not int and value == 0 and math.copysign(1, value) < 0


def _integral(value: int | Decimal | float) -> bool:
    """Whether an operand is a whole number written without a float's form (hex, inf)."""
    if type(value) is int:
        return True
    if isinstance(value, float):
        return False
    return bool(value == value.to_integral_value())  # type: ignore[union-attr]


def _emit_ints(ctx: Ctx, first: int, step: int, last: int, pad: str, sep: str) -> None:
    """Integer sequences: whole blocks of numbers formatted at once."""
    stop = last + (1 if step > 0 else -1)
    numbers = range(first, stop, step)
    if not numbers:
        return
    block = 8192
    for start in range(0, len(numbers), block):
        chunk = numbers[start : start + block]
        text = sep.join(map(str, chunk)) if not pad else sep.join(f"{x:{pad}d}" for x in chunk)
        ctx.checkpoint(len(text) // 64 + 1)
        # the final newline goes with the last numbers, in one write as GNU's stdio buffer sends
        # them: a reader of the pipe that stops after one read (`seq 3 | { head -n 1; cat; }`)
        # must not find a lone newline left over
        ctx.out((sep if start else "") + text + ("\n" if start + block >= len(numbers) else ""))


def _g(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


def _emit(ctx: Ctx, numbers: Iterator[Any], render: Callable[[Any], str], sep: str) -> None:
    out: list[str] = []
    size = 0
    started = False
    for x in numbers:
        text = render(x)
        out.append(sep + text if started else text)
        started = True
        size += len(text) + len(sep)
        if size >= 16384:
            ctx.checkpoint(size // 64)
            ctx.out("".join(out))
            out, size = [], 0
    if started:
        out.append("\n")
        ctx.out("".join(out))
