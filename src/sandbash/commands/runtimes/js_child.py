"""The JavaScript worker: QuickJS in a process of its own, talking to sandbash over its stdin/stdout.

Started by js_worker.py as `python -I -S js_child.py QUICKJS_DIR` (no site, no environment, no
sandbash import: it starts in a few tens of milliseconds). The program it runs reaches nothing but
the two functions added to its global object: `__host(name, json_args)`, a request answered by
sandbash from the sandbox (files, stdin, shell commands), and `__write(fd, text)`, output buffered
here and sent in order with the next message. QuickJS gives scripts no reflection on Python objects.

Why a process: QuickJS's bindings refuse to call Python while a time limit is set, so a deadline
on a JavaScript loop needs someone who can stop it from outside: sandbash kills this process.

Frames: 4-byte big-endian length, then JSON (ASCII, so lone surrogates survive).
  in:  {"prelude": str} when it starts, then
       {"code": str, "filename": str, "memory": int, "stack": int, "cpu": seconds or 0, "tz": str}
       then one reply per request: {"ok": value} or {"err": {...}}
  out: {"out": [[fd, text], ...]}  (no reply)
       {"call": name, "args": [...], "out": [...], "mem": int}  (a reply follows)
       {"done": {"error": null | {...}}, "out": [...], "mem": int}
"""

from __future__ import annotations

import importlib
import json
import os  # environ["TZ"] of this worker only (tests/security/test_no_host_access.py allows it here)
import resource  # the worker's own CPU limit (tests/security/test_no_host_access.py allows it here)
import struct
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

OUT_FLUSH = 65536  # buffered output sent on its own past this many characters
FLUSH_PAUSE = 0.01  # ... or when the last frame went out longer ago than this (seconds)

_in = sys.stdin.buffer
_out = sys.stdout.buffer
_pending: list[list[Any]] = []
_pending_size = 0
_last_flush = 0.0


def _send(msg: dict[str, Any]) -> None:
    global _pending_size
    if _pending:
        msg["out"] = [[fd, "".join(pieces)] for fd, pieces in _pending]
        _pending.clear()
        _pending_size = 0
    data = json.dumps(msg).encode("ascii")
    _out.write(struct.pack(">I", len(data)) + data)
    _out.flush()


def _recv() -> Any:
    head = _in.read(4)
    if len(head) < 4:
        raise SystemExit(0)  # sandbash went away
    (n,) = struct.unpack(">I", head)
    return json.loads(_in.read(n).decode("ascii"))


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    # the binding alone: its package wrapper starts a thread pool
    _quickjs = importlib.import_module("_quickjs")

    ctx = _quickjs.Context()

    def memory() -> int:
        return int(ctx.memory().get("memory_used_size", 0))

    def write(fd: int, text: str) -> None:
        global _pending_size, _last_flush
        if _pending and _pending[-1][0] == fd:
            _pending[-1][1].append(text)  # joined when sent: one piece per run of one fd
        else:
            _pending.append([fd, [text]])
        _pending_size += len(text)
        now = time.monotonic()
        # a burst is sent in large frames; the first write after a pause goes at once, so what a
        # program printed before it hangs is seen when the deadline kills it
        if _pending_size > OUT_FLUSH or now - _last_flush > FLUSH_PAUSE:
            _last_flush = now
            _send({"mem": memory()})

    def host(name: str, args: str) -> str:
        _send({"call": name, "args": json.loads(args), "mem": memory()})
        return json.dumps(_recv())

    ctx.add_callable("__write", write)
    ctx.add_callable("__host", host)
    # the prelude is compiled before the run is known: a spare worker waits here with it ready
    ctx.eval(_recv()["prelude"])
    setup = _recv()
    # Date's local time is the sandbox's TZ (never the host's /etc/localtime)
    os.environ["TZ"] = str(setup.get("tz") or "UTC")
    time.tzset()
    if setup.get("cpu"):
        # a worker whose sandbash died (killed, not asking any more) must not compute forever
        resource.setrlimit(resource.RLIMIT_CPU, (int(setup["cpu"]), int(setup["cpu"]) + 1))
    ctx.set_memory_limit(int(setup["memory"]))
    ctx.set_max_stack_size(int(setup["stack"]))
    try:
        ctx.get("__sandbash_boot")()
        error = ctx.get("__sandbash_run")(setup["code"], setup["filename"])
        tick = ctx.get("__sandbash_tick")
        # node's event loop: promise jobs, then one timer or input event at a time, until none is left
        while not isinstance(error, str):
            while ctx.execute_pending_job():
                pass
            more = tick()
            if isinstance(more, str):
                error = more
            elif not more:
                break
    except _quickjs.JSException as e:  # out of memory or stack past what the prelude's catch saw
        error = json.dumps({"name": "InternalError", "message": str(e).split("\n")[0], "stack": str(e)})
    _send({"done": {"error": json.loads(error) if isinstance(error, str) else None}, "mem": memory()})


if __name__ == "__main__":
    main()
