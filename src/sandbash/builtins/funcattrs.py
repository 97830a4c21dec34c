"""Functions as `declare -f`/`-F`, `export -f`, `readonly -f` and `unset -f` see them: their
definitions, their attributes (readonly, exported) and the errors bash gives for them."""

from __future__ import annotations

from ..shvars.vars import ARRAY, ASSOC, EXPORT, INTEGER, NAMEREF, READONLY, TRACE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell

# attributes that make no sense on a function: bash names the first of n, i, A, a as an invalid option
_NOT_FOR_FUNCTIONS = ((NAMEREF, "-n"), (INTEGER, "-i"), (ASSOC, "-A"), (ARRAY, "-a"))


def func_attrs(sh: Shell, name: str) -> str:
    """The letters after `declare -f` (`r`, `t`, `x`, in bash's order)."""
    st = sh.state
    return (
        ("r" if name in st.readonly_funcs else "")
        + ("t" if name in st.traced_funcs else "")
        + ("x" if name in st.exported_funcs else "")
    )


def _has(sh: Shell, name: str, want: int) -> bool:
    st = sh.state
    return not (want & READONLY and name not in st.readonly_funcs) and not (
        want & EXPORT and name not in st.exported_funcs
    )


def print_functions(
    sh: Shell,
    names: list[str] | None,
    only_names: bool,
    want: int = 0,
    with_attrs: bool = False,
    cmd: str = "declare",
    attr_lines: bool = True,
) -> int:
    """List functions (all of them with `want`'s attributes, or `names`). A listing of all shows
    each one's `declare -f<attrs>` line (after the body with -f, when it has attributes; not in
    `set`'s listing, `attr_lines` False); named ones show it only with -p (`with_attrs`), and one
    that is not a function fails (`not found` with -p)."""
    from ..syntax.unparse import unparse_function

    st = sh.state
    status = 0
    listing = names is None
    for name in sorted(st.functions) if names is None else names:
        fdef = st.functions.get(name)
        if fdef is None:
            if with_attrs:
                sh.builtin_error(cmd, f"{name}: not found")
            status = 1
            continue
        if listing and want and not _has(sh, name, want):
            continue
        attrs = func_attrs(sh, name)
        line = f"declare -f{attrs} {name}\n"
        if only_names:
            if not (listing or with_attrs) and st.shopts["extdebug"]:
                # bash's declare -F under extdebug: where the function was defined
                source, at = st.func_sources.get(name, ("", 0))
                sh.out(f"{name} {at} {source}\n")
            else:
                sh.out(line if listing or with_attrs else f"{name}\n")
        else:
            tail = line if attrs and attr_lines and (listing or with_attrs) else ""
            sh.out(unparse_function(fdef) + "\n" + tail)
    return status


def declare_functions(
    sh: Shell,
    cmd: str,
    names: list[str],
    set_attrs: int,
    clear_attrs: int,
    only_names: bool,
    print_mode: bool,
) -> int:
    """`declare -f`/`-F` with or without names and attributes."""
    for bit, letter in _NOT_FOR_FUNCTIONS:
        if set_attrs & bit:
            sh.builtin_error(cmd, f"{letter}: invalid option")
            return 1
    if not names or print_mode:
        want = set_attrs & (READONLY | EXPORT)
        return print_functions(sh, names or None, only_names, want, with_attrs=print_mode, cmd=cmd)
    status = 0
    for name in names:
        if "=" in name:
            sh.builtin_error(cmd, "cannot use `-f' to make functions")  # (and bash stops there)
            return 1
        if set_attrs or clear_attrs:
            status |= set_func_attrs(sh, cmd, [name], set_attrs, clear_attrs)
        else:
            status |= print_functions(sh, [name], only_names, cmd=cmd)
    return status


def set_func_attrs(
    sh: Shell, cmd: str, names: list[str], set_attrs: int, clear_attrs: int, missing: str | None = None
) -> int:
    """Turn readonly/export on or off; a readonly function stays readonly (`h: readonly function`).
    A name that is no function fails the call (with `missing`'s message when given)."""
    st = sh.state
    status = 0
    for name in names:
        if name not in st.functions:
            if missing is not None:
                sh.builtin_error(cmd, f"{name}: {missing}")
            status = 1
            continue
        if clear_attrs & READONLY and name in st.readonly_funcs:
            sh.builtin_error(cmd, f"{name}: readonly function")
            status = 1
            continue
        if set_attrs & EXPORT:
            st.exported_funcs.add(name)
        elif clear_attrs & EXPORT:
            st.exported_funcs.discard(name)
        if set_attrs & READONLY:
            st.readonly_funcs.add(name)
        if set_attrs & TRACE:  # (bash's +t leaves a function traced)
            st.traced_funcs.add(name)
    return status


def unset_function(sh: Shell, name: str) -> bool:
    """`unset -f NAME` (or `unset NAME` of a function): False, with bash's message, when it is readonly."""
    st = sh.state
    if name in st.readonly_funcs and name in st.functions:
        sh.builtin_error("unset", f"{name}: cannot unset: readonly function")
        return False
    st.functions.pop(name, None)
    st.traced_funcs.discard(name)
    return True
