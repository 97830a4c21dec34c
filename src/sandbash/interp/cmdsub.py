"""`$( )` without a subshell where none can be told apart: `$(echo ok)`, `$(printf '%s' "$x")`, `$(get)`.

A command substitution runs in a subshell: whatever its commands change stays there. When its body
is one `echo` or `printf` (the builtins, not functions) whose words only read literal text and plain
variables, or a call with such words of a function whose body is only such commands, it changes
nothing a subshell would keep: it writes to its standard output and maybe an error message, and sets
`$?`, `$_`, PIPESTATUS and the current line, which are put back here (a call puts back its own
frame, scope and positional parameters as it returns). So this shell runs it itself, with its
standard output going to the capture, through a twin shell over the same state (parts of its own:
the shell's may be in the middle of expanding the command that holds the substitution), and with
`set -e` as the subshell would have it.

Anything a subshell could tell apart falls back to the real one: a word that runs code or assigns
(`$( )`, `$(( ))`, `${x=...}`, `${x?}`, indirection, subscripts), a variable whose value a subshell
reads differently (RANDOM, SRANDOM, BASHPID, BASH_SUBSHELL) or any nameref, printf's `-v` or a format
that is not literal text or has `%n`, redirections and assignments, a function body with anything
else (`local`, `return`, another call, redirections, a `( )` body); and, when it runs: an echo or
printf that is a function or disabled, a trap (DEBUG, ERR, EXIT...), a pending signal, xtrace,
nounset, failglob, POSIX mode, or command gates (policy, audit and custom gates see the subshell as
before).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..shvars.vars import NAMEREF
from ..stdio.streams import Stream
from ..syntax import ast as A
from .control import AbortCommand, ExitShell

if TYPE_CHECKING:
    from .shell import Shell

# variables a subshell reads differently from its parent (or whose reading changes the parent)
_SUBSHELL_VARIES = frozenset({"RANDOM", "SRANDOM", "BASHPID", "BASH_SUBSHELL"})
_BUILTINS = ("echo", "printf")

# per body that can run in place: its command's name and the variables its words read; keyed by the
# node's id (the node is held with it, so the id is not reused while it is remembered). A body that
# cannot is not remembered (it would hold a large tree alive): _examine rejects most at once.
Plan = tuple[str, tuple[str, ...]]
_PLANS: dict[int, tuple[A.CommandList, Plan]] = {}
# the same for a function's body, whose commands must all be such echo/printf (None: one is not)
_FUNCS: dict[int, tuple[A.FuncDef, tuple[str, ...] | None]] = {}
_CACHE_MAX = 4096


def _plan(body: A.CommandList) -> Plan | None:
    hit = _PLANS.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    plan = _examine(body)
    if plan is not None:
        if len(_PLANS) >= _CACHE_MAX:
            _PLANS.clear()
        _PLANS[id(body)] = (body, plan)
    return plan


def _examine(body: A.CommandList) -> Plan | None:
    """The name of the body's one command and the variables its words read, when it is one simple
    command of words that only read: echo, printf, or what may be a function (_function_names)."""
    if len(body.items) != 1 or body.items[0].background:
        return None
    return _command(body.items[0].cmd)


def _command(cmd: A.Command) -> Plan | None:
    if type(cmd) is not A.SimpleCommand or cmd.assigns or cmd.redirs or not cmd.words:
        return None
    words = cmd.words
    name = _literal(words[0])
    if name is None:
        return None
    if name == "printf":
        fmt = _literal(words[1]) if len(words) > 1 else None
        if fmt is None or fmt.startswith("-") or _assigns_count(fmt):
            return None  # `-v VAR`, a format from a variable, or `%n`: printf may assign
    names: list[str] = []
    for word in words:
        if not _reads_only(word.parts, names):
            return None
    return name, tuple(names)


def _function_names(fdef: A.FuncDef) -> tuple[str, ...] | None:
    """The variables a function's body reads when its commands are all echo/printf that only read
    (`get() { echo ok; }`), else None."""
    hit = _FUNCS.get(id(fdef))
    if hit is not None and hit[0] is fdef:
        return hit[1]
    names: tuple[str, ...] | None = ()
    body = fdef.body
    if type(body) is not A.Group or not body.body.items:
        names = None
    else:
        for item in body.body.items:
            plan = None if item.background else _command(item.cmd)
            if plan is None or plan[0] not in _BUILTINS:
                names = None
                break
            names += plan[1]  # type: ignore[operator]
    if len(_FUNCS) >= _CACHE_MAX:
        _FUNCS.clear()
    _FUNCS[id(fdef)] = (fdef, names)  # (a definition is small: its node is held with its answer)
    return names


def _literal(word: A.Word) -> str | None:
    """A word's text when it is literal text only (quoted or not)."""
    out: list[str] = []
    for p in word.parts:
        t = type(p)
        if t is A.Lit or t is A.SQ or t is A.Esc:
            out.append(p.text)  # type: ignore[union-attr]
        elif t is A.DQ and all(type(q) is A.Lit for q in p.parts):  # type: ignore[union-attr]
            out.extend(q.text for q in p.parts)  # type: ignore[union-attr]
        else:
            return None
    return "".join(out)


def _assigns_count(fmt: str) -> bool:
    """Whether a printf format has a `%n` conversion (flags, width and precision may come between)."""
    i = fmt.find("%")
    while i >= 0:
        j = i + 1
        while j < len(fmt) and fmt[j] in "#-+ 0'123456789.*":
            j += 1
        if fmt[j : j + 1] == "n":
            return True
        i = fmt.find("%", j + 1 if fmt[j : j + 1] == "%" else j)
    return False


def _reads_only(parts: tuple[A.Part, ...], names: list[str]) -> bool:
    for p in parts:
        t = type(p)
        if t is A.Lit or t is A.SQ or t is A.Esc or t is A.Tilde:
            continue
        if t is A.DQ:
            if not _reads_only(p.parts, names):  # type: ignore[union-attr]
                return False
            continue
        if t is not A.Param:
            return False  # $( ), $(( )), <( ), braces, extglob: may run code or differ
        name = p.name  # type: ignore[union-attr]
        if p.op is not None or p.sub is not None or p.prefix not in ("", "#") or name in _SUBSHELL_VARIES:  # type: ignore[union-attr]
            return False
        names.append(name)
    return True


def run_in_place(sh: Shell, body: A.CommandList, out: Stream) -> int | None:
    """Run `body` in `sh` itself with its standard output on `out` (the capture), when no subshell
    could tell the difference: its status; None when it needs the subshell."""
    plan = _plan(body)
    if plan is None:
        return None
    st = sh.state
    opts = st.opts
    if (
        sh.rt.gates is not None
        or sh.rt.signals
        or st.traps
        or opts["xtrace"]
        or opts["nounset"]
        or opts["posix"]  # (a special builtin would be found before a function of its name)
        or st.shopts["failglob"]
    ):
        return None
    name, names = plan
    functions, disabled = st.functions, st.disabled_builtins
    if name not in _BUILTINS:
        fdef = functions.get(name)
        inner = None if fdef is None else _function_names(fdef)
        if inner is None:
            return None
        names += inner
    if any(b in functions or b in disabled for b in _BUILTINS):
        return None  # (an echo or printf that is a function or a program)
    vars_ = st.vars
    for n in names:
        var = vars_.find(n)
        if var is not None and var.attrs & NAMEREF:
            return None
    twin = _twin(sh)
    cmd = body.items[0].cmd
    assert isinstance(cmd, A.SimpleCommand)  # (_examine)
    saved = (st.line, st.last_arg, st.pipestatus, st.fds.get(1), opts["errexit"])
    st.fds[1] = out
    if not st.shopts["inherit_errexit"]:
        opts["errexit"] = False
    try:
        return twin.ex.exec_simple(cmd)
    except (ExitShell, AbortCommand) as e:
        return e.status  # (`set -e` with inherit_errexit: the subshell would end, not this shell)
    finally:
        st.line, st.last_arg, st.pipestatus, stdout, opts["errexit"] = saved
        if stdout is None:
            del st.fds[1]
        else:
            st.fds[1] = stdout


def _twin(sh: Shell) -> Shell:
    """A shell over `sh`'s own state, with parts of its own (an executor, an expander, an evaluator:
    `sh`'s may be in the middle of the command whose word holds the substitution). Made once per
    shell; Shell.release frees it with the shell."""
    twin: Shell | None = sh.__dict__.get("_inplace_twin")
    if twin is None:
        twin = sh.twin()
        sh.__dict__["_inplace_twin"] = twin
    twin.rt = sh.rt  # (a job's shell gets a runtime of its own after it is made)
    twin.seconds_base = sh.seconds_base  # ($SECONDS: assigning it moves the base)
    twin.subst_depth = sh.subst_depth + 1
    twin.eval_depth = sh.eval_depth
    twin.call_depth = sh.call_depth
    return twin
