"""Shared pieces of the host-mode commands: the HostAccess of the run, rshell-style flag
parsing (pflag's messages: `unknown shorthand flag: 'K' in -K`), and errors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..context import CommandExit, Ctx

if TYPE_CHECKING:
    from ...host.elevation import Elevate
    from ...host.procfs import ProcFs
    from ...host.services import Pinger, ServiceBackend


class Host(Protocol):
    """What the commands use of the run's HostAccess (sandbash.host.access, a layer above)."""

    @property
    def procfs(self) -> ProcFs: ...

    @property
    def service_backend(self) -> ServiceBackend | None: ...

    @property
    def elevate(self) -> Elevate | None: ...

    @property
    def pinger(self) -> Pinger | None: ...

    def roots(self) -> list[str]: ...


def host(ctx: Ctx) -> Host:
    """The run's HostAccess (the commands exist only in host mode; a direct call without one
    fails cleanly)."""
    h = ctx.extra.get("host")
    if h is None:
        raise fail(ctx, "host mode is not enabled")
    return h  # type: ignore[no-any-return]


def procfs(ctx: Ctx) -> ProcFs:
    from ...host.procfs import HostUnavailable

    fs = host(ctx).procfs
    try:
        fs.require()
    except HostUnavailable as e:
        raise fail(ctx, str(e)) from None
    return fs


def fail(ctx: Ctx, message: str, status: int = 1) -> CommandExit:
    ctx.error(message)
    return CommandExit(status)


@dataclass(frozen=True)
class Flag:
    short: str | None
    long: str
    value: bool = False  # takes a value


@dataclass
class Flags:
    values: dict[str, Any] = field(default_factory=dict)
    operands: list[str] = field(default_factory=list)

    def on(self, name: str) -> bool:
        return bool(self.values.get(name))

    def get(self, name: str) -> str | None:
        v = self.values.get(name)
        return v if isinstance(v, str) else None


def parse_flags(
    ctx: Ctx,
    args: Sequence[str],
    flags: Sequence[Flag],
    *,
    interspersed: bool = True,
    usage: str | None = None,
    operands: bool = True,
) -> Flags:
    """Parse as Go's pflag does (rshell's commands): bundled shorts, `-pVALUE`, `--long=v`,
    `--`; an unknown flag is `NAME: unknown shorthand flag: 'x' in -x` / `unknown flag: --x`,
    status 1. A flag not declared is refused whatever it would do on a real host.
    The prologue every host command shares: with `usage`, a `help` flag prints it and ends the
    command with status 0; with `operands=False`, an operand is `extra operand 'X'` (status 1)."""
    out = _parse(ctx, args, flags, interspersed)
    if usage is not None and out.on("help"):
        ctx.out(usage)
        raise CommandExit(0)
    if not operands and out.operands:
        raise fail(ctx, f"extra operand '{out.operands[0]}'")
    return out


def _parse(ctx: Ctx, args: Sequence[str], flags: Sequence[Flag], interspersed: bool) -> Flags:
    by_short = {f.short: f for f in flags if f.short}
    by_long = {f.long: f for f in flags}
    out = Flags()
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            out.operands.extend(args[i:])
            break
        if a.startswith("--") and len(a) > 2:
            name, eq, val = a[2:].partition("=")
            f = by_long.get(name)
            if f is None:
                raise fail(ctx, f"unknown flag: --{name}")
            if f.value:
                if not eq:
                    val, i = _next_value(ctx, args, i, f"--{name}")
                out.values[f.long] = val
            else:
                out.values[f.long] = val.lower() not in ("false", "0") if eq else True
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                c = a[j]
                f = by_short.get(c)
                if f is None:
                    raise fail(ctx, f"unknown shorthand flag: '{c}' in {a}")
                if f.value:
                    val = a[j + 1 :]
                    if not val:
                        val, i = _next_value(ctx, args, i, f"'{c}' in -{c}")
                    out.values[f.long] = val
                    break
                out.values[f.long] = True
                j += 1
            continue
        out.operands.append(a)
        if not interspersed:
            out.operands.extend(args[i:])
            break
    return out


def _next_value(ctx: Ctx, args: Sequence[str], i: int, flag: str) -> tuple[str, int]:
    """A flag's value in the next word (and the index after it); pflag's error where there is none."""
    if i >= len(args):
        raise fail(ctx, f"flag needs an argument: {flag}")
    return args[i], i + 1


def help_text(usage: str, about: str, flags: Sequence[Flag], notes: Mapping[str, str]) -> str:
    """A --help page listing every flag with its note."""
    lines = [f"Usage: {usage}", about, ""]
    for f in flags:
        head = (f"  -{f.short}, " if f.short else "      ") + f"--{f.long}" + (" VALUE" if f.value else "")
        lines.append(f"{head:<28}{notes.get(f.long, '')}")
    return "\n".join(lines) + "\n"
