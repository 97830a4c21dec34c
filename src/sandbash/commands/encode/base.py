"""base64, base32, basenc (streaming encode/decode, GNU wrapping and errors) and strings."""

from __future__ import annotations

import base64
import binascii
import errno
import re
from collections.abc import Callable

from ...stdio.streams import StreamReadError
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt, help_text
from ..record import WRITE_ERROR_TWICE, Effects, declare
from ..textbasic.common import (
    Out,
    quote,
    read_chunks,
    read_held,
    usage_fail,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass


@dataclass(frozen=True)
class Codec:
    name: str
    group_in: int  # bytes per encoding unit
    group_out: int  # characters per unit
    encode: Callable[[bytes], bytes]
    decode: Callable[[bytes], bytes]  # a whole number of units; raises ValueError
    alphabet: bytes
    pad: bool = True


def _b64url_dec(s: bytes) -> bytes:
    return base64.b64decode(s.replace(b"-", b"+").replace(b"_", b"/"), validate=True)


def _b32hex_dec(s: bytes) -> bytes:
    return base64.b32hexdecode(s)


def _b2msb_enc(data: bytes) -> bytes:
    return "".join(f"{b:08b}" for b in data).encode()


def _b2msb_dec(s: bytes) -> bytes:
    return bytes(int(s[i : i + 8], 2) for i in range(0, len(s), 8))


def _b2lsb_enc(data: bytes) -> bytes:
    return "".join(f"{b:08b}"[::-1] for b in data).encode()


def _b2lsb_dec(s: bytes) -> bytes:
    return bytes(int(s[i : i + 8][::-1], 2) for i in range(0, len(s), 8))


_Z85 = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_Z85_INV = {c: i for i, c in enumerate(_Z85)}


def _z85_enc(data: bytes) -> bytes:
    if len(data) % 4:
        raise ValueError("z85 input length not a multiple of 4")
    out = bytearray()
    for i in range(0, len(data), 4):
        v = int.from_bytes(data[i : i + 4], "big")
        chunk = bytearray()
        for _ in range(5):
            v, r = divmod(v, 85)
            chunk.append(_Z85[r])
        out += chunk[::-1]
    return bytes(out)


def _z85_dec(s: bytes) -> bytes:
    out = bytearray()
    for i in range(0, len(s), 5):
        v = 0
        for c in s[i : i + 5]:
            if c not in _Z85_INV:
                raise ValueError("bad z85")
            v = v * 85 + _Z85_INV[c]
        if v >= 1 << 32:
            raise ValueError("bad z85")
        out += v.to_bytes(4, "big")
    return bytes(out)


_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_B32 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567="
CODECS = {
    "base64": Codec("base64", 3, 4, base64.b64encode, lambda s: base64.b64decode(s, validate=True), _B64),
    "base64url": Codec("base64url", 3, 4, base64.urlsafe_b64encode, _b64url_dec, _B64.replace(b"+/", b"-_")),
    "base32": Codec("base32", 5, 8, base64.b32encode, base64.b32decode, _B32),
    "base32hex": Codec(
        "base32hex", 5, 8, base64.b32hexencode, _b32hex_dec, b"0123456789ABCDEFGHIJKLMNOPQRSTUV="
    ),
    "base16": Codec(
        "base16",
        1,
        2,
        lambda d: d.hex().upper().encode(),
        lambda s: base64.b16decode(s),
        b"0123456789ABCDEF",
        False,
    ),
    "base2msbf": Codec("base2msbf", 1, 8, _b2msb_enc, _b2msb_dec, b"01", False),
    "base2lsbf": Codec("base2lsbf", 1, 8, _b2lsb_enc, _b2lsb_dec, b"01", False),
    "z85": Codec("z85", 4, 5, _z85_enc, _z85_dec, _Z85, False),
}

_COMMON_OPTS = (
    Opt("d", "decode", help="decode data"),
    Opt("i", "ignore-garbage", help="when decoding, ignore non-alphabet characters"),
    Opt(
        "w",
        "wrap",
        arg="required",
        metavar="COLS",
        help="wrap encoded lines after COLS character (default 76)",
    ),
)


def _spec(name: str, extra: tuple[Opt, ...] = ()) -> CommandSpec:
    return CommandSpec(
        name=name,
        usage="[OPTION]... [FILE]",
        summary=f"{name} encode or decode FILE, or standard input, to standard output.",
        opts=extra + _COMMON_OPTS,
    )


BASE64_SPEC = _spec("base64")
BASE32_SPEC = _spec("base32")
BASENC_SPEC = _spec(
    "basenc", tuple(Opt(None, n, dest="codec", const=n, help=f"{n} encoding") for n in CODECS)
)


def _run(ctx: Ctx, codec: Codec, opts: object, files: list[str]) -> int:
    get = opts.get  # type: ignore[attr-defined]
    if len(files) > 1:
        raise usage_fail(ctx, f"extra operand {quote(ctx, files[1])}")
    wrap = 76
    if get("wrap") is not None:
        text = get("wrap")
        try:
            wrap = int(text)
            if wrap < 0:
                raise ValueError
        except ValueError:
            ctx.error(f"invalid wrap size: {quote(ctx, text)}")
            raise CommandExit(1)
    out = Out(ctx.stdout)
    status = 0
    inputs = ctx.inputs(files[:1], read_error="read error: {err}")
    for _name, stream in inputs:
        with inputs.reading():
            try:
                if get("decode"):
                    status = _decode(ctx, codec, stream, out, bool(get("ignore_garbage")))
                else:
                    _encode(ctx, codec, stream, out, wrap)
            finally:
                out.flush()
    return inputs.status or status


def _encode(ctx: Ctx, codec: Codec, stream: object, out: Out, wrap: int) -> None:
    pending = b""
    col = 0
    wrote = False

    def emit(text: bytes) -> None:
        nonlocal col, wrote
        if not text:
            return
        wrote = True
        if not wrap:
            out.write(text)
            return
        pos = 0
        while pos < len(text):
            take = min(wrap - col, len(text) - pos)
            out.write(text[pos : pos + take])
            pos += take
            col += take
            if col == wrap:
                out.write(b"\n")
                col = 0

    for chunk in read_chunks(ctx, stream):  # type: ignore[arg-type]
        pending += chunk
        cut = len(pending) - len(pending) % codec.group_in
        if cut and codec.name != "z85":  # z85 fails whole when the length is wrong
            emit(codec.encode(pending[:cut]))
            pending = pending[cut:]
    if pending:
        if codec.name == "z85" and len(pending) % 4:
            out.flush()
            ctx.error("invalid input (length must be multiple of 4 characters)")
            raise CommandExit(1)
        emit(codec.encode(pending))
    if wrote and wrap and col:
        out.write(b"\n")


def _decode(ctx: Ctx, codec: Codec, stream: object, out: Out, ignore: bool) -> int:
    keep = re.compile(b"[^" + re.escape(codec.alphabet) + b"]")
    buf = b""
    unit = codec.group_out
    for chunk in read_chunks(ctx, stream):  # type: ignore[arg-type]
        chunk = chunk.replace(b"\n", b"")
        if ignore:
            chunk = keep.sub(b"", chunk)
        buf += chunk
        cut = len(buf) - len(buf) % (unit * 1024)
        if cut:
            if not _decode_units(codec, buf[:cut], out):
                return _invalid(ctx, out)
            buf = buf[cut:]
    usable = len(buf) - len(buf) % unit
    if not _decode_units(codec, buf[:usable], out):
        return _invalid(ctx, out)
    rest = buf[usable:]
    if rest:
        out.write(_partial_unit(codec, rest))  # an unfinished last unit: what it completes
        return _invalid(ctx, out)
    return 0


def _decode_units(codec: Codec, data: bytes, out: Out) -> bool:
    """Decode whole units; padding may end any unit. False at the first bad unit."""
    if not data:
        return True
    try:
        if not codec.pad or b"=" not in data[: -codec.group_out]:
            out.write(codec.decode(data))
            return True
    except (ValueError, binascii.Error):
        pass
    unit = codec.group_out
    for i in range(0, len(data), unit):
        try:
            out.write(codec.decode(data[i : i + unit]))
        except (ValueError, binascii.Error):
            out.write(_partial_unit(codec, data[i : i + unit]))
            return False
    return True


def _partial_unit(codec: Codec, group: bytes) -> bytes:
    """The bytes gnulib's decoder writes of a bad unit before failing: those its leading valid
    characters complete (`ab!` gives one byte, `abc!` two; a padded `ab=` one). Of an
    unfinished last unit only base64's decoder writes anything."""
    if not codec.pad or (len(group) < codec.group_out and codec.group_out != 4):
        return b""
    k = 0
    while k < len(group) and group[k : k + 1] != b"=" and group[k] in codec.alphabet:
        k += 1
    for j in range(k, 1, -1):  # the longest prefix the codec decodes once padded
        try:
            return codec.decode(group[:j] + b"=" * (codec.group_out - j))
        except (ValueError, binascii.Error):
            continue
    return b""


def _invalid(ctx: Ctx, out: Out) -> int:
    out.flush()
    ctx.error("invalid input")
    return 1


@declare("base64", spec=BASE64_SPEC, effects=Effects.READS, write_failure=WRITE_ERROR_TWICE)
def cmd_base64(ctx: Ctx) -> int:
    opts, files = ctx.parse(BASE64_SPEC)
    return _run(ctx, CODECS["base64"], opts, files)


@declare("base32", spec=BASE32_SPEC, effects=Effects.READS, write_failure=WRITE_ERROR_TWICE)
def cmd_base32(ctx: Ctx) -> int:
    opts, files = ctx.parse(BASE32_SPEC)
    return _run(ctx, CODECS["base32"], opts, files)


@declare(
    "basenc",
    spec=BASENC_SPEC,
    uses=("base32", "base64"),
    effects=Effects.READS,
    write_failure=WRITE_ERROR_TWICE,
)
def cmd_basenc(ctx: Ctx) -> int:
    opts, files = ctx.parse(BASENC_SPEC)
    name = opts.get("codec")
    if name is None:
        raise usage_fail(ctx, "missing encoding type")
    return _run(ctx, CODECS[name], opts, files)


# ------------------------------------------------------------------ strings

# strings' printable runs (binutils): tab and ASCII graphic/space, plus \n\r\v\f with -w, plus
# bytes 128-255 with -e S; per (-w, -e S): the runs of at least 4 bytes (the default -n) and any runs
_PRINTABLE_RUNS: dict[tuple[bool, bool], tuple[re.Pattern[bytes], re.Pattern[bytes]]] = {
    (False, False): (re.compile(rb"[\t\x20-\x7e]{4,}"), re.compile(rb"[\t\x20-\x7e]+")),
    (True, False): (re.compile(rb"[\t\n\r\v\f\x20-\x7e]{4,}"), re.compile(rb"[\t\n\r\v\f\x20-\x7e]+")),
    (False, True): (re.compile(rb"[\t\x20-\x7e\x80-\xff]{4,}"), re.compile(rb"[\t\x20-\x7e\x80-\xff]+")),
    (True, True): (
        re.compile(rb"[\t\n\r\v\f\x20-\x7e\x80-\xff]{4,}"),
        re.compile(rb"[\t\n\r\v\f\x20-\x7e\x80-\xff]+"),
    ),
}

# -e b/l/B/L: a character is 2 or 4 bytes, big- or little-endian, and a string's characters are the
# 7-bit ones (tab, graphic, space; \n\r\v\f too with -w) with their other bytes zero. Per letter:
# its width, where its byte is, and its runs (without -w, with -w)
_WIDE: dict[str, tuple[int, int, tuple[re.Pattern[bytes], re.Pattern[bytes]]]] = {
    "b": (
        2,
        1,
        (re.compile(rb"(?:\x00[\t\x20-\x7e])+"), re.compile(rb"(?:\x00[\t\n\r\v\f\x20-\x7e])+")),
    ),
    "l": (
        2,
        0,
        (re.compile(rb"(?:[\t\x20-\x7e]\x00)+"), re.compile(rb"(?:[\t\n\r\v\f\x20-\x7e]\x00)+")),
    ),
    "B": (
        4,
        3,
        (
            re.compile(rb"(?:\x00\x00\x00[\t\x20-\x7e])+"),
            re.compile(rb"(?:\x00\x00\x00[\t\n\r\v\f\x20-\x7e])+"),
        ),
    ),
    "L": (
        4,
        0,
        (
            re.compile(rb"(?:[\t\x20-\x7e]\x00\x00\x00)+"),
            re.compile(rb"(?:[\t\n\r\v\f\x20-\x7e]\x00\x00\x00)+"),
        ),
    ),
}


STRINGS_SPEC = CommandSpec(
    name="strings",
    usage="[option(s)] [file(s)]",
    summary="Display printable strings in [file(s)] (stdin by default)",
    numeric="bytes",
    opts=(
        Opt("a", "all", help="scan the entire file"),
        Opt("d", "data", help="only scan the data sections (the whole file here)"),
        Opt("f", "print-file-name", help="print the name of the file before each string"),
        Opt(
            "n",
            "bytes",
            arg="required",
            metavar="number",
            help="locate & print any sequence of at least N chars",
        ),
        Opt("t", "radix", arg="required", metavar="{o,d,x}", help="print the location of the string"),
        Opt("o", None, dest="octal", help="an alias for --radix=o"),
        Opt("w", "include-all-whitespace", help="include all whitespace as valid string characters"),
        Opt(
            "e",
            "encoding",
            arg="required",
            metavar="{s,S,b,l,B,L}",
            help="select character size and endianness",
        ),
        Opt(
            "s",
            "output-separator",
            arg="required",
            metavar="<string>",
            help="string used to separate strings",
        ),
    ),
)


@declare("strings", spec=STRINGS_SPEC, effects=Effects.READS)
def cmd_strings(ctx: Ctx) -> int:
    opts, operands = ctx.parse(STRINGS_SPEC)
    # binutils reads an operand `-` as the old spelling of -a (scan the whole file), not as stdin;
    # operands that are all `-` leave no file, which is its usage error
    files = [name for name in operands if name != "-"]
    if operands and not files:
        ctx.stderr.write(help_text(STRINGS_SPEC).encode())
        return 1
    try:
        minimum = int(opts.get("bytes", "4"))
        if minimum < 1:
            raise ValueError
    except ValueError:
        ctx.error(f"invalid minimum string length {opts.get('bytes')}")
        return 1
    radix = "o" if opts.get("octal") else opts.get("radix")
    if radix is not None and radix not in ("o", "d", "x"):
        ctx.error("invalid radix")
        return 1
    encoding = opts.get("encoding", "s")
    whitespace = bool(opts.get("include_all_whitespace"))
    if encoding not in ("s", "S", *_WIDE):
        ctx.stderr.write(help_text(STRINGS_SPEC).encode())  # (binutils: its usage, status 1)
        return 1
    width, at = 1, 0
    if encoding in _WIDE:
        width, at, wide_runs = _WIDE[encoding]
        pattern = wide_runs[whitespace]
    else:
        runs = _PRINTABLE_RUNS[(whitespace, encoding == "S")]
        # the pattern is fixed; -n filters the runs (a count such as -n 99999999999 sized a repetition)
        pattern = runs[0] if minimum >= 4 else runs[1]
    sep = (opts.get("output_separator") or "\n").encode()
    out = Out(ctx.stdout)
    # binutils' words; a directory is a warning (status 1)
    inputs = ctx.inputs(
        files,
        "Warning: could not locate '{name}'.  reason: {err}",
        "Warning: '{name}' is a directory",
        out.flush,
    )
    inputs.open_errors[errno.ENOENT] = "'{name}': No such file"
    for name, stream in inputs:
        with (
            ctx.hold_memory() as mem,
            inputs.reading(),
        ):  # held whole: max_memory bounds it (strings /dev/zero)
            try:
                data = read_held(ctx, stream, mem)
            except StreamReadError:
                if files:
                    raise
                data = b""  # (stdin is read with getc, and a failed read is its end: `strings < dir`)
            shown = "{standard input}" if not files else name  # (binutils' name for stdin)
            prefix = (shown + ": ").encode() if opts.get("print_file_name") else b""
            for m in pattern.finditer(data):
                if m.end() - m.start() < minimum * width:
                    continue
                loc = b""
                if radix is not None:
                    loc = ({"o": "%7o ", "d": "%7d ", "x": "%7x "}[radix] % m.start()).encode()
                text = m.group() if width == 1 else m.group()[at::width]
                out.write(prefix + loc + text + sep)
    out.flush()
    return inputs.status
