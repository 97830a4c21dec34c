"""`bash` and `sh` as commands: a child shell with bash's inheritance rules."""

from __future__ import annotations

from collections.abc import Mapping

from ..limits import LimitExceeded, LimitKind
from ..stdio.streams import StreamError
from ..vfs.errors import FsError, strerror
from .redirects import dev_fd
from .state import FLAG_LETTERS
from .variables import locale_known

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..stdio.streams import Stream
    from .shell import Shell

_USAGE = "Usage:\t{0} [GNU long option] [option] ...\n\t{0} [GNU long option] [option] script-file ...\n"
_VERSION = (
    "GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\nCopyright (C) 2022 Free Software "
    "Foundation, Inc.\nLicense GPLv3+: GNU GPL version 3 or later <http://gnu.org/licenses/gpl.html>\n"
    "\nThis is free software; you are free to change and redistribute it.\n"
    "There is NO WARRANTY, to the extent permitted by law.\n"
)
_LONG = (
    "debug",
    "debugger",
    "dump-po-strings",
    "dump-strings",
    "help",
    "init-file",
    "login",
    "noediting",
    "noprofile",
    "norc",
    "posix",
    "pretty-print",
    "rcfile",
    "restricted",
    "verbose",
    "version",
)
_HELP = (
    "GNU bash, version 5.2.15(1)-release-(x86_64-pc-linux-gnu)\n"
    + _USAGE
    + "GNU long options:\n"
    + "".join(f"\t--{o}\n" for o in _LONG)
    + "Shell options:\n\t-ilrsD or -c command or -O shopt_option\t\t(invocation only)\n"
    "\t-abefhkmnptuvxBCEHPT or -o option\n"
    'Type `{0} -c "help set"\' for more information about shell options.\n'
    "Type `{0} -c help' for more information about shell builtin commands.\n"
    "Use the `bashbug' command to report bugs.\n\n"
    "bash home page: <http://www.gnu.org/software/bash>\n"
    "General help using GNU software: <http://www.gnu.org/gethelp/>\n"
)


def startup_warnings(sh: Shell, argv0: str, env: Mapping[str, str]) -> None:
    """What bash says as it starts: an LC_ALL from the environment that no locale here has."""
    value = env.get("LC_ALL")
    if value and not locale_known(value):
        sh.write_err(f"{argv0}: warning: setlocale: LC_ALL: cannot change locale ({value})\n")


def binary_sample(data: bytes) -> bool:
    """bash's check_binary_file on a file's first 80 bytes: an ELF header, or a NUL in the first
    line (in the first two after `#!`). Such a file is no script: `bash FILE` and running it refuse it."""
    sample = data[:80]
    if sample.startswith(b"\x7fELF"):
        return True
    lines = sample.split(b"\n", 2 if sample.startswith(b"#!") else 1)
    return any(b"\0" in line for line in lines[: 2 if sample.startswith(b"#!") else 1])


def script_text(data: bytes) -> str:
    """A script as the shell reads it from a file or a stream: NUL bytes are dropped (bash's
    shell_getc skips them), the rest decoded."""
    return data.replace(b"\0", b"").decode("utf-8", "surrogateescape")


def read_descriptor(sh: Shell, fd: int) -> bytes | None:
    """All a descriptor of the shell holds (`. <(cmd)`, `bash <(cmd)`: /dev/fd/N, /dev/stdin), as a
    script file is read whole; None when it is not open for reading."""
    stream = sh.io.get(fd)
    if stream is None or not stream.readable:
        return None
    return read_script(sh, stream)


def read_script(sh: Shell, stream: Stream) -> bytes:
    """A script's whole text from a stream (`bash` reading stdin, `source /dev/stdin`), bounded by
    max_input_size as it is read: `yes | bash` must end on that limit, not hold the host's memory."""
    limit = sh.rt.limits.max_input_size
    chunks: list[bytes] = []
    size = 0
    while True:
        sh.rt.budget.checkpoint()
        chunk = stream.read(min(1 << 16, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise LimitExceeded(LimitKind.MAX_INPUT_SIZE, limit)


def run_bash(sh: Shell, argv: list[str], env: dict[str, str]) -> int:
    """bash [-c STRING | -s | FILE] [options] [ARGS...]"""
    name = argv[0]  # bash's $0 and the name in its messages: argv[0] as given (`/bin/bash`, `exec -a`)
    login = name.startswith("-")  # `exec -l` / login(1) mark a login shell with a leading `-`
    args = argv[1:]
    command: str | None = None
    read_stdin = False
    opts: dict[str, bool] = {}
    shopts: dict[str, bool] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--" or a == "-":
            i += 1
            break
        if a in ("--norc", "--noprofile", "--posix", "--login", "--noediting", "-l", "-i", "--restricted"):
            if a == "--posix":
                opts["posix"] = True
            login = login or a in ("--login", "-l")
            i += 1
            continue
        if a == "--version":
            sh.out(_VERSION)
            return 0
        if a == "--help":
            sh.out(_HELP.format(name))
            return 0
        if a in ("--verbose", "--debug", "--debugger"):
            if a == "--verbose":
                opts["verbose"] = True
            i += 1
            continue
        if a in ("--rcfile", "--init-file"):
            # a startup file is read by interactive shells only; this one never is
            if i + 1 >= len(args):
                sh.write_err(f"{name}: {a}: option requires an argument\n" + _USAGE.format(name))
                return 2
            i += 2
            continue
        if a.startswith("--"):
            sh.write_err(f"{name}: {a}: invalid option\n" + _USAGE.format(name))
            return 2
        if a[0] in "-+" and len(a) > 1:
            on = a[0] == "-"
            j = 1
            while j < len(a):
                c = a[j]
                j += 1
                if c == "c":
                    command = ""
                elif c == "s":
                    read_stdin = True
                elif c == "o":
                    i += 1
                    if i < len(args):
                        if args[i] not in sh.state.opts:
                            sh.write_err(f"{name}: line 0: {name}: {args[i]}: invalid option name\n")
                            return 2
                        opts[args[i]] = on
                elif c == "O":
                    i += 1
                    if i < len(args):
                        if args[i] not in sh.state.shopts:
                            sh.write_err(f"{name}: line 0: {args[i]}: invalid shell option name\n")
                            return 2
                        shopts[args[i]] = on
                elif c in FLAG_LETTERS:
                    opts[FLAG_LETTERS[c]] = on
                elif c in "il":
                    login = login or c == "l"
                else:
                    sh.write_err(f"{name}: -{c}: invalid option\n" + _USAGE.format(name))
                    return 2
            i += 1
            continue
        break
    rest = args[i:]
    startup_warnings(sh, argv[0], env)
    child = sh.pr.spawn_shell(env, options=False)
    st = child.state
    st.opts.update({k: v for k, v in opts.items() if k in st.opts})
    if opts.get("posix"):
        child.va.posix_mode(True)  # (bash's posix_initialize, before -O/+O)
    st.shopts.update({k: v for k, v in shopts.items() if k in st.shopts})
    st.shopts["login_shell"] = login
    child.va.import_options(env)  # (after the command line's: SHELLOPTS=errexit wins over +e)
    if command is not None:
        if not rest:
            sh.write_err(f"{name}: -c: option requires an argument\n")
            return 2
        text = rest[0]
        st.arg0 = rest[1] if len(rest) > 1 else name
        st.positional = rest[2:]
        st.mode = "c"
        return sh.pr.child_ran(child, child.run_toplevel(text, "-c"))
    if read_stdin or not rest:
        stream = sh.io.get(0)
        try:
            data = read_script(sh, stream) if stream is not None and stream.readable else b""
        except StreamError as e:  # (`bash < dir`)
            sh.write_err(f"{name}: error reading input file: {strerror(e.errno or 5)}\n")
            return 2
        st.arg0 = name
        st.positional = rest
        st.mode = "s"
        return sh.pr.child_ran(child, child.run_toplevel(script_text(data), None))
    path = rest[0]
    fd = dev_fd(path)
    if fd is None and "/" not in path and not sh.state.fs.exists(path):
        path = _in_path(sh, path)  # bash looks for a script it cannot open here in PATH
    try:
        if fd is None:
            data = sh.state.fs.read_bytes(path)  # (one question to the policy: no stat first)
        else:  # the shell's own descriptor (`bash <(curl ...)`), never a file of that name
            got = read_descriptor(sh, fd)
            if got is None:
                raise FsError(2, path)
            data = got
    except (FsError, StreamError) as e:
        if isinstance(e, FsError) and e.errno == 21:
            # bash opens it, names itself after it, and then fails to read it
            sh.write_err(f"{path}: {path}: Is a directory\n")
            return 126
        why = e.message if isinstance(e, FsError) else strerror(e.errno or 5)
        sh.write_err(f"{name}: {path}: {why}\n")
        return 127 if e.errno == 2 else 126
    if fd is None and binary_sample(data):  # (a pipe is not checked: bash cannot seek back on it)
        sh.write_err(f"{path}: {path}: cannot execute binary file\n")
        return 126
    st.arg0 = rest[0]  # $0 is the name as given; BASH_SOURCE and messages name the file found
    st.script = path
    st.shell_name = name
    st.positional = rest[1:]
    st.mode = "file"
    return sh.pr.child_ran(child, child.run_toplevel(script_text(data), None))


def _in_path(sh: Shell, name: str) -> str:
    """`bash NAME` with no NAME here: the first regular file NAME in PATH (bash's find_path_file),
    else NAME itself, which then fails to open."""
    fs = sh.state.fs
    for d in (sh.get_str("PATH") or "").split(":"):
        candidate = (d or ".").rstrip("/") + "/" + name
        s = fs.try_stat(candidate)
        if s is not None and s.is_file:
            return candidate
    return name
