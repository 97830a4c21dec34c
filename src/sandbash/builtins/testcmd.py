"""`test` and `[` (the expression language itself is in posix/testexpr.py, shared with
/usr/bin/test and `[[ ]]`, interp/conds.py)."""

from __future__ import annotations

from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..interp.conds import ShellTestEnv
from ..posix.testexpr import TestError, TestParser, quick_test
from . import builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell


# ------------------------------------------------------------ test / [


def run_test(sh: Shell, name: str, args: list[str], end: str | None = None) -> int:
    try:
        quick = quick_test(args)  # (most tests look at no file or variable: no environment)
        if quick is not None:
            return 0 if quick else 1
        return 0 if TestParser(ShellTestEnv(sh, builtin=True), args, end).evaluate() else 1
    except TestError as e:
        sh.builtin_error(name, str(e))
        return 2
    except (ArithError, ExpansionError) as e:
        if isinstance(e, ExpansionError) and e.exits:
            raise  # (-v a[1/0]: the subscript's error ends the command line, unnamed)
        sh.builtin_error(name, getattr(e, "message", str(e)))
        return 2


@builtin("test")
def bi_test(sh: Shell, argv: list[str]) -> int:
    return run_test(sh, "test", argv[1:])


@builtin("[")
def bi_bracket(sh: Shell, argv: list[str]) -> int:
    if argv[-1] != "]":
        sh.builtin_error("[", "missing `]'")
        return 2
    return run_test(sh, "[", argv[1:-1], "]")
