"""Stream's read-ahead buffer: every way of reading takes the bytes in order, whatever mix of them
a run uses (`read` a line, `read -n`, head or cat sharing the descriptor, an unread). readline
moves an offset past a line instead of copying the rest, so the other readers must start there."""

from __future__ import annotations

import random

import pytest

from sandbash.stdio.streams import BytesReader, Stream


class Trickle(Stream):
    """A source that gives at most `step` bytes a read, so lines and reads cross its chunks."""

    readable = True

    def __init__(self, data: bytes, step: int) -> None:
        super().__init__()
        self._data = data
        self._pos = 0
        self._step = step

    def _fill(self, n: int) -> bytes:
        pos = self._pos
        chunk = self._data[pos : pos + min(n, self._step)]
        self._pos = pos + len(chunk)
        return chunk


def _data(rng: random.Random) -> bytes:
    return bytes(rng.choice(b"ab\n\n:") for _ in range(rng.randrange(0, 300)))


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("step", [1, 3, 64, 10_000])
def test_a_mix_of_reads_takes_the_input_in_order(seed: int, step: int) -> None:
    rng = random.Random(seed * 7 + step)
    data = _data(rng)
    stream = Trickle(data, step)
    rest = data  # what the stream has yet to give
    while True:
        op = rng.choice(["line", "line", "sep", "n", "chunk", "unread"])
        if op == "line" or op == "sep":
            sep = b"\n" if op == "line" else b":"
            got = stream.readline(sep)
            idx = rest.find(sep)
            want = rest if idx < 0 else rest[: idx + len(sep)]
        elif op == "n":
            n = rng.randrange(1, 9)
            got = stream.read(n)
            # (a read from the source may give fewer bytes, never other ones)
            want = rest[: len(got)] if got else b""
            assert got or not rest
        elif op == "chunk":
            got = stream.read_chunk()
            want = rest[: len(got)]
            assert got or not rest
        else:
            back = bytes(rng.choice(b"xy\n") for _ in range(rng.randrange(0, 4)))
            stream.unread(back)
            rest = back + rest
            continue
        assert got == want
        rest = rest[len(got) :]
        assert stream.buffered() <= len(rest)
        if not rest and rng.random() < 0.5:
            break
        if not data or rng.random() < 0.05:
            break
    tail = rng.choice(["read", "lines", "chunks"])
    if tail == "read":
        assert stream.read() == rest
    elif tail == "lines":
        assert b"".join(stream.lines()) == rest
    else:
        assert b"".join(stream.chunks()) == rest
    assert stream.buffered() == 0


def test_buffered_counts_what_is_left_after_lines() -> None:
    stream = Trickle(b"one\ntwo\nthree\n", 100)
    assert stream.readline() == b"one\n"
    assert stream.buffered() == len(b"two\nthree\n")
    assert stream.read(2) == b"tw"
    assert stream.buffered() == len(b"o\nthree\n")
    assert stream.read_chunk() == b"o\nthree\n"
    assert stream.buffered() == 0
    assert stream.readline() == b""


def test_rewinding_forgets_the_read_ahead() -> None:
    stream = BytesReader(b"a\nb\nc\n")
    assert stream.readline() == b"a\n"
    assert stream.read() == b"b\nc\n"
    stream.seek_start()
    assert stream.readline() == b"a\n"
    stream.seek_start()
    assert stream.buffered() == 0
    assert stream.read() == b"a\nb\nc\n"
