"""Quoting of strings for reuse as shell input (@Q, printf %q, declare -p)."""

from __future__ import annotations

from ..syntax.escapes import ansi_c_quote as ansi_c_quote  # (one definition each: the parser quotes too)
from ..syntax.escapes import as_bytes as as_bytes  # (the C locale's view of a text)
from ..syntax.escapes import needs_ansi as needs_ansi
from ..syntax.escapes import replace_each
from ..syntax.escapes import single_quote as single_quote  # (syntax's printer uses it too)

# a backslash before each of these characters (the backslash itself first: see replace_each)
_PRINTF_PAIRS = tuple((c, "\\" + c) for c in "\\ \t\n'\"$`|&;()<>*?[]{}!^,")
_DOUBLE_PAIRS = tuple((c, "\\" + c) for c in '\\"$`')


_SHELL_METAS = frozenset(" \t\n'\"\\|&;()<>!{}*[?]^$`")


def shell_metas(s: str) -> bool:
    """bash's sh_contains_shell_metas: a metacharacter, a leading `#`, or a `~` that tilde
    expansion would see; such a word needs quotes to be read back as itself."""
    # (set.isdisjoint and str.find run in C: a Python step a character was slow on long values)
    if s[:1] == "#" or not _SHELL_METAS.isdisjoint(s):
        return True
    i = s.find("~")
    while i >= 0:
        if i == 0 or s[i - 1] in "=:":
            return True
        i = s.find("~", i + 1)
    return False


def assoc_key(k: str, c_locale: bool = False) -> str:
    """An associative array's key as declare -p and ${a[@]@K} write it: $'...' as a value
    (control characters, raw bytes), "..." when it holds shell metacharacters or is `@`/`*` alone.
    `c_locale` (here and below): the C/POSIX locale, where no byte >= 0x80 is printable, so a
    text that is not ASCII is written $'\\303\\251' (bash's ansic_shouldquote)."""
    k = as_bytes(k) if c_locale else k
    if needs_ansi(k):
        return ansi_c_quote(k)
    if k in ("@", "*") or shell_metas(k):
        return double_quote(k)
    return k


def quote_reusable(s: str, c_locale: bool = False) -> str:
    """${x@Q}: single quotes, or $'...' when control characters are present."""
    s = as_bytes(s) if c_locale else s
    if needs_ansi(s):
        return ansi_c_quote(s)
    return single_quote(s)


def printf_q(s: str, c_locale: bool = False) -> str:
    """printf %q: backslash-escaping, $'...' for control characters."""
    if s == "":
        return "''"
    s = as_bytes(s) if c_locale else s
    if needs_ansi(s):
        return ansi_c_quote(s)
    quoted = replace_each(s, _PRINTF_PAIRS)  # (a Python step a character: 3.4 s for 9 MB)
    if "~" in s:  # a `~` that tilde expansion would see: first, or after `=` or `:` (as shell_metas)
        quoted = quoted.replace("=~", "=\\~").replace(":~", ":\\~")
    return "\\" + quoted if s[0] in "~#" else quoted


def declare_quote(s: str, c_locale: bool = False) -> str:
    """An array element as declare -p and ${a[@]@A} write it: $'...' when it holds control
    characters or bytes that are no text, else "..."."""
    s = as_bytes(s) if c_locale else s
    return ansi_c_quote(s) if needs_ansi(s) else double_quote(s)


def double_quote(s: str) -> str:
    """declare -p style: "..." with \\ " $ ` escaped."""
    return '"' + replace_each(s, _DOUBLE_PAIRS) + '"'
