"""The coreutils twins of shell builtins: /usr/bin/echo, printf, test, [,
true, false, pwd, kill (what `env echo`, `xargs printf`, `find -exec test`
run). They share the builtins' implementations in `posix/`."""

from __future__ import annotations

from ..posix.echo import echo_text
from ..posix.printf import format_printf
from ..posix.signals import NAMES as SIGNAL_NAMES
from ..vfs.base import Stat
from .context import Ctx
from .gnuquote import quote, shell_quote, utf8_locale
from .gnutest import GnuTest, GnuTestError
from .options import CommandSpec, Opt, OptionValueError, UsageError, parse_args, version_line
from .record import Effects, declare
from .shellutils.procs import parse_signal


class _CtxTestEnv:
    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.uid = ctx.identity.uid
        self.gid = ctx.identity.gid

    def stat(self, path: str) -> Stat | None:
        return self.ctx.fs.try_stat(path)

    def lstat(self, path: str) -> Stat | None:
        return self.ctx.fs.try_lstat(path)

    def var_set(self, name: str) -> bool:
        return False

    def is_nameref(self, name: str) -> bool:
        return False

    def option(self, name: str) -> bool:
        return False


@declare("echo", effects=Effects.NONE)
def cmd_echo(ctx: Ctx) -> int:
    args = ctx.args
    if args in (["--help"], ["--version"]):
        ctx.out(
            version_line("echo") if args[0] == "--version" else "Usage: echo [SHORT-OPTION]... [STRING]...\n"
        )
        return 0
    text, _ = echo_text(list(args), False)
    ctx.out(text)
    return 0


@declare("printf", effects=Effects.NONE)
def cmd_printf(ctx: Ctx) -> int:
    args = list(ctx.args)
    if not args:
        raise ctx.usage_error("missing operand")
    if args[0] == "--":
        args = args[1:]
    errors: list[str] = []
    marks: list[int] = []  # output length before each error
    utf8 = utf8_locale(ctx.env)
    text, status = format_printf(
        args[0],
        args[1:],
        errors.append,
        ctx.clock,
        gnu=True,
        marks=marks,
        quote=lambda s: quote(s, utf8),
        shell_quote=shell_quote,
    )
    done = 0
    for e, at in zip(errors, marks, strict=True):  # (gnulib's error() flushes stdout first)
        ctx.out(text[done:at])
        done = at
        ctx.error(e)
    ctx.out(text[done:])
    return status


def _test(ctx: Ctx, args: list[str]) -> int:
    q = utf8_locale(ctx.env)
    try:
        return 0 if GnuTest(_CtxTestEnv(ctx), args, lambda s: quote(s, q)).run() else 1
    except GnuTestError as e:
        ctx.error(str(e))
        return 2


@declare("test", spells="test", effects=Effects.TEST)
def cmd_test(ctx: Ctx) -> int:
    return _test(ctx, list(ctx.args))


@declare("[", spells="test", effects=Effects.TEST)
def cmd_bracket(ctx: Ctx) -> int:
    args = list(ctx.args)
    if not args or args[-1] != "]":
        ctx.error(f"missing {quote(']', utf8_locale(ctx.env))}")
        return 2
    return _test(ctx, args[:-1])


@declare("true", effects=Effects.NONE)
def cmd_true(ctx: Ctx) -> int:
    return 0


@declare("false", effects=Effects.NONE)
def cmd_false(ctx: Ctx) -> int:
    return 1


@declare("pwd", effects=Effects.NONE)
def cmd_pwd(ctx: Ctx) -> int:
    physical = "-P" in ctx.args
    cwd = ctx.cwd
    if physical or "-L" not in ctx.args:
        try:
            cwd = ctx.fs.realpath(cwd)
        except OSError:
            pass
    ctx.out(cwd + "\n")
    return 0


# ------------------------------------------------------------ kill (procps-ng 4.0.2)

_KILL_NAMES = ["POLL" if n == "IO" else n for n in SIGNAL_NAMES[1:]]  # procps calls 29 POLL
_KILL_USAGE = """
Usage:
 kill [options] <pid> [...]

Options:
 <pid> [...]            send signal to every <pid> listed
 -<signal>, -s, --signal <signal>
                        specify the <signal> to be sent
 -q, --queue <value>    integer value to be sent with the signal
 -l, --list=[<signal>]  list all signal names, or convert one to a name
 -L, --table            list all signal names in a nice table

 -h, --help     display this help and exit
 -V, --version  output version information and exit

For more details see kill(1).
"""


def _kill_signal(text: str) -> int | None:
    """procps' signal_name_to_number: a number, or a name with or without SIG in any case."""
    if text[1:].isdigit() if text[:1] == "+" else text.isdigit():
        return int(text)
    name = text.upper()
    if name.startswith("RTMIN") or name.startswith("RTMAX"):
        return None if name[5:] and not name[6:].isdigit() else 34 if name.startswith("RTMIN") else 64
    return parse_signal(name)


def _queue_value(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise OptionValueError(f"must be an integer value to be passed with the signal.: '{text}'") from None


# procps kill: the first `-SIGNAL` word anywhere is the signal, other options as getopt_long gives
# them, and a later `-NUMBER` is a (negative) pid
KILL = CommandSpec(
    name="kill",
    add_help=False,
    opts=(
        Opt("l", "list", arg="optional", stop=True),
        Opt("L", "table", stop=True),
        Opt("s", "signal", arg="required"),
        Opt("q", "queue", arg="required", type=_queue_value),
        Opt("h", "help", stop=True),
        Opt("V", "version", stop=True),
        Opt(dest="dash_signal", arg="required"),
    ),
    dash_value="dash_signal",
    dash_value_if=lambda word: _kill_signal(word[1:]) is not None,
    dash_value_once=True,
    operand_if=lambda word: word[1:2].isdigit(),
)


@declare("kill", spec=KILL, effects=Effects.NONE)
def cmd_kill(ctx: Ctx) -> int:
    """No process of the sandbox is reachable from a command (jobs belong to the shell's `kill`
    builtin), so every pid is 'No such process', as for a pid that does not exist."""
    if not ctx.args:
        return _kill_usage(ctx, 1)
    try:
        parsed, operands = parse_args(KILL, ctx.args)
    except UsageError as e:
        # getopt's optopt: the letter, a long option's letter when its value is wrong, else NUL
        letter = e.name if len(e.name) == 1 else "\0"
        if e.kind in ("needs_value", "no_value"):
            letter = next((o.short for o in KILL.opts if o.long == e.name and o.short), letter)
        ctx.error(f"invalid argument {letter}")
        return _kill_usage(ctx, 1)
    except OptionValueError as e:
        ctx.error(e.message)
        return 1
    if "help" in parsed:
        return _kill_usage(ctx, 0)
    if "version" in parsed:
        ctx.out("kill from procps-ng 4.0.2\n")
        return 0
    if "table" in parsed:
        ctx.out(
            "".join(
                f"{n:2d} {name}\n" if n % 7 == 0 else f"{n:2d} {name:<7} "
                for n, name in enumerate(_KILL_NAMES, 1)
            )
            + "\n"
        )
        return 0
    if "list" in parsed:
        return _kill_list(ctx, parsed.get("list"), operands, parsed.operand_at, len(parsed.order))
    if not operands:
        return _kill_usage(ctx, 1)
    for word in operands:
        digits = word.lstrip(" \t\n\v\f\r")
        digits = digits[1:] if digits[:1] in ("-", "+") else digits
        if not (digits.isascii() and digits.isdigit()):  # strtol_or_err: the whole word a number
            ctx.error(f"failed to parse argument: '{word}'")
            return 1
        ctx.error(f"({int(word)}): No such process")
    return 1


def _kill_usage(ctx: Ctx, status: int) -> int:
    (ctx.stdout if status == 0 else ctx.stderr).write(_KILL_USAGE.encode())
    return status


def _kill_list(ctx: Ctx, name: str | None, operands: list[str], operand_at: list[int], options: int) -> int:
    """`-l`: all names, or one converted (`-l9`, `--list=9`, or the word after `-l`)."""
    if name is None:
        after = [w for w, at in zip(operands, operand_at, strict=True) if at == options]
        name = after[0] if after and not after[0].startswith("-") else None
    if name is None:
        lines = [""]
        for signame in _KILL_NAMES:
            if lines[-1] and len(lines[-1]) + 1 + len(signame) > 80:
                lines.append("")
            lines[-1] += (" " if lines[-1] else "") + signame
        ctx.out("\n".join(lines) + "\n")
        return 0
    upper = name.upper()
    upper = upper[3:] if upper.startswith("SIG") else upper
    if name.isdigit() and 0 < int(name) <= len(_KILL_NAMES):
        ctx.out(_KILL_NAMES[int(name) - 1] + "\n")
    elif upper in _KILL_NAMES:
        ctx.out(f"{_KILL_NAMES.index(upper) + 1}\n")
    else:
        ctx.error(f"unknown signal name {name}")
    return 0
