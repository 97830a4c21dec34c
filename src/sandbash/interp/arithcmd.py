"""A hot `(( expr ))` command as one generated function (issue 23: the `(( ))` statement's own tier).

Compiler.arith_cmd's closure does what `(( ))` does around its test (the run mode's test, $LINENO,
the process substitutions open before it, the name errors are reported in, the status, `set -e`,
PIPESTATUS) and calls the text's generated arithmetic function (expand/arithgen.py): two Python
frames a command, where `x=$(( ))` is one. Once the text is generated (it has run HOT_CALLS times,
as any), a body compiled again (Compiler.compiled: a loop takes its body again at each check of
its guard) gets, for that command, one function whose statements are the text's generated ones
between the closure's own: the same work, one frame.

It does exactly the closure's plain case, after the same test: when the run is not untraced (a
trap, `set -x`, a DEBUG trap, gates, a signal: RunMode) or the shared evaluator is in use (a
nested evaluation: arith_eval's fresh evaluator), the closure itself runs (`cold`), with nothing
of the command done. The source is made from fixed text and arithgen.statements, which spells no
script text (every name, subscript, number and the text itself are namespace constants); the
shell's objects and the command's line come in as the factory's parameters."""

from __future__ import annotations

from ..expand.arith import ArithError, parse_or_raise
from ..expand.env import ExpansionError
from ..textcache import function_of
from .state import ONE_STATUS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .compiler import Code, Compiler

FILE = "<arithcmd>"
_IND = 4  # the indentation level of the expression's statements in _HEAD's inner `try`
_HEAD = """\
def make(mode, st, sh, procs, ev, cold, failed, errexit_check, finish, line):
    def arith_cmd():
        if not mode.untraced or ev.depth:
            return cold()
        st.line = line
        mark = len(procs) if procs else 0
        try:
            sh.arith_cmd = "((: "
            try:
"""
_TAIL = """\
                status = 0 if {result} else 1
            finally:
                sh.arith_cmd = ""
        except (ArithError, ExpansionError) as e:
            status = failed(e)
        else:
            st.last_status = status
            if status and not st.errexit_ignored:
                errexit_check(status)
        finally:
            if procs and len(procs) > mark:
                finish(mark)
        st.pipestatus = ONE_STATUS[status]
        return status
    return arith_cmd
"""
_NAMESPACE: dict[str, object] = {
    "ArithError": ArithError,
    "ExpansionError": ExpansionError,
    "ONE_STATUS": ONE_STATUS,
}


def source(text: str) -> tuple[str, dict[str, object]] | None:
    """The factory's source for `(( text ))` and the namespace it runs over; None when the text
    does not parse or is too large or deep to generate."""
    try:
        node = parse_or_raise(text)
    except ArithError:
        return None
    from ..expand.arithgen import statements  # (as the text's own generation: only once hot)

    made = statements(node, text, _IND)
    if made is None:
        return None
    lines, result, namespace = made
    body = "".join(line + "\n" for line in lines)
    return _HEAD + body + _TAIL.format(result=result), {**namespace, **_NAMESPACE}


def fused(comp: Compiler, text: str, cold: Code, line: int, budget: int) -> Code | None:
    """The one function of `(( text ))` at `line` whose compiled closure is `cold`, for `comp`'s
    shell; None when there is no source (see source) or when it would take `comp` past `budget`
    characters of generated source (funcgen.GEN_CHARS, the bodies' budget)."""
    made = source(text)
    if made is None or comp.generated + len(made[0]) > budget:
        return None
    comp.generated += len(made[0])
    factory: Callable[..., Code] = function_of(made[0], FILE, "make", made[1])
    ev = comp.ev
    st = ev.state
    return factory(
        st.run_mode,
        st,
        ev.sh,
        ev.pr.procsubs,
        ev.sh._arith,
        cold,
        ev.arith_cmd_failed,
        ev.errexit_check,
        ev.pr.finish_procsubs,
        line,
    )
