"""A bounded in-memory pipe between two pipeline stages running in threads.

The writer blocks while the pipe holds `capacity` bytes; the reader blocks
while it is empty. Closing the read end makes every later write raise
`SigPipe` (so `yes | head -1` ends at once); closing the write end gives the
reader end-of-file. Blocking waits wake up regularly to check the run's
deadline and cancellation through `checkpoint`.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from ..limits import check_thread_deadline
from .streams import SigPipe, Stream

_WAIT = 0.05


class Pipe:
    def __init__(self, capacity: int = 1 << 16, checkpoint: Callable[[], None] | None = None) -> None:
        self.capacity = capacity
        self.cond = threading.Condition(threading.Lock())
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.write_closed = False
        self.read_closed = False
        self.checkpoint = checkpoint
        self.reader = PipeReader(self)
        self.writer = PipeWriter(self)

    def put(self, data: bytes) -> None:
        with self.cond:
            while self.size >= self.capacity and not self.read_closed:
                self.cond.wait(_WAIT)
                if self.size >= self.capacity:
                    self._check()
            if self.read_closed:
                raise SigPipe()
            self.chunks.append(data)
            self.size += len(data)
            self.cond.notify_all()

    def get(self, n: int) -> bytes:
        with self.cond:
            while not self.chunks and not self.write_closed:
                self.cond.wait(_WAIT)
                if not self.chunks and not self.write_closed:
                    self._check()
            if not self.chunks:
                # end of input: the writer may have stopped because the deadline passed
                self._check()
                return b""
            chunk = self.chunks.popleft()
            if len(chunk) > n:
                self.chunks.appendleft(chunk[n:])
                chunk = chunk[:n]
            self.size -= len(chunk)
            self.cond.notify_all()
            return chunk

    def _check(self) -> None:
        """While waiting (lock held): the run's deadline, and a sub-command's
        deadline bound to this thread (`timeout 1 cat` reading this pipe)."""
        self.cond.release()
        try:
            if self.checkpoint is not None:
                self.checkpoint()
            check_thread_deadline()
        finally:
            self.cond.acquire()

    def close_write(self) -> None:
        with self.cond:
            self.write_closed = True
            self.cond.notify_all()

    def close_read(self) -> None:
        with self.cond:
            self.read_closed = True
            self.chunks.clear()
            self.size = 0
            self.cond.notify_all()


class PipeReader(Stream):
    readable = True

    def __init__(self, pipe: Pipe) -> None:
        super().__init__()
        self.pipe = pipe

    def _fill(self, n: int) -> bytes:
        return self.pipe.get(n)

    def close(self) -> None:
        self.pipe.close_read()


class PipeWriter(Stream):
    writable = True

    def __init__(self, pipe: Pipe) -> None:
        super().__init__()
        self.pipe = pipe

    def write(self, data: bytes) -> None:
        if data:
            self.pipe.put(data)

    def close(self) -> None:
        self.pipe.close_write()
