"""paste: merge lines of files side by side (or serially with -s)."""

from __future__ import annotations

import errno
from collections.abc import Iterable, Iterator
from itertools import repeat

from ...stdio.streams import Stream, StreamReadError
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..options import CommandSpec, Opt
from ..record import WRITE_ERROR_TWICE, Effects, declare
from ..textbasic.common import Out, close_input, encode, fail, file_error, quotef, split_records

PASTE_SPEC = CommandSpec(
    name="paste",
    summary="Write lines consisting of the sequentially corresponding lines from each FILE, separated by TABs.",
    opts=(
        Opt(
            "d",
            "delimiters",
            arg="required",
            metavar="LIST",
            help="reuse characters from LIST instead of TABs",
        ),
        Opt("s", "serial", help="paste one file at a time instead of in parallel"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
    ),
)

_ESC = {"0": b"", "\\": b"\\", "b": b"\b", "f": b"\f", "n": b"\n", "r": b"\r", "t": b"\t", "v": b"\v"}


def parse_delims(ctx: Ctx, text: str) -> list[bytes]:
    """-d LIST: one delimiter per character; `\\0` is the empty delimiter."""
    out: list[bytes] = []
    raw = encode(text)
    i = 0
    while i < len(raw):
        c = raw[i : i + 1]
        if c == b"\\":
            if i + 1 >= len(raw):
                raise fail(ctx, f"delimiter list ends with an unescaped backslash: {text}")
            nxt = chr(raw[i + 1])
            out.append(_ESC.get(nxt, raw[i + 1 : i + 2]))
            i += 2
            continue
        # a multibyte UTF-8 character is one delimiter
        j = i + 1
        if raw[i] >= 0xC0:
            while j < len(raw) and 0x80 <= raw[j] < 0xC0:
                j += 1
        out.append(raw[i:j])
        i = j
    return out


class _LineSource:
    """Lines of one input; several operands may share standard input. An input that cannot be
    read (a directory) is at its end from the start, named on stderr when first read."""

    def __init__(self, ctx: Ctx, name: str, stream: Stream | None, sep: bytes) -> None:
        self.ctx = ctx
        self.name = name
        self.stream = stream
        self.sep = sep
        self.pending: list[bytes] = []  # the batch being taken, from `pos` on
        self.pos = 0
        self.it: Iterator[tuple[list[bytes], bool]] | None = None
        self.error = errno.EISDIR if stream is None else 0
        if stream is not None:
            self.it = split_records(ctx, stream, sep)

    def next(self) -> bytes | None:
        """The next line, or None at the end; _Unreadable once reading failed (for every
        operand that shares the input, as each of GNU's FILEs for `-` keeps its error)."""
        while self.pos >= len(self.pending):
            if self.error:
                raise _Unreadable
            if self.it is None:
                return None
            try:
                batch, _tail = next(self.it)
            except StopIteration:
                self.it = None
                return None
            except StreamReadError as e:
                self.it = None
                self.error = e.errno or errno.EIO
                raise _Unreadable from None
            self.pending = batch
            self.pos = 0
        line = self.pending[self.pos]
        self.pos += 1
        return line

    def finished(self, columns: list[int], reported: set[int]) -> bool:
        """At its end for good: read to its end, or unreadable and named for each of its
        `columns` (then only empty cells come from it, and no message)."""
        if self.it is not None or self.pos < len(self.pending):
            return False
        return not self.error or all(i in reported for i in columns)

    def held(self) -> int:
        """Lines read and not yet taken (taking them reads nothing)."""
        return len(self.pending) - self.pos

    def take(self, n: int) -> list[bytes]:
        """The next `n` held lines."""
        pos = self.pos
        self.pos = pos + n
        return self.pending[pos : pos + n]


class _Unreadable(Exception):
    """An input was named on stderr as unreadable: the status becomes 1, it is at its end."""


@declare("paste", spec=PASTE_SPEC, effects=Effects.READS, stdin_close="-", write_failure=WRITE_ERROR_TWICE)
def cmd_paste(ctx: Ctx) -> int:
    opts, files = ctx.parse(PASTE_SPEC)
    delims = parse_delims(ctx, opts.get("delimiters", "\t"))
    if not delims:
        delims = [b""]
    sep = b"\0" if opts.get("zero_terminated") else b"\n"
    names = files or ["-"]
    out = Out(ctx.stdout)
    status = 0
    if opts.get("serial"):
        inputs = ctx.inputs(names, flush=out.flush)
        inputs.on_read_error = lambda: out.write(sep)  # GNU ends the line of a file it could not read
        for _name, stream in inputs:
            with inputs.reading():
                first = True
                k = 0
                for lines, _tail in split_records(ctx, stream, sep):
                    if len(delims) == 1:  # (a batch is one join: no write per line)
                        if not first:
                            out.write(delims[0])
                        out.write(delims[0].join(lines))
                        first = False
                        continue
                    for line in lines:
                        if not first:
                            out.write(delims[k % len(delims)])
                            k += 1
                        out.write(line)
                        first = False
                out.write(sep)
        out.flush()
        return inputs.status
    sources: list[_LineSource] = []
    shared: dict[int, _LineSource] = {}
    for name in names:
        opened: Stream | None
        try:
            opened = ctx.open_in(name)
        except FsError as e:
            if e.errno != errno.EISDIR:  # (a directory opens in GNU: its first read fails)
                file_error(ctx, name, e)
                return 1
            opened = None
        src = shared.get(id(opened)) if opened is not None else None
        if src is None:
            src = _LineSource(ctx, name, opened, sep)
            if opened is ctx.stdin:
                shared[id(opened)] = src
        sources.append(src)
    try:
        status = _parallel(sources, delims, sep, out)
    finally:
        for s in sources:
            if s.stream is not None:
                close_input(ctx, s.name, s.stream)
        out.flush()
    return status


def _parallel(sources: list[_LineSource], delims: list[bytes], sep: bytes, out: Out) -> int:
    """The rows of `paste` without -s. GNU writes a line and the delimiter after it as it reads
    them and holds the delimiters of inputs at their end: a message comes after what is out.
    Rows whose every line is already read are made together (_full_rows); a row that reads
    goes one line at a time, as GNU's order of output and messages asks."""
    status = 0
    reported: set[int] = set()  # operands named as unreadable (each once, then at their end)
    # each distinct input and the columns it fills (`paste - -` takes two lines a row from one)
    columns: dict[int, list[int]] = {}
    for i, s in enumerate(sources):
        columns.setdefault(id(s), []).append(i)
    owners = {id(s): s for s in sources}
    groups = [(owners[key], cols) for key, cols in columns.items()]
    between = [delims[(i - 1) % len(delims)] for i in range(1, len(sources))]
    while True:
        # inputs at their end (named already if unreadable) give empty cells; the others lines
        live = [g for g in groups if not g[0].finished(g[1], reported)]
        rows = min((s.held() // len(cols) for s, cols in live), default=0)
        if rows:
            out.write(_full_rows(live, len(sources), between, sep, rows))
            continue
        parts: list[bytes] = []
        sent = committed = 0  # parts written out; parts GNU would have written by now
        had_line = False
        for i, s in enumerate(sources):
            if i:
                parts.append(between[i - 1])
                if had_line:
                    committed = len(parts)
            try:
                cell = s.next()
            except _Unreadable:
                cell = None
                if i not in reported:
                    reported.add(i)
                    out.write(b"".join(parts[sent:committed]))
                    out.flush()
                    sent = committed
                    s.ctx.error(f"{quotef(s.name)}: {strerror(s.error)}")
                    status = 1
            had_line = cell is not None
            if cell is not None:
                parts.append(cell)
                committed = len(parts)
        if not committed:  # every input at its end
            return status
        parts.append(sep)
        out.write(b"".join(parts[sent:]))


def _full_rows(
    groups: list[tuple[_LineSource, list[int]]], width: int, between: list[bytes], sep: bytes, rows: int
) -> bytes:
    """`rows` whole rows of held lines, each ended by `sep`: a column is every k-th line an input
    holds when it fills k columns (empty for an input not in `groups`, at its end), and the rows
    are zipped from the columns (no step per line)."""
    cols: list[list[bytes]] = [[b""] * rows] * width  # (an input at its end: empty cells)
    for s, where in groups:
        k = len(where)
        block = s.take(rows * k)
        for t, i in enumerate(where):
            cols[i] = block[t::k] if k > 1 else block
    if width == 1:
        made = cols[0]
    elif len(set(between)) == 1:
        made = list(map(between[0].join, zip(*cols, strict=True)))
    else:
        mixed: list[Iterable[bytes]] = [cols[0]]
        for d, col in zip(between, cols[1:], strict=True):
            mixed += (repeat(d, rows), col)
        made = list(map(b"".join, zip(*mixed, strict=True)))
    made.append(b"")
    return sep.join(made)
