"""`a+=(x "$k" $((k*2)))` and `a=(...)` alone, compiled (Compiler.simple hands them here).

The walker runs such a command through Executor.no_words: _assignments_only, expand_assignment
(whether the array is associative), expand_array_items (each word through Expander.words, a
list of (key, value, +=) tuples) and Variables.set_array. A list of words without `[key]=`
becomes a closure that does the same in the same order with each word's expansion chosen once
(the steps Compiler._argv_fn would choose for an argument) and stores through
Variables.push_values; an associative array or a nameref (decided before the words expand, as
expand_assignment decides it), and every other variable (new, readonly, -i, special), take the
general way at that point. `name+=(words)` of an existing indexed array without attributes
beyond -a/-x is one closure (_appender): the prologue, the lookup, the words, the element count,
the memory charge and the store, without the calls between them.
"""

from __future__ import annotations

from collections.abc import Callable

from ..expand.arith import ArithError
from ..expand.env import ExpansionError
from ..expand.segments import EXP
from ..expand.stringfn import _arith_of, dq_param_step, unquoted_param_step
from ..expand.words import literal_text
from ..shvars.arrays import AssocArray, IndexedArray, elements_bytes
from ..shvars.vars import ARRAY, ASSOC, EXPORT, NAMEREF, NOASSIGN
from ..syntax import ast as A
from .state import ONE_STATUS
from .steps import assignment_changed
from .variables import AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..expand.words import Expander
    from .compiler import Code, Compiler

Step = Callable[[list[str]], None]


def compilable(cmd: A.SimpleCommand) -> bool:
    """`name=(words)` / `name+=(words)` alone: no words, no redirections, one assignment, no
    `[key]=` item."""
    if cmd.words or cmd.redirs or len(cmd.assigns) != 1:
        return False
    a = cmd.assigns[0]
    return a.array is not None and a.sub is None and all(item.key is None for item in a.array)


def array_assign(comp: Compiler, cmd: A.SimpleCommand, slow: Code) -> Code:
    """The closure of a compilable() command, given to Compiler.assignment as its `finish`."""
    ex = comp.ev.ex
    expander = ex.expander
    va = ex.va
    st = ex.state
    a = cmd.assigns[0]
    assert a.array is not None
    name, append = a.name, a.append
    steps = tuple(_step(expander, item.value) for item in a.array)
    find = st.vars.find
    set_values = va.set_values
    begin_argv = expander.begin_argv
    no_words = ex.no_words
    failed = ex.assign_failed
    assigned = ex.assigned

    def array_words(mark: int) -> int:
        begin_argv()  # (as Compiler.simple's assignments_only, before no_words)
        var = find(name)
        if var is not None and (var.attrs & (ASSOC | NAMEREF) or type(var.value) is AssocArray):
            return no_words(cmd, mark)  # (expand_assignment: keys and values of a list, or a reference)
        values: list[str] = []
        try:
            for step in steps:
                if type(step) is str:
                    values.append(step)
                else:
                    step(values)  # type: ignore[operator]
            set_values(name, values, append)
        except (ExpansionError, ArithError, AssignError) as e:
            status = failed(e)  # (what _assignments_only does with them)
            st.last_arg = ""
            if len(ex.pr.procsubs) > mark:
                ex.pr.finish_procsubs(mark)
            return status
        return assigned(mark)  # (`$_` emptied, a command substitution's status, set -e)

    if not append or name in NOASSIGN:
        return comp.assignment(cmd, array_words, slow)
    return _appender(comp, cmd, steps, array_words, slow)


def _appender(
    comp: Compiler,
    cmd: A.SimpleCommand,
    steps: tuple[str | Step, ...],
    general: Callable[[int], int],
    slow: Code,
) -> Code:
    """`name+=(words)` whose name finds an indexed array without attributes beyond -a/-x:
    Compiler.assignment's prologue, the words, Variables.push_values' append and what
    Executor.assigned does after it, in one closure (the variable found once, its scope's
    charge and the element count checked before anything is stored). Any other variable
    (none, a scalar, assoc, nameref, readonly, -i/-l/-u...): `general`, array_words's way."""
    ex = comp.ev.ex
    st = ex.state
    mode = st.run_mode  # (never another: the state's own, see runmode.py)
    sh = ex.sh
    procs = ex.pr.procsubs
    line = cmd.line
    name = cmd.assigns[0].name
    begin_argv = ex.expander.begin_argv
    set_values = ex.va.set_values
    check_array = sh.check_array
    failed = ex.assign_failed
    assigned = ex.assigned
    one = steps[0] if len(steps) == 1 else None
    # `a+=(word)`: a list that is never changed (extend reads it) and what it costs
    literal = [one] if type(one) is str else None
    literal_bytes = elements_bytes(literal) if literal is not None else 0
    zero = ONE_STATUS[0]

    def append_words() -> int:
        if not mode.plain and assignment_changed(st):
            return slow()
        rt = sh.rt
        st.line = line
        if not st.in_trap:
            sh.current_command = cmd
        budget = rt.budget  # (Budget.command inline)
        budget.commands += 1
        if budget.commands >= budget.command_stop:
            budget.command_slow()
        ex.last_cmdsub_status = None
        mark = len(procs)
        vars_ = st.vars
        i, var = vars_.find_scope(name)
        if var is None or var.attrs & ~(ARRAY | EXPORT) or type(var.value) is not IndexedArray:
            return general(mark)
        begin_argv()  # (as array_words)
        try:
            if literal is not None:
                values = literal
                n = literal_bytes
                arr = var.value
            else:
                values = []
                if one is not None:
                    one(values)  # type: ignore[operator]
                else:
                    for step in steps:
                        if type(step) is str:
                            values.append(step)
                        else:
                            step(values)  # type: ignore[operator]
                n = elements_bytes(values)
                arr = var.value
                if type(arr) is not IndexedArray or var.attrs & ~(ARRAY | EXPORT):
                    # (what an expansion of the words made of it: push_values decides again)
                    set_values(name, values, True)
                    values = []
            if values:
                count = len(arr) + len(values)
                if count > rt.limits.max_array_elements:
                    check_array(count)
                vars_.charge(vars_.scopes[i], n)
                arr.extend(values, n)
                var.attrs |= ARRAY
        except (ExpansionError, ArithError, AssignError) as e:
            status = failed(e)  # (what _assignments_only does with them)
            st.last_arg = ""
            if len(procs) > mark:
                ex.pr.finish_procsubs(mark)
            return status
        if ex.last_cmdsub_status or len(procs) > mark:
            return assigned(mark)  # (a status to give, process substitutions to close)
        st.last_arg = ""  # (as assigned(): `$_` emptied, status 0)
        st.last_status = 0
        st.pipestatus = zero
        return 0

    return append_words


def _step(ex: Expander, w: A.Word) -> str | Step:
    """How one word of the list adds its fields (Expander.words((w,)), its shape chosen now)."""
    text = literal_text(w.parts)
    if text is not None:
        return text
    parts = w.parts
    if len(parts) == 1:
        p0 = parts[0]
        t0 = type(p0)
        if t0 is A.DQ and len(p0.parts) == 1:  # type: ignore[union-attr]
            inner = p0.parts[0]  # type: ignore[union-attr]
            if type(inner) is A.Param:
                return dq_param_step(ex, inner)  # "$x", "${m[$k]}"
            if type(inner) is A.ArithSub:
                return _dq_arith_step(ex, inner.word)  # "$((k*2))"
        elif t0 is A.ArithSub:
            return _arith_step(ex, p0.word)  # type: ignore[union-attr]
        elif t0 is A.Param:
            return unquoted_param_step(ex, p0)  # type: ignore[arg-type]
    word = ex.word
    return lambda out: out.extend(word(w))


def _dq_arith_step(ex: Expander, word: A.Word) -> Step:
    """`"$((...))"`: one field (Expander._dq_word of one arithmetic part)."""
    value = _arith_of(ex, word)

    def dq_arith(out: list[str]) -> None:
        ex._at_empty = False
        out.append(str(value()))

    return dq_arith


def _arith_step(ex: Expander, word: A.Word) -> Step:
    """$((...)): a number, split only by an IFS other than the default (Expander.word)."""
    value = _arith_of(ex, word)
    ifs = ex.env.ifs

    def arith(out: list[str]) -> None:
        text = str(value())
        if ifs() == " \t\n":
            out.append(text)
            return
        for field in ex._split([(text, EXP)]):
            ex._glob_field(field, out)

    return arith
