"""Hard isolation for a service: each tool call runs in a worker process from a pool.

sandbash stops a run at its own checkpoints (deadline, memory budget, cancellation). An embedder
that also needs preemption beyond them (a custom command that never returns, a C extension that
allocates without asking) runs the calls in worker processes: each worker has an address-space
limit (RLIMIT_AS), and a call that runs past its time limit plus a grace period gets its worker
killed and replaced. Sessions must live in a store (`BashTool(store=...)`): any worker serves any
session, and a killed worker loses nothing that was saved.

This module and its workers are the host processes sandbash starts for this option only; it is
off unless the embedder builds a `WorkerPool` (`sandbash mcp --workers N`).
"""

from __future__ import annotations

import multiprocessing
import queue
import resource
import threading
from collections.abc import Callable, Mapping
from dataclasses import fields
from multiprocessing.connection import Connection

from .tool import BashTool, ToolInputError, ToolOutput, ToolRequest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_MEMORY = 2 << 30  # address space of one worker
DEFAULT_GRACE = 5.0  # seconds past a call's time limit before its worker is killed
STARTUP_WAIT = 300.0  # a worker's own start-up (imports, the tool), generous for a loaded host
_OUTPUT_FIELDS = {f.name for f in fields(ToolOutput)}


def _serve(conn: Connection, make_tool: Callable[[], BashTool], memory: int | None) -> None:
    """A worker: build the tool once, then answer (request, scope) messages until None."""
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    tool = make_tool()
    conn.send(("ready", None))  # start-up is not part of any call's time
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        request, scope = msg
        try:
            out = tool.run(request, scope=scope)
            conn.send(("ok", out.to_dict()))
        except ToolInputError as e:
            conn.send(("input", str(e)))
        except MemoryError:
            conn.send(("error", "the worker ran out of memory (its address-space limit)"))
        except Exception as e:  # reported as one line; the worker goes on
            conn.send(("error", f"internal error ({type(e).__name__})"))


class _Worker:
    def __init__(self, ctx: Any, make_tool: Callable[[], BashTool], memory: int | None) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, make_tool, memory), daemon=True)
        self.proc.start()
        child.close()
        self.ready = False

    def wait_ready(self, seconds: float) -> None:
        """Until the worker has built its tool (EOFError if it could not)."""
        if not self.ready:
            if not self.conn.poll(seconds):
                raise EOFError("the worker did not start")
            self.conn.recv()
            self.ready = True

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        self.conn.close()


class WorkerPool:
    """`run(request, scope)` like `BashTool.run`, in one of `workers` processes.

    `make_tool` builds each worker's BashTool (it must be picklable: a module-level function or a
    `functools.partial` of one) and must give it a session store. `memory` is each worker's
    address-space limit in bytes (None: none); a call longer than its time limit plus `grace`
    seconds is answered with the `timeout` limit and its worker replaced."""

    def __init__(
        self,
        make_tool: Callable[[], BashTool],
        *,
        workers: int = 2,
        memory: int | None = DEFAULT_MEMORY,
        grace: float = DEFAULT_GRACE,
        limits_tool: BashTool | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("WorkerPool: workers must be at least 1")
        probe = limits_tool if limits_tool is not None else make_tool()
        if probe.store is None:
            raise ValueError(
                "WorkerPool: the workers' tool needs a session store (sessions must outlive a worker)"
            )
        self._limits = probe  # how long a call may take (its own time limit)
        self._ctx = multiprocessing.get_context("spawn")  # a clean interpreter: no threads or locks inherited
        self._make_tool = make_tool
        self._memory = memory
        self._grace = grace
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        for _ in range(workers):
            self._spawn()

    def _spawn(self) -> None:
        w = _Worker(self._ctx, self._make_tool, self._memory)
        with self._lock:
            self._all.append(w)
        self._idle.put(w)

    def _retire(self, w: _Worker, kill: bool) -> None:
        with self._lock:
            if w in self._all:
                self._all.remove(w)
        w.stop(kill=kill)

    def run(self, request: Mapping[str, Any] | ToolRequest, *, scope: str = "") -> ToolOutput:
        req = request if isinstance(request, ToolRequest) else ToolRequest.parse(request)
        allowed = self._limits._call_limits(req).timeout
        wait = (allowed if allowed > 0 else 3600.0) + self._grace
        raw = dict(request) if not isinstance(request, ToolRequest) else _request_dict(request)
        w = self._idle.get()
        try:
            w.wait_ready(STARTUP_WAIT)
            w.conn.send((raw, scope))
            if not w.conn.poll(wait):
                self._retire(w, kill=True)
                self._spawn()
                return ToolOutput(
                    "",
                    f"the call ran past its time limit ({allowed:g}s) and its worker was stopped\n",
                    124,
                    limit="timeout",
                )
            kind, payload = w.conn.recv()
        except (EOFError, OSError):
            self._retire(w, kill=True)
            self._spawn()
            return ToolOutput("", "the worker running the call ended (its memory limit, or a crash)\n", 125)
        self._idle.put(w)
        if kind == "ok":
            return ToolOutput(**{k: v for k, v in payload.items() if k in _OUTPUT_FIELDS})
        if kind == "input":
            raise ToolInputError(payload)
        return ToolOutput("", f"sandbash: {payload}\n", 125)

    def close(self) -> None:
        with self._lock:
            workers, self._all = list(self._all), []
        for w in workers:
            w.stop()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _request_dict(req: ToolRequest) -> dict[str, Any]:
    """The tool-contract input a parsed request came from (what a worker parses again)."""
    out: dict[str, Any] = {
        k: v for k, v in vars(req).items() if v is not None and k not in ("files", "restart")
    }
    if req.files:
        out["files"] = [{"path": p, "content": c} for p, c in req.files]
    if req.restart:
        out["restart"] = True
    return out
