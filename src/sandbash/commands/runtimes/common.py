"""Invocation helpers shared by the embedded runtimes.

A runtime reads its program from `-c CODE` / `-e CODE`, a file of the virtual filesystem, or
stdin (`-` or no operand); it reports a missing optional package as status 127 with the pip
line that installs it, and a feature it does not have as one short line.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

from ...limits import DeadlineExpired, LimitExceeded, LimitKind
from ...stdio.streams import Stream, StreamError
from ...vfs.errors import FsError
from ..context import CommandExit, Ctx

# a program text larger than this is refused before it is read whole (the run's input limit)
MAX_PROGRAM_BYTES = 16 * 1024 * 1024


@dataclass
class Program:
    """What to run: the source text, how the runtime names it in messages (`<string>`,
    `<stdin>`, the path), and the arguments the program sees (argv[0] first)."""

    text: str
    name: str
    argv: list[str] = field(default_factory=list)
    from_stdin: bool = False


def load_optional(ctx: Ctx, module: str, extra: str) -> ModuleType | None:
    """Import the runtime's optional package, or print the install hint (the caller returns 127)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        ctx.error(f"runtime not installed (pip install 'sandbash[{extra}]')")
        return None


def decode_source(data: bytes) -> str:
    # sources are UTF-8; a stray byte becomes U+FFFD rather than a decode failure
    return data.decode("utf-8", "replace")


def read_program_file(ctx: Ctx, path: str, message: Callable[[str, int], str]) -> str:
    """The text of a program file; a missing or unreadable file prints `message(path, errno)`
    (each runtime words it its own way) and ends the command with status 2."""
    if ctx.names_fd(path):  # `python3 <(cmd)`: the descriptor, read as stdin is
        try:
            return decode_source(read_program_stream(ctx, ctx.open_in(path)))
        except (FsError, StreamError) as e:
            ctx.stderr.write(message(path, e.errno or 5).encode("utf-8", "surrogateescape"))
            raise CommandExit(2) from None
    try:
        st = ctx.fs.stat(path) if path != "-" else None
        if st is not None and st.is_dir:
            raise FsError(21, path)
        if st is not None and st.size > MAX_PROGRAM_BYTES:
            raise FsError(27, path)
        with ctx.hold_memory() as mem:
            if st is not None:
                mem.charge(st.size)
            data = ctx.read_input(path)
    except FsError as e:
        ctx.stderr.write(message(path, e.errno or 5).encode("utf-8", "surrogateescape"))
        raise CommandExit(2) from None
    return decode_source(data)


def read_stdin_program(ctx: Ctx) -> str:
    return decode_source(read_program_stream(ctx, ctx.stdin))


def read_program_stream(ctx: Ctx, stream: Stream) -> bytes:
    """A program's text from a stream (stdin, /dev/fd/N), at most MAX_PROGRAM_BYTES, charged."""
    with ctx.hold_memory() as mem:
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_PROGRAM_BYTES:
                raise LimitExceeded(LimitKind.MAX_INPUT_SIZE, MAX_PROGRAM_BYTES)
            mem.charge(len(chunk))
            chunks.append(chunk)
            ctx.checkpoint()
        return b"".join(chunks)


def seconds_left(ctx: Ctx) -> float:
    """Wall-clock seconds before the run's (or an enclosing `timeout`'s) deadline."""
    return max(0.0, ctx.budget.remaining())


def check_time(ctx: Ctx) -> None:
    """The deadline, cancellation, or a limit another thread of the run hit."""
    ctx.budget.check_time()


def memory_left(ctx: Ctx, floor: int = 1 << 20) -> int:
    """Bytes of the run's memory budget not yet charged (at least `floor`): a runtime's own heap
    cap, so its memory stays within max_memory."""
    budget = ctx.budget
    return max(floor, budget.limits.max_memory - budget.memory)


def timed_out(ctx: Ctx) -> BaseException:
    """The exception a runtime raises when its engine stopped at the deadline: the run's limit,
    or DeadlineExpired for an enclosing `timeout` (it reports 124 itself)."""
    try:
        check_time(ctx)
    except (LimitExceeded, DeadlineExpired) as e:
        return e
    return LimitExceeded(LimitKind.TIMEOUT, ctx.limits.timeout)


def unsupported(ctx: Ctx, what: str) -> int:
    """One short line for a feature the runtime does not have; status 1."""
    ctx.error(f"{what}: not supported in sandbash")
    return 1
