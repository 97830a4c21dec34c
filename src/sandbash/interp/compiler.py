"""The compiling evaluator: bodies that run again are translated once into Python closures.

A loop's body runs once per iteration and a function's body once per call; the tree walker
(evaluator.py, executor.py) re-examines their syntax every time: what type each command is, which
words are literal text, which of the expander's entry points a word needs. The second time a
command list runs, it is translated here into a closure that has decided all that once:

- a command list is a tuple of its commands' closures, run in order;
- a simple command carries a `Plan`: its literal words as their text, every other word bound to the
  expander entry point it needs, the value of a lone `name=value` bound likewise; the executor's one
  `exec_simple` runs with it (same prologue, gates, tracing, dispatch and errors: the plan only
  replaces the examination of the words);
- `&&`/`||` lists, `(( ))` and `[[ ]]` commands, `if` and the loops run through the walker's own
  handlers, which reach their bodies through `Evaluator.run_body` and so run them compiled in turn.

What must stay dynamic stays in the walker: a word that may glob, a declaration builtin's
assignment words, the array-reference arguments of `unset`/`declare`-like builtins (bash decides
those on the words as written, so they keep the walker's path), everything a command does at run
time (function lookup, policy, redirections). The closures hold the shell that compiled them and
nothing else; the cache belongs to that shell (one per run, one per subshell) and is bounded.

`return` ends a compiled function body without an exception: its closure (return_cmd) returns the
status encoded below zero (`-1 - status`, see returned), which the compiled lists, `&&`/`||`,
`if` and `{ }` around it hand up unchanged, to call_function (Compiler.function_body) or to the
outermost compiled list, which raises ReturnFromFunction for the walker's handlers (`while`, `case`,
a sourced file, ...) as the builtin does. Raising unwound every Python frame between the builtin and
the call (and CPython 3.11 maps and unmaps frame-stack chunks as recursion swings across them).
Only the compiler's own pieces see a negative status (inner, piece): one that can return it is
counted (`returns`), and a list or command given to any other caller (compiled, command) is wrapped
by _raising.

`SANDBASH_TREE_WALKER=1` in the environment turns compiling off (sandbash.switches): the spec
suite and the conformance harnesses run both ways and must agree."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..expand.arith import GEN_LONGEST, HOT_CALLS, ArithError, Template, generated_now, generated_of
from ..expand.arithwords import arith_fn, literal_arith, word_template
from ..expand.env import ExpansionError
from ..expand.pattern import compile_pattern, glob_test, pattern_site, varying_site
from ..expand.segments import CHARGE_FROM, maybe_glob, static_word
from ..expand.stringfn import (
    arith_step,
    arith_text,
    dq_param_step,
    dq_scalar_rest,
    dq_word_step,
    join_fn,
    string_fn,
    unquoted_param_step,
    unquoted_scalar_rest,
    value_fn,
)
from ..expand.words import literal_text, plain_literal
from ..shvars.vars import NAMEREF, NOASSIGN, SPECIAL_ASSIGN, ArrayRefArg, Var, is_array_ref_text, valid_name
from ..switches import NO_FUNCGEN
from ..syntax import ast as A
from . import steps
from .arrayassign import array_assign, compilable
from .builtin_table import is_builtin
from .control import ReturnFromFunction
from .executor import arrayref_args
from .fastbuiltins import fast_builtin, plain_builtin
from .state import ONE_STATUS
from .steps import _traced
from .steps import assignment_changed as _assignment_changed
from .variables import NOT_PLAIN, AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..expand.arith import Evaluator as ArithEvaluator
    from ..expand.words import Expander
    from .evaluator import Evaluator
    from .executor import Executor
    from .funcgen import Body
    from .loopgen import Writer
    from .state import ShellState

Code = Callable[[], int]
# (a closure's `mark = len(procs) if procs else 0` and `procs and len(procs) > mark`: len() is
# called only while process substitutions are open; none is the common case, ~2% of a `x=1`)

_ZERO = ONE_STATUS[0]  # (PIPESTATUS of a command of status 0)
# runs of a `(( ))` command that look for its text's generated function (arith.generated_of): the
# text is generated at its HOT_CALLS-th evaluation, by this command or any other
_HOT_LOOKS = HOT_CALLS + 8
# calls of a function body whose `(( ))` texts are not generated yet (Compiler.stale) before it is
# final (and generated: funcgen) without them (a text is generated at its HOT_CALLS-th evaluation)
_COLD_WAIT = 2 * HOT_CALLS

# bodies remembered per shell, and the size of the syntax trees the compiled ones keep alive (their
# text, 64 per node): past either, the cache starts again, so that a script that evals new (or
# huge) loops forever cannot make it hold more than about this much
_CACHE_MAX = 2048
_WEIGHT_MAX = 8 << 20
_NODE_WEIGHT = 64


class Plan:
    """What a simple command's words are, decided once: `argv` expands them all (None: the
    walker's expand_argv must, see _argv_fn), `name` is the command name when it is literal text
    (the policy decides on it before anything else expands), `value` expands the value of a lone
    `name=value`."""

    __slots__ = ("argv", "name", "value")

    def __init__(
        self, argv: Callable[[], list[str]] | None, name: str | None, value: Callable[[], str] | None
    ) -> None:
        self.argv = argv
        self.name = name
        self.value = value


class Compiler:
    """One shell's compiled bodies. `code(node)` is the closure for a command list the second
    time it is asked for (None the first time: a body that runs once is walked)."""

    __slots__ = (
        "ev",
        "seen",
        "codes",
        "weight",
        "cases",
        "case_weight",
        "inners",
        "returns",
        "shapes",
        "hot",
        "bodies",
        "generated",
        "cold",
        "stale",
        "fors",
        "whiles",
        "tests",
    )

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        # ids of bodies run once: not the nodes (a reused id only compiles a body one run early)
        self.seen: set[int] = set()
        # the node is held with its code: its id cannot be reused while the code is remembered
        self.codes: dict[int, tuple[A.CommandList, Code]] = {}
        self.weight = 0  # the size of what the remembered codes hold (_tree_size)
        self.cases: dict[int, tuple[A.Case, tuple[tuple[CaseTest, ...], ...]]] = {}
        self.case_weight = 0  # (as weight: a case node holds its bodies, walked ones too)
        # the lists a `return` can end: their closures before _raising (see function_body)
        self.inners: dict[int, tuple[A.CommandList, Code]] = {}
        # pieces made that can end with a returned status (returned): a list whose count
        # grew while its commands were compiled can
        self.returns = 0
        # what funcgen writes out inline, by the closure it stands for: the key of its step
        # (steps.py) and its holes' values (forgotten with the codes)
        self.shapes: dict[Code, tuple[tuple[object, ...], dict[str, object]]] = {}
        # function bodies' calls through function_body before they are generated (funcgen), and
        # the bodies' final code (generated, or the closures when it was not)
        self.hot: dict[int, int] = {}
        self.bodies: dict[int, tuple[A.CommandList, Code]] = {}
        self.generated = 0  # characters of source funcgen made for this shell (funcgen.GEN_CHARS)
        # the texts of `(( ))` commands compiled as closures while their text was not generated
        # yet (arithcmd.py), and the texts and templates of assignments' `$(( ))` values likewise
        # (arith_cold), while a list is compiled (None: none is), and the lists compiled with
        # some: such a list is compiled again when it is asked for once one of its texts is
        self.cold: list[str | Template] | None = None
        self.stale: dict[int, tuple[A.CommandList, tuple[str | Template, ...]]] = {}
        # `for ((;;))` loops whose parts are hot, by node: their generated steps (arithfor.py), or
        # None where they are not generated (too large, past the budget)
        self.fors: dict[int, tuple[A.ArithFor, Callable[..., int] | None]] = {}
        # `while`/`until` loops by node: their generated steps (loopgen.py), None where they are
        # not generated, or the `(( ))` texts they wait for
        self.whiles: dict[int, tuple[A.While, Callable[..., int] | tuple[str, ...] | None]] = {}
        # `[ $x OP lit ]`-like tests by their closure (fastbuiltins._operand_code): what a
        # generated body writes in for them (funcgen._TEST; forgotten with the codes)
        self.tests: dict[Code, dict[str, object]] = {}

    def code(self, node: A.CommandList) -> Code | None:
        key = id(node)
        hit = self.codes.get(key)
        if hit is not None and hit[0] is node:
            return hit[1] if key not in self.stale else self.compiled(node)
        if key not in self.seen:
            if len(self.seen) >= _CACHE_MAX:
                self.seen.clear()
            self.seen.add(key)
            return None
        return self.compiled(node)

    def compiled(self, node: A.CommandList) -> Code:
        """The closure for `node` now (a loop body: it runs again by its nature). A list compiled
        with `(( ))` commands whose text was not generated yet is compiled again once one is (a
        loop asks for its body again at each check of its guard: Evaluator.body_again)."""
        key = id(node)
        hit = self.codes.get(key)
        if hit is not None and hit[0] is node:
            stale = self.stale.get(key)
            if stale is None or stale[0] is not node:
                return hit[1]
            if not any(generated_now(text) for text in stale[1]):
                if self.cold is not None:  # (a list being compiled around it is stale with it)
                    self.cold += stale[1]
                return hit[1]
            del self.stale[key]
        if len(self.codes) >= _CACHE_MAX or self.weight >= _WEIGHT_MAX:
            self.codes.clear()
            self.inners.clear()
            self.shapes.clear()
            self.tests.clear()
            self.bodies.clear()
            self.stale.clear()
            self.fors.clear()
            self.whiles.clear()
            self.weight = 0
        outer = self.cold
        self.cold = []
        try:
            code = self.command_list(node)
        finally:
            cold = self.cold
            self.cold = outer
        if cold:
            texts = tuple(dict.fromkeys(cold))
            self.stale[key] = (node, texts)
            if outer is not None:
                outer += texts
        self.codes[key] = (node, code)
        self.weight += _tree_size(node)
        return code

    def inner(self, node: A.CommandList) -> Code:
        """The closure for `node` inside another compiled piece: a `return` in it ends it with
        a returned status (returned) that the caller hands up."""
        code = self.compiled(node)
        hit = self.inners.get(id(node))
        if hit is not None and hit[0] is node:
            self.returns += 1
            return hit[1]
        return code

    def function_body(self, node: A.CommandList) -> tuple[Code | None, bool]:
        """A function's body as call_function runs it, from its second call (as code()): its
        `return` gives a returned status (returned) rather than raising. With whether that code
        is final (a call site may remember it: calls._body_code): the closures are not until the
        body has been asked for funcgen.BODY_HOT times, when it is generated as one function."""
        key = id(node)
        hit = self.bodies.get(key)
        if hit is not None and hit[0] is node:
            return hit[1], True
        code = self.code(node)
        if code is None:
            return None, False
        hit = self.inners.get(key)
        if hit is not None and hit[0] is node:
            code = hit[1]
        generating = not NO_FUNCGEN and len(node.items) > 1
        if not generating and key not in self.stale:
            return code, True
        from . import funcgen  # (only once a body is hot)

        calls = self.hot.get(key, 0) + 1
        # (a body compiled with `(( ))` texts not generated yet waits for them a while, not final:
        # final or generated, it would keep their closures for good; compiled again once one is)
        if (generating and calls < funcgen.BODY_HOT) or (key in self.stale and calls < _COLD_WAIT):
            if len(self.hot) >= _CACHE_MAX:
                self.hot.clear()
            self.hot[key] = calls
            return code, False
        self.hot.pop(key, None)
        if not generating:
            return code, True
        code = funcgen.generate(self, node) or code
        self.bodies[key] = (node, code)
        return code, True

    def arith_for(self, node: A.ArithFor, n: int) -> Callable[..., int] | None:
        """The generated steps of a `for ((;;))` loop whose parts are literal (arithfor.py) at
        its step `n`, once both parts' texts are generated, and its body's `(( ))` texts
        (loopgen.ready); None before that, and for good when they cannot be."""
        key = id(node)
        hit = self.fors.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        from . import arithfor, funcgen, loopgen  # (only once a loop is hot)

        hot = arithfor.hot(node, self)
        if hot is False or (hot and not loopgen.ready(loopgen.body_texts(node.body), n)):
            return None  # (asked again at the loop's next check)
        if len(self.fors) >= _CACHE_MAX:
            self.fors.clear()
        run = arithfor.fused(self, node, funcgen.GEN_CHARS) if hot else None
        self.fors[key] = (node, run)
        return run

    def while_loop(self, node: A.While, n: int) -> Callable[..., int] | None:
        """The generated steps of a `while`/`until` loop at its step `n` (loopgen.py), once its
        `(( ))` texts are generated (or it has waited for them long enough: loopgen.ready), or,
        with none, once it has run loopgen.PLAIN_STEPS; None before that, and for good when
        nothing in it can be written in."""
        key = id(node)
        hit = self.whiles.get(key)
        if hit is not None and hit[0] is node:
            found = hit[1]
            if type(found) is not tuple:
                return found  # type: ignore[return-value]  # (a run, or None for good)
        else:
            from . import loopgen  # (only once a loop is checked)

            found = loopgen.texts(node)
            if len(self.whiles) >= _CACHE_MAX:
                self.whiles.clear()
            self.whiles[key] = (node, found)
        from . import funcgen, loopgen

        # (a loop with no `(( ))` text, `while read ...` over a file, is hot once it has run
        # PLAIN_STEPS: its body's commands are written in as any loop's are)
        if not (loopgen.ready(found, n) if found else n >= loopgen.PLAIN_STEPS):  # type: ignore[arg-type]
            return None  # (asked again at the loop's next check)
        run = loopgen.while_loop(self, node, funcgen.GEN_CHARS)
        self.whiles[key] = (node, run)
        return run

    def body_writer(self, writer: Writer) -> Body:
        """What writes a generated loop's compound commands (loopgen.Writer.compound): a
        generated function body's writer (funcgen.Body) over the loop's namespace."""
        from .funcgen import Body  # (only once a loop is generated)

        return Body(self, writer)

    def case_tests(self, node: A.Case) -> tuple[tuple[CaseTest, ...], ...]:
        """The tests of a `case` command's patterns, made once (see case_tests)."""
        key = id(node)
        hit = self.cases.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        if len(self.cases) >= _CACHE_MAX or self.case_weight >= _WEIGHT_MAX:
            self.cases.clear()
            self.case_weight = 0
        tests = case_tests(self.ev.expander, node)
        self.cases[key] = (node, tests)
        self.case_weight += _tree_size(node)
        return tests

    # ------------------------------------------------------------ translation

    def command_list(self, node: A.CommandList) -> Code:
        ev = self.ev
        mark = self.returns
        codes = tuple(self.item(item) for item in node.items)
        if len(codes) == 1:
            code = codes[0]
        elif not codes:
            st = ev.state
            return lambda: st.last_status  # (the walker's run_list of nothing)
        elif self.returns == mark:
            return _sequence(codes)
        else:
            code = _sequence_returning(codes)
        if self.returns == mark:
            return code
        self.inners[id(node)] = (node, code)
        return _raising(code)

    def item(self, item: A.ListItem) -> Code:
        ev = self.ev
        cmd = item.cmd
        if item.background:
            return partial(ev.pr.run_background, cmd)
        return self.piece(cmd)

    def command(self, cmd: A.Command) -> Code:
        """The closure of a command for a caller that takes its status as it is: a `return` in it
        raises ReturnFromFunction (see piece)."""
        mark = self.returns
        code = self.piece(cmd)
        if self.returns == mark:
            return code
        self.returns = mark  # (what it returns is a status again)
        return _raising(code)

    def piece(self, cmd: A.Command) -> Code:
        """The closure of a command inside a list or `&&`/`||`: a `return` in it ends it with a
        returned status (returned), which the caller hands up at once."""
        t = type(cmd)
        if t is A.SimpleCommand:
            fast = fast_builtin(self, cmd, _begin, _literal_word)  # type: ignore[arg-type]
            return fast if fast is not None else self.simple(cmd)  # type: ignore[arg-type]  # (fast: let, test, [)
        if t is A.ArithCmd:
            return self.arith_cmd(cmd)  # type: ignore[arg-type]
        if t is A.CondCmd:
            return self.cond_cmd(cmd)  # type: ignore[arg-type]
        if t is A.AndOr:
            return self.and_or(cmd)  # type: ignore[arg-type]
        if t is A.If:
            return self.if_cmd(cmd)  # type: ignore[arg-type]
        if t is A.Group:
            return self.group(cmd)  # type: ignore[arg-type]
        if t is A.Case:
            return self.case_cmd(cmd)  # type: ignore[arg-type]
        return partial(self.ev.execute, cmd)  # the walker's handler (its bodies run compiled)

    def group(self, node: A.Group) -> Code:
        """`{ ...; }` (redirections make it a Redirected): compiled when a `return` in it can
        end the function without raising, else the walker's (as execute() runs it)."""
        mark = self.returns
        body = self.inner(node.body)
        if self.returns == mark:
            return partial(self.ev.execute, node)
        return _guarded(self.ev, body)

    def case_cmd(self, node: A.Case) -> Code:
        """`case`, as Evaluator._exec_case and execute() run it while no trap or `set -x` asks for
        more: the subject's expansion chosen once, the patterns' tests made once (case_tests), the
        bodies compiled (a `return` in one is handed up)."""
        ev = self.ev
        st = ev.state
        sh = ev.sh
        mode = st.run_mode
        failed = ev.expansion_failed
        slow = partial(ev.execute, node)
        subject_fn = self._string_fn(node.word)
        self.arith_cold(node.word)  # (`case $(( k % 3 )) in`: casegen writes its evaluation in)
        from ..syntax.escapes import ansi_decoded  # (as Evaluator._exec_case: not at start-up)

        header = f"case {ansi_decoded(node.word.text)} in "  # ($BASH_COMMAND: _exec_case's)
        tests = self.case_tests(node)
        items = tuple(
            (tests[i], self.inner(item.body) if item.body is not None else None, item.term)
            for i, item in enumerate(node.items)
        )
        line = node.line
        table, miss = _literal_table(node)

        procs = ev.pr.procsubs
        finish = ev.pr.finish_procsubs

        def case_cmd() -> int:
            mark = len(procs) if procs else 0  # (_guarded's work, in place: a frame fewer per `case`)
            try:
                if not mode.plain and _traced(st):
                    return slow()
                st.compound_line(line, sh.rt.budget.commands)
                if not mode.untraced and st.traps and not st.in_trap:  # (for an ERR or EXIT trap)
                    sh.current_command = header
                try:
                    subject = subject_fn()
                except ArithError as e:
                    return failed(ExpansionError(e.render(), 1, arith=True))
                shopts = st.shopts
                nocase = shopts["nocasematch"]
                extglob = shopts["extglob"]
                status = 0
                run = items
                matched = False  # (after `;&` the next body runs without a test)
                if table is not None and not nocase:  # (the first item that matches, found)
                    run = items[table.get(subject, miss) :]
                    matched = True
                for patterns, body, term in run:
                    if not matched:
                        try:
                            for test in patterns:
                                if test(subject, nocase, extglob):
                                    break
                            else:
                                continue
                        except ArithError as e:
                            return failed(ExpansionError(e.render(), 1, arith=True))
                    if body is not None:
                        status = body()
                        if status < 0:
                            return status  # a `return` (returned)
                    else:
                        status = 0
                    if term == ";;":
                        break
                    matched = term == ";&"
                st.last_status = status
                return status
            except ExpansionError as e:
                return failed(e)
            finally:
                if procs and len(procs) > mark:
                    finish(mark)

        return case_cmd

    def assignment(self, cmd: A.SimpleCommand, finish: Callable[[int], int], slow: Code) -> Code:
        """Assignments alone (`name=value`, `a+=(x y)`, `a=1 b=2`), while nothing changes how a
        command runs (as in simple()): exec_simple's prologue, then `finish` (Executor.assign_one
        for one scalar, else no_words, what exec_simple ends in for a command without words) given
        the process substitutions open before it."""
        ex = self.ev.ex
        st = ex.state
        mode = st.run_mode  # (never another: the state's own, see runmode.py)
        sh = ex.sh
        procs = ex.pr.procsubs
        line = cmd.line

        def assignment() -> int:
            if not mode.plain and _assignment_changed(st):
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
            return finish(len(procs))

        return assignment

    def scalar(self, cmd: A.SimpleCommand, value_fn: Callable[[], str], slow: Code) -> Code:
        """`name=value` or `name+=value` alone: what assignment() and Executor.assign_one do,
        with what the words decide bound now. A name that is not special (NOT_PLAIN) is stored
        by Variables.store_plain while it is an existing plain variable; anything else (a new
        variable, attributes, a nameref, readonly, `set -a`, a special name) goes through set_var."""
        ex = self.ev.ex
        sh = ex.sh
        a = cmd.assigns[0]
        name = a.name
        append = a.append
        store = ex.va.store_plain if name not in NOT_PLAIN else None
        # `name=$(( text ))` with nothing in the text to expand: evaluated, and once hot stored,
        # by one generated function (Shell.arith_assign_fn; a value it gives back is stored here)
        text = _one_arith_text(a.value) if store is not None and not append else None
        values: dict[str, object] = {"line": cmd.line, "cmd": cmd, "name": name, "set_var": ex.va.set_var}
        # (the value's word and function: what funcgen writes in for a `$(( ))`, steps.VALUE_ARITH)
        values["word"] = a.value
        values["fn"] = value_fn
        self.arith_cold(a.value)
        if store is not None:
            values["store"] = store
        if text is not None:
            values["assign"] = sh.arith_assign_fn(text, name)
            values["aev"] = sh._arith  # (the shared evaluator, as arith_eval uses it)
            key: tuple[object, ...] = ("arith",)
        else:
            how, index = steps.value_how(a.value)
            values["ref"] = steps.plain_name(a.value)
            how = how or steps.VALUE_FN
            values["index"] = index
            key = ("scalar", how, store is not None, append)
        return self._step(key, slow, values)

    def element(self, cmd: A.SimpleCommand, value_fn: Callable[[], str], slow: Code) -> Code:
        """`name[sub]=value` or `name[sub]+=value` alone: what assignment() and Executor.assign_one
        do (as scalar() for a name), the key of the subscript as the parser read it bound now
        (string_fn: Shell.subscript_key expands it so). An existing array without attributes is
        stored by Variables.element_setter's closure; anything else (a new array, attributes, a
        nameref, readonly, a special name) goes through set_var, which reports what it refuses."""
        ex = self.ev.ex
        st = ex.state
        mode = st.run_mode  # (never another: the state's own, see runmode.py)
        sh = ex.sh
        procs = ex.pr.procsubs
        line = cmd.line
        a = cmd.assigns[0]
        name, sub, append, parsed = a.name, a.sub, a.append, a.subscript
        assert sub is not None
        va = ex.va
        key_fn: Callable[[], str] | None = None
        text_fn: Callable[[], str] | None = None
        if parsed is not None:  # (what subscript_key(sub, parsed) and expand_sub_text give)
            key_fn = partial(str, sub) if parsed.key is None else string_fn(ex.expander, parsed.key)
            if parsed.arith is not None:
                text_fn = join_fn(ex.expander, parsed.arith.parts, True)  # (Expander.heredoc)
        # (Variables.element_setter: _set_plain_element with everything but the value bound)
        plain = (
            va.element_setter(name, sub, append, parsed, key_fn, text_fn)
            if sub and name not in NOT_PLAIN
            else None
        )
        set_var = va.set_var
        failed = ex.assign_failed
        assigned = ex.assigned

        def element() -> int:
            if not mode.plain and _assignment_changed(st):
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
            mark = len(procs) if procs else 0
            try:
                value = value_fn()
                if plain is None or not plain(value):
                    set_var(name, value, sub=sub, append=append, parsed=parsed)
            except (ExpansionError, ArithError, AssignError) as e:
                return failed(e)
            if ex.last_cmdsub_status or (procs and len(procs) > mark):
                return assigned(mark)  # (a status to give, process substitutions to close)
            st.last_arg = ""  # (as assigned(): `$_` emptied, status 0)
            st.last_status = 0
            st.pipestatus = _ZERO
            return 0

        return element

    def arith_cmd(self, node: A.ArithCmd, fuse: bool = True) -> Code:
        """`(( expr ))`, as Evaluator._exec_arith and execute() run it, while no trap or
        `set -x` asks for more (once its text is generated, as one function: arithcmd.py, unless
        not `fuse`: a generated loop writes it in and keeps the closure for its slow way)."""
        ev = self.ev
        st = ev.state
        mode = st.run_mode
        sh = ev.sh
        procs = ev.pr.procsubs
        failed = ev.arith_cmd_failed
        errexit_check = ev.errexit_check
        slow = partial(ev.execute, node)
        # how the text is evaluated, chosen once (Expander.arith chooses it at each use): nothing to
        # expand first, its compiled function looked up directly; else its template or text
        text = literal_arith(node.word)
        value_fn = sh.arith_fn(text) if text is not None else arith_fn(ev.expander, node.word)
        line = node.line
        header = f"(({node.text}))"
        # a literal text's generated function, once the cache holds one (arith.generated_of),
        # called here with the shared evaluator as value_fn would call it, two frames fewer;
        # looked for while `looks` lasts (a text generated after that keeps value_fn's way)
        aev = sh._arith  # (the shared evaluator, as arith_eval uses it)
        hot: Callable[[ArithEvaluator], int] | None = None
        looks = 0 if text is not None else _HOT_LOOKS

        def arith_cmd() -> int:
            # what (( )) does around its test (as Evaluator._exec_arith and execute()), its
            # evaluation in place: two frames fewer in the loops' commonest command (-12% of a
            # `for ((;;)) { (( x = ... )); }` step); cond_cmd has the same shape
            nonlocal hot, looks
            if not mode.plain and _traced(st):
                return slow()
            st.line = line
            if not mode.untraced and st.traps and not st.in_trap:  # (an ERR or EXIT trap reads it)
                sh.current_command = header
            mark = len(procs) if procs else 0
            try:
                try:
                    sh.arith_cmd = "((: "
                    try:
                        if hot is not None and not aev.depth:  # (a nested one: arith_eval's own)
                            status = 0 if hot(aev) != 0 else 1
                        else:
                            status = 0 if value_fn() != 0 else 1
                            if looks < _HOT_LOOKS:
                                looks += 1
                                hot = generated_of(text)  # type: ignore[arg-type]  # (looks: a text)
                    finally:
                        sh.arith_cmd = ""
                except (ArithError, ExpansionError) as e:
                    status = failed(e)
                else:
                    st.last_status = status
                    if status and not st.errexit_ignored:  # (errexit_check's own first test)
                        errexit_check(status)
            finally:
                if procs and len(procs) > mark:
                    ev.pr.finish_procsubs(mark)
            st.pipestatus = ONE_STATUS[status]  # (0-2, or an expansion error's status)
            return status

        if text is not None and len(text) <= GEN_LONGEST:
            if generated_of(text) is None:
                if self.cold is not None:  # (compiled again once it is: compiled())
                    self.cold.append(text)
            elif fuse:
                from . import arithcmd, funcgen  # (only once a text is hot)

                return arithcmd.fused(self, text, arith_cmd, line, funcgen.GEN_CHARS) or arith_cmd
        return arith_cmd

    def cond_cmd(self, node: A.CondCmd) -> Code:
        """`[[ expr ]]`, as Evaluator._exec_cond and execute() run it, while no trap is set."""
        from .conds import cond_code, eval_cond  # (not at start-up: see Evaluator._exec_cond)

        ev = self.ev
        st = ev.state
        mode = st.run_mode
        sh = ev.sh
        opts = st.opts
        procs = ev.pr.procsubs
        failed = ev.cond_failed
        errexit_check = ev.errexit_check
        slow = partial(ev.execute, node)
        expr = node.expr
        code = cond_code(sh, expr)
        line = node.line

        def cond_cmd() -> int:
            # what arith_cmd does around its test (as Evaluator._exec_cond and execute())
            if not mode.plain and (mode.debug or opts["noexec"]):  # (`set -x`: eval_cond traces)
                return slow()
            st.line = line
            if not st.in_trap:
                sh.current_command = node
            mark = len(procs) if procs else 0
            try:
                try:
                    ok = code() if mode.plain or not opts["xtrace"] else eval_cond(sh, expr)
                except (ArithError, ExpansionError) as e:
                    status = failed(e)
                else:
                    status = 0 if ok is True else (2 if ok is None else 1)
                    st.last_status = status
                    if status and not st.errexit_ignored:  # (errexit_check's own first test)
                        errexit_check(status)
            finally:
                if procs and len(procs) > mark:
                    ev.pr.finish_procsubs(mark)
            st.pipestatus = ONE_STATUS[status]  # (0-2, or an expansion error's status)
            return status

        return cond_cmd

    def and_or(self, node: A.AndOr) -> Code:
        """`a && b || c`, as Evaluator._exec_andor: all but the last part run with `set -e`
        suspended."""
        ev = self.ev
        st = ev.state
        first = self.piece(node.first)
        rest = tuple((op == "&&", self.piece(cmd)) for op, cmd in node.rest)
        last = len(rest) - 1
        if not last:  # (the commonest shape, `(( x )) && c=1`: and_or's work in _guarded's frame)
            on_success, second = rest[0]
            return _guarded(ev, first, second, on_success)

        def and_or() -> int:
            st.errexit_ignored += 1
            try:
                status = first()
            finally:
                st.errexit_ignored -= 1
            for i, (on_success, code) in enumerate(rest):
                if status < 0:
                    return status  # a `return` (returned)
                if on_success != (status == 0):
                    continue
                if i == last:
                    status = code()
                else:
                    st.errexit_ignored += 1
                    try:
                        status = code()
                    finally:
                        st.errexit_ignored -= 1
            if status < 0:
                return status
            st.last_status = status
            return status

        return _guarded(ev, and_or)

    def if_cmd(self, node: A.If) -> Code:
        """`if`, as Evaluator._exec_if: each condition with `set -e` suspended."""
        ev = self.ev
        st = ev.state
        clauses = tuple((self.inner(c.cond), self.inner(c.body)) for c in node.clauses)
        orelse = self.inner(node.else_body) if node.else_body is not None else None
        procs = ev.pr.procsubs
        finish = ev.pr.finish_procsubs
        failed = ev.expansion_failed

        def if_cmd() -> int:
            mark = len(procs) if procs else 0  # (_guarded's work, in place: a frame fewer per `if`)
            try:
                for cond, body in clauses:
                    st.errexit_ignored += 1
                    try:
                        status = cond()
                    finally:
                        st.errexit_ignored -= 1
                    if status == 0:
                        return body()
                    if status < 0:
                        return status  # a `return` (returned)
                if orelse is not None:
                    return orelse()
                st.last_status = 0
                return 0
            except ExpansionError as e:
                return failed(e)
            finally:
                if procs and len(procs) > mark:
                    finish(mark)

        return if_cmd

    def simple(self, cmd: A.SimpleCommand) -> Code:
        """A simple command. The commonest shape (words, no assignment, no redirection) runs
        here while nothing that changes how a command runs is on (set -n/-k/-x, traps, a policy,
        a signal from another shell of the run, exec(args=...)): the prologue of exec_simple
        without its tests for what this command does not have. Anything else, exec_simple."""
        ex = self.ev.ex
        plan = self.plan(cmd)
        slow = partial(ex.exec_simple, cmd, plan)
        argv_fn = plan.argv
        if plan.value is not None and not cmd.redirs and cmd.assigns[0].array is None:
            if cmd.assigns[0].sub is None:
                return self.scalar(cmd, plan.value, slow)
            return self.element(cmd, plan.value, slow)
        if compilable(cmd):
            return array_assign(self, cmd, slow)  # `a+=(x "$k")`: interp/arrayassign.py
        if not cmd.words and not cmd.redirs:
            begin_argv = ex.expander.begin_argv
            no_words = ex.no_words

            def assignments_only(mark: int) -> int:
                begin_argv()  # (max_argument_bytes counts each command's words afresh: exec_simple's expand_argv)
                return no_words(cmd, mark)

            return self.assignment(cmd, assignments_only, slow)
        if plan.name == "read" and argv_fn is not None:
            # (fastread.py and read's field splitter: imported by a body that reads, not by every loop)
            from .fastread import herestring_read, read_code

            if code := read_code(self, cmd, argv_fn, slow, _literal_word):
                return code  # `while IFS= read -r line`, `while IFS=, read -r a b c`, `read -ra f`
            if code := herestring_read(self, cmd, slow, _literal_word):
                return code  # `IFS=, read -r a b <<< "$line"`, `read -ra f <<< "$l"`
        if cmd.assigns or argv_fn is None or (cmd.redirs and plan.name in (None, "return", "local", "exec")):
            return slow
        if plan.name == "return":
            return self.return_cmd(cmd, argv_fn, slow)
        if plan.name == "local" and (local := self.local_cmd(cmd, slow)) is not None:
            return local
        if plan.name is not None and plan.name != "exec" and is_builtin(plan.name):
            # (without the dispatch)
            return plain_builtin(self, cmd, plan.name, argv_fn, slow, _literal_word)
        if cmd.redirs:
            return slow
        st = ex.state
        mode = st.run_mode  # (never another: the state's own, see runmode.py)
        sh = ex.sh
        procs = ex.pr.procsubs
        run_argv = ex.run_argv
        line = cmd.line
        # a literal name may find a function as it runs (looked up at every call): steps._call.
        # A builtin's name has gone to plain_builtin above, but for `exec`, which run_argv runs (it
        # finds a function shadowing it as well: the lookup would only slow it down); a name not
        # literal goes to run_argv's dispatch too
        if plan.name is not None and not is_builtin(plan.name):
            key, values = self._call_shape(cmd, plan.name, argv_fn)
            return self._step(key, slow, values)

        def simple() -> int:
            rt = sh.rt
            gates = rt.gates
            if not mode.plain and (mode.beyond_gates() or (gates is not None and gates.policy is not None)):
                return slow()  # (gates without a policy, as an audit's, leave it here: run_argv asks them)
            st.line = line
            if not st.in_trap:  # (as exec_simple: a trap's commands leave $BASH_COMMAND alone)
                sh.current_command = cmd
            budget = rt.budget  # (Budget.command inline)
            budget.commands += 1
            if budget.commands >= budget.command_stop:
                budget.command_slow()
            mark = len(procs)
            ex.last_cmdsub_status = None
            try:
                argv = argv_fn()
            except (ExpansionError, ArithError, AssignError) as e:
                return ex.words_failed(e, mark)
            if not argv:
                return ex.no_words(cmd, mark)
            return run_argv(cmd, argv, None, None, mark)

        return simple

    def _call_shape(
        self, cmd: A.SimpleCommand, name: str, argv_fn: Callable[[], list[str]]
    ) -> tuple[tuple[object, ...], dict[str, object]]:
        """The step (steps._call) of a simple command of words alone whose name is literal and no
        builtin's, with its holes' values: the site's memory of the function it last called (its
        body's code and line: calls._body_code) and `argv_fn`, or, for a name and one "$x", what
        _argv_fn's argv_scalar reads, read in the step's own text."""
        expander = self.ev.expander
        values: dict[str, object] = {"line": cmd.line, "cmd": cmd, "name": name, "ev": self.ev}
        values["site"] = [None, None, 0]
        words = cmd.words
        if (
            len(words) == 2
            and len(words[1].parts) == 1
            and type(dq0 := words[1].parts[0]) is A.DQ
            and len(dq0.parts) == 1
            and type(param := dq0.parts[0]) is A.Param
            and (rest := dq_scalar_rest(expander, param)) is not None
        ):
            # (a name not special, NOT_PLAIN, bound in the innermost scope and no reference is the
            # variable lookup() gives: the store's scopes are its own for good)
            scopes = self.ev.ex.state.vars.scopes
            values.update(var=param.name, lookup=expander.env.lookup, rest=rest, scopes=scopes)
            return ("call", steps.ARGV_QUOTED, param.name not in NOT_PLAIN), values
        values["argv"] = argv_fn
        return ("call", steps.ARGV_FN, False), values

    def return_cmd(self, cmd: A.SimpleCommand, argv_fn: Callable[[], list[str]], slow: Code) -> Code:
        """`return [n]` (words only): what simple() and the builtin do, ending with the returned
        status (returned) where the builtin would raise. Anything the builtin does more (an
        error, `--help`, outside a function, in a trap, a function or disabled builtin of the
        name) goes to it through run_argv, which raises."""
        ex = self.ev.ex
        st = ex.state
        mode = st.run_mode  # (never another: the state's own, see runmode.py)
        sh = ex.sh
        procs = ex.pr.procsubs
        run_argv = ex.run_argv
        line = cmd.line
        self.returns += 1

        def general(mark: int) -> int:
            # (after the command's prologue: the words expanded, and the builtin's plain case
            # decided from them)
            try:
                argv = argv_fn()
            except (ExpansionError, ArithError, AssignError) as e:
                return ex.words_failed(e, mark)
            n = _return_status(st, argv)
            if n is None:
                return run_argv(cmd, argv, None, None, mark)
            # (as run_argv when the builtin raises: $_, $? and PIPESTATUS stay; a small argv
            # was never held)
            if procs and len(procs) > mark:
                ex.pr.finish_procsubs(mark)
            return returned(n)

        # `return` or `return N` with literal words: the status decided now (-1: $?), so a run
        # makes no argv and parses no number (_return_status's plain case, the same checks): a
        # step (steps.py), which a generated body writes out inline
        texts = [_literal_word(w) for w in cmd.words]
        fixed = None if None in texts or len(texts) > 2 else _return_status_of(texts)  # type: ignore[arg-type]
        if fixed is not None:
            values: dict[str, object] = {
                "line": line,
                "cmd": cmd,
                "nwords": len(texts),
                "returns": returned(fixed) if fixed >= 0 else 0,
                "general": general,
            }
            return self._step(("return", fixed < 0), slow, values)

        def return_cmd() -> int:
            if not mode.plain:  # (and _begin, inline as in simple() and local_cmd)
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
            return general(len(procs) if procs else 0)

        return return_cmd

    def local_cmd(self, cmd: A.SimpleCommand, slow: Code) -> Code | None:
        """`local` with words that are plain names or `name=value` (None: other words): what
        simple() and the builtin do, without making the AssignArg words, when every name is a new
        plain local (VarStore.declare_locals); else the words go to the builtin (run_argv)."""
        words: list[tuple[str, Callable[[], str] | None]] = []
        for w in cmd.words[1:]:
            parts = w.parts
            if len(parts) == 1 and type(parts[0]) is A.AssignWord:
                a = parts[0].assign
                if a.array is not None or a.sub is not None or a.append:
                    return None
                words.append(
                    (a.name, value_fn(self.ev.expander, a.value) if a.value is not None else _no_text)
                )
                continue
            text = _literal_word(w)
            if not text or text[0] in "-+" or "=" in text or "[" in text:
                return None  # (options, or words the builtin reads as it runs)
            words.append((text, None))
        if not words:
            return None
        names = [name for name, _ in words]
        # decided from the words as written: each name valid, not special, given once (else the
        # store checks them at run time, as the builtin's words)
        checked = len(set(names)) == len(names) and all(
            valid_name(name) and name not in SPECIAL_ASSIGN and name not in NOASSIGN for name in names
        )
        if len(words) == 1 and checked:
            return self._local_one(cmd, slow, words[0][0], words[0][1])
        return self._local_many(cmd, slow, tuple(names), tuple(fn for _, fn in words), checked)

    def _local_one(
        self, cmd: A.SimpleCommand, slow: Code, name: str, value_fn: Callable[[], str] | None
    ) -> Code:
        """local_cmd of one valid name, not special (`local v=$1`, `local v`): the same steps
        without the lists, made by VarStore.declare_local (steps._local_one)."""
        part = cmd.words[1].parts[0]  # (the value's word: `$1` is read in place)
        word = part.assign.value if type(part) is A.AssignWord else None  # type: ignore[union-attr]
        how, index = steps.value_how(word)
        if how is None and value_fn is not None:
            how = steps.VALUE_FN  # (`local v=`: the empty text)
        values = {"line": cmd.line, "cmd": cmd, "name": name, "fn": value_fn, "index": index}
        values["ref"] = steps.plain_name(word)
        values["word"] = word
        self.arith_cold(word)
        return self._step(("local", how), slow, values)

    def _local_many(
        self,
        cmd: A.SimpleCommand,
        slow: Code,
        names: tuple[str, ...],
        value_fns: tuple[Callable[[], str] | None, ...],
        checked: bool,
    ) -> Code:
        """local_cmd of more than one word, or of one name the store checks as it runs: every
        value expanded before any name is made, the names made by VarStore.declare_each when
        `checked` (valid, distinct and not special as written: `local n=$1 left`, `local x y`),
        else by declare_locals, which checks them (steps._local_many)."""
        values: dict[str, object] = {"line": cmd.line, "cmd": cmd, "names": names, "last": names[-1]}
        values["nones"] = (None,) * len(names)
        hows: list[str | None] = []
        for k, (w, fn) in enumerate(zip(cmd.words[1:], value_fns)):  # noqa: B905  (one per word)
            part = w.parts[0]
            word = part.assign.value if type(part) is A.AssignWord else None  # type: ignore[union-attr]
            how, index = steps.value_how(word)
            if how is None and fn is not None:
                how = steps.VALUE_FN
            hows.append(how)
            values[f"fn{k}"] = fn
            values[f"index{k}"] = index
            values[f"name{k}"] = names[k]
            values[f"ref{k}"] = steps.plain_name(word)
            values[f"word{k}"] = word
            self.arith_cold(word)
        return self._step(("locals", checked, *hows), slow, values)

    def arith_cold(self, word: A.Word | None) -> None:
        """An assignment's value or a `case` subject that is one `$(( ))` (steps.one_arith), which
        generated code writes in once its text or template is generated (steps.VALUE_ARITH,
        casegen): noted cold while it is not, so that the list is compiled, and so generated,
        again once it is (compiled())."""
        sub = steps.one_arith(word)
        if sub is None or self.cold is None:
            return
        text = literal_arith(sub.word)
        if text is not None:
            if len(text) <= GEN_LONGEST and generated_of(text) is None:
                self.cold.append(text)
            return
        made = word_template(self.ev.expander, sub.word)
        if made is not None and len(sub.word.text) <= GEN_LONGEST and not made[0].generated():
            self.cold.append(made[0])

    def _step(self, key: tuple[object, ...], slow: Code, values: dict[str, object]) -> Code:
        """The closure of the step `key` names (steps.py), with its holes' `values`; remembered with
        them for funcgen, which writes the same step out inline."""
        code = steps.closure(self.ev.ex, key, slow, values)
        self.shapes[code] = (key, values)
        return code

    def plan(self, cmd: A.SimpleCommand) -> Plan:
        words = cmd.words
        argv = self._argv_fn(words) if words else None
        name = _literal_word(words[0]) if words else None
        value = None
        if not words and len(cmd.assigns) == 1 and cmd.assigns[0].value is not None:
            value = value_fn(self.ev.expander, cmd.assigns[0].value)
        return Plan(argv, name, value)

    def _string_fn(self, word: A.Word) -> Callable[[], str]:
        """A word expanded as one string (a `case` subject): its shape decided now
        (expand/stringfn.py; an assignment's value is value_fn's)."""
        return string_fn(self.ev.expander, word)

    def _argv_fn(self, words: tuple[A.Word, ...]) -> Callable[[], list[str]]:
        """The command's words expanded as the walker's expand_argv does, with what it decides
        from the words alone (literal text, array references, assignment words, which entry
        point of the expander) decided now."""
        ex = self.ev.ex
        expander = self.ev.expander
        refs = arrayref_args(words)
        steps: list[str | partial[list[str]] | Callable[[list[str]], None]] = []
        for i, w in enumerate(words):
            if refs and i >= refs and is_array_ref_text(w.text):
                steps.append(_arrayref_step(expander.word, w))
            elif (text := _literal_word(w)) is not None:
                steps.append(text)
            elif len(w.parts) == 1 and type(w.parts[0]) is A.AssignWord:
                steps.append(_assign_step(ex, w.parts[0].assign))
            elif (
                len(w.parts) == 1
                and type(p0 := w.parts[0]) is A.DQ
                and len(p0.parts) == 1
                and type(p0.parts[0]) is A.Param
            ):
                steps.append(dq_param_step(expander, p0.parts[0]))  # "$x", "${s:4:6}"
            elif len(w.parts) == 1 and type(p0 := w.parts[0]) is A.Param:
                steps.append(unquoted_param_step(expander, p0))  # $x, $1, ${x}, ${x%%,*}
            elif len(w.parts) == 1 and type(p0 := w.parts[0]) is A.ArithSub:
                steps.append(arith_step(expander, p0, False))  # $((n - 1))
            elif (
                len(w.parts) == 1
                and type(p0 := w.parts[0]) is A.DQ
                and len(p0.parts) == 1
                and type(p1 := p0.parts[0]) is A.ArithSub
            ):
                steps.append(arith_step(expander, p1, True))  # "$((n - 1))"
            elif (
                len(w.parts) == 1
                and type(p0 := w.parts[0]) is A.DQ
                and (dq := dq_word_step(expander, p0.parts))
            ):
                steps.append(dq)  # "file$k.part", "len += ${#t}"
            else:
                steps.append(partial(expander.word, w))
        sh = ex.sh
        consts = tuple(s for s in steps if type(s) is str)
        if len(consts) == len(steps):

            def literal_argv() -> list[str]:
                expander.begin_argv()
                out = list(consts)
                if len(out) > sh.rt.limits.max_arguments:
                    expander.end_argv(out)
                return out

            return literal_argv
        plan = tuple(steps)
        if (
            len(plan) == 2
            and type(plan[0]) is str
            and not (refs and is_array_ref_text(words[1].text))
            and len(words[1].parts) == 1
            and type(dq0 := words[1].parts[0]) is A.DQ
            and len(dq0.parts) == 1
            and type(param := dq0.parts[0]) is A.Param
            and (rest := dq_scalar_rest(expander, param)) is not None
        ):
            # a name and "$x" (`f "$k"`, `echo "$line"`): the unrolled loop below with the
            # dq_param_step's "$x" inline, its plain string read in this frame
            head: str = plan[0]  # type: ignore[assignment]
            lookup = expander.env.lookup
            name = param.name
            # a name not special (NOT_PLAIN: never computed as read) bound in the innermost scope
            # and no reference is the variable lookup() gives: found here, without its call
            # (the store's scopes are its own for good, as the arithmetic evaluator holds them)
            scopes = ex.state.vars.scopes if name not in NOT_PLAIN else None

            def argv_scalar() -> list[str]:
                expander._arg_bytes = 0  # (Expander.begin_argv inline)
                if expander._held:
                    expander.give_back_fields()
                expander._at_empty = False
                if scopes is None or (var := scopes[-1].get(name)) is None or var.attrs & NAMEREF:
                    var = lookup(name)
                if (
                    var is not None
                    and type(var) is Var
                    and type(v := var.value) is str
                    and len(v) <= CHARGE_FROM
                ):
                    out = [head, v]
                else:
                    out = [head]
                    rest(var, out)
                if len(out) > sh.rt.limits.max_arguments:
                    expander.end_argv(out)
                return out

            return argv_scalar
        if (
            len(plan) == 2
            and type(plan[0]) is str
            and not (refs and is_array_ref_text(words[1].text))
            and len(words[1].parts) == 1
            and type(param := words[1].parts[0]) is A.Param
            and (unquoted_rest := unquoted_scalar_rest(expander, param)) is not None
        ):
            return _argv_unquoted(ex, plan[0], param.name, unquoted_rest)  # type: ignore[arg-type]
        if (
            len(plan) == 2
            and type(plan[0]) is str
            and not (refs and is_array_ref_text(words[1].text))
            and len(words[1].parts) == 1
            and type(arith := words[1].parts[0]) is A.ArithSub
        ):
            return _argv_arith(ex, plan[0], arith_text(expander, arith))  # type: ignore[arg-type]
        if (
            len(plan) == 2
            and type(plan[0]) is str
            and type(plan[1]) is not str
            and type(plan[1]) is not partial
        ):
            # a name and one expansion that adds its fields (`f "$k"`, `echo $x`, `g $((n-1))`):
            # the loop below, unrolled (its type tests decided now)
            first: str = plan[0]  # type: ignore[assignment]
            add: Callable[[list[str]], None] = plan[1]  # type: ignore[assignment]

            def argv_one() -> list[str]:
                expander._arg_bytes = 0  # (Expander.begin_argv inline)
                if expander._held:
                    expander.give_back_fields()
                out = [first]
                add(out)
                if len(out) > sh.rt.limits.max_arguments:
                    expander.end_argv(out)
                return out

            return argv_one

        def argv() -> list[str]:
            expander.begin_argv()
            out: list[str] = []
            for step in plan:
                t = type(step)
                if t is str:
                    out.append(step)  # type: ignore[arg-type]
                elif t is partial:
                    out.extend(step())  # type: ignore[operator,call-arg,arg-type]
                else:
                    step(out)  # type: ignore[operator]
            if len(out) > sh.rt.limits.max_arguments:
                expander.end_argv(out)
            return out

        return argv


def _argv_unquoted(
    ex: Executor, head: str, name: str, rest: Callable[[Var | None, list[str]], None]
) -> Callable[[], list[str]]:
    """A name and an unquoted `$x` (`f $k`, `g $n`): the unrolled argv of one word and one
    expansion with stringfn.unquoted_param_step's one-field case inline, `x` read from the
    innermost scope as argv_scalar reads it and IFS tested in this frame: a plain string that is
    not long, holds no default IFS character and nothing to glob is one word while IFS is the
    default; anything else (with the same lookup) unquoted_scalar_rest's way."""
    expander = ex.expander
    sh = ex.sh
    lookup = expander.env.lookup
    ifs = expander.env.ifs
    store = ex.state.vars
    scopes = store.scopes  # (the store's own for good, as argv_scalar holds them)
    names = store.local_names  # (one set for the store's life: VarStore.local_names)
    inner = name not in NOT_PLAIN  # (never computed as read: the innermost binding is lookup's)

    def argv_unquoted() -> list[str]:
        expander._arg_bytes = 0  # (Expander.begin_argv inline)
        if expander._held:
            expander.give_back_fields()
        if not inner or (var := scopes[-1].get(name)) is None or var.attrs & NAMEREF:
            var = lookup(name)
        if (
            var is not None
            and type(var) is Var
            and type(v := var.value) is str
            and v
            and len(v) <= CHARGE_FROM
            and (v.isalnum() or not (" " in v or "\t" in v or "\n" in v or maybe_glob(v)))
            and (
                # IFS is the default: unset, or the globals' plain " \t\n" where no function
                # scope binds it (Shell.ifs's answer then, without its call), else Shell.ifs
                (
                    (len(scopes) == 1 or "IFS" not in names)
                    and (
                        (f := scopes[0].get("IFS")) is None or (f.value == " \t\n" and not f.attrs & NAMEREF)
                    )
                )
                or ifs() == " \t\n"
            )
        ):
            out = [head, v]
        else:
            out = [head]
            rest(var, out)
        if len(out) > sh.rt.limits.max_arguments:
            expander.end_argv(out)
        return out

    return argv_unquoted


def _argv_arith(ex: Executor, head: str, text: Callable[[], str]) -> Callable[[], list[str]]:
    """A name and an unquoted $(( )) (`f $((n - 1))`): the unrolled argv of one word and one
    expansion with the number's one field added here while IFS is the default (tested as
    _argv_unquoted tests it), else Expander.arith_fields, which splits it by IFS."""
    expander = ex.expander
    sh = ex.sh
    ifs = expander.env.ifs
    fields = expander.arith_fields
    store = ex.state.vars
    scopes = store.scopes  # (the store's own for good)
    names = store.local_names  # (one set for the store's life)

    def argv_arith() -> list[str]:
        expander._arg_bytes = 0  # (Expander.begin_argv inline)
        if expander._held:
            expander.give_back_fields()
        t = text()
        if (
            (len(scopes) == 1 or "IFS" not in names)
            and ((f := scopes[0].get("IFS")) is None or (f.value == " \t\n" and not f.attrs & NAMEREF))
        ) or ifs() == " \t\n":
            out = [head, t]
        else:
            out = [head]
            fields(t, out)
        if len(out) > sh.rt.limits.max_arguments:
            expander.end_argv(out)
        return out

    return argv_arith


CaseTest = Callable[[str, bool, bool], object]
"""One pattern of a `case` item: whether it matches the subject, given nocasematch and extglob as
they are when the command runs; a pattern that must be expanded may raise the expansion's error."""


def case_tests(expander: Expander, node: A.Case) -> tuple[tuple[CaseTest, ...], ...]:
    """The tests of a `case` command's patterns, item by item (Evaluator._exec_case runs them).
    A plain word needs no expansion: `*` matches anything, text without pattern characters is
    compared as it is (unless nocasematch), other unquoted text is its own pattern; any other
    word is expanded into a pattern as the command runs."""
    return tuple(tuple(_case_test(expander, pat) for pat in item.patterns) for item in node.items)


def _case_test(expander: Expander, pat: A.Word) -> CaseTest:
    parts = pat.parts
    byte_locale = expander.env.locale_bytes  # (a non-ASCII subject in C/POSIX: Pattern.matches)
    if len(parts) == 1 and type(parts[0]) is A.Lit:
        text = parts[0].text
        if text == "*":
            return _any
        if not ("*" in text or "?" in text or "[" in text or "\\" in text or "(" in text):
            site = pattern_site(text)  # (made once per setting of nocasematch and extglob)

            def same(subject: str, nocase: bool, extglob: bool) -> object:
                if nocase:
                    return site(extglob, nocase).matches(subject, byte_locale)
                return subject == text

            return same

        return glob_test(text, byte_locale)
    pattern = expander.pattern
    if static_word(pat):  # (quoted text: its pattern is the same each time)
        at_empty = expander._at_empty  # (expanding it now must leave no trace)
        static = pattern_site(pattern(pat))
        expander._at_empty = at_empty

        def quoted(subject: str, nocase: bool, extglob: bool) -> object:
            return static(extglob, nocase).matches(subject, byte_locale)

        return quoted

    if len(parts) == 1 and type(p := parts[0]) is A.Param and _whole_value(p):
        # `$p`: its value is the pattern as it is (pattern() escapes only quoted text)
        value = expander._param_text_fn(p, False, True)
        varying = varying_site()

        def from_value(subject: str, nocase: bool, extglob: bool) -> object:
            return varying(value(), extglob, nocase).matches(subject, byte_locale)

        return from_value

    def expanded(subject: str, nocase: bool, extglob: bool) -> object:
        return compile_pattern(pattern(pat), extglob, nocase).matches(subject, byte_locale)

    return expanded


def _whole_value(p: A.Param) -> bool:
    """Whether an unquoted `p` expands to its value's text alone: no operator, subscript,
    length or indirection, and not the `$@`/`$*` that join many."""
    return p.op is None and p.sub is None and not p.prefix and not p.names_suffix and p.name not in ("@", "*")


def _any(subject: str, nocase: bool, extglob: bool) -> object:
    return True


def _literal_table(node: A.Case) -> tuple[dict[str, int] | None, int]:
    """For a `case` whose patterns are all plain text (no pattern character, no quoting, no
    expansion) or `*`: each text's first item (before any `*` item) and the item any other subject
    matches first (the first `*` item, or past the last item), which is the item the tests would
    find while nocasematch is off (`case $((k % 3)) in 0) .. 1) .. *)`); else None. The items
    after it run as they would (`;&`, `;;&`)."""
    table: dict[str, int] = {}
    for i, item in enumerate(node.items):
        for pat in item.patterns:
            parts = pat.parts
            if len(parts) != 1 or type(parts[0]) is not A.Lit:
                return None, 0
            text = parts[0].text  # type: ignore[union-attr]
            if text == "*":
                return table, i  # (a text of a later item is never reached by its test)
            if "*" in text or "?" in text or "[" in text or "\\" in text or "(" in text:
                return None, 0
            table.setdefault(text, i)
    return table, len(node.items)


def _tree_size(node: object) -> int:
    """About how much a syntax tree holds: its strings' lengths and _NODE_WEIGHT per node."""
    t = type(node)
    if t is str:
        return len(node)  # type: ignore[arg-type]
    if t is tuple or t is list:
        return sum(map(_tree_size, node))  # type: ignore[call-overload]
    slots = getattr(t, "__slots__", None)
    if not slots or t.__module__ != A.__name__:
        return 8
    return _NODE_WEIGHT + sum(_tree_size(getattr(node, name, None)) for name in slots)


def returned(status: int) -> int:
    """How a compiled piece says a `return` ended it with `status` (0-255): below zero, never a
    command's status; and back (its own inverse: call_function and _raising decode with it)."""
    return -1 - status


def _return_status(st: ShellState, argv: list[str]) -> int | None:
    """What `return` with these words returns, when it is the builtin's plain case: in a function
    (not a trap's text), the real builtin, no argument or one of decimal digits. None: let the
    builtin decide (its errors and messages, `--help`, `return` in a sourced file or a trap)."""
    if (
        not st.frames
        or st.in_trap
        or st.functions.get("return") is not None
        or "return" in st.disabled_builtins
    ):
        return None
    n = _return_status_of(argv)
    return None if n is None else st.last_status if n < 0 else n


def _return_status_of(argv: list[str]) -> int | None:
    """The status `return` with these words gives in its plain case (no argument: -1, for $?; one
    of decimal digits); None: the builtin decides."""
    if len(argv) == 1:
        return -1
    if len(argv) == 2:
        arg = argv[1]
        digits = arg[1:] if arg[:1] == "-" else arg
        if 0 < len(digits) <= 18 and digits.isascii() and digits.isdigit():
            return int(arg) & 0xFF
    return None


def _begin(ex: Executor, cmd: A.SimpleCommand, line: int) -> int:
    """exec_simple's prologue for a command with words only; the process substitutions open
    before it (closed as it ends)."""
    st = ex.state
    sh = ex.sh
    st.line = line
    if not st.in_trap:  # (a trap's commands leave $BASH_COMMAND alone)
        sh.current_command = cmd
    budget = sh.rt.budget  # (Budget.command inline, as the closures count: a frame fewer)
    budget.commands += 1
    if budget.commands >= budget.command_stop:
        budget.command_slow()
    ex.last_cmdsub_status = None
    procs = ex.pr.procsubs
    return len(procs) if procs else 0


def _sequence(codes: tuple[Code, ...]) -> Code:
    """Commands run one after the other, the last one's status the list's. Two or three (a
    function's or a loop's short body) without the loop: a tenth of a small call's opcodes."""
    if len(codes) == 2:
        first, second = codes

        def run_two() -> int:
            first()
            return second()

        return run_two
    if len(codes) == 3:
        first, second, third = codes

        def run_three() -> int:
            first()
            second()
            return third()

        return run_three

    def run_list() -> int:
        status = 0
        for code in codes:
            status = code()
        return status

    return run_list


def _sequence_returning(codes: tuple[Code, ...]) -> Code:
    """_sequence for commands a `return` may end: a status below zero (returned) ends the list
    and is handed up at once."""
    if len(codes) == 2:
        first, second = codes

        def run_two() -> int:
            status = first()
            return status if status < 0 else second()

        return run_two
    if len(codes) == 3:
        first, second, third = codes

        def run_three() -> int:
            status = first()
            if status < 0:
                return status  # a `return` (returned)
            status = second()
            return status if status < 0 else third()

        return run_three

    def run_list() -> int:
        status = 0
        for code in codes:
            status = code()
            if status < 0:
                return status  # a `return` (returned)
        return status

    return run_list


def _one_arith_text(word: A.Word | None) -> str | None:
    """The text of a word that is one `$(( ))` or `"$(( ))"` with nothing in it to expand (its
    value is the number's text either way), else None."""
    sub = steps.one_arith(word)
    return literal_arith(sub.word) if sub is not None else None


def _no_text() -> str:
    return ""  # (`local v=`)


def _raising(code: Code) -> Code:
    """A list that a `return` can end, for callers outside the compiler (the walker's handlers,
    loops): the returned status raises ReturnFromFunction, as the builtin does."""

    def raising() -> int:
        status = code()
        if status < 0:
            raise ReturnFromFunction(returned(status))
        return status

    return raising


def _guarded(ev: Evaluator, code: Code, second: Code | None = None, on_success: bool = True) -> Code:
    """What Evaluator.execute adds around a compound command: the process substitutions it opened
    close as it ends, and an expansion error escaping it is reported there. With `second`, the
    command is `code && second` (`code || second` when not `on_success`): and_or's work for two
    pieces done here, a frame and the loop over the rest fewer."""
    st = ev.state
    procs = ev.pr.procsubs
    finish = ev.pr.finish_procsubs
    failed = ev.expansion_failed

    def guarded() -> int:
        mark = len(procs) if procs else 0
        try:
            if second is None:
                return code()
            st.errexit_ignored += 1
            try:
                status = code()
            finally:
                st.errexit_ignored -= 1
            if status < 0:
                return status  # a `return` (returned)
            if on_success == (status == 0):
                status = second()
                if status < 0:
                    return status
            st.last_status = status
            return status
        except ExpansionError as e:
            return failed(e)
        finally:
            if procs and len(procs) > mark:
                finish(mark)

    return guarded


def _arrayref_step(word: Callable[[A.Word], list[str]], w: A.Word) -> Callable[[list[str]], None]:
    """An argument of `unset`/`declare`-like builtins shaped like `a[...]`: one field stays an
    array reference (bash's W_ARRAYREF)."""

    def arrayref(out: list[str]) -> None:
        fields = word(w)
        if len(fields) == 1:
            out.append(ArrayRefArg(fields[0]))
        else:
            out.extend(fields)

    return arrayref


def _assign_step(ex: Executor, a: A.Assign) -> Callable[[list[str]], None]:
    """A declaration builtin's `name=value` word: whether it is an associative assignment
    depends on the options before it (`declare -A`)."""

    def assign(out: list[str]) -> None:
        out.append(ex.expand_assign_arg(a, ex._declares_assoc(out)))

    return assign


def _literal_word(w: A.Word) -> str | None:
    """The word's one field when it is literal text that cannot glob (what expand_argv appends
    as it is), else None."""
    parts = w.parts
    if len(parts) == 1 and type(parts[0]) is A.Lit:
        text = parts[0].text
        if not ("*" in text or "?" in text or "[" in text or "(" in text) or plain_literal(text):
            return text
        return None
    return literal_text(parts)
