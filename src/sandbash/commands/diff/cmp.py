"""cmp: compare two files byte by byte (GNU diffutils 3.8)."""

from __future__ import annotations

import errno

from ...limits import MemoryHold
from ...stdio.streams import DirStream, Stream, StreamError, StreamReadError
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import same_file
from ..options import CommandSpec, Opt
from ..record import STDOUT_STATUS_2, Effects, declare
from ..textbasic.common import Out, close_input, encode, parse_size
from .util import parse, usage

CMP_SPEC = CommandSpec(
    name="cmp",
    usage="[OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]",
    summary="Compare two files byte by byte.",
    usage_status=2,
    opts=(
        Opt("b", "print-bytes", help="print differing bytes"),
        Opt(
            "i", "ignore-initial", arg="required", metavar="SKIP", help="skip first SKIP bytes of both inputs"
        ),
        Opt("l", "verbose", help="output byte numbers and differing byte values"),
        Opt("n", "bytes", arg="required", metavar="LIMIT", help="compare at most LIMIT bytes"),
        Opt("s", "quiet", dest="silent", help="suppress all normal output"),
        Opt(None, "silent", dest="silent"),
    ),
)


def _q(text: str) -> str:
    return f"'{text}'"


def _skip_value(ctx: Ctx, text: str) -> int:
    value = parse_size(text, "bkKmMGTPEZY0")
    if value is None:
        raise usage(ctx, f"invalid --ignore-initial value {_q(text)}")
    return value


def _char(b: int) -> str:
    """cat -v style notation, as cmp -b prints it."""
    prefix = ""
    if b >= 128:
        prefix = "M-"
        b -= 128
    if b < 32:
        return prefix + "^" + chr(b + 64)
    if b == 127:
        return prefix + "^?"
    return prefix + chr(b)


@declare("cmp", spec=CMP_SPEC, effects=Effects.READS, write_failure=STDOUT_STATUS_2)
def cmd_cmp(ctx: Ctx) -> int:
    opts, files = parse(ctx, CMP_SPEC)
    if not files:
        raise usage(ctx, "missing operand after 'cmp'")
    if len(files) > 4:
        raise usage(ctx, f"extra operand {_q(files[4])}")
    names = [files[0], files[1] if len(files) > 1 else "-"]
    # each -i and -n is checked where it stands (the first bad one is the error); the largest skip
    # and the smallest limit win, as GNU keeps them (a SKIP operand counts as one more -i)
    skips = [0, 0]
    limit: int | None = None
    for key, text in opts.order:
        if key == "ignore_initial":
            a, _, b = text.partition(":")
            for i, value in enumerate((_skip_value(ctx, a), _skip_value(ctx, b if b else a))):
                skips[i] = max(skips[i], value)
        elif key == "bytes":
            size = parse_size(text, "bkKmMGTPEZY0")
            if size is None:
                raise usage(ctx, f"invalid --bytes value {_q(text)}")
            limit = size if limit is None else min(limit, size)
    for i, extra in enumerate(files[2:4]):
        skips[i] = max(skips[i], _skip_value(ctx, extra))
    verbose = bool(opts.get("verbose"))
    silent = bool(opts.get("silent"))
    if verbose and silent:
        raise usage(ctx, "options -l and -s are incompatible")
    streams: list[Stream] = []
    for name in names:
        try:
            streams.append(ctx.open_in(name))
        except FsError as e:
            if e.errno == errno.EISDIR:  # a directory opens; its read fails (named even with -s)
                streams.append(DirStream())
                continue
            if not silent:
                ctx.error(f"{name}: {strerror(e.errno or 5)}")
            return 2
    # one file named twice is equal unread (GNU's same_file check: `cmp d d` is 0, not a read error)
    if (
        skips[0] == skips[1]
        and not any(n == "-" or ctx.names_fd(n) for n in names)
        and same_file(ctx, *names)
    ):
        for n, s in zip(names, streams, strict=True):
            close_input(ctx, n, s)
        return 0
    with ctx.hold_memory() as mem:  # both inputs are held whole: max_memory bounds them (cmp /dev/zero)
        data: list[bytes] = []
        try:
            for name, s, skip in zip(names, streams, skips, strict=True):
                reading = name
                data.append(_read(ctx, s, skip, limit, mem))
        except StreamReadError as e:  # (`cmp f - < dir`): named, even with -s, as GNU's cmp does
            ctx.error(f"{reading}: {strerror(e.errno or 5)}")
            return 2
        except (FsError, StreamError) as e:
            ctx.error(f"{strerror(e.errno or 5)}")
            return 2
        finally:
            for n, s in zip(names, streams, strict=False):
                close_input(ctx, n, s)
        a, b = data
        out = Out(ctx.stdout)
        status = _compare(ctx, out, names, a, b, skips, verbose, silent, bool(opts.get("print_bytes")))
        out.flush()
        return status


def _read(ctx: Ctx, stream: Stream, skip: int, limit: int | None, mem: MemoryHold) -> bytes:
    parts = []
    total = 0
    for chunk in stream.chunks():
        ctx.checkpoint((len(chunk) >> 12) + 1)
        mem.charge(2 * len(chunk))  # the parts and their joined copy
        parts.append(chunk)
        total += len(chunk)
        if limit is not None and total >= skip + limit:
            break
    data = b"".join(parts)[skip:]
    return data if limit is None else data[:limit]


def _compare(
    ctx: Ctx,
    out: Out,
    names: list[str],
    a: bytes,
    b: bytes,
    skips: list[int],
    verbose: bool,
    silent: bool,
    show: bool,
) -> int:
    n = min(len(a), len(b))
    if verbose:
        width = len(str(min(len(a), len(b))))
        differ = False
        for i in range(n):
            if a[i] != b[i]:
                differ = True
                if show:
                    out.write(
                        encode(f"{i + 1:>{width}} {a[i]:3o} {_char(a[i]):<4} {b[i]:3o} {_char(b[i])}\n")
                    )
                else:
                    out.write(encode(f"{i + 1:>{width}} {a[i]:3o} {b[i]:3o}\n"))
        if len(a) != len(b):
            # GNU writes this with fprintf, not error(): no fflush of stdout comes first
            out.flush_blocks()
            shorter = names[0] if len(a) < len(b) else names[1]
            ctx.error(f"EOF on {shorter} after byte {n}" if n else f"EOF on {shorter} which is empty")
            return 1
        return 1 if differ else 0
    idx = next((i for i in range(n) if a[i] != b[i]), -1) if a[:n] != b[:n] else -1
    if idx >= 0:
        if not silent:
            line = a[:idx].count(b"\n") + 1
            msg = f"{names[0]} {names[1]} differ: byte {idx + 1}, line {line}"
            if show:
                msg += f" is {a[idx]:3o} {_char(a[idx])} {b[idx]:3o} {_char(b[idx])}"
            out.write(encode(msg + "\n"))
        return 1
    if len(a) != len(b):
        if not silent:
            out.flush()
            shorter = names[0] if len(a) < len(b) else names[1]
            if n == 0:
                ctx.error(f"EOF on {shorter} which is empty")
            else:
                lines = a[:n].count(b"\n")
                ctx.error(
                    f"EOF on {shorter} after byte {n}, "
                    + (f"line {lines}" if a[n - 1 : n] == b"\n" else f"in line {lines + 1}")
                )
        return 1
    return 0
