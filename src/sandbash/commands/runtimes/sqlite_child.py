"""The SQLite worker: the sqlite3 command's database connection in a process of its own.

Started by js_worker.py as `python -I -S sqlite_child.py` (no site, no environment, no sandbash
import: only this file and sqlite_guards.py, loaded from this directory). The shell itself (options,
dot-commands, output modes, files) stays in sandbash (sqlite.py); every statement comes here.

Why a process: SQLite's own allocations (sorters, temporary tables and indexes, DISTINCT and UNION
sets, window partitions, recursive queues, the page cache) are on the process's C heap, and the
only caps SQLite has (sqlite3_hard_heap_limit and its PRAGMAs) are for the whole process, shared
with every other run of the embedding program. Here the whole process belongs to one run: its
data segment is capped (RLIMIT_DATA) at the run's memory budget left, an allocation past it fails
(SQLITE_NOMEM, which ends the run with max_memory), and the parent kills the process at the
deadline, also inside one long C call (a sort).

Frames (js_worker.py): 4-byte big-endian length, then JSON, or raw bytes where said.
  in:  {"setup": {"memory", "length", "readonly", "cpu", "size"}} then `size` raw bytes if
       size > 0 (the database image), answered {"ok": null}
       {"op": "execute", "sql", "params"}   -> {"id", "desc": [names] | null, "rows", "more"}
       {"op": "fetch", "id"}                -> {"rows", "more"}
       {"op": "many", "sql", "rows"}        -> {"ok": null}  (executemany: .import)
       {"op": "serialize"}                  -> {"size"} then `size` raw bytes
       {"op": "reset"}                      -> {"ok": null}  (the run is over; a next setup may come)
  out: {"grown": bytes} while a statement runs, when the worker grew (no reply; more follow)
       every answer has "mem" (the worker's growth in bytes since its setup); a failure is
       {"err": {"cls", "msg", "code", "denied"}}, {"stop": limit} (a guard's max_string_length)
       or {"nomem": true}.
Values: None, int, float, str as JSON; bytes as {"b": base64}.
"""

from __future__ import annotations

import base64
import json
import resource  # the worker's own limits (tests/security/test_no_host_access.py allows it here)
import struct
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the data segment the worker's own Python needs besides SQLite's work: the interpreter after its
# imports (about 5 MB measured), a batch of rows as objects and as JSON
DATA_SLACK = 24 << 20
BATCH_ROWS = 4096  # (one round trip per batch: 256 made a 100 K-row listing about 2x slower)
BATCH_BYTES = 1 << 20  # a batch ends past this much text (at least one row each)
# the progress handler looks at the worker's growth every this many opcodes (a getrusage call),
# and reports it when it passed the last report by REPORT_STEP
PROGRESS_OPCODES = 20000
REPORT_STEP = 1 << 20
# authorizer action codes (sqlite3.h)
_PRAGMA, _ATTACH, _DETACH, _FUNCTION = 19, 24, 25, 31
DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}
# pragmas that would put files on the host: a directory of the host for temporary files, or
# temporary tables and sorts spilled to files (SQLite's default place: the host's /var/tmp, /tmp)
HOST_DIR_PRAGMAS = {"temp_store_directory", "data_store_directory"}
MEMORY_TEMP_STORE = {"2", "memory"}
# the argument counts of the built-ins sqlite_guards replaces (-1: every count; a one-argument
# trim() has no character list and stays SQLite's)
GUARD_ARGS = {"instr": 2, "replace": 3, "trim": 2, "ltrim": 2, "rtrim": 2}


def encode(value: object) -> object:
    """A SQL value as JSON: a blob as {"b": base64}."""
    if isinstance(value, bytes):
        return {"b": base64.b64encode(value).decode("ascii")}
    return value


def decode(value: object) -> object:
    if isinstance(value, dict):
        return base64.b64decode(value["b"])
    return value


class _Channel:
    def __init__(self) -> None:
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer

    def recv_bytes(self) -> bytes:
        head = self.inp.read(4)
        if len(head) < 4:
            raise SystemExit(0)  # sandbash went away
        (n,) = struct.unpack(">I", head)
        return self.inp.read(n)

    def recv(self) -> Any:
        return json.loads(self.recv_bytes().decode("ascii"))

    def send_bytes(self, data: bytes) -> None:
        self.out.write(struct.pack(">I", len(data)) + data)
        self.out.flush()

    def send(self, msg: dict[str, Any]) -> None:
        self.send_bytes(json.dumps(msg).encode("ascii"))


def _soft_limit(which: int, value: int) -> None:
    """Lower or lift the soft limit up to the hard one (never lowered: a later run lifts it)."""
    hard = resource.getrlimit(which)[1]
    if hard != resource.RLIM_INFINITY and (value == resource.RLIM_INFINITY or value > hard):
        value = hard
    resource.setrlimit(which, (value, hard))


def _resident() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class Server:
    """One connection, set up for one run, answering the shell's requests until it goes."""

    def __init__(self, chan: _Channel) -> None:
        import sqlite3

        import sqlite_guards  # type: ignore[import-not-found]  # (this directory, on the path: see main)

        self.chan = chan
        self.lib = sqlite3
        self.guards = sqlite_guards
        self.conn: Any = None
        self.aux: Any = None
        self.cursors: dict[int, Any] = {}
        self.next_id = 0
        self.stop: BaseException | None = None  # a guard's limit, kept while SQLite unwinds
        self.denied = ""  # what the authorizer refused last, worded for the error's end
        self.base = 0
        self.reported = 0  # the growth last sent

    def setup(self, req: dict[str, Any]) -> None:
        lib, guards = self.lib, self.guards
        memory, size = int(req["memory"]), int(req.get("size", 0))
        image = self.chan.recv_bytes() if size else b""
        # the cap: the run's budget left, the worker's own needs, and the image while it is copied
        _soft_limit(resource.RLIMIT_DATA, DATA_SLACK + memory + len(image))
        if req.get("cpu"):
            # a worker whose sandbash died (killed, not asking any more) must not compute forever
            used = resource.getrusage(resource.RUSAGE_SELF)
            _soft_limit(resource.RLIMIT_CPU, int(used.ru_utime + used.ru_stime) + int(req["cpu"]))
        conn = self.conn = lib.connect(":memory:", isolation_level=None, check_same_thread=False)
        if image:
            conn.deserialize(image)
            del image
        conn.setlimit(lib.SQLITE_LIMIT_ATTACHED, 0)
        length = int(req["length"])
        conn.setlimit(lib.SQLITE_LIMIT_LENGTH, length)
        self.aux = guards.Aux(lib, length)
        for name, fn in guards.make_guards(self.aux, self._keep_stop, lambda: None).items():
            conn.create_function(name, GUARD_ARGS.get(name, -1), fn, deterministic=True)
        conn.execute("PRAGMA temp_store=MEMORY")
        if req.get("readonly"):
            conn.execute("PRAGMA query_only=ON")
        try:
            page = conn.execute("PRAGMA page_size").fetchone()[0] or 4096
            conn.execute(f"PRAGMA max_page_count={max(16, memory // page)}")
        except lib.DatabaseError:
            # an image that is not a database (`sqlite3 notes.txt`): every statement that reads
            # it fails as the real shell's does ("file is not a database"); `select 1` still runs
            pass
        conn.set_authorizer(self._authorize)
        conn.set_progress_handler(self._progress, PROGRESS_OPCODES)
        self.base = _resident()  # the database image stands for the copy sandbash holds (charged)

    def reset(self) -> None:
        """The run is over: its databases go and the limits are lifted (only soft limits were
        set: nothing but this file's code runs here, SQL cannot call setrlimit); the worker
        waits for its next setup, with nothing of this run left but its process's heap."""
        for held in (self.conn, self.aux):
            if held is not None:
                held.close()
        self.conn = self.aux = None
        self.cursors.clear()
        self.stop = None
        self.denied = ""
        self.base = self.reported = 0
        _soft_limit(resource.RLIMIT_DATA, resource.RLIM_INFINITY)
        _soft_limit(resource.RLIMIT_CPU, resource.RLIM_INFINITY)

    def _progress(self) -> int:
        """Between opcodes: growth past the last report goes to sandbash at once (its budget is
        shared with the rest of the run, other sqlite3 workers of a pipeline among them)."""
        grown = self.mem()
        if grown >= self.reported + REPORT_STEP:
            self.reported = grown
            self.chan.send({"grown": grown})
        return 0

    def _keep_stop(self, e: BaseException) -> None:
        self.stop = e

    def _authorize(self, action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
        if action in (_ATTACH, _DETACH):
            # another database file would be a host file
            self.denied = "ATTACH, DETACH and VACUUM INTO are not available in sandbash"
            return int(self.lib.SQLITE_DENY)
        if action == _FUNCTION and (arg2 or "").lower() in DENIED_FUNCTIONS:
            self.denied = f"{(arg2 or '').lower()}() is not available in sandbash"
            return int(self.lib.SQLITE_DENY)
        if action == _PRAGMA and arg2 is not None:  # (reading a pragma is never refused)
            name = (arg1 or "").lower()
            value = arg2.strip("'\" ").lower()
            if name in HOST_DIR_PRAGMAS or (name == "temp_store" and value not in MEMORY_TEMP_STORE):
                self.denied = f"PRAGMA {name}={arg2} is not available in sandbash"
                return int(self.lib.SQLITE_DENY)
        return int(self.lib.SQLITE_OK)

    def _batch(self, cid: int) -> dict[str, Any]:
        cur = self.cursors[cid]
        rows: list[list[object]] = []
        size = 0
        while len(rows) < BATCH_ROWS and size < BATCH_BYTES:
            row = cur.fetchone()
            if row is None:
                del self.cursors[cid]
                return {"rows": rows, "more": False}
            rows.append([encode(v) for v in row])
            size += sum(len(v) if isinstance(v, str | bytes) else 8 for v in row)
        return {"rows": rows, "more": True}

    def answer(self, req: dict[str, Any]) -> dict[str, Any] | None:
        """The reply to one request (None: sent already, with the raw frame after it)."""
        op = req.get("op")
        if "setup" in req:
            self.setup(req["setup"])
            return {"ok": None}
        if op == "execute":
            self.denied = ""
            params = [decode(v) for v in req.get("params", [])]
            cur = self.conn.execute(req["sql"], params)
            self.next_id += 1
            cid = self.next_id
            if cur.description is None:
                return {"id": cid, "desc": None, "rows": [], "more": False}
            self.cursors[cid] = cur
            return {"id": cid, "desc": [d[0] for d in cur.description], **self._batch(cid)}
        if op == "fetch":
            cid = int(req["id"])
            return self._batch(cid) if cid in self.cursors else {"rows": [], "more": False}
        if op == "many":
            self.conn.executemany(req["sql"], [[decode(v) for v in row] for row in req["rows"]])
            return {"ok": None}
        if op == "reset":
            self.reset()
            return {"ok": None}
        if op == "serialize":
            data = self.conn.serialize()
            self.chan.send({"size": len(data), "mem": self.mem()})
            self.chan.send_bytes(data)
            return None
        raise ValueError(f"unknown request {op!r}")

    def mem(self) -> int:
        return max(0, _resident() - self.base) if self.base else 0

    def serve(self) -> None:
        while True:
            req = self.chan.recv()
            try:
                reply = self.answer(req)
            except MemoryError:  # SQLITE_NOMEM (the module's MemoryError) or Python's own
                self.stop = None
                self.cursors.clear()
                reply = {"nomem": True}
            except self.lib.Error as e:
                reply = self._failure(e)
            except Exception as e:  # (a value the module cannot bind, a bad request): the message
                reply = {"err": {"cls": "Error", "msg": str(e), "code": None, "denied": ""}}
            if reply is not None:
                reply["mem"] = self.mem()
                self.chan.send(reply)

    def _failure(self, e: Any) -> dict[str, Any]:
        stop, self.stop = self.stop, None
        if isinstance(stop, self.guards.TooLong):
            return {"stop": stop.limit}
        return {
            "err": {
                "cls": type(e).__name__,
                "msg": str(e),
                "code": getattr(e, "sqlite_errorcode", None),
                "denied": self.denied,
            }
        }


def main() -> None:
    sys.path.insert(0, __file__.rsplit("/", 1)[0])  # sqlite_guards.py, beside this file
    Server(_Channel()).serve()


if __name__ == "__main__":
    main()
