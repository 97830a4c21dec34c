"""The one place a runtime starts a process: `node`'s QuickJS worker (js_child.py) and `sqlite3`'s
SQLite worker (sqlite_child.py).

The worker runs Python with no site packages, no environment and `/` as its directory, and the
JavaScript inside it reaches nothing but the two host functions js_child.py gives it, whose every
request comes back here over a pipe (see js_child.py for the frames). The parent waits for each
frame in short slices and checks the run's deadline, cancellation and limits between them, so a
`for(;;){}` ends when the run's deadline passes: the worker is killed, never left behind.
Frames are a 4-byte big-endian length and that many bytes: JSON (ASCII) or, for the bytes of a
database, the bytes themselves (each side knows which it expects next).
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os  # getpid: a spare worker belongs to the process that started it (not to a forked child)
import select
import struct
import subprocess  # the worker process, for this module only (tests/security/test_no_host_access.py)
import sys
import threading
from collections.abc import Callable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CHILD = __file__.rsplit("/", 1)[0] + "/js_child.py"
WAIT_SLICE_MS = 20  # how long the parent waits for a frame before it checks the deadline again
MAX_FRAME = 1 << 30


class WorkerGone(Exception):
    """The worker ended without finishing its frame (killed by the OS, out of memory)."""


def quickjs_dir() -> str | None:
    """Where the QuickJS binding is installed (the worker adds it to its path), or None."""
    spec = importlib.util.find_spec("_quickjs")
    if spec is None or spec.origin is None:
        return None
    return spec.origin.rsplit("/", 1)[0]


class Worker:
    """One worker process for one run of a program."""

    def __init__(self, child: str, args: Sequence[str] = (), hello: dict[str, Any] | None = None) -> None:
        self.key = (child, tuple(args))
        self.owner = os.getpid()
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", child, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={},
            cwd="/",
            close_fds=True,
            bufsize=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin
        self._out = self.proc.stdout
        self._poll = select.poll()
        self._poll.register(self._out.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        if hello is not None:
            self.send(hello)  # (node's prelude: compiled while the worker waits for its run)

    def send(self, msg: dict[str, Any]) -> None:
        self.send_bytes(json.dumps(msg).encode("ascii"))

    def send_bytes(self, data: bytes) -> None:
        try:
            self._in.write(struct.pack(">I", len(data)) + data)
        except (BrokenPipeError, OSError):
            raise WorkerGone() from None

    def recv(self, check: Callable[[], None], charge: Callable[[int], None]) -> dict[str, Any]:
        """The next frame; `check()` runs between waits (it raises to end the run); `charge(n)`
        is told what the frame will hold (its bytes, their text and the decoded values) first."""
        charge_3 = lambda n: charge(3 * n)  # noqa: E731
        msg: dict[str, Any] = json.loads(self.recv_bytes(check, charge_3).decode("ascii"))
        return msg

    def recv_bytes(self, check: Callable[[], None], charge: Callable[[int], None]) -> bytes:
        """The next frame's bytes (`charge(n)` is told their size before they are read)."""
        (n,) = struct.unpack(">I", self._read(4, check))
        if n > MAX_FRAME:
            raise WorkerGone()
        charge(n)
        return self._read(n, check)

    def _read(self, n: int, check: Callable[[], None]) -> bytes:
        parts: list[bytes] = []
        while n > 0:
            check()
            if not self._poll.poll(WAIT_SLICE_MS):
                continue
            chunk = self._out.read(n)
            if not chunk:
                raise WorkerGone()
            parts.append(chunk)
            n -= len(chunk)
        return b"".join(parts)

    def wait(self) -> int:
        """The exit status of a worker that ended (negative: the signal that ended it)."""
        return self.proc.wait()

    def close(self) -> None:
        """Stop the worker (it may still be computing) and reap it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._in.close()
        self._out.close()


# One idle worker of each kind (child script and arguments): a spare started ahead of need, whose
# start-up (about half of a run's cost) overlaps the time between two runs, or (sqlite3) a worker
# that finished its run cleanly and was reset. It waits for its first frame; it ends on its own
# when this process goes.
_spare_lock = threading.Lock()
_spares: dict[tuple[str, tuple[str, ...]], Worker] = {}


def start(
    child: str, args: Sequence[str] = (), hello: dict[str, Any] | None = None, spare: bool = True
) -> Worker:
    """A worker for one run (the idle one when this process has it) and, with `spare`, a new
    spare (a runtime whose workers come back through `finish` starts none here)."""
    key = (child, tuple(args))
    with _spare_lock:
        worker = _spares.pop(key, None)
    if worker is not None and not _usable(worker):
        if worker.owner == os.getpid():
            worker.close()
        worker = None
    if worker is None:
        worker = Worker(child, args, hello)
    if spare:
        _keep(Worker(child, args, hello))
    return worker


def finish(worker: Worker, reusable: bool) -> None:
    """A run is done with `worker`: kept as the idle one of its kind when `reusable` (it was
    reset and waits for its next run) and none is kept yet; else stopped, and a new spare started
    when none is kept (the next run finds one ready)."""
    if reusable and _usable(worker) and _keep(worker) is None:
        return
    worker.close()
    with _spare_lock:
        if worker.key in _spares:
            return
    child, args = worker.key
    _keep(Worker(child, args))


def _keep(worker: Worker) -> Worker | None:
    """Keep `worker` as the idle one of its kind, or stop it when one is kept already (another
    thread's); returns None when it was kept."""
    with _spare_lock:
        if worker.key not in _spares:
            _spares[worker.key] = worker
            return None
    worker.close()
    return worker


def _usable(worker: Worker) -> bool:
    return worker.owner == os.getpid() and worker.proc.poll() is None


def _close_spare() -> None:
    with _spare_lock:
        workers = list(_spares.values())
        _spares.clear()
    for worker in workers:
        if worker.owner == os.getpid():
            worker.close()


atexit.register(_close_spare)
