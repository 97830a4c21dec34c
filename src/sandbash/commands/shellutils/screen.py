"""The screen programs, as they behave when standard output is not a terminal (it never is here):
`less` and `more` copy their files as `cat` would, with each tool's own notices, and `watch` runs
its command every interval, printing each screen one after the other, until the run's deadline,
a `timeout`, or one of its exit conditions (-g, -q, -e) ends it."""

from __future__ import annotations

import datetime as _dt

from ...limits import MemoryHold
from ...posix.zones import local_zone
from ...stdio.streams import BufferWriter, capture_bound
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..record import Effects, declare
from .common import identity, wait

# ------------------------------------------------------------ less, more


def _copy(ctx: Ctx, path: str) -> str | None:
    """Copy one file to stdout; the reason it cannot be read ("directory", an errno text), or None."""
    if path != "-" and ctx.fs.is_dir(path):
        return "directory"
    try:
        stream = ctx.open_in(path)
    except FsError as e:
        return strerror(e.errno or 0)
    try:
        while chunk := stream.read(65536):
            ctx.checkpoint(len(chunk) // 4096 + 1)
            ctx.stdout.write(chunk)
    finally:
        if stream is not ctx.stdin:
            stream.close()
    return None


@declare("less", effects=Effects.READS, summary="file pager (copies its input when not on a terminal)")
def cmd_less(ctx: Ctx) -> int:
    # Not on a terminal, less is cat: its options only shape the screen, so they are accepted and
    # have no effect (`+G`, `-N`, `-R`, `-S`...); its notices go to the screen, which is stdout.
    files: list[str] = []
    options_done = False
    for arg in ctx.args:
        if not options_done and arg == "--":
            options_done = True
        elif not options_done and arg in ("--help", "-?"):
            ctx.out(
                "less: the pager shows its input page by page on a terminal; without one it copies\n"
                "the files (or standard input) to standard output, as cat does.\n"
            )
            return 0
        elif not options_done and arg in ("-V", "--version"):
            ctx.out("less 590 (sandbash: copies its input when not on a terminal)\n")
            return 0
        elif not options_done and len(arg) > 1 and arg[0] in "-+":
            continue
        else:
            files.append(arg)
    for path in files or ["-"]:
        why = _copy(ctx, path)
        if why == "directory":
            ctx.out(f"{path} is a directory\n")
        elif why is not None:
            ctx.out(f"{path}: {why}\n")
    return 0


@declare("more", effects=Effects.READS, summary="file pager (copies its input when not on a terminal)")
def cmd_more(ctx: Ctx) -> int:
    files: list[str] = []
    for i, arg in enumerate(ctx.args):
        if arg == "--":
            files.extend(ctx.args[i + 1 :])
            break
        if arg in ("-h", "--help"):
            ctx.out("\nUsage:\n more [options] <file>...\n\nA file perusal filter for CRT viewing.\n")
            return 0
        if arg in ("-V", "--version"):
            ctx.out("more from util-linux 2.38.1\n")
            return 0
        if arg.startswith("-") and len(arg) > 1 and arg[1:] not in _MORE_FLAGS and not arg[1:].isdigit():
            if arg.startswith("--"):
                ctx.error(f"unrecognized option '{arg}'")
            else:
                bad = next(c for c in arg[1:] if c not in "dlfpcsu")
                ctx.error(f"invalid option -- '{bad}'")
            ctx.stderr.write(b"Try 'more --help' for more information.\n")
            return 1
        if arg.startswith(("-", "+")) and len(arg) > 1:
            continue  # screen options: no effect without a terminal
        files.append(arg)
    if not files:
        _copy(ctx, "-")
        return 0
    for path in files:
        why = _copy_with_header(ctx, path)
        if why == "directory":
            ctx.out(f"\n*** {path}: directory ***\n\n")
        elif why is not None:
            ctx.error(f"cannot open {path}: {why}")
    return 0


_MORE_FLAGS = frozenset({"d", "l", "f", "p", "c", "s", "u", "e"}) | {
    "".join(p) for p in ("dl", "ds", "sl", "ls")
}


def _copy_with_header(ctx: Ctx, path: str) -> str | None:
    """more's banner before each file it can open (not on a terminal it shows one even for a single file)."""
    if ctx.fs.is_dir(path):
        return "directory"
    failed = ctx.fs.stat_error(path) if path != "-" else None
    if failed is not None:
        return failed.message  # (ENOENT, or the policy's refusal with its rule)
    ctx.out(f"::::::::::::::\n{path}\n::::::::::::::\n")
    return _copy(ctx, path)


# ------------------------------------------------------------ watch

_WATCH_USAGE = """
Usage:
 watch [options] command

Options:
  -b, --beep             beep if command has a non-zero exit
  -c, --color            interpret ANSI color and style sequences
  -d, --differences[=<permanent>]
                         highlight changes between updates
  -e, --errexit          exit if command has a non-zero exit
  -g, --chgexit          exit when output from command changes
  -q, --equexit <cycles>
                         exit when output from command does not change
  -n, --interval <secs>  seconds to wait between updates
  -p, --precise          attempt run command in precise intervals
  -t, --no-title         turn off header
  -w, --no-wrap          turn off line wrapping
  -x, --exec             pass command to exec instead of "sh -c"

 -h, --help     display this help and exit
 -v, --version  output version information and exit

For more details see watch(1).
"""

# short flag -> long name; the ones taking a value
_WATCH_SHORT = {
    "b": "beep",
    "c": "color",
    "d": "differences",
    "e": "errexit",
    "g": "chgexit",
    "q": "equexit",
    "n": "interval",
    "p": "precise",
    "t": "no-title",
    "w": "no-wrap",
    "x": "exec",
    "h": "help",
    "v": "version",
    "C": "no-color",
    "r": "no-rerun",
}
_WATCH_VALUE = frozenset({"equexit", "interval"})
_WATCH_LONG = frozenset(_WATCH_SHORT.values())


class _WatchUsage(ValueError):
    """A command-line error of watch; the message is the first line it prints."""


def parse_watch(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """procps watch's command line: options up to the first operand (the command's own options
    follow it), GNU short clusters and long names; a usage error raises _WatchUsage(message)."""
    opts: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return opts, args[i + 1 :]
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg[2:].partition("=")
            if name not in _WATCH_LONG:
                matches = [n for n in _WATCH_LONG if n.startswith(name)]
                if len(matches) != 1:
                    raise _WatchUsage(
                        f"unrecognized option '{arg}'" if not matches else f"option '{arg}' is ambiguous"
                    )
                name = matches[0]
            if name in _WATCH_VALUE and not eq:
                if i + 1 >= len(args):
                    raise _WatchUsage(f"option '--{name}' requires an argument")
                i += 1
                value = args[i]
            opts[name] = value
        elif arg.startswith("-") and len(arg) > 1:
            j = 1
            while j < len(arg):
                name = _WATCH_SHORT.get(arg[j], "")
                if not name:
                    raise _WatchUsage(f"invalid option -- '{arg[j]}'")
                if name in _WATCH_VALUE:
                    value = arg[j + 1 :]
                    if not value:
                        if i + 1 >= len(args):
                            raise _WatchUsage(f"option requires an argument -- '{arg[j]}'")
                        i += 1
                        value = args[i]
                    opts[name] = value
                    break
                opts[name] = ""
                j += 1
        else:
            return opts, args[i:]
        i += 1
    return opts, []


def _number(ctx: Ctx, text: str) -> float:
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        value = float("nan")
    if value != value:
        ctx.error(f"failed to parse argument: '{text}': Invalid argument")
        raise CommandExit(1)
    return value


@declare("watch", effects=Effects.WATCH, summary="execute a program periodically, showing its output")
def cmd_watch(ctx: Ctx) -> int:
    try:
        opts, command = parse_watch(list(ctx.args))
    except _WatchUsage as e:
        ctx.error(str(e))
        ctx.stderr.write(_WATCH_USAGE.encode())
        return 1
    if "help" in opts:
        ctx.out(_WATCH_USAGE)
        return 0
    if "version" in opts:
        ctx.out("watch from procps-ng 4.0.2\n")
        return 0
    if not command:
        ctx.stderr.write(_WATCH_USAGE.encode())
        return 1
    interval = max(0.1, min(_number(ctx, opts.get("interval", "2")), 4294967295.0))
    cycles = int(_number(ctx, opts["equexit"])) if "equexit" in opts else 0
    with ctx.hold_memory() as kept:  # the last screen, kept for -g and -q
        return _watch_loop(ctx, opts, command, cycles, interval, kept)


def _watch_loop(
    ctx: Ctx, opts: dict[str, str], command: list[str], cycles: int, interval: float, kept: MemoryHold
) -> int:
    text = " ".join(command)
    title = _Title(ctx, interval, text) if "no-title" not in opts else None
    previous: bytes | None = None
    unchanged = 0
    while True:
        ctx.checkpoint()
        # the screen being made is charged to max_memory while it grows
        with ctx.hold_memory() as held:
            out = BufferWriter(charge=held.charge, **capture_bound(ctx.limits))
            argv = command if "exec" in opts else ["sh", "-c", text]
            status = ctx.run(argv, stdin=b"", stdout=out, stderr=out)
            screen = out.getvalue()
        if title is not None:
            ctx.out(title.line())
        ctx.stdout.write(screen)
        if status != 0 and "beep" in opts:
            ctx.stdout.write(b"\a")
        if status != 0 and "errexit" in opts:
            ctx.out("command exit with a non-zero status, press a key to exit\n")
            return 8  # no terminal to read the key from: it exits at once
        if previous is not None and "chgexit" in opts and screen != previous:
            return 0
        unchanged = unchanged + 1 if previous is not None and screen == previous else 0
        if cycles and unchanged >= cycles:
            return 0
        kept.set(len(screen))
        previous = screen
        wait(ctx, interval)


class _Title:
    """watch's header: `Every N.Ns: COMMAND` on the left, `HOST: DATE` on the right of a
    COLUMNS-wide line (80 by default), then an empty line."""

    def __init__(self, ctx: Ctx, interval: float, text: str) -> None:
        self.ctx = ctx
        self.left = f"Every {interval:.1f}s: {text}"
        self.host = str(identity(ctx)["hostname"])
        columns = ctx.env.get("COLUMNS", "")
        self.width = int(columns) if columns.isdigit() and int(columns) > 0 else 80

    def line(self) -> str:
        now = _dt.datetime.fromtimestamp(self.ctx.clock(), local_zone(self.ctx.env))
        right = f"{self.host}: {now:%a %b} {now.day:2d} {now:%H:%M:%S %Y}"
        room = self.width - len(right) - 1
        left = self.left if len(self.left) <= room else self.left[: max(0, room - 3)] + "..."
        return f"{left.ljust(room)} {right}\n\n"
