"""Byte streams: what file descriptors point at.

A `Stream` is an open file description: readable, writable or both. Commands
see their stdin/stdout/stderr as streams; pipes, captures, files, here-docs
and devices are all streams. Reads keep an internal buffer so that a `read`
builtin taking one line leaves the rest for the next command, as a shell's
unbuffered read would.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator

from ..limits import Budget, DeadlineExpired, LimitExceeded, LimitKind, Limits, MemoryHold

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class SigPipe(BaseException):
    """A write to a pipe whose reader is gone: the writer dies with status 141."""


# glibc's buffer for a stdout that is no terminal (a pipe's or a file's st_blksize): a tool's output
# reaches the stream in blocks of this size, the rest when it exits or flushes
STDIO_BLOCK = 4096


class StreamError(OSError):
    """A stream operation that failed. `size`: the bytes of a write that failed (0 for a read or
    when unknown): a tool's report of output it could not write differs by whether a full stdio
    buffer was being written (commands/record.py, WriteFailure)."""

    size = 0


def write_failed(code: int, message: str, size: int) -> StreamError:
    """The error of a write of `size` bytes that failed with `code` (`message`: its wording)."""
    e = StreamError(code, message)
    e.size = size
    return e


class StreamReadError(StreamError):
    """A read that failed (`< dir`, a descriptor open only for writing): a command that does not
    word it itself reports GNU's `NAME: read error: ...`, never a write error."""


CHUNK = 65536
# what readline reads ahead at a time (a longer line takes more reads). A line found in the buffer
# moves `_rpos` past it and copies only the line, so the size costs nothing a line (when the rest
# was copied instead, 8K of read-ahead was ~1.3k instructions of memcpy a line of a `while read`)
LINE_CHUNK = 8192
# data held in memory is charged to max_memory from this size (smaller: at most one per fd)
HELD_MIN = 1024
# A batch of lines handed to a command whole stays charged to max_memory while the command works
# on it when it is this big (one very long line), with one copy the command derives from it (its
# output): `rev` of a 200 MB line without a newline held 1.1 GB uncharged under a 256 MB max_memory.
# A line of up to half the limit is still an ordinary input (`sed p` of 100 MB under 256 MB, as GNU
# handles it); what a command makes of it beyond that one copy is bounded by the line's size.
BIG_BATCH = 1 << 20
BATCH_COPIES = 2


def batch_charge(size: int) -> int:
    """What a batch of `size` bytes handed out whole is charged while the command holds it."""
    return size * BATCH_COPIES if size >= BIG_BATCH else 0


class Stream:
    readable = False
    writable = False
    # True for streams that end up in the caller's result (tty-like for `test -t`)
    is_tty = False

    def __init__(self) -> None:
        # bytes read ahead from the source: those from _rpos on are not yet taken (readline moves
        # _rpos past a line rather than copying the rest; anything else takes the rest whole)
        self._rbuf = b""
        self._rpos = 0

    def _take(self) -> bytes:
        """The bytes read ahead and not yet taken, taken."""
        pos = self._rpos
        data = self._rbuf[pos:] if pos else self._rbuf
        self._rbuf = b""
        self._rpos = 0
        return data

    def _drop_read_ahead(self) -> None:
        """Forget what was read ahead (the source was rewound)."""
        self._rbuf = b""
        self._rpos = 0

    # -- reading (subclasses implement _fill)
    def _fill(self, n: int) -> bytes:
        raise StreamReadError(errno.EBADF, "Bad file descriptor")

    def read(self, n: int = -1) -> bytes:
        if not self.readable:
            raise StreamReadError(errno.EBADF, "Bad file descriptor")
        if n < 0:
            parts = [self._take()]
            while True:
                chunk = self._fill(CHUNK)
                if not chunk:
                    break
                parts.append(chunk)
            return b"".join(parts)
        buf = self._rbuf
        pos = self._rpos
        if len(buf) > pos:
            end = pos + n
            if end >= len(buf):
                return self._take()
            self._rpos = end
            return buf[pos:end]
        return self._fill(n)

    def buffered(self) -> int:
        """How many bytes were read ahead from the source and not yet taken: a command that seeks
        the underlying file itself (tail from the end, cat's input-is-output check) must count
        them, or start from the source only when there are none."""
        return len(self._rbuf) - self._rpos

    def read_chunk(self) -> bytes:
        """Whatever is available (at most a chunk); b'' at end of input."""
        if len(self._rbuf) > self._rpos:
            return self._take()
        if not self.readable:
            raise StreamReadError(errno.EBADF, "Bad file descriptor")
        return self._fill(CHUNK)

    def readline(self, sep: bytes = b"\n", limit: int | None = None, keep: bool = False) -> bytes:
        """One line including its separator (or the rest of the input). A line
        longer than `limit` is a max_string_length limit (`read < /dev/zero`). `sep` is one
        byte, as a shell's delimiter is: a longer one is not looked for across two reads. With
        `keep`, a deadline that ends the wait leaves what was read of the line in the read-ahead
        (`read -t` assigns the part it read)."""
        if not self.readable:
            raise StreamReadError(errno.EBADF, "Bad file descriptor")
        buf = self._rbuf
        pos = self._rpos
        idx = buf.find(sep, pos)
        if idx >= 0:
            end = idx + len(sep)
            self._rpos = end
            return buf[pos:end]
        parts = [buf[pos:] if pos else buf]
        size = len(buf) - pos
        while True:
            try:
                chunk = self._fill(LINE_CHUNK)
            except DeadlineExpired:
                if keep:
                    self._rbuf = b"".join(parts)
                    self._rpos = 0
                raise
            if not chunk:
                self._drop_read_ahead()
                return b"".join(parts)
            idx = chunk.find(sep)
            if idx >= 0:
                end = idx + len(sep)
                parts.append(chunk[:end])
                self._rbuf = chunk
                self._rpos = end
                return b"".join(parts)
            parts.append(chunk)
            size += len(chunk)
            if limit is not None and size > limit:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)

    def unread(self, data: bytes) -> None:
        self._rbuf = data + self._take()

    def lines(self, sep: bytes = b"\n", budget: Budget | None = None) -> Iterator[bytes]:
        """Lines with their separators, read in large chunks. The chunks of a line are joined
        once its end is read (a line of N chunks costs N, not N*N), and with a `budget` what is
        held of a line while its end is awaited is charged to max_memory: input with no newline
        (`tr -d '\\n' < /dev/zero | sed p`) ends with that limit, not with the host's memory; so
        is a long line while the caller holds it (`batch_charge`)."""
        chunk = self._take()
        parts: list[bytes] = []
        size = 0
        hold = MemoryHold(budget) if budget is not None else None
        try:
            while True:
                if not chunk:
                    chunk = self._fill(CHUNK)
                    if not chunk:
                        break
                if chunk.find(sep) >= 0:  # (not `in`: a bytes needle is tried as an int first)
                    if parts:
                        parts.append(chunk)
                        if hold is not None and size >= BIG_BATCH:
                            hold.set(2 * (size + len(chunk)))  # the parts and their joined copy
                        chunk = b"".join(parts)
                    pieces = chunk.split(sep)
                    rest = pieces.pop()
                    parts, size = ([rest] if rest else []), len(rest)
                    if hold is not None and len(chunk) >= BIG_BATCH:
                        hold.set(batch_charge(len(chunk)))
                    chunk = b""
                    for p in pieces:
                        yield p + sep
                else:
                    parts.append(chunk)
                    size += len(chunk)
                if hold is not None:
                    hold.set(size if size >= HELD_MIN else 0)
                chunk = b""
            if parts:
                if hold is not None and len(parts) > 1:
                    hold.set(2 * size)  # the parts and their joined copy
                last = b"".join(parts) if len(parts) > 1 else parts[0]
                parts = []
                if hold is not None:
                    hold.set(batch_charge(len(last)))
                yield last
        finally:
            if hold is not None:
                hold.close()

    def chunks(self) -> Iterator[bytes]:
        if len(self._rbuf) > self._rpos:
            yield self._take()
        if not self.readable:
            raise StreamReadError(errno.EBADF, "Bad file descriptor")
        while True:
            chunk = self._fill(CHUNK)
            if not chunk:
                return
            yield chunk

    # -- writing
    def write(self, data: bytes) -> None:
        raise write_failed(errno.EBADF, "Bad file descriptor", len(data))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def seek_start(self) -> None:
        """Rewind, where that makes sense (here-doc fds reused)."""


class ClosedStream(Stream):
    """A closed file descriptor."""


class DirStream(Stream):
    """A directory opened for reading (`< dir`): opening works, reading fails. `dir_path` is the
    directory when known (diff compares it as the directory it is: `diff - d < d`)."""

    readable = True

    def __init__(self, dir_path: str | None = None) -> None:
        super().__init__()
        self.dir_path = dir_path

    def _fill(self, n: int) -> bytes:
        raise StreamReadError(errno.EISDIR, "Is a directory")


class NullStream(Stream):
    readable = True
    writable = True

    def _fill(self, n: int) -> bytes:
        return b""

    def write(self, data: bytes) -> None:
        pass


class ZeroStream(Stream):
    readable = True
    writable = True

    def __init__(self, checkpoint: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.checkpoint = checkpoint

    def _fill(self, n: int) -> bytes:
        if self.checkpoint:
            self.checkpoint()
        return bytes(min(n, CHUNK))

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            raise StreamReadError(errno.ENOMEM, "Cannot allocate memory")
        return super().read(n)

    def write(self, data: bytes) -> None:
        pass


class FullStream(ZeroStream):
    def write(self, data: bytes) -> None:
        raise write_failed(errno.ENOSPC, "No space left on device", len(data))


class RandomStream(Stream):
    readable = True
    writable = True

    def __init__(self, rng: Callable[[int], bytes], checkpoint: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.rng = rng
        self.checkpoint = checkpoint

    def _fill(self, n: int) -> bytes:
        if self.checkpoint:
            self.checkpoint()
        return self.rng(min(n, CHUNK))

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            raise StreamReadError(errno.ENOMEM, "Cannot allocate memory")
        return super().read(n)

    def write(self, data: bytes) -> None:
        pass


class BytesReader(Stream):
    """Reads from bytes held in memory (here-docs, here-strings, stdin). With a `budget`, the
    bytes count towards max_memory while the stream lives (`exec 3<<<"$x"` keeps them for the
    rest of the run): charged before it is made, given back when it is dropped."""

    readable = True

    def __init__(self, data: bytes, budget: Budget | None = None) -> None:
        super().__init__()
        self._data = data
        self._pos = 0
        self._held: Budget | None = None
        if budget is not None and len(data) >= HELD_MIN:
            budget.charge_memory(len(data))
            self._held = budget

    def __del__(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            held.release_memory(len(self._data))

    def _fill(self, n: int) -> bytes:
        pos = self._pos
        chunk = self._data[pos : pos + n]
        self._pos = pos + len(chunk)
        return chunk

    def read(self, n: int = -1) -> bytes:
        if n < 0 and len(self._rbuf) == self._rpos:
            data = self._data[self._pos :]
            self._pos = len(self._data)
            return data
        return super().read(n)

    def seek_start(self) -> None:
        self._pos = 0
        self._drop_read_ahead()


def capture_bound(limits: Limits) -> dict[str, Any]:
    """BufferWriter keywords for a capture (`$(…)`): the nearer of max_string_length and
    max_output_size, named as such."""
    if limits.max_output_size < limits.max_string_length:
        return {"max_size": limits.max_output_size, "size_limit": LimitKind.MAX_OUTPUT_SIZE}
    return {"max_size": limits.max_string_length, "size_limit": LimitKind.MAX_STRING_LENGTH}


class BufferWriter(Stream):
    """Collects what is written (command substitution, the run's result).

    `charge` is called with each write's size before it is kept, so a limit can
    stop a flood before memory grows."""

    writable = True

    def __init__(
        self,
        charge: Callable[[int], None] | None = None,
        on_write: Callable[[bytes], None] | None = None,
        keep: bool = True,
        max_size: int | None = None,
        size_limit: LimitKind = LimitKind.MAX_STRING_LENGTH,
    ) -> None:
        super().__init__()
        self.parts: list[bytes] = []
        self.size = 0
        self.charge = charge
        self.on_write = on_write
        self.keep = keep
        self.max_size = max_size  # a capture bigger than this is the `size_limit` limit
        self.size_limit = size_limit

    def write(self, data: bytes) -> None:
        if not data:
            return
        if self.max_size is not None and self.size + len(data) > self.max_size:
            raise LimitExceeded(self.size_limit, self.max_size)
        if self.charge is not None:
            self.charge(len(data))
        if self.keep:
            self.parts.append(data)
        self.size += len(data)
        if self.on_write is not None:
            self.on_write(data)

    def getvalue(self) -> bytes:
        if len(self.parts) > 1:
            self.parts = [b"".join(self.parts)]
        return self.parts[0] if self.parts else b""


class TeeWriter(Stream):
    """Writes to two streams (used for `|&` and tracing)."""

    writable = True

    def __init__(self, a: Stream, b: Stream) -> None:
        super().__init__()
        self.a = a
        self.b = b

    def write(self, data: bytes) -> None:
        self.a.write(data)
        self.b.write(data)
