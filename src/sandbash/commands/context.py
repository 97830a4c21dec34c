"""The narrow context a command runs with.

A command sees only this: its arguments, its three streams (and other open
fds for /dev/fd/N), the filesystem through the facade, the exported
environment, the budget, and `run()` to start a sub-command through the
interpreter (so policy, limits and audit apply to it). Commands never import
the interpreter.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..identity import Identity
from ..limits import Budget, LimitExceeded, LimitKind, Limits, MemoryHold
from ..stdio.streams import BytesReader, Stream
from ..vfs.errors import FsError
from ..vfs.facade import FsView, reopen_target
from .gnuquote import quote
from .options import (
    CommandSpec,
    HelpRequested,
    OptionValueError,
    Parsed,
    UsageError,
    parse_args,
    usage_message,
)
from .progname import error_name, getopt_name, help_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random
    from typing import Any

    from ..net.config import NetworkConfig
    from .inputs import Inputs

# runner(argv, stdin, stdout, stderr, env, cwd, timeout) -> status: runs a command through the executor
Runner = Callable[
    [Sequence[str], Stream, Stream, Stream, Mapping[str, str] | None, str | None, float | None], int
]
# finder(name, path, refusal) -> the path a command name resolves to in PATH (`path`: another
# PATH than the shell's), or None; with refusal=True, why the policy refused a path the search met
# when it found nothing (None: none was refused)
Finder = Callable[[str, str | None, bool], str | None]
# script_runner(script, args, stdin, stdout, stderr, env) -> status: runs shell text in a child shell
ScriptRunner = Callable[[str, Sequence[str], Stream, Stream, Stream, Mapping[str, str] | None], int]


class CommandTimeout(Exception):
    """`ctx.run(..., timeout=S)`: the sub-command did not finish in time."""


class DiedOfSignal(Exception):
    """Raised by a command whose own process dies of signal `signal` (GNU timeout's `-s KILL`
    reaches its own process group): status 128+N, and the shell reports it as bash reports a
    foreground process killed by a signal."""

    def __init__(self, signal: int) -> None:
        super().__init__(signal)
        self.signal = signal


class CommandExit(Exception):
    """Raised by a command to stop with a status (after printing its message)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class WriteError(Exception):
    """Writing standard output failed (ENOSPC on /dev/full or a full filesystem, a closed fd) while
    `size` bytes were being written: reported where every command's is (commands/invoke.py), as
    its record says (WriteFailure). Not a StreamError, so no handler of a failed read takes it."""

    def __init__(self, errno_: int, size: int) -> None:
        super().__init__(errno_)
        self.errno = errno_
        self.size = size


class Ctx:
    __slots__ = (
        "name",
        "args",
        "stdin",
        "stdout",
        "stderr",
        "fs",
        "env",
        "fds",
        "budget",
        "_runner",
        "_script_runner",
        "clock",
        "_rng",
        "_rng_of",
        "extra",
        "_finder",
        "identity",
        "net",
        "argv0",
        "read_stdin",
        "reopened",
    )

    def __init__(
        self,
        name: str,
        args: list[str],
        stdin: Stream,
        stdout: Stream,
        stderr: Stream,
        fs: FsView,
        env: Mapping[str, str],
        budget: Budget,
        *,
        fds: Mapping[int, Stream] | None = None,
        runner: Runner | None = None,
        script_runner: ScriptRunner | None = None,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        rng_of: Callable[[], random.Random] | None = None,
        extra: dict[str, Any] | None = None,
        finder: Finder | None = None,
        identity: Identity | None = None,
        net: NetworkConfig | None = None,
        argv0: str | None = None,
    ) -> None:
        self.name = name  # the base name it was run by (what a command dispatches on)
        self.argv0 = argv0 if argv0 is not None else name  # as given: `/bin/ls` (progname.py)
        self.args = args
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.fs = fs
        self.env = env
        self.fds = fds or {0: stdin, 1: stdout, 2: stderr}
        self.budget = budget
        self._runner = runner
        self._script_runner = script_runner
        self.clock = clock
        # the generator (`rng`), or where to get it when a command first asks (the shell's, made on
        # first read): random.py and what it imports are ~3 M instructions a command rarely needs
        self._rng = rng
        self._rng_of = rng_of
        self.extra = extra or {}
        self._finder = finder
        # the virtual user and host (id, whoami, hostname, uname), and the embedder's network grant
        # (curl, wget, ping; None: no network)
        self.identity = identity if identity is not None else Identity()
        self.net = net
        # whether an operand `-` was opened (GNU's have_read_stdin: the tools that close stdin
        # at exit check that close, invoke.py)
        self.read_stdin = False
        # the files /dev/fd/N operands opened anew (_reopen): closed when the command ends (invoke)
        self.reopened: list[Stream] = []

    # ------------------------------------------------------------ basics

    @property
    def cwd(self) -> str:
        return self.fs.cwd

    @property
    def rng(self) -> random.Random:
        """The run's random generator (shuf, mktemp, temporary names): made on the first read."""
        made = self._rng
        if made is None:
            if self._rng_of is not None:
                made = self._rng_of()
            else:
                import random

                made = random.Random()
            self._rng = made
        return made

    @property
    def limits(self) -> Limits:
        return self.budget.limits

    def checkpoint(self, work: int = 1) -> None:
        """Charge work to the run's budget; raises when a limit or the deadline is hit."""
        self.budget.checkpoint(work)

    def hold_memory(self) -> MemoryHold:
        """A charge on the run's memory budget for one structure this command builds:
        `with ctx.hold_memory() as mem: mem.charge(len(chunk)); ...` (released at the end)."""
        return MemoryHold(self.budget)

    def out(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        self.stdout.write(data)

    @property
    def prog(self) -> str:
        """The name its error lines start with: argv[0] as given for the GNU tools that print it."""
        return error_name(self.name, self.argv0)

    @property
    def help_prog(self) -> str:
        """The name in its `Try '... --help'` and `Usage:` lines."""
        return help_name(self.name, self.argv0)

    def error(self, message: str) -> None:
        """Print `NAME: message` on stderr."""
        self.stderr.write(f"{self.prog}: {message}\n".encode("utf-8", "surrogateescape"))

    def usage_error(self, message: str, status: int = 1) -> CommandExit:
        """`NAME: message` and GNU's `Try 'NAME --help'` line; the exit to raise."""
        self.error(message)
        return self.try_help(status)

    def try_help(self, status: int = 1) -> CommandExit:
        """GNU's `Try 'NAME --help'` line alone (after messages already written); the exit to raise."""
        self.stderr.write(
            f"Try '{self.help_prog} --help' for more information.\n".encode("utf-8", "surrogateescape")
        )
        return CommandExit(status)

    def operand_count(self, operands: Sequence[str], count: int, low: int | None = None) -> None:
        """GNU's check of a fixed number of operands (at least `low`, default `count`): `missing
        operand`, `missing operand after 'LAST'`, `extra operand 'FIRST-EXTRA'` (usage errors)."""
        if len(operands) < (count if low is None else low):
            raise self.usage_error(
                f"missing operand after {quote(operands[-1])}" if operands else "missing operand"
            )
        if len(operands) > count:
            raise self.usage_error(f"extra operand {quote(operands[count])}")

    def fs_error(self, e: FsError, path: str | None = None, prefix: str = "") -> None:
        """`NAME: [prefix]path: strerror`."""
        shown = path if path is not None else e.path
        self.error(f"{prefix}{shown}: {e.message}")

    def parse(self, spec: CommandSpec, args: Sequence[str] | None = None) -> tuple[Parsed, list[str]]:
        """Parse options; prints GNU usage errors and help, then raises CommandExit."""
        try:
            return parse_args(spec, self.args if args is None else args)
        except UsageError as e:
            self.stderr.write(self.usage_text(spec, e.message).encode("utf-8", "surrogateescape"))
            raise CommandExit(spec.usage_status)
        except OptionValueError as e:
            self.error(e.message)
            raise CommandExit(spec.usage_status)
        except HelpRequested as h:
            self.stdout.write(h.text.encode("utf-8", "surrogateescape"))
            raise CommandExit(0)

    def usage_text(self, spec: CommandSpec, message: str, getopt: bool = True) -> str:
        """A usage error (`getopt`: one the option parser found), named as this run names the tool."""
        if (spec.runs or spec.name) != self.name:
            return usage_message(spec, message)
        name = getopt_name(self.name, self.argv0) if getopt else self.prog
        return usage_message(spec, message, name, self.help_prog)

    # ------------------------------------------------------------ files

    def open_in(self, path: str, reopen: bool = True) -> Stream:
        """Open an input operand: `-` is stdin; /dev/stdin and /dev/fd/N are fds (a file one opened
        anew unless `reopen` is False: gawk reads the descriptor itself)."""
        if path == "-":
            self.read_stdin = True
            return self.stdin
        fd = _dev_fd(path)
        if fd is not None:
            stream = self.fds.get(fd)
            if stream is None:  # (no such entry in /dev/fd)
                raise FsError(errno.ENOENT, path)
            again = self._reopen(path, stream, "r") if reopen else None
            if again is not None:
                return again
            if not stream.readable:
                raise FsError(errno.EBADF, path)
            return stream
        return self.fs.open(path, "r")

    def names_fd(self, path: str) -> bool:
        """Whether `path` names one of the command's descriptors (/dev/stdin, /dev/fd/63 from a
        process substitution): read through open_in, never looked up in the filesystem."""
        return _dev_fd(path) is not None

    def open_out(self, path: str, append: bool = False, reopen: bool = True) -> Stream:
        fd = _dev_fd(path)
        if fd is not None:
            stream = self.fds.get(fd)
            if stream is None:
                raise FsError(errno.ENOENT, path)
            again = self._reopen(path, stream, "a" if append else "w") if reopen else None
            if again is not None:
                return again
            if not stream.writable:
                raise FsError(errno.EBADF, path)
            return stream
        return self.fs.open(path, "a" if append else "w")

    def _reopen(self, path: str, stream: Stream, mode: str) -> Stream | None:
        """/dev/fd/N (or /dev/stdin|stdout|stderr) of a descriptor that holds a file: Linux opens the
        link into /proc/self/fd anew, the file with its own offset and the mode asked for (`exec
        4>g; cat /dev/fd/4` reads g, `tee /dev/fd/3` truncates it), through the filesystem and its
        policy like any path; errors name /dev/fd/N. A file gone from its name is read through the
        descriptor's handle with an offset of its own (reopen_target); None for a pipe, device or
        buffer (shared as it is)."""
        real = reopen_target(self.fs, stream, mode)
        if real is None or isinstance(real, Stream):
            return real
        try:
            again = self.fs.open(real, mode)
        except FsError as e:
            if e.code == errno.ENOENT:
                return None
            raise e.at(path) from None
        self.reopened.append(again)
        return again

    def inputs(
        self,
        names: Sequence[str],
        open_error: str = "{f}: {err}",
        read_error: str | None = None,
        flush: Callable[[], None] | None = None,
    ) -> Inputs:
        """The file operands this command reads (none: stdin), opened in turn, errors named in
        the tool's own words; `flush` writes out buffered output before a message (commands/inputs.py)."""
        from .inputs import Inputs

        return Inputs(self, names, open_error, read_error, flush)

    def read_input(self, path: str, reopen: bool = True, hold: MemoryHold | None = None) -> bytes:
        """The whole of an input operand (`-` is stdin), charged as `read_all` charges it."""
        stream = self.open_in(path, reopen)
        data = self.read_all(stream, hold=hold)
        if stream is not self.stdin and _dev_fd(path) is None:
            stream.close()
        return data

    def read_all(
        self,
        stream: Stream | Iterable[bytes],
        *,
        copies: int = 2,
        cap: int = -1,
        hold: MemoryHold | None = None,
    ) -> bytes:
        """The rest of `stream` (or the chunks an iterable gives), charged to the run's memory as it
        arrives, `copies` times each chunk (the parts and their joined copy; more when the caller
        decodes or splits the whole), and to its work: a pipe may never end (`yes | bc`, `yes | tr
        -d '\\n' | diff - f` grew past the host's memory), so an endless input ends on max_memory.
        `cap` bounds the whole (max_string_length, for an input that becomes one string). The
        charge is given back on return, or stays on `hold` when the caller keeps what it builds
        from the bytes. Use this, never `stream.read()`, for a whole input."""
        chunks = stream.chunks() if isinstance(stream, Stream) else stream
        parts: list[bytes] = []
        size = 0
        mem = self.hold_memory() if hold is None else hold
        try:
            for chunk in chunks:
                size += len(chunk)
                if 0 <= cap < size:
                    raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, cap)
                mem.charge(copies * len(chunk))
                self.budget.checkpoint((len(chunk) >> 12) + 1)
                parts.append(chunk)
            return b"".join(parts)
        finally:
            if hold is None:
                mem.close()

    # ------------------------------------------------------------ sub-commands

    def run(
        self,
        argv: Sequence[str],
        stdin: Stream | bytes | None = None,
        stdout: Stream | None = None,
        stderr: Stream | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        timeout: float | None = None,
    ) -> int:
        """Run a command (builtin or command) through the interpreter, in `cwd`
        when given (relative to this command's working directory). With
        `timeout`, raises CommandTimeout if it has not finished in that many
        seconds (everything it started is stopped)."""
        if self._runner is None:
            raise RuntimeError("this context cannot run sub-commands")
        if isinstance(stdin, bytes):
            stdin = BytesReader(stdin)
        return self._runner(
            argv, stdin or self.stdin, stdout or self.stdout, stderr or self.stderr, env, cwd, timeout
        )

    def find_program(self, name: str, path: str | None = None) -> str | None:
        """Where `name` is found in PATH (as the shell would run it), or None.
        Builtins and functions are not programs. `path` searches another PATH
        (the one a command like `env PATH=... prog` gives its child)."""
        if self._finder is None:
            return None
        return self._finder(name, path, False)

    def program_refusal(self, name: str, path: str | None = None) -> str | None:
        """After find_program(name, path) found nothing: the policy's refusal of a path the search
        met (`Permission denied [policy: RULE]`, what execvp's EACCES becomes), or None. The search
        is not asked again of the policy (nor audited) while nothing has run since."""
        if self._finder is None:
            return None
        return self._finder(name, path, True)

    def run_script(
        self,
        script: str,
        args: Sequence[str] = (),
        stdin: Stream | bytes | None = None,
        stdout: Stream | None = None,
        stderr: Stream | None = None,
        env: Mapping[str, str] | None = None,
    ) -> int:
        """Run shell text in a child shell (awk's system(), `sh -c`)."""
        if self._script_runner is None:
            raise RuntimeError("this context cannot run scripts")
        if isinstance(stdin, bytes):
            stdin = BytesReader(stdin)
        return self._script_runner(
            script, args, stdin or self.stdin, stdout or self.stdout, stderr or self.stderr, env
        )


def _dev_fd(path: str) -> int | None:
    if path == "/dev/stdin":
        return 0
    if path == "/dev/stdout":
        return 1
    if path == "/dev/stderr":
        return 2
    if path.startswith("/dev/fd/") and path[8:].isdigit():
        return int(path[8:])
    return None


CommandFn = Callable[[Ctx], int]
