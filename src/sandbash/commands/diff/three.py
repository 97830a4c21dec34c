"""diff3 and sdiff.

sdiff without -o is `diff -y` (the same layout and exit status); its
interactive merge (-o) needs a terminal, which a sandbox does not have, so it
is refused with a clear message. diff3 is not implemented: it says so and
exits 2 (GNU's status for trouble)."""

from __future__ import annotations

from ..context import Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .main import cmd_diff
from .util import parse

SDIFF_SPEC = CommandSpec(
    name="sdiff",
    usage="[OPTION]... FILE1 FILE2",
    summary="Side-by-side merge of differences between FILE1 and FILE2.",
    usage_status=2,
    opts=(
        Opt("o", "output", arg="required", metavar="FILE", help="(interactive merge: not supported)"),
        Opt("i", "ignore-case", help="consider upper- and lower-case to be the same"),
        Opt("E", "ignore-tab-expansion", help="ignore changes due to tab expansion"),
        Opt("Z", "ignore-trailing-space", help="ignore white space at line end"),
        Opt("b", "ignore-space-change", help="ignore changes in the amount of white space"),
        Opt("W", "ignore-all-space", help="ignore all white space"),
        Opt("B", "ignore-blank-lines", help="ignore changes whose lines are all blank"),
        Opt(
            "I",
            "ignore-matching-lines",
            arg="required",
            multi=True,
            metavar="RE",
            help="ignore matching lines",
        ),
        Opt(None, "strip-trailing-cr", help="strip trailing carriage return on input"),
        Opt("a", "text", help="treat all files as text"),
        Opt(
            "w", "width", arg="required", metavar="NUM", help="output at most NUM (default 130) print columns"
        ),
        Opt("l", "left-column", help="output only the left column of common lines"),
        Opt("s", "suppress-common-lines", help="do not output common lines"),
        Opt("t", "expand-tabs", help="expand tabs to spaces in output"),
        Opt(
            None,
            "tabsize",
            arg="required",
            metavar="NUM",
            help="tab stops at every NUM (default 8) print columns",
        ),
        Opt("d", "minimal", help="try hard to find a smaller set of changes"),
        Opt("H", "speed-large-files", help="(accepted)"),
    ),
)

_MAP = {
    "ignore_case": "-i",
    "ignore_tab_expansion": "-E",
    "ignore_trailing_space": "-Z",
    "ignore_space_change": "-b",
    "ignore_all_space": "-w",
    "ignore_blank_lines": "-B",
    "strip_trailing_cr": "--strip-trailing-cr",
    "text": "-a",
    "left_column": "--left-column",
    "suppress_common_lines": "--suppress-common-lines",
    "expand_tabs": "-t",
    "minimal": "-d",
}


@declare("sdiff", spec=SDIFF_SPEC, uses=("diff",), effects=Effects.READS)
def cmd_sdiff(ctx: Ctx) -> int:
    opts, files = parse(ctx, SDIFF_SPEC)
    if opts.get("output") is not None:
        ctx.error("interactive merging (-o) needs a terminal, which this sandbox does not have")
        return 2
    args = ["-y"]
    for key, value in opts.order:
        if key in _MAP:
            args.append(_MAP[key])
        elif key == "width":
            args += ["-W", value]
        elif key == "tabsize":
            args += ["--tabsize", value]
        elif key == "ignore_matching_lines":
            args += ["-I", value]
    sub = Ctx(
        "diff",
        args + ["--", *files],
        ctx.stdin,
        ctx.stdout,
        ctx.stderr,
        ctx.fs,
        ctx.env,
        ctx.budget,
        fds=ctx.fds,
        clock=ctx.clock,
        rng=ctx.rng,
    )
    sub.name = "sdiff"
    return cmd_diff(sub)


@declare("diff3", effects=Effects.READS)
def cmd_diff3(ctx: Ctx) -> int:
    if any(a.startswith("-") and a != "-" for a in ctx.args):
        parse(ctx, CommandSpec(name="diff3", usage_status=2))
    ctx.error("diff3 is not supported in this sandbox (compare pairs of files with diff instead)")
    return 2
