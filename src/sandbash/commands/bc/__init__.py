"""bc (POSIX with GNU extensions, -l math library) and dc.

Both work on exact decimal numbers with bc's scale rules (see number.py).
bc runs each input item as soon as it is parsed, as GNU bc does, so output,
runtime errors and `quit` happen in GNU's order.
"""

from __future__ import annotations

import errno

from ...limits import LimitExceeded, LimitKind
from ...stdio.streams import StreamReadError
from ...vfs.errors import FsError
from ..context import Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .dc import cmd_dc
from .interp import Halt, Interp, Output, too_deep
from .number import DIGITS, MAX_DIGITS
from .parser import BcSyntaxError, Function, Lexer, Parser, Quit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["cmd_bc", "cmd_dc"]

SPEC = CommandSpec(
    "bc",
    "[options] [file ...]",
    "An arbitrary precision calculator language.",
    opts=(
        Opt("i", "interactive", help="force interactive mode"),
        Opt("l", "mathlib", help="use the predefined math routines"),
        Opt("q", "quiet", help="don't print initial banner"),
        Opt("s", "standard", help="non-standard bc constructs are errors"),
        Opt("w", "warn", help="warn about non-standard bc constructs"),
        Opt("v", None, dest="version_short"),
    ),
)


def line_length(env_value: str | None) -> int:
    """BC_LINE_LENGTH: 0 disables wrapping; values below 3 mean the default 70."""
    if env_value is None:
        return 70
    try:
        value = int(env_value.strip() or "0")
    except ValueError:
        return 70
    return value if value == 0 or value >= 3 else 70


def _run_source(ctx: Ctx, interp: Interp, text: str, label: str, from_stdin: bool) -> bool:
    """Parse and run one source; False when `quit` or `halt` ended the program. Standard input
    is read a line at a time as the program runs (`text` is then empty)."""
    lexer = Lexer(text)
    if from_stdin:
        interp.reader = lexer.read_line
        lexer.more = _stdin_lines(ctx, lexer)
    parser = Parser(lexer)

    def complain() -> None:
        for line, message in lexer.complaints:
            ctx.stderr.write(f"{label} {line}: {message}\n".encode("utf-8", "surrogateescape"))
        lexer.complaints.clear()

    while True:
        try:
            item = parser.item()
        except BcSyntaxError as e:
            complain()
            ctx.stderr.write(f"{label} {e.line}: {e.message}\n".encode())
            parser.recover()
            continue
        except Quit:
            return False
        complain()
        if item is None:
            return True
        if isinstance(item, Function):
            interp.define(item)
            continue
        try:
            interp.run_item(item)
        except Halt:
            return False


@declare("bc", spec=SPEC, effects=Effects.READS)
def cmd_bc(ctx: Ctx) -> int:
    opts, files = ctx.parse(SPEC)
    if opts.has("version_short"):
        ctx.out("bc (sandbash) 1.07.1\n")
        return 0
    token = DIGITS.set(min(MAX_DIGITS, ctx.limits.max_string_length))
    try:
        return _run_bc(ctx, files, opts.has("mathlib"))
    except RecursionError:  # deep expressions inside deep calls: the same limit as deep calls
        raise too_deep(ctx) from None
    finally:
        DIGITS.reset(token)


def _run_bc(ctx: Ctx, files: list[str], mathlib: bool) -> int:
    out = Output(ctx, line_length(ctx.env.get("BC_LINE_LENGTH")))
    interp = Interp(ctx, out, mathlib)
    try:
        return _run_files(ctx, interp, files)
    finally:
        interp.mem.close()


def _run_files(ctx: Ctx, interp: Interp, files: list[str]) -> int:
    for path in files:
        try:
            text = ctx.fs.read_bytes(path).decode("utf-8", "surrogateescape")
        except FsError as e:
            if e.errno == errno.EISDIR:  # (a directory opens, and flex's first read fails)
                line = f"{path} 1: read() in flex scanner failed\n"
            else:
                line = f"File {path} is unavailable.\n"
            ctx.stderr.write(line.encode("utf-8", "surrogateescape"))
            return 1
        if not _run_source(ctx, interp, text, path, from_stdin=False):
            return 0
    try:
        _run_source(ctx, interp, "", "(standard_in)", from_stdin=True)
    except _ReadFailed as e:
        ctx.stderr.write(f"(standard_in) {e.line}: read() in flex scanner failed\n".encode())
        return 1
    return 0


class _ReadFailed(Exception):
    """Standard input could not be read (`bc < dir`): flex's fatal error, at the lexer's line."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _stdin_lines(ctx: Ctx, lexer: Lexer) -> Callable[[], str | None]:
    """The next line of standard input, for the lexer. A line, or a comment or string left open
    over lines (which the lexer keeps), longer than max_string_length is that limit: an endless
    input that never ends one (`{ echo '/*'; yes; } | bc`) cannot grow without bound."""
    limit = ctx.limits.max_string_length

    def more() -> str | None:
        ctx.checkpoint()
        try:
            raw = ctx.stdin.readline(limit=limit)
        except StreamReadError:
            raise _ReadFailed(lexer.line) from None
        if not raw:
            return None
        if len(lexer.src) - lexer.pos + len(raw) > limit:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)
        return raw.decode("utf-8", "surrogateescape")

    return more
