"""Custom commands from the embedding program.

A custom command is a `Command` subclass (or a function under `@command`)
that runs exactly like a built-in: the executor dispatches it after functions
and builtins, through the same policy gate and limits, with the same `Ctx`
(stdin/stdout/stderr streams, `ctx.fs`, `ctx.env`, `ctx.run()` for
sub-commands, `ctx.checkpoint()`).

    class Greet(Command):
        name = "greet"
        def execute(self, args, ctx):
            return ExecResult(f"hello {' '.join(args)}\\n".encode(), b"", 0)

    register_command(Greet())

Installed packages can provide commands through the entry-point group
`sandbash.commands` (each entry a `Command` subclass or instance, or a
function decorated with `@command`); `load_entry_points()` registers them,
once per process. `Sandbox.create()`, `BashTool`, the CLI and the MCP server
call it; a program using `Bash` directly calls it itself (scanning the
installed packages costs a fraction of a second, so `Bash()` does not).
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Union

from .api import ExecResult
from .commands import registry
from .commands.context import Ctx

ENTRY_POINT_GROUP = "sandbash.commands"
log = logging.getLogger(__name__)

# what execute() may return: a full result, a status, text for stdout, or nothing (status 0)
Outcome = Union[ExecResult, int, str, bytes, None]
Handler = Callable[[list[str], Ctx], Outcome]


class Command(ABC):
    """Subclass, set `name`, implement `execute(args, ctx)`."""

    name: str = ""
    summary: str = ""

    @abstractmethod
    def execute(self, args: list[str], ctx: Ctx) -> Outcome:
        """`args` are the arguments after the command name."""

    def __call__(self, ctx: Ctx) -> int:
        # the registry's calling convention: status from a Ctx
        return deliver(self.execute(list(ctx.args), ctx), ctx)


class FunctionCommand(Command):
    def __init__(self, name: str, fn: Handler, summary: str = "") -> None:
        self.name = name
        self.fn = fn
        self.summary = summary or (fn.__doc__ or "").strip().split("\n")[0]

    def execute(self, args: list[str], ctx: Ctx) -> Outcome:
        return self.fn(args, ctx)


def command(name: str | None = None, *, summary: str = "") -> Callable[[Handler], FunctionCommand]:
    """Decorator: `@command("greet")` over `def greet(args, ctx) -> ...`.
    The result is a `Command` to pass to `register_command`."""

    def wrap(fn: Handler) -> FunctionCommand:
        return FunctionCommand(name or fn.__name__.replace("_", "-"), fn, summary)

    return wrap


def deliver(outcome: Outcome, ctx: Ctx) -> int:
    """Write what `execute` returned to the command's streams; the status."""
    if outcome is None:
        return 0
    if isinstance(outcome, bool):  # a bool is an int: True must not mean status 1
        return 0 if outcome else 1
    if isinstance(outcome, int):
        return outcome & 0xFF
    if isinstance(outcome, str | bytes):
        ctx.out(outcome)
        return 0
    if outcome.stdout_bytes:
        ctx.stdout.write(outcome.stdout_bytes)
    if outcome.stderr_bytes:
        ctx.stderr.write(outcome.stderr_bytes)
    return outcome.exit_code & 0xFF


_SUMMARIES: dict[str, str] = {}


def register_command(cmd: Command | type[Command]) -> Command:
    """Make `cmd` available in every sandbox of this process (replacing a
    built-in of the same name). Returns the registered instance."""
    instance = cmd() if isinstance(cmd, type) else cmd
    if not isinstance(instance, Command):
        raise TypeError(f"not a sandbash Command: {cmd!r}")
    if not instance.name or any(c in instance.name for c in " \t\n/=$"):
        raise ValueError(f"invalid command name: {instance.name!r}")
    registry.register(instance.name, instance)
    _SUMMARIES[instance.name] = instance.summary
    return instance


def custom_summaries() -> dict[str, str]:
    """name -> one-line summary of the custom commands registered here."""
    return dict(_SUMMARIES)


_loaded = False
_lock = threading.Lock()


def load_entry_points(group: str = ENTRY_POINT_GROUP, *, force: bool = False) -> list[str]:
    """Register the commands installed packages declare under `group` (once
    per process unless `force`). A broken plugin is logged and skipped, so one
    bad package cannot stop every sandbox. Returns the names registered."""
    global _loaded
    with _lock:
        if _loaded and not force:
            return []
        _loaded = True
    names: list[str] = []
    for ep in entry_points(group=group):
        try:
            obj = ep.load()
            if isinstance(obj, type) and issubclass(obj, Command):
                obj = obj()
            if not isinstance(obj, Command):
                raise TypeError("entry point is not a sandbash Command")
            if not obj.name:
                obj.name = ep.name
            names.append(register_command(obj).name)
        except Exception as e:  # a plugin's own bug: report it, keep the sandbox usable
            log.warning("sandbash: cannot load command %r from %s: %s", ep.name, ep.value, e)
    return names
