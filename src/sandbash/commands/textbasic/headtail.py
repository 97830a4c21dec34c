"""head and tail: streaming, with bounded memory on pipes and seeking on files."""

from __future__ import annotations

import errno
import re
from collections import deque
from collections.abc import Callable

from ...stdio.streams import ClosedStream, Stream
from ...vfs.facade import FileStream
from ..context import CommandExit, Ctx
from ..fsutil import regular_stdin
from ..options import CommandSpec, Opt
from ..record import Effects, WriteFailure, declare
from .common import Out, parse_size, quote, read_chunks
from .tailfollow import Follower

UINTMAX = 2**64 - 1
INFINITE = 1 << 80

HEAD_SPEC = CommandSpec(
    name="head",
    summary="Print the first 10 lines of each FILE to standard output.",
    opts=(
        Opt(
            "c",
            "bytes",
            arg="required",
            metavar="[-]NUM",
            dest="bytes",
            help="print the first NUM bytes of each file; with the leading '-', print all but the last NUM bytes",
        ),
        Opt(
            "n",
            "lines",
            arg="required",
            metavar="[-]NUM",
            dest="lines",
            help="print the first NUM lines instead of the first 10; with the leading '-', all but the last NUM",
        ),
        Opt("q", "quiet", dest="quiet", help="never print headers giving file names"),
        Opt(None, "silent", dest="quiet"),
        Opt("v", "verbose", dest="verbose", help="always print headers giving file names"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
    ),
)

TAIL_SPEC = CommandSpec(
    name="tail",
    summary="Print the last 10 lines of each FILE to standard output.",
    opts=(
        Opt(
            "c",
            "bytes",
            arg="required",
            metavar="[+]NUM",
            dest="bytes",
            help="output the last NUM bytes; or use -c +NUM to output starting with byte NUM",
        ),
        Opt(
            "f",
            "follow",
            arg="optional",
            metavar="name|descriptor",
            help="output appended data as the file grows (until the run's deadline, a timeout or a signal)",
        ),
        Opt("F", None, dest="F", help="same as --follow=name --retry"),
        Opt(
            "n",
            "lines",
            arg="required",
            metavar="[+]NUM",
            dest="lines",
            help="output the last NUM lines; or use -n +NUM to skip NUM-1 lines at the start",
        ),
        Opt(None, "max-unchanged-stats", arg="required", metavar="N", help="(ignored)"),
        Opt(None, "pid", arg="required", metavar="PID", help="with -f, terminate after process ID dies"),
        Opt("q", "quiet", dest="quiet", help="never output headers giving file names"),
        Opt(None, "silent", dest="quiet"),
        Opt(None, "retry", help="keep trying to open a file if it is inaccessible"),
        Opt(
            "s",
            "sleep-interval",
            arg="required",
            metavar="N",
            help="with -f, sleep N seconds between iterations",
        ),
        Opt("v", "verbose", dest="verbose", help="always output headers giving file names"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
        # a digit getopt meets (`tail -2 a b`: the obsolete form takes one file at most)
        *(Opt(d, None, dest="digit", const=d, stop=True) for d in "0123456789"),
    ),
)

_HEAD_OBSOLETE = re.compile(r"-(\d+)([bkm]?)([cl]?)([qvz]*)$")
_TAIL_OBSOLETE = re.compile(r"([+-])(\d*)([bcl]?)(f?)$")


def _count(ctx: Ctx, text: str, what: str, allow_neg: bool) -> tuple[int, str]:
    """Parse a -n/-c value: (count, sign) where sign is '-', '+' or ''."""
    sign = ""
    body = text
    if body[:1] in "+-" and body:
        sign = body[0]
        body = body[1:]
    value = parse_size(body, "bkKmMGTPEZYRQ0")
    shown = body if sign == "-" else text  # (GNU skips a leading '-' before it reads the number)
    if value is None or body[:1] in "+-":
        raise _bad(ctx, what, shown)
    if value > UINTMAX:
        ctx.error(f"invalid number of {what}: {quote(ctx, shown)}: Value too large for defined data type")
        raise CommandExit(1)
    if not allow_neg and sign == "-":
        sign = ""
    return value, sign


def _bad(ctx: Ctx, what: str, text: str) -> CommandExit:
    ctx.error(f"invalid number of {what}: {quote(ctx, text)}")
    return CommandExit(1)


class _Job:
    """Shared driver: headers between files, open/read errors, unread on stdin."""

    def __init__(self, ctx: Ctx, files: list[str], verbose: bool, quiet: bool) -> None:
        self.ctx = ctx
        self.files = files or ["-"]
        self.headers = verbose or (len(self.files) > 1 and not quiet)
        self.out = Out(ctx.stdout)
        self.first = True
        self.headed = 0  # operands whose header is out
        self.fstat_first = False  # tail: a closed stdin fails its fstat, not its read

    def run(self, each: Callable[[Stream], None]) -> int:
        inputs = self.ctx.inputs(
            self.files, "cannot open {af} for reading: {err}", "error reading {af}: {err}", self.out.flush
        )
        inputs.stdin_name = "standard input"

        def before_read_error() -> None:
            if self.headed < inputs.tried:  # a directory: its header comes before the message
                self._header(inputs.current)
            self.out.flush()

        inputs.on_read_error = before_read_error
        for name, stream in inputs:
            self._header(name)
            if self.fstat_first and isinstance(stream, ClosedStream):
                inputs.fail("cannot fstat {af}: {err}", errno.EBADF)  # (tail fstat()s before it reads)
                continue
            with inputs.reading():
                each(stream)
        self.out.flush()
        return inputs.status

    def _header(self, name: str) -> None:
        self.headed += 1
        shown = "standard input" if name == "-" else name
        if self.headers:
            self.out.write(
                ("" if self.first else "\n").encode()
                + f"==> {shown} <==\n".encode("utf-8", "surrogateescape")
            )
        self.first = False


def _give_back(ctx: Ctx, stream: Stream, unused: int) -> None:
    """Leave the last `unused` bytes read for the next reader when stdin is a regular file (GNU
    seeks back)."""
    stdin = regular_stdin(ctx, stream)
    if unused and stdin is not None:
        stdin.reposition(stdin.tell() - unused)


# ------------------------------------------------------------------ head


def _head_lines(ctx: Ctx, stream: Stream, out: Out, n: int, sep: bytes) -> None:
    if n <= 0:
        return
    for chunk in read_chunks(ctx, stream):
        found = chunk.count(sep)
        if found < n:
            n -= found
            out.write(chunk)
            continue
        pos = -1
        for _ in range(n):
            pos = chunk.find(sep, pos + 1)
        out.write(chunk[: pos + 1])
        _give_back(ctx, stream, len(chunk) - pos - 1)
        return


def _head_bytes(ctx: Ctx, stream: Stream, out: Out, n: int) -> None:
    while n > 0:
        chunk = stream.read(min(n, 1 << 16))
        if not chunk:
            return
        ctx.checkpoint((len(chunk) >> 12) + 1)
        out.write(chunk)
        n -= len(chunk)


def _head_all_but_bytes(ctx: Ctx, stream: Stream, out: Out, n: int) -> None:
    # the held-back tail (up to n bytes: a user's number) is charged to the run's memory budget
    buf = bytearray()
    with ctx.hold_memory() as mem:
        for chunk in read_chunks(ctx, stream):
            mem.charge(len(chunk))
            buf += chunk
            if len(buf) > n:
                cut = len(buf) - n
                out.write(bytes(buf[:cut]))
                del buf[:cut]
                mem.set(len(buf))
        _give_back(ctx, stream, len(buf))


def _head_all_but_lines(ctx: Ctx, stream: Stream, out: Out, n: int, sep: bytes) -> None:
    pending: deque[bytes] = deque()
    with ctx.hold_memory() as mem:
        for line in stream.lines(sep, ctx.budget):
            ctx.checkpoint()
            mem.charge(len(line) + 48)  # a line object's overhead too: many short lines add up
            pending.append(line)
            if len(pending) > n:
                first = pending.popleft()
                mem.release(len(first) + 48)
                out.write(first)
        _give_back(ctx, stream, sum(map(len, pending)))


def _split_head_obsolete(args: list[str]) -> list[str]:
    if args and (m := _HEAD_OBSOLETE.match(args[0])):
        digits, mult, unit, flags = m.groups()
        value = digits + {"b": "b", "k": "K", "m": "M", "": ""}[mult]
        new = [("-c" if unit == "c" else "-n"), value] + [f"-{f}" for f in flags]
        return new + args[1:]
    return args


# GNU head and tail check each write of a full buffer themselves; close_stdout reports the rest
WRITE_FAILURE = WriteFailure(in_flight="{name}: error writing 'standard output': {err}\n")


@declare("head", spec=HEAD_SPEC, effects=Effects.READS, stdin_close="-", write_failure=WRITE_FAILURE)
def cmd_head(ctx: Ctx) -> int:
    opts, files = ctx.parse(HEAD_SPEC, _split_head_obsolete(list(ctx.args)))
    sep = b"\0" if opts.get("zero_terminated") else b"\n"
    mode = "lines"
    value, sign = 10, ""
    for key, raw in opts.order:
        if key in ("lines", "bytes"):
            mode = key
            value, sign = _count(ctx, raw, key, allow_neg=True)
    verbose = quiet = False
    for key, _ in opts.order:
        if key == "verbose":
            verbose, quiet = True, False
        elif key == "quiet":
            verbose, quiet = False, True
    job = _Job(ctx, files, verbose, quiet)
    job.fstat_first = sign == "-"  # (eliding the end, GNU head fstat()s the input first)
    out = job.out

    def each(stream: Stream) -> None:
        if mode == "lines":
            if sign == "-":
                _head_all_but_lines(ctx, stream, out, value, sep)
            else:
                _head_lines(ctx, stream, out, value, sep)
        elif sign == "-":
            _head_all_but_bytes(ctx, stream, out, value)
        else:
            _head_bytes(ctx, stream, out, value)

    return job.run(each)


# ------------------------------------------------------------------ tail


def _tail_from_line(ctx: Ctx, stream: Stream, out: Out, start: int, sep: bytes) -> None:
    skip = max(start - 1, 0)
    for chunk in read_chunks(ctx, stream):
        if skip:
            found = chunk.count(sep)
            if found < skip:
                skip -= found
                continue
            pos = -1
            for _ in range(skip):
                pos = chunk.find(sep, pos + 1)
            chunk = chunk[pos + 1 :]
            skip = 0
        out.write(chunk)


def _tail_from_byte(ctx: Ctx, stream: Stream, out: Out, start: int) -> None:
    skip = max(start - 1, 0)
    for chunk in read_chunks(ctx, stream):
        if skip:
            if len(chunk) <= skip:
                skip -= len(chunk)
                continue
            chunk = chunk[skip:]
            skip = 0
        out.write(chunk)


def _last_lines(data: bytes, n: int, sep: bytes) -> bytes:
    """The last n lines of data (a final unterminated line counts as one)."""
    if n <= 0 or not data:
        return b""
    end = len(data)
    pos = end - 1 if data.endswith(sep) else end
    for _ in range(n):
        pos = data.rfind(sep, 0, pos)
        if pos < 0:
            return data
    return data[pos + 1 :]


def _tail_lines(ctx: Ctx, stream: Stream, out: Out, n: int, sep: bytes) -> None:
    if n <= 0:
        return
    if isinstance(stream, FileStream) and not stream.buffered():
        _tail_lines_seek(ctx, stream, out, n, sep)
        return
    # keep just enough chunks to hold the last n lines; what is kept (an endless line from
    # /dev/zero keeps everything) is charged to the run's memory budget
    chunks: deque[bytes] = deque()
    counts: deque[int] = deque()
    total = 0
    with ctx.hold_memory() as mem:
        for chunk in read_chunks(ctx, stream):
            c = chunk.count(sep)
            mem.charge(len(chunk))
            chunks.append(chunk)
            counts.append(c)
            total += c
            while len(chunks) > 1 and total - counts[0] > n:
                total -= counts.popleft()
                mem.release(len(chunks.popleft()))
        mem.charge(mem.held)  # the joined copy
        out.write(_last_lines(b"".join(chunks), n, sep))


def _tail_lines_seek(ctx: Ctx, stream: FileStream, out: Out, n: int, sep: bytes) -> None:
    handle = stream.handle
    size = handle.seek(0, 2)
    pos = size
    block = 1 << 16
    parts: list[bytes] = []
    found = 0
    first = True
    while pos > 0:
        start = max(0, pos - block)
        handle.seek(start)
        data = handle.read(pos - start)
        ctx.checkpoint((len(data) >> 12) + 1)
        c = data.count(sep)
        if first and data.endswith(sep):
            c -= 1
        first = False
        parts.append(data)
        found += c
        pos = start
        if found >= n:
            break
    out.write(_last_lines(b"".join(reversed(parts)), n, sep))
    handle.seek(size)


def _tail_bytes(ctx: Ctx, stream: Stream, out: Out, n: int) -> None:
    if n <= 0:
        return
    if isinstance(stream, FileStream) and not stream.buffered():
        handle = stream.handle
        size = handle.seek(0, 2)
        handle.seek(max(0, size - n))
        _head_bytes(ctx, stream, out, n)
        return
    buf = bytearray()
    with ctx.hold_memory() as mem:
        for chunk in read_chunks(ctx, stream):
            mem.charge(len(chunk))
            buf += chunk
            if len(buf) > n:
                del buf[: len(buf) - n]
                mem.set(len(buf))
        mem.charge(len(buf))  # the copy written out
        out.write(bytes(buf))


def _split_tail_obsolete(args: list[str]) -> tuple[list[str], bool]:
    """GNU's obsolete `tail [+-]NUM[bcl][f] [FILE]` (one file operand at most)."""
    n = len(args)
    if not (
        n == 1
        or (n == 2 and not (args[1].startswith("-") and len(args[1]) > 1))
        or (2 <= n <= 3 and args[1] == "--")
    ):
        return args, False
    m = _TAIL_OBSOLETE.match(args[0])
    if not m:
        return args, False
    sign, digits, unit, follow = m.groups()
    if sign == "-" and not digits and (not unit or unit == "c") and not follow:
        return args, False
    if sign == "-" and not digits and not unit:
        return args, False
    count = digits or "10"
    if unit == "b":
        count += "b"
    key = "-c" if unit in ("b", "c") else "-n"
    value = ("+" if sign == "+" else "") + count
    new = [key, value] + (["-f"] if follow else [])
    return new + args[1:], True


@declare("tail", spec=TAIL_SPEC, effects=Effects.READS, stdin_close="-", write_failure=WRITE_FAILURE)
def cmd_tail(ctx: Ctx) -> int:
    args, _obsolete = _split_tail_obsolete(list(ctx.args))
    opts, files = ctx.parse(TAIL_SPEC, args)
    sep = b"\0" if opts.get("zero_terminated") else b"\n"
    mode = "lines"
    value, sign = 10, ""
    for key, raw in opts.order:  # (in order: GNU checks each as its option loop meets it)
        if key in ("lines", "bytes"):
            mode = key
            value, this_sign = _count(ctx, raw, key, allow_neg=False)
            # GNU's from_start is set by a `+` and never cleared: `-n +2 -c 5` prints from byte 5
            sign = "+" if sign == "+" else this_sign
        elif key == "digit":
            ctx.error(f"option used in invalid context -- {raw}")
            raise CommandExit(1)
    if value == 0 and sign != "+" and not (opts.has("follow") or opts.has("F")):
        return 0  # GNU tail has nothing to do for -n 0 / -c 0 when not following: no file is opened
    verbose = quiet = False
    for key, _ in opts.order:
        if key == "verbose":
            verbose, quiet = True, False
        elif key == "quiet":
            verbose, quiet = False, True
    follow = opts.has("follow") or opts.has("F")
    interval = _interval(ctx, opts.get("sleep_interval", "1"))
    job = _Job(ctx, files, verbose, quiet)
    job.fstat_first = True
    out = job.out

    def each(stream: Stream) -> None:
        if mode == "lines":
            if sign == "+":
                _tail_from_line(ctx, stream, out, value, sep)
            else:
                _tail_lines(ctx, stream, out, value, sep)
        elif sign == "+":
            _tail_from_byte(ctx, stream, out, value)
        else:
            _tail_bytes(ctx, stream, out, value)

    status = job.run(each)
    # a pipe on stdin is not followed (GNU drops it); files are, until the run stops tail
    names = [f for f in files if f != "-"]
    if follow and names:
        by_name = opts.has("F") or opts.get("follow") == "name"
        Follower(ctx, out, names, job.headers, by_name).run(interval)
    return status


def _interval(ctx: Ctx, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        ctx.error(f"invalid number of seconds: {quote(ctx, text)}")
        raise CommandExit(1)
    return value
