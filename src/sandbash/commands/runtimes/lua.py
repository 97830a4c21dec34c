"""lua / lua5.4: Lua 5.4 (lupa) inside the sandbox, with the command line of PUC-Rio's `lua`.

`lua [options] [script [args]]`: -e stat, -l mod, -l g=mod, -v, -E, -W, --, `-` (stdin); the
`arg` table and the script's `...`; LUA_INIT_5_4 / LUA_INIT from the command's environment; no
script and no -e/-v reads the program from stdin. Errors print `lua: msg` and the traceback as
lua.c does, status 1; os.exit(n) ends with n.

The state is fresh for every run. lua_prelude.py reduces the standard library to its safe parts
and rebuilds io/os over lua_io.LuaHost (the sandbox's files and streams, shell commands through the
sandbox's shell). The run's limits apply: an instruction-count hook checks the deadline and
cancellation and charges the Lua heap to max_memory; lupa's own cap is what is left of max_memory,
so an allocation past it fails in Lua ("not enough memory") and the run ends with max_memory.
The C library calls that would run past the deadline (a backtracking pattern, string.rep of empty
strings, table.move over a huge range, finalizers) are bounded first by lua_guards.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...limits import LimitExceeded, LimitKind
from ...stdio.streams import StreamReadError
from ..context import Ctx
from ..record import Effects, declare
from .common import load_optional, memory_left
from .lua_guards import GUARDS
from .lua_io import ERROR_MARK, STOP_MARK, LuaExit, LuaHost
from .lua_prelude import PRELUDE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOOK_COUNT = 1000  # VM instructions between two host checks (about 10 µs of Lua)

USAGE = """usage: {0} [options] [script [args]]
Available options are:
  -e stat   execute string 'stat'
  -i        enter interactive mode after executing 'script'
  -l mod    require library 'mod' into global 'mod'
  -l g=mod  require library 'mod' into global 'g'
  -v        show version information
  -E        ignore environment variables
  -W        turn warnings on
  --        stop handling options
  -         stop handling options and execute stdin
"""


class _Usage(Exception):
    pass


@dataclass
class _Invocation:
    actions: list[tuple[str, str]] = field(default_factory=list)  # ("e", code) / ("l", mod) / ("W", "")
    version: bool = False
    interactive: bool = False
    ignore_env: bool = False
    has_e: bool = False
    script: int = 0  # index in argv (argv[0] is the program name); len(argv) when there is none


def _parse(argv: list[str]) -> _Invocation:
    """lua.c's collectargs: options until the first operand; a bad one raises _Usage(option)."""
    inv = _Invocation()
    i = 1
    while i < len(argv):
        a = argv[i]
        inv.script = i
        if not a.startswith("-"):
            return inv
        opt, rest = a[1:2], a[2:]
        if opt == "-":
            if rest:
                raise _Usage(a)
            inv.script = i + 1
            return inv
        if opt == "":
            return inv
        if opt in ("E", "W", "i", "v"):
            if rest:
                raise _Usage(a)
            inv.ignore_env |= opt == "E"
            inv.interactive |= opt == "i"
            inv.version |= opt in ("i", "v")
            if opt == "W":
                inv.actions.append(("W", ""))
        elif opt in ("e", "l"):
            value = rest
            if not rest:
                i += 1
                if i >= len(argv) or argv[i].startswith("-"):
                    raise _Usage(a)
                value = argv[i]
            inv.has_e |= opt == "e"
            inv.actions.append((opt, value))
        else:
            raise _Usage(a)
        i += 1
    inv.script = len(argv)
    return inv


def _usage(ctx: Ctx, option: str) -> int:
    what = "'%s' needs argument" if option[1:2] in ("e", "l") else "unrecognized option '%s'"
    ctx.stderr.write((f"{ctx.prog}: " + what % option + "\n" + USAGE.format(ctx.prog)).encode())
    return 1


@declare(
    "lua",
    "lua5.4",
    spells="lua",
    effects=Effects.OPAQUE,
    summary="run a Lua 5.4 program (-e CODE, a file or stdin) inside the sandbox",
)
def cmd_lua(ctx: Ctx) -> int:
    lupa = load_optional(ctx, "lupa.lua54", "lua")
    if lupa is None:
        return 127
    argv = [ctx.argv0, *ctx.args]
    try:
        inv = _parse(argv)
    except _Usage as e:
        return _usage(ctx, str(e))
    if inv.version:
        ctx.out(f"Lua {_release(lupa)}  Copyright (C) 1994-2024 Lua.org, PUC-Rio\n")
    if inv.interactive:
        ctx.error("interactive mode is not supported in sandbash (give a script, -e or stdin)")
        return 1
    with ctx.hold_memory() as mem:
        session = _Session(ctx, lupa, mem)
        try:
            status = session.main(argv, inv)
        finally:
            session.close()
        if session.pending is not None:
            raise session.pending
        return status


def _release(lupa: Any) -> str:
    major, minor = lupa.LUA_VERSION
    return f"{major}.{minor}"


CHUNKNAME = b"=[sandbash]"  # the sandbox's own chunks: relay and the traceback trimming look for it

# The sandbox's own chunks (guards, prelude) compiled once per process and loaded into each state as
# bytecode: compiling their source took about 0.5 and 0.3 ms of every `lua` start, loading the dump
# about 0.06 ms each. Dumped with debug information: their errors keep "[sandbash]:LINE:", which
# lua_guards' relay reads, and tracebacks keep their lines. (Scripts still load text chunks only.)
_COMPILED: dict[tuple[str, bytes], bytes] = {}


def _compiled(lupa: Any, source: bytes) -> bytes:
    key = (lupa.__name__, source)
    code = _COMPILED.get(key)
    if code is None:
        rt = lupa.LuaRuntime(encoding=None, register_eval=False, register_builtins=False)
        code = rt.globals().string.dump(rt.globals().load(source, CHUNKNAME, b"t"))
        if len(_COMPILED) >= 8:  # (only tests make more sources than the two)
            _COMPILED.clear()
        _COMPILED[key] = code
    return bytes(code)


class _Session:
    """One Lua state and its host, for one run of the command."""

    def __init__(self, ctx: Ctx, lupa: Any, mem: Any) -> None:
        self.ctx = ctx
        self.lupa = lupa
        self.exit_status: int | None = None  # os.exit was called
        # a limit or cancellation that ended the run: raised by cmd_lua once the state is gone
        # (a traceback through frames that hold Lua objects would keep the state alive)
        self.pending: BaseException | None = None
        self.rt = lupa.LuaRuntime(
            max_memory=memory_left(ctx),
            encoding=None,
            register_eval=False,
            register_builtins=False,
            unpack_returned_tuples=True,
            attribute_filter=_no_attributes,
        )
        self.host = LuaHost(ctx, mem, self.rt.get_memory_used)
        callbacks = self.rt.table_from(self.host.callbacks())
        # the library functions no hook reaches, bounded first (lua_guards.py): they need `debug`,
        # which the prelude takes away
        guards = self.rt.globals().load(_compiled(lupa, GUARDS), CHUNKNAME, b"b")
        self._guarded(guards)
        prelude = self.rt.globals().load(_compiled(lupa, PRELUDE), CHUNKNAME, b"b")
        entry = self._guarded(prelude, callbacks, ERROR_MARK, STOP_MARK, HOOK_COUNT)
        self.run_fn: Any
        self.compile_fn: Any
        self.setglobal: Any
        self.warnings_on: Any
        self.run_fn, self.compile_fn, self.setglobal, self.warnings_on = entry or (None, None, None, None)

    def close(self) -> None:
        # The state refers to the host's callbacks and the host to the state: break every path
        # back to the state so it is freed here, by reference counting, in this thread. Freed by
        # the cycle collector instead, lua_close would run Lua finalizers in the middle of some
        # other allocation (and lupa crashed doing that).
        self.host.lua_memory = _no_memory
        self.host.dead = True
        self.host.files.clear()
        self.run_fn = self.compile_fn = self.setglobal = self.warnings_on = None
        self.rt = None

    def _guarded(self, fn: Any, *args: Any) -> Any:
        """Call into Lua; lupa's memory error becomes the max_memory limit. (No closure over Lua
        objects here: a frame kept by an exception's traceback must not keep the state alive.)"""
        try:
            return fn(*args)
        except self.lupa.LuaMemoryError:
            self.pending = LimitExceeded(LimitKind.MAX_MEMORY, self.ctx.limits.max_memory)
            return None
        except self.lupa.LuaError as e:  # only the prelude itself could fail this way
            raise RuntimeError(f"lua prelude failed: {e}") from None

    # ------------------------------------------------------------ lua.c's pmain

    def main(self, argv: list[str], inv: _Invocation) -> int:
        if self.pending is not None:  # the budget had no room for the prelude
            return 1
        script = inv.script if inv.script < len(argv) else 0
        arg = {i - script: a.encode("utf-8", "surrogateescape") for i, a in enumerate(argv)}
        self.setglobal(b"arg", self.rt.table_from(arg))
        status = 0
        if not inv.ignore_env:
            status = self._lua_init()
        for kind, value in inv.actions if status == 0 else ():
            if kind == "W":
                self.warnings_on()
            elif kind == "e":
                status = self._chunk(value.encode("utf-8", "surrogateescape"), b"=(command line)")
            else:
                status = self._library(value)
            if status or self.exit_status is not None or self.pending is not None:
                break
        if self.exit_status is not None:
            return self._finish(self.exit_status)
        if self.pending is not None:
            return status
        if status == 0 and inv.script < len(argv):
            name = argv[inv.script]
            stdin = name == "-" and argv[inv.script - 1] != "--"
            status = self._file(
                None if stdin else name,
                [a.encode("utf-8", "surrogateescape") for a in argv[inv.script + 1 :]],
            )
        elif status == 0 and not inv.has_e and not inv.version:
            status = self._file(None, [])
        return self._finish(self.exit_status if self.exit_status is not None else status)

    def _lua_init(self) -> int:
        for name in ("LUA_INIT_5_4", "LUA_INIT"):
            value = self.ctx.env.get(name)
            if value is not None:
                if value.startswith("@"):
                    return self._file(value[1:], [])
                return self._chunk(value.encode("utf-8", "surrogateescape"), b"=" + name.encode())
        return 0

    def _library(self, spec: str) -> int:
        glob, _, mod = spec.partition("=")
        if not mod:
            glob = mod = spec
        code = b"local g, m = ... ; _G[g] = require(m)"
        return self._chunk(code, b"=(command line)", [glob.encode(), mod.encode()])

    def _chunk(self, code: bytes, chunkname: bytes, args: list[bytes] | None = None) -> int:
        chunk, msg = _pair(self._guarded(self.compile_fn, code, chunkname))
        if self.pending is not None:
            return 1
        if chunk is None:
            return self._report(msg)
        return self._call(chunk, args or [])

    def _file(self, name: str | None, args: list[bytes]) -> int:
        if name is None:
            try:
                src = self.host.read_stdin_all()
            except StreamReadError as e:  # `lua - < dir`
                return self._report(f"cannot read stdin: {e.strerror}".encode())
            chunkname = b"=stdin"
        else:
            answer = self.host.readfile(name.encode("utf-8", "surrogateescape"))
            if isinstance(answer, tuple):
                what = "read" if answer[1] == b"Is a directory" else "open"
                return self._report(f"cannot {what} {name}: ".encode("utf-8", "surrogateescape") + answer[1])
            src, chunkname = answer, b"@" + name.encode("utf-8", "surrogateescape")
        return self._chunk(src, chunkname, args)

    def _call(self, chunk: Any, args: list[bytes]) -> int:
        ok, msg = _pair(self._guarded(self.run_fn, chunk, *args))
        del chunk  # nothing of the state may outlive the run in a frame (see close)
        if self.pending is not None:
            return 1
        stop = self.host.stop
        if stop is not None:
            if isinstance(stop, LuaExit):
                self.exit_status = stop.status
                return stop.status
            self._flush_quietly()
            self.pending = stop
            return 1
        if ok:
            return 0
        if msg == b"not enough memory":  # LUA_ERRMEM: the message handler was not called
            self._flush_quietly()
            self.pending = LimitExceeded(LimitKind.MAX_MEMORY, self.ctx.limits.max_memory)
            return 1
        return self._report(_trim_traceback(msg if isinstance(msg, bytes) else str(msg).encode()))

    def _report(self, msg: bytes) -> int:
        self.ctx.stderr.write(self.ctx.prog.encode() + b": " + msg + b"\n")
        return 1

    def _flush_quietly(self) -> None:
        """The output so far reaches the result even when a limit ends the run."""
        self.host.stop = None
        try:
            self.host.close_all()
        except LimitExceeded:
            pass

    def _finish(self, status: int) -> int:
        self.host.stop = None
        self.host.close_all()
        return status


def _no_memory() -> int:
    return 0


def _pair(answer: Any) -> tuple[Any, Any]:
    """Two results of a Lua function (lupa gives one value alone, several as a tuple)."""
    if isinstance(answer, tuple):
        return answer[0] if answer else None, answer[1] if len(answer) > 1 else None
    return answer, None


def _trim_traceback(msg: bytes) -> bytes:
    """The frames below the main chunk are the sandbox's own (xpcall, the prelude): lua.c's
    traceback ends with the C frame that called the chunk."""
    lines = msg.split(b"\n")
    if b"stack traceback:" not in lines:
        return msg
    while lines and (
        b"[sandbash]" in lines[-1]
        or b"rawxpcall" in lines[-1]
        or b"'xpcall'" in lines[-1]
        or lines[-1].endswith(b"in ?")
    ):
        lines.pop()
    start = lines.index(b"stack traceback:") + 1
    return b"\n".join([*lines[:start], *_library_frames(lines[start:]), b"\t[C]: in ?"])


# how a traceback names a function it can name (not `function <[sandbash]:121>`)
_NAMED = (b"in function '", b"in method '", b"in field '", b"in for iterator '")


def _what(frame: bytes) -> bytes:
    """A traceback frame without its place: `in function 'string.find'`."""
    return frame.split(b": ", 1)[1]


def _library_frames(frames: list[bytes]) -> list[bytes]:
    """A library function the guards replaced (lua_guards.py) shows as lua shows the C function it
    stands for: the frames of the guards' Lua code, and of the C functions it called, end in the
    replacement's own (`[sandbash]:711: in function 'string.find'`); that run becomes lua's one
    frame, `[C]: in function 'string.find'`."""
    out: list[bytes] = []
    run: list[bytes] = []  # frames since the last one of the script's own
    for frame in [*frames, b""]:
        if frame.startswith((b"\t[C]: ", b"\t[sandbash]:")):
            run.append(frame)
            continue
        named = [
            i for i, f in enumerate(run) if f.startswith(b"\t[sandbash]:") and _what(f).startswith(_NAMED)
        ]
        if named:
            last = named[-1]
            run = [b"\t[C]: " + _what(run[last]), *run[last + 1 :]]
        out.extend(run)
        out.append(frame)
        run = []
    return out[:-1]


def _no_attributes(obj: object, name: object, is_setting: bool) -> object:
    """lupa's attribute filter: scripts get no Python attribute at all (no way to a module)."""
    raise AttributeError("not accessible from Lua in sandbash")
