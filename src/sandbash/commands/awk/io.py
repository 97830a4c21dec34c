"""Output redirections, getline sources, close(), fflush() and system().

Commands run through the sandbox's shell (`ctx.run_script`): an output pipe
collects its text and runs the command when it is closed (at close() or at
exit), a `cmd | getline` runs the command on first read and reads its
captured output. gawk's ordering is kept: stdout is flushed before a command
starts, and at exit pipes are closed before stdout is flushed.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Mapping

from ...limits import LimitExceeded, LimitKind
from ...stdio.streams import BufferWriter, BytesReader, ClosedStream, Stream, StreamError, StreamReadError
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from .records import Reader

_FLUSH_AT = 1 << 16


class AwkFatal(Exception):
    """A run-time error that ends awk with status 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OutputFailed(Exception):
    """Writing an output failed (`error`): which output (`out`) decides how awk reports it."""

    def __init__(self, out: TextOut, error: StreamError) -> None:
        super().__init__(error)
        self.out = out
        self.error = error


class TextOut:
    """Buffered text written to a byte stream."""

    __slots__ = ("stream", "parts", "size", "unbuffered", "owned")

    def __init__(self, stream: Stream, unbuffered: bool = False, owned: bool = False) -> None:
        self.stream = stream
        self.parts: list[str] = []
        self.size = 0
        self.unbuffered = unbuffered
        self.owned = owned

    def write(self, s: str) -> None:
        self.parts.append(s)
        self.size += len(s)
        if self.size >= _FLUSH_AT or self.unbuffered:
            self.flush()

    def flush(self) -> None:
        if self.parts:
            data = "".join(self.parts).encode("utf-8", "surrogateescape")
            self.parts.clear()  # in place: print1 holds the list
            self.size = 0
            try:
                self.stream.write(data)
            except StreamError as e:
                if type(e) is StreamReadError:
                    raise
                raise OutputFailed(self, e) from None
        self.stream.flush()

    def close(self) -> int:
        self.flush()
        if self.owned:
            self.stream.close()
        return 0


class PipeOut:
    """`print | "cmd"` (and the write side of `|&`): runs cmd at close."""

    __slots__ = ("io", "cmd", "parts", "size", "coproc", "closed")

    def __init__(self, io: IOManager, cmd: str, coproc: bool = False) -> None:
        self.io = io
        self.cmd = cmd
        self.parts: list[str] = []
        self.size = 0
        self.coproc = coproc
        self.closed = False

    def write(self, s: str) -> None:
        self.parts.append(s)
        self.size += len(s)
        self.io.charge(len(s) >> 8)
        if self.size > self.io.pipe_limit:
            # the command runs at close(): what waits for it must stay bounded
            raise LimitExceeded(LimitKind.MAX_OUTPUT_SIZE, self.io.pipe_limit)

    def flush(self) -> None:
        pass

    def data(self) -> bytes:
        return "".join(self.parts).encode("utf-8", "surrogateescape")

    def close(self, at_exit: bool = False) -> int:
        if self.closed:
            return 0
        self.closed = True
        if self.coproc:
            return 0
        if not at_exit:
            self.io.stdout.flush()  # gawk: at exit, pipes finish before stdout is flushed
        return self.io.run(self.cmd, self.data(), self.io.ctx.stdout)


Output = TextOut | PipeOut


class IOManager:
    def __init__(self, ctx: Ctx, ns: Mapping[str, object], csv: bool, prog: str) -> None:
        self.ctx = ctx
        self.ns = ns
        self.csv = csv
        self.prog = prog
        self.stdout = TextOut(ctx.stdout)
        self.stderr = TextOut(ctx.stderr, unbuffered=True)
        self.outputs: dict[str, Output] = {}
        self.inputs: dict[str, Reader] = {}
        self.statuses: dict[str, int] = {}  # exit status of `cmd | getline` commands
        self.coprocs: dict[str, PipeOut] = {}
        self.captured = 0
        self.charge: Callable[[int], None] = ctx.checkpoint
        # text held for a command (output pipes, `cmd | getline` output) is bounded
        self.pipe_limit = max(ctx.limits.max_output_size, 16 << 20)

    # ------------------------------------------------------------ commands

    def run(self, cmd: str, stdin: bytes | Stream | None, stdout: Stream) -> int:
        """Run shell text in the sandbox; status as awk reports it."""
        ctx = self.ctx
        inp: Stream = (
            ctx.stdin if stdin is None else (BytesReader(stdin) if isinstance(stdin, bytes) else stdin)
        )
        try:
            return ctx.run_script(cmd, stdin=inp, stdout=stdout, stderr=ctx.stderr)
        except RuntimeError:
            pass
        # no shell in this context (unit tests): run a plain command line directly
        import shlex

        try:
            argv = shlex.split(cmd)
        except ValueError:
            argv = []
        if not argv or any(c in cmd for c in "|&;<>()$`*?[]{}"):
            return 127
        return ctx.run(argv, stdin=inp, stdout=stdout, stderr=ctx.stderr)

    def system(self, cmd: str) -> int:
        self.flush_all()
        return self.run(cmd, None, self.ctx.stdout)

    # ------------------------------------------------------------ output

    def output(self, kind: str, name: str) -> Output:
        out = self.outputs.get(name)
        if out is not None:
            return out
        if kind == "|":
            self.stdout.flush()
            out = PipeOut(self, name)
        elif kind == "|&":
            self.stdout.flush()
            out = PipeOut(self, name, coproc=True)
            self.coprocs[name] = out
        elif name in ("/dev/stdout", "-", "/dev/fd/1"):
            out = self.stdout
        elif name in ("/dev/stderr", "/dev/fd/2"):
            out = self.stderr
        else:
            try:
                stream = self.ctx.open_out(name, kind == ">>", reopen=False)
            except FsError as e:
                raise AwkFatal(f"cannot redirect to `{name}': {strerror(e.errno or 0)}") from None
            out = TextOut(stream, owned=not name.startswith("/dev/fd/"))
        self.outputs[name] = out
        return out

    def flush_all(self) -> None:
        for out in self.outputs.values():
            out.flush()
        self.stdout.flush()

    def fflush(self, name: str | None) -> int:
        if name is None:
            self.flush_all()
            return 0
        out = self.outputs.get(name)
        if out is None:
            if name in ("/dev/stdout", "-"):
                self.stdout.flush()
                return 0
            return -1
        out.flush()
        return 0

    # ------------------------------------------------------------ input

    def reader_file(self, name: str) -> Reader | None:
        """The reader for `getline < name`; None when it cannot be opened."""
        rd = self.inputs.get(name)
        if rd is not None:
            return rd
        try:
            stream = self.ctx.open_in(name, reopen=False)
            if name not in ("-", "/dev/stdin") and self.ctx.fs.is_dir(name):
                return None
            if isinstance(stream, ClosedStream):  # (`getline < "-"` on a closed stdin: -1)
                self.set_errno(strerror(errno.EBADF))
                return None
        except FsError as e:
            self.set_errno(strerror(e.errno or 0))
            return None
        rd = Reader(stream, self.ns, self.csv, self.charge, self.ctx.budget)
        self.inputs[name] = rd
        return rd

    def reader_cmd(self, cmd: str, coproc: bool = False) -> Reader:
        rd = self.inputs.get(cmd)
        if rd is not None:
            return rd
        self.flush_all()
        self.captured = 0
        captured = BufferWriter(charge=self._charge_captured)
        stdin: bytes | None = None
        if coproc:
            pipe = self.coprocs.get(cmd)
            stdin = pipe.data() if pipe is not None else b""
            if pipe is not None:
                pipe.closed = True
        self.statuses[cmd] = self.run(cmd, stdin, captured)
        rd = Reader(BytesReader(captured.getvalue()), self.ns, self.csv, self.charge, self.ctx.budget)
        self.inputs[cmd] = rd
        return rd

    def _charge_captured(self, n: int) -> None:
        self.captured += n
        if self.captured > self.pipe_limit:
            raise LimitExceeded(LimitKind.MAX_OUTPUT_SIZE, self.pipe_limit)

    def set_errno(self, text: str) -> None:
        if isinstance(self.ns, dict):
            self.ns["V_ERRNO"] = text

    # ------------------------------------------------------------ close

    def close(self, name: str, how: str | None = None) -> int:
        found = False
        status = 0
        if how in (None, "to", "from") and name in self.outputs and how != "from":
            out = self.outputs.pop(name)
            found = True
            status = out.close()
            if isinstance(out, PipeOut) and out.coproc and how == "to":
                self.outputs[name] = out  # keep the data for the read side
        if how != "to" and name in self.inputs:
            rd = self.inputs.pop(name)
            rd.close()
            found = True
            status = self.statuses.pop(name, 0)
            self.coprocs.pop(name, None)
            self.outputs.pop(name, None)
        if not found:
            return -1
        return status

    def close_all(self) -> None:
        """At exit: close redirections (running pending pipes), then flush stdout."""
        for name in list(self.outputs):
            out = self.outputs.get(name)
            if isinstance(out, PipeOut):
                out.close(at_exit=True)
            elif out is not None and out is not self.stdout:
                out.close()  # (still listed while it closes: a failure names it)
            self.outputs.pop(name, None)
        for rd in self.inputs.values():
            rd.close()
        self.inputs.clear()
        self.stdout.flush()
