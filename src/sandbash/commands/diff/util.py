"""Usage errors the diffutils way: the `Try '... --help'` line carries the program name too."""

from __future__ import annotations

from ..context import CommandExit, Ctx
from ..options import CommandSpec, HelpRequested, Parsed, UsageError, parse_args


def usage(ctx: Ctx, message: str, status: int = 2) -> CommandExit:
    ctx.stderr.write(
        f"{ctx.prog}: {message}\n{ctx.prog}: Try '{ctx.help_prog} --help' for more information.\n".encode(
            "utf-8", "surrogateescape"
        )
    )
    return CommandExit(status)


def parse(ctx: Ctx, spec: CommandSpec) -> tuple[Parsed, list[str]]:
    try:
        return parse_args(spec, ctx.args)
    except UsageError as e:
        raise usage(ctx, e.message, spec.usage_status)
    except HelpRequested as h:
        ctx.stdout.write(h.text.encode())
        raise CommandExit(0)
