"""The evaluator: what runs. Compound commands, control flow, `set -e`,
functions, `case`, `[[ ]]` and `(( ))`."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..expand.arith import _COMPILED, ArithError
from ..expand.arithwords import literal_arith, nested_error
from ..expand.env import ArithAssignError, ExpansionError
from ..shvars.vars import NAMEREF, Scope
from ..switches import TREE_WALKER
from ..syntax import ast as A
from .builtin_table import SPECIAL
from .calls import call_function
from .control import AbortCommand, ErrexitTriggered, ExitShell, LoopControl
from .jobs import (
    SUBENV_COMSUB,
    SUBENV_PAREN,
    SUBENV_PROCSUB,
    child_exited,
    cleanup_dead_jobs,
    fresh_table,
    mark_nofork,
    release_ended,
    report_death,
    sole_command,
    subshell_tail,
)
from .loops import LoopFrame, item_store, loop_header, loop_words, run_select
from .redirects import redirs_may_assign
from .variables import AssignError, valid_ref_target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..expand.arith import Evaluator as ArithEvaluator
    from ..expand.arith import Fn
    from ..expand.words import Expander
    from ..limits import Budget
    from .compiler import Compiler
    from .executor import Executor
    from .redirects import Redirections
    from .shell import Shell
    from .state import ShellState
    from .variables import Variables


class Evaluator:
    """What runs: compound commands, control flow, `set -e`, functions, `case`, `[[ ]]`
    and `(( ))`. Simple commands go to the executor, pipelines and background jobs to the processes;
    loop variables to the variables; `{ ...; } > f` to the redirections."""

    __slots__ = ("sh", "state", "expander", "va", "rd", "ex", "pr", "_comp")
    # bodies that run again run compiled (compiler.py), unless SANDBASH_TREE_WALKER is set (None).
    _comp: Compiler | None

    def __init__(
        self, sh: Shell, state: ShellState, expander: Expander, va: Variables, rd: Redirections, ex: Executor
    ) -> None:
        self.sh = sh
        self.state = state
        self.expander = expander
        self.va = va
        self.rd = rd
        self.ex = ex
        self.pr = ex.pr

    @property
    def comp(self) -> Compiler | None:
        """The compiler, made by the first compound command or function call that asks (a script
        of simple commands does without its modules, ~0.5 ms of a start-up); None under
        SANDBASH_TREE_WALKER. (A property, not __getattr__: a class with __getattr__ gets no
        specialized attribute loads, and the evaluator's are read in every compiled closure.)"""
        try:
            return self._comp
        except AttributeError:
            from .compiler import Compiler

            comp = self._comp = None if TREE_WALKER else Compiler(self)
            return comp

    # ------------------------------------------------------------ dispatch

    def execute(self, node: A.Command) -> int:
        t = type(node)
        if t is A.SimpleCommand:
            return self.ex.exec_simple(node)  # type: ignore[arg-type]
        handler = _DISPATCH.get(t)
        if handler is None:
            raise TypeError(f"cannot execute {t.__name__}")
        if self.state.opts["noexec"]:
            return 0  # `set -n` in a running loop or function: bash runs no command, compound or not
        procs = self.pr.procsubs
        mark = len(procs)  # process substitutions of its words and redirections close as it ends
        try:
            status: int = handler(self, node)
        except ExpansionError as e:
            # a late expansion failure in a compound command (`select n` with an
            # integer n): reported like any other, never an escaping exception
            return self.expansion_failed(e)
        finally:
            if len(procs) > mark:
                self.pr.finish_procsubs(mark)
        if t in _OWN_PIPESTATUS:
            # these are commands of their own; if, loops, case, groups and function
            # definitions leave PIPESTATUS to the last pipeline they ran (bash)
            self.state.pipestatus = [status]
        return status

    def run_list(self, node: A.CommandList) -> int:
        st = self.state
        status = st.last_status
        for item in node.items:
            cmd = item.cmd
            if item.background:
                status = self.pr.run_background(cmd)
            elif type(cmd) is A.SimpleCommand:
                status = self.ex.exec_simple(cmd)
            else:
                status = self.execute(cmd)
        return status

    def run_body(self, node: A.CommandList) -> int:
        """Run a body of a compound command or function: compiled the second time it runs."""
        comp = self.comp
        if comp is not None:
            code = comp.code(node)
            if code is not None:
                return code()
        return self.run_list(node)

    def body_code(self, node: A.CommandList) -> Callable[[], int]:
        """A loop's body (or condition) as a callable, taken once as the loop starts: compiled
        at once (a loop body runs again by its nature), or the walker's."""
        comp = self.comp
        return comp.compiled(node) if comp is not None else partial(self.run_list, node)

    def body_again(self, node: A.CommandList, code: Callable[[], int]) -> Callable[[], int]:
        """A loop's body (or condition) asked for again at a check of the loop's guard: compiled
        again once a `(( ))` text in it has its generated function (Compiler.compiled), else
        the same."""
        comp = self.comp
        return comp.compiled(node) if comp is not None else code

    def _exec_list(self, node: A.CommandList) -> int:
        return self.run_list(node)

    def errexit_check(self, status: int) -> None:
        """After a command: the ERR trap and `set -e`, unless in a tested context."""
        st = self.state
        if status == 0 or st.errexit_ignored:
            return
        sh = self.sh
        stage = sh.pipe_stage
        inverted = sh.inverted
        if stage is not None or inverted is not None:
            here = (len(st.frames), sh.eval_depth, len(st.sources))
            if here in (stage, inverted):
                return
        handler = st.traps.get("ERR")
        # a function sees the ERR trap it set, or inherited (errtrace as it was called: calls.py)
        if (
            handler
            and "ERR" not in st.traps_running
            and (not st.frames or st.frames[-1] is st.err_trap_frame)
            and st.err_quiet != self.sh.rt.budget.commands
        ):
            self.sh.run_trap_text(handler, "ERR")
            st.last_status = status
        if st.opts["errexit"] and not st.builtin_ignoring_errexit:  # (`set -e` in a tested eval)
            raise ErrexitTriggered(status)

    def err_trap_new(self, before: str | None, status: int) -> None:
        """After a function, eval, source or trap that failed: bash runs the ERR trap for a simple
        command only when one was set as the command started (execute_cmd.c's was_error_trap), so
        one it set itself does not run for its own status (its commands that failed after, did)."""
        st = self.state
        if status and not before and st.traps.get("ERR"):
            st.err_quiet = self.sh.rt.budget.commands

    def _ignored(self, node: A.Command | A.CommandList) -> int:
        """Run with `set -e` suspended (conditions, non-final && || parts)."""
        st = self.state
        st.errexit_ignored += 1
        try:
            if isinstance(node, A.CommandList):
                return self.run_body(node)
            return self.execute(node)
        finally:
            st.errexit_ignored -= 1

    # ------------------------------------------------------------ lists

    def _exec_andor(self, node: A.AndOr) -> int:
        st = self.state
        status = self._ignored(node.first)
        rest = node.rest
        last = len(rest) - 1
        for i, (op, cmd) in enumerate(rest):
            if (op == "&&") != (status == 0):
                continue
            if i == last:
                status = self.execute(cmd)
            else:
                status = self._ignored(cmd)
        st.last_status = status
        return status

    # ------------------------------------------------------------ compound commands

    def _exec_group(self, node: A.Group) -> int:
        return self.run_body(node.body)

    def _exec_subshell(self, node: A.Subshell) -> int:
        status, child = self._run_subshell(node)
        if child.killed_by:
            self._subshell_died(child, node)
        return self._subshell_done(child, status)

    def _run_subshell(
        self, node: A.Subshell, redirs: tuple[A.Redir, ...] = (), stdin: bool = False
    ) -> tuple[int, Shell]:
        """Run `( node )` in a forked shell; `redirs`: its redirections, applied in that shell (bash
        applies them in the child: what they assign stays there); `stdin`: one of them is its input."""
        self.state.line = node.line
        if "ERR" in self.state.traps and not self.state.in_trap:
            self.sh.current_command = node  # (bash: $BASH_COMMAND is `( ... )` when ERR is trapped)
        child = self.sh.fork()
        fresh_table(child)
        child.lone, self.sh.pending_lone = self.sh.pending_lone, None  # (`time ( ... )`)
        child.subenv = SUBENV_PAREN
        if child.lone is None:
            mark_nofork(child, *subshell_tail(node.body))
        child.pending_args, self.sh.pending_args = (
            self.sh.pending_args,
            None,
        )  # exec(args=...): its first command
        if redirs:
            # (an error there ends the child as one at this shell's level would: the 127 of an
            # unbound variable at the top of bash -c; $BASH_SUBSHELL already reads the child's)
            cst = child.state
            level, base = cst.subshell, cst.subshell_base
            cst.subshell, cst.subshell_base = self.state.subshell, base + level - self.state.subshell
            try:
                undo = child.rd.apply_redirects(redirs, forked=True)
            finally:
                cst.subshell, cst.subshell_base = level, base
            if undo is None:
                child_exited(self.sh)
                return child.rd.failure, child
            child.state.stdin_redirected += stdin
            try:
                status = child.pr.run_subshell_body(node.body)
            finally:
                child.rd.restore_redirects(undo)
        else:
            status = child.pr.run_subshell_body(node.body)
        child_exited(self.sh)
        return status, child

    def _subshell_done(self, child: Shell, status: int) -> int:
        release_ended(child)
        self.state.last_status = status
        self.errexit_check(status)
        return status

    def _subshell_died(self, child: Shell, node: A.Subshell | A.Redirected) -> None:
        """The `( )` `node` (with its redirections, once they are undone) died of a signal: its
        shell reports it, unless it is a `$( )`'s, or `node` is the whole of a `( )` subshell,
        which bash runs as this process (jobs.sole_command): then this subshell died of it."""
        sh = self.sh
        st = self.state
        timed = child.lone is not None and child.lone[0]  # (a timed `( )` is forked: bash's test)
        # (a `$( )` or `<( )` forks its `( )`: bash runs a `( )` in place only in a `( )`,
        # execute_in_subshell's CMD_NO_FORK for a user subshell)
        if (
            st.subshell
            and "EXIT" not in st.traps
            and not timed
            and not sh.subenv & (SUBENV_COMSUB | SUBENV_PROCSUB)
            and sole_command(sh.subshell_body) is node
        ):
            sh.killed_by = child.killed_by
        elif not sh.subst_depth:
            from .executor import unparse_command  # (a death by a signal: rare)

            # (bash reports it at the line of the enclosing context: see ShellState.ctx_line)
            st.line = st.ctx_line or node.line
            text = unparse_command(node)
            if child.lone is not None:  # (bash's text of the command has the pipeline's `time`, `!`)
                text = child.lone[1] + text
            report_death(sh, child.killed_by, child.state.bashpid, text)

    def _exec_if(self, node: A.If) -> int:
        st = self.state
        for clause in node.clauses:
            if self._ignored(clause.cond) == 0:
                return self.run_body(clause.body)
        if node.else_body is not None:
            return self.run_body(node.else_body)
        st.last_status = 0
        return 0

    def loop_frame(self, held: tuple[int, Budget | None] = (0, None)) -> LoopFrame:
        rt = self.sh.rt
        return LoopFrame(self.state, rt.budget, rt.limits.max_loop_iterations, held)

    def _exec_while(self, node: A.While) -> int:
        st = self.state
        status = 0
        run_cond = self.body_code(node.cond)
        run_body = self.body_code(node.body)
        until = node.until
        rt = self.sh.rt
        # once its `(( ))` texts are generated, the rest of the loop is one generated function
        # (loopgen.py), handed over at a check
        comp = self.comp
        handed = False
        with self.loop_frame() as loop:
            n = 0  # (the step count: see LoopFrame)
            stop = loop.stop
            try:
                while True:
                    n += 1
                    if n >= stop:
                        stop = loop.check(n)
                        run_cond = self.body_again(node.cond, run_cond)
                        run_body = self.body_again(node.body, run_body)
                        if (
                            comp is not None
                            and (fused := comp.while_loop(node, n)) is not None
                            and not self.sh._arith.depth  # (as _arith_for: no nested evaluation)
                        ):
                            handed = True  # (it counts the steps from here: loop.count)
                            status = fused(loop, n - 1, stop, run_cond, run_body, status)
                            if status >= 0:
                                break
                            # handed back at a check (loopgen.renewal): on from there, made again
                            # at the next
                            handed = False
                            n, stop, status = loop.count - 1, loop.stop, -1 - status
                            continue
                    st.errexit_ignored += 1  # (what _ignored does)
                    try:
                        cond = run_cond()
                    except LoopControl as e:
                        ends, status = loop.tested(e, until, status)
                        if ends:
                            break
                        continue
                    finally:
                        st.errexit_ignored -= 1
                        if rt.reap:  # (the jobs told about, after each test: bash's REAP)
                            cleanup_dead_jobs(self.sh)
                    if (cond == 0) == until:
                        break
                    try:
                        status = run_body()
                    except LoopControl as e:
                        status = loop.caught(e)
                        if e.breaks:
                            break
            finally:
                if not handed:
                    loop.count = n
        st.last_status = status
        return status

    def _exec_for(self, node: A.For) -> int:
        st = self.state
        if not _is_name(node.var):  # (bash checks the name before it expands the words)
            return self._bad_loop_name(node, fatal=bool(st.opts["posix"]))
        items = loop_words(self, node)
        if isinstance(items, int):
            return items
        held = self.expander.take_fields()  # (the list lives through the loop: LoopFrame)
        status = 0
        run_body = self.body_code(node.body)
        header = loop_header("for", node)  # (the DEBUG trap's $BASH_COMMAND and the trace)
        name = node.var
        mode = st.run_mode
        # an existing plain variable takes each word without set_var's tests (store_plain: not a
        # nameref, no attribute but -x, set -a off); any other the general way below
        rt = self.sh.rt
        store_item = item_store(st, rt, self.va, name) if items else None  # (none: no lookups made)
        with self.loop_frame(held) as loop:
            n = 0  # (the step count: see LoopFrame)
            stop = loop.stop
            try:
                for item in items:
                    n += 1
                    if n >= stop:
                        stop = loop.check(n)
                        run_body = self.body_again(node.body, run_body)
                    if not mode.untraced:  # (per step: the body may turn `set -x` or a trap on or off)
                        st.line = node.line  # (each step's trace and trap are the `for` line's)
                        if st.opts["xtrace"]:
                            self.ex.xtrace_line(header)
                        # (after the trace, as bash; any trap: $BASH_COMMAND names the step)
                        if st.traps and (skipped := self.ex.debug_trap(header)):
                            status = skipped  # (extdebug skips the item: the trap's status is
                            continue  # the loop's until a body runs, bash's execute_for_command)
                    try:
                        if store_item is not None and store_item(item):
                            pass
                        elif (ref := st.vars.find(name)) is not None and ref.attrs & NAMEREF:
                            if not valid_ref_target(item):
                                raise AssignError(f"`{item}': not a valid identifier")
                            ref.value = item  # `for r in a b` with a nameref r points it at each name
                        else:
                            self.va.set_var(name, item)
                    except AssignError as e:
                        self.sh.error(e.message)
                        if st.opts["posix"]:
                            raise ExitShell(1) from None  # (a fatal error in POSIX mode, as in bash)
                        status = 1
                        break
                    except ExpansionError as e:  # `for n in ...` with an integer n
                        return self.expansion_failed(e)
                    try:
                        status = run_body()
                    except LoopControl as e:
                        status = loop.caught(e)
                        if e.breaks:
                            break
                    finally:
                        if rt.reap:  # (the jobs told about, after each step: bash's REAP)
                            cleanup_dead_jobs(self.sh)
            finally:
                loop.count = n
        st.last_status = status
        return status

    def _arith_or_error(self, word: A.Word | None, default: int = 1) -> int | None:
        # a part of `for ((;;))`: expanded, traced, then the DEBUG trap (bash's order); the trace
        # and $BASH_COMMAND show the expanded text (`(( k < 2 ))` for `k < ${#a[@]}`)
        text = None if word is None else literal_arith(word)
        if word is not None and text is None:
            try:
                text = self.expander.arith_text(word)
            except (ArithError, ArithAssignError) as e:
                self._arith_part_failed(nested_error(e))
                return None
            except ExpansionError as e:
                self._arith_part_failed(e)
                return None
        if self.state.opts["xtrace"]:  # (bash keeps trailing blanks)
            self.ex.xtrace_line(f"(( {text.lstrip() if text is not None else default} ))")
        if self.state.traps:  # (bash shows an empty part as `((1))`)
            sh = self.sh
            outer = sh.arith_cmd
            sh.arith_cmd = ""  # (the trap's own commands are not named `((: `: bash)
            try:
                skipped = self.ex.debug_trap(f"(({text.lstrip() if text is not None else default}))")
            finally:
                sh.arith_cmd = outer
            if skipped:
                return 0  # (extdebug skips the part: its value is 0, bash's eval_arith_for_expr)
        if text is None:
            return default
        try:
            return self.sh.arith_eval(text)
        except (ArithError, ExpansionError) as e:
            self._arith_part_failed(e)
            return None

    def _arith_value(self, word: A.Word | None, default: int = 1) -> Callable[[], int]:
        """A part of `for ((;;))` as a callable, chosen once (an empty part is `default`)."""
        if word is None:
            return lambda: default
        text = literal_arith(word)
        if text is not None:  # nothing to expand first
            return self.sh.arith_fn(text)
        return self.expander.arith_bound(word)

    def _arith_part_failed(self, e: ArithError | ExpansionError) -> None:
        """A part of `for ((;;))` failed: reported; the loop ends with status 1."""
        if isinstance(e, ArithError):
            self.sh.error(f"((: {e.render()}")
        elif isinstance(e, ArithAssignError):  # (a readonly store: bash's report_error)
            self.sh.report_error(e.message)
        else:
            self.expansion_failed(e)

    def _exec_arith_for(self, node: A.ArithFor) -> int:
        # a refused store in a part is reported in the name of `((` (`((: `a[1]': not a valid
        # identifier`), as in a (( )) command; the body runs with no name set
        sh = self.sh
        outer_cmd = sh.arith_cmd
        sh.arith_cmd = "((: "
        try:
            return self._arith_for(node)
        finally:
            sh.arith_cmd = outer_cmd

    def _arith_for(self, node: A.ArithFor) -> int:
        st = self.state
        sh = self.sh
        st.compound_line(line := node.line, sh.rt.budget.commands)
        if self._arith_or_error(node.init) is None:  # (an empty part is 1, and traced as such)
            st.last_status = 1
            return 1
        status = 0
        run_body = self.body_code(node.body)
        cond_value = self._arith_value(node.cond)
        step_value = self._arith_value(node.step)
        opts = st.opts
        mode = st.run_mode
        rt = sh.rt
        # a literal condition or step is evaluated here as sh.arith_eval does (its compiled function
        # by its text, run with the shared evaluator): two frames fewer a part; any other case (not
        # yet compiled, a nested evaluation, a part to expand) goes through cond_value/step_value
        cond_text = literal_arith(node.cond)
        step_text = literal_arith(node.step)
        aev = self.sh._arith  # (the shared evaluator, as arith_eval uses it)
        # (_arith_part inlined for the parts: its frame was a tenth of a tight loop's step)
        # the functions found for the parts' texts are held between steps, and looked up again
        # at each check of the loop's guard (every 64 steps at most): a text's first function
        # (arith._tiered) is replaced in the cache by its generated one once hot. The evaluator's
        # depth is the loop's own throughout (an evaluation in the body puts it back)
        cond_cold: Fn = lambda _ev: cond_value()  # noqa: E731
        step_cold: Fn = lambda _ev: step_value()  # noqa: E731
        cond_fn = _part_fn(cond_text, cond_cold, aev)
        step_fn = _part_fn(step_text, step_cold, aev)
        # once both parts are generated, the rest of the loop is one generated function
        # (arithfor.py), handed over at a check while the shared evaluator is free
        comp = self.comp
        handed = False
        with self.loop_frame() as loop:
            n = 0  # (the step count: see LoopFrame)
            stop = loop.stop
            try:
                while True:
                    n += 1
                    if n >= stop:
                        stop = loop.check(n)
                        run_body = self.body_again(node.body, run_body)
                        if (
                            comp is not None
                            and not aev.depth
                            and (fused := comp.arith_for(node, n)) is not None
                        ):
                            handed = True  # (it counts the steps from here: loop.count)
                            status = fused(loop, n - 1, stop, run_body, status)
                            if status >= 0:
                                break
                            handed = False  # (handed back: as in _exec_while)
                            n, stop, status = loop.count - 1, loop.stop, -1 - status
                            continue
                        cond_fn = _part_fn(cond_text, cond_cold, aev)
                        step_fn = _part_fn(step_text, step_cold, aev)
                    if not mode.untraced and (st.traps or opts["xtrace"]):
                        cond = self._arith_or_error(node.cond)
                        if cond is None:
                            status = 1
                            break
                    else:
                        try:
                            cond = cond_fn(aev)
                        except (ArithError, ExpansionError) as e:
                            self._arith_part_failed(e)
                            status = 1
                            break
                    if rt.reap:  # (the jobs told about, after each test: bash's REAP)
                        cleanup_dead_jobs(sh)
                    if not cond:
                        break
                    sh.arith_cmd = ""
                    try:
                        status = run_body()
                    except LoopControl as e:
                        status = loop.caught(e)
                        if e.breaks:
                            break
                    sh.arith_cmd = "((: "
                    st.line = line  # (the parts run at the loop's line, $LINENO and errors: bash)
                    if not mode.untraced and (st.traps or opts["xtrace"]):
                        if self._arith_or_error(node.step) is None:
                            status = 1
                            break
                    else:
                        try:
                            step_fn(aev)
                        except (ArithError, ExpansionError) as e:
                            self._arith_part_failed(e)
                            status = 1
                            break
            finally:
                if not handed:
                    loop.count = n
        st.last_status = status
        return status

    def _exec_select(self, node: A.Select) -> int:
        if not _is_name(node.var):
            return self._bad_loop_name(node, fatal=False)
        return run_select(self, node)

    def _exec_case(self, node: A.Case) -> int:
        st = self.state
        st.compound_line(node.line, self.sh.rt.budget.commands)
        if st.traps or st.opts["xtrace"]:
            # the DEBUG trap's $BASH_COMMAND and the trace show the word as written ($'...'
            # decoded), the trace before the word expands (its `$( )` traces after it)
            from ..syntax.escapes import ansi_decoded

            text = ansi_decoded(node.word.text)
            if st.opts["xtrace"]:
                self.ex.xtrace_line(f"case {text} in")
            if st.traps and self.ex.debug_trap(f"case {text} in "):  # (after the trace, as bash)
                st.last_status = 0
                return 0  # (extdebug skips the case: it succeeds)
        try:
            subject = self.expander.string(node.word)
        except ExpansionError as e:
            return self.expansion_failed(e)
        except ArithError as e:
            return self.expansion_failed(ExpansionError(e.render(), 1, arith=True))
        nocase = st.shopts["nocasematch"]
        extglob = st.shopts["extglob"]
        status = 0
        items = node.items
        comp = self.comp
        if comp is not None:
            tests = comp.case_tests(node)
        else:
            from .compiler import case_tests

            tests = case_tests(self.expander, node)
        i = 0
        matched = False
        while i < len(items):
            item = items[i]
            if not matched:
                hit = False
                for test in tests[i]:
                    try:
                        if test(subject, nocase, extglob):
                            hit = True
                            break
                    except ExpansionError as e:
                        return self.expansion_failed(e)
                    except ArithError as e:
                        return self.expansion_failed(ExpansionError(e.render(), 1, arith=True))
                if not hit:
                    i += 1
                    continue
            status = self.run_body(item.body) if item.body is not None else 0
            if item.term == ";;":
                break
            if item.term == ";&":
                matched = True
            else:
                matched = False
            i += 1
        st.last_status = status
        return status

    def _exec_arith(self, node: A.ArithCmd) -> int:
        st = self.state
        st.line = node.line
        if st.traps and self.ex.debug_trap(f"(({node.text}))"):
            st.last_status = 0
            return 0  # (extdebug skips it: it succeeds)
        try:
            if st.opts["xtrace"]:
                # the trace shows the text after expansion (`(( $n ))` as `((  42  ))`), expanded once
                try:
                    text = self.expander.arith_text(node.word)
                except (ArithError, ArithAssignError) as e:
                    raise nested_error(e) from None
                self.ex.xtrace_line(f"(( {text} ))")
                self.sh.arith_cmd = "((: "  # (a refused store is named so, traced or not)
                try:
                    value = self.sh.arith_eval(text)
                finally:
                    self.sh.arith_cmd = ""
            else:
                self.sh.arith_cmd = "((: "
                try:
                    value = self.expander.arith(node.word)
                finally:
                    self.sh.arith_cmd = ""
        except (ArithError, ArithAssignError, ExpansionError) as e:
            return self.arith_cmd_failed(e)
        status = 0 if value != 0 else 1
        st.last_status = status
        self.errexit_check(status)
        return status

    def arith_cmd_failed(self, e: ArithError | ArithAssignError | ExpansionError) -> int:
        """A `(( ))` command's expression failed: reported, status 1 (an expansion error as any)."""
        if isinstance(e, ArithError):
            self.sh.error(f"((: {e.render()}")
        elif isinstance(e, ArithAssignError):  # (a readonly store: bash's report_error)
            self.sh.report_error(e.message)
        else:
            return self.expansion_failed(e)
        self.state.last_status = 1
        self.errexit_check(1)
        return 1

    def _exec_cond(self, node: A.CondCmd) -> int:
        st = self.state
        st.line = node.line
        if not st.in_trap:  # $BASH_COMMAND names [[ ]] too (an ERR trap shows it)
            self.sh.current_command = node
        if st.traps and self.ex.debug_trap(node):
            st.last_status = 0
            return 0  # (extdebug skips it: it succeeds)
        try:
            from .conds import eval_cond  # ([[ ]]'s modules: imported when one first runs, not at start-up)

            ok = eval_cond(self.sh, node.expr)
        except (ExpansionError, ArithError) as e:
            return self.cond_failed(e)
        status = 0 if ok is True else (2 if ok is None else 1)
        st.last_status = status
        self.errexit_check(status)
        return status

    def cond_failed(self, e: ExpansionError | ArithError) -> int:
        """A `[[ ]]` command's operands failed to expand or evaluate: reported, status 1. An
        arithmetic error while expanding an operand (not in evaluating one as a number) is an
        expansion error."""
        from .conds import CondArithError, CondAssignError

        if isinstance(e, CondAssignError):  # (a refused store while evaluating: the line goes on)
            self.sh.error(e.message)
            self.state.last_status = 1
            self.errexit_check(1)
            return 1
        if not isinstance(e, CondArithError):
            return self.expansion_failed(e if isinstance(e, ExpansionError) else nested_error(e))
        self.sh.error(f"[[: {e.render()}")
        self.state.last_status = 1
        self.errexit_check(1)
        return 1

    def _exec_funcdef(self, node: A.FuncDef) -> int:
        st = self.state
        name = node.name
        bad = (
            name in _SPECIAL_FUNC_NAMES_BAD
            or any(c in name for c in "$`'\"\\")
            or "<(" in name
            or ">(" in name
        )
        if bad or (st.opts["posix"] and (name in SPECIAL or not _is_name(name))) or name in st.readonly_funcs:
            # bash reports these where its line counter is: the end of what it read
            st.line = st.ctx_line or node.line + node.text.rstrip("\n").count("\n")
        if bad:  # (a quoted word, an expansion or a substitution names no function)
            self.sh.error(f"`{name}': not a valid identifier")
            st.last_status = 1
            return 1
        if st.opts["posix"] and name in SPECIAL:
            self.sh.error(f"`{name}': is a special builtin")
            raise ExitShell(2)
        if st.opts["posix"] and not _is_name(name):
            self.sh.error(f"`{name}': not a valid identifier")  # (POSIX: a function name is a name)
            raise ExitShell(2)
        if name in st.readonly_funcs:
            self.sh.error(f"{name}: readonly function")
            st.last_status = 1
            return 1
        st.functions[node.name] = node
        source = st.sources[-1] if st.sources else (st.frames[-1][1] if st.frames else self.va.main_source())
        st.func_sources[node.name] = (source, node.line)
        st.last_status = 0
        return 0

    def _exec_coproc(self, node: A.Coproc) -> int:
        return self.pr.start_coproc(node)

    def _exec_pipeline(self, node: A.Pipeline) -> int:
        return self.pr.exec_pipeline(node)

    def _exec_redirected(self, node: A.Redirected) -> int:
        st = self.state
        forked = isinstance(node.body, A.Subshell)
        if forked:
            st.line = node.line  # (the child reports its own line; bash's ERR trap sees it too)
        elif st.ctx_line:
            # bash names the line of the enclosing context (see ShellState.ctx_line)
            st.compound_line(st.ctx_line, self.sh.rt.budget.commands)
        if forked and redirs_may_assign(node.redirs):
            stdin = any(r.op in _STDIN_OPS and r.fd in (None, 0) and r.fd_var is None for r in node.redirs)
            status, sub = self._run_subshell(node.body, node.redirs, stdin)  # type: ignore[arg-type]
            if sub.killed_by:
                self._subshell_died(sub, node)
            st.pipestatus = [status]
            return self._subshell_done(sub, status)
        undo = self.rd.apply_redirects(node.redirs, forked=forked)
        if undo is None:
            st.last_status = self.rd.failure
            if node is not self.sh.negated:
                self._redirect_failed(forked)
            return st.last_status
        # background jobs inside keep this input instead of /dev/null (bash's stdin_redir)
        stdin = any(r.op in _STDIN_OPS and r.fd in (None, 0) and r.fd_var is None for r in node.redirs)
        st.stdin_redirected += stdin
        child = None
        try:
            if not forked:
                return self.execute(node.body)
            status, child = self._run_subshell(node.body)  # type: ignore[arg-type]
        finally:
            st.stdin_redirected -= stdin
            self.rd.restore_redirects(undo)
        if child.killed_by:  # (reported as bash's parent does: with the redirections, after them)
            self._subshell_died(child, node)
        st.pipestatus = [status]  # (what execute() sets for a `( )` of its own)
        return self._subshell_done(child, status)

    def _redirect_failed(self, forked: bool) -> None:
        """The ERR trap and `set -e` after a compound command's redirection failed. The trap sees
        $LINENO as bash's line_number_for_err_trap: the line of the last simple command run (a
        `( )` sets its own), not the line of the report or of a `for` or `case` that ran no
        command since (ShellState.compound_line)."""
        st = self.state
        budget = self.sh.rt.budget
        report, ctx = st.line, st.ctx_line
        shown, kept, at = st.err_line
        held = not forked and at == budget.commands and report == shown
        if held:
            st.line = kept
        try:
            self.errexit_check(st.last_status)
        finally:
            st.line, st.ctx_line = report, ctx
            if held:  # (the trap's own commands do not count)
                st.err_line = (shown, kept, budget.commands)

    # ------------------------------------------------------------ functions

    def call_function(self, name: str, fdef: A.FuncDef, argv: list[str], temp: Scope | None) -> int:
        return call_function(self, name, fdef, argv, temp)  # (calls.py)

    # ------------------------------------------------------------ errors

    def expansion_failed(self, e: ExpansionError, builtin: str | None = None, forked: bool = False) -> int:
        """Report an expansion error (in `builtin`'s name when one raised it);
        fatal ones end a non-interactive shell. `forked`: the error ends the child bash runs a
        command in (it expanded the redirections there): only that command fails."""
        if not e.located:
            prefix = self.sh.err_prefix(False)  # (each line of it: a syntax error and its line)
            self.sh.write_err("".join(f"{prefix}{line}\n" for line in e.message.split("\n") if e.message))
        elif builtin is None:
            self.sh.error(e.message)
        else:
            self.sh.builtin_error(builtin, e.message)
        st = self.state
        if e.fatal == 127 or (
            e.fatal is not None and st.opts["posix"] and e.message.endswith(": bad substitution")
        ):
            # ${x:?} and unbound variables end the shell: bash -c exits 127 at
            # its top level; subshells and scripts from stdin or a file exit 1
            # (and under `set -e` too); in POSIX mode a bad substitution does as well
            status = 127 if st.mode == "c" and st.subshell == 0 and not st.opts["errexit"] else 1
            if not forked:
                raise ExitShell(status)
            st.last_status = status
            self.errexit_check(status)
            return status
        if forked:
            e = ExpansionError(e.message, None)
        if e.exits:
            # an integer variable given a bad value: `bash -c` exits, while a script read from a
            # file or stdin discards the current command and goes on with the next one
            if st.mode == "c":
                raise ExitShell(e.fatal or 1)
            raise AbortCommand(e.fatal or 1, errexit=False)
        if e.fatal is not None:
            raise AbortCommand(e.fatal, errexit=not e.arith)
        st.last_status = 1
        self.errexit_check(1)
        return 1

    def _bad_loop_name(self, node: A.For | A.Select, fatal: bool) -> int:
        """`for 1 in ...`: a run-time error in bash, reported before the loop sets its own line, so
        at the enclosing context's (ShellState.ctx_line: a top-level command's last line, the
        function's or an outer loop's line) (status 1; a `for` in POSIX mode ends the shell)."""
        st = self.state
        st.line = st.ctx_line or node.end_line or node.line
        self.sh.error(f"`{node.var}': not a valid identifier")
        st.last_status = 1
        if fatal:
            raise ExitShell(2)
        return 1


_OWN_PIPESTATUS = frozenset({A.Subshell, A.ArithCmd, A.CondCmd})
_STDIN_OPS = frozenset({"<", "<<", "<<-", "<<<", "<&", "<>"})


_SPECIAL_FUNC_NAMES_BAD: frozenset[str] = frozenset()


def _is_name(s: str) -> bool:
    return (
        bool(s)
        and (s[0].isalpha() or s[0] == "_")
        and all(c.isalnum() or c == "_" for c in s)
        and s.isascii()
    )


_DISPATCH: dict[type, Callable[[Evaluator, Any], int]] = {
    A.CommandList: Evaluator._exec_list,
    A.AndOr: Evaluator._exec_andor,
    A.Group: Evaluator._exec_group,
    A.Subshell: Evaluator._exec_subshell,
    A.If: Evaluator._exec_if,
    A.While: Evaluator._exec_while,
    A.For: Evaluator._exec_for,
    A.ArithFor: Evaluator._exec_arith_for,
    A.Select: Evaluator._exec_select,
    A.Case: Evaluator._exec_case,
    A.ArithCmd: Evaluator._exec_arith,
    A.CondCmd: Evaluator._exec_cond,
    A.FuncDef: Evaluator._exec_funcdef,
    A.Coproc: Evaluator._exec_coproc,
    A.Redirected: Evaluator._exec_redirected,
    A.Pipeline: Evaluator._exec_pipeline,
}


def _part_fn(text: str | None, cold: Fn, aev: ArithEvaluator) -> Fn:
    """What evaluates a part of `for ((;;))` with the shared evaluator `aev`: its literal text's
    function in the cache while `aev` is free (not in a nested evaluation), else `cold`."""
    if text is not None and not aev.depth:
        fn = _COMPILED.lookup(text)
        if fn is not None:
            return fn
    return cold
