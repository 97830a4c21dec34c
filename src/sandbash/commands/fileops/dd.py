"""dd (GNU coreutils): copy blocks between files, with the common operands (if, of, bs, ibs, obs,
count, skip, seek, conv, iflag, oflag, status) and GNU's record counts and messages."""

from __future__ import annotations

import errno
from collections.abc import Iterator

from ...limits import MemoryHold
from ...stdio.streams import ClosedStream, DirStream, Stream, StreamReadError
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..options import CommandSpec
from ..record import Effects, declare
from ..textbasic.common import quote, quoteaf

SPEC = CommandSpec(
    name="dd",
    usage="[OPERAND]...\n  or:  dd OPTION",
    summary="Copy a file, converting and formatting according to the operands.",
)

_OPERANDS = (
    "if",
    "of",
    "bs",
    "ibs",
    "obs",
    "cbs",
    "count",
    "skip",
    "iseek",
    "seek",
    "oseek",
    "conv",
    "iflag",
    "oflag",
    "status",
)
_CONVS = frozenset(
    (
        "ascii",
        "ebcdic",
        "ibm",
        "block",
        "unblock",
        "lcase",
        "ucase",
        "sparse",
        "swab",
        "sync",
        "excl",
        "nocreat",
        "notrunc",
        "noerror",
        "fdatasync",
        "fsync",
    )
)
_FLAGS = frozenset(
    (
        "append",
        "direct",
        "directory",
        "dsync",
        "sync",
        "fullblock",
        "nonblock",
        "noatime",
        "nocache",
        "noctty",
        "nofollow",
        "count_bytes",
        "skip_bytes",
        "seek_bytes",
    )
)
_UNITS = {"c": 1, "w": 2, "b": 512, "kB": 1000, "K": 1024, "k": 1024, "KiB": 1024}
for _i, _p in enumerate("MGTPEZYRQ", start=2):
    _UNITS[_p] = _UNITS[_p + "iB"] = 1024**_i
    _UNITS[_p + "B"] = 1000**_i


def _usage(ctx: Ctx, message: str) -> CommandExit:
    ctx.error(message)
    ctx.stderr.write(f"Try '{ctx.help_prog} --help' for more information.\n".encode())
    return CommandExit(1)


def _number(ctx: Ctx, text: str) -> int:
    """GNU dd's numbers: a product of `x`-joined factors, each with an optional unit suffix."""
    total = 1
    for part in text.split("x"):
        digits = part[: len(part) - len(part.lstrip("0123456789"))]
        unit = _UNITS.get(part[len(digits) :]) if part[len(digits) :] else 1
        if not digits or unit is None:
            ctx.error(f"invalid number: {quote(ctx, text)}")
            raise CommandExit(1)
        total *= int(digits) * unit
    return total


def _parse(ctx: Ctx) -> dict[str, str]:
    if ctx.args[:1] in (["--help"], ["--version"]):
        ctx.parse(SPEC)
    ops: dict[str, str] = {}
    for arg in ctx.args:
        key, eq, value = arg.partition("=")
        if arg == "--":
            continue
        if not eq or key not in _OPERANDS:
            raise _usage(ctx, f"unrecognized operand {quote(ctx, arg)}")
        ops[key] = value if key not in ("conv", "iflag", "oflag") else f"{ops.get(key, '')},{value}"
    return ops


def _words(ctx: Ctx, text: str, known: frozenset[str], what: str) -> set[str]:
    words = {w for w in text.split(",") if w}
    for w in words:
        if w not in known:
            raise _usage(ctx, f"invalid {what}: {quote(ctx, w)}")
    return words


def _human(n: int) -> str:
    """`2048 bytes (2.0 kB, 2.0 KiB)`: GNU's two readable sizes after 999 bytes."""
    if n < 1000:
        return f"{n} byte{'s' if n != 1 else ''}"

    def one(base: int, units: str, suffix: str) -> str:
        value, k = float(n), -1
        while value >= base and k + 1 < len(units):
            value /= base
            k += 1
        return f"{value:.1f} {units[k]}{suffix}" if value < 10 else f"{value:.0f} {units[k]}{suffix}"

    return f"{n} bytes ({one(1000, 'kMGTPEZY', 'B')}, {one(1024, 'KMGTPEZY', 'iB')})"


@declare("dd", spec=SPEC, effects=Effects.OPAQUE)
def cmd_dd(ctx: Ctx) -> int:
    ops = _parse(ctx)
    conv = _words(ctx, ops.get("conv", ""), _CONVS, "conversion")
    iflag = _words(ctx, ops.get("iflag", ""), _FLAGS, "input flag")
    oflag = _words(ctx, ops.get("oflag", ""), _FLAGS, "output flag")
    status = ops.get("status", "")
    if status not in ("", "none", "noxfer", "progress"):
        raise _usage(ctx, f"invalid status level: {quote(ctx, status)}")
    ibs = obs = 512
    if "bs" in ops:
        ibs = obs = _number(ctx, ops["bs"])
    else:
        ibs = _number(ctx, ops["ibs"]) if "ibs" in ops else ibs
        obs = _number(ctx, ops["obs"]) if "obs" in ops else obs
    if ibs <= 0 or obs <= 0:
        ctx.error(f"invalid number: {quote(ctx, ops.get('bs') or ops.get('ibs') or ops.get('obs') or '0')}")
        raise CommandExit(1)
    count = _number(ctx, ops["count"]) if "count" in ops else None
    skip = _number(ctx, ops.get("skip") or ops.get("iseek") or "0")
    seek = _number(ctx, ops.get("seek") or ops.get("oseek") or "0")
    skip_bytes = skip if "skip_bytes" in iflag else skip * ibs
    seek_bytes = seek if "seek_bytes" in oflag else seek * obs
    src = ops.get("if")
    stream: Stream
    try:
        stream = ctx.open_in(src) if src is not None else ctx.stdin
    except FsError as e:
        if e.errno != errno.EISDIR:
            ctx.error(f"failed to open '{src}': {e.message}")
            return 1
        stream = DirStream()  # a directory opens; its first read fails
    result = 0
    start = ctx.clock()
    with ctx.hold_memory() as mem:
        mem.charge(ibs + obs)  # (an input block and the output block being filled, before reading)
        blocks = _Reader(ctx, stream, ibs, "fullblock" in iflag)
        stats = [0, 0, 0, 0, 0]  # full in, partial in, full out, partial out, bytes
        try:
            out = _Output(ctx, ops.get("of"), obs, seek_bytes, conv, "append" in oflag, mem)
        except FsError as e:
            ctx.error(f"failed to open '{ops.get('of')}': {e.message}")
            return 1
        try:
            _copy(blocks, out, stats, skip_bytes, count, ibs, conv, iflag, "bs" in ops)
        except StreamReadError as e:  # (`dd < dir`): the copy ends there, the counts still print
            ctx.error(f"error reading {quoteaf(src if src is not None else 'standard input')}: {e.strerror}")
            result = 1
        out.close(stats)
    if isinstance(stream, ClosedStream):
        # dd closes its input before it prints the counts: closing a closed fd 0 fails, fatally
        ctx.error(f"closing input file 'standard input': {strerror(errno.EBADF)}")
        return 1
    if status != "none":
        lines = f"{stats[0]}+{stats[1]} records in\n{stats[2]}+{stats[3]} records out\n"
        if status != "noxfer":
            secs = max(ctx.clock() - start, 1e-06)
            lines += f"{_human(stats[4])} copied, {secs:.5g} s, {_rate(stats[4] / secs)}\n"
        ctx.stderr.write(lines.encode())
    return result


def _copy(
    blocks: _Reader,
    out: _Output,
    stats: list[int],
    skip: int,
    count: int | None,
    ibs: int,
    conv: set[str],
    iflag: set[str],
    whole: bool,
) -> None:
    blocks.skip(skip)
    for block in blocks.blocks(count, "count_bytes" in iflag):
        stats[0 if len(block) == ibs else 1] += 1
        if "sync" in conv and len(block) < ibs:
            block += b"\0" * (ibs - len(block))
        if "swab" in conv:
            block = _swab(block)
        if "ucase" in conv:
            block = block.upper()
        elif "lcase" in conv:
            block = block.lower()
        out.write(block, stats, whole=whole)


def _rate(per_second: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if per_second < 1000:
            return f"{per_second:.3g} {unit}/s"
        per_second /= 1000
    return f"{per_second:.3g} EB/s"


def _swab(block: bytes) -> bytes:
    swapped = bytearray(block)
    swapped[0 : len(block) - 1 : 2], swapped[1::2] = block[1::2], block[0 : len(block) - 1 : 2]
    return bytes(swapped)


class _Reader:
    """Input blocks of at most `ibs` bytes: fewer when a read gives fewer (a pipe), unless
    iflag=fullblock; `count` records (or bytes, with count_bytes)."""

    def __init__(self, ctx: Ctx, stream: Stream, ibs: int, full: bool) -> None:
        self.ctx, self.stream, self.ibs, self.full = ctx, stream, ibs, full

    def skip(self, n: int) -> None:
        while n > 0:
            self.ctx.checkpoint()
            got = self.stream.read(min(n, 1 << 16))
            if not got:
                return
            n -= len(got)

    def blocks(self, count: int | None, count_bytes: bool) -> Iterator[bytes]:
        taken = records = 0
        while count is None or (taken if count_bytes else records) < count:
            self.ctx.checkpoint()
            want = self.ibs if count is None or not count_bytes else min(self.ibs, count - taken)
            block = self.stream.read(want)
            while self.full and block and len(block) < want:
                more = self.stream.read(want - len(block))
                if not more:
                    break
                block += more
            if not block:
                return
            taken += len(block)
            records += 1
            yield block


class _Output:
    """Where the blocks go: a stream, or (seek, conv=notrunc) the file's bytes rewritten at close."""

    def __init__(
        self, ctx: Ctx, path: str | None, obs: int, seek: int, conv: set[str], append: bool, mem: MemoryHold
    ) -> None:
        self.ctx, self.path, self.obs, self.mem = ctx, path, obs, mem
        self.pending = b""
        self.stream: Stream | None = None
        self.image: bytearray | None = None  # the whole file, when written in place
        self.seek = seek
        self.notrunc = "notrunc" in conv
        if path is None:
            self.stream = ctx.stdout
            return
        exists = ctx.names_fd(path) or ctx.fs.try_stat(path) is not None
        if "excl" in conv and exists:
            raise FsError(errno.EEXIST, path)
        if "nocreat" in conv and not exists:
            raise FsError(errno.ENOENT, path)
        if append and not self.notrunc:
            # (GNU opens with O_TRUNC unless notrunc: the file is emptied, then appended to)
            ctx.error("you probably want conv=notrunc with oflag=append")
            append = False
        if ctx.names_fd(path) or append or (not seek and not self.notrunc):
            self.stream = ctx.open_out(path, append=append)
            return
        old = ctx.fs.read_bytes(path) if exists else b""
        mem.charge(len(old) + seek)
        self.image = bytearray(old[:seek].ljust(seek, b"\0"))
        self.tail = old[seek:] if self.notrunc else b""

    def write(self, block: bytes, stats: list[int], whole: bool) -> None:
        if whole:
            self._put(block, stats)
            return
        self.pending += block
        while len(self.pending) >= self.obs:
            self._put(self.pending[: self.obs], stats)
            self.pending = self.pending[self.obs :]

    def _put(self, data: bytes, stats: list[int]) -> None:
        stats[2 if len(data) == self.obs else 3] += 1
        stats[4] += len(data)
        if self.image is not None:
            self.mem.charge(len(data))
            self.image += data
        else:
            assert self.stream is not None
            self.stream.write(data)

    def close(self, stats: list[int]) -> None:
        if self.pending:
            self._put(self.pending, stats)
        if self.image is not None and self.path is not None:
            written = len(self.image) - self.seek
            self.ctx.fs.write_bytes(self.path, bytes(self.image) + self.tail[written:])
        elif self.stream is not None and self.path is not None:
            self.stream.close()
