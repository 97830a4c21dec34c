"""Pieces shared by the shell utilities (and by xargs, bc, date, archives).

The sandbox identity lives here once: every command that reports a user,
host or kernel reads `identity(ctx)`: the defaults below under the run's
`ctx.identity` (the embedder's `Bash(identity=...)`; host mode adds the host's uname).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..context import CommandExit, Ctx
from ..gnuquote import quote as quote  # re-exported: the one GNU-quoting helper (as fsutil's)
from ..options import CommandSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What the sandbox says about itself; never the host's values.
DEFAULT_IDENTITY: dict[str, Any] = {
    "user": "user",
    "uid": 1000,
    "gid": 1000,
    "group": "user",
    "groups": [(1000, "user")],
    "home": "/home/user",
    "hostname": "sandbox",
    "kernel": "Linux",
    "release": "6.1.0",
    "version": "#1 SMP PREEMPT_DYNAMIC Sun Jan  1 00:00:00 UTC 2023",
    "machine": "x86_64",
    "os": "GNU/Linux",
    "nproc": 1,
}

# Accounts the sandbox knows, for `id NAME` and `groups NAME`.
ACCOUNTS: dict[str, tuple[int, int, list[tuple[int, str]]]] = {
    "root": (0, 0, [(0, "root")]),
}


def identity(ctx: Ctx) -> dict[str, Any]:
    """The defaults, overridden by the fields `ctx.identity` has (an Identity; host mode's
    HostIdentity adds the kernel, machine and processor count)."""
    ident = dict(DEFAULT_IDENTITY)
    values = {k: getattr(ctx.identity, k) for k in DEFAULT_IDENTITY if hasattr(ctx.identity, k)}
    ident.update(values)
    if "groups" not in values and ("gid" in values or "group" in values):
        ident["groups"] = [(int(ident["gid"]), str(ident["group"]))]
    return ident


def accounts(ctx: Ctx) -> dict[str, tuple[int, int, list[tuple[int, str]]]]:
    ident = identity(ctx)
    table = dict(ACCOUNTS)
    table[str(ident["user"])] = (int(ident["uid"]), int(ident["gid"]), list(ident["groups"]))
    return table


def usage_fail(ctx: Ctx, spec: CommandSpec, message: str) -> CommandExit:
    """Print a GNU usage error (`NAME: message` + `Try ...`); return the exit to raise."""
    ctx.stderr.write(ctx.usage_text(spec, message, getopt=False).encode("utf-8", "surrogateescape"))
    return CommandExit(spec.usage_status)


def fail(ctx: Ctx, message: str, status: int = 1) -> CommandExit:
    ctx.error(message)
    return CommandExit(status)


# ------------------------------------------------------------ durations

_DURATION = re.compile(
    r"[ \t\n\v\f\r]*\+?((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
    r"(?:[pP][-+]?\d+)?|inf(?:inity)?)([smhd]?)",
    re.IGNORECASE,
)
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float | None:
    """`1.5`, `2m`, `1e3`, `0x10`, `inf`: seconds as a float, None if invalid (sleep, timeout)."""
    m = _DURATION.fullmatch(text)
    if m is None:
        return None
    num = m.group(1)
    if num[:2].lower() == "0x":
        value = float.fromhex(num)
    else:
        value = float(num)
    return value * _UNIT[m.group(2).lower()]


def wait(ctx: Ctx, seconds: float) -> None:
    """Block for `seconds` of real time in short slices, so the run's deadline
    (and any sub-deadline from `timeout`) and cancellation stop it promptly."""
    ctx.budget.sleep(seconds)


# ------------------------------------------------------------ finding and running programs


_EXECVP_PATH = "/bin:/usr/bin"  # glibc's search path for execvp without PATH


def program_at(ctx: Ctx, path: str, cwd: str | None = None) -> str | None:
    """`path` (a name with a slash) if exec could run it: the shell's own
    lookup (ctx.find_program) says it is there, and a file there must be
    executable (the shell would try any file and fail with EACCES).
    Relative names count from `cwd` when given (env -C, find -execdir)."""
    where = path if cwd is None or path.startswith("/") else cwd.rstrip("/") + "/" + path
    if ctx.find_program(where) is None:
        return None
    st = ctx.fs.try_stat(where)
    if st is not None and not st.is_program:
        return None
    return path


def _not_executable(ctx: Ctx, path: str) -> bool:
    """Whether a PATH search's answer is a file without execute permission (the shell's search
    falls back to one when no directory has an executable: Executor.find_command)."""
    st = ctx.fs.try_stat(path) if "/" in path else None
    return st is not None and not st.is_dir and not st.is_program


def run_program(
    ctx: Ctx,
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    stdin: Any = None,
    stdout: Any = None,
    stderr: Any = None,
    message: str = "{q}: {err}",
    cwd: str | None = None,
    timeout: float | None = None,
    shebang_hint: bool = False,
) -> int:
    """Run a program as exec would (env, nice, nohup, timeout, xargs, find
    -exec): through ctx.run, in `cwd` and within `timeout` seconds when given
    (CommandTimeout then). A name the shell cannot run as a program fails as
    the GNU tool reports it; `message` is its wording, with {q} the
    curly-quoted name, {a} the 'ascii-quoted' name, {n} the bare name and
    {err} the reason. `shebang_hint` (env): a missing name with a blank in it
    (`#!/usr/bin/env bash -e`, a CRLF file's `bash\r`) gets GNU's second line."""
    name = argv[0]
    where = name if cwd is None or name.startswith("/") else cwd.rstrip("/") + "/" + name
    search: str | None = None
    if "/" in name:
        found = program_at(ctx, name, cwd) is not None
    else:
        if env is not None and env.get("PATH") != ctx.env.get("PATH"):
            # the child's PATH decides (execvp's default search path when it has none)
            search = env.get("PATH", _EXECVP_PATH)
        path = ctx.find_program(name, search)
        # (the search found only a file without execute permission: execvp's EACCES)
        found = path is not None and not _not_executable(ctx, path)
    if not found:
        # a path the policy refused is execvp's EACCES (a PATH directory it may not search too)
        refused = ctx.program_refusal(where if "/" in name else name, search)
        if refused is not None:
            denied, err = True, refused
        else:
            denied = ctx.fs.try_stat(where) is not None if "/" in name else path is not None
            err = "Permission denied" if denied else "No such file or directory"
        ctx.error(message.format(q=quote(name), a=f"'{name}'", n=name, err=err))
        if shebang_hint and not denied and any(c in " \t\n\v\f\r" for c in name):
            ctx.error("use -[v]S to pass options in shebang lines")
        return 126 if denied else 127
    return ctx.run(list(argv), stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd, timeout=timeout)
