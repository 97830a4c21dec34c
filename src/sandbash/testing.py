"""Helpers for tests and the shared harnesses (conformance, cmdconf, bench)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .commands.invoke import Capabilities, invoke
from .commands.record import CommandRecord
from .commands.registry import CommandTable
from .identity import Identity
from .limits import Budget, Limits
from .stdio.streams import BufferWriter, BytesReader, Stream
from .vfs.bindir import COMMAND_DIRS
from .vfs.facade import Vfs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .net.config import NetworkConfig


@dataclass
class CommandResult:
    stdout: bytes
    stderr: bytes
    status: int
    vfs: Vfs


def make_vfs(files: Mapping[str, bytes | str] | None = None, cwd: str = "/home/user") -> Vfs:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/tmp", "/home", cwd):
        view.mkdir(d, parents=True)
    view.chmod("/tmp", 0o1777)
    for path, content in (files or {}).items():
        full = view.abspath(path) if path.startswith("/") else cwd.rstrip("/") + "/" + path
        parent = full.rsplit("/", 1)[0] or "/"
        view.mkdir(parent, parents=True)
        data = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content
        view.write_bytes(full, data)
    return vfs


def run_command(
    argv: Sequence[str],
    stdin: bytes = b"",
    files: Mapping[str, bytes | str] | None = None,
    cwd: str = "/home/user",
    env: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    vfs: Vfs | None = None,
    network: NetworkConfig | None = None,
    commands: Iterable[CommandRecord] = (),
    identity: Identity | None = None,
) -> CommandResult:
    """Run one command directly (no shell) on a fresh memory filesystem, through the same
    `invoke` the executor uses (the same Ctx, the same exception mapping).

    Sub-commands (xargs, find -exec) run other commands of the table directly. `network` is the
    NetworkConfig curl and wget use; `commands` are custom commands beside the built-ins; `identity` the
    virtual user and host (default: Identity())."""
    if vfs is None:
        vfs = make_vfs(files, cwd)
    budget = Budget(limits or Limits())
    environment = (
        dict(env) if env is not None else {"HOME": "/home/user", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    )
    out = BufferWriter()
    err = BufferWriter()
    table = CommandTable(commands)

    def runner(
        sub: Sequence[str],
        sin: Stream,
        sout: Stream,
        serr: Stream,
        senv: Mapping[str, str] | None,
        scwd: str | None = None,
        stimeout: float | None = None,
    ) -> int:
        return _run(list(sub), sin, sout, serr, senv or environment)

    def finder(name: str, path: str | None = None, refusal: bool = False) -> str | None:
        # every command of the table is a program in /usr/bin, as in a sandbox's default PATH
        if refusal:
            return None  # (no policy here)
        return f"/usr/bin/{name}" if "/" not in name and table.known(name) else None

    caps = Capabilities(budget, runner, finder=finder, network=network, identity=identity)

    def _run(args: list[str], sin: Stream, sout: Stream, serr: Stream, senv: Mapping[str, str]) -> int:
        directory, _, base = args[0].rpartition("/")
        # (/bin/NAME and /usr/bin/NAME are the command, as in the shell: `diff -l` runs /usr/bin/pr)
        record = table.lookup(base if directory in COMMAND_DIRS else args[0])
        if record is None:
            serr.write(f"{args[0]}: command not found\n".encode())
            return 127
        return invoke(record, args, {0: sin, 1: sout, 2: serr}, vfs.view(cwd), senv, caps)

    status = _run(list(argv), BytesReader(stdin), out, err, environment)
    return CommandResult(out.getvalue(), err.getvalue(), status, vfs)


def run_case(script: str, cwd: str, env: dict[str, str]) -> tuple[bytes, int]:
    """For the shared harnesses: run `script` as bash reads a script on stdin,
    in a fresh sandbox whose cwd is `cwd` and whose environment is exactly `env`.
    Returns (stdout, status): the one shape every harness accepts."""
    from .api import Bash
    from .errors import ExecutionCancelled, ExecutionLimitError

    bash = Bash(env=env, cwd=cwd)
    try:
        result = bash.exec(script, env=env, replace_env=True, mode="s")
    except (ExecutionLimitError, ExecutionCancelled) as e:
        return e.result.stdout_bytes, e.result.exit_code
    return result.stdout_bytes, result.exit_code
