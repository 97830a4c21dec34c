"""envsubst (GNU gettext): $NAME and ${NAME} in the input replaced by environment values."""

from __future__ import annotations

from collections.abc import Callable

from ...stdio.streams import StreamReadError
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from ..textbasic.common import read_chunks

SPEC = CommandSpec(
    name="envsubst",
    usage="[OPTION] [SHELL-FORMAT]",
    summary="Substitutes the values of environment variables.",
    opts=(Opt("v", "variables", help="output the variables occurring in SHELL-FORMAT"),),
)

_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_REST = _FIRST | frozenset("0123456789")


def _references(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each $NAME or ${NAME} in `text`, as gettext finds them: a `$` before
    anything else (a digit, `{` without a name and `}`, another `$`) stays as it is."""
    found: list[tuple[int, int, str]] = []
    n = len(text)
    i = text.find("$")
    while i >= 0:
        j = i + 1
        braced = j < n and text[j] == "{"
        j += braced
        k = j
        if k < n and text[k] in _FIRST:
            k += 1
            while k < n and text[k] in _REST:
                k += 1
            if not braced:
                found.append((i, k, text[j:k]))
            elif k < n and text[k] == "}":
                found.append((i, k + 1, text[j:k]))
        i = text.find("$", found[-1][1] if found and found[-1][0] == i else i + 1)
    return found


@declare("envsubst", spec=SPEC, effects=Effects.NONE)
def cmd_envsubst(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC)
    if len(operands) > 1:
        ctx.error("too many arguments")
        raise CommandExit(1)
    if opts.has("variables"):
        if not operands:
            ctx.error("missing arguments")
            raise CommandExit(1)
        ctx.out("".join(name + "\n" for _, _, name in _references(operands[0])))
        return 0
    only = {name for _, _, name in _references(operands[0])} if operands else None
    env = ctx.env

    def substitute(line: str) -> str:
        out: list[str] = []
        at = 0
        for start, end, name in _references(line):
            if only is None or name in only:
                out.append(line[at:start])
                out.append(env.get(name, ""))
                at = end
        out.append(line[at:])
        return "".join(out)

    try:
        _substitute_stream(ctx, substitute)
    except StreamReadError as e:  # `envsubst < dir`
        ctx.error(f'error while reading "standard input": {e.strerror}')
        return 1
    return 0


def _substitute_stream(ctx: Ctx, substitute: Callable[[str], str]) -> None:
    # references never span a line: the input is substituted a line at a time, as it comes
    with ctx.hold_memory() as mem:
        pending = b""
        for chunk in read_chunks(ctx, ctx.stdin):
            mem.set(len(pending) + len(chunk))  # (what is held: a line not ended yet, and this)
            data = pending + chunk
            cut = data.rfind(b"\n") + 1
            pending = data[cut:]
            if cut:
                ctx.out(substitute(data[:cut].decode("utf-8", "surrogateescape")))
        if pending:
            ctx.out(substitute(pending.decode("utf-8", "surrogateescape")))
