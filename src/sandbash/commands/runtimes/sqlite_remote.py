"""sqlite3's connection, held by its worker process (sqlite_child.py): the shell's side of it.

`Remote` has the part of the stdlib connection the shell uses (execute, executemany, serialize,
close) and `Cursor` the part of a cursor (description, fetchone/fetchmany/fetchall), so that
sqlite.py and sqlite_dot.py read as they would over a connection of their own. Every request waits
for its answer in short slices and checks the run's deadline and cancellation between them: past
the deadline the worker is killed, also inside one long C call. What the worker's process grew by
since its setup is charged to the run's memory budget as it grows (reported between opcodes)
and at each answer; an allocation past its
cap (the budget left) fails in SQLite and ends the run with max_memory, as a worker that died
does (its cap is the only thing that kills it besides sandbash).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ...limits import LimitExceeded, LimitKind
from ..context import Ctx
from .common import seconds_left
from .js_worker import Worker, WorkerGone, finish, start
from .sqlite_child import decode, encode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

CHILD = __file__.rsplit("/", 1)[0] + "/sqlite_child.py"
# a worker that grew past this in its run is not kept for the next one: its heap would stay that
# size, and what it reports next is its growth past the highest point it reached (ru_maxrss)
REUSE_MAX_GROWTH = 8 << 20
RESET_WAIT = 2.0  # seconds a reset may take before the worker is stopped instead


class Remote:
    """The database connection of one sqlite3 invocation, in its own worker process."""

    def __init__(self, ctx: Ctx, lib: Any) -> None:
        self.ctx = ctx
        self.lib = lib
        self.mem = ctx.hold_memory()  # the worker's growth (released when it goes)
        self.worker: Worker | None = start(CHILD, spare=False)  # (it comes back through finish)
        self.clean = True  # no request failed in a way that leaves the worker in doubt

    def setup(self, memory: int, length: int, readonly: bool, image: bytes) -> None:
        left = seconds_left(self.ctx)
        cpu = 0 if left == float("inf") else int(left) + 2
        req = {"memory": memory, "length": length, "readonly": readonly, "cpu": cpu, "size": len(image)}
        self._ask({"setup": req}, image or None)

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor:
        msg = self._ask({"op": "execute", "sql": sql, "params": [encode(v) for v in params]})
        return Cursor(self, msg)

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        self._ask({"op": "many", "sql": sql, "rows": [[encode(v) for v in row] for row in rows]})

    def serialize(self) -> bytes:
        """The database image (the caller charges what it keeps)."""
        data = self._ask({"op": "serialize"}, image_back=True)["image"]
        assert isinstance(data, bytes)
        return data

    def close(self) -> None:
        """The run is done with the database: a worker that ended its requests cleanly and stayed
        small is reset and kept for the next run, any other is stopped."""
        worker, self.worker = self.worker, None
        if worker is None:
            return
        reusable = self.clean and self.mem.held < REUSE_MAX_GROWTH
        if reusable:
            try:
                worker.send({"op": "reset"})
                reusable = "ok" in worker.recv(_waited(RESET_WAIT), lambda n: None)
            except BaseException:  # (WorkerGone, or the reset took too long)
                reusable = False
        self.mem.close()
        finish(worker, reusable)

    def _worker(self) -> Worker:
        if self.worker is None:
            raise self.lib.ProgrammingError("Cannot operate on a closed database.")
        return self.worker

    def _ask(
        self, req: dict[str, Any], data: bytes | None = None, image_back: bool = False
    ) -> dict[str, Any]:
        """Send one request (and its raw frame) and wait for the answer (and, with `image_back`,
        the raw frame after it, as "image"); a failure the worker reports is raised as the stdlib
        module would raise it."""
        worker = self._worker()
        try:
            worker.send(req)
            if data is not None:
                worker.send_bytes(data)
            with self.ctx.hold_memory() as frame:
                msg = worker.recv(self.ctx.budget.check_time, frame.charge)
                while "grown" in msg:  # charged as it grows, while the statement runs
                    self.mem.set(int(msg["grown"]))
                    frame.close()
                    msg = worker.recv(self.ctx.budget.check_time, frame.charge)
            if image_back and "size" in msg:
                msg["image"] = worker.recv_bytes(self.ctx.budget.check_time, lambda n: None)
            self.mem.set(int(msg.get("mem", 0)))
        except WorkerGone:
            self.clean = False
            self.close()
            raise LimitExceeded(LimitKind.MAX_MEMORY, self.ctx.limits.max_memory) from None
        except BaseException:  # the deadline, cancellation, a limit: the worker goes with the run
            self.clean = False
            self.close()
            raise
        if "err" in msg:
            raise self._error(msg["err"])
        if "stop" in msg:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, int(msg["stop"]))
        if "nomem" in msg:
            self.clean = False  # (its heap may be left large and fragmented)
            raise LimitExceeded(LimitKind.MAX_MEMORY, self.ctx.limits.max_memory)
        return msg

    def _error(self, err: dict[str, Any]) -> BaseException:
        cls = getattr(self.lib, str(err.get("cls")), None)
        if not (isinstance(cls, type) and issubclass(cls, self.lib.Error)):
            cls = self.lib.Error
        e = cls(str(err.get("msg", "")))
        e.sqlite_errorcode = err.get("code")
        e.denied = str(err.get("denied") or "")
        return e  # type: ignore[no-any-return]


class Cursor:
    """The rows of one statement, fetched from the worker a batch at a time."""

    def __init__(self, conn: Remote, msg: dict[str, Any]) -> None:
        self.conn = conn
        self.id = int(msg["id"])
        desc = msg.get("desc")
        self.description = None if desc is None else [(str(n), *(None,) * 6) for n in desc]
        self._rows: list[tuple[object, ...]] = []
        self._more = True
        self._take(msg)

    def _take(self, msg: dict[str, Any]) -> None:
        self._rows.extend(tuple(decode(v) for v in row) for row in msg.get("rows", ()))
        self._more = bool(msg.get("more"))

    def fetchmany(self, size: int) -> list[tuple[object, ...]]:
        if len(self._rows) < size and self._more:
            self._take(self.conn._ask({"op": "fetch", "id": self.id}))
        out, self._rows = self._rows[:size], self._rows[size:]
        return out

    def fetchone(self) -> tuple[object, ...] | None:
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    def fetchall(self) -> list[tuple[object, ...]]:
        out: list[tuple[object, ...]] = []
        while batch := self.fetchmany(1 << 16):
            out.extend(batch)
        return out


def _waited(seconds: float) -> Callable[[], None]:
    """A check that fails once `seconds` have passed (for a wait that is not the run's)."""
    end = time.monotonic() + seconds

    def check() -> None:
        if time.monotonic() > end:
            raise WorkerGone()

    return check
