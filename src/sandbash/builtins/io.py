"""printf, read, mapfile/readarray (echo and the write they share: echo.py)."""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Mapping
from types import ModuleType

from ..commands.options import OptionValueError
from ..interp.executor import assign_failed
from ..interp.fastread import read_failed, store_read_array
from ..interp.variables import AS_EXPANDED, ITEM_BYTES, AssignError
from ..limits import DeadlineExpired, LimitExceeded, LimitKind, MemoryHold, SubBudget, thread_deadline
from ..posix.readfields import split_read_fields
from ..shvars.arrays import AssocArray, IndexedArray
from ..shvars.vars import ARRAY, ASSOC, EXPORT, NOASSIGN, READONLY, ArrayRefArg, split_array_ref
from ..stdio.streams import CHUNK, NullStream, Stream, StreamReadError
from ..syntax.escapes import locale_escapes
from . import builtin
from .bopts import invalid_number_message, legal_number, parse_builtin_status, usage
from .echo import write_out


def _read_count(text: str) -> int:
    if not legal_number(text) or int(text) < 0:
        raise OptionValueError(invalid_number_message(text), status=1, usage=False)
    return int(text)


def _read_timeout(text: str) -> float:
    # bash takes plain decimals only: no sign but +, no exponent, inf or nan
    whole, _, frac = text.removeprefix("+").partition(".")
    digits = whole + frac
    if digits and not (digits.isdigit() and digits.isascii()):
        raise OptionValueError(f"{text}: invalid timeout specification", status=1, usage=False)
    return float(f"{whole or 0}.{frac or 0}")


def _read_fd(text: str) -> int:
    if not text.isdigit():
        raise OptionValueError(f"{text}: invalid file descriptor specification", status=1, usage=False)
    return int(text)


def _mapfile_number(letter: str) -> Callable[[str], int]:
    def convert(text: str) -> int:
        if not legal_number(text) or int(text) < (letter == "c"):
            raise OptionValueError(f"{text}: {_MAPFILE_NUMBERS[letter]}", status=1, usage=False)
        return int(text)

    return convert


# read and mapfile check these values in their getopt loops: a bad one ends it, status 1, no usage line
_READ_TYPES = {"n": _read_count, "N": _read_count, "t": _read_timeout, "u": _read_fd}
# what bash calls each numeric mapfile option's value when it is not a usable number
_MAPFILE_NUMBERS = {
    "n": "invalid line count",
    "s": "invalid line count",
    "O": "invalid array origin",
    "u": "invalid file descriptor specification",
    "c": "invalid callback quantum",
}
_MAPFILE_TYPES = {c: _mapfile_number(c) for c in _MAPFILE_NUMBERS}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..interp.shell import Shell
    from ..limits import Budget, Limits
    from ..syntax.ast import Subscript


_OPT_START = ("-", "+")
# posix/printf.py, imported by printf's first call (echo, read and mapfile need none of it): an
# import statement in the function costs ~1 us at every call
_formatter: ModuleType | None = None


def _load_formatter() -> ModuleType:
    global _formatter
    from ..posix import printf

    _formatter = printf
    return printf


@builtin("printf")
def bi_printf(sh: Shell, argv: list[str]) -> int:
    var: str | None = None
    if len(argv) > 1 and argv[1][:1] != "-":
        args = argv[1:]  # no option (the common `printf FORMAT ...`)
    elif (
        len(argv) > 3 and argv[1] == "-v" and argv[2][:1] not in _OPT_START and argv[3][:1] not in _OPT_START
    ):
        # `printf -v NAME FORMAT ...`: what bash's getopt loop ("v:") gives, without the option
        # parser (9 us of a 14 us call): -v takes the next word, and a next word that starts neither
        # with - nor + ends the options (a value that does, `--`, `-vNAME`: the parser's way)
        var = argv[2]
        args = argv[3:]
    else:
        opts = parse_builtin_status(sh, argv, "v:")
        if isinstance(opts, int):
            return opts
        args = opts.args
        var = opts.value("v")
    if not args:
        usage(sh, "printf")
        return 2
    fmt = _formatter or _load_formatter()
    limit = sh.rt.limits.max_string_length
    if var is not None and var.isidentifier() and var.isascii():
        # `printf -v NAME` of a plain format (format_printf's own first way, status 0, nothing to
        # report): stored as assign_ref stores into a plain name (var_ref's answer for it)
        text = fmt.plain_printf(args[0], args[1:], limit)
        if text is not None:
            try:
                sh.set_var(var, text)
            except AssignError as refused:
                assign_failed(sh, "printf", refused)
                return 1
            return 0
    target = var_ref(sh, var) if var is not None else None
    if var is not None and target is None:
        sh.builtin_error("printf", f"`{var}': not a valid identifier")
        return 2
    errors: list[str] = []
    marks: list[int] = []  # output length before each error
    # %()T uses the environment's TZ: a TZ the script did not export is not seen
    tz_var = sh.state.vars.find("TZ") if "(" in args[0] else None
    tz = (
        tz_var.value
        if tz_var is not None and tz_var.attrs & EXPORT and isinstance(tz_var.value, str)
        else None
    )
    # the locale matters only to a 'X or "X argument (a character's code), to a text that is not
    # ASCII (%q and %Q quote its bytes in the C locale) and to a \u or \U escape (written back there)
    joined = "".join(args)
    byte_chars = (
        sh.locale_bytes()
        if "'" in joined or '"' in joined or not joined.isascii() or locale_escapes(joined)
        else True
    )

    def assign(name: str, count: int) -> bool:  # %n takes a plain name only, as bash's legal_identifier
        if "[" in name or var_ref(sh, name) is None:
            return False
        sh.set_var(name, str(count))
        return True

    status: int
    try:
        text, status = fmt.format_printf(
            args[0],
            args[1:],
            errors.append,
            sh.rt.clock,
            sh.rt.started,
            tz,
            limit,
            assign,
            marks=marks,
            byte_chars=byte_chars,
        )
    except fmt.FieldTooWide:
        raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit) from None
    if target is None:
        return _printf_line_buffered(sh, text, errors, marks) or status
    for e in errors:
        sh.builtin_error("printf", e)
    try:
        assign_ref(sh, target, text)
    except AssignError as e:
        assign_failed(sh, "printf", e)
        return 1
    return status


def _printf_line_buffered(sh: Shell, text: str, errors: list[str], marks: list[int]) -> int:
    """Write printf's output and its errors in bash's order: bash's stdout is
    line buffered, so the lines completed before an error come out before it."""
    if not errors:
        return write_out(sh, "printf", text.encode("utf-8", "surrogateescape")) if text else 0
    rc = done = 0
    for msg, at in zip(errors, marks, strict=True):
        cut = text.rfind("\n", done, at) + 1
        if cut > done:
            rc = write_out(sh, "printf", text[done:cut].encode("utf-8", "surrogateescape")) or rc
            done = cut
        sh.builtin_error("printf", msg)
    if done < len(text):
        rc = write_out(sh, "printf", text[done:].encode("utf-8", "surrogateescape")) or rc
    return rc


# a variable a builtin assigns: name, subscript, how the subscript is read
VarRef = tuple[str, "str | None", "Subscript | None"]


def var_ref(sh: Shell, ref: str) -> VarRef | None:
    """`name` or `name[sub]` as read, printf -v and wait -p take a variable (bash's
    valid_array_reference with SET_VFLAGS): (name, subscript, how the subscript is read), or None
    when it is no valid reference. Under assoc_expand_once the subscript is taken as already
    expanded (quotes in it plain, not expanded again) and, in an argument written as an array
    reference (`read A[$k]`), runs to the last `]`."""
    once = bool(sh.state.shopts.get("assoc_expand_once"))
    parts = split_array_ref(ref, quotes=not once, once=once and isinstance(ref, ArrayRefArg))
    if parts is None:
        return None
    name, sub = parts
    if not (name.isascii() and name.isidentifier()) or sub == "":
        return None
    return name, sub, AS_EXPANDED if once and sub is not None else None


def assign_ref(sh: Shell, target: VarRef, value: str) -> None:
    name, sub, parsed = target
    sh.set_var(name, value, sub=sub, parsed=parsed)


# ------------------------------------------------------------ read


@functools.cache
def _backslash() -> re.Pattern[str]:
    """A backslash and the character it escapes (a trailing lone backslash is dropped); this and
    _mb_run are compiled on read's first use (at import: ~0.3 ms of every start, for echo)."""
    return re.compile(r"\\(.?)", re.S)


def _unescape(raw_text: str) -> tuple[str, list[int]]:
    """Remove read's backslash escapes. Returns the text and the ascending positions (in it) of
    the escaped characters, which never split fields. A Python step per backslash, not per char."""
    if "\\" not in raw_text:
        return raw_text, []
    pieces: list[str] = []
    escaped: list[int] = []
    size = 0
    pos = 0
    for m in _backslash().finditer(raw_text):
        plain = raw_text[pos : m.start()]
        pieces.append(plain)
        size += len(plain)
        ch = m.group(1)
        if ch and ch != "\n":  # (backslash-newline is dropped whatever the delimiter: `read -d ''`)
            escaped.append(size)
            pieces.append(ch)
            size += 1
        pos = m.end()
    pieces.append(raw_text[pos:])
    return "".join(pieces), escaped


# the bytes a character takes by its first byte, as glibc's UTF-8 mbrtowc counts them (it still
# reads the 5- and 6-byte forms); 1 for ASCII and for bytes that cannot start one
_MB_NEED = bytes([1] * 0xC2 + [2] * 30 + [3] * 16 + [4] * 8 + [5] * 4 + [6] * 2 + [1] * 2)


@functools.cache
def _mb_run() -> re.Pattern[bytes]:
    """A run of whole characters (and ASCII)."""
    return re.compile(
        rb"(?:[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf7][\x80-\xbf]{3}"
        rb"|[\xf8-\xfb][\x80-\xbf]{4}|[\xfc\xfd][\x80-\xbf]{5})*"
    )


_HIGH = bytes(range(0x80, 0x100))


def _mb_missing(data: bytes) -> int:
    """How many bytes the last character of `data` still lacks, read as bash 5.2's read does in
    a UTF-8 locale (read_mbchar: after a byte that starts a character it reads on while mbrtowc
    says incomplete, delimiter or not; a byte that makes it invalid is taken along). 0: complete."""
    if not data or data[-1] < 0x80:
        return 0
    # after the last ASCII byte a character starts (that byte began one or ended an invalid one)
    tail = data[len(data.rstrip(_HIGH)) :]
    pos, n = 0, len(tail)
    run = _mb_run()
    while True:
        m = run.match(tail, pos)
        pos = m.end() if m else pos
        if pos >= n:
            return 0
        need = _MB_NEED[tail[pos]]
        j = pos + 1
        while j < n and j - pos < need and 0x80 <= tail[j] <= 0xBF:
            j += 1
        if j == n and j - pos < need:
            return need - (j - pos)
        pos = j + 1 if need > 1 else j  # an invalid one ends with the byte that broke it


def _mb_backslashes(data: bytes) -> bytes:
    """`data` with each backslash that bash 5.2's read takes as the byte breaking an unfinished
    character doubled: it is part of that character there, not an escape."""
    out: list[bytes] = []
    pos = done = 0
    n = len(data)
    run = _mb_run()
    while pos < n:
        m = run.match(data, pos)
        pos = m.end() if m else pos
        if pos >= n:
            break
        need = _MB_NEED[data[pos]]
        j = pos + 1
        while j < n and j - pos < need and 0x80 <= data[j] <= 0xBF:
            j += 1
        if need > 1 and j < n and j - pos < need and data[j] == 0x5C:
            out.append(data[done : j + 1] + b"\\")
            done = j + 1
        pos = j + 1 if need > 1 and j - pos < need else j
    return b"".join(out) + data[done:] if out else data


def _utf8_shell(sh: Shell) -> bool:
    """The shell's character type is UTF-8 (not C/POSIX)."""
    return not sh.locale_bytes()


def _finish_char(stream: Stream, missing: int) -> bytes:
    """The bytes bash 5.2 reads after a delimiter that fell inside a character: continuation
    bytes while it lacks some, and the byte that breaks it."""
    taken = b""
    while missing > 0:
        b = stream.read(1)
        if not b:
            break
        taken += b
        if not 0x80 <= b[0] <= 0xBF:
            break
        missing -= 1
    return taken


def _ends_escaping(sh: Shell, pieces: list[bytes], body: bytes) -> bool:
    """The record so far (`pieces`, then `body`, which ends in a backslash) ends in a backslash
    that escapes the next byte: an odd run of them, not counting one that an unfinished character
    before them takes in (bash 5.2's read_mbchar takes the byte that breaks a character, a
    backslash too, before read looks for escapes: `\\303\\\\` ends escaping)."""
    run = len(body) - len(body.rstrip(b"\\"))
    prefix = body[:-run]
    if pieces:
        prefix = b"".join(pieces) + prefix
    if prefix and prefix[-1] >= 0x80 and _utf8_shell(sh) and _mb_missing(prefix):
        run -= 1
    return run % 2 == 1


def _read_raw(
    sh: Shell, stream: Stream, delim: str, nchars: int | None, exact: bool, raw: bool, timeout: float | None
) -> tuple[str, bool, list[int]]:
    """Read one record. Returns (text, hit_eof, positions of escaped chars)."""
    # (bash takes -d's first byte, not its first character: `-d é` ends a record at 0xC3)
    delim_b = delim.encode("utf-8", "surrogateescape")[:1] if delim else b"\0"
    if nchars is None:
        return _read_record(sh, stream, delim_b, raw, timed=timeout is not None)
    return _read_chars(sh, stream, delim_b, nchars, exact, raw, timeout)


class ReadTimedOut(DeadlineExpired):
    """`read -t` ran out of time: bash assigns what it read until then (`text`, with the
    positions of its escaped characters)."""

    def __init__(self, text: str, escaped: list[int]) -> None:
        super().__init__()
        self.text = text
        self.escaped = escaped


def _read_record(
    sh: Shell, stream: Stream, delim_b: bytes, raw: bool, first: bytes | None = None, timed: bool = False
) -> tuple[str, bool, list[int]]:
    """A whole record, through the stream's buffered readline. `first`: its first line, read
    already (by fastread's read_cmd) and not yet charged. `timed`: a deadline may end the wait
    (read -t), and ReadTimedOut then carries the record read so far."""
    pieces: list[bytes] = []
    eof = False
    expired: DeadlineExpired | None = None
    cut = False  # a NUL read inside a character ended the value there (bash keeps a C string)
    utf8: bool | None = None  # (looked up when a record has a byte past ASCII)
    limit = sh.rt.limits.max_string_length
    budget = sh.rt.budget
    held = 0  # the record so far, continuation lines included (`yes '\' | read x` ends)
    while True:
        if first is None:
            try:
                line = stream.readline(delim_b, limit, timed)
            except DeadlineExpired as e:
                if not timed:
                    raise
                expired = e  # (what readline had read of the line is the record's end)
                line = stream.read(stream.buffered())
        else:
            line, first = first, None
        held += len(line) + 16  # with a list slot per piece
        if held > limit:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)
        budget.work += 1  # (Budget.checkpoint() inline: a line read)
        if budget.work >= budget.work_stop:
            budget.work_slow()
        if (
            not pieces
            and line.endswith(delim_b)
            and line.isascii()
            and 0 not in line  # (a byte tested as an int: `b"\0" in line` raises and clears a
            and (raw or 0x5C not in line)  # TypeError inside CPython first, ~1 µs a test; 0x5C is \)
        ):
            # the usual record, one whole ASCII line with -r or without a backslash: nothing
            # continues it, no character is unfinished, nothing is unescaped or dropped (the
            # general steps below give the same answer, a few calls later)
            return line[: -len(delim_b)].decode("ascii"), False, []
        if expired is not None or not line.endswith(delim_b):
            eof = True
            if not cut:
                pieces.append(line)
            break
        body = line[: -len(delim_b)]
        if not raw and delim_b == b"\n" and body.endswith(b"\\") and _ends_escaping(sh, pieces, body):
            # backslash-newline: a continuation line
            if not cut:
                pieces.append(body[:-1])
            continue
        if (
            not raw
            and delim_b != b"\n"
            and (delim_b == b"\\" or (body.endswith(b"\\") and _ends_escaping(sh, pieces, body)))
        ):
            # bash's read takes a backslash as an escape before it looks for the delimiter: an
            # escaped delimiter is part of the value (unescaped below), and a backslash delimiter
            # only ever escapes the next character (the record ends at end of file)
            if not cut:
                pieces.append(line)
            continue
        missing = 0
        if body and body[-1] >= 0x80:
            utf8 = _utf8_shell(sh) if utf8 is None else utf8
            missing = _mb_missing(b"".join(pieces) + body) if utf8 else 0
        if missing and len(delim_b) == 1:
            # the delimiter completes (or breaks) a character: bash 5.2 reads on
            extra = delim_b + (_finish_char(stream, missing - 1) if 0x80 <= delim_b[0] <= 0xBF else b"")
            held += len(extra)
            if not cut:
                pieces.append(body + extra.split(b"\0", 1)[0])
                cut = 0 in extra  # (a byte as an int: see the usual record above)
            continue
        if not cut:
            pieces.append(body)
        break
    # a shell variable cannot hold NUL: bash's read drops those bytes
    data = b"".join(pieces).replace(b"\0", b"")
    if not raw and 0x5C in data and not data.isascii() and _utf8_shell(sh):  # (a backslash, as an int)
        data = _mb_backslashes(data)
    text = data.decode("utf-8", "surrogateescape")
    escaped: list[int] = []
    if raw:
        out = text
    else:
        out, escaped = _unescape(text)
    if expired is not None:
        raise ReadTimedOut(out, escaped) from expired
    return out, eof, escaped


@functools.cache
def _char_stop(special: bytes) -> re.Pattern[bytes]:
    """The first byte _read_chars cannot take in a run: NUL, past ASCII, or one of `special`
    (the delimiter of -n, a backslash without -r)."""
    return re.compile(b"[\\x00\\x80-\\xff" + re.escape(special) + b"]")


def _read_chars(
    sh: Shell, stream: Stream, delim_b: bytes, nchars: int, exact: bool, raw: bool, timeout: float | None
) -> tuple[str, bool, list[int]]:
    """-n/-N: up to `nchars` characters. The input is read a piece at a time (at most what is
    still wanted, from the stream's read-ahead or one read of its source, which never waits for
    more than it has), and what is left after the last character is given back to the stream. A
    run of plain ASCII bytes (no NUL, no delimiter for -n, no backslash without -r) is taken
    whole; any other byte as bash 5.2 reads it, one at a time."""
    chars: list[str] = []
    escapes: list[int] = []
    count = 0  # characters read (a run counts its bytes)
    size = 0  # their length as text, in `chars`
    deadline = time.monotonic() + timeout if timeout is not None else None
    pending_backslash = False
    eof = False
    # (the locale asked once a byte is taken alone: a run of ASCII, the delimiter or a NUL needs
    # no answer, and asking costs more than a short read; `read -n 1` runs once a character)
    utf8: bool | None = None
    cut: int | None = None  # where a NUL read inside a character ends the value
    buf = b""
    stop = _char_stop((b"" if exact else delim_b) + (b"" if raw else b"\\"))
    budget = sh.rt.budget
    limit = sh.rt.limits.max_string_length
    data = b""
    pos = 0
    expired: DeadlineExpired | None = None
    while count < nchars:
        if pos == len(data):
            try:
                if deadline is not None and time.monotonic() > deadline:
                    raise DeadlineExpired
                data = stream.read(min(nchars - count, CHUNK))
            except DeadlineExpired as e:
                if deadline is None:
                    raise
                expired = e
                data = b""
                break
            pos = 0
            if not data:
                eof = True
                break
            if size > limit:  # (the value so far: NUL bytes dropped are no part of it)
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)
            if len(chars) > 4096:
                chars = ["".join(chars)]  # (a str a character would hold ~60 bytes for each)
            budget.checkpoint(len(data))  # (a byte read is a unit of work)
        if not (buf or pending_backslash):
            want = min(len(data), pos + nchars - count)
            m = stop.search(data, pos, want)
            end = m.start() if m else want
            if end > pos:
                chars.append(data[pos:end].decode("ascii"))
                count += end - pos
                size += end - pos
                pos = end
                continue
        b = data[pos : pos + 1]
        pos += 1
        if not (buf and utf8):  # (inside a character bash 5.2 reads on, delimiter or not)
            if not exact and not pending_backslash and b == delim_b:
                break
            if b == b"\0":
                continue  # dropped, as above
        if utf8 is None:
            utf8 = _utf8_shell(sh)
        buf += b
        if utf8:
            if len(buf) < _MB_NEED[buf[0]] and (len(buf) == 1 or 0x80 <= b[0] <= 0xBF):
                continue
            if cut is None and 0 in buf:  # (a byte as an int: see _read_record)
                cut = size + buf.index(b"\0")
            ch = buf.decode("utf-8", "surrogateescape")
        else:  # (the C/POSIX locale: each byte is a character, as bash counts there)
            ch = buf.decode("utf-8", "surrogateescape")
        buf = b""
        if not raw:  # -N too: only the delimiter loses its meaning
            if pending_backslash:
                pending_backslash = False
                if ch == "\n":
                    continue
                escapes.append(size)
                chars.append(ch)
                count += 1
                size += len(ch)
                continue
            if ch == "\\":
                pending_backslash = True
                continue
        chars.append(ch)
        count += 1
        size += len(ch)
    if pos < len(data):
        stream.unread(data[pos:])  # (read past the last character: the next reader's)
    if buf:
        chars.append(buf.decode("utf-8", "surrogateescape"))
    text = "".join(chars)
    if cut is not None:
        text, escapes = text[:cut], [e for e in escapes if e < cut]
    if not utf8 and not escapes and not text.isascii():
        # bytes read one at a time in the C locale: the value's text form, é a character again
        # where its bytes were read whole (positions of escapes would move: kept as read then)
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    if expired is not None:
        raise ReadTimedOut(text, escapes) from expired
    return text, eof, escapes


# read's options as the parser gave them, by the command's words (a `while read -t 5 -n 1 c` loop
# parses the same words at each character): (each letter given with its last value, the operands,
# -n/-N's count). Only parses that succeeded (an error is reported each time), and of words no
# longer than _PARSED_TEXT in all; cleared when it holds _PARSED_MAX. What the parser gives is a
# function of the words alone (the value converters read no shell state), so one run's entries
# serve another's; the entries are never changed, only read.
_PARSED: dict[tuple[str, ...], tuple[Mapping[str, Any], tuple[str, ...], int | None]] = {}
_PARSED_TEXT = 256
_PARSED_MAX = 64
_RAW_ONLY: Mapping[str, Any] = {"r": None}  # (bi_read: `read -r NAME...`, `read NAME...`)
_NO_OPTIONS: Mapping[str, Any] = {}


@builtin("read")
def bi_read(sh: Shell, argv: list[str]) -> int:
    return read_with_ifs(sh, argv, None)


def read_with_ifs(sh: Shell, argv: list[str], ifs: str | None) -> int:
    """The `read` builtin; `ifs`: the text of a temporary `IFS=TEXT` binding that the caller did not
    push (interp/fastread.read_code), in place of IFS's value; None: IFS's value."""
    # `read NAME...` and `read -r NAME...` (a `while read` loop runs it once per line): what the
    # option parser would give, without it (getopt stops at the first word not starting with -)
    n = len(argv)
    nchars: int | None = None
    if n > 1 and argv[1] == "-r" and (n == 2 or argv[2][:1] != "-"):
        given = _RAW_ONLY
        names = argv[2:]
    elif n == 1 or argv[1][:1] != "-":
        given = _NO_OPTIONS
        names = argv[1:]
    else:
        key = tuple(argv)
        parsed = _PARSED.get(key)
        if parsed is None:
            opts = parse_builtin_status(sh, argv, "ersa:d:i:n:N:p:t:u:", _READ_TYPES)
            if isinstance(opts, int):
                return opts
            given = opts.last()  # one pass
            if "n" in given or "N" in given:
                nchars = opts.value("nN")
            parsed = (given, tuple(opts.args), nchars)
            if sum(map(len, key)) <= _PARSED_TEXT:
                if len(_PARSED) >= _PARSED_MAX:
                    _PARSED.clear()
                _PARSED[key] = parsed
        given, args, nchars = parsed
        names = list(args)
    raw = "r" in given
    delim: str = given.get("d", "\n")[:1]
    exact = "N" in given  # bash: -N sets "ignore the delimiter" for good, a later -n only the count
    array: str | None = given.get("a")
    fd: int = given.get("u", 0)
    timeout: float | None = given.get("t")
    stream = sh.io.get(fd)
    if (stream is None or not stream.readable) and "u" in given:
        # bash checks the descriptor -u names with the options, before -t 0 and the names
        sh.builtin_error("read", f"{fd}: invalid file descriptor: Bad file descriptor")
        return 1
    if timeout is not None and timeout == 0:
        return 0 if stream is not None and stream.readable else 1  # only asks: no name checked
    # bash checks the first name before it reads, each later one as it assigns it: `read x 1y`
    # consumes a line and sets x first
    first = var_ref(sh, names[0]) if names else None
    if names and first is None:
        sh.builtin_error("read", f"`{names[0]}': not a valid identifier")
        return 1
    if stream is None or not stream.readable:
        sh.builtin_error("read", f"read error: {fd}: Bad file descriptor")
        return 1
    try:
        if timeout is None:
            text, eof, escaped = _read_raw(sh, stream, delim, nchars, exact, raw, timeout)
        else:
            # a read blocked on a pipe wakes at the timeout too (the pipe checks this thread's
            # deadline); bash then fails with 128 + SIGALRM
            own = SubBudget(sh.rt.budget, timeout)
            try:
                with thread_deadline(own):
                    text, eof, escaped = _read_raw(sh, stream, delim, nchars, exact, raw, timeout)
            except DeadlineExpired as e:
                if time.monotonic() < own.own_deadline:
                    raise  # an enclosing command's deadline, not ours
                if not isinstance(e, ReadTimedOut):
                    return 142  # (inside a character's bytes: nothing to assign)
                # bash fails with 128 + SIGALRM and assigns what it had read
                return _assign_read(
                    sh, e.text, e.escaped, _read_ifs(sh, exact, ifs), 142, array, names, None, first
                )
    except OSError as e:
        return read_failed(sh, fd, e)
    status = 1 if eof else 0
    return _assign_read(sh, text, escaped, _read_ifs(sh, exact, ifs), status, array, names, None, first)


def _read_ifs(sh: Shell, exact: bool, ifs: str | None) -> str:
    """The separators read splits its record with: none for -N, which reads exactly what it
    counted (no field splitting, no IFS trimming: bash), else the binding's or IFS's."""
    if exact:
        return ""
    return sh.ifs() if ifs is None else ifs


def _assign_read(
    sh: Shell,
    text: str,
    escaped: list[int],
    ifs: str,
    status: int,
    array: str | None,
    names: list[str],
    plain: list[bool] | None,
    first: VarRef | None,
) -> int:
    """The line read made the array's elements, REPLY or the names' values; `status` if done,
    else 1. `plain`: the compiled read's names, plain identifiers, each True when store_plain may
    store it; None: each name is checked as a reference as it is assigned (`first`: the first's)."""
    try:
        if array is not None:
            return status if _read_array(sh, array, text, escaped, ifs) else 1
        if not names:
            sh.set_var("REPLY", text)
            return status
        fields = split_read_fields(text, escaped, ifs, len(names))
        if plain is not None:
            sh.va.store_fields(names, plain, fields)
            return status
        have = len(fields)
        for k, name in enumerate(names):
            value = fields[k] if k < have else ""
            target = first if k == 0 else var_ref(sh, name)
            if target is None:
                sh.builtin_error("read", f"`{name}': not a valid identifier")
                return 1
            assign_ref(sh, target, value)
    except AssignError as e:
        assign_failed(sh, "read", e)
        return 1
    return status


def _read_array(sh: Shell, array: str, text: str, escaped: list[int], ifs: str) -> bool:
    """read -a ARRAY: the line's fields, each split off (no last name takes the rest), made the
    array's elements from 0; False when ARRAY is no indexed array's name (reported). AssignError
    (readonly, ...) goes to the caller."""
    var = sh.state.vars.find(array)
    if (
        var is None
        or type(var.value) is not IndexedArray
        or var.attrs & ~(ARRAY | EXPORT)
        or array in NOASSIGN  # (`local -a FUNCNAME`: still refused, unless unset made it ordinary)
    ) and not _indexed_array_target(sh, "read", array):
        # (a plain indexed array needs no check: no reference, no associative array, a valid name)
        return False  # (bash checks the name after reading the line)
    store_read_array(sh, array, text, escaped, ifs)
    return True


def read_line(
    sh: Shell,
    argv: list[str],
    ifs: str | None,
    raw: bool,
    names: list[str],
    plain: list[bool],
    array: str | None,
    delim: bytes,
    fd: int,
    first: bytes | None = None,
    chars: tuple[int, bool] | None = None,
) -> int:
    """`[IFS=TEXT] read [-r] [-a ARRAY] [-d DELIM] [-u FD] [-n|-N COUNT] [NAME...]` as interp/fastread compiled
    it (`while IFS=, read -r a b c`, `while read -ra f`, `while IFS= read -r -d '' f`): the
    options read once, the names plain identifiers (`plain`: each is no special variable, so
    store_plain may store it), one record ending with `delim` (one byte) from descriptor `fd` as
    read_with_ifs reads it, without its option parsing or each name's reference check. `ifs`: the
    binding's text, None: IFS's value. `first`: the record's first line, read from `fd` already
    (fastread's read_cmd takes the usual record itself and leaves the others here). A descriptor
    that cannot be read takes read_with_ifs (its messages: -u's 'invalid file descriptor', else
    'read error'). `chars`: -n/-N's count and whether -N was given (then the delimiter is no
    end and the characters are not split), read as read_with_ifs reads them."""
    stream = sh.state.fds.get(fd)
    if stream is None or not stream.readable:
        return read_with_ifs(sh, argv, ifs)
    try:
        if chars is None:
            text, eof, escaped = _read_record(sh, stream, delim, raw, first)
        else:
            text, eof, escaped = _read_chars(sh, stream, delim, chars[0], chars[1], raw, None)
    except OSError as e:
        return read_failed(sh, fd, e)
    separators = _read_ifs(sh, chars is not None and chars[1], ifs)
    return _assign_read(sh, text, escaped, separators, 1 if eof else 0, array, names, plain, None)


# the compiled `read` (interp/fastread finds these here: the interpreter does not import builtins):
# `IFS=TEXT read ...` without the temporary binding, and the options read when compiled
bi_read.with_ifs = read_with_ifs  # type: ignore[attr-defined]
bi_read.read_line = read_line  # type: ignore[attr-defined]
bi_read.assign_read = _assign_read  # type: ignore[attr-defined]


@builtin("mapfile", "readarray")
def bi_mapfile(sh: Shell, argv: list[str]) -> int:
    name = argv[0]
    opts = parse_builtin_status(sh, argv, "d:n:O:s:tu:C:c:", _MAPFILE_TYPES)
    if isinstance(opts, int):
        return opts
    delim: str = opts.value("d", "\n")[:1] or "\0"  # -d '': NUL-ended lines
    count: int = opts.value("n", 0)
    origin: int | None = opts.value("O")
    skip: int = opts.value("s", 0)
    strip = opts.has("t")
    fd: int = opts.value("u", 0)
    callback: str | None = opts.value("C")
    quantum: int = opts.value("c", 5000)
    args = opts.args
    target = args[0] if args else "MAPFILE"
    if not target:  # checked before the name's syntax, with a usage status
        sh.builtin_error(name, "empty array variable name")
        return 2
    if not _indexed_array_target(sh, name, target):
        return 1
    stream = sh.io.get(fd)
    if (stream is None or not stream.readable) and opts.has("u"):
        sh.builtin_error(name, f"{fd}: invalid file descriptor: Bad file descriptor")
        return 1
    if stream is None or not stream.readable:
        stream = NullStream()  # (a closed standard input reads as empty: bash's read fails at once)
    sep = delim.encode("utf-8", "surrogateescape")[:1] if delim else b"\0"  # (its first byte: read's)
    # the lines are held before they become the array: max_array_elements and max_memory
    # bound them as they come (`yes | mapfile a` must not grow until the deadline)
    with MemoryHold(sh.rt.budget) as held:
        lines = _mapfile_lines(sh, stream, sep, count, skip, strip, held)
        return _mapfile_store(sh, name, target, lines, origin, callback, quantum, held)


def _mapfile_lines(
    sh: Shell, stream: Stream, sep: bytes, count: int, skip: int, strip: bool, held: MemoryHold
) -> list[str]:
    lines: list[str] = []
    read_count = 0
    limits = sh.rt.limits
    budget = sh.rt.budget
    # (without -n every line to the end is taken: a chunk read at a time, its whole lines at
    # once, _mapfile_chunks and _mapfile_block; an ASCII delimiter other than NUL)
    bulk = not count and sep.isascii() and sep != b"\0"

    def take(line: bytes) -> None:
        nonlocal read_count
        budget.work += 1  # (Budget.checkpoint() inline: a line read)
        if budget.work >= budget.work_stop:
            budget.work_slow()
        read_count += 1
        if read_count <= skip:
            return
        if strip and line.endswith(sep):
            line = line[: -len(sep)]
        if 0 in line:  # (a byte as an int: see _read_record)
            line = line[: line.index(b"\0")]  # bash keeps each line as a C string
        if len(lines) >= limits.max_array_elements:
            raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, limits.max_array_elements)
        held.charge(len(line) + 96)
        lines.append(line.decode("utf-8", "surrogateescape"))

    def refused(block: bytes) -> bool:
        # (lines still to skip: one at a time; past them read_count is only compared with skip,
        # so a block taken whole need not count its lines)
        return read_count < skip or not _mapfile_block(lines, block, sep, strip, limits, budget, held)

    if bulk:
        _mapfile_chunks(stream, sep, limits.max_string_length, take, refused)
        return lines
    while True:
        if count and len(lines) >= count:
            break
        try:
            line = stream.readline(sep, limits.max_string_length)
        except StreamReadError:  # (`mapfile < dir`: bash's zread fails, the lines so far stay)
            break
        if not line:
            break
        take(line)
    return lines


def _mapfile_chunks(
    stream: Stream, sep: bytes, limit: int, take: Callable[[bytes], None], refused: Callable[[bytes], bool]
) -> None:
    """mapfile's lines to the end of input a chunk (CHUNK bytes at most) at a time: the whole
    lines of each given to `refused` (False: taken at once, _mapfile_block), and where it
    refuses them, each to `take` in turn, as is a line that spans chunks, and the last one
    without its delimiter. An unfinished line is held in pieces, a max_string_length limit
    past `limit` as readline has it; a read error ends the lines there (its unfinished one
    dropped, as readline's)."""
    parts: list[bytes] = []  # (the line a chunk ended inside)
    size = 0
    while True:
        try:
            chunk = stream.read(CHUNK)  # (a slice of the read-ahead or one fill: never all of it)
        except StreamReadError:  # (`mapfile < dir`: bash's zread fails, the lines so far stay)
            return
        if not chunk:
            if parts:
                take(b"".join(parts))
            return
        cut = chunk.rfind(sep) + 1
        if not cut:
            parts.append(chunk)
            size += len(chunk)
            if size > limit:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)
            continue
        start = 0
        if parts:
            start = chunk.find(sep) + 1
            parts.append(chunk[:start])
            take(b"".join(parts))
        if start < cut:
            block = chunk[start:cut] if start or cut < len(chunk) else chunk
            if refused(block):
                for line in block.split(sep)[:-1]:  # (one at a time: a limit at its line)
                    take(line + sep)
        parts = [chunk[cut:]] if cut < len(chunk) else []
        size = len(chunk) - cut


def _mapfile_block(
    lines: list[str], block: bytes, sep: bytes, strip: bool, limits: Limits, budget: Budget, held: MemoryHold
) -> bool:
    """Whole lines (`block` ends with `sep`, an ASCII byte other than NUL) added to `lines` at
    once, as mapfile's steps for each would add them: each a unit of work, a place in the array,
    its bytes and 96 charged, the clocks read after them (a block is one chunk read). False,
    with nothing done, where they would not all pass (a NUL to cut a line at, max_work, the
    element limit, the memory charge refused):
    the caller then takes them one at a time, so that the limit that ends the run is the one
    the line reaching it meets first. A deadline passed inside the block ends the run at its end,
    as at any line's check: the lines are not stored either way."""
    n = block.count(sep)
    root = budget  # (a deadline's or a job's budget charges the run's: max_work is counted there)
    while isinstance(root, SubBudget):
        root = root.parent
    if 0 in block or root.work + n > limits.max_work or len(lines) + n > limits.max_array_elements:
        return False
    try:
        held.charge(len(block) - (n if strip else 0) + 96 * n)
    except LimitExceeded:
        return False  # (nothing stays charged: Budget.charge_memory)
    budget.checkpoint(n)  # (within max_work: the clocks read)
    mark = chr(sep[0])
    pieces = block.decode("utf-8", "surrogateescape").split(mark)
    pieces.pop()  # (the empty text after the last delimiter)
    lines.extend(pieces if strip else [p + mark for p in pieces])
    return True


def _indexed_array_target(sh: Shell, cmd: str, name: str) -> bool:
    """read -a NAME, mapfile NAME: a plain name (no subscript) of no associative array (through a
    nameref), else bash's message naming the builtin; False without a word for a call-stack array
    or GROUPS (bash's find_or_make_array_variable refuses a noassign variable silently: status 1,
    the value kept, the script goes on, where an assignment `GROUPS=(1)` drops the line)."""
    if not name.isidentifier() or not name.isascii():
        sh.builtin_error(cmd, f"`{name}': not a valid identifier")
        return False
    try:
        target = sh.va.resolve_name(name)[0]
    except AssignError:  # a circular reference: the assignment reports it
        return True
    if sh.va.noassign(target):
        return False
    var = sh.state.vars.find(target)
    if var.attrs & READONLY if var is not None else sh.va.table_readonly(target):
        sh.report_error(f"{name}: readonly variable")  # (bash asks before what kind of array it is)
        return False
    if (var is not None and (var.attrs & ASSOC or isinstance(var.value, AssocArray))) or (
        var is None and sh.va.table_target(target)
    ):
        sh.builtin_error(cmd, f"{name}: not an indexed array")
        return False
    return True


def _mapfile_store(
    sh: Shell,
    cmd: str,
    target: str,
    lines: list[str],
    origin: int | None,
    callback: str | None,
    quantum: int,
    held: MemoryHold,
) -> int:
    try:
        var = sh.state.vars.find(target)
        if callback is None and (origin is None or var is None or not isinstance(var.value, IndexedArray)):
            # the lines become the elements, which the array's charge counts (texts, headers):
            # only the list's own places stay held beside it
            held.set(8 * len(lines))
            if not origin:
                sh.va.set_values(target, lines, by_builtin=True)
                return 0
            # the first line's index, then each next one: no index text to evaluate per line
            with MemoryHold(sh.rt.budget) as held:
                held.charge(len(lines) * ITEM_BYTES)  # (the item list, made before the array is filled)
                items: list[tuple[str | None, str, bool]] = [(None, v, False) for v in lines]
                if items:
                    items[0] = (str(origin), lines[0], False)
                sh.set_array(target, items, by_builtin=True)
            return 0
        if origin is None or var is None or not isinstance(var.value, IndexedArray):
            sh.set_array(target, [])  # without -O the array starts empty (bash)
        base = origin or 0
        for k, v in enumerate(lines):
            # the callback runs before its line is stored, every quantum lines (bash)
            if callback and (k + 1) % quantum == 0:
                sh.run_text(f"{callback} {base + k} {_q(v)}", None)
            sh.set_var(target, v, sub=str(base + k))
    except AssignError as e:
        assign_failed(sh, cmd, e)
        return 1
    return 0


def _q(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"
