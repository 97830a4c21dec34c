"""od: dump files in octal, hex, decimal, float and character formats (GNU layout)."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator

from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, WriteFailure, declare
from ..textbasic.common import Out, quote, usage_fail, xstrtol_fatal, xstrtoumax

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

OD_SPEC = CommandSpec(
    name="od",
    summary="Write an unambiguous representation, octal bytes by default, of FILE to standard output.",
    opts=(
        Opt("A", "address-radix", arg="required", metavar="RADIX", help="output format for file offsets"),
        Opt(
            None,
            "endian",
            arg="required",
            metavar="{big|little}",
            help="swap input bytes according to the order",
        ),
        # The numeric options come short and long apart: their errors name the spelling used.
        Opt("j", None, arg="required", metavar="BYTES", help="skip BYTES input bytes first"),
        Opt(None, "skip-bytes", arg="required", metavar="BYTES", help="skip BYTES input bytes first"),
        Opt("N", None, arg="required", metavar="BYTES", help="limit dump to BYTES input bytes"),
        Opt(None, "read-bytes", arg="required", metavar="BYTES", help="limit dump to BYTES input bytes"),
        Opt(
            "S", None, arg="required", metavar="BYTES", help="output strings of at least BYTES graphic chars"
        ),
        Opt(
            None,
            "strings",
            arg="optional",
            metavar="BYTES",
            help="output strings of at least BYTES graphic chars (3 by default)",
        ),
        Opt(
            "t", "format", arg="required", multi=True, metavar="TYPE", help="select output format or formats"
        ),
        Opt("v", "output-duplicates", help="do not use * to mark line suppression"),
        Opt(
            None,
            "traditional",
            help="accept the operands [FILE] [[+]OFFSET[.][b] [+][LABEL][.][b]]: skip OFFSET bytes, "
            "show addresses as from LABEL too",
        ),
        Opt("w", None, arg="optional", metavar="BYTES", help="output BYTES bytes per output line"),
        Opt(None, "width", arg="optional", metavar="BYTES", help="output BYTES bytes per output line (32)"),
        Opt("a", None, dest="fmt_a", help="same as -t a"),
        Opt("b", None, dest="fmt_b", help="same as -t o1"),
        Opt("c", None, dest="fmt_c", help="same as -t c"),
        Opt("d", None, dest="fmt_d", help="same as -t u2"),
        Opt("D", None, dest="fmt_D", help="same as -t u4"),
        Opt("e", None, dest="fmt_e", help="same as -t fD"),
        Opt("f", None, dest="fmt_f", help="same as -t fF"),
        Opt("F", None, dest="fmt_F", help="same as -t fD"),
        Opt("h", None, dest="fmt_h", help="same as -t x2"),
        Opt("H", None, dest="fmt_H", help="same as -t x4"),
        Opt("i", None, dest="fmt_i", help="same as -t dI"),
        Opt("I", None, dest="fmt_I", help="same as -t dL"),
        Opt("l", None, dest="fmt_l", help="same as -t dL"),
        Opt("L", None, dest="fmt_L", help="same as -t dL"),
        Opt("o", None, dest="fmt_o", help="same as -t o2"),
        Opt("O", None, dest="fmt_O", help="same as -t o4"),
        Opt("s", None, dest="fmt_s", help="same as -t d2"),
        Opt("x", None, dest="fmt_x", help="same as -t x2"),
        Opt("X", None, dest="fmt_X", help="same as -t x4"),
    ),
)

_LEGACY = {
    "fmt_a": "a",
    "fmt_b": "o1",
    "fmt_c": "c",
    "fmt_d": "u2",
    "fmt_D": "u4",
    "fmt_e": "fD",
    "fmt_f": "fF",
    "fmt_F": "fD",
    "fmt_h": "x2",
    "fmt_H": "x4",
    "fmt_i": "dI",
    "fmt_I": "dL",
    "fmt_l": "dL",
    "fmt_L": "dL",
    "fmt_o": "o2",
    "fmt_O": "o4",
    "fmt_s": "d2",
    "fmt_x": "x2",
    "fmt_X": "x4",
}
_INT_SIZES = {"C": 1, "S": 2, "I": 4, "L": 8}
_FLOAT_SIZES = {"F": 4, "D": 8, "L": 8}
_WIDTHS = {
    ("d", 1): 4,
    ("d", 2): 6,
    ("d", 4): 11,
    ("d", 8): 20,
    ("u", 1): 3,
    ("u", 2): 5,
    ("u", 4): 10,
    ("u", 8): 20,
    ("o", 1): 3,
    ("o", 2): 6,
    ("o", 4): 11,
    ("o", 8): 22,
    ("x", 1): 2,
    ("x", 2): 4,
    ("x", 4): 8,
    ("x", 8): 16,
    ("f", 4): 15,
    ("f", 8): 24,
    ("a", 1): 3,
    ("c", 1): 3,
}
CONTROL_NAMES = [  # od -t a's names (hexdump's %_u shares them, `lf` for `nl`)
    "nul",
    "soh",
    "stx",
    "etx",
    "eot",
    "enq",
    "ack",
    "bel",
    "bs",
    "ht",
    "nl",
    "vt",
    "ff",
    "cr",
    "so",
    "si",
    "dle",
    "dc1",
    "dc2",
    "dc3",
    "dc4",
    "nak",
    "syn",
    "etb",
    "can",
    "em",
    "sub",
    "esc",
    "fs",
    "gs",
    "rs",
    "us",
    "sp",
]
# od -c, hexdump -c and hexdump's %_c
C_ESCAPES = {0: "\\0", 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}


@dataclass
class Spec:
    kind: str
    size: int
    width: int
    trailer: bool = False
    pad: int = 0


def _parse_type(ctx: Ctx, text: str) -> list[Spec]:
    specs: list[Spec] = []
    i = 0
    while i < len(text):
        kind = text[i]
        i += 1
        if kind in "ac":
            size = 1
        elif kind in "doux":
            size = 4
            if i < len(text) and text[i] in _INT_SIZES:
                size = _INT_SIZES[text[i]]
                i += 1
            elif i < len(text) and text[i].isdigit():
                j = i
                while j < len(text) and text[j].isdigit():
                    j += 1
                size = int(text[i:j])
                i = j
                if size not in (1, 2, 4, 8):
                    ctx.error(
                        f"invalid type string {quote(ctx, text)};\nthis system doesn't provide a {size}-byte "
                        "integral type"
                    )
                    raise CommandExit(1)
        elif kind == "f":
            size = 8
            if i < len(text) and text[i] in _FLOAT_SIZES:
                size = _FLOAT_SIZES[text[i]]
                i += 1
            elif i < len(text) and text[i].isdigit():
                j = i
                while j < len(text) and text[j].isdigit():
                    j += 1
                size = int(text[i:j])
                i = j
                if size not in (4, 8):
                    ctx.error(
                        f"invalid type string {quote(ctx, text)};\nthis system doesn't provide a {size}-byte "
                        "floating point type"
                    )
                    raise CommandExit(1)
        else:
            ctx.error(f"invalid character '{kind}' in type string {quote(ctx, text)}")
            raise CommandExit(1)
        trailer = i < len(text) and text[i] == "z"
        if trailer:
            i += 1
        specs.append(Spec(kind, size, _WIDTHS[(kind, size)], trailer))
    return specs


def _float_text(value: float, size: int) -> str:
    """The shortest %g text that reads back as the same value (GNU's ftoastr)."""
    if value != value:
        return "nan" if struct.pack(">d", value)[0] < 0x80 else "-nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    for prec in range(1, 18):
        text = f"{value:.{prec}g}"
        back = float(text)
        if size == 4:
            if struct.unpack("<f", struct.pack("<f", back))[0] == value:
                return text
        elif back == value:
            return text
    return f"{value:.17g}"


def _values(spec: Spec, block: bytes, endian: str) -> list[str]:
    size = spec.size
    kind = spec.kind
    if kind == "a":
        out = []
        for b in block:
            c = b & 0x7F
            out.append(CONTROL_NAMES[c] if c <= 32 else ("del" if c == 127 else chr(c)))
        return out
    if kind == "c":
        out = []
        for b in block:
            if b in C_ESCAPES:
                out.append(C_ESCAPES[b])
            elif 32 <= b < 127:
                out.append(chr(b))
            else:
                out.append(f"{b:03o}")
        return out
    count = len(block) // size
    if kind == "f":
        fmt = ("<" if endian == "little" else ">") + ("f" if size == 4 else "d") * count
        return [_float_text(v, size) for v in struct.unpack(fmt, block[: count * size])]
    signed = kind == "d"
    values = [
        int.from_bytes(
            block[i * size : (i + 1) * size], "big" if endian == "big" else "little", signed=signed
        )
        for i in range(count)
    ]
    if kind in ("d", "u"):
        return [str(v) for v in values]
    if kind == "o":
        return [f"{v:0{spec.width}o}" for v in values]
    return [f"{v:0{spec.width}x}" for v in values]


def _line(spec: Spec, block: bytes, per_block: int, endian: str) -> str:
    fields = per_block // spec.size
    data = block + bytes(-len(block) % spec.size)
    values = _values(spec, data, endian)
    blank = (per_block - len(block)) // spec.size
    parts = []
    pad_remaining = spec.pad
    for k, i in enumerate(range(fields, blank, -1)):
        next_pad = spec.pad * (i - 1) // fields
        width = pad_remaining - next_pad + spec.width
        parts.append(values[k].rjust(width))
        pad_remaining = next_pad
    text = "".join(parts)
    if spec.trailer:
        text += " " * (blank * spec.width + pad_remaining)  # (the pad left is the blank fields' share)
        text += "  >" + "".join(chr(b) if 32 <= b < 127 else "." for b in block) + "<"
    return text


def _address(radix: str, offset: int) -> str:
    if radix == "o":
        return f"{offset:07o}"
    if radix == "d":
        return f"{offset:07d}"
    if radix == "x":
        return f"{offset:06x}"
    return ""


class _Addresses:
    """How a line's offset is written: in the -A radix; with a --traditional LABEL, then the offset
    counted from the label in parentheses (`0000001 (0000010)`), or only the parentheses, the offset
    in octal and not counted from the label, under -A n (od.c's format_address_label/_paren)."""

    def __init__(self, radix: str, label_delta: int | None) -> None:
        self.radix = radix
        self.delta = label_delta
        self.shown = radix != "n" or label_delta is not None  # (the last line: the end's offset)
        self.pad = " " * (7 if radix == "n" and label_delta is not None else len(_address(radix, 0)))

    def text(self, offset: int) -> str:
        if self.delta is None:
            return _address(self.radix, offset)
        if self.radix == "n":
            return f"({offset:07o})"
        return f"{_address(self.radix, offset)} ({_address(self.radix, (offset + self.delta) % 2**64)})"


# options that make od read its operands only as files (od.c's `modern`): without --traditional,
# an offset operand is read only when none of these is given
_MODERN = frozenset(
    {
        "address_radix",
        "j",
        "skip_bytes",
        "N",
        "read_bytes",
        "S",
        "strings",
        "format",
        "output_duplicates",
        "w",
        "width",
    }
)


def _old_offset(text: str) -> int | None:
    """od.c's parse_old_offset: `[+]N[b|B]`, octal, hex after 0x, decimal with a `.` (which
    xstrtoumax then refuses as a suffix: GNU od reads no operand with a dot as an offset); b is
    512 bytes, B 1024. None: not an offset."""
    body = text[1:] if text[:1] == "+" else text
    if not body:
        return None
    radix = 10 if "." in body else 16 if body[:2] in ("0x", "0X") else 8
    digits = "0123456789abcdefABCDEF"[: 22 if radix == 16 else radix]
    start = 2 if radix == 16 else 0
    end = start
    while end < len(body) and body[end] in digits:
        end += 1
    if end == start:
        if radix == 16:  # (strtoumax reads the 0 of a bare `0x`; the x is then a bad suffix)
            return None
        value = 1  # (a bare multiplier counts one unit)
    else:
        value = int(body[start:end], radix)
    rest = body[end:]
    if rest:
        if rest not in ("b", "B"):
            return None
        value *= 512 if rest == "b" else 1024
    return value if value < 2**64 else None


def split_operands(
    files: list[str], traditional: bool, modern: bool
) -> tuple[list[str], int | None, int | None]:
    """(files, bytes to skip or None, --traditional LABEL or None) from the operands as od.c reads
    them: `od FILE +N`, `od +N`, `od FILE N` (a digit: two operands), and with --traditional
    `od [FILE] OFFSET LABEL` too. `modern`: an option of _MODERN was given."""
    if modern and not traditional:
        return files, None, None
    skip: int | None = None
    label: int | None = None
    n = len(files)
    if n == 1:
        if traditional or files[0][:1] == "+":
            skip = _old_offset(files[0])
            if skip is not None:
                files = []
    elif n == 2:
        last = files[1]
        if traditional or last[:1] == "+" or last[:1].isdigit():
            second = _old_offset(last)
            if second is not None:
                first = _old_offset(files[0]) if traditional else None
                if first is not None:
                    skip, label, files = first, second, []
                else:
                    skip, files = second, files[:1]
    elif n == 3 and traditional:
        first, second = _old_offset(files[1]), _old_offset(files[2])
        if first is not None and second is not None:
            skip, label, files = first, second, files[:1]
    return files, skip, label


def file_operands(opts: Parsed, operands: list[str]) -> list[str]:
    """The operands od reads as files (the static check's model: an offset operand is no file)."""
    return split_operands(operands, bool(opts.get("traditional")), _modern(opts))[0]


def _modern(opts: Parsed) -> bool:
    return any(key in _MODERN for key, _value in opts.order)


@declare(
    "od",
    spec=OD_SPEC,
    effects=Effects.OD,
    stdin_close="standard input",
    # (od checks its own writes after close_stdout has spoken)
    write_failure=WriteFailure(in_flight="{name}: write error{close_err}\n{name}: write error: {err}\n"),
)
def cmd_od(ctx: Ctx) -> int:
    opts, files = ctx.parse(OD_SPEC)
    specs: list[Spec] = []
    radix = "o"
    endian = "little"
    skip = 0
    limit: int | None = None
    strings: int | None = None
    width: int | None = None
    # GNU's option loop: each value is checked as it is met, so the first bad one is reported.
    for key, value in opts.order:
        if key == "format":
            specs += _parse_type(ctx, value)
        elif key in _LEGACY:
            specs += _parse_type(ctx, _LEGACY[key])
        elif key == "address_radix":
            radix = value
            if radix not in ("o", "d", "x", "n"):
                ctx.error(f"invalid output address radix '{radix}'; it must be one character from [doxn]")
                raise CommandExit(1)
        elif key == "endian":
            endian = value
            if endian not in ("big", "little"):
                raise usage_fail(ctx, f"invalid argument {quote(ctx, endian)} for {quote(ctx, '--endian')}")
        elif key in _NUMERIC:
            number = (
                32
                if key in ("w", "width") and value is None
                else 3
                if value is None
                else _num(ctx, value, key)
            )
            if key in ("j", "skip_bytes"):
                skip = number
            elif key in ("N", "read_bytes"):
                limit = number
            elif key in ("S", "strings"):
                strings = number
            else:
                width = number
    traditional = bool(opts.get("traditional"))
    files, old_skip, label = split_operands(files, traditional, _modern(opts))
    if traditional and len(files) > 1:
        ctx.error(f"extra operand {quote(ctx, files[1])}")
        raise usage_fail(ctx, "compatibility mode supports at most one file")
    delta = None if label is None or old_skip is None else label - old_skip
    if old_skip is not None:
        skip = old_skip
    addresses = _Addresses(radix, delta)
    if strings is not None and specs:
        ctx.error("no type may be specified when dumping strings")
        raise CommandExit(1)
    if not specs:
        specs = _parse_type(ctx, "o2")
    lcm = math.lcm(*(s.size for s in specs))
    warning = None
    if width is None:
        width = lcm if strings is not None else 16
    elif width == 0 or width % lcm:  # (0 is no width at all: GNU takes the smallest too)
        warning = f"warning: invalid width {width}; using {lcm} instead"
        width = lcm
    per_block_width = max((s.width + 1) * (width // s.size) for s in specs)
    for s in specs:
        s.pad = per_block_width - s.width * (width // s.size)

    # GNU computes the width once the first input is open and skipped into: no warning before
    # the open errors, none when the skip fails.
    def warn() -> None:
        if warning:
            ctx.error(warning)

    reader = _Blocks(ctx, files, skip, limit, warn)
    out = Out(ctx.stdout)
    if strings is not None:
        _dump_strings(ctx, reader, out, addresses, skip, limit, strings)
    else:
        _dump(ctx, reader, out, opts.get("output_duplicates"), specs, addresses, skip, width, endian)
    if reader.unskipped:
        out.flush()
        ctx.error("cannot skip past end of combined input")
        return 1
    out.flush()
    return reader.inputs.status


def _dump(
    ctx: Ctx,
    reader: _Blocks,
    out: Out,
    dups: bool,
    specs: list[Spec],
    addresses: _Addresses,
    skip: int,
    width: int,
    endian: str,
) -> None:
    prev: bytes | None = None
    starred = False
    pos = 0
    for block in reader.blocks(width):
        ctx.checkpoint()
        if not dups and block == prev and len(block) == width:
            if not starred:
                out.write(b"*\n")
                starred = True
            pos += len(block)
            continue
        starred = False
        prev = block
        for k, spec in enumerate(specs):
            addr = addresses.text(skip + pos) if k == 0 else addresses.pad
            out.write((addr + _line(spec, block, width, endian) + "\n").encode())
        pos += len(block)
    if addresses.shown and reader.inputs.opened and not reader.unskipped:
        out.write((addresses.text(skip + pos) + "\n").encode())


def _dump_strings(
    ctx: Ctx, reader: _Blocks, out: Out, addresses: _Addresses, skip: int, limit: int | None, least: int
) -> None:
    """-S: each run of at least `least` printable bytes that a NUL ends (or the -N limit), after its
    address, as GNU's dump_strings. A run is held until its end: charged to memory."""
    end = None if limit is None else skip + limit
    address = skip
    data = (byte for chunk in reader.chunks() for byte in chunk)
    run = bytearray()
    with ctx.hold_memory() as mem:
        while end is None or (end >= least and end - least > address):
            run.clear()
            printable = True
            for _ in range(least):  # the first `least` bytes must all be printable
                byte = next(data, -1)
                address += 1
                if byte < 0:
                    return
                if not 32 <= byte < 127:
                    printable = False
                    break
                run.append(byte)
            while printable and (end is None or address < end):  # then up to a NUL
                byte = next(data, -1)
                address += 1
                if byte < 0:
                    return
                if byte == 0:
                    break
                printable = 32 <= byte < 127
                run.append(byte)
                mem.set(len(run))
            if printable:
                if addresses.shown:  # (GNU's formula: one short when the -N limit ended the run)
                    out.write((addresses.text((address - len(run) - 1) % 2**64) + " ").encode())
                out.write(bytes(run) + b"\n")


# The numeric options by key, with the spelling their errors name.
_NUMERIC = {
    "j": "-j",
    "skip_bytes": "--skip-bytes",
    "N": "-N",
    "read_bytes": "--read-bytes",
    "S": "-S",
    "strings": "--strings",
    "w": "-w",
    "width": "--width",
}


def _num(ctx: Ctx, text: str, key: str) -> int:
    """GNU od's numbers: xstrtoumax in base 0 with its multipliers (`0x1G`, `1KiB`, `2b`)."""
    wide = key in ("w", "width")  # (-w is read in base 10, with no multiplier)
    value, problem = xstrtoumax(text, "" if wide else "bEGKkMmPTYZ0", base0=not wide)
    if problem:
        raise xstrtol_fatal(ctx, problem, _NUMERIC[key], text)
    return value


class _Blocks:
    """Fixed-size blocks of the inputs concatenated, after -j, at most -N bytes."""

    def __init__(
        self, ctx: Ctx, files: list[str], skip: int, limit: int | None, ready: Callable[[], None]
    ) -> None:
        self.ctx = ctx
        self.inputs = ctx.inputs(files)
        self.inputs.stdin_name = "standard input"
        self.unskipped = skip
        self.left = limit
        self.ready: Callable[[], None] | None = ready  # called once an input is open and skipped into

    def _started(self) -> None:
        if self.ready is not None and not self.unskipped:
            self.ready()
            self.ready = None

    def chunks(self) -> Iterator[bytes]:
        ctx = self.ctx
        inputs = self.inputs
        for _name, stream in inputs:
            with inputs.reading():
                self._started()
                for chunk in stream.chunks():
                    ctx.checkpoint((len(chunk) >> 12) + 1)
                    if self.unskipped:
                        if len(chunk) <= self.unskipped:
                            self.unskipped -= len(chunk)
                            self._started()
                            continue
                        chunk = chunk[self.unskipped :]
                        self.unskipped = 0
                        self._started()
                    if self.left is not None:
                        chunk = chunk[: self.left]
                        self.left -= len(chunk)
                    if chunk:
                        yield chunk
                    if self.left is not None and self.left <= 0:
                        return

    def blocks(self, width: int) -> Iterator[bytes]:
        buf = b""
        for chunk in self.chunks():
            buf += chunk
            if len(buf) >= width:
                cut = len(buf) - len(buf) % width
                for i in range(0, cut, width):
                    yield buf[i : i + width]
                buf = buf[cut:]
        if buf:
            yield buf
