"""echo's argument rules (bash builtin and /bin/echo agree on these)."""

from __future__ import annotations

from ..syntax.escapes import decode_escapes


def echo_text(args: list[str], xpg: bool = False, options: bool = True) -> tuple[str, bool]:
    """bash's echo: leading -n/-e/-E options (bundled, unless `options` is False: bash's posix
    mode with xpg_echo), the rest joined."""
    newline = True
    escapes = xpg
    i = 0
    while options and i < len(args):
        a = args[i]
        if len(a) < 2 or a[0] != "-" or any(c not in "neE" for c in a[1:]):
            break
        for c in a[1:]:
            if c == "n":
                newline = False
            elif c == "e":
                escapes = True
            else:
                escapes = False
        i += 1
    text = " ".join(args[i:])
    if escapes:
        text, stopped = decode_escapes(text, "echo")
        if stopped:
            return text, False
    return (text + "\n" if newline else text), False
