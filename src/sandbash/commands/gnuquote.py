"""GNU's quoting of names in messages (gnulib quotearg), in one place.

Three styles are used by the GNU tools:
- `quote` (locale style): curly quotes in a UTF-8 locale, `'x'` otherwise, C escapes inside;
- `quoteaf` (shell-escape-always): `'a b'`, `"it's"`, `'a'$'\\n''b'` (ls, rm, cp messages);
- `quotef` / `shell_quote` (shell-escape): the same, but only when the name needs it
  (`cat: x#: No such file ...`).
Every command quotes through these, so `cat "'~aa"` and `ls "'~aa"` name the file alike.
"""

from __future__ import annotations

from collections.abc import Mapping

# Characters the shell treats specially anywhere in a word (`#` and `~` only at its start).
_SHELL_SPECIAL = frozenset('!"$&()*;<=>[^`|{}\\?')
# what makes the shell-escape style quote a name of printable characters anywhere in it
_QUOTED = (_SHELL_SPECIAL - frozenset("{}")) | frozenset(" '")
# the characters GNU tools write as a letter escape (diff's file names use the same letters)
C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _octal(ch: str) -> str:
    return "".join(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogateescape"))


def char_escape(ch: str, utf8: bool = True) -> str | None:
    """The C escape GNU shows for a character that cannot be printed, or None.
    Outside a UTF-8 locale every non-ASCII byte is unprintable."""
    if ch in C_ESCAPES:
        return C_ESCAPES[ch]
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
        return f"\\{code - 0xDC00:03o}"
    if code < 32 or code == 127:
        return f"\\{code:03o}"
    if code > 127 and (not utf8 or (not ch.isprintable() and ch != "\u00a0")):
        return _octal(ch)
    return None


def utf8_locale(env: Mapping[str, str]) -> bool:
    """Whether the messages locale (LC_ALL, LC_MESSAGES, LANG: the first set) is UTF-8."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            low = value.lower()
            return "utf-8" in low or "utf8" in low
    return False


def _plain(text: str, utf8: bool = True) -> bool:
    """Whether no character of `text` has a C escape (char_escape is None for each), found in C: a
    name of printable characters (printable ASCII outside a UTF-8 locale). A megabyte name went
    through the character loops below in 0.3-0.5 s of CPU for each message naming it."""
    return text.isprintable() and (utf8 or text.isascii())


def quote(text: str, utf8: bool = True) -> str:
    """gnulib quote(): curly quotes in a UTF-8 locale, `'x'` otherwise; backslashes and
    unprintable characters escaped as in C."""
    if _plain(text, utf8):
        body = text.replace("\\", "\\\\")
        return f"\u2018{body}\u2019" if utf8 else f"'{body}'"
    out = []
    for ch in text:
        esc = char_escape(ch, utf8)
        if esc is not None:
            out.append(esc)
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
    body = "".join(out)
    return f"\u2018{body}\u2019" if utf8 else f"'{body}'"


def quoteaf(name: str) -> str:
    """GNU's shell-escape-always quoting: `'a b'`, `"it's"`, `'a'$'\\n''b'`.
    Double quotes are used only for a name whose one problem is a single quote."""
    if _plain(name):
        # no escapes: the loops below come to these
        if "'" not in name:
            return "'" + name + "'"
        if _SHELL_SPECIAL.isdisjoint(name) and "#" not in name[1:] and "~" not in name[1:]:
            return '"' + name + '"'
        return "'" + name.replace("'", "'\\''") + "'"
    needs_escape = False
    has_quote = False
    compatible = True
    for i, ch in enumerate(name):
        if char_escape(ch) is not None:
            needs_escape = True
        elif ch == "'":
            has_quote = True
        elif ch in _SHELL_SPECIAL or (ch in "#~" and i > 0):
            compatible = False
    if has_quote and compatible and not needs_escape:
        return '"' + name + '"'
    out = ["'"]
    # gnulib writes this form on a second pass over a name with a single quote, keeping
    # the escape state the first pass ended in: a name that ends in an escaped character
    # starts "inside" an escape (an ordinary first character gets a stray `''`).
    escaping = has_quote and needs_escape and char_escape(name[-1]) is not None
    for ch in name:
        esc = char_escape(ch)
        if esc is not None:
            if not escaping:
                out.append("'$'")
                escaping = True
            out.append(esc)
            continue
        if ch == "'":
            out.append("'\\''")
            escaping = False
            continue
        if escaping:
            out.append("''")
            escaping = False
        out.append(ch)
    out.append("'")
    return "".join(out)


def needs_quoting(name: str) -> bool:
    """Whether GNU's shell-escape style would quote `name`."""
    if not name or name in ("{", "}"):
        return True
    if _plain(name):
        return not _QUOTED.isdisjoint(name) or name[0] in "#~"
    for i, ch in enumerate(name):
        if (ch in _SHELL_SPECIAL and ch not in "{}") or ch in " '" or (ch in "#~" and i == 0):
            return True
        if char_escape(ch) is not None:
            return True
    return False


def shell_quote(name: str) -> str:
    """GNU's shell-escape quoting (quotef): quote only when needed."""
    return quoteaf(name) if needs_quoting(name) else name


def quotef(name: str) -> str:
    """gnulib's quotef: shell-escape quoting that also quotes a colon (quotearg_n_style_colon), as
    error messages name files: `cat: 'a:b': No such file or directory`."""
    return quoteaf(name) if ":" in name or needs_quoting(name) else name
