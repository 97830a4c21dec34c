"""Control and execution builtins: : true false exit return break continue
shift eval source . exec command builtin type hash enable times wait jobs
kill bg fg disown logout suspend ulimit umask caller help."""

from __future__ import annotations

from ..interp.control import AbortCommand, BreakLoop, ContinueLoop, ExitShell, Replaced, ReturnFromFunction
from ..interp.jobs import SUBENV_PAREN, shell_level_down
from ..interp.redirects import dev_fd
from ..interp.state import init_bash_argv, pop_args, push_args
from ..interp.variables import hash_entry
from ..limits import LimitExceeded, LimitKind
from ..posix import number_text
from ..posix.signals import NAMES as SIGNAL_NAMES
from ..shvars.arrays import IndexedArray
from ..syntax.escapes import printable_name
from ..syntax.reserved import RESERVED as _RESERVED
from ..vfs.errors import FsError, strerror
from . import BUILTINS, SPECIAL, builtin
from .bopts import invalid_number, legal_number, no_options, parse_builtin, usage, wants_help

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..interp.shell import Shell

_KEYWORDS = sorted(_RESERVED - {"in"} | {"]]"})


_INTMAX = 2**63 - 1
STD_PATH = "/bin:/usr/bin"  # command -p: the standard path (confstr(_CS_PATH), as bash asks)


def _numeric(sh: Shell, name: str, text: str) -> int | None:
    """bash's legal_number: blanks, a sign and decimal digits that fit an intmax_t (no `1_0`)."""
    if legal_number(text):
        n = int(number_text(text), 10)
        if -_INTMAX - 1 <= n <= _INTMAX:
            return n
    sh.builtin_error(name, f"{text}: numeric argument required")
    return None


@builtin("exit")
def bi_exit(sh: Shell, argv: list[str]) -> int:
    if wants_help(sh, argv):
        return 2
    args = argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    if len(args) > 1:
        _too_many(sh, "exit")
    if not args:
        raise ExitShell(_exit_status(sh, sh.state.last_status))
    n = _numeric(sh, "exit", args[0])
    if n is None:
        raise ExitShell(_exit_status(sh, 2))
    raise ExitShell(_exit_status(sh, n & 0xFF))


def _exit_status(sh: Shell, status: int) -> int:
    """`exit` in a function runs the EXIT trap there, before the calls unwind ($FUNCNAME and the
    locals are the function's, as bash runs it); elsewhere the trap runs when the shell ends."""
    return sh.run_exit_trap(status) if sh.state.frames else status


@builtin("logout")
def bi_logout(sh: Shell, argv: list[str]) -> int:
    if wants_help(sh, argv):
        return 2
    sh.builtin_error("logout", "not login shell: use `exit'")
    return 1


@builtin("return")
def bi_return(sh: Shell, argv: list[str]) -> int:
    if wants_help(sh, argv):
        return 2
    st = sh.state
    # bash reads the status first (get_exitstat), so its errors come before "can only `return'"
    args = argv[2:] if argv[1:2] == ["--"] else argv[1:]
    if len(args) > 1:
        _too_many(sh, "return")
    if args:
        n = _numeric(sh, "return", args[0])
    else:  # in a trap (but DEBUG's) bash 5.2 returns the status from before the trap ran
        n = sh.trap_status if st.in_trap and st.in_trap != "DEBUG" else st.last_status
    if not st.frames and not st.sources:
        sh.builtin_error("return", "can only `return' from a function or sourced script")
        return 2  # (a usage error: it ends a POSIX shell, see Executor._posix_special)
    raise ReturnFromFunction(2 if n is None else n & 0xFF)


def _too_many(sh: Shell, name: str) -> None:
    """bash drops the whole top-level command; under `bash -c` that ends the shell. The status is
    the last command's, or 1 when that was 0 (bash's reader_loop after a DISCARD)."""
    sh.builtin_error(name, "too many arguments")
    if sh.state.mode == "c":
        raise ExitShell(1)
    raise AbortCommand(sh.state.last_status or 1)


def _loop_count(sh: Shell, name: str, argv: list[str]) -> int | None:
    first = argv[1:2]  # bash names the first word (even `--`) when the count is out of range
    if argv[1:2] == ["--"]:
        argv = argv[:1] + argv[2:]
    if len(argv) > 2:
        _too_many(sh, name)
    if len(argv) == 1:
        return 1
    n = _numeric(sh, name, argv[1])
    if n is None:
        # bash throws to the top level, which ends a non-interactive shell with the last status | 128
        raise ExitShell(sh.state.last_status | 128)
    if n < 1:
        sh.builtin_error(name, f"{first[0]}: loop count out of range")
        if sh.state.loop_depth:
            # bash leaves every enclosing loop, with status 1
            raise BreakLoop(sh.state.loop_depth, 1)
        return None
    return n


@builtin("break")
def bi_break(sh: Shell, argv: list[str]) -> int:
    if wants_help(sh, argv):
        return 2
    depth = sh.state.loop_depth
    if depth == 0:
        if not sh.state.opts["posix"]:  # (POSIX mode says nothing)
            sh.builtin_error("break", "only meaningful in a `for', `while', or `until' loop")
        return 0
    n = _loop_count(sh, "break", argv)
    if n is None:
        return 1
    raise BreakLoop(min(n, depth))


@builtin("continue")
def bi_continue(sh: Shell, argv: list[str]) -> int:
    if wants_help(sh, argv):
        return 2
    depth = sh.state.loop_depth
    if depth == 0:
        if not sh.state.opts["posix"]:  # (POSIX mode says nothing)
            sh.builtin_error("continue", "only meaningful in a `for', `while', or `until' loop")
        return 0
    n = _loop_count(sh, "continue", argv)
    if n is None:
        return 1
    raise ContinueLoop(min(n, depth))


@builtin("shift")
def bi_shift(sh: Shell, argv: list[str]) -> int:
    if wants_help(sh, argv):
        return 2
    st = sh.state
    n = 1
    first = argv[1:2]  # bash names the first word (even `--`) when the count is negative
    if argv[1:2] == ["--"]:
        argv = argv[:1] + argv[2:]
    if len(argv) > 2:
        _too_many(sh, "shift")
    if len(argv) == 2:
        m = _numeric(sh, "shift", argv[1])
        if m is None:
            return 1
        n = m
    if n < 0:
        sh.builtin_error("shift", f"{first[0]}: shift count out of range")
        return 1
    if n > len(st.positional):
        if st.shopts["shift_verbose"]:  # (on in POSIX mode, unless turned off there)
            # (a bare `shift` names no word)
            sh.builtin_error(
                "shift", f"{first[0]}: shift count out of range" if first else "shift count out of range"
            )
        return 1
    st.shift_positional(n)
    st.args_version += 1
    return 0


@builtin("eval")
def bi_eval(sh: Shell, argv: list[str]) -> int:
    args = no_options(sh, argv)
    if args is None:
        return 2
    text = " ".join(args)
    if not text.strip():
        return 0
    st = sh.state
    saved_line = st.line
    limit = sh.rt.limits.max_substitution_depth
    if sh.subst_depth + sh.eval_depth >= limit:
        raise LimitExceeded(LimitKind.MAX_SUBSTITUTION_DEPTH, limit)
    sh.eval_depth += 1
    err_before = st.traps.get("ERR")
    status = 1
    try:
        st.command_builtin = False  # (what eval runs is not under `command`)
        status = untested(sh, lambda: sh.run_text(text, "eval", line_base=st.line or 1), clear=True)
        return status
    finally:
        sh.eval_depth -= 1
        st.line = saved_line
        sh.ev.err_trap_new(err_before, status)


def untested(sh: Shell, run: Callable[[], int], clear: bool = False) -> int:
    """`run()` as bash's execute_builtin runs eval, source and command in a tested context (`f ||
    ...`, `if eval`): an error that ends a shell under set -e (Shell.report_error) does not end
    this one, even after a `set -e` inside (builtin_ignoring_errexit). `clear` (eval): with set -e
    off and the ERR trap taken away (put back after unless what ran set one): its own commands are
    not tested, so an ERR trap it sets fires inside it. (A sourced file's commands stay in the
    tested context: `set -e; false` inside does not end the shell.)"""
    st = sh.state
    tested = st.errexit_ignored
    if not tested:
        return run()
    st.builtin_ignoring_errexit += 1
    if not clear:
        try:
            return run()
        finally:
            st.builtin_ignoring_errexit -= 1
    saved_err = st.traps.pop("ERR", None)
    saved_errexit = st.opts["errexit"]
    st.errexit_ignored = 0
    st.opts["errexit"] = False
    try:
        return run()
    finally:
        st.builtin_ignoring_errexit -= 1
        st.errexit_ignored = tested
        if not st.opts["errexit"]:  # (a `set -e` it ran stays)
            st.opts["errexit"] = saved_errexit
        if saved_err is not None and "ERR" not in st.traps:  # (one it set stays)
            st.traps["ERR"] = saved_err


def find_source(sh: Shell, name: str) -> tuple[str | None, FsError | None]:
    """The file `source NAME` reads, or None with why NAME itself cannot be (None: not found in
    PATH, or a POSIX shell's search ended there). NAME is asked about once: a name the policy
    refuses is one refusal in the audit, and the message says it was refused."""
    st = sh.state
    if "/" not in name and st.shopts["sourcepath"]:
        path = sh.get_str("PATH") or ""
        for d in path.split(":"):
            candidate = (d or ".").rstrip("/") + "/" + name
            s = st.fs.try_stat(candidate)
            if s is not None and s.is_file:
                return candidate, None
        if st.opts["posix"]:
            return None, None  # a POSIX shell does not look in the current directory after PATH
    error = st.fs.stat_error(name)
    return (name, None) if error is None else (None, error)


@builtin("source", ".")
def bi_source(sh: Shell, argv: list[str]) -> int:
    name = argv[0]
    args = no_options(sh, argv)
    if args is None:
        return 2
    if not args:
        sh.builtin_error(name, "filename argument required")
        sh.write_err(f"{name}: usage: {name} filename [arguments]\n")
        return 2
    st = sh.state
    fd = dev_fd(args[0])
    if fd is not None:  # /dev/stdin, /dev/fd/N (`. <(cmd)`): the shell's own descriptor
        from ..interp.bashcmd import read_descriptor

        try:
            data = read_descriptor(sh, fd)
        except OSError as e:
            if e.errno == 21:  # (`. /dev/stdin < dir`: bash's fstat sees the directory)
                sh.builtin_error(name, f"{args[0]}: is a directory")
            else:
                sh.error(f"{args[0]}: {strerror(e.errno or 0)}")
            return 1
        if data is None:
            sh.error(f"{args[0]}: No such file or directory")
            return 1
        return _source_text(sh, name, args, data)
    path, error = find_source(sh, args[0])
    if path is None and st.opts["posix"] and "/" not in args[0] and st.shopts["sourcepath"]:
        sh.builtin_error(name, f"{printable_name(args[0])}: file not found")
        if not st.command_builtin:
            raise ExitShell(1)
        return 1
    if path is None:
        # (e.g. Permission denied: a path the policy refuses)
        sh.error(f"{args[0]}: {error.message if error is not None else 'No such file or directory'}")
        if st.opts["posix"] and not st.command_builtin:
            raise ExitShell(1)  # a special builtin's error ends a POSIX shell (not under `command`)
        return 1
    try:
        s = st.fs.stat(path)
        if s.is_dir:
            sh.builtin_error(name, f"{args[0]}: is a directory")
            return 1
        data = st.fs.read_bytes(path)
    except FsError as e:
        sh.error(f"{args[0]}: {e.message}")
        if st.opts["posix"] and not st.command_builtin:
            raise ExitShell(1) from None
        return 1
    return _source_text(sh, name, args, data)


def _without_nuls(data: bytes) -> bytes | None:
    """A sourced file's bytes as bash's _evalfile leaves them: it deletes a NUL, then steps past
    the byte that moved into its place (of two NULs in a row one stays), and the text ends at the
    first NUL left. None past 256 deletions: a binary file."""
    if b"\0" not in data:
        return data
    buf = bytearray(data)
    i = deleted = 0
    while i < len(buf):
        if buf[i] == 0:
            del buf[i]
            deleted += 1
            if deleted > 256:
                return None
        i += 1
    end = buf.find(0)
    return bytes(buf if end < 0 else buf[:end])


def _source_text(sh: Shell, name: str, args: list[str], data: bytes) -> int:
    """Run a sourced file's text: its own positional parameters when given arguments."""
    st = sh.state
    kept = _without_nuls(data)
    if kept is None:
        sh.builtin_error(name, f"{args[0]}: cannot execute binary file")
        return 126
    text = kept.decode("utf-8", "surrogateescape")
    saved_positional = st.positional
    set_top = st.args_set_top
    if len(args) > 1:
        st.positional = args[1:]
    st.sources.append(args[0])
    st.source_lines.append((st.line, len(st.frames)))
    saved_line = st.line
    limit = sh.rt.limits.max_call_depth
    if len(st.sources) > limit:
        st.sources.pop()
        st.source_lines.pop()
        raise LimitExceeded(LimitKind.MAX_CALL_DEPTH, limit)
    # BASH_ARGV/BASH_ARGC (bash's source.c and _evalfile): filled first at the top level; a file
    # sourced with arguments pushes them in debugging mode, one without pushes its name
    if not st.frames and not st.argv_debug:
        init_bash_argv(st)
    if len(args) == 1 or st.argv_debug:
        push_args(st, args[1:] if len(args) > 1 else [args[0]])
    done = False
    err_before = st.traps.get("ERR")
    try:
        try:
            st.command_builtin = False  # (what it runs is not under `command`)
            status = untested(sh, lambda: sh.run_text(text, None))
        except ReturnFromFunction as r:
            status = r.status
        done = True
        sh.ev.err_trap_new(err_before, status)
    finally:
        st.sources.pop()
        st.source_lines.pop()
        st.line = saved_line
        if len(args) == 1 or st.argv_debug:
            pop_args(st)  # (with arguments: when debugging as the file ends, as bash's)
        try:
            if done:
                _source_return_trap(sh, status)
        finally:
            # bash keeps what a `set` outside functions gave the file, when `.` runs outside functions
            if len(args) > 1:
                if st.args_set_top != set_top and not st.frames:
                    st.drop_positional(saved_positional)
                else:
                    st.drop_positional(st.positional)
                    st.positional = saved_positional
    return status


def _source_return_trap(sh: Shell, status: int) -> None:
    """The RETURN trap runs when a sourced file ends, where the trap is in force: outside
    functions, or as for a function's return (set there, a traced caller, functrace); it sees the
    file's status and arguments, and leaves the status of `.` alone."""
    st = sh.state
    handler = st.traps.get("RETURN")
    if not handler or st.in_trap == "RETURN":
        return
    if st.frames and not st.opts["functrace"] and not st.trap_reaches(st.return_trap_depth):
        return
    st.last_status = status
    sh.run_trap_text(handler, "RETURN")


@builtin("exec")
def bi_exec(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "cla:")
    if opts is None:
        return 2
    args = opts.args
    if not args:
        return 0
    env = {} if opts.has("c") else sh.va.exported_env()  # -c: an empty environment
    sh.ex.refused_lookup = None
    kind, where = sh.ex.find_command(args[0])
    is_builtin = args[0] in BUILTINS and args[0] not in sh.state.disabled_builtins
    if sh.ex.gate_refuses(args, "builtin" if is_builtin else kind):
        raise ExitShell(126)
    spawner = sh.rt.spawner
    by_host_name = "/" not in args[0] or args[0][:1] == "/"  # (a name or an absolute path, not ./x)
    if kind == "" and spawner is not None and by_host_name and spawner.finds(args[0]):
        # box mode: a host program a [tool.<name>] table runs (by name, or by a host path the
        # sandbox does not hold), run as the shell's last command (argv[0] is the table's)
        sh.state.traps.pop("EXIT", None)
        raise Replaced(sh.ex.run_external(args, env))
    if "/" in args[0] and (failed := _exec_failure(sh, args[0])):
        return _exec_failed(sh, failed)
    if kind == "script" and "/" not in args[0] and (failed := _exec_failure(sh, where)):
        return _exec_failed(sh, failed)  # (PATH found only a file without execute permission)
    if kind == "":  # exec runs programs only: a function or a builtin without a file is not found
        sh.builtin_error("exec", f"{args[0]}: not found")
        return _exec_failed(sh, 127)
    sh.state.traps.pop("EXIT", None)  # the shell is replaced: its EXIT trap never runs
    if is_builtin:  # the program of a builtin's name (echo, printf, ...): the builtin does the same
        status = BUILTINS[args[0]](sh, args)
    else:
        # -a NAME / -l: the program's argv[0] (bash reads its $0 and a leading `-` from it)
        arg0 = opts.value("a") if opts.has("a") else args[0]
        if opts.has("l"):
            arg0 = "-" + arg0
        found = (kind, where) if arg0 != args[0] else None
        if not opts.has("c") and not sh.subenv & SUBENV_PAREN:
            # (bash: so that a shell it starts has this one's level; not in a `( )`, which is
            # a level deeper already)
            shell_level_down(sh, env)
        status = sh.ex.run_external([arg0, *args[1:]], env, found)
    raise Replaced(status)


def _exec_failure(sh: Shell, name: str) -> int:
    """A path exec cannot run, with bash's messages (it names the file by its full path): 127
    when it does not exist, 126 for a directory or a file without execute permission; else 0."""
    full = (
        name if name.startswith("/") else f"{sh.get_str('PWD') or sh.state.fs.cwd}/{name.removeprefix('./')}"
    )
    refused = sh.ex.refused_lookup
    if refused is not None and refused[0] == name:  # the policy refused it in the lookup (audited once)
        reason = refused[1]
    else:
        st = sh.state.fs.try_stat(full)
        if st is None:
            sh.error(f"{full}: No such file or directory")
            return 127
        reason = "Is a directory" if st.is_dir else "" if st.perm & 0o111 else "Permission denied"
    if not reason:
        return 0
    sh.error(f"{full}: {reason}")
    sh.builtin_error("exec", f"{full}: cannot execute: {reason}")
    return 126


def _exec_failed(sh: Shell, status: int) -> int:
    """A failed exec ends the shell, unless `shopt -s execfail` keeps a script's main shell going."""
    if sh.state.shopts["execfail"] and not sh.state.subshell:
        return status
    raise ExitShell(status)


@builtin("command")
def bi_command(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "pvV")
    if opts is None:
        return 2
    args = opts.args
    mode = "".join(c for c in opts.letters() if c in "vV")[-1:]
    std = opts.has("p")
    if not args:
        return 0
    if mode:
        return sh.run_unchecked(lambda: _command_describe(sh, args, mode, std))
    st = sh.state
    st.command_builtin = True  # (read by the special builtin it runs, reset for what that runs)
    try:
        path = STD_PATH if std else None
        return untested(sh, lambda: sh.ex.dispatch(args, None, (), no_functions=True, path=path))
    finally:
        st.command_builtin = False


def _command_describe(sh: Shell, args: list[str], mode: str, std: bool) -> int:
    found = False  # bash: success when any name is found
    for name in args:
        if describe(sh, name, "v" if mode == "v" else "V", all_=False, std_path=std):
            found = True
        elif mode == "V":
            sh.builtin_error("command", f"{name}: not found")
    return 0 if found else 1


@builtin("builtin")
def bi_builtin(sh: Shell, argv: list[str]) -> int:
    args = no_options(sh, argv)
    if args is None:
        return 2
    if not args:
        return 0
    fn = BUILTINS.get(args[0])
    if fn is None or args[0] in sh.state.disabled_builtins:
        sh.builtin_error("builtin", f"{args[0]}: not a shell builtin")
        return 1
    if sh.ex.gate_refuses(args, "builtin"):
        return 126
    if sh.rt.stage_copy:
        # a pipeline stage keeps its parent's jobs only for a `jobs` bash resolves itself (through
        # `command` too); to bash's jobs_hack this stage runs builtin_builtin: `builtin jobs | cat`
        # lists nothing
        from ..interp.jobs import stage_table

        stage_table(sh)
    return fn(sh, args)


def describe(
    sh: Shell, name: str, style: str, all_: bool, functions: bool = True, std_path: bool = False
) -> bool:
    """type/command -v/-V output for one name. style: v, V, t, p, P; `std_path` (command -p):
    a file is searched in the standard path when the hash table does not have it."""
    st = sh.state
    found = False
    # aliases count only while they expand (off in scripts unless `shopt -s expand_aliases`)
    alias = name in st.aliases and bool(st.shopts["expand_aliases"])
    if style in ("p", "P"):
        # -p names files only: something that runs first is found silently (-a: and files listed)
        shadowed = style == "p" and (
            alias
            or name in _KEYWORDS
            or (functions and name in st.functions)
            or (name in BUILTINS and name not in st.disabled_builtins)
        )
        if shadowed and not all_:
            return True
        wheres = _paths_of(sh, name, all_) if sh.ex.command_visible(name) else []  # hidden: not found
        for where in wheres:
            sh.out(where + "\n")
        return bool(wheres) or shadowed
    if alias:
        found = True
        if style == "v":
            sh.out(
                f"alias {name}='{st.aliases[name]}'\n"
                if "'" not in st.aliases[name]
                else f"alias {name}={_q(st.aliases[name])}\n"
            )
        elif style == "t":
            sh.out("alias\n")
        else:
            sh.out(f"{name} is aliased to `{st.aliases[name]}'\n")
        if not all_:
            return True
    if name in _KEYWORDS:
        found = True
        if style == "v":
            sh.out(name + "\n")
        elif style == "t":
            sh.out("keyword\n")
        else:
            sh.out(f"{name} is a shell keyword\n")
        if not all_:
            return True
    if not sh.ex.command_visible(name):
        return found  # the policy refuses it: discovery does not show it either
    fdef = st.functions.get(name) if functions else None
    if fdef is not None:
        found = True
        if style == "v":
            sh.out(name + "\n")
        elif style == "t":
            sh.out("function\n")
        else:
            from ..syntax.unparse import unparse_function

            sh.out(f"{name} is a function\n{unparse_function(fdef)}\n")
        if not all_:
            return True
    if name in BUILTINS and name not in sh.state.disabled_builtins:
        found = True
        if style == "v":
            sh.out(name + "\n")
        elif style == "t":
            sh.out("builtin\n")
        else:
            special = "special " if st.opts["posix"] and name in SPECIAL else ""  # posix mode says which
            sh.out(f"{name} is a {special}shell builtin\n")
        if not all_:
            return True
    # (the table as bash's phash_search reads it: a relative path can send the lookup back to PATH)
    entry = sh.ex.hashed_now(name) if not all_ and name in st.hashed else None
    hashed = entry is not None
    if entry is not None:
        wheres = [entry.partition(":")[2]]  # as remembered, even when the file is gone (bash)
    else:
        wheres = _std_path_of(sh, name) if std_path else _search_path(sh, name, all_)
    for where in wheres:
        found = True
        if style == "v":
            sh.out(where + "\n")
        elif style == "t":
            sh.out("file\n")
        else:
            sh.out(f"{name} is hashed ({where})\n" if hashed and not all_ else f"{name} is {where}\n")
    return found


def _paths_of(sh: Shell, name: str, every: bool) -> list[str]:
    """Where `name` would run from: the hash table first (not for type -a), else _search_path."""
    entry = sh.ex.hashed_now(name) if not every and name in sh.state.hashed else None
    if entry is not None:
        return [entry.partition(":")[2]]  # as remembered, even when the file is gone (bash)
    return _search_path(sh, name, every)


def _search_path(sh: Shell, name: str, every: bool) -> list[str]:
    """Where a PATH search finds `name` (the hash table was asked first); `every` (type -a): each
    PATH directory's match in order, as bash lists them (/usr/bin/ls and /bin/ls)."""
    path = sh.get_str("PATH") or ""
    if every and "/" not in name:
        if not path:
            return []  # (bash's user_command_matches: no PATH, no directory to list)
        # (each directory on its own: the hash table, stale entries and all, stays as it is)
        found = [
            w
            for k, w in (sh.ex.find_command(name, path=d or ".", exec_only=True) for d in _path_units(path))
            if k
        ]
        if found:
            return found
    # (never the table again; PATH unset or empty: the name itself, shown as bash's
    # sh_makepath makes it, under the current directory)
    kind, where = sh.ex.find_command(name, path=path, exec_only=every)
    if kind == "script" and "/" in name:
        # a path names a program only when it is executable (bash's absolute_program test: running
        # it says "Permission denied"; `type` and `command -v` do not find it)
        stat = sh.ex.lookup_stat(where)
        if stat is None or not stat.is_program:
            return []
    if kind and "/" not in where:
        where = f"{(sh.get_str('PWD') or sh.state.fs.cwd).rstrip('/')}/{where}"
    return [where] if kind else []


def _path_units(path: str) -> list[str]:
    """PATH's directories as bash's extract_colon_unit gives them one after another to type -a:
    an empty one is the current directory, and the walk ends at the end of the string, so a
    trailing `:` after an empty element adds none (`:` is one, `::` and `:::` two, `:.:` three)."""
    units: list[str] = []
    i = 0
    while i < len(path):
        if i and path[i] == ":":
            i += 1
        start = i
        while i < len(path) and path[i] != ":":
            i += 1
        units.append(path[start:i])
        if i == start and i < len(path):
            i += 1
    return units


def _std_path_of(sh: Shell, name: str) -> list[str]:
    kind, where = sh.ex.find_command(name, path=STD_PATH)
    return [where] if kind else []


def _q(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


@builtin("type")
def bi_type(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "afptP")
    if opts is None:
        return 2
    style = ("V" + "".join(c for c in opts.letters() if c in "tpP"))[-1]
    all_ = opts.has("a")
    funcs = not opts.has("f")
    status = 0
    for name in opts.args:
        if not describe(sh, name, style, all_, funcs):
            if style == "V":
                sh.builtin_error("type", f"{name}: not found")
            status = 1
    return status


@builtin("hash")
def bi_hash(sh: Shell, argv: list[str]) -> int:
    st = sh.state
    if not st.opts["hashall"]:
        sh.builtin_error("hash", "hashing disabled")  # (bash: before it reads any option)
        return 1
    opts = parse_builtin(sh, argv, "dlp:rt")
    if opts is None:
        return 2
    args = opts.args
    delete, targets = opts.has("d"), opts.has("t")
    if not args and (delete or targets):
        sh.builtin_error("hash", f"-{'d' if delete else 't'}: option requires an argument")
        return 1
    if opts.has("r"):
        st.hashed.clear()
    elif not args:
        _print_hashed(sh, portable=opts.has("l"))
        return 0
    pathname = opts.value("p")
    status = 0
    for name in args:
        if "/" in name and not targets:
            continue  # a path is never hashed nor removed (bash's absolute_program)
        if delete and not targets:
            # (a table never made has nothing to remove, and says nothing)
            if st.hashed.pop(name, None) is None and getattr(st.hashed, "created", True):
                sh.builtin_error("hash", f"{name}: not found")
                status = 1
        elif targets:
            entry = sh.ex.hashed_now(name) if name in st.hashed else None  # (a hit counted)
            if entry is None:
                sh.builtin_error("hash", f"{name}: not found")
                status = 1
            else:
                where = entry.split(":", 1)[1]
                if opts.has("l"):
                    sh.out(f"builtin hash -p {where} {name}\n")
                else:
                    sh.out(f"{name}\t{where}\n" if len(args) > 1 else where + "\n")
        elif pathname is not None:
            stat = st.fs.try_stat(pathname)
            if stat is not None and stat.is_dir:
                sh.builtin_error("hash", f"{pathname}: Is a directory")
                status = 1
            else:
                st.hashed[name] = hash_entry(pathname)
        else:
            status |= _hash_one(sh, name)
    return status


def _print_hashed(sh: Shell, portable: bool) -> None:
    hashed = sh.state.hashed
    if not hashed:
        if not portable:
            sh.out("hash: hash table empty\n")
        return
    # bash lists its table bucket by bucket, the newest entry of a bucket first
    order = {name: i for i, name in enumerate(hashed)}
    names = sorted(hashed, key=lambda n: (_hash_bucket(n), -order[n]))
    if portable:
        for name in names:
            sh.out(f"builtin hash -p {hashed[name].split(':', 1)[1]} {name}\n")
    else:
        sh.out("hits\tcommand\n")
        hits = getattr(hashed, "hits", None) or {}
        for name in names:
            sh.out(f"{hits.get(name, 1):4d}\t{hashed[name].split(':', 1)[1]}\n")


def _hash_bucket(name: str) -> int:
    """The bucket of bash's filename hash table (256 buckets) that `name` falls in: its FNV-1
    string hash over the bytes as C's signed chars."""
    h = 2166136261
    for c in name.encode("utf-8", "surrogateescape"):
        h = (h * 16777619) & 0xFFFFFFFF
        h ^= c if c < 0x80 else c | 0xFFFFFF00
    return h & 255


def _hash_one(sh: Shell, name: str) -> int:
    # (only an executable file: bash's add_hashed_command refuses the one a search would run
    # only for want of another)
    kind, where = sh.ex.find_command(name, exec_only=True) if sh.ex.command_visible(name) else ("", "")
    if not kind:
        sh.builtin_error("hash", f"{name}: not found")
        return 1
    if name not in BUILTINS:
        sh.state.hashed[name] = f"{kind}:{where}"
    return 0


@builtin("enable")
def bi_enable(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "adnpsf:")
    if opts is None:
        return 2
    args = opts.args
    disable, show_all, special = opts.has("n"), opts.has("a"), opts.has("s")
    lib = opts.value("f")
    if args and lib is not None:
        # no loadable builtins in a sandbox: bash's words for a shared object it cannot open
        sh.builtin_error(
            "enable",
            f"cannot open shared object {lib}: {lib}: cannot open shared object file: "
            "No such file or directory",
        )
        return 1
    if args and opts.has("d"):
        for name in args:
            why = "not dynamically loaded" if name in BUILTINS else "not a shell builtin"
            sh.builtin_error("enable", f"{name}: {why}")
        return 1
    if not args:
        for name in sorted(BUILTINS):
            if special and name not in SPECIAL:
                continue
            off = name in sh.state.disabled_builtins
            if off and not (show_all or disable):
                continue
            if disable and not off and not show_all:
                continue
            sh.out(f"enable {'-n ' if off else ''}{name}\n")
        return 0
    status = 0
    for name in args:
        if name not in BUILTINS:
            sh.builtin_error("enable", f"{name}: not a shell builtin")
            status = 1
            continue
        if disable:
            sh.state.disabled_builtins.add(name)
        else:
            sh.state.disabled_builtins.discard(name)
    return status


@builtin("times")
def bi_times(sh: Shell, argv: list[str]) -> int:
    if no_options(sh, argv) is None:
        return 2
    sh.out("0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n")
    return 0


_SIGNALS = list(SIGNAL_NAMES)  # index = number; 0 is EXIT


def signal_number(spec: str) -> int | None:
    s = spec.upper()
    if s.isdigit():
        n = int(s)
        return n if n <= 64 else None
    if s.startswith("SIG"):
        s = s[3:]
    if s in _SIGNALS:
        return _SIGNALS.index(s)
    if s.startswith("RTMIN+") and legal_number(s[6:]) and 0 <= int(s[6:]) <= 30:
        return 34 + int(s[6:])  # bash computes RTMIN+N; RTMAX-N is only the table's names
    names = _rt_names()
    return names.index(s) + 34 if s in names else None


def _rt_names() -> list[str]:
    """The real-time signals 34..64 by bash's names (RTMIN, RTMIN+1 .. RTMIN+15, RTMAX-14 .. RTMAX)."""
    names = [f"RTMIN{'+' + str(i) if i else ''}" for i in range(16)]
    return names + [f"RTMAX{'-' + str(14 - i) if i < 14 else ''}" for i in range(15)]


def signal_name(n: int) -> str | None:
    """Signal `n`'s name without SIG (EXIT for 0; "" for 32 and 33, which bash has no name for)."""
    if 0 <= n < len(_SIGNALS):
        return _SIGNALS[n]
    if 34 <= n <= 64:
        return _rt_names()[n - 34]
    return "" if n in (32, 33) else None


def signal_list() -> str:
    """`kill -l` / `trap -l`: bash's five-per-line table."""
    entries = [(i, f"SIG{n}") for i, n in enumerate(_SIGNALS) if i > 0]
    entries += [(34 + i, f"SIG{n}") for i, n in enumerate(_rt_names())]
    lines = []
    for i in range(0, len(entries), 5):
        row = entries[i : i + 5]
        lines.append("\t".join(f"{num:2d}) {name}" for num, name in row) + ("\t" if len(row) < 5 else ""))
    return "\n".join(lines) + "\n"


@builtin("suspend")
def bi_suspend(sh: Shell, argv: list[str]) -> int:
    if parse_builtin(sh, argv, "f") is None:
        return 2
    if not sh.state.opts["monitor"]:
        sh.builtin_error("suspend", "cannot suspend: no job control")
        return 1
    sh.builtin_error("suspend", "cannot suspend a login shell")
    return 1


@builtin("umask")
def bi_umask(sh: Shell, argv: list[str]) -> int:
    st = sh.state
    opts = parse_builtin(sh, argv, "Sp")
    if opts is None:
        return 2
    args = opts.args
    symbolic, reusable = opts.has("S"), opts.has("p")
    if not args:
        text = _symbolic_umask(st.umask) if symbolic else f"{st.umask:04o}"
        sh.out(("umask " + ("-S " if symbolic else "") if reusable else "") + text + "\n")
        return 0
    spec = args[0]
    if spec[:1].isdigit():
        # bash's read_octal: octal digits only, at most 07777
        if not all(c in "01234567" for c in spec) or int(spec, 8) > 0o7777:
            sh.builtin_error("umask", f"{spec}: octal number out of range")
            return 1
        st.umask = int(spec, 8) & 0o777
    else:
        allowed = _symbolic_umask_bits(spec, 0o777 & ~st.umask)
        if isinstance(allowed, str):
            sh.builtin_error("umask", allowed)
            return 1
        st.umask = 0o777 & ~allowed
    st.fs.umask = st.umask
    if symbolic:  # `umask -S MODE` shows the new mask
        sh.out(_symbolic_umask(st.umask) + "\n")
    return 0


_WHO_BITS = {"u": 0o700, "g": 0o070, "o": 0o007, "a": 0o777}
_PERM_BITS = {"r": 0o444, "w": 0o222, "x": 0o111}


def _symbolic_umask_bits(spec: str, bits: int) -> int | str:
    """The permissions `umask MODE` leaves, from those allowed now, or bash's message for a bad
    MODE. umask's grammar is narrower than chmod's: clauses [ugoa]*[+-=][rwx]* joined by
    commas (no X, s, t, no copying from u/g/o, one operator per clause)."""
    i, n = 0, len(spec)
    while True:
        who = 0
        while i < n and spec[i] in _WHO_BITS:
            who |= _WHO_BITS[spec[i]]
            i += 1
        op = spec[i] if i < n else "\0"  # bash prints the NUL it found at the end
        i += 1
        if op not in "+-=" or op == "\0":
            return f"`{op}': invalid symbolic mode operator"
        perm = 0
        while i < n and spec[i] in _PERM_BITS:
            perm |= _PERM_BITS[spec[i]]
            i += 1
        if i < n and spec[i] != ",":
            return f"`{spec[i]}': invalid symbolic mode character"
        if who:
            perm &= who
        if op == "+":
            bits |= perm
        elif op == "-":
            bits &= ~perm
        else:
            bits = (bits & ~(who or 0o777)) | perm
        if i >= n:
            return bits
        i += 1  # past the comma


def _symbolic_umask(mask: int) -> str:
    """`u=rwx,g=rx,o=rx`: what the mask allows, per class."""
    perms = []
    for who, shift in (("u", 6), ("g", 3), ("o", 0)):
        allowed = (~mask >> shift) & 7
        perms.append(who + "=" + "".join(ch for bit, ch in ((4, "r"), (2, "w"), (1, "x")) if allowed & bit))
    return ",".join(perms)


@builtin("caller")
def bi_caller(sh: Shell, argv: list[str]) -> int:
    return sh.run_unchecked(lambda: _caller(sh, argv))


def _caller(sh: Shell, argv: list[str]) -> int:
    # bash reads the call-stack arrays; under `bash -c` the top level has no BASH_SOURCE entry
    # (`caller` then shows NULL and `caller 0` from a function it called fails)
    stack = sh.va.call_stack()
    funcs, sources, lines = (IndexedArray([e[k] for e in stack]) for k in range(3))
    if not lines or not sources:
        return 1  # bash answers before it looks at the arguments
    args = no_options(sh, argv)
    if args is None:
        return 2
    argv = argv[:1] + args
    n = 0
    if len(argv) > 1:
        if not legal_number(argv[1]):
            invalid_number(sh, "caller", argv[1])
            usage(sh, "caller")
            return 2
        n = int(argv[1])
    if n < 0:
        return 1
    line, source = lines.get(n), sources.get(n + 1)
    if len(argv) == 1:
        sh.out(f"{'NULL' if line is None else line} {'NULL' if source is None else source}\n")
        return 0
    func = funcs.get(n + 1) if funcs is not None else None
    if line is None or source is None or func is None:
        return 1
    sh.out(f"{line} {func} {source}\n")
    return 0


@builtin("help")
def bi_help(sh: Shell, argv: list[str]) -> int:
    from .help import run_help

    return run_help(sh, argv)
