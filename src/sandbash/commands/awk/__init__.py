"""awk: POSIX awk with the gawk extensions scripts use, compiled to Python.

The program is tokenized (lexer), parsed (parser), its arrays inferred
(analyze), compiled to Python source (codegen, gen_builtins, gen_stmt),
executed once into a namespace, and run against the runtime (runtime,
interp, records, io, fmt, builtins, sorting, timefmt). Regexes go through
the adapter in regex.py.
"""

from __future__ import annotations

from ..context import Ctx
from ..record import Effects, WriteFailure, declare
from .cli import run

# gawk warns as it exits; a print whose buffer fails while it runs is fatal (status 2; gawk names the
# source line and record there too)
WRITE_FAILURE = WriteFailure(
    at_exit="{name}: warning: error writing standard output: {err}\n",
    in_flight='{name}: fatal: print to "standard output" failed: {err}\n',
    in_flight_status=2,
)


@declare("awk", spells="awk", effects=Effects.AWK, write_failure=WRITE_FAILURE)
def cmd_awk(ctx: Ctx) -> int:
    return run(ctx, "awk")


@declare("gawk", spells="awk", effects=Effects.AWK, write_failure=WRITE_FAILURE)
def cmd_gawk(ctx: Ctx) -> int:
    return run(ctx, "gawk")


@declare("mawk", spells="awk", effects=Effects.AWK)
def cmd_mawk(ctx: Ctx) -> int:
    return run(ctx, "mawk")


@declare("nawk", spells="awk", effects=Effects.AWK)
def cmd_nawk(ctx: Ctx) -> int:
    return run(ctx, "nawk")
