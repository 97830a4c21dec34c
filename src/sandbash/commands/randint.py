"""Uniform random integers and permutations drawn as GNU coreutils draws them.

With `--random-source=FILE`, GNU tools turn the file's bytes into numbers in one exact way, so the
same file gives the same output everywhere; scripts rely on that for reproducible shuffles. Bytes
are read only when needed (a short file is enough for a short input; /dev/urandom works), and a
file that runs out is an error ("'FILE': end of file"), as in GNU.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..stdio.streams import Stream

_BYTE_MAX = 0xFF
_MASK = (1 << 64) - 1  # GNU's randint is uintmax_t


class SourceExhausted(Exception):
    """The random-source file ended before enough bytes were read."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class Chooser:
    """`choose(n)`: a uniform integer in [0, n). From a byte stream, GNU's randint_genmax: bytes are
    appended to a pool (randnum below randmax + 1) and the unused part of a draw is kept for the
    next one; a draw that falls in the unfair tail is retried with what is left."""

    def __init__(
        self,
        stream: Stream | None = None,
        name: str = "",
        rng: random.Random | None = None,
        checkpoint: Callable[[], None] | None = None,
    ) -> None:
        self.stream = stream
        self.name = name
        self.rng = rng
        self.checkpoint = checkpoint
        self.randnum = 0
        self.randmax = 0

    def _bytes(self, n: int) -> bytes:
        assert self.stream is not None
        data = b""
        while len(data) < n:
            chunk = self.stream.read(n - len(data))
            if not chunk:
                raise SourceExhausted(self.name)
            data += chunk
        return data

    def choose(self, choices: int) -> int:
        if self.stream is None:
            assert self.rng is not None
            return self.rng.randrange(choices)
        genmax = choices - 1
        randnum, randmax = self.randnum, self.randmax
        while True:
            if randmax < genmax:
                need, rmax = 0, randmax
                while rmax < genmax:
                    rmax = ((rmax << 8) + _BYTE_MAX) & _MASK
                    need += 1
                for b in self._bytes(need):
                    randnum = ((randnum << 8) + b) & _MASK
                    randmax = ((randmax << 8) + _BYTE_MAX) & _MASK
            if randmax == genmax:
                self.randnum = self.randmax = 0
                return randnum
            excess = randmax - genmax
            unusable = excess % choices
            last_usable = randmax - unusable
            reduced = randnum % choices
            if randnum <= last_usable:
                self.randnum, self.randmax = randnum // choices, excess // choices
                return reduced
            randnum, randmax = reduced, unusable - 1  # discard this attempt
            if self.checkpoint is not None:
                self.checkpoint()


def randperm(chooser: Chooser, h: int, n: int, charge: Callable[[int], None]) -> list[int]:
    """The first `h` indices of a random permutation of range(n), as GNU's randperm_new: a
    Fisher-Yates pass over the first h slots (a swap map when h is small next to n)."""
    if h == 0:
        return []
    if h == 1:
        return [chooser.choose(n)]
    if h * 4 >= n:
        charge(48 * n)  # a slot and an int object per index
        v = list(range(n))
        for i in range(h):
            j = i + chooser.choose(n - i)
            v[i], v[j] = v[j], v[i]
        return v[:h]
    charge(200 * h)  # two dict entries per swap
    moved: dict[int, int] = {}
    out: list[int] = []
    for i in range(h):
        j = i + chooser.choose(n - i)
        vi, vj = moved.get(i, i), moved.get(j, j)
        moved[i], moved[j] = vj, vi
        out.append(vj)
    return out


def reservoir(chooser: Chooser, items: list[bytes], k: int) -> list[bytes]:
    """GNU shuf's reservoir sampling (its -n on a pipe or a large file): the draws it makes while
    reading, one per line after the first k and one more at the end of the input."""
    kept = items[:k]
    if len(items) < k:
        return kept
    for m in range(k, len(items) + 1):
        j = chooser.choose(m + 1)
        if m < len(items) and j < k:
            kept[j] = items[m]
    return kept
