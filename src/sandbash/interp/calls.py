"""Calls of shell functions: the function's context around its body (FUNCNAME's frame, the
positional parameters, the scope of its locals, FUNCNEST and max_call_depth, the DEBUG and RETURN
traps), and the compiled evaluator's direct call of a function whose name is literal text.

`call_function` is the one place that sets up and takes down a call; the walker (through
Evaluator.call_function and the executor's dispatch) and the compiled simple command
(`direct_call`) both come here. The direct path skips only what cannot apply to a command with
words alone, no gates and a function found by its name (run_argv's dispatch, _callable's builtin
lookup): the lookup itself is made at every call, so a function redefined, unset or shadowing a
builtin behaves exactly as through run_argv."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..expand.env import ExpansionError
from ..limits import LimitExceeded, LimitKind
from ..shvars.vars import ARRAYREF_BUILTINS, TWO_GRAINS, Scope, word_text
from ..syntax import ast as A
from .builtin_table import DECLARATION
from .control import AbortCommand, ReturnFromFunction
from .state import ONE_STATUS, pop_args, push_args
from .variables import AssignError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .evaluator import Evaluator

# functions named like a declaration or array-reference builtin: their words were made
# AssignArg/ArrayRefArg (str subclasses carrying parts) by the name; the call gets their text
PARTED_WORDS = DECLARATION | ARRAYREF_BUILTINS
_NO_SOURCE = ("", 0)
_ZERO = ONE_STATUS[0]  # (PIPESTATUS of a command of status 0)


def call_function(
    ev: Evaluator,
    name: str,
    fdef: A.FuncDef,
    argv: list[str],
    temp: Scope | None,
    site: list[Any] | None = None,
    mark: int = -1,
) -> int:
    """Run the function `fdef` called as `name` with words `argv` (`temp`: the call's temporary
    bindings, `v=x f`): its status, also left in $?. `site`: a compiled call site's memory of the
    last function it called and that body's code (see _body_code). `mark` (not -1): the call is a
    compiled simple command's (direct_call) and does what run_argv does after it: $_, the process
    substitutions made since `mark`, PIPESTATUS and the ERR trap / set -e."""
    st = ev.state
    frames = st.frames
    depth = len(frames)
    store = st.vars
    scopes = store.scopes
    names = store.local_names  # (VarStore.local_names: a FUNCNEST not in it is a global or none)
    # (a call from the top level never nests)
    if depth and ("FUNCNEST" in names or "FUNCNEST" in scopes[0]):
        _check_funcnest(ev, name, depth)
    if depth >= ev.sh.rt.limits.max_call_depth:
        raise LimitExceeded(LimitKind.MAX_CALL_DEPTH, ev.sh.rt.limits.max_call_depth)
    spare = store.spare
    # (VarStore.push's work, inline: the scope gets the set, and its names go in it; the spare was
    # pushed before and is empty)
    if temp is not None:
        scope = _temp_scope(temp, names)
    elif spare is not None:
        scope = spare  # (the last call's scope, emptied as it returned: see below)
        store.spare = None
    else:
        scope = Scope(False, True)  # (positional: keywords cost the type call a dict)
        scope.names = names
    acct = store.acct
    # the call's positional parameters live as long as the call: charged (max_memory) now and
    # given back as it returns. (MemAccount.add's common case inline: within the grains already
    # charged; anything else, add itself. One argument, the commonest call, is summed in place)
    count = len(argv)
    if count == 2:
        n = len(argv[0]) + len(argv[1]) + 128
    elif count > 2:
        n = sum(map(len, argv)) + 64 * count
    else:
        n = 0
    if n:
        held = acct.held + n
        if held <= acct.charged:
            acct.held = held
        else:
            acct.add(n)
    saved_positional = st.positional
    saved_line = st.line
    saved_ctx = st.ctx_line
    saved_loop = st.loop_depth
    saved_getopts = st.getopts_pos  # put back on return when the function had a local OPTIND
    frame = (name, st.func_sources.get(name, _NO_SOURCE)[0], saved_line)  # (a Frame)
    if depth:
        frames.append(frame)
    else:
        # a call from the top level gets a new list of one: its pop below leaves it empty with
        # its room for one kept, where the pop of the stack's only frame would give its room back
        # to the allocator (list_resize to 0 frees; the next append allocates again): ~300
        # instructions less a call. Nothing holds the stack but the state (readers take st.frames)
        st.frames = frames = [frame]
    debug_args = st.argv_debug  # (extdebug as the call starts decides its push and its pop: bash)
    if debug_args:
        push_args(st, [a if type(a) is str else word_text(a) for a in argv[1:]])
    code: Callable[[], int] | None
    if site is not None and site[0] is fdef:
        # a compiled site's memory of this definition (_body_code): its body's code and line. Its
        # name is literal and no builtin's (Compiler.simple), so never one of PARTED_WORDS
        code = site[1]
        st.ctx_line = site[2]
        st.positional = argv[1:]
    else:
        code = None
        st.ctx_line = getattr(fdef.body, "line", 0) or fdef.line  # (bash: the body's line, its `{`)
        st.positional = argv[1:] if name not in PARTED_WORDS else [word_text(a) for a in argv[1:]]
    scopes.append(scope)
    st.loop_depth = 0
    returned = False  # (a `return` ended the body: the RETURN trap's $LINENO is its line)
    skipped = 0
    traps = st.traps
    err_before = err_frame = None  # (the ERR trap as the call starts: _err_trap_after)
    err_inherited = False
    if traps:
        err_before = traps.get("ERR")
        err_frame = st.err_trap_frame
        if err_before is not None:
            if len(frames) > 1 and frames[-2] is not err_frame:
                err_before = None  # (the caller does not see it: bash has it unset there)
            elif st.opts["errtrace"]:  # (as the call starts: a `set -E` in the body comes too late)
                st.err_trap_frame = frame
                err_inherited = True
    try:
        try:
            if traps and "DEBUG" in traps:
                skipped = _debug_trap(ev, name, fdef.body)
            # what execute() does for a `{ }` body, without the two calls; compiled, a `return`
            # ends the body with a status below zero (compiler.returned: -1 - status). A site
            # remembers the code of a `{ }` body only (_body_code): no type test for it
            if skipped:  # (extdebug: the body is not run, the trap's status is the call's)
                code = partial(int, skipped)
            elif code is not None:
                pass  # (the site's)
            elif type(body := fdef.body) is A.Group:
                code = _body_code(ev, fdef, body, site)  # type: ignore[arg-type]
                if code is None:
                    code = partial(ev.run_list, body.body)  # type: ignore[attr-defined]  # (walked)
            else:
                code = None
            if code is None:
                status = ev.execute(fdef.body)
            else:
                try:
                    status = code()
                    if status < 0:
                        status = -1 - status
                        returned = True
                except ExpansionError as e:
                    status = ev.expansion_failed(e)
        except ReturnFromFunction as r:
            status = r.status
            returned = True
        if st.traps or err_before is not None:
            if st.traps and not skipped:  # (a skipped body runs no RETURN trap: bash)
                _return_trap(ev, None if returned else fdef.body)
            _err_trap_after(ev, err_before, err_frame, status, err_inherited)
    finally:
        st.loop_depth = saved_loop
        done = scopes.pop()
        if len(names) > store.names_cap:
            store.renew_names()  # (at most twice what the scopes hold: VarStore.local_names)
        if done or done.locals or done.acct is not None or done.tempvars is not None:
            if done:
                # (one test for the names whose going undoes something: `local -`, PATH, ...)
                if done.propagate or not _UNDONE.isdisjoint(done):
                    _special_done(ev, done, saved_getopts)
            charged = done.acct
            if charged is acct:
                # (Scope.release's work, with the parameters' in one step: what was charged
                # for the scope's variables, kept as they were charged)
                done.acct = None
                n += done.size
                done.size = 0
            elif charged is not None:
                done.release()  # (charged to another account: a store's copy)
            if done.tempvars is None:
                # a plain call's scope, given back: the next call takes it emptied rather than
                # make one (nothing else holds a function's scope once it is popped)
                if done:
                    done.clear()
                if done.locals:
                    done.locals.clear()
                store.spare = done
        else:
            store.spare = done  # (a plain call that made no local: nothing to undo or give back)
        if type(st.positional) is not list:  # (Params: a `set` in the body made them)
            n += st.positional.nbytes  # type: ignore[attr-defined]
        if n:
            held = acct.held - n
            if held >= 0 and acct.charged - TWO_GRAINS <= held:
                acct.held = held
            elif not acct.closed:
                acct.add(-n)
        frames.pop()
        if debug_args:
            pop_args(st)
        st.positional = saved_positional
        st.line = saved_line
        st.ctx_line = saved_ctx
        if mark >= 0:
            procs = ev.pr.procsubs
            if procs and len(procs) > mark:
                ev.pr.finish_procsubs(mark)
    st.last_status = status
    if mark >= 0:
        # (a compiled site's call, whose name is no builtin's: its words are plain text, never
        # the parted words of PARTED_WORDS)
        st.last_arg = argv[-1]
        if status:
            st.pipestatus = ONE_STATUS[status] if 0 < status < 256 else [status]  # (as run_argv)
            ev.errexit_check(status)
        else:
            st.pipestatus = _ZERO
    return status


_UNDONE = frozenset(("-", "PATH", "POSIXLY_CORRECT", "OPTIND"))

# call_function's work for a compiled call site's call in its common case, as text (steps._call
# writes it into the site's closure and into generated bodies and loops: no frame of its own).
# The case: the site remembers this definition's compiled body (`{site}`: _body_code), no trap is
# set as it starts (no DEBUG trap to run, no ERR trap to hand down), extdebug's argument stacks
# are off, the call is within max_call_depth and FUNCNEST is
# unset. Anything else is call_function's (the closure's `else`). Kept in step with
# call_function by hand: the spec tables run compiled, generated and walked (the walker always
# calls call_function) and must agree. It runs with `argv` and `mark` set, `fdef` the function
# found, and leaves the status in `s`.
SITE_TEST = """\
(site := {site})[0] is fdef
and not st.traps
and not st.argv_debug
and (depth := len(frames := st.frames)) < rt.limits.max_call_depth
and not (depth and ("FUNCNEST" in st.vars.local_names or "FUNCNEST" in st.vars.scopes[0]))"""
SITE_CALL = """\
vs = st.vars
spare = vs.spare
if spare is not None:
    vs.spare = None  # (the last call's scope, emptied as it returned)
else:
    spare = Scope(False, True)
    spare.names = vs.local_names
acct = vs.acct
count = len(argv)
n = len(argv[0]) + len(argv[1]) + 128 if count == 2 else sum(map(len, argv)) + 64 * count if count > 2 else 0
if n:
    held = acct.held + n
    if held <= acct.charged:
        acct.held = held
    else:
        acct.add(n)
saved_positional = st.positional
saved_line = st.line
saved_ctx = st.ctx_line
saved_loop = st.loop_depth
saved_getopts = st.getopts_pos
frame = ({name}, st.func_sources.get({name}, NO_SOURCE)[0], saved_line)
if depth:
    frames.append(frame)
else:
    st.frames = frames = [frame]
st.ctx_line = site[2]
st.positional = argv[1:]
scopes = vs.scopes
scopes.append(spare)
st.loop_depth = 0
returned = False
try:
    try:
        try:
            status = site[1]()
            if status < 0:
                status = -1 - status
                returned = True
        except ExpansionError as e:
            status = {ev}.expansion_failed(e)
    except ReturnFromFunction as r:
        status = r.status
        returned = True
    if st.traps:  # (set in the body: its RETURN trap, and the ERR trap it set)
        traps_after({ev}, fdef, returned, status)
finally:
    st.loop_depth = saved_loop
    done = scopes.pop()
    if len(vs.local_names) > vs.names_cap:
        vs.renew_names()
    if done or done.locals or done.acct is not None or done.tempvars is not None:
        if done and (done.propagate or not UNDONE.isdisjoint(done)):
            special_done({ev}, done, saved_getopts)
        charged = done.acct
        if charged is acct:
            done.acct = None
            n += done.size
            done.size = 0
        elif charged is not None:
            done.release()
        if done.tempvars is None:
            if done:
                done.clear()
            if done.locals:
                done.locals.clear()
            vs.spare = done
    else:
        vs.spare = done
    if type(st.positional) is not list:
        n += st.positional.nbytes
    if n:
        held = acct.held - n
        if held >= 0 and acct.charged - TWO_GRAINS <= held:
            acct.held = held
        elif not acct.closed:
            acct.add(-n)
    frames.pop()
    st.positional = saved_positional
    st.line = saved_line
    st.ctx_line = saved_ctx
    if procs and len(procs) > mark:
        ex.pr.finish_procsubs(mark)
st.last_status = status
st.last_arg = argv[-1]
if status:
    st.pipestatus = ONE_STATUS[status] if 0 < status < 256 else [status]
    {ev}.errexit_check(status)
else:
    st.pipestatus = _ZERO
s = status
"""


def traps_after(ev: Evaluator, fdef: A.FuncDef, returned: bool, status: int) -> None:
    """SITE_CALL's end of a call that started with no trap set and has one now: what call_function
    does then (the RETURN trap, the ERR trap's hand-over)."""
    _return_trap(ev, None if returned else fdef.body)
    _err_trap_after(ev, None, None, status, False)


def _special_done(ev: Evaluator, done: Scope, getopts_pos: int) -> None:
    """A popped function scope held `local -`'s options, temporary bindings to hand to the caller,
    PATH, POSIXLY_CORRECT or OPTIND: undo what they did. `getopts_pos`: getopts' place within a
    word as the call began."""
    if "OPTIND" in done and "OPTIND" in done.locals:
        # bash puts getopts' place back when OPTIND is still the function's own local as it
        # returns (a local it unset itself is; one a callee's `unset` removed is not, nor a
        # temporary binding `OPTIND=1 f`)
        ev.state.getopts_pos = getopts_pos
    if done.propagate or "-" in done:
        ev.va.scope_done(done)  # `local -` options, propagated temporary bindings
    if "PATH" in done:
        ev.state.hashed.clear()  # bash empties its hash table when a local PATH goes (as when set)
    if "POSIXLY_CORRECT" in done:
        ev.va.posix_env_done()  # (a binding of the call's, or a local, is gone)


def _check_funcnest(ev: Evaluator, name: str, depth: int) -> None:
    """bash's FUNCNEST (a number > 0): a call past it fails and the whole top-level command is
    dropped."""
    nest = ev.va.lookup("FUNCNEST")
    if nest is not None and type(nest.value) is str and funcnest(nest.value) <= depth:
        ev.sh.error(f"{name}: maximum function nesting level exceeded ({depth})")
        raise AbortCommand(ev.state.last_status or 1)  # (bash's DISCARD keeps a failed status)


def _temp_scope(temp: Scope, names: set[str]) -> Scope:
    """bash puts a call's temporary bindings (`v=x f`) in the function's own local context:
    `local v` keeps the value, an outer `unset v` removes it. (`names`: the store's
    local_names, given to the scope about to be pushed, with its names)"""
    temp.func = True
    temp.temp = False
    temp.tempvars = set(temp)
    temp.names = names
    names.update(temp)
    return temp


def _body_code(
    ev: Evaluator, fdef: A.FuncDef, body: A.Group, site: list[Any] | None
) -> Callable[[], int] | None:
    """The compiled code of the function's `{ }` body (None: walk it, the first time or without
    the compiler), remembered by the call site, if any, with the body's line for its next call
    (call_function looks there first): a redefined function is another FuncDef, and a body's code stays right for
    its syntax tree."""
    comp = ev.comp
    found, final = comp.function_body(body.body) if comp is not None else (None, False)
    if final and site is not None:
        site[0] = fdef
        site[1] = found
        site[2] = body.line or fdef.line  # (call_function's ctx_line for it)
    return found


def _err_trap_after(ev: Evaluator, before: str | None, frame: object, status: int, inherited: bool) -> None:
    """A function's end and the ERR trap, as bash's execute_function. A function sees the caller's
    trap only when errtrace was on as it was called (`inherited`; ShellState.err_trap_frame is
    then its frame); one it set, or inherited, is the caller's from now on. Without errtrace the
    caller's trap is put back when the body removed it (uw_maybe_set_error_trap: only if none is
    set), and a trap the body set runs for later failures, not for the call's own (err_trap_new)."""
    st = ev.state
    frames = st.frames
    if st.err_trap_frame is frames[-1]:
        st.err_trap_frame = frames[-2] if len(frames) > 1 else None
    if before is not None and "ERR" not in st.traps and not inherited:
        st.traps["ERR"] = before
        st.err_trap_frame = frame
    ev.err_trap_new(before, status)


def _debug_trap(ev: Evaluator, name: str, body: A.Command) -> int:
    """bash runs the DEBUG trap once as a function starts, on its body's line (non-zero: extdebug
    skips the body)."""
    st = ev.state
    st.line = getattr(body, "line", 0) or st.line
    return ev.ex.debug_trap(ev.sh.current_command or name)


def _return_trap(ev: Evaluator, body: A.Command | None) -> None:
    """A RETURN trap applies to the function that set it, to traced functions it calls, or to all
    with functrace. `body`: the function's, when it ran to its end: bash's line is then where the
    body starts (a `{ }` puts back the line it began on), else the `return`'s."""
    st = ev.state
    handler = st.traps.get("RETURN")
    if (
        handler
        and "RETURN" not in st.traps_running
        and (st.opts["functrace"] or st.trap_reaches(st.return_trap_depth))
    ):
        if body is not None and type(body) is A.Redirected:
            body = body.body
        if body is not None and type(body) is A.Group:
            st.line = body.line
        ev.sh.run_trap_text(handler, "RETURN")


def direct_call(
    ev: Evaluator, name: str, fdef: A.FuncDef, argv: list[str], mark: int, site: list[Any]
) -> int:
    """A compiled simple command's call of the function its literal name found (words only, no
    gates, not POSIX mode; not a builtin's name) whose words are worth charging to max_memory
    while it runs (Expander.argv_held): what run_argv does around call_function, without its
    dispatch. `mark` as in run_argv. (Smaller words: Compiler.simple calls call_function with
    `mark` itself.)"""
    held = ev.expander.argv_held()
    budget = ev.sh.rt.budget
    budget.charge_memory(held)
    try:
        return call_function(ev, name, fdef, argv, None, site, mark)
    except AssignError as e:
        return call_failed(ev, e, argv, mark)
    finally:
        budget.release_memory(held)


def call_failed(ev: Evaluator, e: AssignError, argv: list[str], mark: int) -> int:
    """A compiled call that an assignment error ended (run_argv's report of it): status 1."""
    st = ev.state
    ev.sh.error(e.message)
    last = argv[-1]
    st.last_arg = last if type(last) is str else word_text(last)
    pr = ev.pr
    if len(pr.procsubs) > mark:
        pr.finish_procsubs(mark)
    st.last_status = 1
    st.pipestatus = [1]
    ev.errexit_check(1)
    return 1


def funcnest(text: str) -> int:
    """FUNCNEST as bash's sv_funcnest reads it: a decimal number, anything else (or 0) is no limit."""
    from ..posix import number_text  # (only when FUNCNEST is set)

    s = number_text(text)
    body = s[1:] if s[:1] in "+-" and s else s
    n = int(s) if body.isascii() and body.isdigit() else 0
    return n if n > 0 else 1 << 62
