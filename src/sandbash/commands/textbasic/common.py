"""Helpers shared by the text-processing commands (textbasic, cut, tr, sort, ...).

Buffered output with GNU's `write error` handling, opening operands with the
usual messages, GNU quoting of names in messages, and size/number parsing with
GNU's multiplier suffixes.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...limits import MemoryHold
from ...stdio.streams import STDIO_BLOCK as STDIO_BLOCK
from ...stdio.streams import Stream, StreamError, batch_charge
from ...vfs.errors import FsError, strerror
from ...vfs.facade import FileStream
from .. import gnuquote
from ..context import CommandExit, Ctx
from ..context import WriteError as WriteError
from ..gnuquote import quoteaf as quoteaf
from ..gnuquote import quotef as quotef
from ..gnuquote import shell_quote as shell_quote
from ..inputs import close_input as close_input

FLUSH_AT = 1 << 16


class Out:
    """A buffered writer over a stream: few large writes instead of many small ones."""

    __slots__ = ("parts", "size", "stream")

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.parts: list[bytes] = []
        self.size = 0

    def write(self, data: bytes) -> None:
        self.parts.append(data)
        self.size += len(data)
        if self.size >= FLUSH_AT:
            self.flush_blocks()

    def flush(self) -> None:
        """Write everything held (what fflush or exit does)."""
        self._write(self.size)

    def flush_blocks(self) -> None:
        """Write what a full stdio buffer would have written by now: whole blocks, while the last
        byte stays held (glibc writes a full buffer only when more output arrives). A message then
        written straight to stderr lands where GNU's does, before the output still held."""
        self._write((self.size - 1) // STDIO_BLOCK * STDIO_BLOCK if self.size else 0)

    def _write(self, count: int) -> None:
        if not count:
            return
        data = b"".join(self.parts)
        rest = data[count:]
        self.parts = [rest] if rest else []
        self.size = len(rest)
        try:
            self.stream.write(data[:count])
        except (StreamError, FsError) as e:
            raise WriteError(e.errno or 5, count) from None


def fail(ctx: Ctx, message: str, status: int = 1) -> CommandExit:
    """Print `NAME: message` and return the exit to raise."""
    ctx.error(message)
    return CommandExit(status)


def usage_fail(ctx: Ctx, message: str, status: int = 1) -> CommandExit:
    """A usage error: the message and GNU's `Try '... --help'` line."""
    return ctx.usage_error(message, status)


# ------------------------------------------------------------------ inputs


def is_regular(ctx: Ctx, name: str, stream: Stream) -> tuple[bool, int]:
    """(is a regular file, its size) for an input: files and stdin redirected from one."""
    path = getattr(stream, "path", None)
    if isinstance(path, str) and path:
        st = ctx.fs.try_stat(path)
        if st is not None and st.is_file:
            return True, st.size
        if st is None and isinstance(stream, FileStream):
            return True, stream.size()  # (a file gone from its name: still the descriptor's, as fstat)
    return False, 0


def read_chunks(ctx: Ctx, stream: Stream) -> Iterator[bytes]:
    """Chunks of an input, charging the budget as they come."""
    for chunk in stream.chunks():
        ctx.checkpoint((len(chunk) >> 12) + 1)
        yield chunk


# bytes CPython spends on one small bytes object and its list slot (what a
# command that keeps every line holds besides the text)
RECORD_OVERHEAD = 48


def read_held(ctx: Ctx, stream: Stream, mem: MemoryHold) -> bytes:
    """The whole input, charged to `mem` as it arrives (the parts and their
    joined copy; the parts' share is given back once they are joined)."""
    parts: list[bytes] = []
    size = 0
    for chunk in read_chunks(ctx, stream):
        mem.charge(2 * len(chunk))
        parts.append(chunk)
        size += len(chunk)
    data = b"".join(parts)
    parts.clear()
    mem.release(size)
    return data


def read_input_held(ctx: Ctx, path: str, mem: MemoryHold) -> bytes:
    """`ctx.read_input(path)` with the text charged to `mem` as it arrives."""
    stream = ctx.open_in(path)
    data = read_held(ctx, stream, mem)
    close_input(ctx, path, stream)
    return data


def split_records(ctx: Ctx, stream: Stream, sep: bytes = b"\n") -> Iterator[tuple[list[bytes], bool]]:
    """Batches of records without separators; the bool is True when the last record
    of the batch is the input's unterminated tail."""
    # the pieces of a line longer than a chunk, joined once its end comes (not
    # re-joined per chunk), and charged to the run's memory while they wait
    tail: list[bytes] = []
    with ctx.hold_memory() as mem:
        for chunk in read_chunks(ctx, stream):
            if sep not in chunk:
                mem.charge(len(chunk))
                tail.append(chunk)
                continue
            if tail:
                mem.charge(len(chunk) + mem.held)
                tail.append(chunk)
                chunk = b"".join(tail)
                tail.clear()
            pieces = chunk.split(sep)
            last = pieces.pop()
            tail.append(last)
            # a long line stays charged while the command works on it (and what it derives)
            mem.set(batch_charge(len(chunk)))
            chunk = b""
            if pieces:
                ctx.checkpoint(len(pieces))
                yield pieces, False
                pieces = []
            mem.set(len(last))
        if tail:
            if len(tail) > 1:
                mem.charge(mem.held)  # the parts and their joined copy
            buf = b"".join(tail) if len(tail) > 1 else tail[0]
            tail.clear()
            if buf:
                mem.set(batch_charge(len(buf)))
                yield [buf], True


# ------------------------------------------------------------------ quoting


def utf8_locale(ctx: Ctx) -> bool:
    return gnuquote.utf8_locale(ctx.env)


def hard_locale(ctx: Ctx, category: str = "LC_TIME") -> bool:
    """gnulib's hard_locale: whether the locale of `category` (LC_ALL, the category, LANG: the
    first set) is another than C/POSIX (pr's and diff -c's date formats follow it)."""
    lang = ctx.env.get("LC_ALL") or ctx.env.get(category) or ctx.env.get("LANG") or "C"
    return lang not in ("C", "POSIX")


def quote(ctx: Ctx, s: str) -> str:
    """gnulib quote() in the command's locale (curly quotes in UTF-8)."""
    return gnuquote.quote(s, utf8_locale(ctx))


def file_error(ctx: Ctx, name: str, e: FsError | StreamError | OSError) -> None:
    """`NAME: file: strerror` with GNU's quoting of the name."""
    ctx.error(f"{quotef(name)}: {strerror(e.errno or 5)}")


# ------------------------------------------------------------------ numbers

_POWERS = {
    "b": None,
    "k": 1,
    "K": 1,
    "m": 2,
    "M": 2,
    "g": 3,
    "G": 3,
    "t": 4,
    "T": 4,
    "p": 5,
    "P": 5,
    "e": 6,
    "E": 6,
    "z": 7,
    "Z": 7,
    "y": 8,
    "Y": 8,
    "r": 9,
    "R": 9,
    "q": 10,
    "Q": 10,
}


def parse_size(text: str, suffixes: str = "bkKmMGTPEZYRQ0", allow_sign: bool = False) -> int | None:
    """GNU xstrtoumax with multiplier suffixes: `10K` = 10240, `10KB` = 10000,
    `10KiB` = 10240, `b` = 512 (when in `suffixes`; "0" enables KB/KiB forms).
    Returns None when invalid. Overflow is not an error (the value is large)."""
    s = text.strip(" \t\n")
    if not s:
        return None
    neg = False
    if s[0] in "+-":
        if not allow_sign:
            if s[0] == "-":
                return None
        neg = s[0] == "-"
        s = s[1:]
    i = 0
    while i < len(s) and s[i].isdigit():
        i += 1
    digits, suffix = s[:i], s[i:]
    if not digits:
        if suffix and suffix[0] in _POWERS and suffix[0] in suffixes:
            digits = "1"  # GNU accepts a bare suffix as 1 unit
        else:
            return None
    value = int(digits)
    if suffix:
        first = suffix[0]
        if first not in suffixes or (first not in _POWERS and first not in "cw"):
            return None
        base = 1024
        rest = suffix[1:]
        if rest and "0" in suffixes:
            if rest == "B":
                base = 1000
            elif rest == "iB":
                base = 1024
            else:
                return None
        elif rest:
            return None
        if first == "b":
            mult = 512
        elif first == "c":
            mult = 1
        elif first == "w":
            mult = 2
        else:
            power = _POWERS[first]
            assert power is not None
            mult = base**power
        value *= mult
    return -value if neg else value


def xstrtoumax(text: str, suffixes: str, base0: bool = True) -> tuple[int, str]:
    """gnulib's xstrtoumax in base 0 (`0x` hex, a leading 0 octal; else base 10) with multiplier `suffixes` ("0"
    allows KB/KiB): (value, problem), problem one of "", "invalid", "suffix", "large" as
    xstrtol_fatal words them (a bad suffix outranks an overflow). A bare suffix counts 1 unit."""
    s = text.lstrip(" \t\n\v\f\r")
    if s[:1] == "-":
        return 0, "invalid"
    body = s[1:] if s[:1] == "+" else s
    if base0 and body[:2] in ("0x", "0X") and body[2:3] and body[2] in "0123456789abcdefABCDEF":
        end = 2
        while end < len(body) and body[end] in "0123456789abcdefABCDEF":
            end += 1
        value = int(body[2:end], 16)
    else:
        end = 0
        while end < len(body) and body[end] in "0123456789":
            end += 1
        if base0 and body[:1] == "0":  # octal: the digits 8 and 9 end it
            end = 1
            while end < len(body) and body[end] in "01234567":
                end += 1
        value = int(body[:end], 8 if base0 and body[:1] == "0" else 10) if end else 1
    rest = body[end:]
    if not end and not (s[:1] and s[0] in suffixes and s[0] != "0"):
        return 0, "invalid"  # (no digits: only a bare suffix, as in `-j K`, is a number)
    large = value >= 2**64
    if rest:
        first = rest[0]
        if first not in suffixes or first == "0":
            return value, "suffix"
        base, used = 1024, 1
        if "0" in suffixes:
            if rest[1:3] == "iB":
                used = 3
            elif rest[1:2] in ("B", "D"):
                base, used = 1000, 2
        if first in "bcw":
            mult = {"b": 512, "c": 1, "w": 2}[first]
        elif first == "B":
            mult = 1024
        else:
            power = _POWERS.get(first)
            if power is None:
                return value, "suffix"
            mult = base**power
        value *= mult
        large = large or value >= 2**64
        if rest[used:]:
            return value, "suffix"
    return value, "large" if large else ""


def xstrtol_fatal(ctx: Ctx, problem: str, option: str, text: str) -> CommandExit:
    """gnulib's xstrtol_fatal: the message for `problem` (from xstrtoumax) and status 1."""
    if problem == "invalid":
        ctx.error(f"invalid {option} argument '{text}'")
    elif problem == "suffix":
        ctx.error(f"invalid suffix in {option} argument '{text}'")
    else:
        ctx.error(f"{option} argument '{text}' too large")
    return CommandExit(1)


# ------------------------------------------------------------------ display width


# format characters glibc's wcwidth gives a column: the soft hyphen and the prepended
# concatenation marks (Arabic number signs, the Syriac abbreviation mark, Kaithi number signs)
_VISIBLE_FORMAT = frozenset(
    "\u00ad\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd"
)


def char_width(c: str, invalid: int = 0) -> int:
    """Columns a character takes on a terminal, as glibc's wcwidth counts them: none for control
    and format characters, non-spacing and enclosing marks (by category: a spacing mark with a
    combining class, U+1D165, takes its column) and Hangul's medial vowels and final consonants;
    two for wide ones. `invalid`: what a surrogate-escaped invalid byte counts (wcwidth cannot
    see one: 0 where a tool skips it, as wc -L; 1 where gnulib's mbsnwidth counts it, as sort
    --debug)."""
    o = ord(c)
    if o < 0x20 or 0x7F <= o < 0xA0:
        return 0
    if o < 0x7F:
        return 1
    # (imported for a character past ASCII: a text command that sees none does without it)
    import unicodedata

    if 0xDC80 <= o <= 0xDCFF:
        return invalid
    if 0x1160 <= o <= 0x11FF or 0xD7B0 <= o <= 0xD7FF:
        return 0
    if unicodedata.category(c) in ("Mn", "Me", "Cf") and c not in _VISIBLE_FORMAT:
        return 0
    if unicodedata.east_asian_width(c) in ("W", "F"):
        return 2
    return 1


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def argmatch(ctx: Ctx, option: str, value: str, table: list[tuple[str, str]], status: int = 1) -> str:
    """gnulib argmatch: an exact name or unique prefix from (name, meaning) pairs;
    otherwise GNU's `invalid argument` / `ambiguous argument` message and exit."""
    for name, meaning in table:
        if name == value:
            return meaning
    found = {meaning for name, meaning in table if name.startswith(value)}
    if len(found) == 1 and value:
        return found.pop()
    kind = "ambiguous" if found and value else "invalid"
    ctx.error(f"{kind} argument {quote(ctx, value)} for {quote(ctx, option)}")
    lines: list[str] = []
    last: str | None = None
    for name, meaning in table:
        if meaning == last:
            lines[-1] += f", {quote(ctx, name)}"
        else:
            lines.append(f"  - {quote(ctx, name)}")
        last = meaning
    ctx.stderr.write(
        encode(
            "Valid arguments are:\n"
            + "\n".join(lines)
            + "\n"
            + f"Try '{ctx.help_prog} --help' for more information.\n"
        )
    )
    raise CommandExit(status)


def local_time(ctx: Ctx, ts: float) -> tuple[object, int]:
    """(datetime in the sandbox's TZ, UTC offset in seconds) for a timestamp."""
    import datetime

    from ...posix.zones import local_zone  # the date command's TZ rules (zone names and POSIX strings)

    dt = datetime.datetime.fromtimestamp(ts, local_zone(ctx.env))
    off = dt.utcoffset()
    return dt, int(off.total_seconds()) if off is not None else 0
