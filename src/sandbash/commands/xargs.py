"""xargs: build and run command lines from standard input (GNU findutils).

Input is read lazily and command lines are run as soon as they are full, so
`yes | xargs -n1 | head` streams. Sub-commands go through `ctx.run` (policy
and limits apply). -P is accepted and runs sequentially; -p needs a terminal
the sandbox does not have, and fails as GNU xargs does without /dev/tty.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Iterator

from ..stdio.streams import DirStream, StreamReadError
from ..vfs.errors import FsError, strerror
from .context import CommandExit, Ctx
from .fsutil import shell_quote
from .options import CommandSpec, Opt
from .record import Effects, declare
from .shellutils.common import quote, run_program, usage_fail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ..leanclass import dataclass

SPEC = CommandSpec(
    "xargs",
    "[OPTION]... COMMAND [INITIAL-ARGS]...",
    "Run COMMAND with arguments INITIAL-ARGS and more arguments read from input.",
    opts=(
        Opt("0", "null", help="items are separated by a null, not whitespace"),
        Opt("a", "arg-file", "required", metavar="FILE", help="read arguments from FILE, not standard input"),
        Opt(
            "d",
            "delimiter",
            "required",
            metavar="CHARACTER",
            help="items in input stream are separated by CHARACTER",
        ),
        Opt("E", None, "required", dest="eof", metavar="END", help="set logical EOF string"),
        Opt("e", "eof", "optional", dest="eof", metavar="END", help="equivalent to -E END"),
        Opt("I", None, "required", dest="replace", metavar="R", help="same as --replace=R"),
        Opt(
            "i",
            "replace",
            "optional",
            dest="replace_opt",
            metavar="R",
            help="replace R in INITIAL-ARGS with names read from standard input",
        ),
        Opt(
            "L",
            "max-lines",
            "required",
            metavar="MAX-LINES",
            help="use at most MAX-LINES non-blank input lines per command line",
        ),
        Opt("l", None, "optional", dest="max_lines_opt"),
        Opt(
            "n",
            "max-args",
            "required",
            metavar="MAX-ARGS",
            help="use at most MAX-ARGS arguments per command line",
        ),
        Opt("o", "open-tty", help="Reopen stdin as /dev/tty in the child process"),
        Opt(
            "P",
            "max-procs",
            "required",
            metavar="MAX-PROCS",
            help="run at most MAX-PROCS processes at a time",
        ),
        Opt("p", "interactive", help="prompt before running commands"),
        Opt(None, "process-slot-var", "required", metavar="VAR"),
        Opt("r", "no-run-if-empty", help="if there are no arguments, then do not run COMMAND"),
        Opt(
            "s",
            "max-chars",
            "required",
            metavar="MAX-CHARS",
            help="limit length of command line to MAX-CHARS",
        ),
        Opt(None, "show-limits", help="show limits on command-line length"),
        Opt("t", "verbose", help="print commands before executing them"),
        Opt("x", "exit", help="exit if the size (see -s) is exceeded"),
    ),
    stop_at_operand=True,
)
DEFAULT_SIZE = 131072
MAX_SIZE = 2095104  # ARG_MAX (2 MiB) less GNU's 2048-byte headroom
QUOTE_HINT = "by default quotes are special to xargs unless you use the -0 option"


class _Unmatched(Exception):
    """An unmatched quote: the items before it still run, then xargs fails."""


class _Stop(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


@dataclass
class Settings:
    sep: bytes | None = None  # None: blank-separated items with quoting
    eof: str | None = None
    replace: str | None = None
    max_lines: int | None = None
    max_args: int | None = None
    size: int = DEFAULT_SIZE
    exit_on_size: bool = False
    no_empty: bool = False
    verbose: bool = False
    interactive: bool = False
    slot_var: str | None = None  # --process-slot-var: runs are sequential, so the slot is always 0


def _number(ctx: Ctx, text: str, option: str, low: int, high: int | None = None) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise usage_fail(ctx, SPEC, f'invalid number "{text}" for -{option} option')
    if value < low:
        raise usage_fail(ctx, SPEC, f"value {value} for -{option} option should be >= {low}")
    if high is not None and value > high:
        ctx.error(f"value {value} for -{option} option should be <= {high}")
        value = high
    return value


_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}


def _delimiter(ctx: Ctx, text: str) -> bytes:
    raw = text.encode("utf-8", "surrogateescape")
    if len(raw) == 1:
        return raw
    if text.startswith("\\") and len(text) >= 2:
        body = text[1:]
        if len(body) == 1 and body in _ESCAPES:
            return bytes([_ESCAPES[body]])
        if re.fullmatch(r"x[0-9a-fA-F]{1,2}", body):
            return bytes([int(body[1:], 16)])
        if re.fullmatch(r"[0-7]{1,3}", body) and int(body, 8) < 256:
            return bytes([int(body, 8)])
    ctx.error(
        f"Invalid input delimiter specification {text}: the delimiter must be either a single "
        "character or an escape sequence starting with \\."
    )
    raise CommandExit(1)


def _settings(ctx: Ctx) -> tuple[Settings, list[str], str | None]:
    opts, command = ctx.parse(SPEC)
    s = Settings()
    if opts.get("eof"):
        s.eof = opts["eof"]
    # -I, -i, -L, -l and -n override each other in command-line order, as in GNU, which warns
    # about the one it drops; -n 1 after -I is what -I implies (no warning, -I stays)
    replace: str | None = None
    lines: int | None = None
    args: int | None = None

    def dropped(previous: str, option: str) -> None:
        ctx.error(
            f"warning: options {previous} and {option} are mutually exclusive, ignoring previous {previous} value"
        )

    for key, value in opts.order:
        if key == "null":  # -0 and -d: the last one given decides
            s.sep = b"\0"
        elif key == "delimiter":
            s.sep = _delimiter(ctx, value)
        elif key in ("replace", "replace_opt"):
            if args is not None:
                dropped("--max-args", "--replace/-I/-i")
                args = None
            if lines is not None:
                dropped("--max-lines", "--replace/-I/-i")
                lines = None
            replace = value if value is not None else "{}"
            s.exit_on_size = True  # (-I implies -x, kept when a later option drops -I)
        elif key in ("max_lines", "max_lines_opt"):
            option = "-L" if key == "max_lines" else "--max-lines/-l"
            if replace is not None:
                dropped("--replace", option)
                replace = None
            if args is not None:
                dropped("--max-args", option)
                args = None
            lines = 1 if value is None else _number(ctx, value, "L", 1)
        elif key == "max_args":
            count = _number(ctx, value, "n", 1)
            if replace is not None and count == 1:
                continue
            if replace is not None:
                dropped("--replace", "--max-args/-n")
                replace = None
            if lines is not None:
                dropped("--max-lines", "--max-args/-n")
                lines = None
            args = count
        elif key == "max_chars":
            if value.strip().lstrip("-").isdigit() and int(value) < 1:
                ctx.error(f"value {int(value)} for -s option should be >= 1")  # GNU goes on with 1
                s.size = 1
            else:
                s.size = _number(ctx, value, "s", 1, MAX_SIZE)
        elif key == "max_procs":
            _number(ctx, value, "P", 0)
    if s.eof is not None and s.sep is not None:
        # (findutils' message ends in a newline of its own, so a blank line follows it)
        ctx.error("warning: the -E option has no effect if -0 or -d is used.\n")
        s.eof = None
    if replace is not None:  # (-I implies -L 1)
        s.replace, s.max_lines, s.max_args = replace, 1, None
    else:
        s.max_lines, s.max_args = lines, args
    s.exit_on_size = s.exit_on_size or opts.has("exit")
    s.no_empty = opts.has("no_run_if_empty")
    s.verbose = opts.has("verbose")
    s.interactive = opts.has("interactive")
    s.slot_var = opts.get("process_slot_var")
    if opts.has("show_limits"):
        ctx.stderr.write(
            f"Your environment variables take up {_env_size(ctx)} bytes\n"
            f"POSIX upper limit on argument length (this system): {MAX_SIZE - _env_size(ctx)}\n"
            "POSIX smallest allowable upper limit on argument length (all systems): 4096\n"
            f"Maximum length of command we could actually use: {MAX_SIZE - _env_size(ctx)}\n"
            f"Size of command buffer we are actually using: {s.size}\n"
            "Maximum parallelism (--max-procs must be no greater): 2147483647\n".encode()
        )
    return s, command or ["echo"], opts.get("arg_file")


def _env_size(ctx: Ctx) -> int:
    return sum(len(k) + len(v) + 2 for k, v in ctx.env.items())


# ------------------------------------------------------------ reading items


def _separated(chunks: Iterator[bytes], sep: bytes, cap: int) -> Iterator[tuple[str, bool]]:
    """Items split on one byte, with no quoting (-0, -d). An item is given as it is once it
    holds CAP bytes (too long for any command line: the rest of it is never read)."""
    parts: list[bytes] = []  # (the chunks of an item are joined once: linear in its length)
    held = 0
    for chunk in chunks:
        *items, rest = chunk.split(sep)
        for item in items:
            if parts:
                item, parts, held = b"".join(parts) + item, [], 0
            yield item.decode("utf-8", "surrogateescape"), True
        if rest:
            parts.append(rest)
            held += len(rest)
            if held >= cap:
                break
    if parts:
        yield b"".join(parts).decode("utf-8", "surrogateescape"), True


def _quoted(lines: Iterator[bytes], by_line: bool, cap: int) -> Iterator[tuple[str, bool]]:
    """GNU's default format: blank-separated items, '...' and "..." quoting
    (never across a newline), backslash escapes (an escaped newline continues
    the item). The flag is True on the last item of an input line (for -L; a
    line ending in a blank continues). Items are given as they end, the last of
    a line once the line has ended (a line of a million items is never a list),
    and an item is given as it is once it holds CAP characters (too long for any
    command line: the rest of it is never read)."""
    cur: list[str] = []
    have = False
    last: str | None = None  # the line's item before this one: is it the line's last?
    for raw in lines:
        line = raw.decode("utf-8", "surrogateescape")
        i, n = 0, len(line)
        while i < n:
            if len(cur) >= cap:  # (a character or more per piece: cap pieces >= cap)
                if last is not None:
                    yield last, False
                yield "".join(cur), True
                return
            ch = line[i]
            i += 1
            if ch in "'\"":
                end = line.find(ch, i)
                newline = line.find("\n", i)
                if end < 0 or (0 <= newline < end):
                    if last is not None:
                        yield last, False
                    raise _Unmatched("double" if ch == '"' else "single")
                if end > i:
                    cur.append(line[i:end])
                have = True
                i = end + 1
            elif ch == "\\" and i < n:
                cur.append(line[i])
                have = True
                i += 1
            elif ch in " \t\n":
                if have:
                    if last is not None:
                        yield last, False
                    last = "".join(cur)
                cur, have = [], False
            else:
                cur.append(ch)
                have = True
        if last is not None:
            yield last, not (by_line and line.rstrip("\n")[-1:] in (" ", "\t")) and not have
            last = None
    if have:
        yield "".join(cur), True


def _nul_warning(ctx: Ctx, lines: Iterator[bytes]) -> Iterator[bytes]:
    """The lines of blank- or line-separated input, with findutils' warning (once) when one
    holds a NUL: it stays in its item, which the command then sees cut there."""
    warned = False
    for raw in lines:
        if not warned and b"\0" in raw:
            ctx.error(
                "WARNING: a NUL character occurred in the input.  It cannot be passed through in "
                "the argument list.  Did you mean to use the --null option?"
            )
            warned = True
        yield raw


def _replace_lines(lines: Iterator[bytes], cap: int) -> Iterator[tuple[str, bool]]:
    """-I: each input line is one item, read with the quoting of the default format ('...' and
    "..." never across a newline, a backslash escapes the next character, a backslash-newline
    continues the item), but the blanks inside it kept and its leading blanks dropped; a line
    with nothing else is skipped. An item is given as it is once it holds CAP characters: it
    is then too long for the command line (Runner.run), and the rest of it is never read."""
    cur: list[str] = []
    started = False
    for raw in lines:
        line = raw.decode("utf-8", "surrogateescape")
        i, n = 0, len(line)
        while i < n:
            if len(cur) >= cap:  # (a character or a quoted run per piece: cap pieces >= cap)
                yield "".join(cur), True
                return
            ch = line[i]
            i += 1
            if ch == "\n":
                if started:
                    yield "".join(cur), True
                cur, started = [], False
            elif ch in " \t" and not started:
                continue
            elif ch in "'\"":
                end = line.find(ch, i)
                if end < 0:  # (a line holds at most one newline, its last character)
                    raise _Unmatched("double" if ch == '"' else "single")
                if end > i:  # (every piece a character or more: the cap counts pieces)
                    cur.append(line[i:end])
                started = True
                i = end + 1
            elif ch == "\\" and i < n:
                cur.append(line[i])
                started = True
                i += 1
            else:
                cur.append(ch)
                started = True
    if started:
        yield "".join(cur), True


# ------------------------------------------------------------ running


class Runner:
    def __init__(self, ctx: Ctx, s: Settings, command: list[str], child_stdin: bytes | None = b"") -> None:
        self.ctx = ctx
        self.s = s
        self.command = command
        # the commands read /dev/null, or xargs' own standard input when the items come from -a
        self.child_stdin = child_stdin
        self.status = 0
        self.ran = False
        self.base = sum(_nbytes(a) + 1 for a in command)

    def run(self, args: list[str]) -> None:
        ctx, s = self.ctx, self.s
        if s.replace is not None:
            item = args[0] if args else ""
            # findutils reads an item into a buffer of SIZE bytes less, after the first line,
            # the command name and its NUL (bc_push_arg's cmd_initial_argv_chars)
            if _nbytes(item) >= s.size - (_nbytes(self.command[0]) + 1 if self.ran else 0):
                ctx.error("argument line too long")
                raise _Stop(1)
            argv = _inserted(ctx, s.replace, s.size, self.command, item)
        else:
            argv = self.command + args
        # each argument is a C string: a NUL read into an item ends it there
        argv = [a.partition("\0")[0] for a in argv]
        self.ran = True
        if s.verbose or s.interactive:
            line = " ".join(shell_quote(a) for a in argv)
            ctx.stderr.write((line + ("" if s.interactive else "\n")).encode("utf-8", "surrogateescape"))
        if s.interactive:
            ctx.error("failed to open /dev/tty for reading: No such device or address")
            raise _Stop(1)
        env = None if s.slot_var is None else {**ctx.env, s.slot_var: "0"}
        status = run_program(ctx, argv, env=env, stdin=self.child_stdin, message="{n}: {err}")
        name = argv[0]
        if status in (126, 127):
            raise _Stop(status)
        if status == 255:
            ctx.error(f"{name}: exited with status 255; aborting")
            raise _Stop(124)
        if 128 < status < 255:
            ctx.error(f"{name}: terminated by signal {status - 128}")
            raise _Stop(125)
        if status:
            self.status = 123

    def size_of(self, item: str) -> int:
        return _nbytes(item) + 1


def _inserted(ctx: Ctx, mark: str, size: int, command: list[str], item: str) -> list[str]:
    """-I's command line for one item, sized as findutils' bc_do_insert and bc_push_arg size it
    before anything is built (many marks and a long line would otherwise make gigabytes): the
    command name is taken as it is; each other argument, with the item in place of every MARK,
    must fit in a buffer of SIZE-1 bytes ('command too long': an empty MARK is found again at
    the same place until the buffer is full), and the whole line, each argument with its NUL,
    in SIZE bytes ('argument list too long')."""
    used = _nbytes(command[0]) + 1
    if used > size:
        ctx.error("cannot fit single argument within argument list size limit")
        raise _Stop(1)
    length = _nbytes(item)
    argv = [command[0]]
    for arg in command[1:]:
        if not mark and arg:
            ctx.error("command too long")
            raise _Stop(1)
        pieces = arg.split(mark) if mark else ["", ""]
        left = size - 1
        for k, piece in enumerate(pieces):
            n = _nbytes(piece)
            last = k == len(pieces) - 1
            if left <= n or (not last and left - n <= length):
                ctx.error("command too long")
                raise _Stop(1)
            left -= n if last else n + length
        used += size - left  # (the argument and its NUL)
        if used > size:
            ctx.error("argument list too long")
            raise _Stop(1)
        argv.append(item.join(pieces))
    return argv


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogateescape"))


class Batch:
    """The command line being filled: its arguments, size and input lines."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.args: list[str] = []
        self.size = runner.base
        self.lines = 0

    def flush(self) -> None:
        self.runner.run(self.args)
        self.args, self.size, self.lines = [], self.runner.base, 0

    def add(self, ctx: Ctx, item: str, ends_line: bool) -> None:
        s = self.runner.s
        need = self.runner.size_of(item)
        if s.replace is None and self.args and self.size + need > s.size:
            if s.exit_on_size and (s.max_args or s.max_lines):
                ctx.error("argument list too long")
                raise _Stop(1)
            self.flush()
        if s.replace is None and self.size + need > s.size:
            ctx.error("argument line too long")
            raise _Stop(1)
        self.args.append(item)
        self.size += need
        self.lines += ends_line
        if (s.max_args and len(self.args) >= s.max_args) or (s.max_lines and self.lines >= s.max_lines):
            self.flush()


def _batches(ctx: Ctx, runner: Runner, items: Iterator[tuple[str, bool]]) -> None:
    s = runner.s
    if runner.base > s.size and s.replace is None:  # (-I sizes each line as it builds it)
        ctx.error("cannot fit single argument within argument list size limit")
        raise _Stop(1)
    batch = Batch(runner)
    try:
        for item, ends_line in items:
            ctx.checkpoint()
            if s.eof is not None and item == s.eof:
                break
            batch.add(ctx, item, ends_line)
    except _Unmatched as e:
        if batch.args:
            batch.flush()
        ctx.error(f"unmatched {e} quote; {QUOTE_HINT}")
        raise _Stop(1)
    if batch.args or not (runner.ran or s.no_empty or s.replace is not None):
        batch.flush()


@declare("xargs", spec=SPEC, effects=Effects.XARGS)
def cmd_xargs(ctx: Ctx) -> int:
    s, command, arg_file = _settings(ctx)
    stream = ctx.stdin
    if arg_file is not None:
        try:
            stream = ctx.open_in(arg_file)
        except FsError as e:
            if e.errno != errno.EISDIR:
                ctx.error(f"Cannot open input file {quote(arg_file)}: {strerror(e.errno or 0)}")
                return 1
            stream = DirStream()  # (a directory opens; its first read fails, as the end of input)
    if s.replace is not None:
        items = (
            _replace_lines(_nul_warning(ctx, stream.lines(s.sep or b"\n", ctx.budget)), s.size)
            if s.sep is None
            else _separated(stream.chunks(), s.sep, s.size)
        )
    elif s.sep is not None:
        items = _separated(stream.chunks(), s.sep, s.size)
    else:
        items = _quoted(_nul_warning(ctx, stream.lines(budget=ctx.budget)), s.max_lines is not None, s.size)
    runner = Runner(ctx, s, command, None if arg_file is not None else b"")
    failed: list[StreamReadError] = []
    try:
        _batches(ctx, runner, _until_read_error(items, failed))
    except _Stop as stop:
        status = stop.status
    else:
        status = runner.status
    if failed and arg_file is None and status != 123:
        # (a read that failed ends the input as its end would; findutils' close_stdin then finds
        # stdin in error at exit and makes the status 1, unless a command already made it 123)
        # (a directory's read error leaves errno 0 by the close; a closed fd 0's close is EBADF)
        ctx.error(
            "error closing file" + (f": {failed[0].strerror}" if failed[0].errno == errno.EBADF else "")
        )
        return 1
    return status


def _until_read_error(
    items: Iterator[tuple[str, bool]], failed: list[StreamReadError]
) -> Iterator[tuple[str, bool]]:
    """`items` up to a read that fails (`xargs cmd < dir`), which is kept in `failed`."""
    try:
        yield from items
    except StreamReadError as e:
        failed.append(e)
