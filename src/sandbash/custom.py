"""Custom commands from the embedding program.

A custom command is a `CommandRecord`, the same record every built-in command is (commands/record.py),
given to one sandbox: `Bash(commands=[...])`. It runs exactly like a built-in: the executor
dispatches it after functions and builtins, through the same policy gate and limits, with the
same `Ctx` (stdin/stdout/stderr streams, `ctx.fs`, `ctx.env`, `ctx.run()` for sub-commands,
`ctx.checkpoint()`). Two ways to write one, both adapted to the record by `adapt()`:

    @command("shout", effects=Effects.READS)       # fn(args, ctx) -> int | str | bytes | ExecResult | None
    def shout(args, ctx):
        return ctx.stdin.read().upper()

    class Greet(Command):                           # the same, as a class
        name = "greet"
        effects = Effects.NONE
        def execute(self, args, ctx):
            return ExecResult(f"hello {' '.join(args)}\\n".encode(), b"", 0)

    bash = Bash(commands=[shout, Greet()])

`effects` tells the static check what the command does with files (`Effects.NONE`, `READS`,
`OPAQUE`, ...). A command without it runs in a sandbox without a policy, but under a policy it is
refused (status 126), and `bash.check()` reports it as denied: it cannot be checked.

Installed packages can provide commands through the entry-point group `sandbash.commands` (each
entry a `Command` subclass or instance, or a function decorated with `@command`);
`load_entry_points()` returns their records, and `Sandbox.create()`, `BashTool`, the CLI and the MCP
server pass them to their `Bash` (scanning the installed packages costs a fraction of a second, so
`Bash()` does not).
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Union

from .commands.context import CommandFn, Ctx
from .commands.options import CommandSpec
from .commands.record import CommandRecord, Effects
from .result import ExecResult

__all__ = ["Command", "CommandRecord", "Effects", "adapt", "command", "deliver", "load_entry_points"]

ENTRY_POINT_GROUP = "sandbash.commands"
log = logging.getLogger(__name__)

# what a handler may return: a full result, a status, text for stdout, or nothing (status 0)
Outcome = Union[ExecResult, int, str, bytes, None]
Handler = Callable[[list[str], Ctx], Outcome]


def adapt(handler: Handler) -> CommandFn:
    """The simple callable form `handler(args, ctx) -> Outcome` as a command function `fn(ctx) -> status`."""

    def run(ctx: Ctx) -> int:
        return deliver(handler(list(ctx.args), ctx), ctx)

    run.__name__ = getattr(handler, "__name__", "command")
    run.__qualname__ = getattr(handler, "__qualname__", run.__name__)
    run.__doc__ = handler.__doc__
    return run


def command(
    name: str | None = None,
    *,
    effects: Effects | None = None,
    summary: str = "",
    spec: CommandSpec | None = None,
    aliases: tuple[str, ...] = (),
) -> Callable[[Handler], CommandRecord]:
    """Decorator over `def fn(args, ctx) -> ...`: the command's record, to pass to `Bash(commands=[...])`.
    `name` defaults to the function's name (`_` as `-`); `aliases` are more names for it."""

    def wrap(fn: Handler) -> CommandRecord:
        doc = summary or (fn.__doc__ or "").strip().split("\n")[0]
        return CommandRecord(
            (name or fn.__name__.replace("_", "-"), *aliases), adapt(fn), effects, spec, summary=doc
        )

    return wrap


class Command(ABC):
    """The class form: subclass, set `name` (and `effects`), implement `execute(args, ctx)`."""

    name: str = ""
    summary: str = ""
    effects: Effects | None = None

    @abstractmethod
    def execute(self, args: list[str], ctx: Ctx) -> Outcome:
        """`args` are the arguments after the command name."""

    def as_record(self) -> CommandRecord:
        """This command's record (what `Bash(commands=...)` keeps)."""
        return CommandRecord((self.name,), adapt(self.execute), self.effects, summary=self.summary)


def deliver(outcome: Outcome, ctx: Ctx) -> int:
    """Write what a handler returned to the command's streams; the status."""
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


def as_record(obj: object) -> CommandRecord:
    """A record from what an embedder or a plugin hands over: a record (`@command`), a `Command`
    instance or a `Command` subclass."""
    if isinstance(obj, type) and issubclass(obj, Command):
        obj = obj()
    if isinstance(obj, Command):
        return obj.as_record()
    if isinstance(obj, CommandRecord):
        return obj
    raise TypeError(f"not a sandbash command: {obj!r} (use sandbash.custom.command or Command)")


_loaded: list[CommandRecord] | None = None
_lock = threading.Lock()


def load_entry_points(group: str = ENTRY_POINT_GROUP, *, force: bool = False) -> list[CommandRecord]:
    """The commands installed packages declare under `group` (read once per process unless `force`).
    A broken plugin is logged and skipped, so one bad package cannot stop every sandbox."""
    global _loaded
    with _lock:
        if _loaded is not None and not force:
            return list(_loaded)
        records: list[CommandRecord] = []
        for ep in entry_points(group=group):
            try:
                obj = ep.load()
                if isinstance(obj, Command) and not obj.name:
                    obj.name = ep.name
                records.append(as_record(obj))
            except Exception as e:  # a plugin's own bug: report it, keep the sandbox usable
                log.warning("sandbash: cannot load command %r from %s: %s", ep.name, ep.value, e)
        _loaded = records
        return list(records)
