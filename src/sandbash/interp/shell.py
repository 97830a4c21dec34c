"""The shell: one object per (sub)shell, tying state, expansion, evaluation
and execution together.

`Shell` implements the expansion environment (`expand.env.ExpandEnv`), error
reporting with bash's prefixes, and the top-level read-parse-execute loop.
The evaluator (control flow) and executor (dispatch, redirections, pipelines)
are mixins in their own modules.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..expand import glob as globmod
from ..expand.arith import (
    _COMPILED,
    HOT_CALLS,
    ArithAssign,
    ArithError,
    assign_generated,
    compiled,
    under_let,
)
from ..expand.arith import Evaluator as ArithEvaluator
from ..expand.arith import Template as ArithTemplate
from ..expand.arithops import INTS, wrap
from ..expand.env import ArithAssignError, ExpansionError
from ..expand.words import Expander, subscript_error
from ..limits import BIG_EXPANSION, LimitExceeded, LimitKind
from ..shvars.arrays import AssocArray, IndexedArray
from ..shvars.vars import ARRAY, ASSOC, EXPORT, NAMEREF, VAR_OVERHEAD, Scope, Var, value_size
from ..stdio.streams import BufferWriter, SigPipe, Stream, StreamError
from ..syntax import ast as A
from ..syntax.errors import ParseError, ParseLimit
from ..syntax.lexer import ARITH, KEY
from ..syntax.parser import Parser
from ..textcache import TextCache
from ..vfs.errors import FsError
from .control import AbortCommand, ExitShell, KilledBySignal
from .evaluator import Evaluator
from .executor import Executor, unparse_command
from .framestack import with_room
from .jobs import cleanup_dead_jobs, notify_dead_jobs, one_shot_tail, shell_level, take_signals
from .processes import Processes
from .redirects import Redirections
from .runtime import Runtime
from .state import ShellState
from .variables import (
    AS_EXPANDED,
    NOT_PLAIN,
    OPTION_VARS,
    AssignError,
    EmptySubscript,
    ReadonlyError,
    Variables,
    element_index,
    plain_index,
)

TYPE_CHECKING = False

# the indexes whose text is a plain index (variables.plain_index: fewer than 19 digits)
_PLAIN_INDEX_END = 10**18

# parsed subscript texts, shared by every run of the process: keyed by everything that shapes
# the parse (lexer mode, extglob, the parse limits); never holding a parse aliases took part in
_SUB_CACHE: TextCache[tuple[str, int, bool, int, int], A.Word] = TextCache()

if TYPE_CHECKING:
    from .aliasrun import TextRun

# aliasrun.run_parse, imported by the first substitution read again with aliases (start-up and
# scripts without aliases never import it; an import statement in command_sub costs ~1 us a call)
_run_parse: Callable[[Shell, A.CmdSub | A.ProcSub], A.CommandList | TextRun] | None = None


def _alias_parse(sh: Shell, sub: A.CmdSub | A.ProcSub) -> A.CommandList | TextRun:
    global _run_parse
    if _run_parse is None:
        from .aliasrun import run_parse

        _run_parse = run_parse
    return _run_parse(sh, sub)


def _after_line(text: str, n: int) -> str | None:
    """`text` after its first `n` lines (None when nothing follows them)."""
    pos = 0
    for _ in range(n):
        pos = text.find("\n", pos) + 1
        if pos == 0:
            return None
    return text[pos:]


_ARITH_SLOTS = frozenset(("_arith",))

# Shell.release: the parts of a shell, and their slots that can lead back to the shell or another
# part (per class: the names among its slots)
_PARTS = ("va", "rd", "ex", "pr", "ev")
_LINK_NAMES = frozenset(("sh", "expander", "va", "rd", "ex", "pr", "ev", "_comp"))
_LINKS: dict[type, tuple[str, ...]] = {}

# what builtins and the expansion environment ask a shell for, and the part whose method answers
_FACADE: dict[str, str] = {
    "lookup": "va",
    "get_str": "va",
    "set_var": "va",
    "set_array": "va",
    "var_names": "va",
    "nameref_target": "va",
    "pin_random": "va",
    "eval_index": "va",
    "execute": "ev",
    "run_list": "ev",
    "expansion_failed": "ev",
    "xtrace_line": "ex",
}


_LINE_KEEPING_TRAPS = frozenset({"ERR", "DEBUG", "RETURN"})
# the name a syntax error in a trap's text gives as its source (any other signal's: "trap")
_TRAP_SOURCES = {
    "EXIT": "exit trap",
    "INT": "interrupt trap",
    "ERR": "error trap",
    "DEBUG": "debug trap",
    "RETURN": "return trap",
}


class ReadFailed(str):
    """The subscript of a read-modify-write that named no element (a negative index before the
    start of the array): reported as it was evaluated, read as unset, and evaluated again by the
    store, as bash does (`(( a[i++ - 10] += 1 ))` counts i up twice)."""

    __slots__ = ()


class Shell:
    # The facade (_FACADE): each name is its part's own bound method, made on first use. A shell is
    # forked for every $(...), and most forks need none of them (measured: binding all eleven at
    # each fork cost 11k of 239k instructions per fork).
    lookup: Callable[[str], Var | None]
    get_str: Callable[[str], str | None]
    set_var: Callable[..., None]
    set_array: Callable[..., None]
    var_names: Callable[[], list[str]]
    nameref_target: Callable[[str], str | None]
    pin_random: Callable[[int | None], int | None]
    eval_index: Callable[..., int]
    execute: Callable[[A.Command], int]
    run_list: Callable[[A.CommandList], int]
    expansion_failed: Callable[..., int]
    xtrace_line: Callable[[str], None]
    _arith: ArithEvaluator

    def _new_arith(self, name: str) -> ArithEvaluator:
        """The arithmetic evaluators, made on first use (a `$(echo ok)` needs none, and the main one
        holds the variable scopes: a lazy fork would copy them at once)."""
        ev = ArithEvaluator(self, "")
        if name == "_arith":
            ev.scopes = self.state.vars.scopes
            ev.names = self.state.vars.local_names
            ev.opts = self.state.opts
            ev.bump = self.arith_bump
            ev.resized = self.arith_resized
            ev.element = self.arith_element
            ev.put = self.arith_put
            ev.assign = self.arith_assign_element
        setattr(self, name, ev)
        return ev

    def __init__(self, state: ShellState, rt: Runtime) -> None:
        if state.vars.acct.budget is None:  # a new shell (`bash -c`): what it holds counts to max_memory
            state.vars.acct.budget = rt.budget
        self._setup(state, rt)

    def _setup(self, state: ShellState, rt: Runtime) -> None:
        self.state = state
        self.rt = rt
        # (what its RunMode learns from the run: the gates, and signals queued for it from now on)
        state.run_mode.set_gates(rt.gates is not None)
        rt.watch(state)
        self.expander = Expander(self)
        self.seconds_base = time.monotonic()
        # the command $BASH_COMMAND names: its text is made only when read
        self.current_command: A.Command | str | None = None
        self.subst_depth = 0
        self.eval_depth = 0  # nested `eval`s: they count towards max_substitution_depth too
        self.call_depth = 0
        # a pipeline's simple-command stage running in this shell: (function, eval and source depth)
        # where its own status runs neither the ERR trap nor set -e (bash tests them only for a
        # command with no pipe: the pipeline's status does); None elsewhere
        self.pipe_stage: tuple[int, int, int] | None = None
        # the same for the command of a `!` pipeline run without set -e (exec_pipeline)
        self.inverted: tuple[int, int, int] | None = None
        self.negated: object = None  # and that command itself
        # (_arith, the arithmetic evaluator, is made on first use: _new_arith)
        # the API's `args`: appended, unexpanded, to the first command run (pending_args; a shell
        # made over an existing state, a twin, leaves the state's RunMode as it is)
        self._pending_args: list[str] | None = None
        # $? from before the trap running now: what `return` without a number gives inside it
        # (bash's trap_saved_exit_value), even in a function the trap calls
        self.trap_status = 0
        self.trap_depth = 0  # traps running (but EXIT): each is a level of xtrace's `+`, as eval is
        # signals ignored when this shell process started: `trap` can neither set nor reset them
        self.entry_ignored: frozenset[str] = frozenset()
        # the parts, each given what it depends on (the evaluator and executor call each other)
        self.va = va = Variables(self, state)
        self.rd = rd = Redirections(self, state, self.expander, va)
        self.ex = ex = Executor(self, state, self.expander, va, rd)
        self.pr = ex.pr = Processes(self, state, self.expander, va, ex)
        self.ev = ev = Evaluator(self, state, self.expander, va, rd, ex)
        ex.ev = rd.ev = self.pr.ev = ev

    @property
    def pending_args(self) -> list[str] | None:
        """The API's `args` not yet given to a command (exec(args=...)): while there are, no
        command runs plainly (RunMode)."""
        return self._pending_args

    @pending_args.setter
    def pending_args(self, args: list[str] | None) -> None:
        self._pending_args = args
        self.state.run_mode.set_args(args is not None)

    @property
    def io(self) -> dict[int, Stream]:
        return self.state.fds

    def command_text(self) -> str:
        """$BASH_COMMAND: the text of the command running now."""
        cmd = self.current_command
        if isinstance(cmd, str):
            return cmd  # (a compound command's header: `for i in $x`, `((j < 2 ))`, `case $v in `)
        return "" if cmd is None else unparse_command(cmd)

    def wait_all_jobs(self) -> None:
        """The end of a run: the executor's grace for background jobs still working."""
        self.pr.wait_all_jobs()

    def new_process(self, state: ShellState) -> Shell:
        """Another shell process of this run over `state` (`bash -c`, a script, awk's system())."""
        return Shell(state, self.rt)

    def fork(self, lazy: bool = False, apart: bool = False) -> Shell:
        """A subshell. `lazy`: one this shell waits for and drops when it ends (`$( )`), whose state
        copies the parent's containers on first use (ShellState.fork). `apart`: one that runs while
        this shell goes on (a job, a coprocess, a process substitution, a pipeline stage beside a
        `lastpipe` stage), charged for what it shares (ShellState.fork)."""
        if self.rt.jobs:
            cleanup_dead_jobs(self)  # (bash cleans its job table at every fork: stop_pipeline)
        child = Shell.__new__(Shell)
        child._setup(self.state.fork(lazy, apart), self.rt)  # (its variables were charged to the budget)
        child.seconds_base = self.seconds_base
        child.subst_depth = self.subst_depth
        child.eval_depth = self.eval_depth
        child.call_depth = self.call_depth
        child.entry_ignored = self.entry_ignored
        child.state.bashpid = self.rt.new_pid()
        child.subenv = self.subenv
        return child

    def twin(self) -> Shell:
        """A shell over this shell's own state, with parts of its own (cmdsub.py runs a substitution's
        body in place with it)."""
        twin = Shell.__new__(Shell)
        twin._setup(self.state, self.rt)
        twin.entry_ignored = self.entry_ignored
        return twin

    def release(self) -> None:
        """Break the reference cycles of this ended shell (it and its parts refer to one another), so
        that reference counting frees it at once rather than the collector later: a `$( )` a loop
        runs 2,000 times otherwise left ~25 objects each to the collector (a third of the run's CPU).
        Only for a shell nothing else can still hold: one that started no process (ShellState and
        what it holds are left alone)."""
        own = self.__dict__
        twin = own.get("_inplace_twin")
        if twin is not None:
            twin.release()
        for key in _PARTS:
            part = own.get(key)
            if part is not None:
                cls = type(part)
                links = _LINKS.get(cls)
                if links is None:
                    links = _LINKS[cls] = tuple(n for n in getattr(cls, "__slots__", ()) if n in _LINK_NAMES)
                for name in links:
                    setattr(part, name, None)
        own.clear()

    # ------------------------------------------------------------ set-up

    def init_variables(self, env: dict[str, str]) -> None:
        """The variables a new bash process starts with: the environment
        (exported) plus bash's own."""
        from ..shvars.arrays import IndexedArray
        from ..shvars.vars import EXPORT, INTEGER, READONLY

        scope = self.state.vars.globals
        for name, value in env.items():
            if _valid_env_name(name):
                scope[name] = Var(value, EXPORT)
        ident = self.rt.identity
        cwd = self.state.fs.cwd
        scope["PWD"] = Var(cwd, EXPORT)
        if "OLDPWD" not in scope:
            scope["OLDPWD"] = Var(None, EXPORT)
        level = shell_level(env.get("SHLVL")) + 1
        scope["SHLVL"] = Var(str(level), EXPORT)
        defaults = {
            "IFS": " \t\n",
            "PS4": "+ ",  # (PS1 and PS2 are set by interactive shells only)
            "BASH": "/bin/bash",
            "BASH_VERSION": "5.2.15(1)-release",
            "HOSTNAME": ident.hostname,
            "HOSTTYPE": "x86_64",
            "MACHTYPE": "x86_64-pc-linux-gnu",
            "OSTYPE": "linux-gnu",
            # (set by every bash, interactive or not: listings, `${!C*}` and `compgen -v` show them;
            # no loadable builtin is ever read from that path here: `enable -f` refuses)
            "BASH_LOADABLES_PATH": "/usr/local/lib/bash:/usr/lib/bash:/opt/local/lib/bash:/usr/pkg/lib/bash:/opt/pkg/lib/bash:.",
            "COMP_WORDBREAKS": " \t\n\"'@><=;|&(:",
        }
        for name, value in defaults.items():
            if name not in scope:
                scope[name] = Var(value, 0)
        # getopts' two start at 1 whatever the environment said (bash's getopts_reset), exported
        # when they came from it; OPTIND is an integer
        for name, attrs in (("OPTIND", INTEGER), ("OPTERR", 0)):
            scope[name] = Var("1", attrs | (EXPORT if name in env else 0))
        if "PATH" not in scope:
            # bash's compiled-in default when its environment has no PATH (`env -i bash`), not exported
            scope["PATH"] = Var("/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.", 0)
        scope["BASH_VERSINFO"] = Var(
            IndexedArray(["5", "2", "15", "1", "release", "x86_64-pc-linux-gnu"]), READONLY | 64
        )
        self.state.vars.readonly_names.update(("BASH_VERSINFO", "UID", "EUID", "PPID"))
        scope["UID"] = Var(str(ident.uid), READONLY | INTEGER)
        scope["EUID"] = Var(str(ident.uid), READONLY | INTEGER)
        scope["PPID"] = Var(str(ident.ppid), READONLY | INTEGER)
        # bash keeps these two as readonly variables whose value it recomputes as options change:
        # stored without a value (Variables.lookup computes it), exported when they came from the
        # environment (a child bash takes its options from them: import_option_vars)
        for name in OPTION_VARS:
            scope[name] = Var(None, READONLY | (EXPORT if name in env else 0))
        self.state.vars.readonly_names.update(OPTION_VARS)

    def check_input_size(self, text: str) -> None:
        """A script's text over max_input_size ends the run on that limit."""
        limit = self.rt.limits.max_input_size
        if len(text) > limit:
            raise LimitExceeded(LimitKind.MAX_INPUT_SIZE, limit)

    def set_execution_string(self, text: str) -> None:
        """`bash -c TEXT` sets BASH_EXECUTION_STRING to TEXT, a plain variable, charged as any
        stored value is (a session's next run gives the old text's bytes back): a script that
        assigns or unsets it later gives back only what was charged."""
        self.check_input_size(text)  # (a text over max_input_size ends on that limit, not max_memory)
        store = self.state.vars
        scope = store.globals
        old = scope.get("BASH_EXECUTION_STRING")
        store.charge(scope, value_size(text) - (value_size(old.value) if old is not None else -VAR_OVERHEAD))
        scope["BASH_EXECUTION_STRING"] = Var(text, 0)

    # set while a builtin runs that bash prints with stdio and never checks (`help` with no name,
    # `kill -l`, `caller`, `command -v`/`-V`: no sh_chkwrite): a write that fails is dropped and the
    # status stays the builtin's own (run_unchecked)
    writes_unchecked = False

    def run_unchecked(self, fn: Callable[[], int]) -> int:
        """`fn()` with writes_unchecked set."""
        saved = self.writes_unchecked
        self.writes_unchecked = True
        try:
            return fn()
        finally:
            self.writes_unchecked = saved

    def out(self, text: str) -> None:
        stream = self.io.get(1)
        if stream is None or not stream.writable:
            if self.writes_unchecked:
                return
            raise StreamError(9, "Bad file descriptor")  # the builtin reports a write error
        try:
            stream.write(text.encode("utf-8", "surrogateescape"))
        except StreamError:
            if not self.writes_unchecked:
                raise
        if len(text) > BIG_EXPANSION:
            # a loop reads the clock every 64 commands, and a builtin that wrote this much took
            # long for one (`while :; do declare -p x; done` with a 9 MB x ran 4 s past a 2 s
            # deadline): read it now, as an expansion this long does
            self.rt.budget.check_time()

    # ------------------------------------------------------------ messages

    def err_prefix(self, with_line: bool = True) -> str:
        st = self.state
        name = self.err_name()
        if with_line and st.line > 0:
            return f"{name}: line {st.line}: "
        return f"{name}: "

    def err_name(self) -> str:
        """The name an error message starts with: bash's get_name_for_error, BASH_SOURCE[0] (the
        sourced file, the file a running function was defined in: `environment` for one a -c
        string defined), else $0."""
        st = self.state
        name = ""
        if st.sources and st.source_lines[-1][1] >= len(st.frames):
            name = st.sources[-1]  # a file `.` reads, in or out of a function: the file's name
        elif st.frames:
            name = st.frames[-1][1]
        if not name:
            # bash names BASH_SOURCE's file, else $0 (`bash -c`)
            name = st.script if st.mode == "file" and st.script else st.arg0
        return name

    def write_err(self, text: str) -> None:
        stream = self.io.get(2)
        if stream is None:
            return
        try:
            stream.write(text.encode("utf-8", "surrogateescape"))
        except OSError:
            pass

    def error(self, message: str) -> None:
        self.write_err(f"{self.err_prefix()}{message}\n")

    def report_error(self, message: str) -> None:
        """An error that does not stop the current command (`a: bad array subscript`, `r: readonly
        variable` from a builtin's or an arithmetic store), as bash's report_error: with `set -e`
        on it ends the shell, whatever tests the command (`read r <<< x || echo` exits), with the
        last status or 1. (eval in a tested context and a `$( )` without inherit_errexit run with
        the option off, as bash's exit_immediately_on_error.)"""
        self.error(message)
        st = self.state
        if st.opts["errexit"] and not st.builtin_ignoring_errexit:
            raise ExitShell(st.last_status or 1)

    def warn(self, message: str) -> None:
        self.write_err(f"{self.err_prefix()}warning: {message}\n")

    def builtin_error(self, name: str, message: str) -> None:
        self.write_err(f"{self.err_prefix()}{name}: {message}\n")

    def syntax_error(self, e: ParseError, source_name: str | None) -> None:
        st = self.state
        # (eval's text in a function a -c string defined: `environment: eval: line 1: ...`)
        name = self.err_name()

        def where(line: int) -> str:
            if source_name is None and st.sources:
                # a sourced file names itself: `./lib.sh: line 2: ...`
                return f"{st.sources[-1]}: line {line}: "
            if source_name:
                return f"{name}: {source_name}: line {line}: "
            return f"{name}: line {line}: "

        if e.message:  # (an error bash's parser reports nothing of itself: `[[ ]]`)
            self.write_err(f"{where(e.line)}{e.message}\n")
            if self.errexit_in_force():
                return  # (bash's parser_error ends the shell there: run_text)
        if e.source_line is not None:
            self.write_err(f"{where(e.line)}`{e.source_line}'\n")
        for message, line in e.extra:
            self.write_err(f"{where(line)}{message}\n")

    def errexit_in_force(self) -> bool:
        """Whether `set -e` would end the shell here (on and not in a tested context)."""
        st = self.state
        return st.opts["errexit"] and not st.errexit_ignored

    # ------------------------------------------------------------ the read-parse-execute loop

    def _comsub_parse_failed(self, e: ParseError, toplevel: bool) -> int:
        """A syntax error inside `$( )` or `<( )`: bash's parse_comsub stops a non-interactive
        shell reading (FORCE_EOF), from eval and source too. `bash -c` ends with 127; a script
        or a subshell with the error's status: 2 at a script's top level, 1 in eval or source
        (bash's EX_BADSYNTAX, 257), and for a [[ ]] error, which sets none, the status before
        the line or 1 for a 0. Under `set -e` the status is 2, from eval and source too, and
        bash -c's as well."""
        st = self.state
        if e.keep_status:
            status = st.last_status or 1
        else:
            status = 2 if toplevel or st.opts["errexit"] else 1
        if st.mode == "c" and not st.subshell and not st.opts["errexit"]:
            status = 127  # (under `set -e` bash -c exits with the error's status 2, as a script)
        st.last_status = status
        if toplevel:
            return status
        raise ExitShell(status)

    def make_parser(self, text: str, line_base: int = 1) -> Parser:
        st = self.state
        aliases = st.aliases if st.shopts["expand_aliases"] else None
        limits = self.rt.limits
        return Parser(
            text,
            aliases=aliases,
            extglob=st.shopts["extglob"],
            line_base=line_base,
            max_depth=limits.max_ast_depth,
            max_tokens=limits.max_tokens,
            posix=st.opts["posix"],
            tick=self.rt.budget.check_time,
        )

    def run_text(
        self, text: str, source_name: str | None = "-c", line_base: int = 1, toplevel: bool = False
    ) -> int:
        """Parse and run `text` one complete command at a time, as bash reads a
        script. A syntax error stops the text with status 2 (ends the shell under set -e)."""
        self.check_input_size(text)
        st = self.state
        if toplevel and st.mode in ("s", "file") and text.endswith("\\"):
            # a script read from a file or stdin that ends in a lone backslash: bash's line reader
            # takes it as a line continuation at end of input and drops it (a -c string keeps it)
            if (len(text) - len(text.rstrip("\\"))) % 2:
                text = text[:-1]
        parser = self.make_parser(text, line_base)
        stdin = st.fds.get(0) if toplevel and st.mode == "s" else None
        stream = toplevel and st.mode in ("s", "file")
        while True:
            if stdin is not None and st.fds.get(0) is not stdin:
                parser, stdin = self._script_from_new_stdin(parser)
            parser.aliases = st.aliases if st.shopts["expand_aliases"] else None
            parser.extglob = st.shopts["extglob"]
            parser.posix = st.opts["posix"]
            parser.stream = stream
            start = parser.pos
            try:
                node = parser.parse_next()
            except ParseLimit as e:
                raise LimitExceeded(LimitKind(e.limit), e.value) from None
            except ParseError as e:
                self.flush_parse_warnings(parser)
                self.syntax_error(e, source_name)
                if e.message and self.errexit_in_force():
                    # bash's parser_error ends a shell under set -e with 2 once it has said its
                    # first line: a script's, eval's, source's or a trap's text alike
                    raise ExitShell(2)
                if e.discard_line and not isinstance(e, ParseLimit):
                    st.last_status = 1
                    # (input that ended inside it leaves nothing to read on)
                    rest = None if e.incomplete else _after_line(parser.src, e.line - parser.line_base + 1)
                    if rest is None:
                        return 1
                    parser = self.make_parser(rest, e.line + 1)
                    continue
                if e.in_comsub and not e.incomplete and not e.discard_line:  # (EOF: bash reads on)
                    return self._comsub_parse_failed(e, toplevel)
                if not (e.keep_status and toplevel):  # eval and source always say 2
                    st.last_status = 2
                return st.last_status
            self.flush_parse_warnings(parser)
            if node is None:
                return st.last_status
            if st.opts["verbose"]:
                # `set -v`: each command is echoed as it is read
                self.write_err(parser.src[start : parser.pos].lstrip("\n").rstrip("\n") + "\n")
            if toplevel and st.opts["history"]:
                self._remember(parser.src[start : parser.pos].strip("\n"))
            if st.opts["noexec"]:
                continue
            st.ctx_line = parser.line_at(max(parser.pos - 1, 0))  # (bash's line_number: where it read to)
            if toplevel:
                if st.mode == "c" and parser.pos >= len(parser.src):
                    self.one_shot = one_shot_tail(node)  # (the string's last command: bash may exec it)
                if stream:
                    st.command_number += 1
                if self.rt.jobs and not st.subshell:
                    # as bash reads each command of a script: jobs a signal killed are reported,
                    # and the finished ones are told about (no longer listed by `jobs`)
                    notify_dead_jobs(self)
                try:
                    self.run_list(node)
                except AbortCommand as e:
                    # (bash -c reads its string as eval does: a dropped line leaves status 1)
                    st.last_status = 1 if e.status and st.mode == "c" else e.status
                    # bash's line counter stays where the command failed: a line of a compound
                    # command over several lines makes every later line read that much lower
                    skew = parser.line_at(max(parser.pos - 1, 0)) - st.line
                    if skew > 0:
                        parser.line_base -= skew
                    if e.status and e.errexit and st.opts["errexit"]:
                        raise ExitShell(e.status) from None  # `set -e` sees the aborted line fail
            elif st.subshell:
                self.run_list(node)  # (a subshell's discarded command ends the subshell)
            else:
                try:
                    self.run_list(node)
                except AbortCommand:
                    # eval, `.` and trap strings are read as bash's parse_and_execute reads them:
                    # an error that discards the command drops only this command of the text,
                    # with status 1, and the text goes on with its next one
                    st.last_status = 1

    def _remember(self, text: str) -> None:
        """`set -o history`: each command the script reads goes on the history list (as
        `history -s` adds it: a line of this shell's session)."""
        from .histline import history_line, histsize, push  # (set -o history only: not every run)

        text = history_line(text)
        st = self.state
        self.rt.budget.charge_memory(len(text) + 64)
        push(st, text, histsize(self.get_str("HISTSIZE")), True)
        st.history_added = True  # bash's hist_last_line_added: the entry is the command running

    def _script_from_new_stdin(self, parser: Parser) -> tuple[Parser, Stream | None]:
        """A script read from stdin (`bash < file`) that moves fd 0 (`exec 0< other`) goes on with
        the commands of the new input, as bash reads its commands from fd 0."""
        from .bashcmd import read_script  # (bounded as it is read: `exec 0< <(yes)` never ends)

        stdin = self.state.fds.get(0)
        data = read_script(self, stdin) if stdin is not None and stdin.readable else b""
        line = parser.line_at(max(parser.pos - 1, 0)) + 1
        return self.make_parser(data.decode("utf-8", "surrogateescape"), line), stdin

    def flush_parse_warnings(self, parser: Parser) -> None:
        for line, msg in parser.warnings:
            saved = self.state.line
            self.state.line = line
            self.write_err(f"{self.err_prefix()}{msg}\n")
            self.state.line = saved
        parser.warnings.clear()

    def run_toplevel(self, text: str, source_name: str | None = "-c") -> int:
        """Run a whole script as the main shell: EXIT trap, exit status."""
        if self.state.mode == "c":
            self.set_execution_string(text)
        try:
            status = with_room(self.run_text, text, source_name, toplevel=True)  # (see framestack)
        except KilledBySignal as e:  # (a signal without a trap: the shell dies of it)
            self.killed_by = e.signal
            if e.signal != 9:  # (SIGKILL) bash's termsig_handler runs the EXIT trap first; a KILL is
                # never seen; the status stays the signal's either way, and the trap sees the $?
                # of then (a `kill -TERM $$`'s own 0)
                self.run_exit_trap(self.state.last_status)
            return e.status
        except ExitShell as e:
            status = e.status
        except SigPipe:
            return 141  # a builtin wrote to a closed pipe: like bash, the shell dies of SIGPIPE
        if self.rt.signals:  # a SIGCHLD trap for the last command's child, a job's signal
            try:
                take_signals(self)
            except ExitShell as e:
                status = e.status
        status = self.run_exit_trap(status)
        return status

    def run_exit_trap(self, status: int) -> int:
        handler = self.state.traps.pop("EXIT", None)
        if handler:
            self.state.last_status = status
            try:
                self.run_trap_text(handler, "EXIT")
            except ExitShell as e:
                return e.status
            return status
        return status

    def run_trap_text(self, handler: str, signame: str) -> int:
        """Run a trap's `handler`; its status (the DEBUG trap's decides, under extdebug, whether
        the command runs: Executor.debug_trap)."""
        st = self.state
        saved_status = st.last_status
        saved_trap = st.in_trap
        saved_running = st.traps_running
        saved_line = st.line
        saved_pipes = st.pipestatus  # (bash keeps PIPESTATUS over a handler: trap.c saves it)
        outer_status = self.trap_status
        st.in_trap = signame
        st.traps_running = (*saved_running, signame)
        self.trap_status = saved_status
        nested = signame != "EXIT"
        self.trap_depth += nested
        try:
            # commands in an ERR, DEBUG or RETURN handler report the line of what triggered it;
            # an EXIT or signal handler is read as a text of its own, from line 1 (bash's
            # SEVAL_RESETLINE)
            base = max(st.line, 1) if signame in _LINE_KEEPING_TRAPS else 1
            # (a syntax error names the trap: `bash: exit trap: line 1: ...`, as bash's
            # parse_and_execute is told)
            return self.run_text(handler, _TRAP_SOURCES.get(signame, "trap"), line_base=base)
        finally:
            st.in_trap = saved_trap
            st.traps_running = saved_running
            self.trap_status = outer_status
            self.trap_depth -= nested
            st.line = saved_line
            if signame != "EXIT":
                st.last_status = saved_status
                st.pipestatus = saved_pipes

    # ------------------------------------------------------------ ExpandEnv

    def positional(self) -> list[str]:
        return self.state.positional

    def special(self, name: str) -> str:
        st = self.state
        if name == "?":
            return str(st.last_status)
        if name == "#":
            return str(len(st.positional))
        if name == "$":
            return str(st.pid or self.rt.identity.pid)
        if name == "!":
            return str(st.last_bg) if st.last_bg is not None else ""
        if name == "-":
            return st.dash_flags()
        if name == "0":
            return st.arg0
        return ""

    def option(self, name: str) -> bool:
        st = self.state
        v = st.opts.get(name)
        if v is not None:
            return v
        return st.shopts.get(name, False)

    def plain_scopes(self, name: str) -> tuple[list[Scope], set[str]] | None:
        """The store's scopes and local_names, for an expansion's closure that reads `name` in place
        (stringfn.inner_scopes; both the store's own for its life, as the arithmetic evaluator
        holds them), or None: a special name (NOT_PLAIN: computed as read, or kept apart), or a
        lazy subshell's store whose scopes are not copied yet (reading them here would copy them)."""
        store = self.state.vars
        if name in NOT_PLAIN or store.source is not None:
            return None
        return store.scopes, store.local_names

    def ifs(self) -> str:
        # (get_str's work inline for a string value: read asks for IFS at every line it splits;
        # outside functions and bindings a global IFS that is no reference is lookup's answer)
        scopes = self.state.vars.scopes
        if len(scopes) == 1:
            var = scopes[0].get("IFS")
            if var is not None and not var.attrs & NAMEREF and type(v := var.value) is str:
                return v
        var = self.va.lookup("IFS")
        if var is None:
            return " \t\n"
        v = var.value
        if type(v) is not str:
            v = self.get_str("IFS")  # (unset, or an array: its element 0)
        return " \t\n" if v is None else v

    def assign_default(self, name: str, sub: str | None, value: str) -> None:
        try:
            self.set_var(name, value, sub=sub)
        except AssignError as e:
            raise ExpansionError(e.message, 2) from None  # (bash: EX_BADUSAGE, the line dropped)

    def arith_tick(self) -> None:
        """A variable's value evaluated as an expression (arith.Evaluator.value_of): charged as work,
        the clock read every so often, as a loop over input is (no command counts it)."""
        self.rt.budget.checkpoint()

    def arith_get(self, name: str, sub: str | None) -> str | None:
        if sub is None:
            scopes = self.state.vars.scopes
            var = scopes[-1].get(name)
            if var is None and len(scopes) > 1:
                var = self.state.vars.find(name)
            if var is not None and not var.attrs & NAMEREF:
                v = var.value
                if type(v) is str:
                    return v
            v = self.get_str(name)
            if v is None and self.state.opts["nounset"]:
                raise ExpansionError(f"{name}: unbound variable", 127)
            return v
        var = self.lookup(name)
        if name == "RANDOM":  # (bash reads an element of RANDOM twice here: its value is the second)
            var = self.lookup(name)
        val = var.value if var is not None else None
        if isinstance(val, AssocArray):
            key = sub if self.arith_keys_as_is else self.subscript_key(sub)
            if not key:
                return self._empty_key(name, sub)
            return val.get(key)
        if var is not None and var.attrs & ASSOC:
            if self.state.opts["nounset"]:
                raise ExpansionError(f"{name}: unbound variable", 127)
            # declared but without elements: the key is expanded all the same, as bash expands
            # it at each read (`let "m[\$((i++))]++"` expands it here and again as it stores)
            if not (sub if self.arith_keys_as_is else self.subscript_key(sub)):
                return self._empty_key(name, sub)
            return None
        if type(val) is IndexedArray and plain_index(sub):
            return val.get(int(sub))  # (a plain decimal index, as `a[k%3]++` reads it: eval_index's value)
        if type(sub) is ReadFailed:
            return None  # (reported as arith_index evaluated it)
        try:
            # evaluated even when the array is unset, as bash does
            index = self.eval_index(sub, val if isinstance(val, IndexedArray) else None, arith=True)
        except ArithError as e:
            raise subscript_error(e) from None
        except EmptySubscript:
            return self._empty_subscript(name)
        except AssignError:
            self.report_error(f"{name}: bad array subscript")
            return None
        if val is None:
            if self.state.opts["nounset"]:
                raise ExpansionError(f"{name}: unbound variable", 127)
            return None
        if isinstance(val, IndexedArray):
            return val.get(index)
        return val if index == 0 else None

    def _empty_key(self, name: str, sub: str) -> str | None:
        """An associative key that is empty: as written (`$(( m[$e] ))` expanded to `m[]`), as
        _empty_subscript; one that expands to nothing (`let 'm[$e]'`), bash's err_badarraysub
        of the array's name, once. The element reads as unset (0) either way."""
        if not sub:
            return self._empty_subscript(name)
        self.report_error(f"{name}: bad array subscript")
        return None

    def _empty_subscript(self, name: str) -> str | None:
        """`$(( a[$unset] ))`: bash reports the element twice (as it reads it, then as it finds
        its value) and goes on with it unset (0)."""
        self.report_error(f"{name}[]: bad array subscript")
        self.report_error(f"{name}[]: bad array subscript")
        return None

    def arith_index(self, name: str, sub: str) -> str:
        """The subscript of a read-modify-write (`a[RANDOM%6]++`, `a[i++] += 2`) evaluated once, as
        bash does: the index as text (an associative array's key is left as it is)."""
        # (RANDOM's stored variable: a lookup would read RANDOM once more than bash does)
        var = self.state.vars.find(name) if name == "RANDOM" else self.lookup(name)
        val = var.value if var is not None else None
        if isinstance(val, AssocArray) or (var is not None and var.attrs & ASSOC):
            return sub
        try:
            return str(self.eval_index(sub, val if isinstance(val, IndexedArray) else None, arith=True))
        except ArithError as e:
            raise subscript_error(e) from None
        except EmptySubscript:
            return ""  # reported where it is read; the assignment is refused (arith_set)
        except AssignError:
            self.report_error(f"{name}: bad array subscript")  # (the read's report)
            return ReadFailed(sub)

    def arith_element(self, name: str, sub: str) -> tuple[IndexedArray, int] | str:
        """`h[i%10] += 1`'s subscript (text with nothing to expand: arithgen._plain_sub) evaluated
        once, as arith_index evaluates it (its function by its text, then arith_eval's call; a
        negative index counted back from the end): with an indexed array, the array and the
        index, which the generated function reads and stores (arith_put) without the text's
        round trip; anything else (another kind of variable, a text not compiled yet, a nested
        evaluation, a negative index before the start) arith_index's text, as before."""
        if name == "RANDOM":
            return self.arith_index(name, sub)  # (a lookup here would read RANDOM once more than bash)
        store = self.state.vars
        scopes = store.scopes
        names = store.local_names
        # (lookup's own first steps, here: the innermost binding of a name not special, no reference)
        if (
            name in NOT_PLAIN
            or (
                (var := scopes[-1].get(name)) is None
                and (name in names or (var := scopes[0].get(name)) is None)
            )
            or var.attrs & NAMEREF
        ):
            var = self.lookup(name)
        if var is not None and type(arr := var.value) is IndexedArray:
            ev = self._arith
            if ev.depth:
                return self.arith_index(name, sub)
            # a subscript that is one plain variable holding a number arithmetic stored (`a[k]`):
            # that number, as the text's function reads it; else the function's way
            if (
                sub.isidentifier()
                and sub not in NOT_PLAIN
                and (
                    (v := scopes[-1].get(sub)) is not None
                    or (sub not in names and (v := scopes[0].get(sub)) is not None)
                )
                and not v.attrs & NAMEREF
                and (index := INTS.get(v.value)) is not None  # type: ignore[arg-type]
            ):
                pass
            elif (fn := _COMPILED.lookup(sub)) is None:
                return self.arith_index(name, sub)
            else:
                try:
                    index = fn(ev)
                except ArithError as e:
                    raise subscript_error(e) from None
            if index < 0:
                index += arr.max_index() + 1
                if index < 0:
                    self.report_error(f"{name}: bad array subscript")  # (the read's report)
                    return ReadFailed(sub)
            return arr, index
        return self.arith_index(name, sub)

    def arith_assign_element(self, name: str, sub: str, value: int) -> bool:
        """`(( a[i] = v ))`'s store, the value already computed (bash's order: the value, then the
        subscript): for an indexed array without attributes beyond -a/-x, the subscript's compiled
        function evaluated once, as set_var's element store evaluates it (the value's length
        checked first; errors as element_index reports them, a refusal as arith_set reports it), and
        the element stored by arith_put. False, nothing evaluated: anything else (another kind of
        variable, a special name, a text not compiled yet, a nested evaluation), arith_set's way."""
        var = self.lookup(name)
        if var is None or type(arr := var.value) is not IndexedArray or var.attrs & ~(ARRAY | EXPORT):
            return False
        ev = self._arith
        fn = _COMPILED.lookup(sub)
        if fn is None or ev.depth or name in NOT_PLAIN:
            return False
        self.check_string(len(str(value)))

        def read() -> int:
            index: int = fn(ev)
            if index < 0:
                index += arr.max_index() + 1
                if index < 0:
                    raise AssignError(sub)  # (element_index names it)
            return index

        try:
            index = element_index(name, sub, read)
        except AssignError as e:
            self._arith_refused(e)
            return True
        self.arith_put(name, index, value)
        return True

    def arith_put(self, name: str, index: int, value: int) -> None:
        """The store of an element arith_element gave the index of: arith_set's own steps for
        that index as text (store_index first, when the text is a plain index)."""
        if not (index < _PLAIN_INDEX_END and self.va.store_index(name, index, str(value))):
            self.arith_set(name, str(index), value)

    arith_cmd = ""  # "((: " while a (( )) command runs: errors bash reports in its name
    killed_by = 0  # the signal that ended this shell (a subshell), for its parent's report
    # (signal, pid) of a shell process a command of this shell ran that died of a signal
    # (Processes.child_ran), until that command reports it
    child_death: tuple[int, int] | None = None
    subshell_body: object = None  # what this shell runs as a subshell (run_subshell_body)
    one_shot: object = None  # a `bash -c` string's last simple command (jobs.one_shot_tail)
    # the simple command bash would run as this subshell's own process (execve, no fork): a
    # `( )`'s, `$( )`'s or `<( )`'s last, an asynchronous command; a `$( )`'s function's last.
    # `nofork_checked`: unless traps set by then keep it from that (jobs.runs_as_process);
    # `nofork_at`: the calls, evals and sourced files it runs under (a function's last: in that
    # call's body, not another's)
    nofork: object = None
    nofork_checked = False
    nofork_at = (0, 0, 0)
    kept_exit = False  # an ignored EXIT trap inherited: no trap for bash's fork optimisation
    # what bash's subshell_environment says of this shell: SUBENV_PAREN, a `( )` (and what it
    # runs in place: `$( )`); SUBENV_PIPE, a pipeline stage (a simple one, or a compound one not `( )`)
    subenv = 0
    # 1: the command now starting is one bash execs in place of this shell (Executor.run_argv);
    # 2: a program ran so (run_external)
    execs = 0
    # `time ( ... )`, `! ( ... )`: (1, or 2 for `time -p`, when timed; the text bash puts before
    # the subshell's when it reports its death), from Processes.exec_pipeline until the `( )`
    # forks (pending), then the subshell's own (lone: it times its body, run_subshell_body)
    pending_lone: tuple[int, str] | None = None
    lone: tuple[int, str] | None = None
    job_shell = False  # the shell of an asynchronous command (`cmd &`) itself: jobs.deliver_signal
    # let's expressions under assoc_expand_once: an associative key in them is taken as it is
    # (bash's arithmetic gets text the shell expanded; (( )) and $(( )) mark what they expanded)
    arith_keys_as_is = False
    # a redirection's word expanded again to name it in an `ambiguous redirect` message (bash's
    # redirection_error, W_NOCOMSUB): these `$( )`s and backquotes, the word's own and those of
    # its double quotes, stand for their text (one in a `${x:-...}` or `$(( ))` still runs)
    no_comsub: tuple[A.CmdSub, ...] = ()

    def arith_set(self, name: str, sub: str | None, value: int) -> None:
        if sub is None and name not in NOT_PLAIN and self.va.store_plain(name, str(value)):
            return  # (set_var's common case, without its call: `(( k++ ))`)
        if sub and plain_index(sub) and self.va.store_index(name, int(sub), str(value)):
            return  # an index arith_index computed (`a[k%3]++`) or a slot's: not evaluated again
        if sub and self.va.store_key(name, sub, str(value)):
            return  # an associative key with nothing to expand (`m[$w]++`: $w expanded before)
        if sub and (target := self._array_ref(name)) is not None:
            # `declare -n r=arr; (( r[k]++ ))`: set_var would follow the reference to `arr` and
            # store there as it stores `arr[k]` (an element is not exported, a readonly or
            # attributed target is refused by the stores, which leaves it to set_var below)
            text = str(value)
            if (plain_index(sub) and self.va.store_index(target, int(sub), text)) or self.va.store_key(
                target, sub, text
            ):
                return
        if sub == "":  # `(( a[""] = 1 ))` names `a[]`, assigns nothing and goes on (as bash)
            self._arith_refused(AssignError(f"`{name}[]': not a valid identifier", named=True))
            return
        as_is = sub is not None and self.arith_keys_as_is and self.va.is_assoc(name)
        try:
            self.set_var(name, str(value), sub=sub, parsed=AS_EXPANDED if as_is else None)
        except ReadonlyError as e:
            raise ArithAssignError(f"{self.arith_cmd}{e.message}" if e.named else e.message, 1) from None
        except AssignError as e:
            self._arith_refused(e)

    def _arith_refused(self, e: AssignError) -> None:
        """bash's expr_bind_variable: a store refused for another reason than readonly (a negative
        index past the start, a reference to an element subscripted again) is reported and the
        expression goes on with its value (`((c[-9]=1))` is status 0 after the message); a named
        refusal is named after the command: `((: `, or `let: ` while let evaluates."""
        if e.named:
            self.error(f"{self.arith_cmd or ('let: ' if under_let() else '')}{e.message}")
        else:
            self.error(e.message)

    def arith_resized(self, name: str, n: int) -> None:
        """Arithmetic is about to store a text `n` bytes longer (or shorter) in the plain variable
        `name` (the evaluator's own store, which found it): charged to max_memory first, as
        Variables.store_plain charges an assignment's, so a limit leaves the old value."""
        # (a global without find_scope's walk: a counter crossing a power of ten, a sum changing
        # its number of digits, come here from a loop's every few steps)
        store = self.state.vars
        scopes = store.scopes
        store.charge(scopes[0] if name not in store.local_names else scopes[store.find_scope(name)[0]], n)

    def arith_bump(self, name: str, sub: str, delta: int) -> int | None:
        """`m[$w]++`, `a[3]--` (arithops.incdec of an element): the element read with one lookup
        and stored through arith_set, the old value returned, when the subscript needs no
        evaluation (an associative key with nothing to expand, a plain decimal index: what
        arith_index, arith_get and arith_set take as they are) and the element holds nothing to
        evaluate (unset, empty or a plain decimal number). None, nothing done: incdec's general
        way (arith_index, arith_get, arith_set), which also reports what is wrong."""
        if name == "RANDOM":
            return None  # (a lookup here would read RANDOM once more than bash does)
        var = self.lookup(name)
        if var is None:
            return None
        val = var.value
        if type(val) is AssocArray:
            if not sub or "$" in sub or "`" in sub or "'" in sub or '"' in sub or "\\" in sub:
                return None  # (a key to expand, at each read and store: subscript_key's)
            raw = val.get(sub)
        elif type(val) is IndexedArray and plain_index(sub):
            raw = val.get(int(sub))
        else:
            return None
        if not raw:
            old = 0
        elif len(raw) < 19 and raw.isdigit() and raw.isascii() and (raw[0] != "0" or len(raw) == 1):
            old = int(raw)
        else:
            return None  # (an expression, a sign, an octal or long number: value_of's)
        self.arith_set(name, sub, wrap(old + delta))
        return old

    def _array_ref(self, name: str) -> str | None:
        """The variable a chain of namerefs from `name` ends at when it ends at a name, not an
        element (`declare -n r=arr`), as set_var's resolve_name finds it; None for anything else
        (no nameref, an element, a circular chain: set_var's way)."""
        var = self.state.vars.find(name)
        if var is None or not var.attrs & NAMEREF:
            return None
        try:
            target, tsub = self.va.resolve_name(name)
        except AssignError:
            return None
        return target if tsub is None and target != name else None

    def arith_slots(self, tpl: ArithTemplate, slots: tuple[int | str, ...]) -> int:
        """Evaluate a template (the expander's `$(( $n % 3 ))`) with its slots' numbers: as
        arith_eval evaluates text, `slots` in place of the text's numbers (put back after, as the
        text is: a template can run inside another's, through a variable's subscript)."""
        ev = self._arith
        if ev.depth:  # re-entered (a variable's value is an expression): a fresh evaluator
            ev = ArithEvaluator(self, tpl.text)
            ev.slots = slots
            return tpl.fn(ev)
        outer, outer_slots = ev.text, ev.slots
        ev.text = tpl.text
        ev.slots = slots
        try:
            return tpl.fn(ev)
        finally:
            ev.text = outer
            ev.slots = outer_slots

    def arith_fn(self, text: str) -> Callable[[], int]:
        """arith_eval(text) bound, for a text with nothing to expand first that may run many times
        (a `(( ))` command, a `for ((;;))` part, a `$(( ))` of literal text): its compiled function
        is looked up directly (at each call: the cache may start a fresh dict, and the text's
        function becomes its generated one after HOT_CALLS) and run with the shared evaluator, as
        arith_eval does (the function sets the evaluator's text it needs itself: arith.compiled);
        a text not yet compiled (or a plain number) and a nested evaluation go through arith_eval. Called from Python code, this closure's frame is set up
        in place, where partial(arith_eval, text) went through C to a second frame. A text that is
        one variable's name (not a special one) reads its value first (name_arith)."""
        ev = self._arith
        arith_eval = self.arith_eval
        cache = _COMPILED

        def literal_arith() -> int:
            if ev.depth or (fn := cache.lookup(text)) is None:
                return arith_eval(text)
            return fn(ev)

        if not (text.isidentifier() and text.isascii()) or text in NOT_PLAIN:
            return literal_arith
        st = self.state

        def name_arith() -> int:
            # a lone variable's name (`${s:off:width}`, `(( n ))`): its value read as arith_get
            # reads it and, when it is a plain decimal number, that number (value_of's first case);
            # anything else (unset, an expression, a reference, an array) the compiled text
            store = st.vars
            scopes = store.scopes
            var = scopes[-1].get(text)
            if var is None and len(scopes) > 1:
                # (a name no scope above the globals binds is theirs: VarStore.local_names)
                var = store.find(text) if text in store.local_names else scopes[0].get(text)
            if var is not None and not var.attrs & NAMEREF:
                v = var.value
                if (
                    type(v) is str
                    and len(v) < 19
                    and v.isdigit()
                    and v.isascii()
                    and (v[0] != "0" or len(v) == 1)
                ):
                    return int(v)
            return literal_arith()

        return name_arith

    def slice_fn(
        self, offset: str | int | None, length: str | int | None
    ) -> Callable[[str], str | None] | None:
        """`${s:OFFSET:LENGTH}` of plain decimal numbers and lone names read in one frame
        (interp/slicefn.py: None from it, the general slice), or None: a special name."""
        if offset is None or any(type(x) is str and x in NOT_PLAIN for x in (offset, length)):
            return None
        from .slicefn import slice_fn

        return slice_fn(self.state, offset, length)

    def arith_assign_fn(self, text: str, name: str) -> ArithAssign:
        """`name=$(( text ))` bound (Compiler.scalar: `name` not special, `text` with nothing to
        expand): its ArithAssign, whose `cold()` gives the value for the assignment to store
        (arith_fn's) and, at its HOT_CALLS-th call, makes `hot` (arith.assign_generated), which
        evaluates the text and stores it in `name`, an existing plain string variable, as
        arithmetic stores (None; a value for anything else). The text's evaluation is the same
        either way; the store is the one `x=$(( ))` makes: status and messages are the
        assignment's."""
        value = self.arith_fn(text)
        calls = 0
        holder = ArithAssign()

        def arith_assign() -> int | None:
            nonlocal calls
            if calls < HOT_CALLS:
                calls += 1
                if calls == HOT_CALLS:
                    holder.hot = assign_generated(text, name)  # (tried once)
            return value()

        holder.cold = arith_assign
        return holder

    def arith_eval(self, text: str) -> int:
        # (`let` under assoc_expand_once parses its texts apart: arith.parse_arith's keys_as_is)
        fn = None if self.arith_keys_as_is else _COMPILED.lookup(text)
        if fn is None:
            if text.isdigit() and len(text) < 19 and text.isascii() and (text[0] != "0" or len(text) == 1):
                return int(text)  # a decimal number (`[[ $n -lt 5 ]]`'s operands): nothing to parse or cache
            # (a huge expression: parsing takes time)
            fn = compiled(
                text, self.rt.budget.check_time if len(text) > 4096 else None, self.arith_keys_as_is
            )
        ev = self._arith
        if ev.depth:
            # re-entered (a variable's value is an expression): a fresh evaluator
            return fn(ArithEvaluator(self, text))
        # (the function sets the evaluator's text its errors name and puts it back after, as an
        # array subscript in the expression is evaluated here too: `a[i] ** -1` names its own
        # text in the error, not `i`; arith.compiled)
        return fn(ev)

    def command_sub(self, sub: A.CmdSub) -> str:
        if self.no_comsub and any(sub is s for s in self.no_comsub):
            from ..syntax.bashprint import comsub_written

            return comsub_written(sub)
        if self.expander._ifs_joins:  # (in an assignment's value: the commands expand as anywhere)
            return self.expander.spaced(lambda: self.command_sub(sub))
        st = self.state
        if st.ulimits and self.pipe_refused("command"):
            return ""  # (bash's NULL: the word has nothing of it; $? stays)
        # with an alias, or a text of several lines (whose first may define one), its text is
        # read again with the aliases of now, as bash's child reads it (aliasrun.py)
        if (st.aliases or sub.run is not None) and st.shopts["expand_aliases"]:
            body = _alias_parse(self, sub)
            if isinstance(body, A.CommandList):
                return self.pr.run_command_sub(body)
            return self.pr.run_command_text(body)  # (several commands, read as they run)
        return self.pr.run_command_sub(sub.body)

    def pipe_refused(self, what: str) -> bool:
        """A substitution's pipe under a lowered `ulimit -n` that leaves fewer than two
        descriptors free: bash's message (EMFILE, no line number), and nothing runs."""
        from .redirects import free_fds, lowered_fd_limit

        low = lowered_fd_limit(self.state, self.rt.limits.max_file_descriptors)
        if low is None or free_fds(self.state, low) >= 2:
            return False
        self.write_err(f"{self.err_name()}: cannot make pipe for {what} substitution: Too many open files\n")
        return True

    def process_sub(self, sub: A.ProcSub) -> str:
        st = self.state
        if (st.aliases or sub.run is not None) and st.shopts["expand_aliases"]:
            return self.pr.start_process_sub(_alias_parse(self, sub), sub.direction)
        return self.pr.start_process_sub(sub.body, sub.direction)

    def glob(self, pattern: str) -> list[str] | None:
        st = self.state
        ignore_raw = self.get_str("GLOBIGNORE")
        ignore: tuple[str, ...] = tuple(p for p in _split_colons(ignore_raw) if p) if ignore_raw else ()
        opts = globmod.GlobOptions(
            dotglob=st.shopts["dotglob"] or bool(ignore),
            nocaseglob=st.shopts["nocaseglob"],
            extglob=st.shopts["extglob"],
            globstar=st.shopts["globstar"],
            globskipdots=st.shopts["globskipdots"],
            ignore=ignore,
            bytewise=self.locale_bytes(),
        )
        budget = self.rt.budget
        limit = self.rt.limits.max_glob_operations
        counter = [0]

        def charge(n: int) -> None:
            counter[0] += n
            if counter[0] > limit:
                raise LimitExceeded(LimitKind.MAX_GLOB_OPERATIONS, limit)
            budget.checkpoint(n)

        matches = globmod.glob(st.fs, pattern, opts, charge)
        if matches:
            return matches
        if st.shopts["failglob"]:  # (before nullglob: bash's glob_expand_word_list asks it first)
            raise ExpansionError(f"no match: {_unescape_for_msg(pattern)}", 1)
        if st.shopts["nullglob"]:
            return []
        return None

    def locale_bytes(self) -> bool:
        return self.va.locale_bytes()

    def home_dir(self, user: str) -> str | None:
        if user == "":
            home = self.get_str("HOME")
            return home if home is not None else self.rt.identity.home
        if user == "+":
            return self.get_str("PWD")
        if user == "-":
            return self.get_str("OLDPWD")
        if user.isascii() and (user.isdigit() or (user[0] in "+-" and user[1:].isdigit())):
            # the directory stack: ~N is ~+N (dirs +N), ~-N counts from the bottom
            n = int(user.lstrip("+-"))
            stack = [self.state.fs.cwd] + self.state.dirstack
            idx = len(stack) - 1 - n if user[0] == "-" else n
            return stack[idx] if 0 <= idx < len(stack) else None
        if user == self.rt.identity.user:
            return self.rt.identity.home
        if user == "root":
            return "/root"
        return None

    def subscript_key(self, raw: str, parsed: A.Subscript | None = None) -> str:
        """An associative-array key: the subscript text expanded like a word
        without splitting or globbing (quotes removed). `parsed`: as the parser read it."""
        if parsed is not None:
            return raw if parsed.key is None else self.expander.string(parsed.key)
        if not ("$" in raw or "`" in raw or "'" in raw or '"' in raw or "\\" in raw):
            return raw
        return self.expander.string(self._sub_word(raw, KEY))

    def expand_sub_text(self, sub: str, parsed: A.Subscript | None = None) -> str:
        """An indexed subscript's text with its expansions done (then read as arithmetic)."""
        if parsed is not None:
            return sub if parsed.arith is None else self.expander.heredoc(parsed.arith)
        return self.expander.heredoc(self._sub_word(sub, ARITH))

    def _sub_word(self, text: str, mode: int) -> A.Word:
        """`text` parsed as a word in lexer `mode`. The process-wide cache is used only when this
        shell's aliases cannot take part (a `$(...)` inside would expand them: one run's alias
        must never reach another run, T-TEN-5)."""
        st = self.state
        limits = self.rt.limits
        shared = not (st.aliases and st.shopts["expand_aliases"])
        key = (text, mode, bool(st.shopts["extglob"]), limits.max_ast_depth, limits.max_tokens)
        word = _SUB_CACHE.get(key) if shared else None
        if word is None:
            word = A.Word(tuple(self._read_sub_parts(text, mode)), 0, text)
            if shared:  # bounded: one run's many or long subscripts cannot grow it
                _SUB_CACHE.put(key, text, word)
        return word

    def _read_sub_parts(self, text: str, mode: int) -> list[A.Part]:
        """A subscript or arithmetic text made at run time (`unset "a[$k]"` with a quote in $k)
        may leave a quote open: bash then takes the rest of the text as quoted, as if the quote
        were closed at its end, instead of failing."""
        try:
            return self.make_parser(text).read_parts(mode)
        except ParseLimit:
            raise
        except ParseError:
            for close in ("'", '"', "'\"", "\"'"):
                try:
                    return self.make_parser(text + close).read_parts(mode)
                except ParseLimit:
                    raise
                except ParseError:
                    continue
            return [A.Lit(text)]

    def prompt_expand(self, text: str) -> str:
        from .prompt import expand_prompt

        return expand_prompt(self, text)

    def check_string(self, size: int) -> None:
        limit = self.rt.limits.max_string_length
        if size > limit:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)

    def check_array(self, size: int) -> None:
        limit = self.rt.limits.max_array_elements
        if size > limit:
            raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, limit)

    def charge_brace(self, count: int) -> None:
        limit = self.rt.limits.max_brace_expansion_results
        if count > limit:
            raise LimitExceeded(LimitKind.MAX_BRACE_EXPANSION_RESULTS, limit)
        self.rt.budget.checkpoint(count)  # deep nesting costs time even with few results

    # ------------------------------------------------------------ helpers

    def is_assoc(self, name: str) -> bool:
        var = self.lookup(name)
        return var is not None and (bool(var.attrs & ASSOC) or isinstance(var.value, AssocArray))

    def var_value(self, name: str) -> Var | None:
        return self.lookup(name)

    def fs_message(self, e: FsError) -> str:
        return f"{e.path}: {e.message}" if e.path else e.message

    def capture(self, body: A.CommandList) -> tuple[bytes, int]:
        """Run `body` in a subshell and return what it wrote on stdout."""
        child = self.fork()
        out = BufferWriter(max_size=self.rt.limits.max_string_length)
        child.state.fds[1] = out
        status = child.pr.run_subshell_body(body)
        return out.getvalue(), status


def _split_colons(text: str) -> list[str]:
    """Split GLOBIGNORE on colons that are not inside a bracket expression."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in text:
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        if c == ":" and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    out.append("".join(cur))
    return out


class _OnFirstUse:
    """A Shell attribute made on first use (a facade method bound, an arithmetic evaluator) and
    kept in the shell's __dict__, which this non-data descriptor yields to from then on. (A
    __getattr__ on the class would do the same, but CPython then specializes no attribute load
    on a Shell: each `sh.rt`, `sh.state` would cost about twice as much.)"""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, sh: Shell | None, owner: type | None = None) -> object:
        if sh is None:
            return self
        name = self.name
        if name in _ARITH_SLOTS:
            return sh._new_arith(name)
        part = sh.__dict__.get(_FACADE[name])
        if part is None:
            raise AttributeError(f"'Shell' object has no attribute '{name}'")
        bound = sh.__dict__[name] = getattr(part, name)
        return bound


for _name in (*_FACADE, *_ARITH_SLOTS):
    setattr(Shell, _name, _OnFirstUse(_name))


def _valid_env_name(name: str) -> bool:
    return name.isascii() and name.isidentifier()  # bash imports no `é` (no letter to it)


def _unescape_for_msg(pattern: str) -> str:
    out = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append(pattern[i])
        i += 1
    return "".join(out)
