"""alias, unalias, trap."""

from __future__ import annotations

from ..expand.quoting import single_quote
from . import builtin
from .bopts import parse_builtin
from .core import signal_list, signal_name, signal_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell


@builtin("alias")
def bi_alias(sh: Shell, argv: list[str]) -> int:
    aliases = sh.state.aliases
    opts = parse_builtin(sh, argv, "p")
    if opts is None:
        return 2
    args = opts.args
    if opts.has("p") or not args:
        for name in sorted(aliases):
            sh.out(f"alias {name}={single_quote(aliases[name])}\n")
    status = 0
    for a in args:
        name, eq, value = a.partition("=")
        if eq:
            if not name or any(c in name for c in " \t\n/$`=\"'<>|&;()\\"):
                sh.builtin_error("alias", f"`{name}': invalid alias name")
                status = 1
                continue
            aliases[name] = value
        elif name in aliases:
            sh.out(f"alias {name}={single_quote(aliases[name])}\n")
        else:
            sh.builtin_error("alias", f"{name}: not found")
            status = 1
    return status


@builtin("unalias")
def bi_unalias(sh: Shell, argv: list[str]) -> int:
    aliases = sh.state.aliases
    opts = parse_builtin(sh, argv, "a")
    if opts is None:
        return 2
    args = opts.args
    if opts.has("a"):
        aliases.clear()
        return 0
    if not args:
        sh.write_err("unalias: usage: unalias [-a] name [name ...]\n")
        return 2
    status = 0
    for name in args:
        if name in aliases:
            del aliases[name]
        else:
            sh.builtin_error("unalias", f"{name}: not found")
            status = 1
    return status


def _sig_name(spec: str) -> str | None:
    s = spec.upper()
    if s in ("EXIT", "0", "SIGEXIT"):
        return "EXIT"
    if s in ("ERR", "DEBUG", "RETURN"):
        return s
    n = signal_number(s)
    return None if n is None else signal_name(n) or None


def _trap_line(name: str, handler: str) -> str:
    shown = name if name in ("EXIT", "ERR", "DEBUG", "RETURN") else "SIG" + name
    return f"trap -- {single_quote(handler)} {shown}\n"


TRAP_USAGE = "trap: usage: trap [-lp] [[arg] signal_spec ...]\n"


def _in_force(sh: Shell, sig: str, handler: str) -> bool:
    """Whether a listing shows the trap: inside a function, a DEBUG or RETURN trap it does not
    inherit (no functrace, not set there nor by traced callers) is unset for it, as in bash, and
    so is an ERR trap it neither set nor inherited (calls._err_trap_after); an
    ignored one ('') stays."""
    st = sh.state
    if not handler or not st.frames:
        return True
    if sig == "ERR":
        return st.frames[-1] is st.err_trap_frame
    if sig not in ("DEBUG", "RETURN") or st.opts["functrace"]:
        return True
    return st.trap_reaches(st.debug_trap_depth if sig == "DEBUG" else st.return_trap_depth)


@builtin("trap")
def bi_trap(sh: Shell, argv: list[str]) -> int:
    st = sh.state
    opts = parse_builtin(sh, argv, "lp")
    if opts is None:
        return 2
    args = opts.args
    flags = opts.letters()
    if "l" in flags:
        sh.out(signal_list())
        return 0
    if "p" in flags:
        names = args
        table = st.traps or st.parent_traps
        if names:
            for n in names:
                sig = _sig_name(n)
                if sig is None:
                    sh.builtin_error("trap", f"{n}: invalid signal specification")
                    return 1
                if sig in table and _in_force(sh, sig, table[sig]):
                    sh.out(_trap_line(sig, table[sig]))
        else:
            for sig in _ordered(table):
                if _in_force(sh, sig, table[sig]):
                    sh.out(_trap_line(sig, table[sig]))
        return 0
    if not args:
        table = st.traps or st.parent_traps
        for sig in _ordered(table):
            if _in_force(sh, sig, table[sig]):
                sh.out(_trap_line(sig, table[sig]))
        return 0
    if len(args) == 1 and _sig_name(args[0]) is None:
        sh.write_err(TRAP_USAGE)
        return 2
    if len(args) == 1:
        # `trap SIG` resets it
        handler: str | None = "-"
        sigs = args
    else:
        handler, sigs = args[0], args[1:]
    if handler is not None and _sig_name(handler) is not None and handler.isdigit():
        # `trap 0 1` style: all are signals to reset
        sigs = args
        handler = "-"
    status = 0
    err_before = st.traps.get("ERR")
    if st.parent_traps:
        # a subshell's first change to its traps drops the parent's it was still showing (bash
        # frees those strings then: `( trap - QUIT; trap )` shows nothing)
        st.parent_traps = {}
    for spec in sigs:
        sig = _sig_name(spec)
        if sig is None:
            sh.builtin_error("trap", f"{spec}: invalid signal specification")
            status = 1
            continue
        if sig in sh.entry_ignored:
            continue  # ignored since the shell started: bash silently keeps it so
        if handler == "-":
            st.traps.pop(sig, None)
        else:
            st.traps[sig] = handler or ""
            if sig == "RETURN":
                st.return_trap_depth = len(st.frames)
            elif sig == "DEBUG":
                st.debug_trap_depth = len(st.frames)
            elif sig == "ERR":
                st.err_trap_frame = st.frames[-1] if st.frames else None
    if status:
        sh.ev.err_trap_new(err_before, status)  # (`trap CMD ERR BAD`: not for its own failure)
    return status


def _ordered(table: dict[str, str]) -> list[str]:
    from .core import _SIGNALS

    def key(name: str) -> int:
        if name in _SIGNALS:
            return _SIGNALS.index(name)
        special = {"DEBUG": 100, "ERR": 101, "RETURN": 102}
        return special[name] if name in special else signal_number(name) or 200

    return sorted(table, key=key)
