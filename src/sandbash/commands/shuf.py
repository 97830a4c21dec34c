"""shuf: random permutations, from the sandbox's random generator (ctx.rng) or, with
--random-source=FILE, from FILE's bytes exactly as GNU shuf draws them (randint.py)."""

from __future__ import annotations

import re

from ..limits import MemoryHold
from ..stdio.streams import Stream
from ..vfs.errors import FsError, strerror
from ..vfs.facade import FileStream
from .context import Ctx
from .fsutil import FileRewrite, rewrites_in_place
from .options import CommandSpec, Opt
from .randint import Chooser, SourceExhausted, randperm, reservoir
from .record import WRITE_ERROR_TWICE, Effects, declare
from .textbasic.common import RECORD_OVERHEAD, Out, encode, quote, quotef, read_held, usage_fail

_RESERVOIR_MIN = 8192 * 1024  # GNU reads a regular file up to this size whole, before drawing

SHUF_SPEC = CommandSpec(
    name="shuf",
    usage="[OPTION]... [FILE]",
    summary="Write a random permutation of the input lines to standard output.",
    opts=(
        Opt("e", "echo", help="treat each ARG as an input line"),
        Opt(
            "i",
            "input-range",
            arg="required",
            metavar="LO-HI",
            help="treat each number LO through HI as an input line",
        ),
        Opt("n", "head-count", arg="required", metavar="COUNT", help="output at most COUNT lines"),
        Opt(
            "o",
            "output",
            arg="required",
            metavar="FILE",
            help="write result to FILE instead of standard output",
        ),
        Opt(None, "random-source", arg="required", metavar="FILE", help="get random bytes from FILE"),
        Opt("r", "repeat", help="output lines can be repeated"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
    ),
)


@declare("shuf", spec=SHUF_SPEC, effects=Effects.OUTPUTS, write_failure=WRITE_ERROR_TWICE)
def cmd_shuf(ctx: Ctx) -> int:
    # the input's text and lines, and the permutation, are charged to the run's memory
    with ctx.hold_memory() as mem:
        try:
            return _shuf(ctx, mem)
        except SourceExhausted as e:
            ctx.error(f"{quote(ctx, e.name)}: end of file")
            return 1


def _shuf(ctx: Ctx, mem: MemoryHold) -> int:
    opts, operands = ctx.parse(SHUF_SPEC)
    sep = b"\0" if opts.get("zero_terminated") else b"\n"
    count: int | None = None
    if opts.get("head_count") is not None:
        text = opts.get("head_count")
        if not text.isdigit():
            ctx.error(f"invalid line count: {quote(ctx, text)}")
            return 1
        count = int(text)
    chooser = Chooser(rng=ctx.rng)
    if opts.get("random_source") is not None:
        try:
            chooser = Chooser(
                ctx.open_in(opts.get("random_source")), opts.get("random_source"), checkpoint=ctx.checkpoint
            )
        except FsError as e:
            ctx.error(f"{quotef(opts.get('random_source'))}: {strerror(e.errno or 5)}")
            return 1
    lines: list[bytes] | range
    if opts.get("input_range") is not None:
        if opts.get("echo"):
            raise usage_fail(ctx, "cannot combine -e and -i options")
        if operands:
            raise usage_fail(ctx, f"extra operand {quote(ctx, operands[0])}")
        text = opts.get("input_range")
        m = re.fullmatch(r"(\d+)-(\d+)", text)
        if m is None or int(m.group(2)) < int(m.group(1)) - 1:
            ctx.error(f"invalid input range: {quote(ctx, text)}")
            return 1
        lines = range(int(m.group(1)), int(m.group(2)) + 1)
    elif opts.get("echo"):
        lines = [encode(a) for a in operands]
    else:
        if len(operands) > 1:
            raise usage_fail(ctx, f"extra operand {quote(ctx, operands[1])}")
        data = b""
        from_file = False
        inputs = ctx.inputs(operands, read_error="read error: {err}")  # (GNU names no file there)
        for _name, stream in inputs:
            with inputs.reading():
                data = read_held(ctx, stream, mem)
            from_file = isinstance(stream, FileStream)
        if inputs.status:
            return 1
        mem.charge(len(data) + RECORD_OVERHEAD * (data.count(sep) + 1))
        lines = data.split(sep)
        if lines and lines[-1] == b"":
            lines.pop()
        if (
            count is not None
            and count
            and not opts.get("repeat")
            and not (from_file and len(data) <= _RESERVOIR_MIN)
        ):
            # GNU samples a pipe (or a large file) while reading it: other draws, other lines
            lines = reservoir(chooser, lines, count)
    out_stream = ctx.stdout
    rewrite: FileRewrite | None = None
    if opts.get("output"):
        try:
            if rewrites_in_place(ctx.fs, opts.get("output")):
                # -o onto a file (often the input): the new order is swapped in only once complete
                rewrite = FileRewrite(ctx.fs, opts.get("output"), prefix="shuf", follow=True, rng=ctx.rng)
                out_stream = rewrite.stream
            else:
                out_stream = ctx.open_out(opts.get("output"))
        except FsError as e:
            ctx.error(f"{quotef(opts.get('output'))}: {strerror(e.errno or 5)}")
            return 1
    if rewrite is None:
        return _shuffle_out(
            ctx, Out(out_stream), lines, count, chooser, sep, bool(opts.get("repeat")), out_stream, mem
        )
    try:
        with rewrite:
            return _shuffle_out(
                ctx, Out(out_stream), lines, count, chooser, sep, bool(opts.get("repeat")), None, mem
            )
    except FsError as e:  # the swap itself was refused: the file keeps its content
        ctx.error(f"{quotef(opts.get('output'))}: {strerror(e.errno or 5)}")
        return 1


def _shuffle_out(
    ctx: Ctx,
    out: Out,
    lines: list[bytes] | range,
    count: int | None,
    chooser: Chooser,
    sep: bytes,
    repeat: bool,
    out_stream: Stream | None,
    mem: MemoryHold,
) -> int:
    """Write the permutation; `out_stream` is closed at the end unless it is stdout (or None)."""
    n = len(lines)

    def item(i: int) -> bytes:
        v = lines[i]
        return str(v).encode() if isinstance(v, int) else v

    if repeat:
        if n == 0:
            if count:
                ctx.error("no lines to repeat")
                return 1
            return 0
        total = count if count is not None else None
        k = 0
        while total is None or k < total:
            ctx.checkpoint()
            out.write(item(chooser.choose(n)) + sep)
            k += 1
        out.flush()
        return 0
    take = n if count is None else min(count, n)
    picks = randperm(chooser, take, n, mem.charge)
    ctx.checkpoint(len(picks) + 1)
    for i in picks:
        out.write(item(i) + sep)
    out.flush()
    if out_stream is not None and out_stream is not ctx.stdout:
        out_stream.close()

    return 0
