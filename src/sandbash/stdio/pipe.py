"""A bounded in-memory pipe between two pipeline stages running in threads.

The writer blocks while the pipe holds `capacity` bytes; the reader blocks
while it is empty. Closing the read end makes every later write raise
`SigPipe` (so `yes | head -1` ends at once); closing the write end gives the
reader end-of-file. Blocking waits wake up regularly to check the run's
deadline and cancellation through `checkpoint`.

A large write goes in pieces of at most `capacity` bytes (so the pipe never
holds more than twice its capacity, and the deadline is checked between
pieces); a read takes from the head piece at an offset instead of re-slicing
it. What the pipe holds is charged to the run's memory budget (`max_memory`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ..limits import Budget, check_thread_deadline
from .streams import SigPipe, Stream

_WAIT = 0.05
# the memory budget is charged in grains, so most writes only add to a counter
_GRAIN = 1 << 16


class Pipe:
    def __init__(
        self,
        capacity: int = 1 << 16,
        checkpoint: Callable[[], None] | None = None,
        budget: Budget | None = None,
    ) -> None:
        import threading  # (when a pipe is made: a plain run does without threading.py, ~0.8 ms)

        self.capacity = capacity
        self.cond = threading.Condition(threading.Lock())
        self.chunks: deque[bytes] = deque()
        self.offset = 0  # bytes of chunks[0] already read
        self.size = 0
        self.write_closed = False
        self.read_closed = False
        self.checkpoint = checkpoint
        # the pipeline passes its budget's check_time: charge that budget for the buffer
        if budget is None:
            owner = getattr(checkpoint, "__self__", None)
            budget = owner if isinstance(owner, Budget) else None
        self.budget = budget
        self.charged = 0
        self.reader = PipeReader(self)
        self.writer = PipeWriter(self)

    def put(self, data: bytes) -> None:
        cap = self.capacity
        if len(data) <= cap:
            self._put(data)
            return
        # the writer holds `data` until the reader has taken it (a blocked `echo "$x" | sleep 9 &`):
        # count it towards max_memory meanwhile
        budget = self.budget
        held = len(data)
        if budget is not None:
            budget.charge_memory(held)
        try:
            view = memoryview(data)
            for start in range(0, len(data), cap):
                if start and self.checkpoint is not None:
                    self.checkpoint()  # a long write checks the deadline as it goes
                self._put(bytes(view[start : start + cap]))
        finally:
            if budget is not None:
                budget.release_memory(held)

    def _put(self, data: bytes) -> None:
        with self.cond:
            while self.size >= self.capacity and not self.read_closed:
                self.cond.wait(_WAIT)
                if self.size >= self.capacity:
                    self._check()
            if self.read_closed:
                raise SigPipe()
            size = self.size + len(data)
            if size > self.charged:
                self._charge(size)
            self.chunks.append(data)
            self.size = size
            self.cond.notify_all()

    def _charge(self, size: int) -> None:
        """Hold `size` bytes (lock held): charge the budget up to the next grain first."""
        want = (size // _GRAIN + 1) * _GRAIN
        if self.budget is not None:
            self.budget.charge_memory(want - self.charged)
        self.charged = want

    def _uncharge(self) -> None:
        if self.charged and self.budget is not None:
            self.budget.release_memory(self.charged)
        self.charged = 0

    def get(self, n: int) -> bytes:
        with self.cond:
            while not self.chunks and not self.write_closed:
                self.cond.wait(_WAIT)
                if not self.chunks and not self.write_closed:
                    self._check()
            if not self.chunks:
                # end of input: the writer may have stopped because the deadline passed
                self._uncharge()
                self._check()
                return b""
            chunk = self.chunks[0]
            off = self.offset
            left = len(chunk) - off
            if left > n:
                data = chunk[off : off + n]
                self.offset = off + n
            else:
                self.chunks.popleft()
                self.offset = 0
                data = chunk[off:] if off else chunk
            self.size -= len(data)
            self.cond.notify_all()
            return data

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
            self.offset = 0
            self.size = 0
            self._uncharge()
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
