"""hexdump's format strings (-e, -f; util-linux 2.38): parsed into units, shown block by block.

A format string is a list of units `[iterations][/bytes] "text"`; the text holds printf-style
conversions, each consuming bytes of the block (%d %i %o %u %x %X: 4 by default, 1, 2, 4 or 8;
%e %f %g: 8 or 4; %c %_c %_p %_u: 1; %s: its precision or the unit's byte count) or none
(%_a the offset, %_A the offset once the input ends). Every format string shows the same block;
the block is as long as the longest format string, whose last unit repeats to fill it. Bytes
past the end of the input show as blanks of the field's width; a unit's last iteration drops
the one trailing blank of its text.
"""

from __future__ import annotations

import math
import re
import struct

from ...posix.longdouble import format_long
from ...posix.longdouble import parse as parse_long
from ...posix.printf import check_field
from .od import C_ESCAPES, CONTROL_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable


class FormatError(Exception):
    """A bad format string: util-linux's message (hexdump: MESSAGE, status 1)."""


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
# the printf flags and field width before a conversion character (and its precision)
_SPEC = re.compile(r"([-+ #0]*)(\d*)(?:\.(\d*))?")
_NAMES = ["lf" if name == "nl" else name for name in CONTROL_NAMES[:32]]  # (util-linux says lf)
_INT_SIZES = (1, 2, 4, 8)
_INT_KINDS = {"d": "d", "i": "d", "u": "d", "o": "o", "x": "x", "X": "X"}


# a field whose width and precision add up past this is written out on its own, never kept in a
# table of 256 or batched with others (each may be max_string_length long)
WIDE = 4096


class _Pr:
    """One piece of a unit's text: literal text, then (unless kind is "text") one conversion."""

    __slots__ = (
        "flags",
        "kind",
        "nospace",
        "prec",
        "pyfmt",
        "radix",
        "size",
        "table",
        "text",
        "wide",
        "width",
    )

    def __init__(
        self, text: str, kind: str = "text", flags: str = "", width: str = "", prec: str | None = None
    ):
        self.text = text
        self.kind = kind  # text, addr, d, i, o, u, x, X, e, E, f, g, G, c, s, _c, _p, _u
        self.flags = flags
        self.width = width
        self.prec = prec
        self.wide = False  # its field may be long (a width or precision past WIDE): never batched
        self.size = 0  # bytes it consumes
        self.nospace = False  # a text whose last character, a blank, the last iteration drops
        self.radix = ""  # an address's d, o or x
        self.table: list[str] | None = None  # a one-byte conversion: its text for each byte
        self.pyfmt = ""  # an integer conversion Python's % writes as C does (no #, no precision)


class _Unit:
    __slots__ = ("count", "end_address", "prs", "reps", "set_reps")

    def __init__(self, reps: int, set_reps: bool, count: int, prs: list[_Pr]) -> None:
        self.reps = reps
        self.set_reps = set_reps  # an iteration count was given (the unit never grows)
        self.count = count  # the byte count given (0: the sum of its conversions)
        self.prs = prs
        self.end_address = any(p.kind == "addr_end" for p in prs)


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            if i + 1 == len(text):
                out.append("\\")
                break
            nxt = text[i + 1]
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_format(fmt: str) -> list[_Unit]:
    """One format string (a -e argument, a line of a -f file) as its units."""
    units: list[_Unit] = []
    p, n = 0, len(fmt)

    def bad() -> FormatError:
        return FormatError(f"bad format {{{fmt}}}")

    def skip_blanks(i: int) -> int:
        while i < n and fmt[i].isspace():
            i += 1
        return i

    while True:
        p = skip_blanks(p)
        if p >= n:
            return units
        reps, set_reps, count = 1, False, 0
        if fmt[p].isdigit():
            start = p
            while p < n and fmt[p].isdigit():
                p += 1
            if p < n and not (fmt[p].isspace() or fmt[p] == "/"):
                raise bad()
            if p >= n:
                raise bad()
            reps, set_reps = _count(fmt[start:p]), True
            p = skip_blanks(p)
        if p < n and fmt[p] == "/":
            p = skip_blanks(p + 1)
            if p < n and fmt[p].isdigit():
                start = p
                while p < n and fmt[p].isdigit():
                    p += 1
                if p >= n or not fmt[p].isspace():
                    raise bad()
                count = _count(fmt[start:p])
                p = skip_blanks(p)
        if p >= n or fmt[p] != '"':
            raise bad()
        end = fmt.find('"', p + 1)
        if end < 0:
            raise bad()
        units.append(_Unit(reps, set_reps, count, _pieces(_unescape(fmt[p + 1 : end]), count)))
        p = end + 1


def _count(digits: str) -> int:
    """An iteration or byte count (atoi's digits; an absurd one stays absurd, and the block it
    makes is refused on memory, never converted from thousands of digits)."""
    return int(digits) if len(digits) <= 18 else 10**18


def _pieces(text: str, count: int) -> list[_Pr]:
    """A unit's text cut after each conversion (util-linux's rewrite)."""
    prs: list[_Pr] = []
    convs = 0
    pos = 0
    while pos < len(text):
        pct = text.find("%", pos)
        if pct < 0:
            prs.append(_Pr(text[pos:]))
            break
        m = _SPEC.match(text, pct + 1)
        assert m is not None  # (every part is optional)
        flags, width, prec = m.group(1), m.group(2), m.group(3)
        at = m.end()
        conv = text[at : at + 1]
        pr = _Pr(text[pos:pct], conv, flags, width, prec)
        at += 1
        if conv and conv in "diouxX":
            pr.size = _sized(conv, count, _INT_SIZES, 4)
        elif conv and conv in "eEfgG":
            pr.size = _sized(conv, count, (4, 8), 8)
        elif conv == "c":
            pr.size = _sized(conv, count, (1,), 1)
        elif conv == "s":
            if count:
                pr.size = count
            elif prec:  # (util-linux reads a precision only without a byte count)
                pr.size = int(prec)
            else:
                raise FormatError("%s requires a precision or a byte count")
        elif conv == "_":
            kind = text[at : at + 1]
            if kind in ("a", "A"):
                radix = text[at + 1 : at + 2]
                if radix not in ("d", "o", "x") or not radix:
                    raise FormatError(f"bad conversion character %_{text[at : at + 2]}")
                pr.kind = "addr" if kind == "a" else "addr_end"
                pr.radix = radix
                at += 2
            elif kind in ("c", "p", "u"):
                pr.kind = "_" + kind
                pr.size = _sized("_" + kind, count, (1,), 1)
                at += 1
            else:
                raise FormatError(f"bad conversion character %_{kind}")
        elif not conv:
            # util-linux reads on past the string's end and names what it finds there: on
            # util-linux 2.38 that is an `A` (the conversion of its own address format)
            raise FormatError("bad conversion character %A")
        else:
            raise FormatError(f"bad conversion character %{conv}")
        if pr.size and count:
            convs += 1
            if convs > 1:
                raise FormatError("byte count with multiple conversion characters")
        prs.append(pr)
        pos = at
    return prs


def _sized(conv: str, count: int, allowed: tuple[int, ...], default: int) -> int:
    if not count:
        return default
    if count not in allowed:
        raise FormatError(f"bad byte count for conversion character {conv}")
    return count


class Program:
    """Every format string given, ready to show blocks (util-linux's display()). A width or
    precision over `limit` is FieldTooWide (refused before any field is built); `tick` is
    called for each iteration of a unit (a unit of text alone may repeat without bound)."""

    def __init__(self, formats: Iterable[str], limit: int, tick: Callable[[], None]) -> None:
        self.tick = tick
        self.strings: list[list[_Unit]] = [units for units in map(parse_format, formats) if units]
        for units in self.strings:
            for unit in units:
                for pr in unit.prs:
                    for field in (pr.width, pr.prec):
                        if field:
                            check_field(field, limit)
                    pr.wide = int(pr.width or 0) + int(pr.prec or 0) > WIDE
        sizes = [sum(u.reps * _unit_bytes(u) for u in units) for units in self.strings]
        self.block = max(sizes, default=0)
        for units, size in zip(self.strings, sizes, strict=True):
            last = units[-1]
            step = _unit_bytes(last)
            if size < self.block and not last.set_reps and step:
                last.reps += (self.block - size) // step
            for unit in units:  # a repeated unit's last text drops its last blank at the last time
                end = unit.prs[-1] if unit.prs else None
                if unit.reps > 1 and end is not None and end.kind == "text" and end.text[-1:].isspace():
                    end.nospace = True
        self.end_unit = next((u for units in self.strings for u in units if u.end_address), None)
        for units in self.strings:  # one-byte conversions: looked up, not formatted, per byte
            for unit in units:
                for pr in unit.prs:
                    if pr.size == 1 and not pr.wide:  # (256 fields of a 1 MB width were 256 MB)
                        pr.table = [pr.text + _convert(pr, bytes((b,)), 0) for b in range(256)]
                    elif pr.kind in _INT_KINDS and "#" not in pr.flags and pr.prec is None:
                        pr.pyfmt = pr.text.replace("%", "%%") + f"%{pr.flags}{pr.width}{_INT_KINDS[pr.kind]}"

    def show(self, block: bytes, address: int, end: int | None, out: Callable[[str], None]) -> None:
        """One block at `address`; `end` is the input's end when this block holds it."""
        data = block + bytes(max(self.block - len(block), 0) + 8)  # (past the end: zeros, blank)
        parts: list[str] = []
        add = parts.append
        stop = end - address if end is not None else self.block + 1  # where blanks begin
        for units in self.strings:
            pos = 0  # (the block's offset: the address is `address + pos`)
            for unit in units:
                if unit.end_address:
                    break  # (a unit with %_A shows only when the input ends)
                self.tick()
                for k in range(unit.reps, 0, -1):
                    if not k & 1023:
                        self.tick()
                        if len(parts) > 4096:  # (a unit repeated a million times in one block)
                            out("".join(parts))
                            parts.clear()
                    for pr in unit.prs:
                        table = pr.table
                        if table is not None and pos < stop:
                            add(table[data[pos]])
                        else:
                            add(_render(pr, data, pos, address + pos, pos >= stop, k == 1))
                            if pr.wide:  # each long field goes out on its own
                                out("".join(parts))
                                parts.clear()
                        pos += pr.size
            if len(parts) > 4096:
                out("".join(parts))
                parts.clear()
        out("".join(parts))

    def finish(self, end: int, out: Callable[[str], None]) -> None:
        """The %_A unit once the input has ended at `end`."""
        if self.end_unit is None:
            return
        for pr in self.end_unit.prs:
            if pr.kind == "addr_end":
                out(pr.text + _int(end, pr.radix, pr))
            elif pr.kind == "text":
                out(pr.text)


def _unit_bytes(unit: _Unit) -> int:
    return unit.count or sum(p.size for p in unit.prs)


def _render(pr: _Pr, data: bytes, pos: int, address: int, blank: bool, last: bool) -> str:
    if pr.kind == "text":  # (shown past the end too)
        return pr.text[:-1] if last and pr.nospace else pr.text
    if blank:  # util-linux's bpad: the field's width in blanks
        return pr.text + " " * int(pr.width or 0)
    if pr.pyfmt:
        return pr.pyfmt % int.from_bytes(data[pos : pos + pr.size], "little", signed=pr.kind in "di")
    return pr.text + _convert(pr, data[pos : pos + pr.size], address)


def _convert(pr: _Pr, raw: bytes, address: int) -> str:
    kind = pr.kind
    if kind in ("addr", "addr_end"):
        return _int(address, pr.radix, pr)
    if kind in "di":
        return _int(int.from_bytes(raw, "little", signed=True), "d", pr)
    if kind in "ouxX":
        return _int(int.from_bytes(raw, "little"), kind, pr)
    if kind in "eEfgG":
        value = struct.unpack("<f" if len(raw) == 4 else "<d", raw)[0]
        text = repr(value)
        if math.isnan(value) and math.copysign(1.0, value) < 0:
            text = "-nan"
        return format_long(parse_long(text)[0], kind, pr.flags, pr.width, pr.prec)
    if kind == "s":
        text = raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        return _pad(text, pr, pr.prec)
    b = raw[0]
    if kind == "_p":
        return _pad(chr(b) if 32 <= b < 127 else ".", pr)
    if kind == "_u" and (b < 32 or b == 127):
        return _pad(_NAMES[b] if b < 32 else "del", pr)
    if kind == "_u" and b > 127:
        return _int(b, "x", pr)
    if kind == "_c" and (b in C_ESCAPES or not 32 <= b < 127):
        return _pad(C_ESCAPES.get(b) or f"{b:03o}", pr)
    return _pad(bytes((b,)).decode("utf-8", "surrogateescape"), pr)


def _pad(text: str, pr: _Pr, prec: str | None = None) -> str:
    """printf's %s or %c: a precision cuts, the width pads (the - flag on the right)."""
    if prec is not None:
        text = text[: int(prec or 0)]
    size = int(pr.width or 0)
    return text.ljust(size) if "-" in pr.flags else text.rjust(size)


def _int(value: int, conv: str, pr: _Pr) -> str:
    """C printf's integer conversions with the piece's flags, width and precision."""
    digits = format(abs(value), {"o": "o", "x": "x", "X": "X"}.get(conv, "d"))
    prec = pr.prec
    if prec is not None:
        digits = "" if value == 0 and not int(prec or 0) else digits.zfill(int(prec or 0))
    prefix = ""
    flags = pr.flags
    if "#" in flags and conv == "o" and not digits.startswith("0"):
        digits = "0" + digits
    elif "#" in flags and conv in "xX" and value != 0:
        prefix = "0" + conv
    if conv == "d":
        prefix = "-" if value < 0 else "+" if "+" in flags else " " if " " in flags else ""
    width = int(pr.width or 0)
    if "-" in flags:
        return (prefix + digits).ljust(width)
    if "0" in flags and prec is None:
        return prefix + digits.zfill(width - len(prefix))
    return (prefix + digits).rjust(width)


# the built-in displays as util-linux defines them, for when they are mixed with -e/-f
BUILTIN = {
    "one_byte_octal": ('"%07.7_Ax\\n"', '"%07.7_ax " 16/1 "%03o " "\\n"'),
    "one_byte_hex": ('"%07.7_Ax\\n"', '"%07.7_ax " 16/1 " %02x " "\\n"'),
    "one_byte_char": ('"%07.7_Ax\\n"', '"%07.7_ax " 16/1 "%3_c " "\\n"'),
    "canonical": ('"%08.8_Ax\\n"', '"%08.8_ax  " 8/1 "%02x " "  " 8/1 "%02x " ', '"  |" 16/1 "%_p" "|\\n"'),
    "two_bytes_decimal": ('"%07.7_Ax\\n"', '"%07.7_ax " 8/2 "  %05u " "\\n"'),
    "two_bytes_octal": ('"%07.7_Ax\\n"', '"%07.7_ax " 8/2 " %06o " "\\n"'),
    "two_bytes_hex": ('"%07.7_Ax\\n"', '"%07.7_ax " 8/2 "   %04x " "\\n"'),
}
