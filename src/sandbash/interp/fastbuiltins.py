"""Compiled builtins: `let`, `test` and `[` with their work done here, any other builtin called
without the dispatch.

Compiler.piece() asks fast_builtin() for a simple command named `let`, `test` or `[` (words only:
no assignment, no redirection). The closure does what Compiler.simple() and Executor.run_argv do
for a builtin (the prologue, `$_`, `$?`, PIPESTATUS, `set -e`/ERR, process substitutions) and in
between runs the builtin's work directly:

- `let` whose words are all literal text evaluates each one (Shell.arith_eval, which finds the
  parsed expression by its text) with no argv to build; other words are expanded as simple() does
  and go to the builtin itself;
- `test`/`[` with a literal binary operator (`[ $n -lt 10 ]`, `[ "$a" = x ]`) compares the two
  expanded operands directly when the words gave the fields the shape needs; when the operator and
  one operand are literal (`[ $r = 0 ]`), the other word is expanded alone and one field compared
  with the literal (an integer read once) without building an argv; any other argv, and any
  error, goes to the builtin itself (which reports it). Other test/[ commands call the builtin
  with their expanded words, without the dispatch;
- any other builtin named by a literal word (`:`, `true`, `echo`, `printf`, `read`, ...; not
  `exec`) is asked for by Compiler.simple() (plain_builtin): the builtin is called with the
  expanded words (copied when they are all literal text) as run_argv would, without _callable and
  the frames of run_argv and _run_builtin.

Whatever changes how a command runs (the state's RunMode is not plain: set -n/-k/-x, traps, gates, a
signal, exec(args=...)), a function of the name, the builtin disabled (`enable -n`),
assoc_expand_once for `let`, or an argv over the limits takes the general path (`slow`:
exec_simple), which traces, consults the gates and dispatches as for any command."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..expand.arith import LET_CODES, ArithError
from ..expand.arithops import INTS
from ..expand.env import ArithAssignError, ExpansionError
from ..expand.segments import CHARGE_FROM, maybe_glob
from ..expand.stringfn import dq_param_step, dq_scalar_rest, unquoted_param_step, unquoted_scalar_rest
from ..shvars.vars import NAMEREF, Var, is_array_ref_text, word_text
from ..syntax import ast as A
from .builtin_table import loaded, lookup
from .control import ExitShell
from .executor import _USAGE_FATAL, _run_builtin, arrayref_args, builtin_failed
from .state import ONE_STATUS
from .variables import NOT_PLAIN, AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .builtin_table import Builtin
    from .compiler import Code, Compiler, Plan
    from .executor import Executor
    from .redirects import Undo
    from .shell import Shell

# the compiler's own helpers, handed in by Compiler.piece() (this module is below it): exec_simple's
# prologue (_begin), a word's one literal field (_literal_word). Whether something changes how a
# command runs is the state's RunMode (runmode.py), tested first
Begin = Callable[["Executor", A.SimpleCommand, int], int]
Literal = Callable[[A.Word], "str | None"]

NAMES = frozenset(["let", "test", "["])
STATUS_ZERO = ONE_STATUS[0]  # (PIPESTATUS after a status of 0, stored without ONE_STATUS's range test)
# (`len(procs) if procs else 0`, `procs and len(procs) > mark`: as in compiler.py, len() only
# while process substitutions are open)

# the builtins that rewrite their argv in place, so $_ is read from it after they run (bash's
# unset cuts a word at its `[`: builtins/varcmds.py)
_CUTS_WORDS = frozenset({"unset"})
# answers of the binary shape (None: the builtin decides)
_Shape = Callable[[list[str]], "int | None"]


def let_status(sh: Shell, exprs: list[str]) -> int:
    """What `let EXPR...` returns: 1 when the last value is 0 or an expression fails (reported as
    bash reports it), else 0. The caller has handled `--` and `--help`."""
    value = 0
    try:
        for expr in exprs:
            value = sh.arith_eval(expr)
    except (ArithError, ExpansionError) as e:
        return let_failed(sh, e)
    return 0 if value != 0 else 1


LET_CODES.add(let_status.__code__)  # (a refused element store under it is named `let: `)


def let_failed(sh: Shell, e: ArithError | ExpansionError) -> int:
    """An expression of `let` failed: reported as bash reports it, status 1."""
    if isinstance(e, ArithError):
        sh.builtin_error("let", e.render())
        return 1
    if e.fatal == 127 or (e.arith and e.exits):
        # an unbound variable under set -u ends the shell, as in `(( ))`; so does an arithmetic
        # error in a subscript (bash's array_expand_index jumps to the top level)
        return sh.expansion_failed(e)
    if isinstance(e, ArithAssignError):  # (a readonly store: bash's report_error)
        sh.report_error(e.message)
    else:
        sh.error(e.message)
    return 1


def fast_builtin(comp: Compiler, cmd: A.SimpleCommand, begin: Begin, literal: Literal) -> Code | None:
    """The closure for `cmd` when it is `let`, `test` or `[` with words only; else None."""
    words = cmd.words
    if cmd.assigns or cmd.redirs or not words:
        return None
    name = literal(words[0])
    if name not in NAMES:
        return None
    plan = comp.plan(cmd)
    argv_fn = plan.argv
    if argv_fn is None:
        return None
    texts = [literal(w) for w in words[1:]]
    if name == "let" and texts and None not in texts and texts[0] not in ("--", "--help"):
        return _let_code(comp, cmd, [t for t in texts if t is not None], plan)
    if name == "let":
        return _let_argv_code(comp, cmd, argv_fn, plan, begin)
    if name != "let" and (one := _operand_code(comp, cmd, name, texts, plan)) is not None:
        return one
    shape = _binary_shape(name, texts) if name != "let" else None
    return _builtin_code(comp, cmd, name, argv_fn, shape, plan, begin)


def _let_code(comp: Compiler, cmd: A.SimpleCommand, exprs: list[str], plan: Plan) -> Code:
    """`let` with literal words: no argv to expand, each text evaluated as the builtin would."""
    ev = comp.ev
    ex = ev.ex
    st = ex.state
    mode = st.run_mode
    sh = ex.sh
    procs = ex.pr.procsubs
    slow = partial(ex.exec_simple, cmd, plan)
    last = exprs[-1]
    argc = len(exprs) + 1
    one = argc == 2
    value_fn = sh.arith_fn(last)  # (its compiled function looked up directly: Shell.arith_fn)
    line = cmd.line
    functions = st.functions
    disabled = st.disabled_builtins
    shopts = st.shopts
    pr = ex.pr

    def let_cmd() -> int:
        rt = sh.rt
        if (  # (begin inline, as in Compiler.simple: a third of `let x++`'s cost)
            not mode.plain
            or functions.get("let") is not None
            or "let" in disabled
            or shopts["assoc_expand_once"]
            or argc > rt.limits.max_arguments
        ):
            return slow()
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
            if one:  # (the common case: one expression, evaluated here)
                try:
                    status = 0 if value_fn() != 0 else 1
                except (ArithError, ExpansionError) as e:
                    status = let_failed(sh, e)
            else:
                status = let_status(sh, exprs)
            st.last_arg = last
        finally:
            if procs and len(procs) > mark:
                pr.finish_procsubs(mark)
        st.last_status = status
        st.pipestatus = ONE_STATUS[status]  # (0 or 1, or an error's status below 256)
        if status:
            ev.errexit_check(status)
        return status

    LET_CODES.add(let_cmd.__code__)  # (its one expression is evaluated in it: arith.under_let)
    return let_cmd


def _let_argv_code(
    comp: Compiler,
    cmd: A.SimpleCommand,
    argv_fn: Callable[[], list[str]],
    plan: Plan,
    begin: Begin,
) -> Code:
    """`let` with words to expand (`let "len += ${#t}"`, `let n=$1*2`): the argv made as for any
    command, then its expressions evaluated here as bi_let evaluates them (let_status), without
    the builtin's dispatch (a third of such a `let`: 4.2 us a step, 1.2 in bash). No expression,
    `--` or `--help` first, a large argv to charge, assoc_expand_once: the builtin itself."""
    ev = comp.ev
    ex = ev.ex
    st = ex.state
    mode = st.run_mode
    sh = ex.sh
    procs = ex.pr.procsubs
    argv_held = ex.expander.argv_held
    slow = partial(ex.exec_simple, cmd, plan)
    line = cmd.line
    functions = st.functions
    disabled = st.disabled_builtins
    shopts = st.shopts

    def let_words() -> int:
        if (
            not mode.plain
            or functions.get("let") is not None
            or "let" in disabled
            or shopts["assoc_expand_once"]
        ):
            return slow()
        mark = begin(ex, cmd, line)
        try:
            argv = argv_fn()
        except (ExpansionError, ArithError, AssignError) as e:
            return ex.words_failed(e, mark)
        if len(argv) < 2 or argv[1] == "--" or argv[1] == "--help" or argv_held():
            return _general(ex, cmd, "let", argv, mark)
        try:
            try:  # (what _run_builtin adds around bi_let)
                status = let_status(sh, argv[1:])
            except Exception as e:
                status = builtin_failed(sh, "let", e)
            st.last_arg = argv[-1]
        finally:
            if procs and len(procs) > mark:
                ex.pr.finish_procsubs(mark)
        st.last_status = status
        st.pipestatus = ONE_STATUS[status]  # (0 or 1, or an error's status below 256)
        if status:
            ev.errexit_check(status)
        return status

    return let_words


def _builtin_code(
    comp: Compiler,
    cmd: A.SimpleCommand,
    name: str,
    argv_fn: Callable[[], list[str]],
    shape: _Shape | None,
    plan: Plan,
    begin: Begin,
) -> Code:
    """The builtin `name` called with the expanded words, without the dispatch; `shape` answers
    first when it can."""
    ev = comp.ev
    ex = ev.ex
    st = ex.state
    mode = st.run_mode
    procs = ex.pr.procsubs
    slow = partial(ex.exec_simple, cmd, plan)
    line = cmd.line

    def builtin_cmd() -> int:
        if not mode.plain or st.functions.get(name) is not None or name in st.disabled_builtins:
            return slow()
        mark = begin(ex, cmd, line)
        try:
            argv = argv_fn()
        except (ExpansionError, ArithError, AssignError) as e:
            return ex.words_failed(e, mark)
        status = shape(argv) if shape is not None else None
        if status is None:
            return _general(ex, cmd, name, argv, mark)
        # (a comparison holds nothing while it runs: a large argv is charged only for the builtin)
        last = argv[-1]
        st.last_arg = last if type(last) is str else word_text(last)
        if procs and len(procs) > mark:
            ex.pr.finish_procsubs(mark)
        st.last_status = status
        st.pipestatus = ONE_STATUS[status]  # (0 or 1, or an error's status below 256)
        if status:
            ev.errexit_check(status)
        return status

    return builtin_cmd


def _general(ex: Executor, cmd: A.SimpleCommand, name: str, argv: list[str], mark: int) -> int:
    """The builtin `name` run with `argv` as run_argv runs it (without the dispatch: the caller
    checked there is no function of the name and the builtin is enabled)."""
    if ex.expander.argv_held():  # (run_argv charges a large argv while the builtin runs)
        return ex.run_argv(cmd, argv, None, None, mark)
    st = ex.state
    procs = ex.pr.procsubs
    try:
        builtin = lookup(name)
        assert builtin is not None
        status = _run_builtin(ex.sh, builtin, name, argv)
        last = argv[-1]
        st.last_arg = last if type(last) is str else word_text(last)
    finally:
        if procs and len(procs) > mark:
            ex.pr.finish_procsubs(mark)
    st.last_status = status
    st.pipestatus = ONE_STATUS[status] if 0 <= status < 256 else [status]
    if status:
        ex.ev.errexit_check(status)
    return status


def plain_builtin(
    comp: Compiler,
    cmd: A.SimpleCommand,
    name: str,
    argv_fn: Callable[[], list[str]],
    slow: Code,
    literal: Literal,
    redirected: Callable[[Builtin, list[str]], int] | None = None,
) -> Code:
    """Any other builtin named by a literal word (no assignment; not `exec`, whose dispatch differs;
    redirections are applied around it as _dispatch_run applies them: _redirected):
    what simple() and run_argv do, without the dispatch (_callable, the gates test, run_argv's and
    _run_builtin's frames). A function of the name (defined before the loop or inside it), the
    builtin disabled (`enable -n`), gates (a policy or an audit), or a large argv to charge take
    the general path, which finds what runs as for any command; so does the builtin's first run
    (its module is imported there). Words that are all literal text are copied, not expanded.
    `redirected`: what runs the builtin inside the command's redirections in place of _redirected
    (fastread._ifs_runner's `IFS=TEXT read ...` without the binding pushed)."""
    ev = comp.ev
    ex = ev.ex
    st = ex.state
    mode = st.run_mode
    sh = ex.sh
    procs = ex.pr.procsubs
    expander = ex.expander
    argv_held = expander.argv_held
    errexit_check = ev.errexit_check
    words = cmd.words
    texts = [literal(w) for w in words]
    # (an argument of unset/declare-like builtins written as an array reference, `unset a[1]`, is
    # made by argv_fn, an ArrayRefArg: the same test as Compiler._argv_fn's, on the words as
    # written; a quoted or escaped one, `unset 'a[1]'`, is literal text, as there)
    refs = arrayref_args(words)
    consts = (
        None
        if None in texts or (refs and any(is_array_ref_text(w.text) for w in words[refs:]))
        else tuple(t for t in texts if t is not None)
    )
    # ($_ is the argv's last word as the builtin leaves it: unset cuts `'a[1]'` at `[` in place)
    last_text = consts[-1] if consts is not None and name not in _CUTS_WORDS else None
    nconsts = len(consts) if consts is not None else 0
    fatal_usage = name in _USAGE_FATAL  # (status 2 of a special builtin ends a POSIX shell)
    line = cmd.line
    redirs = cmd.redirs

    def builtin_cmd() -> int:
        rt = sh.rt
        if (  # (_begin inline, as in Compiler.simple())
            not mode.plain or name in st.functions or name in st.disabled_builtins
        ):
            return slow()
        builtin = loaded(name)
        if builtin is None:
            return slow()
        st.line = line
        if not st.in_trap:
            sh.current_command = cmd
        budget = rt.budget  # (Budget.command inline)
        budget.commands += 1
        if budget.commands >= budget.command_stop:
            budget.command_slow()
        mark = len(procs) if procs else 0
        ex.last_cmdsub_status = None
        if consts is not None:  # (nothing to expand: nothing held, max_argument_bytes not reached)
            expander._arg_bytes = 0  # (Expander.begin_argv inline)
            argv = list(consts)
            if nconsts > rt.limits.max_arguments:
                expander.end_argv(argv)
        else:
            try:
                argv = argv_fn()
            except (ExpansionError, ArithError, AssignError) as e:
                return ex.words_failed(e, mark)
            if argv_held():  # (run_argv charges a large argv while the builtin runs)
                return ex.run_argv(cmd, argv, None, None, mark)
        try:
            if redirected is not None:
                status = redirected(builtin, argv)
            elif redirs:
                status = _redirected(ex, name, redirs, builtin, argv)
            else:
                try:  # (_run_builtin inline)
                    status = builtin(sh, argv)
                    if fatal_usage and status == 2 and ex.posix_special(name):
                        raise ExitShell(2)
                except Exception as e:
                    try:
                        status = builtin_failed(sh, name, e)
                    except AssignError as e2:  # (as run_argv: one the builtin did not name)
                        sh.error(e2.message)
                        status = 1
            if last_text is not None:
                st.last_arg = last_text
            else:
                last = argv[-1]
                st.last_arg = last if type(last) is str else word_text(last)
        finally:
            if procs and len(procs) > mark:
                ex.pr.finish_procsubs(mark)
        st.last_status = status
        if status:
            st.pipestatus = ONE_STATUS[status] if 0 <= status < 256 else [status]
            errexit_check(status)
        else:  # (the common case without the range test)
            st.pipestatus = STATUS_ZERO
        return status

    return builtin_cmd


def _redirected(
    ex: Executor, name: str, redirs: tuple[A.Redir, ...], builtin: Builtin, argv: list[str]
) -> int:
    """The builtin run inside its redirections, as Executor._dispatch_run runs it: a failed
    redirection is reported and gives its status without running it (and ends a POSIX shell
    for a special builtin); the redirections are undone as it returns."""
    rd = ex.rd
    rd.command = name  # (bash names the command in some redirection errors)
    try:
        undo = rd.apply_redirects(redirs)
    finally:
        rd.command = ""
    if undo is None:
        if ex.posix_special(name):
            raise ExitShell(1)
        return rd.failure
    return run_undone(ex, name, builtin, argv, undo)


def run_undone(ex: Executor, name: str, builtin: Builtin, argv: list[str], undo: Undo) -> int:
    """The builtin run inside redirections applied (`undo`), which are undone as it returns."""
    rd = ex.rd
    try:
        return _run_builtin(ex.sh, builtin, name, argv)
    except AssignError as e:
        ex.sh.error(e.message)
        return 1
    finally:
        if undo:
            rd.restore_redirects(undo)


def _operand_code(
    comp: Compiler,
    cmd: A.SimpleCommand,
    name: str,
    texts: list[str | None],
    plan: Plan,
) -> Code | None:
    """`[ $x OP lit ]`, `test lit OP "$y"`: a binary test whose words are literal but one operand;
    `[ -n "$x" ]`, `test -z "$x"`: a string's unary test of one word. That word is expanded alone;
    one field is decided on (compared with the literal operand, read once) with no argv built; any
    other number of fields makes the argv for the builtin. None: not one of these shapes."""
    loose = [i for i, t in enumerate(texts) if t is None]
    if len(loose) != 1:
        return None
    j = loose[0]
    decide = _unary_decider(name, texts) if j == 1 else None
    if decide is None:
        if _binary_shape(name, texts) is None or j not in (0, 2):
            return None
        op, other = texts[1], texts[2 - j]
        assert op is not None and other is not None
        decide = _decider(op, other, j == 0)
        if decide is None:
            return None
    ev = comp.ev
    ex = ev.ex
    st = ex.state
    mode = st.run_mode
    sh = ex.sh
    procs = ex.pr.procsubs
    expander = ex.expander
    word = _operand_fields(ex, cmd.words[j + 1])
    head: list[str] = [name, *(t for t in texts[:j] if t is not None)]
    tail: list[str] = [t for t in texts[j + 1 :] if t is not None]
    last = tail[-1] if tail else None
    size = len(head) + 1 + len(tail)
    slow = partial(ex.exec_simple, cmd, plan)
    line = cmd.line

    def general(fields: list[str], mark: int) -> int:
        # (any number of fields but one, or an answer left to the builtin: its argv, its run)
        argv = head + fields + tail
        if len(argv) > sh.rt.limits.max_arguments:
            expander.end_argv(argv)
        return _general(ex, cmd, name, argv, mark)

    def operand_cmd() -> int:
        rt = sh.rt
        if (  # (begin inline, as in plain_builtin: two frames fewer per test)
            not mode.plain or st.functions.get(name) is not None or name in st.disabled_builtins
        ):
            return slow()
        st.line = line
        if not st.in_trap:  # (a trap's commands leave $BASH_COMMAND alone)
            sh.current_command = cmd
        budget = rt.budget  # (Budget.command inline)
        budget.commands += 1
        if budget.commands >= budget.command_stop:
            budget.command_slow()
        ex.last_cmdsub_status = None
        mark = len(procs) if procs else 0
        expander._arg_bytes = 0  # (Expander.begin_argv inline)
        if expander._held:
            expander.give_back_fields()
        try:
            fields = word()
        except (ExpansionError, ArithError, AssignError) as e:
            return ex.words_failed(e, mark)
        status = decide(fields[0]) if len(fields) == 1 and size <= sh.rt.limits.max_arguments else None
        if status is None:
            return general(fields, mark)
        st.last_arg = last if last is not None else fields[0]
        if procs and len(procs) > mark:
            ex.pr.finish_procsubs(mark)
        st.last_status = status
        st.pipestatus = ONE_STATUS[status]  # (0 or 1, or an error's status below 256)
        if status:
            ev.errexit_check(status)
        return status

    # what a generated body writes in for it (funcgen._TEST): operand_cmd's work
    op = texts[0] if j == 1 else texts[1]
    comp.tests[operand_cmd] = {
        "name": name,
        "line": line,
        "cmd": cmd,
        "word": word,
        "unquoted": _unquoted_operand(ex, cmd.words[j + 1]),
        "quoted": _quoted_operand(ex, cmd.words[j + 1]),
        "decide": decide,
        "op": op,
        "other": texts[2 - j] if j != 1 else None,
        "size": size,
        "last": last,
        "general": general,
    }
    return operand_cmd


def _operand_fields(ex: Executor, word: A.Word) -> Callable[[], list[str]]:
    """The fields of an operand, as Expander.word gives them: "$x" ("${s%.*}") and $x through
    the parameter's bound step (stringfn.dq_param_step, unquoted_param_step, as the compiler's
    argv steps use them); a plain unquoted $x read in place (_unquoted_fields)."""
    expander = ex.expander
    parts = word.parts
    unquoted = _unquoted_operand(ex, word)
    if unquoted is not None:
        return _unquoted_fields(ex, *unquoted)
    if (
        len(parts) == 1
        and type(p0 := parts[0]) is A.DQ
        and len(p0.parts) == 1
        and type(p0.parts[0]) is A.Param
    ):
        step = dq_param_step(expander, p0.parts[0])
    elif len(parts) == 1 and type(p0 := parts[0]) is A.Param:
        step = unquoted_param_step(expander, p0)  # $x, ${x%.*} (as the compiler's argv steps)
    else:
        return partial(expander.word, word)

    def param_fields() -> list[str]:
        out: list[str] = []
        step(out)
        return out

    return param_fields


def _unquoted_operand(
    ex: Executor, word: A.Word
) -> tuple[str, Callable[[Var | None, list[str]], None]] | None:
    """For a plain unquoted `$x`, its name and unquoted_scalar_rest's way for what is not one plain
    field (see _unquoted_fields); else None."""
    parts = word.parts
    if (
        len(parts) == 1
        and type(p0 := parts[0]) is A.Param
        and (rest := unquoted_scalar_rest(ex.expander, p0)) is not None
    ):
        return p0.name, rest
    return None


def _quoted_operand(ex: Executor, word: A.Word) -> tuple[str, Callable[[Var | None, list[str]], None]] | None:
    """For a plain "$x" (its plan the value itself), its name and dq_scalar_rest's way for what is
    not a plain string within CHARGE_FROM; else None."""
    parts = word.parts
    if (
        len(parts) == 1
        and type(p0 := parts[0]) is A.DQ
        and len(p0.parts) == 1
        and type(p1 := p0.parts[0]) is A.Param
        and (rest := dq_scalar_rest(ex.expander, p1)) is not None
    ):
        return p1.name, rest
    return None


def _unquoted_fields(
    ex: Executor, name: str, rest: Callable[[Var | None, list[str]], None]
) -> Callable[[], list[str]]:
    """The fields of an unquoted `$x` (`[ $r = 0 ]`), as stringfn.unquoted_param_step gives them,
    with its one-field case read in this frame as compiler._argv_unquoted reads it (the same test,
    kept in step with it): `x` from the innermost scope when it is bound there plainly, else
    lookup(); a plain string that is not long, holds no default IFS character and nothing to glob
    is the one field while IFS is the default (tested here: unset, or the globals' plain " \t\n"
    where no function scope binds it, else Shell.ifs); anything else unquoted_scalar_rest's way."""
    expander = ex.expander
    lookup = expander.env.lookup
    ifs = expander.env.ifs
    store = ex.state.vars
    scopes = store.scopes  # (the store's own for good, as argv_scalar holds them)
    names = store.local_names  # (one set for the store's life: VarStore.local_names)
    inner = name not in NOT_PLAIN  # (never computed as read: the innermost binding is lookup's)

    def unquoted_fields() -> list[str]:
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
                (
                    (len(scopes) == 1 or "IFS" not in names)
                    and (
                        (f := scopes[0].get("IFS")) is None or (f.value == " \t\n" and not f.attrs & NAMEREF)
                    )
                )
                or ifs() == " \t\n"
            )
        ):
            return [v]
        out: list[str] = []
        rest(var, out)
        return out

    return unquoted_fields


def _unary_decider(name: str, texts: list[str | None]) -> Callable[[str], int | None] | None:
    """The status of `-n x` / `-z x` (the test's two words: a unary operator and one field), or
    None: not that shape."""
    operands = texts[:-1] if name == "[" and texts and texts[-1] == "]" else texts if name == "test" else None
    if operands is None or len(operands) != 2:
        return None
    if operands[0] == "-n":
        return lambda x: 0 if x else 1
    if operands[0] == "-z":
        return lambda x: 1 if x else 0
    return None


def _decider(op: str, other: str, other_right: bool) -> Callable[[str], int | None] | None:
    """The status of `x OP other` (`other OP x` when not other_right) for one expanded operand x;
    None from it: an error the builtin reports. None: `other` is no integer for OP."""
    # (imported when a plan is made: a script without test or [ does without the module, ~0.3 ms)
    from ..posix.testexpr import INT_OPS, TestError, integer, string_int_test

    if op == "=" or op == "==":
        return lambda x: 0 if x == other else 1
    if op == "!=":
        return lambda x: 1 if x == other else 0
    if op not in INT_OPS:
        if other_right:
            return lambda x: 0 if string_int_test(x, op, other) else 1
        return lambda x: 0 if string_int_test(other, op, x) else 1
    try:
        fixed = integer(other)
    except TestError:
        return None
    compare = INT_OPS[op]
    ints = INTS.get

    def number(x: str) -> int | None:
        v = ints(x)  # (a number arithmetic stored, read back without parsing)
        if v is None:
            try:
                v = integer(x)
            except TestError:
                return None
        return 0 if (compare(v, fixed) if other_right else compare(fixed, v)) else 1

    return number


def _binary_shape(name: str, texts: list[str | None]) -> _Shape | None:
    """`test A OP B` / `[ A OP B ]` with OP a literal string or integer operator: the answer when
    the expanded argv has that shape (its operator where the literal one was), else None. A literal
    decimal B is read once when A is the only word that expands (its field is then B's)."""
    from ..posix.testexpr import INT_OPS, STRING_INT_OPS, TestError, integer, string_int_test

    operands = texts[:-1] if name == "[" else texts
    if name == "[" and (not texts or texts[-1] != "]"):
        return None
    if len(operands) != 3 or operands[1] not in STRING_INT_OPS:
        return None
    op = operands[1]
    assert op is not None
    size = len(texts) + 1  # the argv's length with one field a word
    right = operands[2]
    if op not in INT_OPS:

        def strings(argv: list[str]) -> int | None:
            if len(argv) != size or argv[2] != op:
                return None
            return 0 if string_int_test(argv[1], op, argv[3]) else 1

        return strings
    compare = INT_OPS[op]
    fixed: int | None = None
    if right is not None and None not in texts[2:]:
        try:
            fixed = integer(right)
        except TestError:
            fixed = None  # (the builtin reports it)
    ints = INTS.get

    def numbers(argv: list[str]) -> int | None:
        if len(argv) != size or argv[2] != op:
            return None
        a = argv[1]
        # (INTS: a number arithmetic stored, read back without parsing; else test's own reading)
        x = ints(a)
        y = fixed if fixed is not None else ints(argv[3])
        try:
            if x is None:
                x = integer(a)
            if y is None:
                y = integer(argv[3])
        except TestError:
            return None  # (the builtin reports it)
        return 0 if compare(x, y) else 1

    return numbers
