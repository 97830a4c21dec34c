"""printf formatting and number-to-string conversion, as gawk does them.

A format string is parsed once into literal text and conversion specs
(cached), then applied to argument lists. Python's `%` operator does the
C-compatible work for each spec; the places where C and Python differ
(`%#o`, `%#x` of 0, `%c`, unsigned conversions of negatives, inf/nan,
`%a`) are handled here.
"""

from __future__ import annotations

import math
from contextvars import ContextVar

from ...leanclass import Declared
from ...limits import LimitExceeded, LimitKind
from ...posix.printf import FieldTooWide, check_field
from ...textcache import TextCache
from .values import Input, Value, looks_numeric, special_str, str2num

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

_CONV = frozenset("diouxXeEfFgGaAcs%")
_INT_CONV = frozenset("dioxXu")
# Widths and precisions up to this go the fast way unchecked; wider ones are
# checked against FIELD_LIMIT before anything that wide is built.
_WIDE = 4096
# The run's string limit (set by the command for the thread it runs in).
FIELD_LIMIT: ContextVar[int] = ContextVar("awk_field_limit", default=10 * 1024 * 1024)


class FormatFatal(Exception):
    """A format gawk refuses outright."""


class FormatError(Exception):
    """Not enough arguments; `fmt` and `pos` locate the spec for gawk's diagnostic."""

    def __init__(self, fmt: str, pos: int) -> None:
        super().__init__("not enough arguments to satisfy format string")
        self.fmt = fmt
        self.pos = pos

    def detail(self) -> str:
        return f"\t`{self.fmt}'\n\t{' ' * self.pos}^ ran out for this one"


@dataclass(slots=True)
class Spec(metaclass=Declared):
    flags: str
    width: int | None  # -1: taken from an argument
    prec: int | None  # -1: taken from an argument
    conv: str
    argnum: int | None  # positional `%N$`
    pos: int  # offset of the conversion character, for diagnostics


Item = str | Spec


def parse_format(fmt: str) -> list[Item]:
    items: list[Item] = []
    lit: list[str] = []
    i = 0
    n = len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%":
            j = fmt.find("%", i)
            if j < 0:
                j = n
            lit.append(fmt[i:j])
            i = j
            continue
        start = i
        i += 1
        argnum: int | None = None
        j = i
        while j < n and fmt[j].isdigit():
            j += 1
        if j < n and fmt[j] == "$":
            argnum = int(fmt[i:j] or "0")
            if argnum == 0:
                raise FormatFatal("argument index with `$' must be > 0")
            i = j + 1
        flags = ""
        while i < n and fmt[i] in "-+ #0'":
            flags += fmt[i]
            i += 1
        width: int | None = None
        if i < n and fmt[i] == "*":
            width = -1
            i += 1
        else:
            j = i
            while i < n and fmt[i].isdigit():
                i += 1
            if i > j:
                width = int(fmt[j:i])
        prec: int | None = None
        if i < n and fmt[i] == ".":
            i += 1
            if i < n and fmt[i] == "*":
                prec = -1
                i += 1
            else:
                j = i
                while i < n and fmt[i].isdigit():
                    i += 1
                prec = int(fmt[j:i] or "0")
        # gawk reads the C length modifiers and ignores them, each at most once: a second one (`%lld`,
        # `%hhd`) ends the specification, which is then printed as written (so is `%q`)
        seen = ""
        while i < n and fmt[i] in "hlLjzt" and fmt[i] not in seen:
            seen += fmt[i]
            i += 1
        if i >= n or fmt[i] not in _CONV:
            # not a conversion: printed as written
            lit.append(fmt[start:i])
            continue
        conv = fmt[i]
        i += 1
        if conv == "%":
            lit.append("%")
            continue
        if lit:
            items.append("".join(lit))
            lit = []
        items.append(Spec(flags.replace("'", ""), width, prec, conv, argnum, i - 1))
    if lit:
        items.append("".join(lit))
    return items


# shared by every run of the process: bounded in entries and text (T-TEN-5)
_FMT_CACHE: TextCache[str, list[Item]] = TextCache(entries=256)


def compiled(fmt: str) -> list[Item]:
    items = _FMT_CACHE.get(fmt)
    if items is None:
        items = parse_format(fmt)
        _FMT_CACHE.put(fmt, fmt, items)
    return items


def _num(v: Value) -> float:
    return v if v.__class__ is float else str2num(v)  # type: ignore[return-value,arg-type]


def _pad(text: str, width: int | None, left: bool) -> str:
    if width is None or len(text) >= width:
        return text
    return text.ljust(width) if left else text.rjust(width)


def _char(v: Value) -> str:
    """%c: a number is a character code (a raw byte when it is no valid
    character); a string gives its first character; nothing gives NUL."""
    if v.__class__ is float or (v.__class__ is Input and looks_numeric(v)):  # type: ignore[arg-type]
        x = _num(v)
        if x != x or x in (math.inf, -math.inf):
            return "\0"
        code = int(x)
        wide = code & 0xFFFFFFFF  # a 32-bit wchar_t, as gawk converts it
        if wide <= 0x10FFFF and not 0xD800 <= wide < 0xE000:
            return chr(wide)
        if 0x10FFFF < wide <= 0x7FFFFFFF:
            return _legacy_utf8(wide)
        b = code & 0xFF
        return chr(b) if b < 0x80 else chr(0xDC00 | b)
    return str(v)[:1] or "\0"


def _legacy_utf8(code: int) -> str:
    """glibc writes code points past U+10FFFF as the old 5- and 6-byte UTF-8
    forms; they are invalid UTF-8, so they travel as raw bytes."""
    nbytes = 5 if code < 0x4000000 else 6
    lead = 0xF8 if nbytes == 5 else 0xFC
    out = []
    for _ in range(nbytes - 1):
        out.append(0x80 | (code & 0x3F))
        code >>= 6
    out.append(lead | code)
    return "".join(chr(0xDC00 | b) for b in reversed(out))


def _hexfloat(x: float, spec: Spec) -> str:
    """C's %a: shortest hex digits unless a precision is given."""
    if x == 0:
        mant, exp, sign = "0", 0, "-" if math.copysign(1.0, x) < 0 else ""
        frac = ""
    else:
        sign = "-" if x < 0 else ""
        h = float.hex(abs(x))  # 0x1.8000000000000p+1
        body, _, e = h[2:].partition("p")
        mant, _, frac = body.partition(".")
        exp = int(e)
        frac = frac.rstrip("0")
    if spec.prec is not None and spec.prec >= 0:
        if len(frac) > spec.prec:
            full = int(mant + frac, 16)
            shift = 4 * (len(frac) - spec.prec)
            rounded = (full + (1 << (shift - 1))) >> shift if shift else full
            digits = format(rounded, "x")
            mant, frac = digits[: len(digits) - spec.prec] or "0", digits[len(digits) - spec.prec :]
            if spec.prec == 0:
                frac = ""
        else:
            frac = frac.ljust(spec.prec, "0")
    if "+" in spec.flags and not sign:
        sign = "+"
    elif " " in spec.flags and not sign:
        sign = " "
    point = "." if frac or "#" in spec.flags else ""
    text = f"{sign}0x{mant}{point}{frac}p{'+' if exp >= 0 else '-'}{abs(exp)}"
    return text.upper() if spec.conv == "A" else text


def _integer(x: float, spec: Spec) -> str:
    conv = spec.conv
    if x != x or x in (math.inf, -math.inf):
        return special_str(x)
    flags = spec.flags
    unsigned = conv in "oxXu"
    # C: signs are for signed conversions, `#` for o/x, `0` yields to a precision
    flags = flags.replace("+", "").replace(" ", "") if unsigned else flags.replace("#", "")
    if spec.prec is not None:
        flags = flags.replace("0", "")
    n = int(x)
    if unsigned:
        if n < 0:
            if n < -(1 << 63):
                return _float_fallback(x, spec)
            n += 1 << 64
        elif n >= 1 << 64:
            return _float_fallback(x, spec)
    alt = "#" in flags
    if alt:
        flags = flags.replace("#", "")
    if spec.prec == 0 and (n == 0 if conv in "di" else x == 0):
        # C prints no digits for a zero with precision 0 (gawk: unless `#`)
        return _pad("0" if alt else "", spec.width, "-" in flags)
    pyfmt = "%" + flags + (str(spec.width) if spec.width is not None else "")
    if spec.prec is not None:
        pyfmt += "." + str(spec.prec)
    out = (pyfmt + ("d" if conv in "iu" else conv)) % n
    if alt and x != 0 and conv in "oxX":
        # gawk adds the prefix even to digits that already start with 0
        prefix = "0" if conv == "o" else "0" + conv
        out = _prefix(out, prefix, out.strip(), Spec(flags, spec.width, spec.prec, conv, None, spec.pos))
    return out


def _prefix(out: str, prefix: str, stripped: str, spec: Spec) -> str:
    """Add the `#` prefix the way C does: inside zero padding, outside space padding."""
    width = spec.width or 0
    if "-" in spec.flags:
        return (prefix + stripped).ljust(width)
    if "0" in spec.flags and spec.prec is None:
        digits = stripped.lstrip("0") or "0"
        return prefix + digits.rjust(max(width - len(prefix), 0), "0")
    return (prefix + stripped).rjust(width)


def _float_fallback(x: float, spec: Spec) -> str:
    """gawk prints out-of-range values for integer formats with %g."""
    pyfmt = "%" + spec.flags + (str(spec.width) if spec.width is not None else "")
    if spec.prec is not None:
        pyfmt += "." + str(spec.prec)
    return (pyfmt + "g") % x


def _floating(x: float, spec: Spec) -> str:
    if x != x or x in (math.inf, -math.inf):
        return special_str(x)
    if spec.conv in "aA":
        return _pad(_hexfloat(x, spec), spec.width, "-" in spec.flags)
    pyfmt = "%" + spec.flags + (str(spec.width) if spec.width is not None else "")
    if spec.prec is not None:
        pyfmt += "." + str(spec.prec)
    return (pyfmt + spec.conv) % x


class _Slow(Exception):
    """A value the fast plan cannot format like C; use the general path."""


def _conv_s(v: Value, convfmt: str) -> str:
    return num2str(v, convfmt) if v.__class__ is float else v  # type: ignore[arg-type,return-value]


def _conv_d(v: Value, convfmt: str) -> int:
    x = v if v.__class__ is float else str2num(v)  # type: ignore[arg-type]
    if x - x != 0.0:  # type: ignore[operator]
        raise _Slow
    return int(x)  # type: ignore[arg-type]


def _conv_u(v: Value, convfmt: str) -> int:
    n = _conv_d(v, convfmt)
    if n < 0 or n >= 1 << 64:
        raise _Slow
    return n


def _conv_f(v: Value, convfmt: str) -> float:
    x: float = v if v.__class__ is float else str2num(v)  # type: ignore[assignment,arg-type]
    if x - x != 0.0:
        raise _Slow
    return x


def _conv_c(v: Value, convfmt: str) -> str:
    c = _char(v)
    if len(c) != 1:
        raise _Slow
    return c


_FAST_CONV = {
    "s": _conv_s,
    "d": _conv_d,
    "i": _conv_d,
    "o": _conv_u,
    "x": _conv_u,
    "X": _conv_u,
    "u": _conv_u,
    "e": _conv_f,
    "E": _conv_f,
    "f": _conv_f,
    "F": _conv_f,
    "g": _conv_f,
    "G": _conv_f,
    "c": _conv_c,
}
Plan = tuple[str, tuple[object, ...]]
_PLANS: dict[str, Plan | None] = {}


def _plan(fmt: str, items: list[Item]) -> Plan | None:
    """One Python format string and a converter per spec, when every spec
    formats the same in Python as in C (no `*`, no `N$`, no `#` on o/x)."""
    parts: list[str] = []
    convs: list[object] = []
    for item in items:
        if isinstance(item, str):
            parts.append(item.replace("%", "%%"))
            continue
        if item.width == -1 or item.prec == -1 or item.argnum is not None or item.conv not in "sdieEfFgG":
            return None  # unsigned and %c conversions differ from Python's: the general path does them
        if (item.width or 0) > _WIDE or (item.prec or 0) > _WIDE:
            return None  # the general path checks the size first
        if item.conv in "di" and ("#" in item.flags or item.prec is not None):
            return None
        conv = {"i": "d", "u": "d"}.get(item.conv, item.conv)
        text = "%" + item.flags + (str(item.width) if item.width is not None else "")
        if item.prec is not None:
            text += "." + str(item.prec)
        parts.append(text + conv)
        convs.append(_FAST_CONV[item.conv])
    return "".join(parts), tuple(convs)


FastPlan = tuple[str, str, tuple[int, ...], str]


def static_plan(fmt: str) -> FastPlan | None:
    """For a constant format whose specs are all %s, %d/%i or floating:
    (Python format, awk format, indexes of floating args, spec letters).
    Compiled code converts each argument to str or float itself and applies
    the Python format directly; odd values fall back to format_values."""
    try:
        items = compiled(fmt)
    except FormatFatal:
        return None  # reported when the program formats with it
    parts: list[str] = []
    floats: list[int] = []
    letters: list[str] = []
    for item in items:
        if isinstance(item, str):
            parts.append(item.replace("%", "%%"))
            continue
        if item.width == -1 or item.prec == -1 or item.argnum is not None or item.conv not in "sdieEfFgG":
            return None
        if (
            (item.width or 0) > _WIDE
            or (item.prec or 0) > _WIDE
            or (item.conv in "di" and item.prec is not None)
        ):
            return None
        if item.conv in "eEfFgG":
            floats.append(len(letters))
        letters.append("s" if item.conv == "s" else "n")
        text = "%" + item.flags + (str(item.width) if item.width is not None else "")
        if item.prec is not None:
            text += "." + str(item.prec)
        parts.append(text + ("d" if item.conv == "i" else item.conv))
    return "".join(parts), fmt, tuple(floats), "".join(letters)


def format_values(fmt: str, args: list[Value] | tuple[Value, ...], convfmt: str = "%.6g") -> str:
    if fmt in _PLANS:
        plan = _PLANS[fmt]
    else:
        plan = _plan(fmt, compiled(fmt))
        # the process's, as _FMT_CACHE: a format is kept as _FMT_CACHE keeps it (a data-made
        # format may be max_string_length long, and 256 of them outlived the run, uncharged)
        if len(fmt) <= _FMT_CACHE.longest:
            if len(_PLANS) > 256:
                _PLANS.clear()
            _PLANS[fmt] = plan
    if plan is not None and len(args) >= len(plan[1]):
        convs = plan[1]
        try:
            return plan[0] % tuple([c(a, convfmt) for c, a in zip(convs, args[: len(convs)], strict=True)])  # type: ignore[operator]
        except _Slow:
            pass
    return _format_slow(fmt, args, convfmt)


def _format_slow(fmt: str, args: list[Value] | tuple[Value, ...], convfmt: str) -> str:
    items = compiled(fmt)
    out: list[str] = []
    ai = 0
    nargs = len(args)
    for item in items:
        if item.__class__ is str:
            out.append(item)  # type: ignore[arg-type]
            continue
        spec: Spec = item  # type: ignore[assignment]
        width = spec.width
        prec = spec.prec
        if width == -1:
            if ai >= nargs:
                raise FormatError(fmt, spec.pos)
            width = int(_num(args[ai]))
            ai += 1
        if prec == -1:
            if ai >= nargs:
                raise FormatError(fmt, spec.pos)
            p = int(_num(args[ai]))
            ai += 1
            prec = p if p >= 0 else None
        flags = spec.flags
        if width is not None and width < 0:
            flags += "-"
            width = -width
        if (width or 0) > _WIDE or ((prec or 0) > _WIDE and spec.conv not in "sc"):
            _check_size(width, prec if spec.conv not in "sc" else None)
        if spec.argnum is not None:
            idx = spec.argnum - 1
            if idx >= nargs or idx < 0:
                raise FormatError(fmt, spec.pos)
            arg = args[idx]
        else:
            if ai >= nargs:
                raise FormatError(fmt, spec.pos)
            arg = args[ai]
            ai += 1
        if width != spec.width or prec != spec.prec or flags != spec.flags:
            spec = Spec(flags, width, prec, spec.conv, None, spec.pos)
        out.append(format_one(spec, arg, convfmt))
    return "".join(out)


def _check_size(width: int | None, prec: int | None) -> None:
    """A width or precision over the run's string limit stops the run before
    the string is built (a precision only truncates %s, so it is not checked)."""
    limit = FIELD_LIMIT.get()
    try:
        for size in (width, prec):
            if size is not None:
                check_field(size, limit)
    except FieldTooWide:
        raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit) from None


def format_one(spec: Spec, arg: Value, convfmt: str) -> str:
    conv = spec.conv
    if conv == "s":
        s = num2str(arg, convfmt) if arg.__class__ is float else str(arg)  # type: ignore[arg-type]
        if spec.prec is not None:
            s = s[: spec.prec]
        return _pad(s, spec.width, "-" in spec.flags)
    if conv == "c":
        c = _char(arg)
        # gawk pads a character made from a number by bytes, one taken from a string by characters
        size = len(c.encode("utf-8", "surrogateescape")) if arg.__class__ is float else len(c)
        pad = (spec.width or 0) - size
        if pad <= 0:
            return c
        return c + " " * pad if "-" in spec.flags else " " * pad + c
    x = _num(arg)
    if conv in _INT_CONV:
        return _integer(x, spec)
    return _floating(x, spec)


def num2str(x: float, fmt: str) -> str:
    """A number as a string: integers exactly, others through CONVFMT/OFMT."""
    if x - x == 0.0:
        i = int(x)
        if i == x:
            return str(i)
        if fmt == "%.6g":
            return f"{x:.6g}"
        try:
            items = compiled(fmt)
            if any(isinstance(it, Spec) and it.conv in "sc" for it in items):
                return f"{x:.6g}"  # a format that would convert back to a string
            return format_values(fmt, (x,))
        except FormatError:
            return fmt
        except FormatFatal:
            return f"{x:.6g}"
    return special_str(x)


def to_str(v: Value, convfmt: str = "%.6g") -> str:
    if v.__class__ is float:
        return num2str(v, convfmt)  # type: ignore[arg-type]
    return v  # type: ignore[return-value]
