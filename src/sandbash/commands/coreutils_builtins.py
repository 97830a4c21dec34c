"""The coreutils twins of shell builtins: /usr/bin/echo, printf, test, [,
true, false, pwd, kill (what `env echo`, `xargs printf`, `find -exec test`
run). They share the builtins' implementations in `posix/`."""

from __future__ import annotations

from ..posix.echo import echo_text
from ..posix.printf import format_printf
from ..posix.testexpr import TestError, TestParser
from ..vfs.base import Stat
from .context import Ctx
from .record import Effects, declare


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
        ctx.out("echo (sandbash) 0.1.0\n" if args[0] == "--version" else "Usage: echo [SHORT-OPTION]... [STRING]...\n")
        return 0
    text, _ = echo_text(list(args), False)
    ctx.out(text)
    return 0


@declare("printf", effects=Effects.NONE)
def cmd_printf(ctx: Ctx) -> int:
    args = list(ctx.args)
    if not args:
        ctx.error("missing operand")
        ctx.stderr.write(b"Try 'printf --help' for more information.\n")
        return 1
    if args[0] == "--":
        args = args[1:]
    errors: list[str] = []
    text, status = format_printf(args[0], args[1:], errors.append, ctx.clock, gnu=True)
    ctx.out(text)
    for e in errors:
        ctx.error(e)
    return status


def _test(ctx: Ctx, args: list[str]) -> int:
    try:
        return 0 if TestParser(_CtxTestEnv(ctx), args).evaluate() else 1
    except TestError as e:
        ctx.error(str(e))
        return 2


@declare("test", spells="test", effects=Effects.TEST)
def cmd_test(ctx: Ctx) -> int:
    return _test(ctx, list(ctx.args))


@declare("[", spells="test", effects=Effects.TEST)
def cmd_bracket(ctx: Ctx) -> int:
    args = list(ctx.args)
    if not args or args[-1] != "]":
        ctx.error("missing ']'")
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


@declare("kill", effects=Effects.NONE)
def cmd_kill(ctx: Ctx) -> int:
    args = list(ctx.args)
    if args and args[0] == "-l":
        ctx.out("HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM\n")
        return 0
    for a in args:
        if not a.startswith("-"):
            ctx.error(f"sending signal to {a} failed: No such process")
            return 1
    return 0
