"""Usage errors the diffutils way (the `Try '... --help'` line carries the program name too), and
how diff names a file in the lines it makes of names."""

from __future__ import annotations

from ..context import CommandExit, Ctx
from ..gnuquote import C_ESCAPES
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


# the bytes diff writes as a C escape in a file name: the letter escapes, the quote and the
# backslash (any other byte below 0x20 or above 0x7f is an octal escape; DEL is written as it is)
_NAME_ESCAPES = {ord(ch): esc for ch, esc in C_ESCAPES.items()} | {34: '\\"', 92: "\\\\"}


def c_name(name: str) -> str:
    """A file name as diff writes it in a `diff -r` line, a -l page title and the ---/+++ lines
    (diffutils' c_escape): as it is, or in double quotes when it holds a space or a byte to escape
    (`"a b"`, `"a\\tb"`, `"\\303\\251"` in any locale)."""
    raw = name.encode("utf-8", "surrogateescape")
    if all(33 <= b <= 127 and b not in (34, 92) for b in raw):
        return name
    out = []
    for b in raw:
        esc = _NAME_ESCAPES.get(b)
        out.append(esc if esc is not None else chr(b) if 32 <= b <= 127 else f"\\{b:03o}")
    return '"' + "".join(out) + '"'
