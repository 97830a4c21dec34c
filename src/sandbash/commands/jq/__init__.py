"""jq: the command-line JSON processor (jq 1.7 language and options).

Modules: lexer/parser/nodes (syntax), compiler/filters/binding/assign (the
program as filter objects), builtins_* and jqlib (builtins), decode/encode/
numbers (JSON text), values (jq value semantics), cli/runner (the command).
"""

from __future__ import annotations

from ..context import Ctx
from ..record import Effects, WriteFailure, declare
from .cli import SPEC, UsageExit, parse_options
from .runner import Runner

WRITE_FAILURE = WriteFailure(status=2, at_exit="{name}: error: writing output failed: {err}\n")


@declare("jq", spec=SPEC, effects=Effects.JQ, write_failure=WRITE_FAILURE)
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


__all__ = ["cmd_jq"]
