"""echo's argument rules (bash builtin and /bin/echo agree on these)."""

from __future__ import annotations

from ..syntax.escapes import decode_escapes, locale_escapes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def echo_text(
    args: list[str], xpg: bool = False, options: bool = True, byte_locale: Callable[[], bool] | None = None
) -> tuple[str, bool]:
    """bash's echo: leading -n/-e/-E options (bundled, unless `options` is False: bash's posix
    mode with xpg_echo), the rest joined; `byte_locale` answers whether the locale is C/POSIX
    (asked only for a \\u or \\U escape, which that locale writes back: codepoint)."""
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
        text, stopped = decode_escapes(
            text, "echo", None, byte_locale is not None and locale_escapes(text) and byte_locale()
        )
        if stopped:
            return text, False
    return (text + "\n" if newline else text), False
