"""Turn the POSIX AST (see posix.py) into RE2 syntax or `regex`-module syntax.

Newline handling (`nl`):
  "none"         the subject is one string: `.` and `[^x]` match a newline,
                 `^`/`$` only at its ends (sed without M, awk, expr);
  "reg_newline"  POSIX REG_NEWLINE (sed's M flag): `.` and `[^x]` do not match
                 a newline, `^`/`$` also match around embedded newlines;
  "lines"        the subject is a buffer of lines (grep): like reg_newline,
                 and nothing at all matches a newline, so a match never spans
                 two lines.
"""

from __future__ import annotations

from .posix import Node

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class NeedFallback(Exception):
    """The pattern uses something RE2 cannot express (back-references, \\< \\>
    in a position we cannot rewrite, counts over 1000)."""


WORD_CLASSES = frozenset(["alpha", "alnum", "digit", "upper", "lower", "xdigit"])
_PUNCT = set("\\.+*?()|[]{}^$#&-~\"'`!%,/:;<=>@")


def _hex(cp: int, target: str) -> str:
    if target == "re2":
        return f"\\x{{{cp:x}}}"
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _is_word_cp(cp: int) -> bool:
    ch = chr(cp)
    return ch == "_" or ch.isalnum()


def esc(cp: int, target: str, in_class: bool = False) -> str:
    if cp < 0x80:
        ch = chr(cp)
        if ch.isalnum() or ch == "_":
            return ch
        if cp < 0x20 or cp == 0x7F:
            return _hex(cp, target)
        if ch == " ":
            return " "
        return "\\" + ch
    if 0xD800 <= cp <= 0xDFFF:
        # a raw byte carried as a surrogate escape: only the regex module on
        # decoded text can see it
        if target == "re2":
            raise NeedFallback("raw byte")
        return _hex(cp, target)
    if target == "re2":
        return chr(cp)
    return _hex(cp, target)


_CLASS_BODY = {
    "alpha": "\\p{L}",
    "digit": "0-9",
    "alnum": "\\p{L}\\p{Nd}",
    "upper": "\\p{Lu}",
    "lower": "\\p{Ll}",
    "xdigit": "0-9A-Fa-f",
    "punct": "!-/:-@\\[-`{-~\\p{P}\\p{S}",
}


# the C/POSIX locale's ctype classes (glibc's C locale: ASCII alone), for a subject whose every byte
# is one character (bash's `=~` under LC_ALL=C: bytes >= 0x80 arrive as private-use characters, in
# no class); `space` without the newline where a match may not span lines
_C_CLASS_BODY = {
    "alpha": "A-Za-z",
    "digit": "0-9",
    "alnum": "0-9A-Za-z",
    "upper": "A-Z",
    "lower": "a-z",
    "xdigit": "0-9A-Fa-f",
    "punct": "!-/:-@\\[-`{-~",
    "blank": " \\t",
    "print": " -~",
    "graph": "!-~",
}


def class_body(name: str, target: str, nl: str, c_locale: bool = False) -> str:
    if c_locale:
        if name == "space":
            return ("\\t" if nl == "lines" else "\\t\\n") + "\\x0b\\x0c\\r "
        if name == "cntrl":
            return "\\x00-\\x09\\x0b-\\x1f\\x7f" if nl == "lines" else "\\x00-\\x1f\\x7f"
        return _C_CLASS_BODY[name]
    body = _CLASS_BODY.get(name)
    if body is not None:
        return body

    def h(cp: int) -> str:
        return _hex(cp, target)

    if name == "space":
        uni = f"{h(0x1680)}{h(0x2000)}-{h(0x2006)}{h(0x2008)}-{h(0x200A)}{h(0x2028)}{h(0x2029)}{h(0x205F)}{h(0x3000)}"
        return ("\\t" if nl == "lines" else "\\t\\n") + "\\x0b\\x0c\\r " + uni
    if name == "blank":
        return f" \\t{h(0x1680)}{h(0x2000)}-{h(0x2006)}{h(0x2008)}-{h(0x200A)}{h(0x205F)}{h(0x3000)}"
    if name == "cntrl":
        if nl == "lines":
            return f"{h(0)}-{h(9)}{h(11)}-{h(0x1F)}{h(0x7F)}-{h(0x9F)}"
        return f"{h(0)}-{h(0x1F)}{h(0x7F)}-{h(0x9F)}"
    if name == "print":
        return f" -~{h(0xA0)}-{h(0xD7FF)}{h(0xE000)}-{h(0x10FFFF)}"
    if name == "graph":
        return f"!-~{h(0xA1)}-{h(0x167F)}{h(0x1681)}-{h(0x1FFF)}{h(0x200B)}-{h(0x2027)}{h(0x202A)}-{h(0x205E)}{h(0x2060)}-{h(0x2FFF)}{h(0x3001)}-{h(0xD7FF)}{h(0xE000)}-{h(0x10FFFF)}"
    raise ValueError(name)


def _perl_body(letter: str, target: str, nl: str, c_locale: bool = False) -> tuple[bool, str]:
    """(negated, class body) for \\w \\W \\s \\S."""
    if letter in "wW":
        return letter == "W", "0-9A-Za-z_" if c_locale else "\\p{L}\\p{Nd}_"
    return letter == "S", class_body("space", target, "none" if letter == "S" else nl, c_locale)


# a word character for \< \> \b \B in the fallback engine: what \w and grep -w take (glibc's
# alnum and `_` in a UTF-8 locale), and a byte that is no UTF-8 (carried as a surrogate escape):
# glibc's boundary test takes it for a word character (`\<ab` finds nothing in 'a\xffab', `ab\>`
# nothing in 'ab\xff'), though neither \w nor \W matches it; RE2's own \b knows only ASCII
# letters (Regex picks the fallback's pattern for a subject that is not ASCII: _Core.bounded)
_WORD = "[\\p{L}\\p{Nd}_\\udc80-\\udcff]"


def _bounds(word: str) -> dict[str, str]:
    """\\b \\B \\< \\> for the fallback engine, around a word character `word`."""
    return {
        "wb": f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))",
        "nwb": f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))",
        "ws": f"(?<!{word})(?={word})",
        "we": f"(?<={word})(?!{word})",
    }


_BOUNDS = _bounds(_WORD)
_C_BOUNDS = _bounds("[0-9A-Za-z_]")  # (the C locale: ASCII alone)


class Emitter:
    def __init__(self, target: str, nl: str, goff: int = 0, c_locale: bool = False) -> None:
        self.target = target
        self.nl = nl
        self.goff = goff
        self.c_locale = c_locale  # the C locale's classes (ASCII alone: _C_CLASS_BODY)
        self.bounds = _C_BOUNDS if c_locale else _BOUNDS
        self.bounded = False  # a word boundary was emitted (\b \B \< \>)

    def emit(self, node: Node) -> str:
        kind = node[0]
        m = getattr(self, "e_" + kind)
        return m(node)  # type: ignore[no-any-return]

    def e_empty(self, node: Node) -> str:
        return ""

    def e_never(self, node: Node) -> str:
        return "[^\\x00-\\x{10ffff}]" if self.target == "re2" else "(?!)"

    def e_lit(self, node: Node) -> str:
        return esc(node[1], self.target)

    def e_any(self, node: Node) -> str:
        return "."

    def e_set(self, node: Node) -> str:
        neg, items = node[1], node[2]
        parts: list[str] = []
        t = self.target
        for it in items:
            k = it[0]
            try:
                if k == "c":
                    if self.nl == "lines" and it[1] == 10 and not neg:
                        continue
                    parts.append(esc(it[1], t, True))
                elif k == "r":
                    lo, hi = it[1], it[2]
                    if 0xD800 <= lo <= 0xDFFF or 0xD800 <= hi <= 0xDFFF:
                        if t == "re2":
                            raise NeedFallback("raw byte")
                    parts.append(esc(lo, t, True) + "-" + esc(hi, t, True))
                else:
                    parts.append(class_body(it[1], t, self.nl if not neg else "none", self.c_locale))
            except NeedFallback:
                if t == "re2":
                    raise
        body = "".join(parts)
        if neg:
            if self.nl != "none":
                body += "\\n"
            return "[^" + body + "]"
        if not body:
            return "[^\\x00-\\x{10ffff}]" if t == "re2" else "(?!)"
        return "[" + body + "]"

    def e_perl(self, node: Node) -> str:
        neg, body = _perl_body(node[1], self.target, self.nl, self.c_locale)
        if neg:
            if self.nl != "none":
                body += "\\n"
            return "[^" + body + "]"
        return "[" + body + "]"

    def e_cat(self, node: Node) -> str:
        items = node[1]
        out: list[str] = []
        for k, it in enumerate(items):
            kind = it[0]
            if kind == "ws" and self.target == "re2":
                if k + 1 < len(items) and starts_word(items[k + 1]):
                    self.bounded = True
                    out.append("\\b")
                    continue
                raise NeedFallback("\\<")
            if kind == "we" and self.target == "re2":
                if k > 0 and ends_word(items[k - 1]):
                    self.bounded = True
                    out.append("\\b")
                    continue
                raise NeedFallback("\\>")
            out.append(self.emit(it))
        return "".join(out)

    def e_alt(self, node: Node) -> str:
        return "(?:" + "|".join(self.emit(b) for b in node[1]) + ")"

    def e_group(self, node: Node) -> str:
        return "(" + self.emit(node[2]) + ")"

    def e_rep(self, node: Node) -> str:
        inner_node, lo, hi = node[1], node[2], node[3]
        inner = self.emit(inner_node)
        if inner_node[0] not in ("lit", "any", "set", "perl", "group") or inner == "":
            inner = "(?:" + inner + ")"
        if self.target == "re2" and (lo > 1000 or (hi is not None and hi > 1000)):
            raise NeedFallback("count")
        if hi is None:
            q = "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
        elif lo == 0 and hi == 1:
            q = "?"
        elif lo == hi:
            q = f"{{{lo}}}"
        else:
            q = f"{{{lo},{hi}}}"
        return inner + q

    def e_bol(self, node: Node) -> str:
        return "^"

    def e_eol(self, node: Node) -> str:
        if self.target == "regex" and self.nl == "none":
            return "\\Z"
        return "$"

    def e_bot(self, node: Node) -> str:
        return "\\A"

    def e_eot(self, node: Node) -> str:
        return "\\z" if self.target == "re2" else "\\Z"

    def e_wb(self, node: Node) -> str:
        self.bounded = True
        return "\\b" if self.target == "re2" else self.bounds["wb"]

    def e_nwb(self, node: Node) -> str:
        self.bounded = True
        return "\\B" if self.target == "re2" else self.bounds["nwb"]

    def e_ws(self, node: Node) -> str:
        if self.target == "re2":
            raise NeedFallback("\\<")
        return self.bounds["ws"]

    def e_we(self, node: Node) -> str:
        if self.target == "re2":
            raise NeedFallback("\\>")
        return self.bounds["we"]

    def e_bref(self, node: Node) -> str:
        if self.target == "re2":
            raise NeedFallback("backref")
        return f"(?:\\g<{node[1] + self.goff}>)"


def starts_word(node: Node) -> bool:
    """Does every match of `node` begin with a word character?"""
    k = node[0]
    if k == "lit":
        return _is_word_cp(node[1])
    if k == "set":
        return not node[1] and bool(node[2]) and all(_item_word(it) for it in node[2])
    if k == "perl":
        return bool(node[1] == "w")
    if k == "group":
        return starts_word(node[2])
    if k == "cat":
        return bool(node[1]) and starts_word(node[1][0])
    if k == "rep":
        return node[2] >= 1 and starts_word(node[1])
    if k == "alt":
        return all(starts_word(b) for b in node[1])
    return False


def ends_word(node: Node) -> bool:
    k = node[0]
    if k == "cat":
        return bool(node[1]) and ends_word(node[1][-1])
    if k == "group":
        return ends_word(node[2])
    if k == "rep":
        return node[2] >= 1 and ends_word(node[1])
    if k == "alt":
        return all(ends_word(b) for b in node[1])
    return starts_word(node)


def _item_word(it: tuple[Any, ...]) -> bool:
    if it[0] == "c":
        return _is_word_cp(it[1])
    if it[0] == "r":
        lo, hi = chr(it[1]), chr(it[2])
        return any(a <= lo and hi <= b for a, b in (("0", "9"), ("A", "Z"), ("a", "z")))
    return it[1] in WORD_CLASSES


def shift_groups(node: Node, off: int) -> Node:
    """Renumber groups and back-references by `off` (to join patterns)."""
    if off == 0:
        return node
    k = node[0]
    if k == "group":
        return ("group", node[1] + off, shift_groups(node[2], off))
    if k == "bref":
        return ("bref", node[1] + off)
    if k in ("cat", "alt"):
        return (k, [shift_groups(n, off) for n in node[1]])
    if k == "rep":
        return ("rep", shift_groups(node[1], off), node[2], node[3])
    return node


def emit(
    node: Node, target: str, nl: str, goff: int = 0, bounded: list[bool] | None = None, c_locale: bool = False
) -> str:
    """`node` in `target`'s syntax; `bounded` gets True appended when it holds a word boundary;
    `c_locale`: the C locale's classes."""
    em = Emitter(target, nl, goff, c_locale)
    text = em.emit(node)
    if bounded is not None and em.bounded:
        bounded.append(True)
    return text
