"""Sorted runs kept compressed in memory and merged a block of each at a time.

A run that does not fit the run's share of memory is sorted, cut into blocks of about
BLOCK_BYTES and each block compressed (zlib, fastest level: sorted text shrinks about four
times). The compressed blocks are charged to the run's max_memory while they are held, so a
huge input ends with that limit, never on the host's disk or through a filesystem grant (GNU
sort writes its runs to TMPDIR; nothing here touches a file).

The merge takes every run's current block, finds the least of their last keys (`bound`: no
line still unread in any run sorts before it), and hands every line up to it to one stable
C-speed sort of the pieces laid end to end in run order, so Python does per-block work, not
per-line heap operations. Equal lines keep GNU's merge order (an earlier run's first), also
across a block boundary: once a run whose block ends on `bound` is met, later runs give only
the lines strictly before it this round."""

from __future__ import annotations

import zlib
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice

from ..context import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .main import Sorter

# text per block: what one run contributes to a merge round at most (a few runs' worth is held)
BLOCK_BYTES = 256 << 10
# a run's pending lines below this are topped up with its next block before a round
_TOP_UP = 512
# bytes a line costs in a list besides its text (the bytes object and its slot)
_LINE_COST = 48


class MemRuns:
    """The spilled runs: each a queue of compressed blocks, charged to max_memory."""

    def __init__(self, ctx: Ctx, sep: bytes) -> None:
        self.ctx = ctx
        self.sep = sep
        self.runs: list[deque[bytes]] = []
        self.hold = ctx.hold_memory()

    def spill(self, lines: Iterable[bytes], per_block: int) -> None:
        """Store one sorted run, `per_block` lines to a block."""
        ctx = self.ctx
        blocks: deque[bytes] = deque()
        self.runs.append(blocks)
        sep = self.sep
        it = iter(lines)  # (a counted run comes one line at a time: never a list of every copy)
        while part := list(islice(it, per_block)):
            ctx.checkpoint(len(part))
            blob = zlib.compress(sep.join(part), 1)
            self.hold.charge(len(blob))
            blocks.append(blob)

    def reader(self, i: int) -> Iterator[list[bytes]]:
        """Run i's blocks as lists of lines, each compressed block dropped (and its charge
        given back) as it is read."""
        blocks = self.runs[i]
        sep = self.sep
        while blocks:
            blob = blocks.popleft()
            self.hold.release(len(blob))
            yield zlib.decompress(blob).split(sep)

    def close(self) -> None:
        self.runs.clear()
        self.hold.close()


def per_block(nbytes: int, nlines: int) -> int:
    """Lines to a block for a run of `nlines` lines of `nbytes` bytes of text in all."""
    return max(1, min(16384, BLOCK_BYTES * max(1, nlines) // max(1, nbytes)))


def blocks_of(lines: Iterable[bytes], n: int) -> Iterator[list[bytes]]:
    it = iter(lines)
    while part := list(islice(it, n)):
        yield part


def merge_blocks(ctx: Ctx, sorter: Sorter, runs: list[Iterator[list[bytes]]]) -> Iterator[list[bytes]]:
    """The sorted runs merged, as lists of lines in output order (-u applied)."""
    key = sorter.merge_key()
    same = sorter.equal_key() if sorter.unique else None
    k = len(runs)
    bufs: list[list[bytes]] = [[] for _ in range(k)]
    live = [True] * k  # the run may have blocks still unread
    mem = ctx.hold_memory()
    costs = [0] * k
    prev: Any = None
    try:
        while True:
            for i in range(k):
                if live[i] and len(bufs[i]) < _TOP_UP:
                    bufs[i] = _top_up(runs[i], bufs[i], live, i)
                    costs[i] = sum(map(len, bufs[i])) + _LINE_COST * len(bufs[i])
            mem.set(sum(costs))
            lasts = {i: key(bufs[i][-1]) for i in range(k) if live[i]}
            if not lasts:  # every run is in its last block: all of it goes
                taken = [b for b in bufs if b]
                bufs = [[] for _ in range(k)]
            else:
                taken = _round(bufs, lasts, key)
            out = sorter.sort(ctx, [line for piece in taken for line in piece])
            if same is not None and out:
                if prev is not None and same(out[0]) == prev:
                    del out[0]
                if out:
                    prev = same(out[-1])
            if out:
                yield out
            if not lasts:
                return
    finally:
        mem.close()


def _top_up(run: Iterator[list[bytes]], buf: list[bytes], live: list[bool], i: int) -> list[bytes]:
    for block in run:
        buf = buf + block if buf else block
        if len(buf) >= _TOP_UP:
            return buf
    live[i] = False
    return buf


def _round(bufs: list[list[bytes]], lasts: dict[int, Any], key: Callable[[bytes], Any]) -> list[list[bytes]]:
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
