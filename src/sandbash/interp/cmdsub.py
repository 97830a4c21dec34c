"""`$( )` without a subshell where none can be told apart: `$(echo ok)`, `$(printf '%s' "$x")`.

A command substitution runs in a subshell: whatever its commands change stays there. When its body
is one `echo` or `printf` (the builtins, not functions) whose words only read literal text and plain
variables, it changes nothing a subshell would keep: it writes to its standard output and maybe an
error message, and sets `$?`, `$_`, PIPESTATUS, the current line and $BASH_COMMAND, which are put
back here. So this shell runs it itself, with its standard output going to the capture, with an
executor and expander of its own (the shell's may be in the middle of expanding the command that
holds the substitution), and with `set -e` as the subshell would have it.

Anything a subshell could tell apart falls back to the real one: a word that runs code or assigns
(`$( )`, `$(( ))`, `${x=...}`, `${x?}`, indirection, subscripts), a variable whose value a subshell
reads differently (RANDOM, SRANDOM, BASHPID, BASH_SUBSHELL) or any nameref, printf's `-v` or a format
that is not literal text or has `%n`, redirections and assignments; and, when it runs: a function or
disabled builtin of that name, a trap (DEBUG, ERR, EXIT...), a pending signal, xtrace, nounset,
failglob, or command gates (policy, audit and custom gates see the subshell as before).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..shvars.vars import NAMEREF
from ..stdio.streams import Stream
from ..syntax import ast as A
from .control import AbortCommand, ExitShell
from .executor import Executor

if TYPE_CHECKING:
    from .shell import Shell

# variables a subshell reads differently from its parent (or whose reading changes the parent)
_SUBSHELL_VARIES = frozenset({"RANDOM", "SRANDOM", "BASHPID", "BASH_SUBSHELL"})
_BUILTINS = ("echo", "printf")

# per body that can run in place: the variable names its words read; keyed by the node's id (the
# node is held with it, so the id is not reused while it is remembered). A body that cannot is not
# remembered (it would hold a large tree alive): _examine rejects most at their first item.
_PLANS: dict[int, tuple[A.CommandList, tuple[str, ...]]] = {}
_PLANS_MAX = 4096


def _plan(body: A.CommandList) -> tuple[str, ...] | None:
    hit = _PLANS.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    names = _examine(body)
    if names is not None:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        _PLANS[id(body)] = (body, names)
    return names


def _examine(body: A.CommandList) -> tuple[str, ...] | None:
    """The names of the variables the body's one command reads, when it can run in place."""
    if len(body.items) != 1 or body.items[0].background:
        return None
    cmd = body.items[0].cmd
    if type(cmd) is not A.SimpleCommand or cmd.assigns or cmd.redirs or not cmd.words:
        return None
    words = cmd.words
    name = _literal(words[0])
    if name not in _BUILTINS:
        return None
    if name == "printf":
        fmt = _literal(words[1]) if len(words) > 1 else None
        if fmt is None or fmt.startswith("-") or _assigns_count(fmt):
            return None  # `-v VAR`, a format from a variable, or `%n`: printf may assign
    names: list[str] = []
    for word in words:
        if not _reads_only(word.parts, names):
            return None
    return tuple(names)


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
    names = _plan(body)
    if names is None:
        return None
    st = sh.state
    opts = st.opts
    if (
        sh.rt.gates is not None
        or sh.rt.signals
        or st.traps
        or opts["xtrace"]
        or opts["nounset"]
        or st.shopts["failglob"]
    ):
        return None
    cmd = body.items[0].cmd
    assert isinstance(cmd, A.SimpleCommand)  # (_examine)
    name = _literal(cmd.words[0])
    if name in st.functions or name in st.disabled_builtins:
        return None
    vars_ = st.vars
    for n in names:
        var = vars_.find(n)
        if var is not None and var.attrs & NAMEREF:
            return None
    ex = _executor(sh)
    saved = (st.line, sh.current_command, st.last_arg, st.pipestatus, st.fds.get(1), opts["errexit"])
    st.fds[1] = out
    if not st.shopts["inherit_errexit"]:
        opts["errexit"] = False
    try:
        return ex.exec_simple(cmd)
    except (ExitShell, AbortCommand) as e:
        return e.status  # (`set -e` with inherit_errexit: the subshell would end, not this shell)
    finally:
        st.line, sh.current_command, st.last_arg, st.pipestatus, stdout, opts["errexit"] = saved
        if stdout is None:
            del st.fds[1]
        else:
            st.fds[1] = stdout


def _executor(sh: Shell) -> Executor:
    """The shell's executor for bodies run in place, with an expander of its own."""
    ex: Executor | None = sh.__dict__.get("_inplace_ex")
    if ex is None:
        from ..expand.words import Expander

        main = sh.ex
        ex = Executor(sh, sh.state, Expander(sh), sh.va, sh.rd)
        ex.ev = main.ev
        ex.pr = main.pr
        sh.__dict__["_inplace_ex"] = ex
    return ex
