"""`python3` / `python`: Python programs in Monty, pydantic's sandboxed interpreter.

Monty runs the program in a worker process with no host access (python_worker.py owns the
pool); files, environment and sleeps come back as callbacks answered from the virtual
filesystem (python_os.py), print() output streams to the command's stdout/stderr, and the run's
deadline, cancellation and memory budget become Monty's own limits plus a watchdog. Monty is a
subset of Python: no classes that inherit, no generators, a fixed list of standard modules; an
unsupported module or feature ends the program with Monty's one-line error and a short note.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...limits import LimitExceeded, LimitKind
from ...stdio.streams import Stream
from ...vfs.errors import strerror
from ..context import CommandExit, Ctx
from ..record import Effects, declare
from .common import (
    Program,
    check_time,
    load_optional,
    memory_left,
    read_program_file,
    read_stdin_program,
    seconds_left,
    timed_out,
)
from .python_modules import external_modules
from .python_os import VfsOS
from .python_prelude import PRELUDE
from .python_source import named_builtins, rewrite, stdlib_modules
from .python_stdlib import MODULES
from .python_subprocess import Subprocess
from .python_traceback import program_traceback
from .python_worker import MAX_NESTING, Nesting, Watchdog, WorkerUnavailable, checkout, pool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VERSION = "Python 3.14.0"
USAGE = (
    "usage: {0} [option] ... [-c cmd | -m mod | file | -] [arg] ...\nTry `python -h' for more information.\n"
)
HELP = """usage: {0} [option] ... [-c cmd | file | -] [arg] ...
Options (sandbash runs Python in Monty, a sandboxed subset of Python 3):
-c cmd : program passed in as string (terminates option list)
-h     : print this help message and exit (also -? or --help)
-V     : print the Python version number and exit (also --version)
-B -E -I -O -q -s -S -u : accepted and ignored
file   : program read from script file of the sandbox
-      : program read from stdin (default; interactive mode is not available)
arg ...: arguments passed to program in sys.argv[1:]

Supported: the core language (functions, closures, classes without base classes, dataclasses,
comprehensions, f-strings, exceptions, async/await), and the modules json, re, math, datetime,
time, collections, itertools, functools, csv, random, hashlib, base64, binascii, bisect, copy,
decimal, typing, dataclasses, tomllib, unicodedata, asyncio, os, os.path, pathlib, sys,
string, textwrap, shlex, statistics, glob, fnmatch, shutil, operator, heapq, io, tempfile,
logging, urllib.parse, uuid, pprint, html. Files,
os.listdir/os.walk/pathlib and os.environ use the sandbox; subprocess.run/check_output,
os.system and os.popen run sandbash commands.
No generators (yield), no class inheritance, no Popen, no third-party packages.
"""
# ignored flags (no argument), and the ones that take one
_FLAGS = set("BEIOqsSuvbdR")
_WITH_ARG = set("WX")
_HINT = (
    "{0}: note: sandbash runs Python in Monty (a sandboxed subset of Python 3): "
    "see `{0} -h` for the supported modules\n"
)
_EOF = "EOF when reading a line"
# Monty's words for its memory cap: its heap limit, or its worker process killed past its limit
# (a list of 20 M one-element lists: the allocations outran the heap check)
_MONTY_MEMORY = ("memory limit exceeded", "the worker exceeded its memory limit")


@dataclass
class _Exit:
    code: object = None
    called: bool = False


def _parse(ctx: Ctx) -> Program | int:
    """Program and argv from CPython's command line, or an exit status (usage, help, version)."""
    args = ctx.args
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "-?", "--help"):
            ctx.out(HELP.format(ctx.prog))
            return 0
        if a in ("-V", "--version"):
            ctx.out(VERSION + "\n")
            return 0
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        j = 1
        while j < len(a):
            c = a[j]
            if c == "c":
                code = a[j + 1 :] or (args[i + 1] if i + 1 < len(args) else None)
                if code is None:
                    ctx.stderr.write(
                        f"Argument expected for the -c option\n{USAGE.format(ctx.prog)}".encode()
                    )
                    return 2
                rest = args[i + 1 :] if a[j + 1 :] else args[i + 2 :]
                return Program(code, "<string>", ["-c", *rest])
            if c == "m":
                ctx.error("-m MODULE is not supported in sandbash (Monty has no module runner)")
                return 2
            if c in _WITH_ARG:
                if j + 1 == len(a):
                    i += 1
                break
            if c not in _FLAGS:
                ctx.stderr.write(f"Unknown option: -{c}\n{USAGE.format(ctx.prog)}".encode())
                return 2
            j += 1
        i += 1
    rest = args[i:]
    if not rest or rest[0] == "-":
        return Program(read_stdin_program(ctx), "<stdin>", ["-" if rest else "", *rest[1:]], from_stdin=True)
    path = rest[0]
    text = read_program_file(
        ctx,
        path,
        lambda p, code: (
            f"{ctx.prog}: can't open file {ctx.fs.abspath(p)!r}: [Errno {int(code)}] {strerror(code)}\n"
        ),
    )
    return Program(text, ctx.fs.abspath(path), rest)


@declare(
    "python3",
    "python",
    spells="python3",
    effects=Effects.OPAQUE,
    summary="run a Python program in Monty, a sandboxed subset of Python 3",
)
def cmd_python3(ctx: Ctx) -> int:
    # Monty is imported here, not at module level: the index generator imports every command module
    pm = load_optional(ctx, "pydantic_monty", "python")
    if pm is None:
        return 127
    try:
        parsed = _parse(ctx)
    except CommandExit as e:
        return e.status
    if isinstance(parsed, int):
        return parsed
    return _Run(ctx, pm, parsed).main()


class _Run:
    """One program in one checked-out Monty session."""

    def __init__(self, ctx: Ctx, pm: Any, program: Program) -> None:
        self.ctx = ctx
        self.pm = pm
        self.program = program
        self.exit = _Exit()
        # a limit, a broken pipe or cancellation raised inside a callback: Monty's native frames
        # cannot carry it, so it is kept here, the worker stopped, and it is raised again after
        self.abort: BaseException | None = None
        self.os = VfsOS(ctx, pm)
        self.eof = False

    # ------------------------------------------------------------ callbacks

    def _print(self, stream: str, text: str) -> None:
        if self.abort is not None:
            return
        target: Stream = self.ctx.stderr if stream == "stderr" else self.ctx.stdout
        try:
            target.write(text.encode("utf-8", "surrogateescape"))
        except BaseException as e:  # carried across the native boundary, raised again in main()
            self.abort = e

    def _guarded(self, fn: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception:
                raise  # an ordinary error is the program's (an OSError it may catch)
            except BaseException as e:  # a limit or cancellation: stop the program, keep the error
                self.abort = e
                raise RuntimeError("sandbash: run stopped") from None

        return call

    def _sb_exit(self, code: object = None) -> None:
        self.exit = _Exit(code, True)
        raise SystemExit("" if code is None else str(code))

    def _sb_eof(self) -> None:
        self.eof = True
        raise EOFError(_EOF)  # Monty has no EOFError: it arrives as Exception, renamed in _failed

    def _should_stop(self) -> bool:
        if self.abort is not None:
            return True
        try:
            check_time(self.ctx)
        except BaseException:  # the watchdog only asks; main() raises the real error
            return True
        return False

    # ------------------------------------------------------------ running

    def main(self) -> int:
        ctx = self.ctx
        seconds = seconds_left(ctx)
        limits = {
            "max_feed_duration_secs": max(0.01, seconds),
            "max_memory": memory_left(ctx),
            "max_recursion_depth": 1000,
            "max_suspensions": 1 << 62,
        }
        # _sb_exit raises SystemExit into the program (it may catch it): not a host stop, so unguarded
        sub = Subprocess(ctx, self.pm, lambda: self.os.environ() if self.os.env_changes else None)
        lookup = {
            "_sb_exit": self._sb_exit,
            "_sb_eof": self._sb_eof,
            "_sb_path_given": self.os.path_given,
            "_sb_read_lines": self._guarded(self.os.read_lines),
            "_sb_read_bytes": self._guarded(self.os.read_bytes),
            "_sb_read_text": self._guarded(self.os.read_text),
            "_sb_system": self._guarded(sub.system),
            "_sb_popen_read": self._guarded(sub.popen_read),
            "_sb_pwrite": self._guarded(self.os.pwrite),
            "_sb_truncate": self._guarded(self.os.truncate),
            "_sb_setenv": self._guarded(self.os.setenv),
            "_sb_unsetenv": self._guarded(self.os.unsetenv),
            "_sb_failure": sub.failure,
        }
        modules = external_modules(self.pm, ctx, self._guarded)
        modules["subprocess"] = lambda: self.pm.ExternalModule(
            {k: self._guarded(v) if callable(v) else v for k, v in sub.attrs().items()}
        )
        handler = self._guarded(self.os)
        name = self.program.name
        script = "main.py" if name.startswith("<") else name.rsplit("/", 1)[-1]
        try:
            workers = pool(self.pm)
        except WorkerUnavailable as e:
            ctx.error(f"the Python runtime cannot start: {e}")
            return 127
        limit = min(ctx.limits.max_substitution_depth, MAX_NESTING)
        with Nesting(limit) as within, ctx.hold_memory() as mem, ctx.hold_memory() as env_mem:
            if not within:  # python3 -> subprocess -> python3 -> ...: each level holds a worker
                raise LimitExceeded(LimitKind.MAX_SUBSTITUTION_DEPTH, limit)
            mem.charge(4 << 20)  # the worker's fixed cost, held while it runs this program
            self.os.env_hold = env_mem
            session = checkout(
                workers,
                lambda: check_time(ctx),
                script_name=script,
                limits=limits,
                os_policy={"sleep": "call_host"},
                print_flush_interval=0.002,
                external_modules=modules,
            )
            try:
                return self._feed(session, lookup, handler)
            finally:
                session.__exit__(None, None, None)

    def _feed(self, session: Any, lookup: dict[str, Any], handler: Any) -> int:
        """The prelude, then the program, in one checked-out session."""
        try:
            program = rewrite(self.program.text)
            session.feed_run(
                PRELUDE
                + named_builtins(program)
                + "".join(MODULES[name][1] for name in stdlib_modules(self.program.text)),
                inputs={"_sb_argv": list(self.program.argv)},
                external_lookup=lookup,
                os=handler,
                cwd=self.ctx.cwd,
                print_callback=self._print,
            )
            with Watchdog(session, self._should_stop) as dog:
                try:
                    session.feed_run(
                        program,
                        external_lookup=lookup,
                        os=handler,
                        print_callback=self._print,
                    )
                finally:
                    self._raise_stop(dog.fired)
        except self.pm.MontyCrashedError as e:
            self.ctx.error(f"the Python worker stopped ({e})")
            return 1
        except self.pm.MontyError as e:
            return self._failed(e)
        return 0

    def _raise_stop(self, fired: bool) -> None:
        if self.abort is not None:
            raise self.abort
        if fired:
            check_time(self.ctx)
            raise timed_out(self.ctx)

    def _failed(self, e: Any) -> int:
        """Status and stderr for an exception that ended the program."""
        exc = e.exception() if hasattr(e, "exception") else None
        kind = type(exc).__name__ if exc is not None else ""
        text = str(exc) if exc is not None else str(e)
        if kind == "SystemExit":
            return self._exit_status(text)
        if kind == "TimeoutError" and text.startswith("feed time limit exceeded"):
            check_time(self.ctx)
            raise timed_out(self.ctx)
        if kind == "MemoryError" and text.startswith(_MONTY_MEMORY):
            raise LimitExceeded(LimitKind.MAX_MEMORY, self.ctx.limits.max_memory)
        shown = program_traceback(e.display() if hasattr(e, "display") else str(e), self.program)
        if self.eof and kind == "Exception" and text == _EOF:
            shown = shown.rsplit("\n", 1)[0] + f"\nEOFError: {_EOF}"
        elif kind == "KeyError" and exc is not None and len(exc.args) == 1:
            shown = shown.rsplit("\n", 1)[0] + f"\nKeyError: {exc.args[0]!r}"  # CPython shows the key's repr
        self.ctx.stderr.write((shown.rstrip("\n") + "\n").encode("utf-8", "surrogateescape"))
        if kind in ("ModuleNotFoundError", "NotImplementedError") or (
            kind == "AttributeError" and "module '" in text
        ):
            self.ctx.stderr.write(_HINT.format(self.ctx.name).encode())
        return 1

    def _exit_status(self, message: str) -> int:
        code = self.exit.code if self.exit.called else (message or None)
        if code is None:
            return 0
        if isinstance(code, bool) or not isinstance(code, int):
            self.ctx.stderr.write(f"{code}\n".encode("utf-8", "surrogateescape"))
            return 1
        return code & 0xFF
