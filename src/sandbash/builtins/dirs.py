"""cd, pwd, pushd, popd, dirs."""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..shvars.vars import valid_name
from ..syntax.escapes import printable_name
from ..vfs.base import normpath
from ..vfs.errors import FsError
from . import builtin
from .bopts import invalid_number, legal_number, parse_builtin, usage, wants_help

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..commands.options import CommandSpec, Parsed
    from ..interp.shell import Shell


def _tilde(sh: Shell, path: str) -> str:
    home = sh.get_str("HOME") or ""
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :] if home != "/" else path
    return path


def change_dir(sh: Shell, target: str, physical: bool, name: str = "cd", shown: str | None = None) -> bool:
    """Change to `target`; an error names `shown` (the word given, when `target` came from it)."""
    st = sh.state
    fs = st.fs
    if target.startswith("/"):
        logical = normpath(target)
    else:
        logical = normpath(fs.cwd.rstrip("/") + "/" + target)
    try:
        if ".." in target.split("/"):
            fs.stat(target)
        stat = fs.stat(logical if not physical else target)
    except FsError as e:
        sh.builtin_error(name, f"{printable_name(shown or target)}: {e.message}")
        return False
    if not stat.is_dir:
        sh.builtin_error(name, f"{printable_name(shown or target)}: Not a directory")
        return False
    if not fs.access(logical, 1):
        sh.builtin_error(name, f"{printable_name(shown or target)}: Permission denied")
        return False
    if physical or st.opts["physical"]:
        # -P: symlinks resolved first, so `..` goes to the physical parent
        new = fs.realpath(fs.abspath(target))
    elif target.startswith("//") and not target.startswith("///"):
        new = "/" + logical  # POSIX leaves a leading `//` alone, and so does bash
    else:
        new = logical
    old = fs.cwd
    fs.cwd = new
    sh.set_var("OLDPWD", sh.get_str("PWD") or old)
    sh.set_var("PWD", new)
    return True


@builtin("cd")
def bi_cd(sh: Shell, argv: list[str]) -> int:
    # no extended attributes here, so -@ is unknown (as in bash built without them)
    opts = parse_builtin(sh, argv, "LPe")
    if opts is None:
        return 2
    args = opts.args
    physical = False
    for c, _, _ in opts.items:
        if c in "LP":
            physical = c == "P"
    if len(args) > 1:
        sh.builtin_error("cd", "too many arguments")
        return 1
    print_dir = False
    if not args:
        home = sh.get_str("HOME")
        if home is None:
            sh.builtin_error("cd", "HOME not set")
            return 1
        if home == "":
            return 0
        target = home
    else:
        target = args[0]
        if target == "-":
            old = sh.get_str("OLDPWD")
            if old is None:
                sh.builtin_error("cd", "OLDPWD not set")
                return 1
            if old == "":
                # bash changes to "" made absolute: "$PWD/" (only OLDPWD moves, "" is printed);
                # -P takes the empty name as it is
                if physical or sh.state.opts["physical"]:
                    sh.builtin_error("cd", ": No such file or directory")
                    return 1
                sh.set_var("OLDPWD", sh.get_str("PWD") or sh.state.fs.cwd)
                sh.out("\n")
                return 0
            target = old
            print_dir = True
        elif target == "":
            return 0
    if not target.startswith("/") and not target.startswith(("./", "../")) and target not in (".", ".."):
        cdpath = sh.get_str("CDPATH")
        if cdpath:
            for d in cdpath.split(":"):
                base = d or "."
                candidate = base.rstrip("/") + "/" + target
                if sh.state.fs.is_dir(candidate):
                    if change_dir(sh, candidate, physical):
                        if d:  # bash prints the CDPATH-made name itself under -P
                            phys = physical or sh.state.opts["physical"]
                            sh.out((candidate if phys else sh.state.fs.cwd) + "\n")
                        return 0
    if not print_dir and sh.state.shopts["cdable_vars"] and not sh.state.fs.is_dir(target):
        # bash's LCD_DOVARS: a word that is no directory may name a variable holding one; the
        # value is printed, and an error names the word with the value's reason
        value = sh.get_str(target) if valid_name(target) else None
        if value is not None:
            if not change_dir(sh, value, physical, shown=target):
                return 1
            sh.out(value + "\n")
            return 0
    if not change_dir(sh, target, physical):
        return 1
    if print_dir:
        sh.out(sh.state.fs.cwd + "\n")
    return 0


@builtin("pwd")
def bi_pwd(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "LP")
    if opts is None:
        return 2
    physical = sh.state.opts["physical"]
    for c, _, _ in opts.items:
        physical = c == "P"
    cwd = sh.state.fs.cwd
    if physical:
        try:
            cwd = sh.state.fs.realpath(cwd)
        except FsError:
            pass
    sh.out(cwd + "\n")
    return 0


def _print_stack(sh: Shell, long: bool = False, per_line: bool = False, numbered: bool = False) -> None:
    stack = [sh.state.fs.cwd] + sh.state.dirstack
    shown = [d if long else _tilde(sh, d) for d in stack]
    if numbered:
        for i, d in enumerate(shown):
            sh.out(f"{i:2d}  {d}\n")
    elif per_line:
        for d in shown:
            sh.out(d + "\n")
    else:
        sh.out(" ".join(shown) + "\n")


def _stack_error(sh: Shell, name: str, word: str) -> int:
    """bash's pushd_error: an index outside the stack."""
    if sh.state.dirstack:
        sh.builtin_error(name, f"{word}: directory stack index out of range")
    else:
        sh.builtin_error(name, "directory stack empty")
    return 1


def _bad_number(sh: Shell, name: str, word: str) -> int:
    invalid_number(sh, name, word)
    usage(sh, name)
    return 2


# bash reads dirs, pushd and popd word by word: `-c`-style options are whole words, and any
# other word with a sign is a stack index (`+2`, `-0`), checked in turn as bash meets it
def _stack_spec(name: str, flags: str, index_if: Callable[[str], bool] | None = None) -> CommandSpec:
    from ..commands.options import CommandSpec, Opt

    return CommandSpec(
        name=name,
        builtin=True,
        bundle="none",
        opts=(*(Opt(letter) for letter in flags), Opt(dest="index", arg="required")),
        dash_value="index",
        dash_value_signs="-+",
        dash_value_if=index_if,
    )


@functools.cache
def _spec(name: str) -> CommandSpec:
    """dirs', pushd's or popd's spec, made when the builtin first runs (a run that uses none of
    them, or cd and pwd without options, does not load the option parser)."""
    if name == "dirs":
        return _stack_spec("dirs", "clpv")
    if name == "pushd":
        return _stack_spec("pushd", "n", index_if=lambda word: word != "-")  # `pushd -` is the old directory
    return _stack_spec("popd", "n")


def _stack_args(sh: Shell, spec: CommandSpec, argv: list[str]) -> tuple[Parsed, list[str], list[str]] | int:
    """The options, the signed index words in order (each a legal number), and the operands;
    a status after printing an error."""
    from ..commands.options import HelpRequested, parse_args

    try:
        parsed, args = parse_args(spec, argv[1:])
    except HelpRequested:
        wants_help(sh, [spec.name, "--help"])
        return 2
    indexes = []
    for (key, value), sign in zip(parsed.order, parsed.signs, strict=True):
        if key == "index":
            if not legal_number(value):
                return _bad_number(sh, spec.name, sign + value)
            indexes.append(sign + value)
    return parsed, indexes, args


@builtin("dirs")
def bi_dirs(sh: Shell, argv: list[str]) -> int:
    found = _stack_args(sh, _spec("dirs"), argv)
    if isinstance(found, int):
        return found
    parsed, indexes, args = found
    if args and parsed.dashdash is None:
        sh.builtin_error("dirs", f"{args[0]}: invalid option")
        usage(sh, "dirs")
        return 2
    if "c" in parsed:
        sh.state.dirstack.clear()
        return 0
    depth = len(sh.state.dirstack)
    if indexes:
        word = indexes[-1][1:]
        index = int(word) if indexes[-1][0] == "+" else depth - int(word)
        if not 0 <= index <= depth:
            return _stack_error(sh, "dirs", word)
        entry = ([sh.state.fs.cwd] + sh.state.dirstack)[index]
        number = f"{index:2d}  " if "v" in parsed else ""  # -v numbers it as `dirs -v` would
        sh.out(number + (entry if "l" in parsed else _tilde(sh, entry)) + "\n")
        return 0
    _print_stack(sh, "l" in parsed, "p" in parsed, "v" in parsed)
    return 0


def _pushd_options(sh: Shell, argv: list[str]) -> tuple[bool, int | None, list[str]] | int:
    """pushd's words: -n, `--`, a lone `-` (the old directory), +N/-N; a status on error."""
    found = _stack_args(sh, _spec("pushd"), argv)
    if isinstance(found, int):
        return found
    parsed, indexes, args = found
    depth = len(sh.state.dirstack)
    rotate: int | None = None
    for word in indexes:
        rotate = int(word[1:]) if word[0] == "+" else depth - int(word[1:])
        if not 0 <= rotate <= depth:
            return _stack_error(sh, "pushd", word)
    return "n" in parsed, rotate, args


@builtin("pushd")
def bi_pushd(sh: Shell, argv: list[str]) -> int:
    st = sh.state
    parsed = _pushd_options(sh, argv)
    if isinstance(parsed, int):
        return parsed
    no_cd, rotate, args = parsed
    if rotate is not None:
        stack = [st.fs.cwd] + st.dirstack
        rotated = stack[rotate:] + stack[:rotate]
        if no_cd:  # the stack turns, the current directory stays
            st.dirstack = rotated[1:]
            return 0
        if not change_dir(sh, rotated[0], False, "pushd"):
            return 1
        st.dirstack = rotated[1:]
        _print_stack(sh)
        return 0
    if not args:
        return 0 if no_cd else _pushd_swap(sh)
    if len(args) > 1:
        sh.builtin_error("pushd", "too many arguments")
        return 1
    target = args[0]
    if target == "-":
        old = sh.get_str("OLDPWD")
        if old is None:
            sh.builtin_error("pushd", "OLDPWD not set")
            return 1
        target = old
    cur = st.fs.cwd
    if no_cd:
        st.dirstack.insert(0, target)
    else:
        if not change_dir(sh, target, False, "pushd"):
            return 1
        st.dirstack.insert(0, cur)
    _print_stack(sh)
    return 0


def _pushd_swap(sh: Shell) -> int:
    """`pushd` alone: exchange the current directory and the top of the stack."""
    st = sh.state
    if not st.dirstack:
        sh.builtin_error("pushd", "no other directory")
        return 1
    cur = st.fs.cwd
    if not change_dir(sh, st.dirstack[0], False, "pushd"):
        return 1
    st.dirstack[0] = cur
    _print_stack(sh)
    return 0


@builtin("popd")
def bi_popd(sh: Shell, argv: list[str]) -> int:
    st = sh.state
    found = _stack_args(sh, _spec("popd"), argv)
    if isinstance(found, int):
        return found
    parsed, indexes, args = found
    if args and args[0] and parsed.dashdash is None:
        sh.builtin_error("popd", f"{args[0]}: invalid argument")
        usage(sh, "popd")
        return 2
    no_cd = "n" in parsed
    word = indexes[-1] if indexes else ""
    which = 0 if not word else int(word[1:]) if word[0] == "+" else -int(word[1:])
    depth = len(st.dirstack)
    if depth == 0 or not -depth <= which <= depth:
        return _stack_error(sh, "popd", word)
    idx = which if word[:1] != "-" else depth + which
    if idx == 0 and not no_cd:
        if not change_dir(sh, st.dirstack[0], False, "popd"):
            return 1
        st.dirstack.pop(0)
    else:
        # `-n` on the top entry leaves the current directory and drops the next one
        st.dirstack.pop(max(idx - 1, 0))
    _print_stack(sh)
    return 0
