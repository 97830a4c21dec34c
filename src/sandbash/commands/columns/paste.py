"""paste: merge lines of files side by side (or serially with -s)."""

from __future__ import annotations

from collections.abc import Iterator

from ...stdio.streams import Stream, StreamError
from ...vfs.errors import FsError
from ..context import Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from ..textbasic.common import Out, close_input, command, encode, fail, file_error, split_records

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
    """Lines of one input; several operands may share standard input."""

    def __init__(self, ctx: Ctx, name: str, stream: Stream, sep: bytes) -> None:
        self.ctx = ctx
        self.name = name
        self.stream = stream
        self.sep = sep
        self.pending: list[bytes] = []
        self.it: Iterator[tuple[list[bytes], bool]] | None = split_records(ctx, stream, sep)
        self.done = False

    def next(self) -> bytes | None:
        while not self.pending:
            if self.it is None:
                return None
            try:
                batch, _tail = next(self.it)
            except StopIteration:
                self.it = None
                return None
            self.pending = batch[::-1]
        return self.pending.pop()


@declare("paste", spec=PASTE_SPEC, effects=Effects.READS)
@command
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
        try:
            stream = ctx.open_in(name)
        except FsError as e:
            file_error(ctx, name, e)
            return 1
        src = shared.get(id(stream))
        if src is None:
            src = _LineSource(ctx, name, stream, sep)
            if stream is ctx.stdin:
                shared[id(stream)] = src
        sources.append(src)
    try:
        while True:
            row: list[bytes | None] = [s.next() for s in sources]
            if all(r is None for r in row):
                break
            parts: list[bytes] = []
            for i, cell in enumerate(row):
                if i:
                    parts.append(delims[(i - 1) % len(delims)])
                if cell is not None:
                    parts.append(cell)
            parts.append(sep)
            out.write(b"".join(parts))
    except (FsError, StreamError) as e:
        ctx.error(str(e))
        status = 1
    for s in sources:
        close_input(ctx, s.name, s.stream)
    out.flush()
    return status
