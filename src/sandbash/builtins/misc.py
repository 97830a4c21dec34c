"""alias, unalias, trap, compgen, complete, compopt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..expand.quoting import single_quote
from ..vfs.errors import FsError
from . import BUILTINS, builtin
from .bopts import parse_builtin
from .complete import COMP_SPEC
from .core import _KEYWORDS, signal_list, signal_number

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
    if n is None:
        return None
    from .core import _SIGNALS

    if n == 0:
        return "EXIT"
    if n < len(_SIGNALS):
        return _SIGNALS[n]
    return f"SIG{n}"


def _trap_line(name: str, handler: str) -> str:
    shown = name if name in ("EXIT", "ERR", "DEBUG", "RETURN") else "SIG" + name
    return f"trap -- {single_quote(handler)} {shown}\n"


TRAP_USAGE = "trap: usage: trap [-lp] [[arg] signal_spec ...]\n"


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
                if sig in table:
                    sh.out(_trap_line(sig, table[sig]))
        else:
            for sig in _ordered(table):
                sh.out(_trap_line(sig, table[sig]))
        return 0
    if not args:
        table = st.traps or st.parent_traps
        for sig in _ordered(table):
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
    for spec in sigs:
        sig = _sig_name(spec)
        if sig is None:
            sh.builtin_error("trap", f"{spec}: invalid signal specification")
            status = 1
            continue
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
    return status


def _ordered(table: dict[str, str]) -> list[str]:
    from .core import _SIGNALS

    def key(name: str) -> int:
        if name in _SIGNALS:
            return _SIGNALS.index(name)
        return {"DEBUG": 100, "ERR": 101, "RETURN": 102}.get(name, 200)

    return sorted(table, key=key)


def path_programs(sh: Shell, prefix: str) -> list[str]:
    """Executable files in each PATH directory, in PATH order (as bash's `compgen -c`; /bin and
    /usr/bin list the sandbox's commands, so this agrees with `ls /usr/bin` and `which`)."""
    fs = sh.state.fs
    found: list[str] = []
    for d in (sh.get_str("PATH") or "").split(":"):
        try:
            entries = sorted(fs.listdir(d or "."))
        except FsError:
            continue
        for name in entries:
            if name.startswith(prefix):
                st = fs.try_stat((d or ".").rstrip("/") + "/" + name)
                if st is not None and st.is_file and st.perm & 0o111:
                    found.append(name)
    return found


_COMP_ACTIONS = {
    "a": "alias",
    "b": "builtin",
    "c": "command",
    "d": "directory",
    "e": "export",
    "f": "file",
    "k": "keyword",
    "v": "variable",
    "u": "user",
    "g": "group",
    "j": "job",
    "s": "service",
}


@builtin("compgen")
def bi_compgen(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, COMP_SPEC)
    if opts is None:
        return 2
    kinds: list[str] = []
    words: list[str] = []
    for c, value, _ in opts.items:
        if c == "A" and value is not None:
            kinds.append(value)
        elif c == "W" and value is not None:
            words.extend(value.split())
            kinds.append("wordlist")
        elif c in _COMP_ACTIONS:
            kinds.append(_COMP_ACTIONS[c])
    prefix = opts.args[0] if opts.args else ""
    if not kinds and not any(opts.has(c) for c in "oGFC"):
        return 0  # nothing asked for: bash answers success with no words
    st = sh.state
    out: list[str] = []
    for kind in kinds:
        if kind == "alias":
            out += sorted(st.aliases)
        elif kind == "builtin":
            out += sorted(BUILTINS)
        elif kind == "command":
            out += sorted(st.aliases) + sorted(BUILTINS) + sorted(st.functions) + list(_KEYWORDS)
            out += path_programs(sh, prefix)
        elif kind == "keyword":
            out += list(_KEYWORDS)
        elif kind == "function":
            out += sorted(st.functions)
        elif kind in ("variable", "export"):
            names = sh.var_names()
            if kind == "export":
                names = sorted(sh.va.exported_env())
            out += names
        elif kind in ("file", "directory"):
            d = prefix.rpartition("/")[0]
            try:
                entries = sorted(st.fs.listdir(d or "."))
            except Exception:
                entries = []
            for e in entries:
                p = (d + "/" if d else "") + e
                if kind == "directory" and not st.fs.is_dir(p):
                    continue
                out.append(p)
        elif kind == "user":
            out += [sh.rt.identity.user, "root"]
        elif kind == "wordlist":
            out += words
    result = _comp_filter(sh, [w for w in out if w.startswith(prefix)], opts.value("X"))
    for w in result:
        sh.out(f"{opts.value('P') or ''}{w}{opts.value('S') or ''}\n")
    return 0 if result else 1


def _comp_filter(sh: Shell, words: list[str], pattern: str | None) -> list[str]:
    """-X: drop the words the pattern matches (`!pat` keeps only those it matches)."""
    if pattern is None:
        return words
    from ..expand.pattern import match

    keep = pattern.startswith("!")
    pat = pattern[1:] if keep else pattern
    extglob = sh.state.shopts["extglob"]
    return [w for w in words if match(pat, w, extglob) == keep]
