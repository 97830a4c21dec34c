"""Pieces shared by the shell utilities (and by xargs, bc, date, archives).

The sandbox identity lives here once: every command that reports a user,
host or kernel reads `identity(ctx)`, so an embedding program can override
it through `ctx.extra["identity"]`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ...limits import LimitExceeded
from .. import registry
from ..context import CommandExit, Ctx
from ..fsutil import quote as quote  # re-exported: the one GNU-quoting helper
from ..options import CommandSpec, usage_message

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

# Where registered commands appear to live (Debian's merged /usr, as the executor
# resolves them), and the shells the executor runs itself.
COMMAND_DIRS = ("/usr/bin", "/bin")
SHELLS = ("bash", "sh")


def identity(ctx: Ctx) -> dict[str, Any]:
    """The defaults, overridden by ctx.extra["identity"] (a mapping or an object
    with the same attribute names, such as the interpreter's Identity)."""
    ident = dict(DEFAULT_IDENTITY)
    override = ctx.extra.get("identity")
    if isinstance(override, Mapping):
        values = dict(override)
    elif override is not None:
        values = {k: getattr(override, k) for k in DEFAULT_IDENTITY if hasattr(override, k)}
    else:
        values = {}
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
    ctx.stderr.write(usage_message(spec, message).encode("utf-8", "surrogateescape"))
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
    budget = ctx.budget
    end = time.monotonic() + seconds
    while True:
        budget.check_time()
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.05))


# ------------------------------------------------------------ finding and running programs


def _executable(ctx: Ctx, path: str) -> bool:
    st = ctx.fs.try_stat(path)
    return st is not None and st.is_file and bool(st.perm & 0o111)


def find_program(ctx: Ctx, name: str, every: bool = False, path: str | None = None) -> list[str]:
    """Where PATH lookup finds NAME: executable files on the virtual fs, and the
    registered commands, which appear in the usual bin directories."""
    if "/" in name:
        return [name] if _executable(ctx, name) else []
    found: list[str] = []
    search = ctx.env.get("PATH", "/usr/bin:/bin") if path is None else path
    builtin_cmd = registry.known(name) or name in SHELLS
    for d in search.split(":"):
        d = d or "."
        full = d.rstrip("/") + "/" + name if d != "/" else "/" + name
        if _executable(ctx, full) or (builtin_cmd and d.rstrip("/") in COMMAND_DIRS):
            if full not in found:
                found.append(full)
                if not every:
                    break
    return found


def run_program(
    ctx: Ctx,
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    stdin: Any = None,
    stdout: Any = None,
    stderr: Any = None,
    message: str = "{q}: {err}",
) -> int:
    """Run a program as exec would (env, nice, nohup, timeout, xargs). A name
    that is neither a registered command nor an executable on PATH fails as
    the GNU tool reports it; `message` is its wording, with {q} the curly-quoted
    name, {a} the 'ascii-quoted' name, {n} the bare name and {err} the reason."""
    name = argv[0]
    search = (env if env is not None else ctx.env).get("PATH", "/usr/bin:/bin")
    if not find_program(ctx, name, path=search):
        denied = "/" in name and ctx.fs.try_stat(name) is not None
        err = "Permission denied" if denied else "No such file or directory"
        ctx.error(message.format(q=quote(name), a=f"'{name}'", n=name, err=err))
        return 126 if denied else 127
    return ctx.run(list(argv), stdin=stdin, stdout=stdout, stderr=stderr, env=env)


class _ThreadDeadline(float):
    """A deadline that binds only the thread that set it (`timeout`'s own).

    Pipeline stages share one Budget, so lowering its deadline for everyone
    would stop `timeout`'s neighbours too (`timeout 1 yes | cat`). Budget code
    compares and subtracts `deadline` with floats; these operators give other
    threads the outer deadline instead."""

    outer: float
    thread: int

    def __new__(cls, value: float, outer: float) -> _ThreadDeadline:
        obj = super().__new__(cls, value)
        obj.outer = outer
        obj.thread = threading.get_ident()
        return obj

    def _value(self) -> float:
        return float(self) if threading.get_ident() == self.thread else self.outer

    # `now > deadline` and friends reach these reflected forms first (subclass of float)
    def __lt__(self, other: object) -> bool:
        return self._value() < other  # type: ignore[operator,no-any-return]

    def __le__(self, other: object) -> bool:
        return self._value() <= other  # type: ignore[operator,no-any-return]

    def __gt__(self, other: object) -> bool:
        return self._value() > other  # type: ignore[operator,no-any-return]

    def __ge__(self, other: object) -> bool:
        return self._value() >= other  # type: ignore[operator,no-any-return]

    def __sub__(self, other: float) -> float:  # type: ignore[override]
        return self._value() - other

    def __rsub__(self, other: float) -> float:  # type: ignore[override]
        return other - self._value()


def run_with_deadline(ctx: Ctx, argv: Sequence[str], seconds: float, message: str) -> tuple[int, bool]:
    """Run a program that must finish within `seconds`: (status, timed_out).

    The command interface has no per-command deadline yet, so this thread's
    view of the run's deadline is lowered for the duration (see
    _ThreadDeadline); a timeout that fires before the run's own deadline is
    taken as ours. Threads the command starts itself (its own pipelines)
    still see only the run's deadline."""
    budget = ctx.budget
    saved = budget.deadline
    mine = time.monotonic() + seconds
    if seconds <= 0 or not mine < saved:
        return run_program(ctx, argv, message=message), False
    budget.deadline = _ThreadDeadline(mine, saved)
    try:
        return run_program(ctx, argv, message=message), False
    except LimitExceeded as e:
        if e.limit != "timeout" or not time.monotonic() < saved:
            raise
        return 124, True
    finally:
        budget.deadline = saved
