"""`sandbash -c SCRIPT [NAME [ARGS...]]`, `sandbash FILE [ARGS...]`, `sandbash -s [ARGS...]`.

Filesystem options: `--root DIR` (the root is a copy-on-write view of host DIR,
which is never written), `--store FILE` (the root persists in a SQLite file),
`--mount HOSTDIR:/PATH[:ro|:rw|:cow]` (repeatable; `ro` read-only, `rw` writes
reach the host, `cow` (default) changes kept in memory)."""

from __future__ import annotations

import _thread
import atexit
import gc
import os
import sys
from collections.abc import Callable, Sequence
from types import SimpleNamespace

from .. import __version__, pycache
from ..api import Bash
from ..config import build_filesystem as build_filesystem
from ..config import parse_limit, setting_error, start_cwd
from ..config import parse_mount as parse_mount
from ..errors import ExecutionCancelled, ExecutionLimitError
from ..interp.state import FLAG_LETTERS, SET_OPTIONS, SHOPT_OPTIONS
from ..limits import CancelToken, Limits
from ..stdio.hostin import HostInput
from ..stdio.streams import SigPipe
from ..vfs.errors import FsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from dataclasses import dataclass, field
    from typing import Any, NoReturn

    from ..net import NetworkConfig
    from ..policy import Policy
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass, field

ENTRY_POINT_GROUP = "sandbash.commands"  # custom.ENTRY_POINT_GROUP (custom imports importlib.metadata)
# the variables Policy.from_env reads
POLICY_ENV = (
    "SANDBASH_ALLOWED_COMMANDS",
    "SANDBASH_DENIED_COMMANDS",
    "SANDBASH_ALLOWED_PATHS",
    "SANDBASH_MODE",
)


EPILOG = """\
bash options (before the script, as with bash):
  -e -u -x -v -f -n -C ... (set's letters; +e turns one off), -o NAME / +o NAME (set -o names: pipefail, ...),
  -O NAME / +O NAME (shopt names), --norc, --noprofile, --posix:  sandbash -euo pipefail script.sh

subcommands:
  sandbash mcp [--root DIR] [--config FILE] ...   serve the bash tool over MCP (sandbash mcp --help)
  sandbash serve --socket PATH --config box.toml   box mode: the shell service the alias talks to
  sandbash install-alias DIR --socket PATH        box mode: write the bash, sh, zsh alias into DIR

examples:
  sandbash -c 'echo $0 $1' name arg           like bash -c
  sandbash script.sh arg1 arg2                the script file is read from the host, runs in the sandbox
  echo 'echo hi' | sandbash -s                script on stdin
  sandbash                                    interactive prompt (when stdin is a terminal)
  sandbash --root ./project -c 'ls; sed -i s/a/b/ f.txt'   host dir as /, writes kept in memory
  sandbash --mount ./data:/data:ro --cwd /data -c 'grep -c ERROR app.log'
  sandbash --limit timeout=2m --limit max_output_size=50MB -c '...'
  sandbash --policy policy.toml --check script.sh          static check: exit 0 allowed, 1 denied, 3 indeterminate
  sandbash --host --host-path /var/log:ro -c 'ps -e; ss -tln; tail /var/log/syslog'   host mode
  sandbash --check --remote-policy remote.toml -c 'cat /var/log/app.log'   check against another host's grants

A policy file is the TOML Policy.from_toml reads (the same as the [policy] table of `sandbash mcp --config`);
a refused file action names its rule ('Permission denied [policy: mode.read-only]'), and a :rw grant
without mode = "remediation" gets a 'sandbash: warning:' line at start-up:
  mode = "remediation"                 # writes only where a :rw grant allows; "read-only": none;
                                       # unset: host mounts read-only, paths in memory (/tmp) writable
  paths = ["/data:ro", "/out:rw"]      # path grants
  [commands]
  allow = ["cat", "grep", "ls", "wc"]  # or `commands = [...]` (an allow list); absent: all commands
  deny = ["rm"]
"""


def _formatter() -> type[argparse.HelpFormatter]:
    import argparse

    class _Formatter(argparse.RawDescriptionHelpFormatter):
        """The help layout, sized as argparse sizes it (COLUMNS, else the terminal, else 80) without
        importing shutil (and its compression modules) on every start: argparse makes one formatter
        per option it adds."""

        def __init__(self, prog: str) -> None:
            columns = os.environ.get("COLUMNS", "")
            if columns.isdigit() and int(columns) > 0:
                width = int(columns)
            else:
                try:
                    width = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 80
                except (AttributeError, ValueError, OSError):
                    width = 80
            super().__init__(prog, width=(width or 80) - 2)

    return _Formatter


def _options(add: Callable[..., object]) -> None:
    """sandbash's own options, declared once: `add` is argparse's add_argument when the command line
    has any (_parser), or a recorder of their defaults when it has none (_defaults: argparse, with
    gettext and locale, is ~3 ms of `sandbash -c 'echo hi'`)."""
    add("--version", action="version", version=f"sandbash {__version__} (bash 5.2 semantics)")
    # -c and -s are read by split_args with bash's other options; here for --help only
    add("-c", dest="command", metavar="SCRIPT", help="run SCRIPT ($0 and $1... follow)")
    add("-s", dest="stdin_script", action="store_true", help="read the script from standard input")
    add("--limits", default="default", help="limits profile: default, hardened, generous")
    add(
        "--limit",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="set one limit (names as in sandbash.Limits; sizes take KB/MB/GB, times ms/s/m/h: "
        "--limit max_output_size=50MB --limit timeout=2m); repeatable",
    )
    add("--timeout", type=float, help="wall-clock limit in seconds")
    add("--cwd", help="working directory inside the sandbox (default: / with --root, else /home/user)")
    add(
        "--root",
        metavar="DIR",
        help="root filesystem: copy-on-write view of host DIR (never written); the shell starts in /",
    )
    add("--store", metavar="FILE", help="root filesystem kept in SQLite FILE (persists between runs)")
    add(
        "--mount",
        metavar="HOSTDIR:/PATH[:ro|:rw|:cow]",
        action="append",
        default=[],
        help="mount host HOSTDIR at PATH: ro read-only, rw read-write on the host, cow (default) "
        "copy-on-write in memory; repeatable",
    )
    add(
        "--json",
        action="store_true",
        help="print the agent tool's JSON result (stdout, stderr, exit_code, result_json, ...)",
    )
    add(
        "--allow-url",
        metavar="PREFIX",
        action="append",
        default=[],
        help="let curl and wget reach URLs under PREFIX (repeatable); the network is off otherwise",
    )
    add(
        "--policy",
        metavar="FILE",
        help="policy TOML file (commands allow/deny, path grants, mode); SANDBASH_ALLOWED_COMMANDS, "
        "SANDBASH_DENIED_COMMANDS, SANDBASH_ALLOWED_PATHS and SANDBASH_MODE override its parts",
    )
    add(
        "--check",
        action="store_true",
        help="do not run: check the script against the policy statically (exit 0 allowed, 1 denied, "
        "3 indeterminate; the report as JSON with --json)",
    )
    add(
        "--host",
        action="store_true",
        help="host mode: inspection commands (ps, ss, ip, free, ...) read this machine's /proc and /sys",
    )
    add(
        "--host-path",
        metavar="PATH[:ro|:rw]",
        action="append",
        default=[],
        help="host mode: show host directory PATH at its real path (read-only unless :rw and the "
        "policy's mode is remediation); repeatable, implies --host",
    )
    add(
        "--remote-policy",
        metavar="FILE",
        help="with --check: check against another host's grants (TOML keys commands, paths, mode, "
        "services, elevatable_commands, env, dir, timeout) without reading this machine",
    )


def _parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="sandbash",
        usage="sandbash [bash options] [sandbash options] [-c SCRIPT [NAME [ARG...]] | -s [ARG...] | FILE [ARG...]]",
        allow_abbrev=False,  # split_args must know which options take a value
        description="Run bash scripts in a sandbox: a bash interpreter in Python over a virtual filesystem.",
        epilog=EPILOG,
        formatter_class=_formatter(),
    )
    _options(p.add_argument)
    p.add_argument("rest", nargs=argparse.REMAINDER, help="script file and/or arguments")
    return p


def _defaults() -> SimpleNamespace:
    """What `_parser().parse_args([])` gives, without argparse: each option's dest as argparse names
    it (`dest`, else the first long name with `-` as `_`) with its default (`default`, False for
    store_true, else None; a list fresh each time), and `rest` empty."""
    out = SimpleNamespace(rest=[])

    def record(*flags: str, **kw: Any) -> None:
        if kw.get("action") == "version":
            return  # (argparse keeps no value for it)
        longs = [f for f in flags if f.startswith("--")]
        dest = kw.get("dest") or (longs[0] if longs else flags[0]).lstrip("-").replace("-", "_")
        default = kw.get("default", False if kw.get("action") == "store_true" else None)
        setattr(out, dest, list(default) if isinstance(default, list) else default)

    _options(record)
    return out


def _parse_ours(ours: list[str]) -> SimpleNamespace:
    if not ours:
        return _defaults()
    plain = _parse_plain(ours)
    return plain if plain is not None else _parser().parse_args(ours, namespace=SimpleNamespace())


def _parse_plain(ours: list[str]) -> SimpleNamespace | None:
    """What argparse gives for a command line of whole long option names with ordinary values
    (`--mount A:/B:ro --cwd=/B --json`), without importing it (argparse with gettext and locale:
    ~4 ms of every such start); None for anything else (--help, --version, an unknown or
    abbreviated name, a value that is empty, starts with `-` or does not convert), which argparse
    then reads and reports in its own words."""
    specs: dict[str, dict[str, Any]] = {}

    def record(*flags: str, **kw: Any) -> None:
        for f in flags:
            if f.startswith("--") and kw.get("action") != "version":
                specs[f] = kw

    _options(record)
    out = _defaults()
    i = 0
    while i < len(ours):
        name, eq, value = ours[i].partition("=")
        kw = specs.get(name)
        if kw is None:
            return None
        dest = kw.get("dest") or name[2:].replace("-", "_")
        if kw.get("action") == "store_true":
            if eq:
                return None  # argparse's 'ignored explicit argument'
            setattr(out, dest, True)
            i += 1
            continue
        if not eq:
            i += 1
            value = ours[i] if i < len(ours) else ""
        if not value or value.startswith("-"):
            return None
        if kw.get("type") is float:
            try:
                converted: Any = float(value)
            except ValueError:
                return None
        else:
            converted = value
        if kw.get("action") == "append":
            getattr(out, dest).append(converted)
        else:
            setattr(out, dest, converted)
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        # a process of its own (`sandbash`, `python -m sandbash`): the objects the imports made
        # (~100k) live as long as it does, so the collector need not walk them again (a plain
        # `echo hi` spent ~12% of its instructions in collections that freed none of them)
        gc.freeze()
        pycache.freeze_imports = True  # (and what a later import makes: pycache.settle)
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["mcp"]:
        from ..agent.mcp_server import main as mcp_main

        return mcp_main(argv[1:], read_text=_read_host_text)
    if argv[:1] == ["serve"]:  # box mode: the shell service (sandbash.box)
        from ..box.service import main as serve_main

        return serve_main(argv[1:])
    if argv[:1] == ["install-alias"]:
        from ..box.alias import install_main

        return install_main(argv[1:])
    try:
        shell_args = split_args(argv)
    except _UsageError as e:
        sys.stderr.write(f"sandbash: {e}\n")
        return 2
    args = _parse_ours(shell_args.ours)
    if shell_args.command:
        if not shell_args.operands:
            sys.stderr.write("sandbash: -c: option requires an argument\n")
            return 2
        args.command = shell_args.operands[0]
    args.stdin_script = shell_args.read_stdin
    args.rest = shell_args.operands[1:] if shell_args.command else shell_args.operands
    options = shell_args.options
    stop = _Stopper()
    stop.install()
    try:
        bash = _build(args)
    except _UsageError as e:
        sys.stderr.write(f"sandbash: {e}\n")
        return 2
    rest = list(args.rest)
    if args.command is None and not args.stdin_script and not rest and sys.stdin.isatty():
        from .repl import interact

        stop.uninstall()  # the prompt handles Ctrl-C itself
        return interact(bash, sys.stdout.buffer, sys.stderr.buffer, options)
    script_args = _script(args, rest)
    if isinstance(script_args, int):
        return script_args
    script, mode, arg0, rest = script_args
    if args.remote_policy is not None:
        return _check_remote(args, script)
    if args.check:
        if bash.policy is None:
            sys.stderr.write(
                "sandbash: --check: no policy loaded (give --policy FILE or set SANDBASH_ALLOWED_COMMANDS, "
                "SANDBASH_DENIED_COMMANDS, SANDBASH_ALLOWED_PATHS or SANDBASH_MODE): "
                "everything is allowed\n"
            )
        report = bash.check(script)
        sys.stdout.write(report.to_json(indent=2) + "\n" if args.json else report.to_text())
        return report.exit_code
    if args.json:
        return _run_json(
            bash, script, mode=mode, arg0=arg0, positional=rest, options=options, cancel=stop.token
        )
    return _run_streaming(bash, script, stop, mode=mode, arg0=arg0, positional=rest, options=options)


def program() -> NoReturn:
    """The process's entry point (`sandbash`, `python -m sandbash`): main(), then the process ends.
    When nothing is left for the interpreter's teardown to do (no atexit callback, no other thread,
    no SQLite store, the standard streams flushed) it ends at once with os._exit: freeing every
    module and object the run made is ~6 M instructions (4% of `sandbash -c 'echo hi'`) of work the
    system does anyway as the process goes. Otherwise (or when a stream cannot be flushed, which
    the usual exit reports) it exits as `sys.exit` does."""
    status = main()
    if _nothing_left_to_tear_down():
        os._exit(status)
    raise SystemExit(status)


def _nothing_left_to_tear_down() -> bool:
    # an atexit callback (a runtime's worker, weakref.finalize, an embedder's) or a thread still
    # running (the usual exit waits for non-daemon threads) needs the teardown; so does a session
    # store, whose connection is closed by it
    if atexit._ncallbacks() or _thread._count() or "sqlite3" in sys.modules:
        return False
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # (a closed pipe, a closed stream: reported by the usual exit)
        return False
    return True


class _UsageError(Exception):
    """A bad option value: one line on stderr, status 2."""


def _check_remote(args: SimpleNamespace, script: str) -> int:
    """`--check --remote-policy FILE`: the report against the remote grants (exit 0/1/3)."""
    from ..check.remote import RemotePolicy, check_remote

    if not args.check:
        sys.stderr.write(
            "sandbash: --remote-policy needs --check (a remote policy is only checked against)\n"
        )
        return 2
    try:
        remote = RemotePolicy.from_toml(_read_host_text(args.remote_policy))
    except (OSError, ValueError) as e:
        sys.stderr.write(f"sandbash: --remote-policy: {setting_error(e)}\n")
        return 2
    report = check_remote(script, remote)
    sys.stdout.write(report.to_json(indent=2) + "\n" if args.json else report.to_text())
    return report.exit_code


# sandbash's own options that take a value (the next word unless written --name=value)
_VALUE_OPTIONS = frozenset(
    {
        "--limits",
        "--limit",
        "--timeout",
        "--cwd",
        "--root",
        "--store",
        "--mount",
        "--allow-url",
        "--policy",
        "--host-path",
        "--remote-policy",
    }
)
_BASH_LONG = {"--norc": None, "--noprofile": None, "--noediting": None, "--login": None, "--posix": "posix"}


@dataclass
class ShellArgs:
    """The command line split as bash reads it: options up to the first operand (or `--`/`-`)."""

    ours: list[str] = field(default_factory=list)  # sandbash's own options, for argparse
    command: bool = False  # -c: the first operand is the script
    read_stdin: bool = False  # -s
    options: dict[str, bool] = field(default_factory=dict)  # set -o / shopt names
    operands: list[str] = field(default_factory=list)


def split_args(argv: Sequence[str]) -> ShellArgs:
    """Bash's option rules: letters bundle (`-euo pipefail`, `-ec SCRIPT`), `+x` turns off, `-o`/`-O`
    take the next word, and options end at the first operand. Raises _UsageError in bash's words."""
    out = ShellArgs()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--", "-"):
            i += 1
            break
        if a.startswith("--"):
            if a in _BASH_LONG:
                if _BASH_LONG[a]:
                    out.options[str(_BASH_LONG[a])] = True
            else:
                out.ours.append(a)
                if "=" not in a and a in _VALUE_OPTIONS and i + 1 < len(argv):
                    i += 1
                    out.ours.append(argv[i])
        elif a == "-h":
            out.ours.append(a)
        elif len(a) > 1 and a[0] in "-+":
            i = _letters(argv, i, out)
        else:
            break
        i += 1
    out.operands = list(argv[i:])
    return out


def _letters(argv: Sequence[str], i: int, out: ShellArgs) -> int:
    """One bundle of option letters at argv[i]; returns the index of the last word it used."""
    a = argv[i]
    sign, on = a[0], a[0] == "-"
    for c in a[1:]:
        if on and c == "c":
            out.command = True
        elif on and c == "s":
            out.read_stdin = True
        elif c in "oO":
            i += 1
            table = SET_OPTIONS if c == "o" else SHOPT_OPTIONS
            if i >= len(argv):
                raise _UsageError(f"{sign}{c}: option requires an argument")
            if argv[i] not in table:
                raise _UsageError(f"{argv[i]}: invalid {'option' if c == 'o' else 'shell option'} name")
            out.options[argv[i]] = on
        elif c in FLAG_LETTERS:
            out.options[FLAG_LETTERS[c]] = on
        elif c not in "il":  # interactive and login shells mean nothing here
            raise _UsageError(f"{sign}{c}: invalid option (sandbash --help lists the options)")
    return i


def _build(args: SimpleNamespace) -> Bash:
    """The sandbox the options describe (limits, filesystem, network, policy)."""
    try:
        limits = Limits.profile(args.limits)
        if args.timeout is not None:
            limits = limits.with_overrides(timeout=args.timeout)
        overrides = dict(parse_limit(spec) for spec in args.limit)
        if overrides:
            limits = limits.with_overrides(**overrides)
    except ValueError as e:
        raise _UsageError(e) from None
    try:
        fs = build_filesystem(args.root, args.store, args.mount, limits)
    except (ValueError, FsError) as e:
        raise _UsageError(e) from None
    try:
        network = _network(args.allow_url)
    except ValueError as e:  # a malformed prefix
        raise _UsageError(f"--allow-url: {e}") from None
    try:
        policy = _policy(args.policy)
    except (OSError, ValueError) as e:
        raise _UsageError(f"--policy: {setting_error(e)}") from None
    cwd = start_cwd(args.cwd, args.root)
    # scanning the installed packages with importlib.metadata costs ~40 ms: only when one declares commands
    make: Callable[..., Bash] = Bash
    if _plugins_declared():
        from ..agent.sandbox import new_bash

        make = new_bash
    host = _host(args)
    try:
        bash = make(limits=limits, cwd=cwd, fs=fs, network=network, policy=policy, host=host)
    except ValueError as e:  # a --cwd that cannot be a directory
        raise _UsageError(e) from None
    for warning in bash.host_warnings:  # rshell's: a skipped grant, a suffix read as the mode
        sys.stderr.write(f"sandbash: warning: {warning}\n")
    # settings that do not do what they seem to, judged against this filesystem (Policy.effective)
    for warning in bash.policy.warnings if bash.policy is not None else ():
        sys.stderr.write(f"sandbash: warning: {warning}\n")
    return bash


def _host(args: SimpleNamespace) -> Any:
    """The HostAccess of --host / --host-path (None without them)."""
    if not (args.host or args.host_path):
        return None
    from ..host import HostAccess
    from ..policy import PolicyError

    try:
        return HostAccess(paths=tuple(args.host_path))
    except PolicyError as e:
        raise _UsageError(f"--host-path: {e}") from None


def _script(args: SimpleNamespace, rest: list[str]) -> tuple[str, str, str, list[str]] | int:
    """(script text, mode, $0, positional parameters), or the status of a script file that cannot be read."""
    if args.command is not None:
        if rest:
            return args.command, "c", rest[0], rest[1:]
        return args.command, "c", "bash", rest
    if args.stdin_script or not rest:
        return sys.stdin.buffer.read().decode("utf-8", "surrogateescape"), "s", "bash", rest
    path = rest[0]
    try:
        with open(path, "rb") as f:  # the script file is the one host read the user asked for
            script = f.read().decode("utf-8", "surrogateescape")
    except OSError as e:
        sys.stderr.write(f"sandbash: {path}: {e.strerror}\n")
        return 127
    return script, "file", path, rest[1:]


def _run_streaming(bash: Bash, script: str, stop: _Stopper, **kw: Any) -> int:
    """Run with output streamed to ours. A closed stdout is SIGPIPE for the writing command (status 141,
    nothing on stderr, as in bash); SIGINT/SIGTERM cancel the run quietly (130/143)."""
    out = sys.stdout.buffer
    err = sys.stderr.buffer
    broken = [False]

    def write_out(data: bytes) -> None:
        if broken[0]:
            raise SigPipe
        try:
            out.write(data)
            out.flush()
        except BrokenPipeError:
            broken[0] = True
            _discard_stdout()
            raise SigPipe from None

    def write_err(data: bytes) -> None:
        try:
            err.write(data)
            err.flush()
        except BrokenPipeError:
            pass  # nobody reads our stderr any more: the run goes on

    stdin: bytes | HostInput = b""
    if kw["mode"] != "s" and sys.stdin is not None:
        try:
            stdin = HostInput(sys.stdin.fileno())  # like bash: the script's commands read our stdin
        except (OSError, ValueError):
            pass
    try:
        result = bash.exec(
            script,
            stdin=stdin,
            on_stdout=write_out,
            on_stderr=write_err,
            keep_output=False,
            cancel=stop.token,
            **kw,
        )
    except ExecutionLimitError as e:
        write_err(f"bash: {e.message}\n".encode())
        return e.result.exit_code
    except ExecutionCancelled:
        return 128 + (stop.signum or 2)
    return result.exit_code


def _discard_stdout() -> None:
    """Point fd 1 at /dev/null so that flushing at exit does not fail again (Python's own SIGPIPE advice)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


class _Stopper:
    """SIGINT and SIGTERM cancel the run (a second one leaves at once), instead of a traceback."""

    def __init__(self) -> None:
        self.token = CancelToken()
        self.signum = 0
        self._saved: dict[int, Any] = {}

    def install(self) -> None:
        # the C module signal.py wraps: importing signal.py builds its three enums (~0.5 ms, 1.4% of
        # `sandbash -c 'echo hi'`) for what two calls do the same without them
        import _signal  # type: ignore[import-not-found]  # (no stub: signal.py re-exports it)

        for sig in (_signal.SIGINT, _signal.SIGTERM):
            try:
                self._saved[sig] = _signal.signal(sig, self._handle)
            except (ValueError, OSError):  # not the main thread
                pass

    def uninstall(self) -> None:
        import _signal  # type: ignore[import-not-found]  # (no stub: signal.py re-exports it)

        for sig, handler in self._saved.items():
            _signal.signal(sig, handler)
        self._saved.clear()

    def _handle(self, signum: int, frame: object) -> None:
        if self.signum:
            os._exit(128 + signum)  # the run did not stop at the first one
        self.signum = signum
        self.token.cancel()


def _plugins_declared(group: str = ENTRY_POINT_GROUP) -> bool:
    """False only when no installed distribution can declare commands: no `entry_points.txt` in a
    `*.dist-info`/`*.egg-info` directory of a `sys.path` directory names the `[group]` section
    (importlib.metadata reads the same files). Whatever this quick look does not cover (a zip or
    an egg on the path, another distribution finder) answers True and importlib.metadata decides."""
    # (importlib.machinery's PathFinder is this one: the importlib package and warnings are ~1.3 M
    # instructions of a start-up, and _frozen_importlib_external is loaded by every interpreter)
    from _frozen_importlib_external import PathFinder

    if any(f is not PathFinder and hasattr(f, "find_distributions") for f in sys.meta_path):
        return True
    header = f"[{group}]".encode()
    for entry in sys.path:
        d = entry or "."
        try:  # (names only: os.scandir's entries and open()'s buffered files cost more)
            names = os.listdir(d)
        except NotADirectoryError:  # a zip file on the path
            return True
        except OSError:
            continue
        if d.lower().endswith(".egg"):
            return True
        # one look at the whole listing first: most directories on the path (the standard library's,
        # lib-dynload, a source tree) hold no distribution, and lowering each of their names cost more
        listing = "\0".join(names).lower() + "\0"
        if ".dist-info\0" not in listing and ".egg-info\0" not in listing:
            continue
        # (os.path.join of each name cost a fifth of the scan; a doubled / is the same path)
        prefix = d + os.sep
        for name in names:
            if not name.lower().endswith((".dist-info", ".egg-info")):
                continue
            path = prefix + name + os.sep + "entry_points.txt"
            # most distributions have no entry_points.txt: access() says so without the OSError
            # that a failed open raises (about three times the cost)
            if os.access(path, os.F_OK) and header in _read_small(path):
                return True
    return False


def _read_small(path: str) -> bytes:
    """A small host file's bytes (b'' when it cannot be read)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return b""
    try:
        parts = []
        while chunk := os.read(fd, 1 << 16):
            parts.append(chunk)
        return b"".join(parts)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _network(prefixes: Sequence[str]) -> NetworkConfig | None:
    if not prefixes:
        return None
    from ..net import NetworkConfig

    return NetworkConfig(allowed_url_prefixes=tuple(prefixes))


def _run_json(bash: Bash, script: str, **kw: Any) -> int:
    """`--json`: the agent tool's output contract on stdout; the script's status as ours."""
    import json

    from ..agent.tool import shape_run

    shaped = shape_run(lambda: bash.exec(script, **kw))
    sys.stdout.write(json.dumps(shaped.to_dict(), ensure_ascii=False) + "\n")
    return shaped.exit_code


def _policy(path: str | None) -> Policy | None:
    """The policy from --policy FILE, then the SANDBASH_* environment variables over it."""
    environ = os.environ  # the CLI's own environment (cli.py is a host-facing owner of os)
    if not path and not any(name in environ for name in POLICY_ENV):
        return None  # as Policy.from_env answers, without importing the policy module
    from ..policy import Policy

    base = Policy.from_toml(_read_host_text(path)) if path else None
    return Policy.from_env(environ, base)


def _read_host_text(path: str) -> str:
    """A configuration file the operator named (the MCP server's TOML)."""
    with open(path, encoding="utf-8") as f:
        return f.read()


if __name__ == "__main__":
    program()
