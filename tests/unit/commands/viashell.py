"""run_command's twin for commands that start programs (env, xargs, timeout,
find -exec, which ...): the same fresh filesystem and environment, but the
command line goes through the interpreter, so ctx.find_program and
ctx.run(cwd=, timeout=) behave as in a real run."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence

from sandbash.api import Bash
from sandbash.commands.record import CommandRecord
from sandbash.limits import Limits
from sandbash.testing import CommandResult, make_vfs
from sandbash.vfs.facade import Vfs

DEFAULT_ENV = {"HOME": "/home/user", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}


def run_via_shell(
    argv: Sequence[str],
    stdin: bytes = b"",
    files: Mapping[str, bytes | str] | None = None,
    cwd: str = "/home/user",
    env: Mapping[str, str] | None = None,
    vfs: Vfs | None = None,
    limits: Limits | None = None,
    commands: Iterable[CommandRecord] = (),
) -> CommandResult:
    if vfs is None:
        vfs = make_vfs(files, cwd)
    environment = dict(DEFAULT_ENV if env is None else env)
    bash = Bash(fs=vfs, env=environment, cwd=cwd, limits=limits, commands=commands)
    r = bash.exec(" ".join(shlex.quote(a) for a in argv), stdin=stdin, env=environment, replace_env=True)
    return CommandResult(r.stdout_bytes, r.stderr_bytes, r.exit_code, vfs)
