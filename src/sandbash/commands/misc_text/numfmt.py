"""numfmt: convert numbers to and from human-readable forms (GNU coreutils 9.1)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal

from ...stdio.streams import StreamReadError
from ..context import CommandExit, Ctx
from ..cut import INF, parse_list
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, declare
from ..textbasic.common import Out, argmatch, decode, encode, quote, split_records

NUMFMT_SPEC = CommandSpec(
    name="numfmt",
    usage="[OPTION]... [NUMBER]...",
    summary="Reformat NUMBER(s), or the numbers from standard input if none are specified.",
    opts=(
        Opt(
            "d",
            "delimiter",
            arg="required",
            metavar="X",
            help="use X instead of whitespace for field delimiter",
        ),
        Opt(
            None, "field", arg="required", metavar="FIELDS", help="replace the numbers in these input fields"
        ),
        Opt(None, "format", arg="required", metavar="FORMAT", help="use printf style floating-point FORMAT"),
        Opt(None, "from", arg="required", metavar="UNIT", help="auto-scale input numbers to UNITs"),
        Opt(None, "from-unit", arg="required", metavar="N", help="specify the input unit size"),
        Opt(None, "grouping", help="use locale-defined grouping of digits"),
        Opt(
            None,
            "header",
            arg="optional",
            metavar="N",
            help="print (without converting) the first N header lines",
        ),
        Opt(None, "invalid", arg="required", metavar="MODE", help="failure mode for invalid numbers"),
        Opt(None, "padding", arg="required", metavar="N", help="pad the output to N characters"),
        Opt(None, "round", arg="required", metavar="METHOD", help="use METHOD for rounding when scaling"),
        Opt(None, "suffix", arg="required", metavar="SUFFIX", help="add SUFFIX to output numbers"),
        Opt(None, "to", arg="required", metavar="UNIT", help="auto-scale output numbers to UNITs"),
        Opt(None, "to-unit", arg="required", metavar="N", help="the output unit size"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
        Opt(None, "debug", help="print warnings about invalid input"),
    ),
)

_UNITS = [("none", "none"), ("auto", "auto"), ("si", "si"), ("iec", "iec"), ("iec-i", "iec-i")]
_ROUNDS = [
    ("up", "up"),
    ("down", "down"),
    ("from-zero", "from-zero"),
    ("towards-zero", "towards-zero"),
    ("nearest", "nearest"),
]
_INVALID = [("abort", "abort"), ("fail", "fail"), ("warn", "warn"), ("ignore", "ignore")]
_SUFFIXES = "KMGTPEZY"
_NUM = re.compile(r"\s*(-?)(\d*)(\.(\d*))?")


class Invalid(Exception):
    pass


def _round(v: float, method: str) -> float:
    if method == "up":
        return float(math.ceil(v))
    if method == "down":
        return float(math.floor(v))
    if method == "towards-zero":
        return float(math.trunc(v))
    if method == "nearest":
        return float(math.floor(v + 0.5)) if v >= 0 else float(math.ceil(v - 0.5))
    return float(math.ceil(v)) if v >= 0 else float(math.floor(v))


class Numfmt:
    def __init__(self, ctx: Ctx, opts: Parsed) -> None:
        get = opts.get
        self.ctx = ctx
        _check_in_order(ctx, opts, self._unit)
        self.from_ = argmatch(ctx, "--from", get("from"), _UNITS) if get("from") else "none"
        self.to = argmatch(ctx, "--to", get("to"), _UNITS[:1] + _UNITS[2:]) if get("to") else "none"
        self.round = argmatch(ctx, "--round", get("round"), _ROUNDS) if get("round") else "from-zero"
        self.invalid = argmatch(ctx, "--invalid", get("invalid"), _INVALID) if get("invalid") else "abort"
        self.suffix = get("suffix") or ""
        self.padding = 0
        if get("padding") is not None:
            try:
                self.padding = int(get("padding"))
                # GNU: 0 or out of range; here also wider than the string limit (checked before padding)
                if self.padding == 0 or abs(self.padding) > ctx.limits.max_string_length:
                    raise ValueError
            except ValueError:
                ctx.error(f"invalid padding value {quote(ctx, get('padding'))}")
                raise CommandExit(1)
        self.from_unit = self._unit(get("from_unit"), "--from-unit")
        self.to_unit = self._unit(get("to_unit"), "--to-unit")
        self.grouping = bool(get("grouping"))
        if self.grouping and get("format") is not None:
            ctx.error("--grouping cannot be combined with --format")
            raise CommandExit(1)
        if get("debug") and self.from_ == self.to == "none" and not self.grouping:
            if not self.padding and get("format") is None:
                ctx.error("no conversion option specified")
        self.fmt = self._format(get("format")) if get("format") else None
        if self.fmt is not None and "'" in self.fmt[1]:
            self.grouping = True  # the format's ' flag is --grouping
        # The format's width: with the 0 flag it zero-fills the number before its unit; else it
        # replaces --padding (negative: to the left), which pads the number, unit and --suffix.
        self.zero_width = 0
        width = int(self.fmt[2]) if self.fmt is not None and self.fmt[2] else 0
        if width:
            if get("debug") and self.padding and not ("0" in self.fmt[1] and width > 0):  # type: ignore[index]
                ctx.error("--format padding overriding --padding")
            if "0" in self.fmt[1] and width > 0:  # type: ignore[index]
                self.zero_width = width
            elif width < 0 or self.padding >= 0:
                self.padding = width
            else:  # (a width keeps --padding's left alignment: GNU holds the two apart)
                self.padding = -width
        if self.grouping and self.to != "none":
            ctx.error("grouping cannot be combined with --to")
            raise CommandExit(1)
        self.failed = False
        self.flush: Callable[[], None] = lambda: None

    def _unit(self, text: str | None, what: str = "") -> int:
        """GNU's unit_to_umax: a positive integer, `K` 1000 and `Ki` 1024 (a trailing letter reads
        as `KB`, an `i` is dropped), KMGTPEZY only, `KiB` refused."""
        if text is None:
            return 1
        m = re.fullmatch(r"[ \t\n\v\f\r]*\+?(\d*)([KMGTPEZY]?)(i?)", text)
        value = 0
        if m is not None and (m.group(1) or m.group(2)):
            number = int(m.group(1)) if m.group(1) else 1
            letter = m.group(2)
            if not letter:
                value = number if not m.group(3) else 0
            else:
                power = "KMGTPEZY".index(letter) + 1
                value = number * (1024 if m.group(3) else 1000) ** power
        if not 0 < value < 2**64:
            self.ctx.error(f"invalid unit size: {quote(self.ctx, text)}")
            raise CommandExit(1)
        return value

    def _format(self, text: str) -> tuple[str, str, str, int | None, str]:
        # GNU's flags: blanks, ' and 0 in any order, then strtol's width (a sign of its own: `-08`
        # is 8 to the left, `+08` is 8 with no zero flag)
        m = re.fullmatch(r"(.*?)%([ 0']*)([-+]?\d*)(?:\.(\d+))?f(.*)", text, re.S)
        if m is not None and "%" in m.group(5).replace("%%", ""):
            self.ctx.error(f"format {quote(self.ctx, text)} has too many % directives")
            raise CommandExit(1)
        if m is None:
            self.ctx.error(
                f"invalid format {quote(self.ctx, text)}"
                + ("" if m else ", directive must be %[0]['][-][N][.][N]f")
            )
            raise CommandExit(1)
        prefix, flags, width, prec, suffix = m.groups()
        if width in ("-", "+"):
            self.ctx.error(f"invalid format {quote(self.ctx, text)}, directive must be %[0]['][-][N][.][N]f")
            raise CommandExit(1)
        most = min(2**31 - 1, self.ctx.limits.max_string_length)  # GNU: INT_MAX; here also the string limit
        if width and abs(int(width)) > most:
            self.ctx.error(f"invalid format {quote(self.ctx, text)} (width overflow)")
            raise CommandExit(1)
        if prec is not None and int(prec) > most:
            self.ctx.error(f"invalid precision in format {quote(self.ctx, text)}")
            raise CommandExit(1)
        return (
            prefix.replace("%%", "%"),
            flags,
            width,
            int(prec) if prec is not None else None,
            suffix.replace("%%", "%"),
        )

    # -- parsing

    def parse(self, text: str) -> tuple[float, int]:
        """The value and the number of fraction digits given."""
        m = _NUM.match(text)
        # GNU's strtold then its own check: a decimal point needs a digit after it (`12.`, `1.K`)
        if m is None or not (m.group(2) or m.group(4)) or (m.group(3) is not None and not m.group(4)):
            raise Invalid(f"invalid number: {quote(self.ctx, text)}")
        end = m.end()
        value = float(Decimal(m.group(1) + (m.group(2) or "0") + "." + (m.group(4) or "0")))
        frac = len(m.group(4) or "")
        rest = text[end:]
        if not rest:
            if self.from_ == "iec-i":
                raise Invalid(f"missing 'i' suffix in input: {quote(self.ctx, text)} (e.g Ki/Mi/Gi)")
            return value * self.from_unit, frac
        # GNU skips blanks before the suffix; a suffix of nothing passes its valid_suffix (strchr
        # finds the terminator), so `12 ` is a suffix refused without --from
        rest = rest.lstrip(" \t")
        letter = rest[:1]
        if letter not in tuple(_SUFFIXES) + ("",):  # (coreutils 9.1: upper case only, `1k` is refused)
            raise Invalid(f"invalid suffix in input: {quote(self.ctx, text)}")
        if self.from_ == "none":
            raise Invalid(f"rejecting suffix in input: {quote(self.ctx, text)} (consider using --from)")
        if not letter:  # (GNU reads past the string here; no suffix is taken as a bad one)
            raise Invalid(f"invalid suffix in input: {quote(self.ctx, text)}")
        power = _SUFFIXES.index(letter.upper()) + 1
        tail = rest[1:]
        if self.from_ == "si":
            base = 1000
        elif self.from_ == "iec":
            base = 1024
        elif self.from_ == "iec-i":
            if not tail.startswith("i"):
                raise Invalid(f"missing 'i' suffix in input: {quote(self.ctx, text)} (e.g Ki/Mi/Gi)")
            tail = tail[1:]
            base = 1024
        else:
            base = 1024 if tail.startswith("i") else 1000
            if tail.startswith("i"):
                tail = tail[1:]
        if tail:
            raise Invalid(f"invalid suffix in input {quote(self.ctx, text)}: {quote(self.ctx, tail)}")
        return value * base**power * self.from_unit, 0

    # -- printing

    def render(self, value: float, frac: int) -> str:
        value = value / self.to_unit
        if self.to == "none" and abs(value) >= 1e18:
            if self.fmt and self.fmt[3] is not None:
                raise Invalid(
                    f"value/precision too large to be printed: '{value:g}/{self.fmt[3]}' "
                    "(consider using --to)"
                )
            raise Invalid(f"value too large to be printed: '{value:g}' (consider using --to)")
        prec = self.fmt[3] if self.fmt else None
        if self.to == "none" and prec and len(str(int(abs(value)))) + prec > 19:
            # GNU prints at most 19 digits without scaling (and 10**prec would not end)
            raise Invalid(
                f"value/precision too large to be printed: '{value:g}/{prec}' (consider using --to)"
            )
        if self.to == "none":
            if prec is not None:
                text = f"{_round(value * 10**prec, self.round) / 10**prec:.{prec}f}"
            else:
                text = (
                    f"{_round(value * 10**frac, self.round) / 10**frac:.{frac}f}"
                    if frac
                    else f"{_round(value, self.round):.0f}"
                )
            if self.grouping:
                text = text  # C.UTF-8 has no thousands separator
            text = text.zfill(self.zero_width)
        else:
            text = self._human(value, prec)
        text += self.suffix
        return self._pad(text)

    def _human(self, value: float, prec: int | None) -> str:
        base = 1000 if self.to == "si" else 1024
        power = 0
        v = value
        while abs(v) >= base and power < len(_SUFFIXES):
            v /= base
            power += 1
        if prec is not None:
            adjust = min(power * 3, prec)
        else:
            adjust = 1 if abs(v) < 10 else 0
        v = _round(v * 10**adjust, self.round) / 10**adjust
        if abs(v) >= base and power < len(_SUFFIXES):
            v /= base
            power += 1
        show = prec if prec is not None else (1 if (v != 0 and abs(v) < 10 and power > 0) else 0)
        text = f"{v:.{show}f}".zfill(self.zero_width)  # (printf's %0*f: the number, not its unit)
        if power:
            text += _SUFFIXES[power - 1] + ("i" if self.to == "iec-i" else "")
        return text

    def _pad(self, text: str) -> str:
        if self.padding > 0:
            text = text.rjust(self.padding)
        elif self.padding < 0:
            text = text.ljust(-self.padding)
        if self.fmt:  # (the format's own text stays outside the padding)
            text = self.fmt[0] + text + self.fmt[4]
        return text

    def convert(self, text: str) -> str | None:
        try:
            value, frac = self.parse(text)
            return self.render(value, frac)
        except Invalid as e:
            if self.invalid in ("abort", "fail", "warn"):
                self.flush()  # GNU's error() writes out stdout's buffer first
                self.ctx.error(str(e))
            if self.invalid == "abort":
                raise CommandExit(2)
            self.failed = self.failed or self.invalid == "fail"
            return None


def _check_in_order(ctx: Ctx, opts: Parsed, unit: Callable[[str], int]) -> None:
    """The checks GNU's option loop makes as it meets each option: the first bad one is reported."""
    fields = 0
    for key, value in opts.order:
        if key == "from":
            argmatch(ctx, "--from", value, _UNITS)
        elif key == "to":
            argmatch(ctx, "--to", value, _UNITS[:1] + _UNITS[2:])
        elif key in ("from_unit", "to_unit"):
            unit(value)
        elif key == "round":
            argmatch(ctx, "--round", value, _ROUNDS)
        elif key == "invalid":
            argmatch(ctx, "--invalid", value, _INVALID)
        elif key == "padding":
            if not re.fullmatch(r"[ \t\n\v\f\r]*[-+]?\d+", value) or int(value) == 0:
                ctx.error(f"invalid padding value {quote(ctx, value)}")
                raise CommandExit(1)
        elif key == "field":
            fields += 1
            if fields > 1:
                ctx.error("multiple field specifications")
                raise CommandExit(1)
        elif key == "header" and value is not None:
            if not re.fullmatch(r"[ \t\n\v\f\r]*\+?\d+", value) or int(value) == 0:
                ctx.error(f"invalid header value {quote(ctx, value)}")
                raise CommandExit(1)


@declare("numfmt", spec=NUMFMT_SPEC, effects=Effects.NONE)
def cmd_numfmt(ctx: Ctx) -> int:
    opts, numbers = ctx.parse(NUMFMT_SPEC)
    nf = Numfmt(ctx, opts)
    out = Out(ctx.stdout)
    nf.flush = out.flush
    eol = b"\0" if opts.get("zero_terminated") else b"\n"
    try:
        return _run(ctx, nf, opts, numbers, out, eol)
    finally:
        out.flush()


def _run(ctx: Ctx, nf: Numfmt, opts: Parsed, numbers: list[str], out: Out, eol: bytes) -> int:
    get = opts.get
    has = opts.has
    if [key for key, _ in opts.order].count("field") > 1:
        ctx.error("multiple field specifications")
        return 1
    spec = get("field")
    # `--field=-` is every field (GNU's set_fields with SETFLD_ALLOW_DASH), a list as cut reads one
    fields = [(1, INF)] if spec == "-" else parse_list(ctx, spec, True) if spec else [(1, 1)]
    line = _Line(nf, fields, get("delimiter"), out)
    if numbers:  # each operand is a line of its own (--header reads only standard input)
        for text in numbers:
            line.write(text)
            out.write(eol)
        return 2 if nf.failed else 0
    header = 0
    if has("header"):
        header = int(get("header") or 1)
    n = 0
    try:
        for lines, tail in split_records(ctx, ctx.stdin, eol):
            # an unterminated last line stays unterminated
            ends = [eol] * (len(lines) - 1) + [b"" if tail else eol]
            for raw, end in zip(lines, ends, strict=True):
                n += 1
                if n <= header:
                    out.write(raw + end)
                    continue
                line.write(decode(raw))
                out.write(end)
    except StreamReadError as e:  # (`numfmt < dir`): GNU's words, and its status stays
        out.flush()
        ctx.error(f"error reading input: {e.strerror}")
    return 2 if nf.failed else 0


class _Line:
    """One line's fields, written out as GNU numfmt writes them: field by field (a message
    comes after the fields before it), the separator each field ended on written back as one
    space (or the --delimiter), a field's leading blanks kept with it."""

    def __init__(self, nf: Numfmt, fields: list[tuple[int, int]], delim: str | None, out: Out) -> None:
        self.nf = nf
        self.fields = fields
        self.delim = delim
        self.out = out
        # no --padding and blank-separated fields: a converted field keeps its own width
        self.auto_pad = nf.padding == 0 and delim is None

    def write(self, line: str) -> None:
        parts = line.split(self.delim) if self.delim is not None else _blank_fields(line)
        sep = encode(self.delim if self.delim is not None else " ")
        for i, text in enumerate(parts, 1):
            if i > 1:
                self.out.write(sep)
            if any(lo <= i <= hi for lo, hi in self.fields):
                text = self._convert(text, i)
            self.out.write(encode(text))

    def _convert(self, text: str, i: int) -> str:
        body = text.lstrip(" \t")
        r = self.nf.convert(body)
        if r is None:
            return text
        if self.auto_pad and (i > 1 or len(body) < len(text)):
            return r.rjust(len(text))
        return r


def _blank_fields(line: str) -> list[str]:
    """Fields as GNU numfmt's next_field finds them: leading blanks, then non-blanks; the one
    character that ends a field is its separator (so `a  b` has fields `a` and ` b`)."""
    parts: list[str] = []
    i, n = 0, len(line)
    while True:
        j = i
        while j < n and line[j] in " \t\n":
            j += 1
        while j < n and line[j] not in " \t\n":
            j += 1
        parts.append(line[i:j])
        if j >= n:
            return parts
        i = j + 1
