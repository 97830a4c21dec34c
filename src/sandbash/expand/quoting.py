"""Quoting of strings for reuse as shell input (@Q, printf %q, declare -p)."""

from __future__ import annotations

from ..syntax.escapes import single_quote as single_quote  # (one definition: syntax's printer uses it too)

_PRINTF_SPECIAL = frozenset(" \t\n'\"\\$`|&;()<>*?[]{}!^,")


def needs_ansi(s: str) -> bool:
    """Control characters or raw bytes that are no text: bash writes such a value as $'...'."""
    return any(ord(c) < 32 or ord(c) == 127 or 0xDC80 <= ord(c) <= 0xDCFF for c in s)


def ansi_c_quote(s: str) -> str:
    out = ["$'"]
    for c in s:
        o = ord(c)
        if c == "'":
            out.append("\\'")
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif c == "\x1b":
            out.append("\\E")
        elif c == "\a":
            out.append("\\a")
        elif c == "\b":
            out.append("\\b")
        elif c == "\f":
            out.append("\\f")
        elif c == "\v":
            out.append("\\v")
        elif 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\{o - 0xDC00:03o}")
        elif o < 32 or o == 127:
            out.append(f"\\{o:03o}")
        else:
            out.append(c)
    out.append("'")
    return "".join(out)


_SHELL_METAS = frozenset(" \t\n'\"\\|&;()<>!{}*[?]^$`")


def shell_metas(s: str) -> bool:
    """bash's sh_contains_shell_metas: a metacharacter, a leading `#`, or a `~` that tilde
    expansion would see; such a word needs quotes to be read back as itself."""
    return (
        s[:1] == "#"
        or any(c in _SHELL_METAS for c in s)
        or any(c == "~" and (i == 0 or s[i - 1] in "=:") for i, c in enumerate(s))
    )


def assoc_key(k: str) -> str:
    """An associative array's key as declare -p and ${a[@]@K} write it: $'...' as a value
    (control characters, raw bytes), "..." when it holds shell metacharacters or is `@`/`*` alone."""
    if needs_ansi(k):
        return ansi_c_quote(k)
    if k in ("@", "*") or shell_metas(k):
        return double_quote(k)
    return k


def quote_reusable(s: str) -> str:
    """${x@Q}: single quotes, or $'...' when control characters are present."""
    if needs_ansi(s):
        return ansi_c_quote(s)
    return single_quote(s)


def printf_q(s: str) -> str:
    """printf %q: backslash-escaping, $'...' for control characters."""
    if s == "":
        return "''"
    if needs_ansi(s):
        return ansi_c_quote(s)
    out = []
    for i, c in enumerate(s):
        if c in _PRINTF_SPECIAL or (i == 0 and c in "~#"):
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def declare_quote(s: str) -> str:
    """An array element as declare -p and ${a[@]@A} write it: $'...' when it holds control
    characters or bytes that are no text, else "..."."""
    return ansi_c_quote(s) if needs_ansi(s) else double_quote(s)


def double_quote(s: str) -> str:
    """declare -p style: "..." with \\ " $ ` escaped."""
    out = ['"']
    for c in s:
        if c in '"\\$`':
            out.append("\\")
        out.append(c)
    out.append('"')
    return "".join(out)
