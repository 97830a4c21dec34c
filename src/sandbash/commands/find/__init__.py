"""find (GNU findutils 4.9): starting points, the expression language, and
the traversal.

Directory entries are visited in byte order of their names (GNU uses readdir
order, which on a real disk is arbitrary). Every visited file charges the
run's budget; -exec commands run through the interpreter (ctx.run).
"""

from __future__ import annotations

import errno

from ...vfs.errors import FsError
from ..context import Ctx
from ..fsutil import errmsg, midnight, quote, tz_from_env
from ..options import version_line
from ..record import Effects, WriteFailure, declare
from . import actions as _actions  # noqa: F401  (registers the actions in the table)
from .entry import Entry, Quit, State
from .parse import FindError, Parser, Pred
from .tests import TABLE

__all__ = ["cmd_find"]

_HELP = """Usage: find [-H] [-L] [-P] [-Olevel] [-D debugopts] [path...] [expression]

default path is the current directory; default expression is -print
expression may consist of: operators, options, tests, and actions.

Operators (decreasing precedence; -and is implicit where no others are given):
      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2
      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2

Positional options (always true):
      -daystart -follow -nowarn -regextype -warn

Normal options (always true, specified before other expressions):
      -depth -files0-from FILE -maxdepth LEVELS -mindepth LEVELS
       -mount -noleaf -xdev -ignore_readdir_race -noignore_readdir_race

Tests (N can be +N or -N or N):
      -amin N -anewer FILE -atime N -cmin N -cnewer FILE -context CONTEXT
      -ctime N -empty -false -fstype TYPE -gid N -group NAME -ilname PATTERN
      -iname PATTERN -inum N -iwholename PATTERN -iregex PATTERN
      -links N -lname PATTERN -mmin N -mtime N -name PATTERN -newer FILE
      -nouser -nogroup -path PATTERN -perm [-/]MODE -regex PATTERN
      -readable -writable -executable
      -wholename PATTERN -size N[bcwkMG] -true -type [bcdpflsD] -uid N
      -used N -user NAME -xtype [bcdpfls]

Actions:
      -delete -print0 -printf FORMAT -fprintf FILE FORMAT -print
      -fprint0 FILE -fprint FILE -ls -fls FILE -prune -quit
      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;
      -execdir COMMAND ; -execdir COMMAND {} + -okdir COMMAND ;
"""


def _is_expression_start(arg: str) -> bool:
    # as findutils reads a leading word: `)` and `,` there are start points (`find d \)` looks
    # for a file named `)`), only `-X`, `(` and `!` begin the expression (check/wrappers.m_find)
    return (arg.startswith("-") and len(arg) > 1) or arg in ("(", "!")


WRITE_FAILURE = WriteFailure(at_exit="{name}: ‘standard output’: {err}\n{name}: write error{close_err}\n")


@declare("find", effects=Effects.FIND, write_failure=WRITE_FAILURE)
def cmd_find(ctx: Ctx) -> int:
    args = list(ctx.args)
    follow = "P"
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-H", "-L", "-P"):
            follow = a[1]
            i += 1
        elif a == "-D":
            if i + 1 >= len(args):
                ctx.error("Missing argument after the -D option.")
                return 1
            i += 2
        elif a.startswith("-O") and a[2:].isdigit():
            i += 1
        elif a == "--":
            i += 1
            break
        else:
            break
    starts: list[str] = []
    while i < len(args) and not _is_expression_start(args[i]):
        starts.append(args[i])
        i += 1
    expression = args[i:]
    if "-help" in expression[:1] or "--help" in expression[:1]:
        ctx.out(_HELP)
        return 0
    if "-version" in expression[:1] or "--version" in expression[:1]:
        ctx.out(version_line("find"))
        return 0
    now = ctx.fs.vfs.clock()
    tz = tz_from_env(ctx.env)
    state = State(ctx=ctx, now=now, tz=tz, day_start=midnight(now, tz), day_origin=now - 86400, follow=follow)
    parser = Parser(ctx, state, expression, TABLE)
    try:
        predicate = parser.parse()
        if parser.uses_delete and parser.uses_prune and not parser.explicit_depth:
            raise FindError(
                "The -delete action automatically turns on -depth, but -prune does nothing when -depth "
                "is in effect.  If you want to carry on anyway, just explicitly use the -depth option."
            )
    except FindError as e:
        state.flush()
        ctx.error(str(e))
        return 1
    if follow == "L" or state.follow == "L":
        state.follow = "L"
    if not parser.has_action:
        base = predicate

        def with_print(e: Entry) -> bool:
            if base(e):
                state.emit(e.path.encode("utf-8", "surrogateescape") + b"\n")
            return True

        predicate = with_print
    walker = _Walker(ctx, state, predicate)
    try:
        for start in starts or ["."]:
            walker.start(start)
    except Quit:
        pass
    finally:
        state.flush()
        for finish in parser.finishers:
            finish()
        state.flush()
        for stream in state.files.values():
            try:
                stream.close()
            except OSError:
                pass
    return state.status


class _Walker:
    def __init__(self, ctx: Ctx, state: State, predicate: Pred) -> None:
        self.ctx = ctx
        self.state = state
        self.predicate = predicate

    def start(self, path: str) -> None:
        ctx, state = self.ctx, self.state
        try:
            if not path:
                raise FsError(2, path)
            lst = ctx.fs.lstat(path)
            if lst.is_link and path.endswith("/"):
                # a trailing slash resolves the link, as lstat(2) does
                lst = ctx.fs.stat(path)
        except FsError as e:
            state.flush()
            ctx.error(f"{quote(path)}: {errmsg(e)}")
            state.status = 1
            return
        follow = state.follow in ("H", "L")
        if follow and lst.is_link:
            why = ctx.fs.stat_error(path)
            if why is not None and why.errno != errno.ELOOP:  # (a loop: visit reports it)
                follow = state.follow == "L"
        entry = Entry(path, path, 0, lst, follow)
        self.visit(entry, [])

    def visit(self, entry: Entry, ancestors: list[tuple[int, str]]) -> None:
        ctx, state = self.ctx, self.state
        ctx.checkpoint()
        if entry.follow and entry.lst.is_link:
            why = ctx.fs.stat_error(entry.path)
            if why is not None and why.errno == errno.ELOOP:
                # a loop of links is no dangling link to test as itself: GNU's fts reports it
                state.flush()
                ctx.error(f"{quote(entry.path)}: {errmsg(why)}")
                state.status = 1
                return
        st = entry.stat(ctx)
        is_dir = st.is_dir
        if is_dir and entry.follow:
            for ino, where in ancestors:
                if ino == st.ino:
                    state.flush()
                    ctx.error(
                        f"File system loop detected; {quote(entry.path)} is part of the same file system "
                        f"loop as {quote(where)}."
                    )
                    state.status = 1
                    return
        test = self.predicate
        state.prune = False
        if not state.depth_first and entry.depth >= state.mindepth:
            test(entry)
        pruned = state.prune
        if is_dir and not pruned and (state.maxdepth is None or entry.depth < state.maxdepth):
            self.children(entry, ancestors + [(st.ino, entry.path)])
        if state.depth_first and entry.depth >= state.mindepth:
            test(entry)

    def children(self, entry: Entry, ancestors: list[tuple[int, str]]) -> None:
        ctx, state = self.ctx, self.state
        try:
            names = ctx.fs.listdir(entry.path)
        except FsError as e:
            state.flush()
            ctx.error(f"{quote(entry.path)}: {errmsg(e)}")
            state.status = 1
            return
        base = entry.path if entry.path.endswith("/") else entry.path + "/"
        # a directory's names, sort keys and stat results are held while its
        # subtree is walked: charged to the run's memory (each level of the walk)
        with ctx.hold_memory() as mem:
            mem.charge(_NAME_BYTES * len(names) + 2 * sum(map(len, names)))
            names = sorted(names, key=lambda n: n.encode("utf-8", "surrogateescape"))
            for name, lst in zip(names, ctx.fs.lstat_many(entry.path, names), strict=True):
                path = base + name
                if isinstance(lst, FsError):
                    state.flush()
                    ctx.error(f"{quote(path)}: {errmsg(lst)}")
                    state.status = 1
                    continue
                self.visit(Entry(path, entry.start, entry.depth + 1, lst, state.follow == "L"), ancestors)


# bytes one name of a directory being walked holds besides its text
_NAME_BYTES = 400
