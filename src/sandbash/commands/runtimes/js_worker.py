"""The one place `node` / `js` starts a process: QuickJS's worker (js_child.py).

The worker runs Python with no site packages, no environment and `/` as its directory, and the
JavaScript inside it reaches nothing but the two host functions js_child.py gives it, whose every
request comes back here over a pipe (see js_child.py for the frames). The parent waits for each
frame in short slices and checks the run's deadline, cancellation and limits between them, so a
`for(;;){}` ends when the run's deadline passes: the worker is killed, never left behind.
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
from collections.abc import Callable

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

    def __init__(self, binding_dir: str, prelude: str) -> None:
        self.binding = binding_dir
        self.owner = os.getpid()
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", CHILD, binding_dir],
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
        self.send({"prelude": prelude})  # compiled while the worker waits for its run

    def send(self, msg: dict[str, Any]) -> None:
        data = json.dumps(msg).encode("ascii")
        try:
            self._in.write(struct.pack(">I", len(data)) + data)
        except (BrokenPipeError, OSError):
            raise WorkerGone() from None

    def recv(self, check: Callable[[], None], charge: Callable[[int], None]) -> dict[str, Any]:
        """The next frame; `check()` runs between waits (it raises to end the run); `charge(n)`
        is told what the frame will hold (its bytes, their text and the decoded values) first."""
        (n,) = struct.unpack(">I", self._read(4, check))
        if n > MAX_FRAME:
            raise WorkerGone()
        charge(3 * n)
        msg: dict[str, Any] = json.loads(self._read(n, check).decode("ascii"))
        return msg

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


# One worker started ahead of need: its start-up (about half of a run's cost) overlaps the time
# between two runs. It waits for its first frame; it ends on its own when this process goes.
_spare_lock = threading.Lock()
_spare: Worker | None = None


def start(binding_dir: str, prelude: str) -> Worker:
    """A worker for one run (the spare one when this process has it) and a new spare."""
    global _spare
    with _spare_lock:
        worker, _spare = _spare, None
    if worker is not None and not _usable(worker, binding_dir):
        if worker.owner == os.getpid():
            worker.close()
        worker = None
    if worker is None:
        worker = Worker(binding_dir, prelude)
    spare: Worker | None = Worker(binding_dir, prelude)
    with _spare_lock:
        if _spare is None:
            _spare, spare = spare, None
    if spare is not None:
        spare.close()
    return worker


def _usable(worker: Worker, binding_dir: str) -> bool:
    return worker.owner == os.getpid() and worker.binding == binding_dir and worker.proc.poll() is None


def _close_spare() -> None:
    global _spare
    with _spare_lock:
        worker, _spare = _spare, None
    if worker is not None and worker.owner == os.getpid():
        worker.close()


atexit.register(_close_spare)
