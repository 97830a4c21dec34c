"""Standard modules Monty lacks, served from the host as Monty external modules.

Only pure functions over strings and numbers (no files, no processes, no callbacks into the
program): `string` (its constants and capwords), `textwrap`, `shlex` (split/quote/join) and
`statistics`. Arguments arrive as copies; their size is charged to the run's memory budget
while the host function works on them.
"""

from __future__ import annotations

import shlex
import statistics
import string
import textwrap
from collections.abc import Callable

from ..context import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_STRING_CONSTANTS = (
    "ascii_letters",
    "ascii_lowercase",
    "ascii_uppercase",
    "digits",
    "hexdigits",
    "octdigits",
    "punctuation",
    "printable",
    "whitespace",
)


def _size(value: object) -> int:
    if isinstance(value, str | bytes):
        return len(value) * 4
    if isinstance(value, list | tuple):
        return 64 * len(value) + sum(_size(v) for v in value[:1000])
    return 64


def _charged(ctx: Ctx, fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        ctx.checkpoint()
        with ctx.hold_memory() as mem:
            mem.charge(sum(_size(a) for a in args) + sum(_size(v) for v in kwargs.values()))
            return fn(*args, **kwargs)

    return call


def external_modules(pm: Any, ctx: Ctx) -> dict[str, Callable[[], Any]]:
    """name -> a factory of the ExternalModule (made when the program first imports it)."""

    def module(attrs: dict[str, Any]) -> Callable[[], Any]:
        return lambda: pm.ExternalModule(
            {k: _charged(ctx, v) if callable(v) else v for k, v in attrs.items()}
        )

    return {
        "string": module({**{n: getattr(string, n) for n in _STRING_CONSTANTS}, "capwords": string.capwords}),
        "textwrap": module(
            {
                "dedent": textwrap.dedent,
                "indent": textwrap.indent,
                "fill": textwrap.fill,
                "wrap": textwrap.wrap,
                "shorten": textwrap.shorten,
            }
        ),
        "shlex": module({"split": shlex.split, "quote": shlex.quote, "join": shlex.join}),
        "statistics": module(
            {
                n: getattr(statistics, n)
                for n in (
                    "mean",
                    "fmean",
                    "median",
                    "median_low",
                    "median_high",
                    "mode",
                    "multimode",
                    "stdev",
                    "pstdev",
                    "variance",
                    "pvariance",
                    "harmonic_mean",
                    "geometric_mean",
                    "quantiles",
                )
            }
        ),
    }
