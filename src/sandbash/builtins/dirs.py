"""cd, pwd, pushd, popd, dirs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..vfs.base import normpath
from ..vfs.errors import FsError
from . import builtin

if TYPE_CHECKING:
    from ..interp.shell import Shell


def _tilde(sh: Shell, path: str) -> str:
    home = sh.get_str("HOME") or ""
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :] if home != "/" else path
    return path


def change_dir(sh: Shell, target: str, physical: bool, name: str = "cd") -> bool:
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
        sh.builtin_error(name, f"{target}: {e.message}")
        return False
    if not stat.is_dir:
        sh.builtin_error(name, f"{target}: Not a directory")
        return False
    if not fs.access(logical, 1):
        sh.builtin_error(name, f"{target}: Permission denied")
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
    args = argv[1:]
    physical = False
    while args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "-":
        a = args.pop(0)
        if a == "--":
            break
        for c in a[1:]:
            if c == "P":
                physical = True
            elif c in "Le@":
                physical = physical and c != "L"
            else:
                sh.builtin_error("cd", f"-{c}: invalid option")
                sh.write_err("cd: usage: cd [-L|[-P [-e]] [-@]] [dir]\n")
                return 2
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
                        if d:
                            sh.out(sh.state.fs.cwd + "\n")
                        return 0
    if not change_dir(sh, target, physical):
        return 1
    if print_dir:
        sh.out(sh.state.fs.cwd + "\n")
    return 0


@builtin("pwd")
def bi_pwd(sh: Shell, argv: list[str]) -> int:
    physical = sh.state.opts["physical"]
    for a in argv[1:]:
        if a == "-P":
            physical = True
        elif a == "-L":
            physical = False
        elif a.startswith("-"):
            sh.builtin_error("pwd", f"{a[:2]}: invalid option")
            sh.write_err("pwd: usage: pwd [-LP]\n")
            return 2
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


@builtin("dirs")
def bi_dirs(sh: Shell, argv: list[str]) -> int:
    long = per_line = numbered = False
    for a in argv[1:]:
        if a == "-c":
            sh.state.dirstack.clear()
            return 0
        if a.startswith("-") and len(a) > 1 and all(c in "lpv" for c in a[1:]):
            long = long or "l" in a
            per_line = per_line or "p" in a
            numbered = numbered or "v" in a
            continue
        if a[:1] in "+-" and a[1:].isdigit():
            stack = [sh.state.fs.cwd] + sh.state.dirstack
            n = int(a[1:])
            idx = n if a[0] == "+" else len(stack) - 1 - n
            if not 0 <= idx < len(stack):
                sh.builtin_error("dirs", f"{a[1:]}: directory stack index out of range")
                return 1
            sh.out((stack[idx] if long else _tilde(sh, stack[idx])) + "\n")
            return 0
        sh.builtin_error("dirs", f"{a}: invalid option")
        sh.write_err("dirs: usage: dirs [-clpv] [+N] [-N]\n")
        return 2
    _print_stack(sh, long, per_line, numbered)
    return 0


@builtin("pushd")
def bi_pushd(sh: Shell, argv: list[str]) -> int:
    st = sh.state
    args = [a for a in argv[1:] if a != "-n"]
    no_cd = "-n" in argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    elif args and args[0].startswith("-") and len(args[0]) > 1 and not args[0][1:].isdigit():
        sh.builtin_error("pushd", f"{args[0][:2]}: invalid option")
        sh.write_err("pushd: usage: pushd [-n] [+N | -N | dir]\n")
        return 2
    if len(args) > 1:
        sh.builtin_error("pushd", "too many arguments")
        return 1
    if not args:
        if not st.dirstack:
            sh.builtin_error("pushd", "no other directory")
            return 1
        top = st.dirstack[0]
        cur = st.fs.cwd
        if not change_dir(sh, top, False, "pushd"):
            return 1
        st.dirstack[0] = cur
        _print_stack(sh)
        return 0
    target = args[0]
    if target[:1] in "+-" and target[1:].isdigit():
        stack = [st.fs.cwd] + st.dirstack
        n = int(target[1:])
        idx = n if target[0] == "+" else len(stack) - 1 - n
        if not 0 <= idx < len(stack):
            sh.builtin_error("pushd", f"{target}: directory stack index out of range")
            return 1
        rotated = stack[idx:] + stack[:idx]
        if not change_dir(sh, rotated[0], False, "pushd"):
            return 1
        st.dirstack = rotated[1:]
        _print_stack(sh)
        return 0
    cur = st.fs.cwd
    if no_cd:
        st.dirstack.insert(0, target)
    else:
        if not change_dir(sh, target, False, "pushd"):
            return 1
        st.dirstack.insert(0, cur)
    _print_stack(sh)
    return 0


@builtin("popd")
def bi_popd(sh: Shell, argv: list[str]) -> int:
    st = sh.state
    args = [a for a in argv[1:] if a != "-n"]
    no_cd = "-n" in argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    elif args and args[0].startswith("-") and len(args[0]) > 1 and not args[0][1:].isdigit():
        sh.builtin_error("popd", f"{args[0][:2]}: invalid option")
        sh.write_err("popd: usage: popd [-n] [+N | -N]\n")
        return 2
    if not st.dirstack:
        sh.builtin_error("popd", "directory stack empty")
        return 1
    if args:
        a = args[0]
        if not (a[:1] in "+-" and a[1:].isdigit()):
            sh.builtin_error("popd", f"{a}: invalid argument")
            sh.write_err("popd: usage: popd [-n] [+N | -N]\n")
            return 2
        stack = [st.fs.cwd] + st.dirstack
        n = int(a[1:])
        idx = n if a[0] == "+" else len(stack) - 1 - n
        if not 0 <= idx < len(stack):
            sh.builtin_error("popd", f"{a}: directory stack index out of range")
            return 1
        if idx == 0:
            if not change_dir(sh, stack[1], False, "popd"):
                return 1
            st.dirstack.pop(0)
        else:
            st.dirstack.pop(idx - 1)
        _print_stack(sh)
        return 0
    top = st.dirstack[0]
    if not no_cd and not change_dir(sh, top, False, "popd"):
        return 1
    st.dirstack.pop(0)
    _print_stack(sh)
    return 0
