"""`sandbash -c SCRIPT [NAME [ARGS...]]`, `sandbash FILE [ARGS...]`, `sandbash -s [ARGS...]`.

Filesystem options: `--root DIR` (the root is a copy-on-write view of host DIR,
which is never written), `--store FILE` (the root persists in a SQLite file),
`--mount HOSTDIR:/PATH[:ro|:rw|:cow]` (repeatable; `ro` read-only, `rw` writes
reach the host, `cow` (default) changes kept in memory)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .api import Bash
from .errors import ExecutionCancelled, ExecutionLimitError
from .limits import Limits
from .sandbox import new_bash
from .stdio.hostin import HostInput
from .vfs.base import Backend
from .vfs.errors import FsError
from .vfs.memory import MemoryFs
from .vfs.mount import MountFs
from .vfs.quota import DiskQuota

if TYPE_CHECKING:
    from .net import NetworkConfig
    from .policy import Policy

MOUNT_MODES = ("ro", "rw", "cow")
ENTRY_POINT_GROUP = "sandbash.commands"  # custom.ENTRY_POINT_GROUP (custom imports importlib.metadata)
# the variables Policy.from_env reads
POLICY_ENV = ("SANDBASH_ALLOWED_COMMANDS", "SANDBASH_DENIED_COMMANDS", "SANDBASH_ALLOWED_PATHS", "SANDBASH_MODE")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sandbash",
        description="Run bash scripts in a sandbox: a bash interpreter in Python over a virtual filesystem.",
    )
    p.add_argument("-c", dest="command", metavar="SCRIPT", help="run SCRIPT ($0 and $1... follow)")
    p.add_argument("-s", dest="stdin_script", action="store_true", help="read the script from standard input")
    p.add_argument("--limits", default="default", help="limits profile: default, hardened, generous")
    p.add_argument("--timeout", type=float, help="wall-clock limit in seconds")
    p.add_argument("--cwd", default="/home/user", help="working directory inside the sandbox")
    p.add_argument("--root", metavar="DIR", help="root filesystem: copy-on-write view of host DIR (never written)")
    p.add_argument("--store", metavar="FILE", help="root filesystem kept in SQLite FILE (persists between runs)")
    p.add_argument("--mount", metavar="HOSTDIR:/PATH[:ro|:rw|:cow]", action="append", default=[],
                   help="mount host HOSTDIR at PATH: ro read-only, rw read-write on the host, cow (default) "
                        "copy-on-write in memory; repeatable")
    p.add_argument("--json", action="store_true",
                   help="print the agent tool's JSON result (stdout, stderr, exit_code, result_json, ...)")
    p.add_argument("--allow-url", metavar="PREFIX", action="append", default=[],
                   help="let curl and wget reach URLs under PREFIX (repeatable); the network is off otherwise")
    p.add_argument("--policy", metavar="FILE",
                   help="policy TOML file (commands allow/deny, path grants, mode); SANDBASH_ALLOWED_COMMANDS, "
                        "SANDBASH_DENIED_COMMANDS, SANDBASH_ALLOWED_PATHS and SANDBASH_MODE override its parts")
    p.add_argument("--check", action="store_true",
                   help="do not run: check the script against the policy statically (exit 0 allowed, 1 denied, "
                        "3 indeterminate; the report as JSON with --json)")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="script file and/or arguments")
    return p


def parse_mount(spec: str) -> tuple[str, str, str]:
    """'HOST:/path[:mode]' -> (host, path, mode); the host part may contain ':'."""
    mode = "cow"
    head, sep, tail = spec.rpartition(":")
    if sep and tail in MOUNT_MODES:
        spec, mode = head, tail
    host, sep, path = spec.rpartition(":")
    if not sep or not host or not path.startswith("/"):
        raise ValueError(f"invalid mount '{spec}': expected HOSTDIR:/PATH[:ro|:rw|:cow]")
    return host, path, mode


def build_filesystem(root: str | None, store: str | None, mounts: Sequence[str], limits: Limits) -> Backend | None:
    """The backend the options ask for (None: the default memory filesystem).
    Raises ValueError or FsError with a message for the user."""
    def quota() -> DiskQuota:
        return DiskQuota(limits.max_filesystem_bytes, limits.max_filesystem_files)

    if root and store:
        raise ValueError("--root and --store cannot be used together")
    base: Backend | None = None
    if root:
        from .vfs.overlay import OverlayFs

        base = OverlayFs(root, quota=quota())
    elif store:
        from .vfs.sqlite import SqliteFs

        base = SqliteFs(store, quota=quota())
    if not mounts:
        return base
    fs = MountFs(base if base is not None else MemoryFs(quota=quota()))
    for spec in mounts:
        host, path, mode = parse_mount(spec)
        backend: Backend
        if mode == "rw":
            from .vfs.readwrite import ReadWriteFs

            backend = ReadWriteFs(host, quota=quota())
        else:
            from .vfs.overlay import OverlayFs

            backend = OverlayFs(host, read_only=mode == "ro", quota=quota())
        fs.mount(path, backend, read_only=mode == "ro")
    return fs


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["mcp"]:
        from .mcp_server import main as mcp_main

        return mcp_main(argv[1:], read_text=_read_host_text)
    args = _parser().parse_args(argv)
    try:
        limits = Limits.profile(args.limits)
        if args.timeout is not None:
            limits = limits.with_overrides(timeout=args.timeout)
    except ValueError as e:
        sys.stderr.write(f"sandbash: {e}\n")
        return 2
    try:
        fs = build_filesystem(args.root, args.store, args.mount, limits)
    except (ValueError, FsError) as e:
        sys.stderr.write(f"sandbash: {e}\n")
        return 2
    rest = list(args.rest)
    out = sys.stdout.buffer
    err = sys.stderr.buffer

    def write_out(data: bytes) -> None:
        out.write(data)
        out.flush()

    def write_err(data: bytes) -> None:
        err.write(data)
        err.flush()

    try:
        network = _network(args.allow_url)
    except ValueError as e:  # a malformed prefix
        sys.stderr.write(f"sandbash: --allow-url: {e}\n")
        return 2
    try:
        policy = _policy(args.policy)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"sandbash: --policy: {e}\n")
        return 2
    # scanning the installed packages with importlib.metadata costs ~40 ms: only when one declares commands
    make = new_bash if _plugins_declared() else Bash
    bash = make(limits=limits, cwd=args.cwd, fs=fs, network=network, policy=policy)
    if args.command is None and not args.stdin_script and not rest and sys.stdin.isatty():
        from .repl import interact

        return interact(bash, out, err)
    mode = "c"
    arg0 = "bash"
    stdin: bytes | HostInput = b""
    if args.command is not None:
        script = args.command
        if rest:
            arg0, rest = rest[0], rest[1:]
    elif args.stdin_script or not rest:
        script = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
        mode = "s"
    else:
        path = rest[0]
        try:
            with open(path, "rb") as f:  # the script file is the one host read the user asked for
                script = f.read().decode("utf-8", "surrogateescape")
        except OSError as e:
            err.write(f"sandbash: {path}: {e.strerror}\n".encode())
            return 127
        arg0, rest = path, rest[1:]
        mode = "file"
    if mode != "s" and sys.stdin is not None:
        try:
            stdin = HostInput(sys.stdin.fileno())  # like bash: the script's commands read our stdin
        except (OSError, ValueError):
            pass
    if args.check:
        report = bash.check(script)
        sys.stdout.write(report.to_json(indent=2) + "\n" if args.json else report.to_text())
        return report.exit_code
    if args.json:
        return _run_json(bash, script, mode=mode, arg0=arg0, positional=rest)
    try:
        result = bash.exec(script, stdin=stdin, on_stdout=write_out, on_stderr=write_err, keep_output=False,
                           mode=mode, arg0=arg0, positional=rest)
    except ExecutionLimitError as e:
        write_err(f"bash: {e.message}\n".encode())
        return e.result.exit_code
    except ExecutionCancelled:
        return 130
    return result.exit_code


def _plugins_declared(group: str = ENTRY_POINT_GROUP) -> bool:
    """False only when no installed distribution can declare commands: no `entry_points.txt` in a
    `*.dist-info`/`*.egg-info` directory of a `sys.path` directory names the `[group]` section
    (importlib.metadata reads the same files). Whatever this quick look does not cover (a zip or
    an egg on the path, another distribution finder) answers True and importlib.metadata decides."""
    from importlib.machinery import PathFinder

    if any(f is not PathFinder and hasattr(f, "find_distributions") for f in sys.meta_path):
        return True
    header = f"[{group}]".encode()
    for entry in sys.path:
        d = entry or "."
        if not os.path.isdir(d):
            if os.path.exists(d):  # a zip file on the path
                return True
            continue
        if d.lower().endswith(".egg"):
            return True
        try:
            with os.scandir(d) as it:
                infos = [e.path for e in it if e.name.lower().endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue
        for info in infos:
            try:
                with open(os.path.join(info, "entry_points.txt"), "rb") as f:
                    if header in f.read():
                        return True
            except OSError:
                continue
    return False


def _network(prefixes: Sequence[str]) -> NetworkConfig | None:
    if not prefixes:
        return None
    from .net import NetworkConfig

    return NetworkConfig(allowed_url_prefixes=tuple(prefixes))


def _run_json(bash: Bash, script: str, **kw: Any) -> int:
    """`--json`: the agent tool's output contract on stdout; the script's status as ours."""
    import json

    from .tool import shape_run

    shaped = shape_run(lambda: bash.exec(script, **kw))
    sys.stdout.write(json.dumps(shaped.to_dict(), ensure_ascii=False) + "\n")
    return shaped.exit_code


def _policy(path: str | None) -> Policy | None:
    """The policy from --policy FILE, then the SANDBASH_* environment variables over it."""
    environ = os.environ  # the CLI's own environment (cli.py is a host-facing owner of os)
    if not path and not any(name in environ for name in POLICY_ENV):
        return None  # as Policy.from_env answers, without importing the policy module
    from .policy import Policy

    base = Policy.from_toml(_read_host_text(path)) if path else None
    return Policy.from_env(environ, base)


def _read_host_text(path: str) -> str:
    """A configuration file the operator named (the MCP server's TOML)."""
    with open(path, encoding="utf-8") as f:
        return f.read()


if __name__ == "__main__":
    raise SystemExit(main())
