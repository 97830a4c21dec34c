"""The executor: how commands run. Simple-command dispatch (function, builtin, command, script)
through the run's gates, temporary assignments, finding commands, the context a command runs
with. Child shells, substitutions, pipelines and jobs are the Processes part (processes.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial

from ..expand.arith import ArithError
from ..expand.arithops import wrap
from ..expand.env import ExpansionError
from ..expand.quoting import quote_reusable, shell_metas, single_quote
from ..expand.words import literal_text, plain_literal
from ..limits import DeadlineExpired, LimitKind, thread_deadline
from ..shvars.vars import (
    ARRAYREF_BUILTINS,
    EXPORT,
    INTEGER,
    NAMEREF,
    READONLY,
    THROUGH,
    VAR_OVERHEAD,
    ArrayRefArg,
    AssignArg,
    Scope,
    Var,
    is_array_ref_text,
    value_size,
    word_text,
)
from ..stdio.streams import Stream, StreamError
from ..syntax import ast as A
from ..syntax.escapes import ansi_decoded, printable_name
from ..vfs.bindir import COMMAND_DIRS, SHELL_NAMES
from ..vfs.errors import FsError
from .builtin_table import PENDING, SPECIAL, Builtin, is_builtin, loaded, lookup
from .control import AbortCommand, ExitShell, Replaced, ReturnFromFunction
from .jobs import (
    SUBENV_COMSUB,
    SUBENV_PIPE,
    child_exited,
    exec_tail,
    execs_now,
    notify_dead_jobs,
    one_shot_now,
    one_shot_tail,
    release_ended,
    report_death,
    shell_level_down,
    take_signals,
)
from .redirects import redirs_may_assign
from .state import DEBUG_SKIPPED, ONE_STATUS
from .variables import AssignError, ElementError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..expand.words import Expander
    from ..limits import Budget
    from ..vfs.base import Stat
    from .compiler import Plan
    from .evaluator import Evaluator
    from .processes import Processes
    from .redirects import Redirections
    from .shell import Shell
    from .state import ShellState
    from .variables import Variables

# paths a command's lookups keep stat'ed at most (Executor.lookup_stat: a long PATH times `type` operands)
_LOOKUP_STATS = 256
# find_command's reason when no file has the name: the one lookup failure that is "not found"
# (status 127, and box mode may still run a host program by that path); every other reason
# (a directory, a name too long, no execute bit) found something that cannot run (126)
_NO_FILE = "No such file or directory"


class Executor:
    """How commands run: simple-command dispatch (function, builtin, command, script) through
    the run's gates and audit, temporary assignments, the context of a command. Function calls,
    `set -e` and expansion errors go back to the evaluator; scripts, `bash` and substitutions'
    bookkeeping to the processes."""

    __slots__ = (
        "sh",
        "state",
        "expander",
        "va",
        "rd",
        "refused_lookup",
        "lookup_stats",
        "search_refused",
        "ev",
        "pr",
        "last_cmdsub_status",
        "sets_underscore",
        "dot_found",
        "searched",
    )

    def __init__(
        self, sh: Shell, state: ShellState, expander: Expander, va: Variables, rd: Redirections
    ) -> None:
        self.sh = sh
        self.state = state
        self.expander = expander
        self.va = va
        self.rd = rd
        self.ev: Evaluator  # wired by the shell: these parts are made after this one
        self.pr: Processes
        self.last_cmdsub_status: int | None = None  # of the last $(...) of the command running
        # a shell puts `_` (the program's path) in the environment it builds; a program run by a
        # program (Ctx.run: env, xargs, find -exec) gets the environment its caller gave
        self.sets_underscore = True
        # the last PATH search passed the current directory (bash's dot_found_in_search)
        self.dot_found = False
        # the name whose PATH search (not the hash table) gave find_command's last answer
        self.searched = ""
        # a path name the policy refused in find_command's last answer, and why (audited once: the
        # command is refused there, not looked up again)
        self.refused_lookup: tuple[str, str] | None = None
        # what the lookups of one command stat'ed (lookup_stat): the run's command count then, the
        # directory, each path's stat (or the policy's refusal, "" when absent), the run's budget
        self.lookup_stats: tuple[int, str, dict[str, Stat | str], Budget] | None = None
        # why the policy refused the first path find_command's last search met (None: none was)
        self.search_refused: str | None = None

    # ------------------------------------------------------------ simple commands

    def exec_simple(self, cmd: A.SimpleCommand, plan: Plan | None = None) -> int:
        """Run a simple command; `plan`: its words examined once (compiler.py), else here."""
        st = self.state
        if st.opts["noexec"]:
            return 0  # `set -n`: this shell reads the rest of its script but runs nothing more
        sh = self.sh
        rt = sh.rt
        st.line = cmd.line
        if not st.in_trap:  # a trap's commands leave $BASH_COMMAND alone
            sh.current_command = cmd
        budget = rt.budget  # (Budget.command inline, as the compiled closures count: a frame fewer)
        budget.commands += 1
        if budget.commands >= budget.command_stop:
            budget.command_slow()
        if rt.signals or st.run_mode.signal:  # sent by a shell of the run: acted on between commands
            take_signals(sh)  # (which clears the mark: RunMode.signal)
        # process substitutions this command opens are closed when it ends; those of an
        # enclosing command (a function's `cat "$1"`, eval's words) stay open
        procs = self.pr.procsubs
        mark = len(procs)
        self.last_cmdsub_status = None
        if st.opts["keyword"] and len(cmd.words) > 1:
            moved = _keywords_to_assigns(cmd)
            if moved is not cmd:  # (a compiled plan expands the words as written: not these)
                cmd, plan = moved, None
        words = cmd.words
        if st.traps:  # bash runs the DEBUG trap before it expands (or traces) the command
            debug = st.traps.get("DEBUG")
            skip = False
            if st.debug_ran:
                skip = st.debug_ran == DEBUG_SKIPPED
                st.debug_ran = 0  # (a pipeline stage whose trap its parent ran, set -T)
            elif debug and "DEBUG" not in st.traps_running and _debug_applies(st):
                skip = self.debug_skips(sh.run_trap_text(debug, "DEBUG")) != 0
            if skip:  # (extdebug: the command is not run, and succeeds)
                st.last_status = 0
                st.pipestatus = [0]
                return 0
        if not words and not cmd.redirs and len(cmd.assigns) == 1:
            # `name=value`: the commonest command in loops, without the general machinery
            a = cmd.assigns[0]
            if a.value is not None and a.array is None and not st.opts["xtrace"]:
                value_fn = plan.value if plan is not None and plan.value is not None else None
                return self.assign_one(a, value_fn or partial(self.expander.value, a.value), mark)
        try:
            gates = rt.gates
            argv_fn = plan.argv if plan is not None else None
            if gates is None or gates.policy is None or not words:
                argv = argv_fn() if argv_fn is not None else self.expand_argv(words)
            else:
                # the policy sees the command name before anything else is expanded:
                # a refused command cannot run the $(...) in its arguments
                name = plan.name if plan is not None and argv_fn is not None else None
                first = [name] if name is not None else self.expand_argv(words[:1])
                # (`PATH=... cmd`: the assignment empties the hash table before the lookup)
                if first and self._first_word_refused(first[0], any(a.name == "PATH" for a in cmd.assigns)):
                    st.last_status = 126
                    st.pipestatus = [126]
                    self.ev.errexit_check(126)
                    return 126
                if name is not None:
                    argv = argv_fn()  # type: ignore[misc]
                else:
                    argv = first
                    argv.extend(self.expand_argv(words[1:]))
            if sh.pending_args is not None and argv:
                # exec(args=...): arguments of the first command that runs, never its name
                argv.extend(sh.pending_args)
                sh.pending_args = None
            if not argv:
                return self.no_words(cmd, mark)
            trace: list[str] | None = [] if st.opts["xtrace"] else None
            temp = self.temp_scope(cmd.assigns, trace, argv[0]) if cmd.assigns else None
        except (ExpansionError, ArithError, AssignError) as e:
            return self.words_failed(e, mark)
        return self.run_argv(cmd, argv, temp, trace, mark)

    def assign_one(self, a: A.Assign, value: Callable[[], str], mark: int) -> int:
        """`name=value` alone (not an array, no `set -x`): the commonest command in loops,
        without the general machinery. `value` expands the value; `mark` as in run_argv."""
        try:
            if a.append or a.sub is not None:
                self.va.set_var(a.name, value(), sub=a.sub, append=a.append, parsed=a.subscript)
            else:
                self.va.set_var(a.name, value())
        except (ExpansionError, ArithError, AssignError) as e:
            return self.assign_failed(e)
        return self.assigned(mark)

    def assign_failed(self, e: ExpansionError | ArithError | AssignError) -> int:
        """`name=value` alone failed as its value expanded or as it was assigned: reported (a
        readonly variable ends the command line, and a POSIX shell)."""
        if isinstance(e, ExpansionError):
            return self.ev.expansion_failed(e)
        if isinstance(e, ArithError):
            return self.ev.expansion_failed(ExpansionError(e.render(), 1, arith=True))
        self.sh.error(e.message)
        self.state.last_status = 1
        if e.fatal:
            self.posix_fatal()
            raise AbortCommand(1)
        self.ev.errexit_check(1)
        return 1

    def assigned(self, mark: int) -> int:
        """`name=value` alone has been assigned: `$_` emptied, its status (a command
        substitution's in the value), the process substitutions opened since `mark` closed."""
        st = self.state
        st.last_arg = ""  # (bash: a command without words leaves $_ empty)
        status = self.last_cmdsub_status or 0
        if len(self.pr.procsubs) > mark:
            self.pr.finish_procsubs(mark)  # (bash: f=<(cmd) is closed at once)
        st.last_status = status
        st.pipestatus = ONE_STATUS[status] if 0 <= status < 256 else [status]
        if status:
            self.ev.errexit_check(status)
        return status

    def no_words(self, cmd: A.SimpleCommand, mark: int) -> int:
        """Its words expanded to nothing (`$empty`): the assignments alone, or nothing."""
        status = self._assignments_only(cmd)
        self.state.last_arg = ""  # (bash: a command without words leaves $_ empty)
        if len(self.pr.procsubs) > mark:
            self.pr.finish_procsubs(mark)
        return status

    def words_failed(self, e: ExpansionError | ArithError | AssignError, mark: int) -> int:
        """Expanding a simple command's words (or its assignments) failed: reported, the command
        not run."""
        if isinstance(e, AssignError):
            self.sh.error(e.message)
            self.state.last_status = 1
            return 1
        self.pr.finish_procsubs(mark)
        if isinstance(e, ArithError):
            e = ExpansionError(e.render(), 1, arith=True)
        return self.ev.expansion_failed(e)

    def run_argv(
        self, cmd: A.SimpleCommand, argv: list[str], temp: Scope | None, trace: list[str] | None, mark: int
    ) -> int:
        """The second half of a simple command, its words expanded: trace, dispatch, `$_`, the
        status. `mark`: the process substitutions open before it (closed when it ends)."""
        st = self.state
        sh = self.sh
        rt = sh.rt
        procs = self.pr.procsubs
        held = self.expander.argv_held()
        if held:
            rt.budget.charge_memory(held)
        try:
            if trace is not None:
                c_locale = sh.locale_bytes()
                self.xtrace_line(" ".join(_xtrace_word(a, c_locale) for a in argv))
            if (cmd is sh.nofork or cmd is sh.one_shot) and execs_now(sh, cmd):
                self._in_place_of_shell(argv)
            if rt.gates is None:
                # dispatch() without gates to consult: straight to the run
                name = argv[0]
                fdef, builtin = _callable(st, name)
                if temp is not None or cmd.redirs or (builtin is not None and name == "exec"):
                    status = self._dispatch_run(argv, temp, cmd.redirs, fdef, builtin, False)
                elif fdef is not None:
                    # what _dispatch_run does without redirections or temporary assignments
                    try:
                        status = self.ev.call_function(name, fdef, argv, None)
                    except AssignError as e:
                        sh.error(e.message)
                        status = 1
                elif builtin is not None:
                    try:
                        status = _run_builtin(self.sh, builtin, name, argv)
                    except AssignError as e:
                        sh.error(e.message)
                        status = 1
                else:
                    status = self._dispatch_run(argv, temp, cmd.redirs, fdef, builtin, False)
            else:
                status = self.dispatch(argv, temp, cmd.redirs)
            last = argv[-1]
            st.last_arg = last if type(last) is str else word_text(last)  # (never the parted word)
        finally:
            if held:
                rt.budget.release_memory(held)
            if len(procs) > mark:
                self.pr.finish_procsubs(mark)
            execd = sh.execs == 2
            if sh.execs:
                sh.execs = 0
        if sh.child_death is not None:
            self._child_died(cmd, status, execd)
        if execd and sh.subenv & SUBENV_COMSUB:
            # (a `$( )`'s function ended in it: the program was the subshell, no trap of it runs)
            st.traps.pop("EXIT", None)
            raise Replaced(status)
        st.last_status = status
        st.pipestatus = ONE_STATUS[status] if 0 <= status < 256 else [status]
        if status:
            self.ev.errexit_check(status)
        return status

    def _in_place_of_shell(self, argv: list[str]) -> None:
        """The command about to run is one bash runs as the shell's own process (execve without
        a fork: jobs.execs_now). A program (by itself or through `command`) gets SHLVL one less,
        as from `exec` (run_external); in a `$( )`, a function's body ends in such a command in
        turn (optimize_shell_function: its last, or the second of its last `;`, `&&`, `||`),
        after which nothing of the shell runs, not a RETURN or EXIT trap the body set."""
        sh = self.sh
        st = self.state
        name = argv[0]
        fdef, builtin = _callable(st, name)
        if fdef is not None:
            body = fdef.body
            if sh.subenv & SUBENV_COMSUB and isinstance(body, A.Group):
                tail = one_shot_tail(body.body)
                if tail is not None:
                    sh.nofork = tail
                    sh.nofork_checked = False  # (decided as the call starts, as bash decides it)
                    sh.nofork_at = (len(st.frames) + 1, sh.eval_depth, len(st.sources))
        elif builtin is None:
            sh.execs = 1
        elif name == "command":
            # `command prog`: the program runs so too (not a builtin it names, nor `-v`/`-V`)
            words = argv[1:]
            while words and words[0] in ("-p", "--"):
                words = words[1:]
            if words and not words[0].startswith("-") and _callable(st, words[0])[1] is None:
                sh.execs = 1

    def _child_died(self, cmd: A.SimpleCommand, status: int, execd: bool = False) -> None:
        """The command ran a shell process that died of a signal (`bash -c 'kill -9 $$'`, or
        under `env`, `command`): bash, waiting for it in the foreground, reports it with its pid
        and the command's text (jobs.report_death). Not when the command made its own status of
        it (xargs' 125), nor from a `$( )`. A subshell whose last command it was dies of it
        (bash runs that command as the subshell's own process: jobs.exec_tail)."""
        sh = self.sh
        (sig, pid), sh.child_death = sh.child_death or (0, 0), None
        if status != 128 + sig:
            return
        if (
            execd  # (run in place of this shell: Executor._in_place_of_shell)
            or (self.state.subshell and "EXIT" not in self.state.traps and exec_tail(sh.subshell_body) is cmd)
            or (sh.one_shot is cmd and one_shot_now(sh))
        ):
            sh.killed_by = sig  # bash ran it as the subshell (the `bash -c`) itself: that died of it
        elif not sh.subst_depth:
            # (at the line of the enclosing context, as a subshell's: a command over several
            # lines is reported at its last)
            self.state.line = self.state.ctx_line or self.state.line
            report_death(sh, sig, pid, unparse_command(cmd))

    def expand_argv(self, words: tuple[A.Word, ...]) -> list[str]:
        expander = self.expander
        expander.begin_argv()
        out: list[str] = []
        refs = arrayref_args(words)
        for i, w in enumerate(words):
            if refs and i >= refs and is_array_ref_text(w.text):
                fields = expander.word(w)
                if len(fields) == 1:
                    out.append(ArrayRefArg(fields[0]))  # (one field: bash's W_ARRAYREF stays)
                else:
                    out.extend(fields)
                continue
            parts = w.parts
            if len(parts) == 1:
                p = parts[0]
                t = type(p)
                if t is A.Lit:
                    text = p.text  # type: ignore[union-attr]
                    if not ("*" in text or "?" in text or "[" in text or "(" in text) or plain_literal(text):
                        out.append(text)  # a plain word: nothing to expand
                        continue
                elif t is A.AssignWord:
                    out.append(self.expand_assign_arg(p.assign, self._declares_assoc(out)))  # type: ignore[union-attr]
                    continue
                elif t is A.Param or (t is A.DQ and p.parts and type(p.parts[0]) is not A.Lit):  # type: ignore[union-attr]
                    out.extend(expander.word(w))  # `$x`, `"$x..."`: an expansion, never literal text only
                    continue
            if (joined := literal_text(parts)) is not None:
                out.append(joined)  # literal text only (`"n += 1"`, `a=b:c`): one field, as written
                continue
            out.extend(expander.word(w))
        if len(out) > self.sh.rt.limits.max_arguments:
            expander.end_argv(out)
        return out

    @staticmethod
    def _declares_assoc(out: list[str]) -> bool:
        """Whether the declaration builtin whose words so far are `out` was given -A (bash then
        expands a list without splitting; without it, even for an associative array, it splits)."""
        return any(w[:1] == "-" and "A" in w and not isinstance(w, AssignArg) for w in out[1:])

    def expand_assign_arg(self, a: A.Assign, assoc: bool = False) -> AssignArg:
        if a.array is None and a.sub is None and not a.append:
            # `local x=$y`, `declare n=1`: the commonest form
            name = a.name
            value = self.expander.value(a.value) if a.value is not None else ""
            obj = AssignArg(name + "=" + value)
            obj.name = name
            obj.value = value
            return obj
        name, sub, append, value, items = self.expand_assignment(a, assoc)
        head = name + (f"[{sub}]" if sub is not None else "") + ("+=" if append else "=")
        if items is not None:
            # (the text eval reads again: keys kept, `[k]=v`)
            text = (
                head + "(" + " ".join(v if k is None else f"[{k}]{'+' * ap}={v}" for k, v, ap in items) + ")"
            )
            if self.state.opts["xtrace"]:
                self.xtrace_line(_compound_trace(name, append, items))  # (bash: as it is expanded)
        else:
            text = head + value
        return AssignArg.make(text, name, sub, append, value, items)

    def expand_assignment(
        self, a: A.Assign, assoc: bool | None = None
    ) -> tuple[str, str | None, bool, str, list[tuple[str | None, str, bool]] | None]:
        """Expand one assignment's value (nothing is assigned yet). `assoc`: whether a list is
        for an associative array (None: as the variable is)."""
        if a.array is not None:
            declared = assoc is not None
            if assoc is None:
                assoc = self.va.is_assoc(a.name)
            return a.name, a.sub, a.append, "", self.expand_array_items(a.array, assoc, declared)
        value = self.expander.value(a.value) if a.value is not None else ""
        return a.name, a.sub, a.append, value, None

    def expand_array_items(
        self, array: tuple[A.ArrayItem, ...] | list[A.ArrayItem], assoc: bool = False, declared: bool = False
    ) -> list[tuple[str | None, str, bool]]:
        """The words of `( ... )`: (key or None, value, key+=); a word without a key splits. For
        an associative array every word is one string, without tilde expansion (bash 5.2).
        `declared`: the list is an argument of declare -A."""
        if assoc and array:
            return self._assoc_items(array, declared)
        items: list[tuple[str | None, str, bool]] = []
        string = self.expander.string
        for item in array:
            if item.key is not None and item.whole is None:
                items.append((string(item.key), string(item.value), item.append))
            else:
                for v in self.expander.words((item.value if item.whole is None else item.whole,)):
                    items.append((None, v, False))
        return items

    def _assoc_items(
        self, array: tuple[A.ArrayItem, ...] | list[A.ArrayItem], declared: bool
    ) -> list[tuple[str | None, str, bool]]:
        """expand_array_items for an associative array. An empty key is reported (by the word as
        written, or as declare quoted it) and its element left out, with its value in a list of
        key-value pairs."""
        string = self.expander.string
        keyed = array[0].key is not None
        items: list[tuple[str | None, str, bool]] = []
        pos = 0  # a list of pairs: the words so far (a key at even positions)
        skip = False
        for item in array:
            if keyed and item.key is None:
                # never assigned: bash names the word as written (quoted when declare read it)
                text = item.value.text
                items.append((None, single_quote(text) if declared else text, False))
                continue
            key = string(item.key) if item.key is not None else None
            value = string(_tildes_as_text(item.value))
            if skip:
                skip = False
            elif (key == "" and keyed) or (not keyed and pos % 2 == 0 and key is None and not value):
                if not declared:
                    shown = _item_text(item)
                elif key is None:  # (declare reads the list again, as the shell quoted it)
                    shown = single_quote(value)
                else:
                    shown = f"[{single_quote(key)}]={single_quote(value)}"
                self.sh.error(f"{shown}: bad array subscript")
                skip = not keyed
            else:
                items.append((key, value, item.append))
            pos += 1
        return items

    def _assignments_only(self, cmd: A.SimpleCommand) -> int:
        """`a=1 b=$a`: each assignment is expanded and made in turn."""
        st = self.state
        trace = st.opts["xtrace"]
        try:
            for a in cmd.assigns:
                if trace and a.array is not None:
                    # bash shows a compound assignment as written (`n=($@)`), before its words
                    # expand (a `$( )` in them traces after it)
                    self.xtrace_line(_trace_array_source(a))
                name, sub, append, value, items = self.expand_assignment(a)
                if trace and a.array is None:
                    self.xtrace_line(_trace_assign(name, sub, append, value, items, self.sh.locale_bytes()))
                if items is not None:
                    if sub is not None:
                        raise AssignError(f"{name}[{sub}]: cannot assign list to array member")
                    self.va.set_array(name, items, append=append)
                else:
                    self.va.set_var(name, value, sub=sub, append=append, parsed=a.subscript)
        except AssignError as e:
            self.sh.error(e.message)
            st.last_status = 1
            # assignment errors discard the rest of the command line
            if e.fatal:
                self.posix_fatal()
                raise AbortCommand(1)
            self.ev.errexit_check(1)
            return 1
        except ExpansionError as e:
            return self.ev.expansion_failed(e)
        except ArithError as e:
            return self.ev.expansion_failed(ExpansionError(e.render(), 1, arith=True))
        status = self.last_cmdsub_status if self.last_cmdsub_status is not None else 0
        if cmd.redirs:
            if any(r.fd_var is not None for r in cmd.redirs):
                failure = self.redirections_in_child(cmd.redirs)
                if failure:
                    st.last_status = failure
                    self.ev.errexit_check(failure)
                    return failure
            else:
                rd = self.rd
                undo = rd.apply_redirects(cmd.redirs)
                if undo is None:
                    st.last_status = 1
                    self.ev.errexit_check(1)
                    return 1
                rd.restore_redirects(undo)
        st.last_status = status
        st.pipestatus = [status]
        self.ev.errexit_check(status)
        return status

    # ------------------------------------------------------------ dispatch

    def dispatch(
        self,
        argv: list[str],
        temp: Scope | None,
        redirs: tuple[A.Redir, ...],
        *,
        no_functions: bool = False,
        builtins_only: bool = False,
        path: str | None = None,
        programs_only: bool = False,
    ) -> int:
        """Run argv as a function, builtin or command. `temp` holds the command's
        temporary assignments (`x=1 cmd`), already expanded and exported. The
        policy (and the embedder's command gate) decide here; audit events too.
        `path` searches a command there, not in PATH nor the hash table (`command -p`).
        `programs_only`: what a program execs (env, xargs, find -exec): never a function or a
        builtin (`env printf` is coreutils' printf, with its own messages)."""
        st = self.state
        name = argv[0]
        rt = self.sh.rt
        fdef, builtin = (None, None) if programs_only else _callable(st, name, no_functions)
        found: tuple[str, str] | None = None
        if path is not None and fdef is None and builtin is None:
            found = self.find_command(name, path)
            if found[0] and st.opts["hashall"] and "/" not in name:
                self._rehash(name, f"{found[0]}:{found[1]}")
        if rt.gates is None:
            return self._dispatch_run(argv, temp, redirs, fdef, builtin, builtins_only, found)
        if fdef is not None:
            kind, runs = "function", name
        elif builtin is not None:
            kind, runs = "builtin", name
        elif found is not None:
            kind, runs = found[0], self._runs(name, *found)
        else:
            # the gate decides on what will run (hash table, PATH), and the run uses that same lookup
            if temp is not None:  # `PATH=/x cmd` looks cmd up in /x
                st.vars.push(temp)
            try:
                found = self.find_command(name)
            finally:
                if temp is not None:
                    st.vars.pop()
            kind, runs = found[0], self._runs(name, *found)
        return self.run_gated(
            argv,
            kind,
            runs,
            lambda: self._dispatch_run(argv, temp, redirs, fdef, builtin, builtins_only, found),
        )

    def _runs(self, name: str, kind: str, where: str) -> str:
        """What a name found by find_command really runs: the registry command (or shell) named by
        the base of the path it resolved to (`hash -p /bin/rm cat` makes `cat` run rm), a script's
        canonical path (`./s`, `../w/s`, a link to it and a PATH search all run one file: a rule
        naming it must not depend on the spelling); the name itself when nothing was found. Any
        kind but a script's is run_external's registry run of the path's base, so the gate decides
        on that (never on the name)."""
        if kind == "script":
            try:
                return self.state.fs.realpath(where)
            except FsError:  # (refused or gone: the run fails on the path as it was found)
                return where
        if kind:
            return where.rsplit("/", 1)[-1]
        return name

    def _rehash(self, name: str, entry: str) -> None:
        """`command -p NAME` remembers what it found, as bash does: a new entry each time (replacing
        one that PATH or `hash -p` made), with this run as its one hit."""
        hashed = self.state.hashed
        hashed.pop(name, None)
        hashed.setdefault(name, entry)

    def run_gated(self, argv: list[str], kind: str, runs: str, run: Callable[[], int]) -> int:
        """Audit and gate one command that runs `runs` (see _runs), then `run()` it unless refused."""
        gates = self.sh.rt.gates
        if gates is None:
            return run()
        return gates.run(argv, kind, runs, run, lambda refusal: self._refused(argv[0], refusal))

    def _refused(self, name: str, refusal: str) -> None:
        self.sh.write_err(f"{self.sh.err_prefix()}{name}: {refusal}\n")

    def resolve_command(self, name: str, unhashed: bool = False) -> tuple[str, str]:
        """(kind, what runs) for `name` as a simple command would run it; `unhashed`: searching PATH
        without the hash table."""
        st = self.state
        if name in st.functions:
            return "function", name
        if is_builtin(name) and name not in st.disabled_builtins:
            return "builtin", name
        path = None
        if unhashed:  # the same search find_command makes (PATH unset: the name itself)
            path = self.va.get_str("PATH") or ""
        kind, where = self.find_command(name, path)
        return kind, self._runs(name, kind, where)

    def _first_word_refused(self, name: str, unhashed: bool = False) -> bool:
        gates = self.sh.rt.gates
        assert gates is not None
        self.refused_lookup = None
        kind, runs = self.resolve_command(name, unhashed)
        refused = self.refused_lookup
        if kind == "" and refused is not None and refused[0] == name:
            # the file itself is refused: said now, as the run's own lookup would (one decision)
            self.sh.error(f"{name}: {refused[1]}")
            return True
        refusal = gates.name_refusal(name, kind, runs)
        if refusal is None:
            return False
        self._refused(name, refusal)
        return True

    def gate_refuses(self, argv: list[str], kind: str, runs: str | None = None) -> bool:
        """Ask the policy and the embedder's gate about argv, which runs `runs` (resolved here from
        the hash table and PATH when not given); a refusal is reported (`bash: NAME: ...`, status
        126 for the caller)."""
        gates = self.sh.rt.gates
        if gates is None:
            return False
        if runs is None:
            runs = argv[0]
            if kind in ("command", "shell", "script"):
                runs = self._runs(argv[0], *self.find_command(argv[0]))
        refusal = gates.refusal(argv, kind, runs)
        if refusal is None:
            return False
        self._refused(argv[0], refusal)
        return True

    def _dispatch_run(
        self,
        argv: list[str],
        temp: Scope | None,
        redirs: tuple[A.Redir, ...],
        fdef: A.FuncDef | None,
        builtin: Builtin | None,
        builtins_only: bool,
        found: tuple[str, str] | None = None,
        apart: bool = False,
    ) -> int:
        """Run the command found for `argv` with its redirections; `apart`: in the child
        _program_in_child forked for a program."""
        st = self.state
        name = argv[0]
        if builtin is not None and name == "exec" and all(a == "--" for a in argv[1:]):
            # `exec` without a command: its redirections stay in effect
            if not redirs:
                return 0
            self.rd.command = name
            try:
                kept = self.rd.apply_redirects(redirs)
            finally:
                self.rd.command = ""
            if kept is None:
                if self.posix_special(name):
                    raise ExitShell(1)  # (exec is a special builtin: fatal in POSIX mode)
                return 1
            self.rd.close_dropped(kept)
            if self.sh.pr.coproc is not None:
                self.sh.pr.coproc_fds_changed()
            return 0
        # a program (`command prog` too) has its redirections applied in the child bash forks for it
        program = fdef is None and (
            builtin is None or (name == "command" and self._command_runs_program(argv))
        )
        if redirs and program and not (builtins_only or apart) and redirs_may_assign(redirs):
            return self._program_in_child(argv, temp, redirs, found, builtin)
        self.rd.command = name
        try:
            undo = self.rd.apply_redirects(redirs, forked=apart or program) if redirs else []
        finally:
            self.rd.command = ""
        if undo is None:
            if builtin is not None and self.posix_special(name):
                raise ExitShell(1)  # a special builtin's redirection error ends a POSIX shell
            return self.rd.failure
        try:
            if fdef is not None:
                return self.ev.call_function(name, fdef, argv, temp)
            # POSIX: assignments before a special builtin persist (and stay
            # exported) once it returns; whatever it unset stays unset
            persist = builtin is not None and temp is not None and name in SPECIAL and st.opts["posix"]
            if temp is not None:
                if builtin is not None and not persist and _stores_through(argv):
                    for tvar in temp.values():
                        tvar.attrs |= THROUGH
                st.vars.push(temp)
            try:
                if builtin is not None:
                    return _run_builtin(self.sh, builtin, name, argv)
                if builtins_only:
                    self.sh.builtin_error("builtin", f"{name}: not a shell builtin")
                    return 1
                status = self.run_external(argv, self.va.exported_env(), found, own_env=self.sets_underscore)
                child_exited(self.sh)  # bash forks for every program (and for one not found)
                return status
            finally:
                if temp is not None:
                    if st.vars.scopes and st.vars.scopes[-1] is temp:
                        st.vars.pop()
                    elif temp in st.vars.scopes:
                        st.vars.scopes.remove(temp)
                    if persist:
                        self._persist_temp(temp, name not in _BUILTIN_ENV)
                    elif "POSIXLY_CORRECT" in temp and name not in SPECIAL:
                        self.va.posix_env_done()  # (bash leaves a special builtin's binding on)
        except AssignError as e:
            self.sh.error(e.message)
            return 1
        finally:
            if undo:
                self.rd.restore_redirects(undo)

    def _command_runs_program(self, argv: list[str]) -> bool:
        """`command [-p] [--] NAME ...` with NAME no builtin: bash drops the `command` words and forks
        for the program (or for NAME not found); -v and -V only look."""
        disabled = self.state.disabled_builtins
        for word in argv[1:]:
            if word == "command" or word == "-p" or word == "--":
                continue
            if word.startswith("-") and len(word) > 1:
                return "v" not in word and "V" not in word and set(word[1:]) <= {"p"}
            return not (is_builtin(word) and word not in disabled)
        return False

    def _program_in_child(
        self,
        argv: list[str],
        temp: Scope | None,
        redirs: tuple[A.Redir, ...],
        found: tuple[str, str] | None,
        builtin: Builtin | None = None,
    ) -> int:
        """A program whose redirections may assign (`> f$((i++))`, `${x:=v}`, `{v}>f`, a here-document's
        `$((n++))`): bash expands and applies them in the child it forks for the program, so what
        they assign stays there. Run the program from a subshell of this shell, as bash does."""
        child = self.sh.fork(lazy=True)
        child.ex.sets_underscore = self.sets_underscore
        child.state.subshell = self.state.subshell  # (no subshell level of its own: $BASH_SUBSHELL, exit 127)
        traps = child.state.traps
        if "CHLD" in traps:
            del traps["CHLD"]  # (the child's end is this shell's SIGCHLD, sent below)
        try:
            status = child.ex._dispatch_run(argv, temp, redirs, None, builtin, False, found, apart=True)
        finally:
            self._child_done(child)
        return status

    def redirections_in_child(self, redirs: tuple[A.Redir, ...]) -> int:
        """A command of redirections only, one of them `{var}`: bash forks for it (execute_null_command's
        forcefork), so the variable is set and the descriptor open only in that child, where the
        redirections after it see them (`{in}<<EOF 3<&$in` reads the here-document)."""
        child = self.sh.fork(lazy=True)
        child.state.subshell = self.state.subshell  # (no subshell level of its own, as above)
        child.state.traps.pop("CHLD", None)
        try:
            undo = child.rd.apply_redirects(redirs, forked=True)
            if undo is None:
                return child.rd.failure
            child.rd.restore_redirects(undo)
            return 0
        finally:
            self._child_done(child)

    def _child_done(self, child: Shell) -> None:
        """`child`, forked for one command, ended: what a `{var}` opened there ends with that
        process; this shell is told (SIGCHLD)."""
        held = {id(s) for s in self.state.fds.values()}
        for stream in child.state.fds.values():
            if id(stream) not in held:
                try:
                    stream.close()
                except OSError:
                    pass
        release_ended(child)
        child_exited(self.sh)

    def debug_trap(self, command: A.Command | str) -> int:
        """The DEBUG trap before a command that is not a simple one ([[ ]], (( )), each item of a
        for or select, each part of an arithmetic for, case), $BASH_COMMAND naming it as bash does.
        Non-zero (the trap's status) when extdebug skips the command (debug_skips)."""
        st = self.state
        if not st.in_trap:
            self.sh.current_command = command
        debug = st.traps.get("DEBUG")
        if debug and "DEBUG" not in st.traps_running and _debug_applies(st):
            return self.debug_skips(self.sh.run_trap_text(debug, "DEBUG"))
        return 0

    def debug_skips(self, status: int) -> int:
        """extdebug: a DEBUG trap that ends non-zero skips the command it ran for (which then
        succeeds), and one that ends 2 in a function or a sourced file returns 2 from it (bash's
        run_debug_trap and its callers)."""
        if not status or not self.state.shopts["extdebug"]:
            return 0
        if status == 2 and (self.state.frames or self.state.sources):
            raise ReturnFromFunction(2)
        return status

    def posix_special(self, name: str) -> bool:
        """A special builtin whose errors end the shell: POSIX mode, not run by `command`."""
        st = self.state
        return name in SPECIAL and bool(st.opts["posix"]) and not st.command_builtin

    def _persist_temp(self, temp: Scope, mark: bool = True) -> None:
        """A POSIX special builtin's assignments stay, in the nearest scope holding each name.
        `mark`: one that lands on a temporary binding of a function call (`v=1 f`, not made
        local) goes on to the caller when that function returns, as bash's push_posix_temp_var
        sets att_propagate; not for eval, source and unset, whose bindings bash pops as a
        builtin's own context (push_builtin_var: no propagation)."""
        # (each change charged to the scope that now holds it: the temporary scope gives back all
        # it held as it goes, Scope.release)
        vars_ = self.state.vars
        for tname, tvar in temp.items():
            if tvar.value is None:
                continue
            if isinstance(tvar.value, str) and self.va.is_dynamic(tname):
                # (its binding was a plain value: now it seeds or offsets the variable)
                self.va.set_var(tname, tvar.value)
                continue
            i, target = vars_.find_scope(tname)
            if target is not None:
                scope = vars_.scopes[i]
                vars_.charge(scope, value_size(tvar.value) - value_size(target.value))
                target.value = tvar.value
                target.attrs |= EXPORT
                if mark and scope.tempvars and tname in scope.tempvars and tname not in scope.locals:
                    scope.propagate = (scope.propagate or set()) | {tname}
            else:
                vars_.charge(vars_.globals, VAR_OVERHEAD + value_size(tvar.value))
                vars_.globals[tname] = tvar

    def posix_fatal(self) -> None:
        """In POSIX mode an assignment error in an assignment statement or before a
        special builtin ends the shell (127 at the top of `bash -c`, as bash does)."""
        st = self.state
        if st.opts["posix"]:
            raise ExitShell(127 if st.mode == "c" and st.subshell == 0 else 1)

    def temp_scope(
        self, assigns: tuple[A.Assign, ...], trace: list[str] | None, command: str | None = None
    ) -> Scope:
        """Expand `x=1 y=$x cmd` assignments left to right into a temporary scope
        (each sees the previous ones); arrays become their text, readonly names
        are reported and skipped (in POSIX mode they abort the line, or end the
        shell before a special builtin)."""
        st = self.state
        temp = Scope(temp=True)
        temp.owner = command or ""
        st.vars.push(temp)
        try:
            for a in assigns:
                if a.sub is not None:
                    # `v[0]=x cmd`: no element is bound before a command (bash; the command runs)
                    self.sh.error(f"`{a.name}[{a.sub}]': not a valid identifier")
                    continue
                name, sub, append, value, items = self.expand_assignment(a)
                if items is not None:
                    value = (
                        "("
                        + " ".join(v if k is None else f"[{k}]{'+=' if ap else '='}{v}" for k, v, ap in items)
                        + ")"
                    )
                if trace is not None:
                    # (bash traces each binding as it is made: after its own `$( )`, before the next)
                    self.xtrace_line(_trace_assign(name, sub, append, value, None, self.sh.locale_bytes()))
                var = st.vars.find(name)
                if name == "RANDOM" and var is not None:
                    # bash's assign_in_env looks the name up, and a lookup of RANDOM draws a number
                    # (`RANDOM=3; RANDOM=7 cmd; echo $RANDOM` shows seed 3's second)
                    self.va.get_str(name)
                if var is not None and var.attrs & NAMEREF and var.value and sub is None:
                    # `ref=x cmd` with a nameref: the binding is for the variable it names (bash)
                    try:
                        target, tsub = self.va.resolve_name(name)
                    except AssignError:
                        target, tsub = name, None
                    if tsub is None:
                        name, var = target, st.vars.find(target)
                if var is not None and var.attrs & READONLY and name not in temp:
                    # (bash's assign_in_env: err_readonly, a report_error that ends a set -e shell)
                    self.sh.report_error(f"{name}: readonly variable")
                    if st.opts["posix"]:
                        if command in SPECIAL:
                            self.posix_fatal()
                        raise AbortCommand(1)
                    continue
                if append and name not in temp and var is not None and isinstance(var.value, str):
                    if var.attrs & INTEGER:  # `x+=5 cmd` with an integer x adds, as bash does
                        value = str(
                            wrap(self.sh.arith_eval(var.value or "0") + self.sh.arith_eval(value or "0"))
                        )
                    else:
                        value = var.value + value
                    append = False
                if name == "POSIXLY_CORRECT":
                    self.va.save_posix()  # (bash's assign_in_env: one level of saving)
                self.va.set_var(name, value, sub=sub, append=append, scope=temp, parsed=a.subscript)
                tvar = temp.get(name)
                if tvar is not None:
                    tvar.attrs |= EXPORT
        finally:
            st.vars.pop()
        return temp

    def find_command(self, name: str, path: str | None = None, exec_only: bool = False) -> tuple[str, str]:
        """('command', path) for a registry command, ('script', path) for an
        executable file, ('shell', path) for bash/sh, or ('', reason). `path`
        searches another PATH than the shell's (and skips the hash table). When no
        directory holds an executable `name`, the first that holds a file of that name
        not executable gives it as a 'script' (bash's FS_EXEC_PREFERRED search, findcmd.c's
        file_to_lose_on: running it says "Permission denied", status 126; `type` and
        `command -v` show it); `exec_only`: not (FS_EXEC_ONLY: `type -a`, `hash NAME`)."""
        st = self.state
        self.search_refused = None
        if "/" in name:
            if any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in name.split("/")):
                return "", "File name too long"
            # /bin/NAME and /usr/bin/NAME run the built-in command (the files there only describe it)
            directory, _, base = name.rpartition("/")
            if st.fs.normpath(directory or "/") in COMMAND_DIRS and (
                base in SHELL_NAMES or self._builtin_command(base)
            ):
                return ("shell" if base in SHELL_NAMES else "command", name)
            stat = self.lookup_stat(name)
            if stat is None:
                if self.search_refused is not None:  # the policy refused the name: bash's EACCES, 126
                    self.refused_lookup = (name, self.search_refused)
                    return "", self.search_refused
                return "", _NO_FILE
            if stat.is_dir:
                return "", "Is a directory"
            return "script", name
        cached = self.hashed_now(name) if path is None and name in st.hashed else None
        if cached is not None:
            kind, _, where = cached.partition(":")
            if hashed_entry_ok(kind, where) and (kind != "script" or self.lookup_stat(where) is not None):
                self.searched = ""
                return kind, where
            del st.hashed[name]  # the hashed file is gone (or a foreign entry): search again
        if path is None:
            path = self.va.get_str("PATH")
        self.dot_found = False
        if not path:
            return self._bare_name(name)
        dirs = path.split(":")
        self.searched = name
        losing: list[str] | None = None if exec_only else []
        for d in dirs:
            d = d or "."
            if not self.dot_found and d[0] == ".":
                self.dot_found = st.fs.normpath(d) == st.fs.normpath(".")
            found = self._look_in(d, name, losing)
            if found is not None:
                return found
        if losing:
            return "script", losing[0]
        return "", ""

    def _bare_name(self, name: str) -> tuple[str, str]:
        """PATH unset or empty: bash uses the name itself, a path relative to the current directory
        (findcmd.c's find_user_command_in_path), and hashes nothing. Found: (kind, name); else
        ("", what execve would say of it)."""
        self.searched = ""
        found = self._look_in(".", name)
        if found is not None:
            return found[0], name
        stat = self.lookup_stat("./" + name)
        if stat is None:
            return "", _NO_FILE
        return "", "Is a directory" if stat.is_dir else "Permission denied"

    def _look_in(self, d: str, name: str, losing: list[str] | None = None) -> tuple[str, str] | None:
        """`name` in the directory `d` of a PATH search: (kind, path) or None. `losing`, when
        empty, takes the path of a file there that is not executable (find_command's fallback)."""
        candidate = d.rstrip("/") + "/" + name
        if self.state.fs.normpath(d) in COMMAND_DIRS:  # the command directories hold only built-in commands
            if name in SHELL_NAMES:
                return "shell", candidate
            if self._builtin_command(name):
                return "command", candidate
            return None
        stat = self.lookup_stat(candidate)
        if stat is not None and not stat.is_dir:
            if stat.is_program:
                return "script", candidate
            if losing is not None and not losing:
                losing.append(candidate)
        return None

    def _temporary_path(self) -> bool:
        """PATH is bound for this command alone (`PATH=/x prog`): bash searches it and hashes
        nothing (findcmd.c's temp_path)."""
        vars_ = self.state.vars
        i, found = vars_.find_scope("PATH")
        return found is not None and bool(getattr(vars_.scopes[i], "temp", False))

    def lookup_stat(self, path: str) -> Stat | None:
        """try_stat(path) for a command lookup, asked once per command: the first-word check, the
        run, `type` and `command -v`, `hash` all look a name up again while nothing has run in
        between (the run's command count is unchanged), and bash searches once: one stat of each
        path, so one decision (and one audit event) of a refused one."""
        fs = self.state.fs
        budget = self.sh.rt.budget
        count = budget.commands
        memo = self.lookup_stats
        if (
            memo is None
            or memo[0] != count
            or memo[3] is not budget  # (a session's next run counts from 0 again)
            or memo[1] != fs.cwd
            or len(memo[2]) >= _LOOKUP_STATS
        ):
            memo = self.lookup_stats = (count, fs.cwd, {}, budget)
        table = memo[2]
        got = table.get(path)
        if got is None:
            try:
                got = fs.stat(path)
            except FsError as e:  # (its text only: the error's traceback would keep frames alive)
                got = e.message if e.rule else ""
            table[path] = got
        if isinstance(got, str):
            if got and self.search_refused is None:
                self.search_refused = got
            return None
        return got

    def hashed_now(self, name: str, count: bool = True) -> str | None:
        """The hash table's entry for `name` ("kind:path") as bash's phash_search reads it, or None
        (no entry, or search PATH again). A path relative to the directory it was found from (PATH
        held `.` or `bin`) is tried as ./PATH first; one in a `.` directory that is not there any
        more is searched again; a name found past `.` in PATH runs ./NAME once there is one.
        `count`: a lookup counts a hit, whatever it gives (bash's hash_search)."""
        table = self.state.hashed
        entry = table.get(name)
        if entry is None:
            return None
        if count:
            hit = getattr(table, "hit", None)  # (a session restored it as a plain dict)
            if hit is not None:
                hit(name)
        where = entry.partition(":")[2]
        relative = where[:1] != "/"
        if not relative:
            dotted = getattr(table, "dotted", None)
            if not dotted or name not in dotted:
                return entry
        tail = where if relative else name
        dot = tail if tail.startswith("./") else "./" + tail
        head, _, base = dot.rpartition("/")
        found = self._look_in(head, base)
        if found is not None:
            return f"{found[0]}:{dot}"
        if where[:1] == "." and "/" in where:
            fs = self.state.fs
            if fs.normpath(where.rpartition("/")[0]) == fs.normpath("."):
                return None
        return entry

    def _executable(self, path: str) -> bool:
        """Whether the file at `path` has an execute bit (posix mode and checkhash hash only such
        a file: findcmd.c's search_for_command)."""
        stat = self.state.fs.try_stat(path)
        return stat is not None and stat.is_program

    def _builtin_command(self, name: str) -> bool:
        """A command of the table that exists in this sandbox (curl and wget
        only when a network is configured)."""
        commands = self.sh.rt.commands
        if not commands.known(name):
            return False
        if self.sh.rt.network is None and commands.needs_network(name):
            return False
        return self.sh.rt.host is not None or not commands.needs_host(name)

    def command_visible(self, name: str) -> bool:
        """Whether `type`, `command -v`, `which`, `hash` and `help` may show `name`."""
        gates = self.sh.rt.gates
        if gates is None or gates.policy is None:
            return True
        kind, runs = self.resolve_command(name)
        return gates.visible(name, kind, runs)

    def _find_program(self, name: str, path: str | None = None, refusal: bool = False) -> str | None:
        # not filtered by the policy: env/xargs/timeout must reach the gate (126, its message)
        kind, where = self.find_command(name, path)
        if refusal:  # (Ctx.program_refusal: asked right after a search that found nothing)
            return self.search_refused if not kind else None
        if not kind and "/" not in name and self.sh.rt.spawner is not None and self.sh.rt.spawner.finds(name):
            return name  # box mode: a host program (run through the executor's hook like any command)
        return where if kind else None

    def run_external(
        self,
        argv: list[str],
        env: dict[str, str],
        found: tuple[str, str] | None = None,
        own_env: bool = False,
    ) -> int:
        """Run argv as a command or script; `found`: the lookup the gate decided on (find_command);
        `own_env`: env is a fresh copy of the shell's exports for a simple command."""
        st = self.state
        name = argv[0]
        cached = self.hashed_now(name, count=False) if name in st.hashed else None
        if (
            cached is not None
            and cached.startswith("script:")
            and not (st.shopts["checkhash"] or st.opts["posix"])
        ):
            stale = cached[len("script:") :]
            if self.lookup_stat(stale) is None:
                # bash runs the remembered path without searching again (the lookup a hit)
                hit = getattr(st.hashed, "hit", None)
                if hit is not None:
                    hit(name)
                self.sh.error(f"{stale}: No such file or directory")
                return 127
        kind, where = found if found is not None else self.find_command(name)
        if kind == "":
            spawner = self.sh.rt.spawner  # box mode: a host program from a [tool.<name>] table
            if "/" in name:
                if spawner is not None and name.startswith("/") and where == _NO_FILE:
                    self._exec_args(argv)
                    status = spawner.run(self.sh, argv, env)  # (None: no table runs that program)
                    if status is not None:
                        return status
                self.sh.error(f"{name}: {where}")
                return 127 if where == _NO_FILE else 126
            if spawner is not None and spawner.finds(name):
                self._exec_args(argv)
            status = spawner.run(self.sh, argv, env) if spawner is not None else None
            if status is not None:
                return status
            if where:  # PATH unset or empty: bash ran NAME itself, and says what execve said
                self.sh.error(f"{name}: {where}")
                return 127 if where == _NO_FILE else 126
            handler = st.functions.get("command_not_found_handle")
            if handler is not None:
                return self.ev.call_function(
                    "command_not_found_handle", handler, ["command_not_found_handle", *argv], None
                )
            self.sh.error(f"{printable_name(name)}: command not found")
            from ..commands.shellutils.hints import not_found_hint  # the rare path only

            hint = not_found_hint(name, lambda alt: self._builtin_command(alt) and self.command_visible(alt))
            if hint is not None:
                self.sh.write_err(hint + "\n")
            return 127
        if (
            st.opts["hashall"]
            and "/" not in name
            and where != name  # (found as itself, PATH empty: bash hashes nothing)
            and (name not in st.hashed or self.searched == name)
            and not self._temporary_path()
            and (
                kind != "script"
                or not (st.opts["posix"] or st.shopts["checkhash"])
                or self._executable(where)
            )
        ):
            # a new entry, or one the table sent back to PATH (hashed_now): found again, it is
            # replaced, this run its first hit, with where PATH's search passed `.` (HASH_CHKDOT)
            st.hashed.pop(name, None)
            st.hashed.setdefault(name, f"{kind}:{where}")
            if self.dot_found and self.searched == name:
                mark = getattr(st.hashed, "mark_dot", None)  # (a session restored it as a plain dict)
                if mark is not None:
                    mark(name)
        if self.sh.execs == 1:
            # the shell's own process becomes the program (Executor._in_place_of_shell): bash
            # lowers SHLVL first, unless in a pipeline stage that is no `( )` (SUBSHELL_PIPE)
            self.sh.execs = 2
            if not self.sh.subenv & SUBENV_PIPE:
                if not own_env:
                    env = dict(env)
                shell_level_down(self.sh, env, own=not st.subshell)
        if own_env:
            env["_"] = where  # bash puts the program's full path in the environment it builds as `_`
        self._exec_args(argv)
        if kind == "shell":
            return self.pr.run_shell_command(argv, env)
        if kind == "script":  # its $0 is the path found (`./s` for PATH=.), as execve gives it
            return self.pr.run_script_file(where, [where, *argv[1:]], env)
        base = where.rsplit("/", 1)[-1]
        return self.run_registry(base, argv, env)

    def _exec_args(self, argv: list[str]) -> None:
        """bash's ARG_MAX: what the shell would exec (a command, script or shell) gets at most
        max_arguments words of max_argument_bytes characters in all. Builtins, functions and
        for-lists are bounded as they are expanded (Limits.shell_words), a program here: xargs,
        find -exec and env reach it too (Ctx.run dispatches programs_only)."""
        limits = self.sh.rt.limits
        if len(argv) > limits.max_arguments:
            raise limits.over(LimitKind.MAX_ARGUMENTS)
        if len(argv) > 1 and sum(map(len, argv)) > limits.max_argument_bytes:
            raise limits.over(LimitKind.MAX_ARGUMENT_BYTES)

    def run_registry(self, name: str, argv: list[str], env: Mapping[str, str]) -> int:
        rt = self.sh.rt
        record = rt.commands.lookup(name, host=rt.host is not None)
        if record is None:
            self.sh.error(f"{printable_name(argv[0])}: command not found")
            return 127
        # (commands/invoke.py and the command context it builds: a run of builtins alone needs neither)
        from ..commands.invoke import UNMODELLED, Capabilities, invoke

        if record.effects is None and rt.policy_gate is not None:
            # a command the static check cannot model cannot run under a policy (custom.py)
            self.sh.write_err(f"{self.sh.err_prefix()}{argv[0]}: {UNMODELLED}\n")
            return 126
        caps = Capabilities(
            rt.budget,
            self._ctx_runner,
            self._ctx_script_runner,
            self._find_program,
            rt.clock,
            rt.identity,
            rt.network,
            rt.host,
            rt.policy_gate,
            self._command_died,
        )
        state = self.state
        # (the shell's generator when the command first asks: most commands never do, and a first
        # read imports random)
        status = invoke(
            record, argv, state.fds, state.fs, env, caps, lambda: state.rng, self.sh.err_prefix, name
        )
        if rt.jobs:
            notify_dead_jobs(self.sh)  # bash reports jobs killed by a signal when a foreground command ends
        if self.sh.pr.coproc is not None:
            self.sh.pr.reap_coproc()
        return status

    def _command_died(self, sig: int) -> None:
        """A command's own process died of `sig` (commands.context.DiedOfSignal): kept for the
        report of the command that ran it, with a pid of its own (_child_died)."""
        self.sh.child_death = (sig, self.sh.rt.new_pid())

    def _ctx_runner(
        self,
        argv: Sequence[str],
        stdin: Stream,
        stdout: Stream,
        stderr: Stream,
        env: Mapping[str, str] | None,
        cwd: str | None = None,
        timeout: float | None = None,
    ) -> int:
        """Ctx.run: a sub-command from a command (xargs, find -exec, env ...)."""
        child = self.sh.fork()
        child.state.hashed = {}  # a program's own exec searches PATH: the shell's hash table is not its
        child.ex.sets_underscore = False
        if timeout is not None:
            child.rt = self.sh.rt.with_budget(self.sh.rt.budget.child(timeout))
        child.state.fds.update({0: stdin, 1: stdout, 2: stderr})
        if cwd is not None:
            child.state.fs.cwd = child.state.fs.normpath(cwd)
        if env is not None:
            # `env -i`, `env X=1 cmd`: the child sees exactly this environment. The scopes the
            # fork copied above the globals go first: a temporary assignment (`X=1 env -u X cmd`,
            # `X=1 env -i cmd`) or a function's local is no part of the new program's
            # environment unless `env` kept it (then it is in `env`)
            store = child.state.vars
            if len(store.scopes) > 1:
                del store.scopes[1:]
                store.renew_names()
            scope = store.globals
            for n, v in list(scope.items()):
                if v.attrs & EXPORT and n not in env:
                    v.attrs &= ~EXPORT
            for n, val in env.items():
                scope[n] = Var(val, EXPORT)
            funcs = child.state.exported_funcs
            if funcs:  # (and the exported functions it holds: `env -i bash -c f` has no f)
                child.state.exported_funcs = {f for f in funcs if f"BASH_FUNC_{f}%%" in env}
        # the caller's search for the program (run_program's find_program) is the run's own
        memo = self.lookup_stats
        budget = self.sh.rt.budget
        if memo is not None and (
            memo[0] != budget.commands or memo[3] is not budget or memo[1] != child.state.fs.cwd
        ):
            memo = None
        try:
            child.rt.budget.command()
            if memo is not None:
                child.ex.lookup_stats = (child.rt.budget.commands, memo[1], memo[2], child.rt.budget)
            if timeout is None:
                return child.ex.dispatch(list(argv), None, (), programs_only=True)
            with thread_deadline(child.rt.budget):
                return child.ex.dispatch(list(argv), None, (), programs_only=True)
        except ExitShell as e:
            return e.status
        except DeadlineExpired:
            if timeout is None:
                # a deadline this call did not set (an enclosing `timeout N xargs ...`, or the run's
                # own): it ends the command that set it, through every command between
                raise
            from ..commands.context import CommandTimeout

            raise CommandTimeout() from None
        finally:
            if child.child_death is not None:  # (`env bash -c 'kill -9 $$'`: env dies of it too)
                self.sh.child_death = child.child_death
            release_ended(child)

    def _ctx_script_runner(
        self,
        script: str,
        args: Sequence[str],
        stdin: Stream,
        stdout: Stream,
        stderr: Stream,
        env: Mapping[str, str] | None,
    ) -> int:
        """Ctx.run_script: `sh -c SCRIPT` semantics (awk system(), sed e)."""
        child = self.pr.spawn_shell(env if env is not None else self.va.exported_env())
        child.state.fds.update({0: stdin, 1: stdout, 2: stderr})
        child.state.arg0 = args[0] if args else "sh"
        child.state.positional = list(args[1:])
        return child.run_toplevel(script, "-c")

    # ------------------------------------------------------------ tracing

    def xtrace_line(self, text: str) -> None:
        ps4 = self.va.get_str("PS4")
        prefix = "+ " if ps4 is None else self._ps4(ps4)
        sh = self.sh
        # bash's indirection level: one `+` more in each subshell, eval, sourced file and trap
        level = sh.subst_depth + sh.eval_depth + len(self.state.sources) + sh.trap_depth + 1
        if prefix:
            prefix = prefix[0] * (level - 1) + prefix
        fd = self.va.get_str("BASH_XTRACEFD")
        stream = self.state.fds.get(int(fd)) if fd and fd.isdigit() and fd != "2" else None
        if stream is not None:  # the trace goes to the file descriptor BASH_XTRACEFD names
            stream.write(f"{prefix}{text}\n".encode("utf-8", "surrogateescape"))
            return
        self.sh.write_err(f"{prefix}{text}\n")

    def _ps4(self, ps4: str) -> str:
        if "$" not in ps4 and "`" not in ps4 and "\\" not in ps4:
            return ps4
        # a prompt string, as bash's indirection_level_string decodes it (`\s`, `\e`, `\w`, ...)
        from .prompt import expand_prompt

        saved = self.state.opts["xtrace"]
        self.state.opts["xtrace"] = False
        try:
            return expand_prompt(self.sh, ps4)
        except Exception:
            return ps4
        finally:
            self.state.opts["xtrace"] = saved


def hashed_entry_ok(kind: str, where: str) -> bool:
    """Whether a hash table entry is one the shell makes (find_command, hash_entry): a shell by its
    own name, a command or a script at a path. Any other (a restored snapshot's) is searched again:
    run_external would run its path's base while the gate decided on something else."""
    if kind == "shell":
        return where.rsplit("/", 1)[-1] in SHELL_NAMES
    return kind in ("command", "script") and where != ""


def _item_text(item: A.ArrayItem) -> str:
    """A word of a compound assignment as written."""
    if item.key is None:
        return item.value.text
    return f"[{item.key.text}]{'+=' if item.append else '='}{item.value.text}"


def _tildes_as_text(word: A.Word) -> A.Word:
    """`word` with its tilde prefixes as plain text."""
    if not any(type(p) is A.Tilde for p in word.parts):
        return word
    parts = tuple(A.Lit("~" + p.user) if isinstance(p, A.Tilde) else p for p in word.parts)
    return A.Word(parts, word.line, word.text, word.col)


def arrayref_args(words: tuple[A.Word, ...]) -> int:
    """bash's fix_arrayref_words: where the arguments of a builtin that takes array references
    start when the command (as written, after any `command`) is one, else 0."""
    for i, w in enumerate(words):
        parts = w.parts
        if len(parts) != 1 or type(parts[0]) is not A.Lit:
            return 0
        text = parts[0].text
        if text != "command":
            return i + 1 if text in ARRAYREF_BUILTINS else 0
    return 0


def _callable(
    st: ShellState, name: str, no_functions: bool = False
) -> tuple[A.FuncDef | None, Builtin | None]:
    """The function or builtin `name` runs as (neither: a command or script)."""
    fdef = None if no_functions else st.functions.get(name)
    if fdef is not None and st.opts["posix"] and name in SPECIAL:
        fdef = None  # POSIX: special builtins are found before functions
    builtin = (
        None
        if fdef is not None or name in st.disabled_builtins
        else loaded(name) or (lookup(name) if name in PENDING else None)
    )
    return fdef, builtin


# special builtins whose status 2 is a usage error (bash's EX_USAGE), fatal in POSIX mode; eval and
# source return their script's status instead
_USAGE_FATAL = SPECIAL - {"eval", ".", "source"}


def _run_builtin(self: Shell, builtin: Builtin, name: str, argv: list[str]) -> int:
    try:
        status = builtin(self, argv)
        if status == 2 and name in _USAGE_FATAL and self.ex.posix_special(name):
            raise ExitShell(2)  # a special builtin's usage error ends a POSIX shell
        return status
    except Exception as e:
        return builtin_failed(self, name, e)


def assign_failed(sh: Shell, cmd: str, e: AssignError) -> None:
    """An assignment a builtin made failed (read, printf -v, mapfile): bash names the builtin for
    some errors; the others it reports with report_error (Shell.report_error: `set -e` ends the
    shell)."""
    if e.named:
        sh.builtin_error(cmd, e.message)
    else:
        sh.report_error(e.message)


def builtin_failed(sh: Shell, name: str, e: Exception) -> int:
    """A builtin raised one of the errors it reports as its status (an AssignError it did not name
    goes on, to the caller that reports it as an assignment's). Any other Exception is a bug in the
    builtin, made what a command's bug is (commands/invoke.py): one `NAME: internal error` line,
    status 1, and the script goes on (bash's builtins run in the shell and cannot fail that way).
    The shell's control flow, limits and cancellation are BaseExceptions and pass by; MemoryError,
    RecursionError and OverflowError go on to the run, which makes them the limit they are nearest to.
    Every site that runs a builtin (_run_builtin, the compiled code's inline copies) ends here."""
    if isinstance(e, (MemoryError, RecursionError, OverflowError)):
        raise e
    if isinstance(e, StreamError):  # writing to a closed or read-only fd
        sh.builtin_error(name, f"write error: {e.strerror}")
        return 1
    if isinstance(e, ExpansionError):  # e.g. `read n` into an integer variable
        # (a subscript's error names no builtin: `read 'a[1/0]'`, `printf -v 'a[1/0]'`)
        return sh.expansion_failed(e, None if isinstance(e, ElementError) else name)
    if isinstance(e, AssignError):
        if not e.named:
            raise e
        sh.builtin_error(name, e.message)  # (`getopts x r` with r a nameref without a target)
        return 1
    # (the message cut short: an exception's text may hold a value of any size)
    sh.builtin_error(name, f"internal error ({type(e).__name__}: {str(e)[:200]})")
    return 1


def _trace_array_source(a: A.Assign) -> str:
    """`set -x` shows `n=($@)` with its words as written, one blank apart ($'...' already decoded,
    as bash's parser leaves it: `'<TAB>'`)."""
    words = [
        ansi_decoded(w.value.text)
        if w.key is None
        else f"[{w.key.text}]{'+' if w.append else ''}={ansi_decoded(w.value.text.removeprefix('=') if w.append else w.value.text)}"
        for w in a.array or ()
    ]
    return f"{a.name}{'' if a.sub is None else f'[{a.sub}]'}{'+=' if a.append else '='}({' '.join(words)})"


def _trace_assign(
    name: str,
    sub: str | None,
    append: bool,
    value: str,
    items: list[tuple[str | None, str, bool]] | None,
    c_locale: bool = False,
) -> str:
    """How `set -x` shows an assignment (`c_locale`: _xquote's)."""
    head = name + (f"[{sub}]" if sub is not None else "") + ("+=" if append else "=")
    if items is not None:
        return (
            head
            + "("
            + " ".join(
                _xquote(v, c_locale) if k is None else f"[{k}]={_xquote(v, c_locale)}" for k, v, _ in items
            )
            + ")"
        )
    return head + (_xquote(value, c_locale) if value else "")  # (bash: `+ e=`, not `+ e=''`)


trace_assign = _trace_assign  # (export and readonly trace their `name=value` words, as bash)


def _xquote(word: str, c_locale: bool = False) -> str:
    """How `set -x` shows a word (bash's xtrace_print_word_list): $'...' for control characters
    other than tab and newline and for bytes that are no text; single quotes only when the word
    holds a shell metacharacter (sh_contains_shell_metas: `a^b` and `'~a'` quoted, `a~b`, `a#b`
    and printable non-ASCII text as they are; `c_locale`: in the C locale no byte >= 0x80 is
    printable, so such a word is $'\\303\\251')."""
    if word == "":
        return "''"
    if any((ord(c) < 32 and c not in "\t\n") or ord(c) == 127 or 0xDC80 <= ord(c) <= 0xDCFF for c in word):
        return quote_reusable(word)
    if shell_metas(word):
        return single_quote(word)
    return quote_reusable(word, True) if c_locale and not word.isascii() else word


xquote = _xquote


def _compound_trace(name: str, append: bool, items: list[tuple[str | None, str, bool]]) -> str:
    """`set -x` shows a declaration builtin's compound assignment (`declare -a a=(1 2)`) on its own
    line with every element single-quoted (`a=('1' '2')`, `h=(['k']='v')`)."""
    words = " ".join(
        ("" if key is None else f"[{single_quote(key)}]{'+' if add else ''}=") + single_quote(value)
        for key, value, add in items
    )
    return f"{name}{'+' if append else ''}=({words})"


def _xtrace_word(word: str, c_locale: bool = False) -> str:
    """A word of the traced command: a compound assignment shows as its name alone (bash)."""
    if isinstance(word, AssignArg) and word.items is not None:
        return word.name
    return _xquote(word, c_locale)


@cache
def _keyword_head() -> re.Pattern[str]:
    """`name=` / `name+=` at a word's start (`set -k`): compiled on first use, not by every start-up."""
    return re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")


def _keywords_to_assigns(cmd: A.SimpleCommand) -> A.SimpleCommand:
    """`set -k`: every word after the command name shaped like an assignment (unquoted
    `name=`) is one, for the command's environment, as bash's place_keywords_in_env."""
    assigns = list(cmd.assigns)
    words = [cmd.words[0]]
    for w in cmd.words[1:]:
        first = w.parts[0] if w.parts else None
        if type(first) is A.AssignWord and len(w.parts) == 1:
            a = first.assign
            if a.array is None and a.sub is None:
                assigns.append(a)  # (`local v=1`: bash moves a declaration's words too)
                continue
        m = _keyword_head().match(first.text) if isinstance(first, A.Lit) else None
        if m is None or first is None or not isinstance(first, A.Lit):
            words.append(w)
            continue
        rest = first.text[m.end() :]
        parts = ((A.Lit(rest),) if rest else ()) + w.parts[1:]
        value = A.Word(parts, w.line, w.text[m.end() :], w.col + m.end())
        assigns.append(A.Assign(m.group(1), value, None, bool(m.group(2)), None, w.text))
    if len(words) == len(cmd.words):
        return cmd
    return A.SimpleCommand(tuple(assigns), tuple(words), cmd.redirs, cmd.line, cmd.col)


# special builtins whose temporary bindings bash keeps as a context of their own while they run
_BUILTIN_ENV = frozenset((".", "source", "eval", "unset"))
# the builtins whose temporary bindings are a context of their own, which their stores change and
# which goes with them (execute_builtin's isbltinenv: mapfile runs callbacks, read and fc use
# readline), and the declarations, which find the binding themselves (builtins/varcmds.py); any
# other builtin's store into its binding reaches the variable it hides too (_stores_through)
_OWN_CONTEXT = _BUILTIN_ENV | {
    "mapfile",
    "readarray",
    "read",
    "fc",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
}


def _stores_through(argv: list[str]) -> bool:
    """Whether the builtin `argv` runs stores through its temporary bindings (THROUGH): any but
    _OWN_CONTEXT's, `command` and `builtin` as the builtin they run."""
    i = 0
    while i < len(argv) and argv[i] in ("command", "builtin"):
        i += 1
        while i < len(argv) and argv[i][:1] == "-" and argv[i] != "-":
            i += 1  # (`command -p`, `--`)
    return i == len(argv) or argv[i] not in _OWN_CONTEXT


def _debug_applies(st: ShellState) -> bool:
    """A DEBUG trap is not inherited by functions (unless functrace, or traced functions called
    from where it was set), except the one it was set in."""
    return not st.frames or st.trap_reaches(st.debug_trap_depth) or bool(st.opts["functrace"])


def unparse_command(cmd: A.Command) -> str:
    from ..syntax.unparse import unparse

    try:
        return unparse(cmd)
    except Exception:
        return ""
