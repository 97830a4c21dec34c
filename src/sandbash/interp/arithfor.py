"""A hot `for ((init; cond; step))` loop as one generated function (issue 23: the loop's own tier,
as arithcmd.py is the `(( ))` command's).

Evaluator._arith_for calls, at each step, the condition's function, the body and the step's
function: three calls, and the loop's own bookkeeping between them. Once the condition's and the
step's texts have their generated functions (arith.generated_of: each has run HOT_CALLS times),
the loop hands its remaining steps, at a check of its guard, to one function made here, whose
step is the same code with the two texts' generated statements (arithgen.statements) written in
place of the two calls. It does exactly what _arith_for's step does, in the same order: the
guard's count and check (LoopFrame: max_loop_iterations, max_work, the deadline and
cancellation), the body asked for again at each check (Evaluator.body_again), the traced way of
each part when a trap or `set -x` is on (Evaluator._arith_or_error, checked before each part as
the loop checks it), `$LINENO` at the loop's line for the step, the `((: ` name of errors in the
parts, an error in a part reported and the loop ended with status 1, jobs reaped after each test,
`break`/`continue` (LoopFrame.caught), and the status the loop ends with. Its body's top-level
`(( ))` commands are written in too, the others' closures called (loopgen.Writer.body; a loop whose
body has none calls the body, asked for again at each check), and the loop is handed over once their
texts are generated as well (loopgen.ready); a body written in with a nested text not generated
yet hands back once it is (loopgen.renewal), as a `while` loop's does.

It is used only when the shared evaluator is free (no nested evaluation: arith.Evaluator.depth,
the loop's own throughout, as _part_fn takes it) and both parts are empty, literal texts or
templates (`k < ${#a[@]}`: written in as a body's `(( ))` of one is, loopgen.Writer.evaluation). The
source is made from fixed text and arithgen.statements, which spells no script text (names,
numbers and the texts are namespace constants); the shell's objects come in as the factory's
parameters, the loop's frame, count, guard, body and status as the function's."""

from __future__ import annotations

from functools import partial

from ..expand.arith import GEN_LONGEST, ArithError, generated_of, parse_or_raise
from ..expand.arithwords import literal_arith, word_template
from ..expand.env import ExpansionError
from ..textcache import function_of
from .control import LoopControl
from .jobs import cleanup_dead_jobs
from .loopgen import RENEW, SCOPE, Writer, block, never, renewal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..expand.arith import Template
    from ..syntax import ast as A
    from .compiler import Compiler
    from .loops import LoopFrame

    Run = Callable[[LoopFrame, int, int, Callable[[], int], int], int]

FILE = "<arithfor>"
_IND = 6  # the indentation level of a part's statements in _SOURCE's `try`
# (the loop's own locals start with `_`: arithgen's statements bind t, v, r, q, a, o1, s, i, x1...)
_SOURCE = """\
def make(st, sh, ev, mode, part, failed, again, renew, procs, finish, cmd_failed, errexit_check, cond_node, step_node, line):
    def run(loop, _n, _stop, _body, _status):
        opts = st.opts
        rt = sh.rt
        _t = ev.scopes[-1]
        try:
            while True:
                _n += 1
                if _n >= _stop:
                    _stop = loop.check(_n)
{again}
                if not mode.untraced and (st.traps or opts["xtrace"]):
                    _cond = part(cond_node)
                    if _cond is None:
                        _status = 1
                        break
                else:
                    try:
{cond}
                    except (ArithError, ExpansionError) as e:
                        failed(e)
                        _status = 1
                        break
                if rt.reap:
                    reap(sh)
                if not _cond:
                    break
{enter}                try:
{body}
                except LoopControl as e:
                    _status = loop.caught(e)
                    if e.breaks:
                        break
                sh.arith_cmd = "((: "
                st.line = line
                if not mode.untraced and (st.traps or opts["xtrace"]):
                    if part(step_node) is None:
                        _status = 1
                        break
                else:
                    try:
{step}
                    except (ArithError, ExpansionError) as e:
                        failed(e)
                        _status = 1
                        break
        finally:
            loop.count = _n
        return _status
    return run
"""
_NAMESPACE: dict[str, object] = {
    "ArithError": ArithError,
    "ExpansionError": ExpansionError,
    "LoopControl": LoopControl,
    "reap": cleanup_dead_jobs,
}


def hot(node: A.ArithFor, comp: Compiler | None = None) -> bool | None:
    """Whether the loop's condition and step both have their generated functions now (empty parts
    count as such); None when one is a text to expand first (never generated here) that is not a
    template of `comp`'s expander (arithwords.word_template: `k < ${#a[@]}`), whose function
    counts as the text's."""
    ready = True
    for word in (node.cond, node.step):
        if word is not None:
            text = literal_arith(word)
            if text is not None:
                ready = ready and generated_of(text) is not None
                continue
            made = word_template(comp.ev.expander, word) if comp is not None else None
            if made is None or len(word.text) > GEN_LONGEST:
                return None
            ready = ready and made[0].generated()
    return ready


def _template_part(
    w: Writer, comp: Compiler | None, word: A.Word | None, last: str
) -> tuple[str, dict[str, object]] | None:
    """A part that is a template (`k < ${#a[@]}`), as a generated loop's body writes in its
    `(( ))` commands (loopgen.Writer.evaluation), at _IND, its constants in `w`'s namespace: its
    value in `_sr`, then `last`; None when it is not one or not generated yet."""
    if comp is None or word is None:
        return None
    filled = w.evaluation(comp, word, last)
    return None if filled is None else ("\n".join(block(filled, _IND)), {})


def _part(word: A.Word | None, result: bool, prefix: str) -> tuple[str, dict[str, object]] | None:
    """A part's statements at _IND, ending with `_cond = VALUE` when `result` (an empty condition
    is 1, as the loop takes it; an empty step is nothing), its constants named `prefix` and a
    number; None when it is not generated."""
    pad = "    " * _IND
    if word is None:
        return (pad + "_cond = 1" if result else pad + "pass"), {}
    text = literal_arith(word)
    if text is None:
        return None
    try:
        node = parse_or_raise(text)
    except ArithError:
        return None
    from ..expand.arithgen import statements  # (only once a loop is hot)

    made = statements(node, text, _IND, prefix, SCOPE)
    if made is None:
        return None
    lines, value, namespace = made
    if result:
        lines = [*lines, f"{pad}_cond = {value}"]
    elif not lines:
        lines = [pad + "pass"]
    return "\n".join(lines), namespace


def source(
    node: A.ArithFor, comp: Compiler | None = None
) -> tuple[str, dict[str, object], tuple[str | Template, ...]] | None:
    """The factory's source for the loop's steps, the namespace it runs over and the texts left
    cold in its body (loopgen.renewal), or None when a part is not generated. With `comp`, the
    body's hot `(( ))` commands are written in (loopgen.Writer.body), else it is called."""
    w = Writer(loop=True)
    cond = _part(node.cond, True, "k") or _template_part(w, comp, node.cond, "_cond = _sr")
    step = _part(node.step, False, "j") or _template_part(w, comp, node.step, "pass")
    if cond is None or step is None or w.waiting:
        return None
    body = w.body(comp, node.body, 5, kept=True) if comp is not None else None
    # (a body left a closure because its only command's template was cold waits for it too)
    again = (["_body = again(_body)"] if body is None else []) + (RENEW.splitlines() if w.cold else [])
    source = _SOURCE.format(
        # (a body written in empties `sh.arith_cmd` itself: Writer.body's `kept`)
        enter="" if body is not None else '                sh.arith_cmd = ""\n',
        again="\n".join(block("\n".join(again or ["pass"]), 5)),
        cond=cond[0],
        body="\n".join(body or block("_status = _body()", 5)),
        step=step[0],
    )
    return source, {**w.namespace, **cond[1], **step[1], **_NAMESPACE}, w.cold


def fused(comp: Compiler, node: A.ArithFor, budget: int) -> Run | None:
    """The loop's steps as one function for `comp`'s shell (see the module's docstring); None
    when a part is not generated or the source would take `comp` past `budget` characters of
    generated source (funcgen.GEN_CHARS). It returns the loop's status, or `-1 - status` when
    it hands back (loopgen.RENEW) at the step in `loop.count`."""
    made = source(node, comp)
    if made is None or comp.generated + len(made[0]) > budget:
        return None
    text, namespace, cold = made
    comp.generated += len(text)
    factory: Callable[..., Run] = function_of(text, FILE, "make", namespace)
    ev = comp.ev
    st = ev.state
    return factory(
        st,
        ev.sh,
        ev.sh._arith,
        st.run_mode,
        ev._arith_or_error,
        ev._arith_part_failed,
        partial(ev.body_again, node.body),
        renewal(comp.fors, id(node), cold) if cold else never,  # type: ignore[arg-type]
        ev.pr.procsubs,
        ev.pr.finish_procsubs,
        ev.arith_cmd_failed,
        ev.errexit_check,
        node.cond,
        node.step,
        node.line,
    )
