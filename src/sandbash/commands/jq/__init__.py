"""jq: the command-line JSON processor (jq 1.7 language and options)."""

from __future__ import annotations

from typing import Any

from ..context import CommandExit, Ctx
from .cli import Options, UsageExit, parse_options
from .runner import Runner


def cmd_jq(ctx: Ctx) -> int:
    try:
        opts = parse_options(ctx.args)
    except UsageExit as e:
        if e.message:
            ctx.stderr.write(e.message.encode("utf-8", "surrogateescape"))
        if e.stdout:
            ctx.stdout.write(e.stdout.encode())
        return e.status
    return Runner(ctx, opts).main()


__all__ = ["CommandExit", "Options", "cmd_jq"]


def _unused(x: Any) -> Any:
    return x
