"""asyncio support: run a sandboxed script in a worker thread without blocking
the event loop, cancel it through asyncio cancellation, stream its output.

The interpreter is synchronous; each run happens in a thread of its own (not
the loop's default executor, whose few workers a handful of long runs from one
client would hold, leaving every other client's runs queued). Cancelling the awaiting task (directly, with `asyncio.timeout`, or
`asyncio.wait_for`) sets the run's `CancelToken`, so the script stops at its
next checkpoint; the task then waits for the worker to finish, so a `Session`
is never used by two runs at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .errors import ExecutionCancelled
from .limits import CancelToken

if TYPE_CHECKING:
    from .result import ExecResult

T = TypeVar("T")
OnChunk = Callable[[bytes], None]


def _in_thread(
    loop: asyncio.AbstractEventLoop, fn: Callable[[CancelToken], T], token: CancelToken
) -> asyncio.Future[T]:
    """fn(token) in a new daemon thread; its outcome lands in the returned future."""
    future: asyncio.Future[T] = loop.create_future()

    def finish(ok: bool, value: Any) -> None:
        if future.done():  # the awaiting task is gone
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            outcome: tuple[bool, Any] = (True, fn(token))
        except BaseException as e:  # handed to the awaiting task, which re-raises it
            outcome = (False, e)
        try:
            loop.call_soon_threadsafe(finish, *outcome)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            pass

    threading.Thread(target=work, name="sandbash-run", daemon=True).start()
    return future


async def run_cancellable(fn: Callable[[CancelToken], T], cancel: CancelToken | None = None) -> T:
    """Run `fn(token)` in a thread of its own; asyncio cancellation sets the token.
    The CancelledError is re-raised once the worker has stopped."""
    token = cancel or CancelToken()
    loop = asyncio.get_running_loop()
    future = _in_thread(loop, fn, token)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        token.cancel()
        # the run ends at its next checkpoint (ExecutionCancelled); wait for it so
        # nothing else touches the shell meanwhile, then let the cancellation go on
        with contextlib.suppress(BaseException):
            await asyncio.shield(future)
        raise


@dataclass(frozen=True, slots=True)
class OutputChunk:
    """A piece of output, in the order the script wrote it."""

    stream: Literal["stdout", "stderr"]
    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


_DONE = object()


class ExecStream:
    """An async iterator of `OutputChunk`s from a running script; after the
    iteration ends, `result` holds the `ExecResult` (or the run's exception is
    raised from the iteration). Leaving early (`break`, `aclose()`, leaving an
    `async with`) cancels the run.

        async with bash.astream("for i in 1 2 3; do echo $i; sleep 1; done") as run:
            async for chunk in run:
                print(chunk.stream, chunk.text)
        print(run.result.exit_code)
    """

    def __init__(self, start: Callable[[OnChunk, OnChunk, CancelToken], ExecResult]) -> None:
        self._start = start
        self._token = CancelToken()
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._task: asyncio.Task[ExecResult] | None = None
        self.result: ExecResult | None = None

    def _ensure_started(self) -> asyncio.Task[ExecResult]:
        if self._task is None:
            loop = asyncio.get_running_loop()
            queue = self._queue

            def push(stream: Literal["stdout", "stderr"]) -> OnChunk:
                def on_chunk(data: bytes) -> None:
                    if data:
                        loop.call_soon_threadsafe(queue.put_nowait, OutputChunk(stream, bytes(data)))

                return on_chunk

            def work(token: CancelToken) -> ExecResult:
                try:
                    return self._start(push("stdout"), push("stderr"), token)
                finally:
                    loop.call_soon_threadsafe(queue.put_nowait, _DONE)

            self._task = asyncio.ensure_future(run_cancellable(work, self._token))
        return self._task

    def __aiter__(self) -> ExecStream:
        return self

    async def __anext__(self) -> OutputChunk:
        task = self._ensure_started()
        item = await self._queue.get()
        if item is _DONE:
            self.result = await task
            raise StopAsyncIteration
        assert isinstance(item, OutputChunk)
        return item

    async def wait(self) -> ExecResult:
        """Drain the remaining output and return the result."""
        async for _ in self:
            pass
        assert self.result is not None
        return self.result

    async def aclose(self) -> None:
        """Stop the run if it is still going."""
        task = self._task
        if task is None or task.done():
            return
        self._token.cancel()
        with contextlib.suppress(ExecutionCancelled, asyncio.CancelledError):
            await task

    async def __aenter__(self) -> ExecStream:
        self._ensure_started()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
