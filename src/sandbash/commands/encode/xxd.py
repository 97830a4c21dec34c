"""xxd (vim 9.0) and hexdump (util-linux 2.38) dumps."""

from __future__ import annotations

import errno
import re
from collections.abc import Iterator

from ...limits import LimitExceeded, LimitKind, MemoryHold
from ...stdio.streams import DirStream, Stream, StreamError, StreamReadError
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..inputs import Inputs
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, WriteFailure, declare
from ..textbasic.common import Out, close_input, decode, encode, read_chunks
from .od import C_ESCAPES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .hexfmt import Program

XXD_SPEC = CommandSpec(
    name="xxd",
    usage="[options] [infile [outfile]]",
    summary="Make a hexdump or do the reverse.",
    add_help=False,  # xxd's own -h and -v: its usage on stderr, its version line
    opts=(
        Opt("h", "help", dest="usage", help="print this summary"),
        Opt("v", "version", help="show version"),
        Opt("a", "autoskip", help="toggle autoskip: A single '*' replaces nul-lines"),
        Opt("b", "bits", help="binary digit dump"),
        Opt("C", "capitalize", help="capitalize variable names in C include file style (-i)"),
        Opt("c", "cols", arg="required", metavar="cols", help="format <cols> octets per line"),
        Opt("E", "EBCDIC", help="show characters in EBCDIC"),
        Opt("e", None, dest="little", help="little-endian dump"),
        Opt("g", "groupsize", arg="required", metavar="bytes", help="number of octets per group"),
        Opt("i", "include", help="output in C include file style"),
        Opt("l", "len", arg="required", metavar="len", help="stop after <len> octets"),
        Opt(
            "n", "name", arg="required", metavar="name", help="set the variable name used in C include output"
        ),
        Opt("o", "offset", arg="required", metavar="off", help="add <off> to the displayed file position"),
        Opt("p", "ps", dest="plain", help="output in postscript plain hexdump style"),
        Opt("r", "revert", help="reverse operation: convert (or patch) hexdump into binary"),
        Opt(
            "s", "seek", arg="required", metavar="[+][-]seek", help="start at <seek> bytes abs. infile offset"
        ),
        Opt("u", None, dest="upper", help="use upper case hex letters"),
        Opt("d", None, dest="decimal", help="show offset in decimal instead of hex"),
    ),
)


# xxd's usage(), printed on stderr for -h and for any option it cannot read (status 1)
_USAGE = (
    "Usage:\n"
    "       xxd [options] [infile [outfile]]\n"
    "    or\n"
    "       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\n"
    "Options:\n"
    "    -a          toggle autoskip: A single '*' replaces nul-lines. Default off.\n"
    "    -b          binary digit dump (incompatible with -ps,-i,-r). Default hex.\n"
    "    -C          capitalize variable names in C include file style (-i).\n"
    "    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).\n"
    "    -E          show characters in EBCDIC. Default ASCII.\n"
    "    -e          little-endian dump (incompatible with -ps,-i,-r).\n"
    "    -g bytes    number of octets per group in normal output. Default 2 (-e: 4).\n"
    "    -h          print this summary.\n"
    "    -i          output in C include file style.\n"
    "    -l len      stop after <len> octets.\n"
    "    -n name     set the variable name used in C include output (-i).\n"
    "    -o off      add <off> to the displayed file position.\n"
    "    -ps         output in postscript plain hexdump style.\n"
    "    -r          reverse operation: convert (or patch) hexdump into binary.\n"
    "    -r -s off   revert with <off> added to file positions found in hexdump.\n"
    "    -d          show offset in decimal instead of hex.\n"
    "    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile offset.\n"
    "    -u          use upper case hex letters.\n"
    '    -v          show version: "xxd 2022-01-14 by Juergen Weigert et al.".\n'
)
_VERSION = "xxd 2022-01-14 by Juergen Weigert et al.\n"


# xxd reads its options itself (not getopt): each word is one option, matched by its first two
# characters, so `-ps`, `-postscript` and `-plain` are -p, `--cols` is -c; a value option takes
# the rest of its word (`-c8`) unless that spells its long name (`-cols 8`, `-len 4`)
_FLAGS = {
    "b": "bits",
    "e": "little",
    "u": "upper",
    "p": "plain",
    "i": "include",
    "C": "capitalize",
    "d": "decimal",
    "r": "revert",
    "E": "EBCDIC",
}
_VALUED = {
    "c": ("cols", "ols"),
    "g": ("groupsize", "roup"),
    "o": ("offset", "ffset"),
    "l": ("len", "en"),
    "n": ("name", "ame"),
    "s": ("seek", ""),
}


def _usage(ctx: Ctx) -> CommandExit:
    ctx.stderr.write(_USAGE.encode())
    return CommandExit(1)


def _parse(ctx: Ctx) -> tuple[Parsed, list[str]]:
    """xxd.c's option loop: its usage (status 1) for an unknown option, a missing value or -h."""
    opts = Parsed()
    args = list(ctx.args)
    i = 0
    while i < len(args) and args[i].startswith("-"):
        word = args[i]
        pp = word[1:] if word.startswith("--") and len(word) > 2 else word
        letter = pp[1:2]
        rest = pp[2:]
        if pp == "--":
            i += 1
            break
        if letter == "a":
            opts.values["autoskip"] = not opts.values.get("autoskip", False)
        elif letter in _FLAGS:
            opts.values[_FLAGS[letter]] = True
        elif letter == "v":
            ctx.stderr.write(_VERSION.encode())
            raise CommandExit(0)
        elif letter == "c" and rest.startswith("apitalize"):
            opts.values["capitalize"] = True
        elif letter in _VALUED:
            key, long_rest = _VALUED[letter]
            spelled_long = rest.startswith(("kip", "eek")) if letter == "s" else rest.startswith(long_rest)
            if rest and not spelled_long:
                opts.values[key] = rest
            else:
                if i + 1 >= len(args):
                    raise _usage(ctx)
                i += 1
                opts.values[key] = args[i]
        elif word == "-":
            break
        else:  # -h and anything else
            raise _usage(ctx)
        i += 1
    operands = args[i:]
    if len(operands) > 2:
        raise _usage(ctx)
    return opts, operands


def _xxd_num(ctx: Ctx, text: str) -> int:
    t = text.strip()
    try:
        return int(t, 0) if not re.fullmatch(r"[+-]?0[0-7]+", t) else int(t, 8)
    except ValueError:
        m = re.match(r"[+-]?\d+", t)
        return int(m.group()) if m else 0


def _read_all(ctx: Ctx, stream: Stream, mem: MemoryHold) -> bytes:
    """The whole input (only for a seek from its end), charged as it is read (twice: the
    pieces and their join)."""
    parts: list[bytes] = []
    for chunk in read_chunks(ctx, stream):
        mem.charge(2 * len(chunk))
        parts.append(chunk)
    return b"".join(parts)


def _window(chunks: Iterator[bytes], skip: int, limit: int | None) -> Iterator[bytes]:
    """Input chunks after the first `skip` bytes, `limit` bytes in all."""
    for chunk in chunks:
        if skip:
            if len(chunk) <= skip:
                skip -= len(chunk)
                continue
            chunk, skip = chunk[skip:], 0
        if limit is not None:
            chunk = chunk[:limit]
            limit -= len(chunk)
        if chunk:
            yield chunk
        if limit == 0:
            return


def _blocks(chunks: Iterator[bytes], width: int) -> Iterator[bytes]:
    """Blocks of `width` bytes (the last may be short)."""
    buf = b""
    for chunk in chunks:
        buf = buf + chunk if buf else chunk
        cut = len(buf) - len(buf) % width
        for i in range(0, cut, width):
            yield buf[i : i + width]
        buf = buf[cut:]
    if buf:
        yield buf


def _die(ctx: Ctx, message: str, status: int) -> CommandExit:
    ctx.error(message)
    return CommandExit(status)


@declare(
    "xxd",
    spec=XXD_SPEC,
    effects=Effects.IN_OUT,
    write_failure=WriteFailure(status=3, at_exit="{name}: {err}\n"),
)
def cmd_xxd(ctx: Ctx) -> int:
    opts, operands = _parse(ctx)
    if len(operands) > 2:
        raise _die(ctx, "too many arguments", 1)
    in_name = operands[0] if operands else "-"
    stream: Stream
    try:
        stream = ctx.open_in(in_name)
    except FsError as e:
        if e.errno != errno.EISDIR:
            raise _die(ctx, f"{in_name}: {strerror(e.errno or 5)}", 2)
        stream = DirStream()  # a directory opens; its first read fails

    out_stream = ctx.stdout
    if len(operands) == 2 and operands[1] != "-":
        try:
            out_stream = ctx.open_out(operands[1])
        except FsError as e:
            raise _die(ctx, f"{operands[1]}: {strerror(e.errno or 5)}", 3)
    out = Out(out_stream)
    try:
        if opts.get("revert"):
            base = _xxd_num(ctx, opts.get("seek")) if opts.get("seek") is not None else 0
            _revert(ctx, stream, out, bool(opts.get("plain")), base)
        else:
            _dump(ctx, stream, out, opts, in_name)
    except StreamReadError as e:  # xxd names no file; -r reads with getc(): an end, silent, 0
        if opts.get("revert"):
            return 0
        out.flush()
        ctx.error(strerror(e.errno or 5))
        return 2
    finally:
        close_input(ctx, in_name, stream)
        out.flush()
        if out_stream is not ctx.stdout:
            out_stream.close()
    return 0


def _dump(ctx: Ctx, stream: Stream, out: Out, opts: object, in_name: str) -> None:
    with ctx.hold_memory() as mem:
        _dump_held(ctx, stream, out, opts, in_name, mem)


def _dump_held(ctx: Ctx, stream: Stream, out: Out, opts: object, in_name: str, mem: MemoryHold) -> None:
    get = opts.get  # type: ignore[attr-defined]
    limit = _xxd_num(ctx, get("len")) if get("len") is not None else None
    seek = _xxd_num(ctx, get("seek")) if get("seek") is not None else 0
    source: Iterator[bytes]
    if seek < 0:  # from the end: the only case that needs the whole input
        whole = _read_all(ctx, stream, mem)
        seek = max(len(whole) + seek, 0)
        source = _window(iter([whole]), seek, limit)
    else:
        source = _window(read_chunks(ctx, stream), seek, limit)
    upper = bool(get("upper"))
    hexfmt = "%02X" if upper else "%02x"
    if get("plain"):
        cols = _xxd_num(ctx, get("cols")) if get("cols") else 30
        if cols <= 0:  # all on one line
            wrote = False
            for chunk in source:
                out.write((chunk.hex().upper() if upper else chunk.hex()).encode())
                wrote = True
            if wrote:
                out.write(b"\n")
            return
        for line in _blocks(source, cols):
            out.write((line.hex().upper() if upper else line.hex()).encode() + b"\n")
        return
    if get("include"):
        _include(ctx, out, source, get, in_name, hexfmt)
        return
    bits = bool(get("bits"))
    little = bool(get("little"))
    cols = _xxd_num(ctx, get("cols")) if get("cols") else (6 if bits else 16)
    group = (
        _xxd_num(ctx, get("groupsize"))
        if get("groupsize") is not None
        else (1 if bits else 4 if little else 2)
    )
    if group <= 0:
        group = cols
    offset = _xxd_num(ctx, get("offset")) if get("offset") else 0
    width = 2 * cols if not bits else 8 * cols
    hex_width = width + (cols + group - 1) // group
    zero_run = 0
    held = b""
    for index, line in enumerate(_blocks(source, cols)):
        pos = index * cols
        ctx.checkpoint()
        if get("autoskip") and len(line) == cols and not any(line):
            zero_run += 1
            if zero_run == 2:
                held = _xxd_line(
                    line, pos, seek + offset, group, hexfmt, bits, little, hex_width, get("decimal")
                )
                continue
            if zero_run > 2:
                continue
        else:
            if zero_run == 2:
                out.write(held)
            elif zero_run > 2:
                out.write(b"*\n")
            zero_run = 0
        out.write(_xxd_line(line, pos, seek + offset, group, hexfmt, bits, little, hex_width, get("decimal")))


def _xxd_line(
    line: bytes,
    pos: int,
    base: int,
    group: int,
    hexfmt: str,
    bits: bool,
    little: bool,
    hex_width: int,
    decimal: bool,
) -> bytes:
    groups = []
    for g in range(0, len(line), group):
        chunk = line[g : g + group]
        if bits:
            groups.append(" ".join(f"{b:08b}" for b in chunk))
        elif little:
            text = "".join(hexfmt % b for b in reversed(chunk))
            groups.append(text.rjust(2 * group))
        else:
            groups.append("".join(hexfmt % b for b in chunk))
    hexpart = " ".join(groups)
    ascii_part = "".join(chr(b) if 32 <= b < 127 else "." for b in line)
    addr = f"{pos + base:08d}" if decimal else f"{pos + base:08x}"
    return f"{addr}: {hexpart.ljust(hex_width)} {ascii_part}\n".encode()


def _include(ctx: Ctx, out: Out, source: Iterator[bytes], get: object, in_name: str, hexfmt: str) -> None:
    fetch = get  # a Parsed.get
    cols = int(fetch("cols")) if fetch("cols") else 12  # type: ignore[operator]
    name = fetch("name") or ("" if in_name == "-" else in_name)  # type: ignore[operator]
    var = re.sub(r"[^0-9A-Za-z]", "_", name)
    if var[:1].isdigit():
        var = "__" + var
    if fetch("capitalize"):  # type: ignore[operator]
        var = var.upper()
    if var:
        out.write(f"unsigned char {var}[] = {{\n".encode())
    fmt = "0x" + hexfmt
    total = 0
    for line in _blocks(source, max(cols, 1)):
        ctx.checkpoint()
        out.write(((",\n  " if total else "  ") + ", ".join(fmt % b for b in line)).encode())
        total += len(line)
    if total:
        out.write(b"\n")
    if var:
        suffix = "LEN" if fetch("capitalize") else "len"  # type: ignore[operator]
        out.write(f"}};\nunsigned int {var}_{suffix} = {total};\n".encode())


# output `xxd -r` keeps in memory so that a line may go back over it (beyond it, xxd
# says what it says on a pipe: it cannot seek backwards)
_WINDOW = 1 << 20
_STEP = 64 * 1024


class _Window:
    """The tail of `xxd -r` output, written forward as the offsets advance: memory stays
    bounded whatever the offsets, and a jump past max_string_length is refused."""

    def __init__(self, ctx: Ctx, out: Out, mem: MemoryHold) -> None:
        self.ctx, self.out, self.mem = ctx, out, mem
        self.buf = bytearray()
        self.base = 0
        self.cap = ctx.limits.max_string_length

    def put(self, offset: int, data: bytes) -> None:
        end = self.base + len(self.buf)
        if offset < self.base:
            self.flush()
            raise _die(self.ctx, "Sorry, cannot seek backwards.", 5)
        if offset - end > self.cap:
            self.flush()
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.cap)
        if offset - end > _WINDOW:
            self.flush()
            self._zeros(offset - end)
        pos = offset - self.base
        grow = pos + len(data) - len(self.buf)
        if grow > 0:
            self.mem.charge(grow)
            self.buf.extend(bytes(grow))
        self.buf[pos : pos + len(data)] = data
        if len(self.buf) > 2 * _WINDOW:
            self._emit(len(self.buf) - _WINDOW)

    def _zeros(self, n: int) -> None:
        zero = bytes(min(n, _STEP))
        while n > 0:
            self.ctx.checkpoint(1 + len(zero) // 4096)
            piece = zero[:n]
            self.out.write(piece)
            self.base += len(piece)
            n -= len(piece)

    def _emit(self, n: int) -> None:
        self.out.write(bytes(self.buf[:n]))
        del self.buf[:n]
        self.base += n
        self.mem.set(len(self.buf))

    def flush(self) -> None:
        self._emit(len(self.buf))


def _lines(ctx: Ctx, stream: Stream) -> Iterator[bytes]:
    """Input lines; one longer than max_string_length is refused rather than buffered."""
    pending = b""
    cap = ctx.limits.max_string_length
    for chunk in read_chunks(ctx, stream):
        pieces = (pending + chunk).split(b"\n")
        pending = pieces.pop()
        if len(pending) > cap:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, cap)
        yield from pieces
    if pending:
        yield pending


def _revert(ctx: Ctx, stream: Stream, out: Out, plain: bool, base: int) -> None:
    """`base` (-s) is added to every position, as xxd does; below 0 it cannot seek."""
    with ctx.hold_memory() as mem:
        window = _Window(ctx, out, mem)
        if plain:
            odd = b""
            pos = base
            for chunk in read_chunks(ctx, stream):
                digits = odd + re.sub(rb"[^0-9a-fA-F]", b"", chunk)
                cut = len(digits) // 2 * 2
                data = bytes.fromhex(decode(digits[:cut]))
                if data:
                    window.put(pos, data)
                    pos += len(data)
                odd = digits[cut:]
        else:
            for raw in _lines(ctx, stream):
                line = decode(raw)
                m = re.match(r"\s*([0-9a-fA-F]+):?\s?", line)
                if not m:
                    continue
                offset = int(m.group(1), 16)
                area = line[m.end() :].split("  ", 1)[0]
                hexdigits = re.sub(r"[^0-9a-fA-F]", "", area.split("  ")[0])
                window.put(base + offset, bytes.fromhex(hexdigits[: len(hexdigits) // 2 * 2]))
        window.flush()


# ------------------------------------------------------------------ hexdump

HEXDUMP_SPEC = CommandSpec(
    name="hexdump",
    usage="[options] <file>...",
    summary="Display file contents in hexadecimal, decimal, octal, or ascii.",
    opts=(
        Opt("b", "one-byte-octal", help="one-byte octal display"),
        Opt("X", "one-byte-hex", help="one-byte hexadecimal display"),
        Opt("c", "one-byte-char", help="one-byte character display"),
        Opt("C", "canonical", help="canonical hex+ASCII display"),
        Opt("d", "two-bytes-decimal", help="two-byte decimal display"),
        Opt("o", "two-bytes-octal", help="two-byte octal display"),
        Opt("x", "two-bytes-hex", help="two-byte hexadecimal display"),
        Opt("L", "color", arg="optional", metavar="when", help="(ignored)"),
        Opt("e", "format", arg="required", multi=True, metavar="format", help="format string to be used"),
        Opt("f", "format-file", arg="required", metavar="file", help="file that contains format strings"),
        Opt("n", "length", arg="required", metavar="length", help="interpret only length bytes of input"),
        Opt("s", "skip", arg="required", metavar="offset", help="skip offset bytes from the beginning"),
        Opt("v", "no-squeezing", help="output identical lines"),
    ),
)


def _hd_fields(kind: str, line: bytes) -> list[str]:
    """One output line's fields (each with its trailing space), blank where input ran out."""
    if kind in ("b", "c", "X"):
        out = []
        for i in range(16):
            if i >= len(line):
                out.append("    ")
                continue
            b = line[i]
            if kind == "b":
                out.append(f"{b:03o} ")
            elif kind == "X":
                out.append(f" {b:02x} ")
            else:
                out.append(f"{C_ESCAPES.get(b, chr(b) if 32 <= b < 127 else f'{b:03o}'):>3} ")
        return out
    fields = []
    padded = line + bytes(len(line) % 2)
    for i in range(8):
        if 2 * i >= len(line):
            fields.append({"d": "        ", "o": "        ", "x": "        ", "": "     "}[kind])
            continue
        v = int.from_bytes(padded[2 * i : 2 * i + 2], "little")
        if kind == "d":
            fields.append(f"  {v:05d} ")
        elif kind == "o":
            fields.append(f" {v:06o} ")
        elif kind == "x":
            fields.append(f"   {v:04x} ")
        else:
            fields.append(f"{v:04x} ")
    return fields


def _canonical(line: bytes, pos: int) -> str:
    cells = [f"{b:02x} " for b in line] + ["   "] * (16 - len(line))
    text = "".join(chr(b) if 32 <= b < 127 else "." for b in line)
    return f"{pos:08x}  " + "".join(cells[:8]) + " " + "".join(cells[8:]) + f" |{text}|"


def _hd_blocks(
    ctx: Ctx, files: list[str], skip: int, length: int | None, size: int = 16
) -> tuple[Iterator[bytes], Inputs]:
    """The input (its operands one after another) in blocks of `size` bytes, the last maybe short."""
    inputs = ctx.inputs(files, "{name}: {err}")  # util-linux's words
    inputs.dirs_open = True  # (a directory opens; its read fails: _ReadWarning)

    def gen() -> Iterator[bytes]:
        to_skip = skip
        left = length
        buf = b""
        for name, stream in inputs:
            if to_skip and not getattr(stream, "path", None):  # util-linux fseeks to skip: a pipe cannot
                raise _die(ctx, f"{'stdin' if name == '-' else name}: {strerror(errno.ESPIPE)}", 1)
            with _ReadWarning(ctx, name if files else ""):
                for chunk in read_chunks(ctx, stream):
                    if to_skip:
                        if len(chunk) <= to_skip:
                            to_skip -= len(chunk)
                            continue
                        chunk = chunk[to_skip:]
                        to_skip = 0
                    if left is not None:
                        chunk = chunk[:left]
                        left -= len(chunk)
                    buf += chunk
                    cut = len(buf) - len(buf) % size  # slices by index: re-slicing the head is quadratic
                    for i in range(0, cut, size):
                        yield buf[i : i + size]
                    buf = buf[cut:]
                    if left == 0:
                        break
            if left == 0:
                break
        if buf:
            yield buf

    return gen(), inputs


class _ReadWarning:
    """An input that opens but cannot be read (`hexdump d`, `hexdump < dir`): util-linux warns and
    leaves the status alone. Standard input, read for want of operands (`name` empty), is named
    by the argv word before the operands, argv[0] if there is none."""

    def __init__(self, ctx: Ctx, name: str) -> None:
        self.ctx = ctx
        self.name = name or (ctx.args[-1] if ctx.args else ctx.argv0)

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, tb: object) -> bool:
        if not isinstance(error, (FsError, StreamError)):
            return False
        self.ctx.error(f"{self.name}: {strerror(error.errno or errno.EIO)}")
        return True


@declare("hexdump", spec=HEXDUMP_SPEC, effects=Effects.READS)
def cmd_hexdump(ctx: Ctx) -> int:
    opts, files = ctx.parse(HEXDUMP_SPEC)
    if opts.get("format") or opts.get("format_file"):
        return _hexdump_formats(ctx, opts, files)
    kinds = [
        k
        for k, _ in opts.order
        if k
        in (
            "one_byte_octal",
            "one_byte_hex",
            "one_byte_char",
            "canonical",
            "two_bytes_decimal",
            "two_bytes_octal",
            "two_bytes_hex",
        )
    ]
    letter = {
        "one_byte_octal": "b",
        "one_byte_hex": "X",
        "one_byte_char": "c",
        "canonical": "C",
        "two_bytes_decimal": "d",
        "two_bytes_octal": "o",
        "two_bytes_hex": "x",
    }
    formats = [letter[k] for k in kinds] or [""]
    skip = _hd_num(ctx, opts.get("skip")) if opts.get("skip") is not None else 0
    length = _hd_num(ctx, opts.get("length")) if opts.get("length") is not None else None
    blocks, inputs = _hd_blocks(ctx, files, skip, length)
    out = Out(ctx.stdout)
    canonical_only = formats == ["C"]
    prev: bytes | None = None
    starred = False
    pos = skip
    for block in blocks:
        if not opts.get("no_squeezing") and block == prev and len(block) == 16:
            if not starred:
                out.write(b"*\n")
                starred = True
            pos += 16
            continue
        starred = False
        prev = block
        for f in formats:
            if f == "C":
                out.write(encode(_canonical(block, pos) + "\n"))
            else:
                out.write(encode(f"{pos:07x} " + "".join(_hd_fields(f, block))[:-1] + "\n"))
        pos += len(block)
    if inputs.tried and not inputs.opened:  # util-linux: none opened (a directory opens)
        out.flush()
        ctx.error("all input file arguments failed")
        return 1
    if pos or prev is not None:
        out.write(encode((f"{pos:08x}" if canonical_only else f"{pos:07x}") + "\n"))
    out.flush()
    return inputs.status


def _hexdump_formats(ctx: Ctx, opts: Parsed, files: list[str]) -> int:
    """hexdump with -e/-f format strings (and any built-in display given with them, in order)."""
    from ...posix.printf import FieldTooWide
    from .hexfmt import BUILTIN, FormatError, Program

    formats: list[str] = []
    for key, value in opts.order:
        if key == "format":
            formats.append(value)
        elif key == "format_file":
            try:
                text = decode(ctx.read_input(value))
            except FsError as e:
                raise _die(ctx, f"can't read {value}: {strerror(e.errno or 5)}", 1)
            # each line a format string; blank lines and `#` comments are skipped
            formats += [
                line for line in text.split("\n") if line.strip() and not line.lstrip().startswith("#")
            ]
        elif key in BUILTIN:
            formats += BUILTIN[key]
    limit = ctx.limits.max_string_length
    try:
        program = Program(formats, limit, ctx.checkpoint)
    except FormatError as e:
        raise _die(ctx, str(e), 1)
    except FieldTooWide:
        raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit) from None
    skip = _hd_num(ctx, opts.get("skip")) if opts.get("skip") is not None else 0
    length = _hd_num(ctx, opts.get("length")) if opts.get("length") is not None else None
    if not program.block:  # (no conversion reads bytes: util-linux prints nothing)
        return 0
    with ctx.hold_memory() as mem:
        mem.charge(3 * program.block)  # a block as read, its padded copy, the buffer behind it
        return _hexdump_run(ctx, opts, files, program, skip, length)


def _hexdump_run(
    ctx: Ctx, opts: Parsed, files: list[str], program: Program, skip: int, length: int | None
) -> int:
    blocks, inputs = _hd_blocks(ctx, files, skip, length, program.block)
    out = Out(ctx.stdout)
    pieces: list[str] = []
    held = 0

    def emit(text: str) -> None:
        # batched as text (one encode for many short pieces), and by size too: a piece may be as
        # long as max_string_length (`%1000000c`), and 256 of those were 256 MB held uncharged
        nonlocal held
        pieces.append(text)
        held += len(text)
        if len(pieces) > 256 or held >= 1 << 16:
            out.write(encode("".join(pieces)))
            pieces.clear()
            held = 0

    address, prev, starred, end = skip, None, False, None
    for block in blocks:
        ctx.checkpoint()
        full = len(block) == program.block
        if full and block == prev and not opts.get("no_squeezing"):
            if not starred:
                emit("*\n")
                starred = True
            address += program.block
            continue
        starred, prev = False, block
        end = None if full else address + len(block)
        program.show(block, address, end, emit)
        address += program.block
    if end is not None or address:  # (util-linux: an empty input at offset 0 has no end line)
        program.finish(end if end is not None else address, emit)
    out.write(encode("".join(pieces)))
    out.flush()
    if inputs.tried and not inputs.opened:  # util-linux: none opened (a directory opens)
        ctx.error("all input file arguments failed")
        return 1
    return inputs.status


def _hd_num(ctx: Ctx, text: str) -> int:
    t = text.strip()
    mult = 1
    for suffix, m in (
        ("KiB", 1024),
        ("MiB", 1 << 20),
        ("GiB", 1 << 30),
        ("KB", 1000),
        ("MB", 10**6),
        ("K", 1024),
        ("M", 1 << 20),
        ("G", 1 << 30),
        ("k", 1024),
        ("m", 1 << 20),
        ("b", 512),
    ):
        if t.endswith(suffix) and not (suffix == "b" and t.lower().startswith("0x")):
            t = t[: -len(suffix)]
            mult = m
            break
    try:
        return int(t, 0) * mult
    except ValueError:
        raise _die(ctx, f"failed to parse argument: '{text}'", 1)
