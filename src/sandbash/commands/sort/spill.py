"""Sorted runs kept in memory, most of them compressed, and merged a block of each at a time.

A run that does not fit the run's share of memory is sorted, cut into blocks of about
BLOCK_BYTES and each block stored: the first RAW_BYTES of all runs as they are, the rest
compressed (raw deflate, fastest level: sorted text shrinks about four times; compressing is
most of what a spill costs, and an input a little over one run needs none of it). A keyed
sort stores its integer key values beside the lines (a column of 64-bit integers a key), so
the merge reads numbers, not text, for -n keys; other keys (text: a piece of the line, cheaper
made again than stored) are extracted again as a block is read. What is stored is charged to the run's max_memory while
it is held, so a huge input ends with that limit, never on the host's disk or through a
filesystem grant (GNU sort writes its runs to TMPDIR; nothing here touches a file).

The merge takes every run's pending lines (a run is topped up a block at a time to its share of
MERGE_BYTES: what the merge holds does not grow with the number of runs), finds the least of
their last keys (`bound`: no line still unread in any run sorts before it), and hands every record up to it to one stable
C-speed sort of the pieces laid end to end in run order, so Python does per-block work, not
per-line heap operations. Equal lines keep GNU's merge order (an earlier run's first), also
across a block boundary: once a run whose block ends on `bound` is met, later runs give only
the lines strictly before it this round."""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterator
from itertools import islice, repeat
from operator import itemgetter

from ..context import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .main import Sorter

# text per block: the least a run holds in the merge (compressing blocks of this size loses
# under 2% against 256 KiB ones)
BLOCK_BYTES = 64 << 10
# text the merge keeps pending over all runs: each run is topped up to its share (a block at
# least), so the merge holds about the same whatever the number of runs
MERGE_BYTES = 2 << 20
# what a line pending in the merge holds at least: an empty bytes object (33) and its slot
_LINE_MIN = 41
# stored bytes of spilled runs kept uncompressed (then every block is compressed)
RAW_BYTES = 0
# a run's pending lines below this are topped up with its next block before a round
_TOP_UP = 512
# bytes a line costs in a list besides its text (the bytes object and its slot)
_LINE_COST = 48
# a block's form: compressed or not (its stored size in the bits above)
_PACKED = 1


class MemRuns:
    """The spilled runs: each a queue of blocks (form, text, key columns), charged to max_memory."""

    def __init__(self, ctx: Ctx, sorter: Sorter, sep: bytes) -> None:
        self.ctx = ctx
        self.sorter = sorter
        self.sep = sep
        self.runs: list[deque[tuple[int, bytes, list[bytes | None]]]] = []
        self.hold = ctx.hold_memory()
        # (a small budget keeps every block compressed: what it holds goes further)
        self.raw_room = min(RAW_BYTES, ctx.limits.max_memory // 16)

    def spill(self, records: list[Any] | Iterator[Any], per_block: int, lines: bool = False) -> None:
        """Store one sorted run, `per_block` records (or `lines`: their lines only) to a block. A
        list is emptied as it is stored, so what is stored of it is no longer held twice."""
        ctx = self.ctx
        blocks: deque[tuple[int, bytes, list[bytes | None]]] = deque()
        self.runs.append(blocks)
        plain = self.sorter.plain or lines
        for part in blocks_of(records, per_block):
            ctx.checkpoint(len(part))
            text, columns = self._pack(part, plain)
            size = len(text) + sum(len(c) for c in columns if c is not None)
            form = 0
            if size <= self.raw_room:
                self.raw_room -= size
            else:
                form = _PACKED
                text = zlib.compress(text, 1, -15)
                columns = [None if c is None else zlib.compress(c, 1, -15) for c in columns]
                size = len(text) + sum(len(c) for c in columns if c is not None)
            self.hold.charge(size)
            blocks.append((form | size << 1, text, columns))

    def _pack(self, part: list[Any], plain: bool) -> tuple[bytes, list[bytes | None]]:
        """A block's lines joined, and a keyed sort's integer key values a column each (the
        other keys, text or numbers of other kinds, are made again as the block is read)."""
        if plain:
            return self.sep.join(part), []
        n = len(self.sorter.extractors)
        columns: list[bytes | None] = []
        for i in range(n):
            try:
                columns.append(array("q", map(itemgetter(i), part)).tobytes())
            except (TypeError, OverflowError):  # not integers, or not 64-bit ones
                columns.append(None)
        return self.sep.join(map(itemgetter(n), part)), columns

    def keeps_keys(self, records: list[Any]) -> bool:
        """Whether a keyed run's records have integer keys, which a stored block keeps."""
        if self.sorter.plain or not records:
            return False
        return any(type(v) is int for v in records[0][: len(self.sorter.extractors)])

    def reader(self, i: int) -> Iterator[list[Any]]:
        """Run i's blocks as lists of records, each stored block dropped (and its charge given
        back) as it is read."""
        blocks = self.runs[i]
        sep = self.sep
        sorter = self.sorter
        while blocks:
            form, text, columns = blocks.popleft()
            self.hold.release(form >> 1)
            if form & _PACKED:
                text = zlib.decompress(text, -15)
                columns = [None if c is None else zlib.decompress(c, -15) for c in columns]
            lines = text.split(sep)
            if sorter.plain:
                yield lines
            elif not any(c is not None for c in columns):
                yield sorter.decorate(self.ctx, lines)
            else:
                made = [
                    list(sorter.bulks[k](lines)) if c is None else _ints(c) for k, c in enumerate(columns)
                ]
                yield list(zip(*made, lines, strict=True))

    def close(self) -> None:
        self.runs.clear()
        self.hold.close()


def _ints(data: bytes) -> list[int]:
    column = array("q")
    column.frombytes(data)
    return column.tolist()


def per_block(nbytes: int, nlines: int) -> int:
    """Lines to a block for a run of `nlines` lines of `nbytes` bytes of text in all."""
    return max(1, min(16384, BLOCK_BYTES * max(1, nlines) // max(1, nbytes)))


def blocks_of(records: list[Any] | Iterator[Any], n: int) -> Iterator[list[Any]]:
    """Records `n` at a time (a counted run comes one at a time: never a list of every copy). A
    list's slots are emptied as they are given, so what was taken is not held twice."""
    if isinstance(records, list):
        for i in range(0, len(records), n):
            part = records[i : i + n]
            records[i : i + n] = repeat(None, len(part))  # (no memmove, as a del would make)
            yield part
        records.clear()
        return
    while part := list(islice(records, n)):
        yield part


def merge_blocks(ctx: Ctx, sorter: Sorter, runs: list[Iterator[list[Any]]]) -> Iterator[list[bytes]]:
    """The sorted runs (lists of records) merged, as lists of lines in output order (-u applied)."""
    key = sorter.record_key()
    same = sorter.record_same() if sorter.unique else None
    k = len(runs)
    want = _TOP_UP  # a run's pending records below this are topped up (then its share: below)
    sized = False
    bufs: list[list[Any]] = [[] for _ in range(k)]
    live = [True] * k  # the run may have blocks still unread
    mem = ctx.hold_memory()
    costs = [0] * k
    per_record = _LINE_COST + sorter.record_cost(1)
    prev: Any = None
    try:
        while True:
            for i in range(k):
                if live[i] and len(bufs[i]) < want:
                    bufs[i] = _top_up(runs[i], bufs[i], live, i, want)
                    costs[i] = sorter.text_bytes(bufs[i]) + per_record * len(bufs[i])
            mem.set(sum(costs))
            if not sized:
                # each run's share of MERGE_BYTES, in lines of the first blocks' average length
                pending = sum(map(len, bufs))
                # (a line holds a bytes object and its slot however short: empty lines, counted
                # in their millions, made the share every line of every run: 32 MiB runs' worth)
                text = max(sum(costs) - per_record * pending, _LINE_MIN * pending)
                want = max(_TOP_UP, MERGE_BYTES * pending // max(1, text * k))
                sized = True
            lasts = {i: key(bufs[i][-1]) for i in range(k) if live[i]}
            if not lasts:  # every run is in its last block: all of it goes
                taken = [b for b in bufs if b]
                bufs = [[] for _ in range(k)]
            else:
                taken = _round(bufs, lasts, key)
            out = sorter.merge_records(ctx, [rec for piece in taken for rec in piece])
            if same is not None and out:
                if prev is not None and same(out[0]) == prev:
                    del out[0]
                if out:
                    prev = same(out[-1])
            if out:
                yield sorter.lines_of(out)
            if not lasts:
                return
    finally:
        mem.close()


def _top_up(run: Iterator[list[Any]], buf: list[Any], live: list[bool], i: int, want: int) -> list[Any]:
    for block in run:
        buf = buf + block if buf else block
        if len(buf) >= want:
            return buf
    live[i] = False
    return buf


def _round(bufs: list[list[Any]], lasts: dict[int, Any], key: Callable[[Any], Any]) -> list[list[Any]]:
    """Cut from each run's pending lines what sorts no later than the least last key (see the
    module's note on equal lines); what is cut comes out in run order."""
    bound = min(lasts.values())
    taken: list[list[bytes]] = []
    settled = True  # every earlier run has given all its lines equal to bound
    for i, buf in enumerate(bufs):
        if not buf:
            continue
        cut = (bisect_right if settled else bisect_left)(buf, bound, key=key)
        if cut:
            taken.append(buf[:cut])
            bufs[i] = buf[cut:]
        last = lasts.get(i)
        if last is not None and not bound < last:
            settled = False
    return taken
