"""The one place sandbash starts a process: Monty's worker pool for `python3`.

Monty (pydantic-monty) runs sandboxed Python in `monty` worker processes that have no host
access of their own: every file, environment, clock or sleep request comes back to this process
as a callback, which python.py answers from the virtual filesystem. This module owns the pool
(started on first use, closed at exit; refused in a child forked after it started) and the watchdog that kills a
worker when the run is cancelled or its deadline passes while the worker computes (Monty has no
cancel call; a killed worker is replaced by the pool).
"""

from __future__ import annotations

import atexit
import os  # getpid (a forked child may not use the pool) and kill (the watchdog), for the worker only
import threading
from collections.abc import Callable
from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_lock = threading.Lock()
_pool: Any = None
_pool_pid = 0
# workers live at once: pipeline stages (python3 | python3 | ...) each hold one while they run
MAX_WORKERS = 32
# python3 started from python3 (subprocess, os.system) nests in one thread, each level holding a
# worker: deeper than max_substitution_depth, or than this, is the max_substitution_depth limit
MAX_NESTING = 16
CHECKOUT_WAIT = 0.25
_nesting = threading.local()


class WorkerUnavailable(Exception):
    """Monty cannot run in this process (see `pool`)."""


def pool(pm: ModuleType) -> Any:
    """The process's Monty pool, started on first use.

    Monty keeps a process-wide runtime whose threads do not survive fork(): in a child forked after
    the pool started, a new pool's first checkout waits forever (measured with pydantic-monty 1.4).
    Such a child gets WorkerUnavailable at once instead of a hang."""
    global _pool, _pool_pid
    with _lock:
        pid = os.getpid()
        if _pool is not None and _pool_pid != pid:
            raise WorkerUnavailable(
                "this process was forked after Monty started in its parent, and Monty is not "
                "fork-safe: run python3 from a process that did not inherit it"
            )
        if _pool is None:
            # a checkout waits in short turns, so the caller can check the run's deadline in between
            p = pm.Monty(
                min_processes=1,
                max_processes=MAX_WORKERS,
                max_checkouts_per_worker=200,
                checkout_timeout=CHECKOUT_WAIT,
            )
            p.__enter__()
            atexit.register(_close)
            _pool, _pool_pid = p, pid
        return _pool


class Nesting:
    """`with Nesting(limit):` one more python3 level in this thread; False when over `limit`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def __enter__(self) -> bool:
        depth = getattr(_nesting, "depth", 0) + 1
        _nesting.depth = depth
        return depth <= self.limit

    def __exit__(self, *exc: object) -> None:
        _nesting.depth -= 1


def checkout(workers: Any, check: Callable[[], None], **kw: Any) -> Any:
    """A session of `workers`, waiting for a free worker in short turns; `check` raises when the run
    must stop (its deadline, cancellation) while every worker is busy."""
    while True:
        session = workers.checkout(**kw)
        try:
            session.__enter__()
        except TimeoutError:
            check()
            continue
        return session


def _close() -> None:
    global _pool
    with _lock:
        p, _pool = _pool, None
        if p is not None and _pool_pid == os.getpid():
            p.__exit__(None, None, None)


class Watchdog:
    """Kills the session's worker when `should_stop()` says so (cancellation, the deadline, a
    limit another thread hit) while the worker computes without calling back."""

    def __init__(self, session: Any, should_stop: Callable[[], bool], interval: float = 0.02) -> None:
        self._pid: int | None = session.worker_pid
        self._should_stop = should_stop
        self._interval = interval
        self._done = threading.Event()
        self.fired = False
        self._thread = threading.Thread(target=self._watch, name="python3-watchdog", daemon=True)

    def __enter__(self) -> Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._done.wait(self._interval):
            if self._should_stop():
                self.fired = True
                if self._pid is not None:
                    try:
                        os.kill(self._pid, 9)  # the worker only: Monty replaces it
                    except OSError:
                        pass
                return
