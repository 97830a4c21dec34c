"""awk: POSIX awk with the gawk extensions scripts use, compiled to Python.

The program is tokenized (lexer), parsed (parser), its arrays inferred
(analyze), compiled to Python source (codegen, gen_builtins, gen_stmt),
executed once into a namespace, and run against the runtime (runtime,
interp, records, io, fmt, builtins, sorting, timefmt). Regexes go through
the adapter in regex.py.
"""

from __future__ import annotations

from ..context import Ctx
from ..record import Effects, declare
from .cli import run


@declare("awk", spells="awk", effects=Effects.AWK)
def cmd_awk(ctx: Ctx) -> int:
    return run(ctx, "awk")


@declare("gawk", spells="awk", effects=Effects.AWK)
def cmd_gawk(ctx: Ctx) -> int:
    return run(ctx, "gawk")


@declare("mawk", spells="awk", effects=Effects.AWK)
def cmd_mawk(ctx: Ctx) -> int:
    return run(ctx, "mawk")


@declare("nawk", spells="awk", effects=Effects.AWK)
def cmd_nawk(ctx: Ctx) -> int:
    return run(ctx, "nawk")
