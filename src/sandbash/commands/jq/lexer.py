"""Tokens of the jq language.

A string literal becomes one STRING token whose parts are text and, for each
`\\(...)` interpolation, the token list of the expression inside, so the
parser never re-lexes.
"""

from __future__ import annotations

from .errors import CompileError
from .numbers import make_literal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from typing import Any
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

KEYWORDS = frozenset(
    {
        "def",
        "if",
        "then",
        "elif",
        "else",
        "end",
        "as",
        "reduce",
        "foreach",
        "try",
        "catch",
        "label",
        "import",
        "include",
        "module",
        "and",
        "or",
        "__loc__",
        "break",
    }
)
# longest first so that `//=` wins over `//` and `?//` over `?`
OPERATORS = (
    "?//",
    "//=",
    "!=",
    "==",
    "//",
    "|=",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "<=",
    ">=",
    "..",
    ".",
    "?",
    "=",
    ";",
    ",",
    ":",
    "|",
    "+",
    "-",
    "*",
    "/",
    "%",
    "$",
    "<",
    ">",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
)
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_CHARS = _IDENT_START | frozenset("0123456789")
_DIGITS = frozenset("0123456789")


@dataclass
class Token:
    kind: str  # IDENT KEYWORD FIELD BINDING NUMBER STRING FORMAT OP EOF INVALID
    text: str
    pos: int
    value: Any = None
    # STRING: list of str (text) and list[Token] (interpolations)
    parts: list[Any] = field(default_factory=list)

    def describe(self) -> str:
        """How bison names this token in `unexpected ...`."""
        if self.kind == "EOF":
            return "end of file"
        if self.kind == "OP":
            return f"'{self.text}'" if len(self.text) == 1 else self.text
        if self.kind == "KEYWORD":
            return self.text
        if self.kind == "NUMBER":
            return "LITERAL"
        if self.kind == "STRING":
            return "QQSTRING_START"
        if self.kind == "INVALID":
            return "INVALID_CHARACTER"
        return self.kind


class Lexer:
    def __init__(self, src: str) -> None:
        self.src = src
        self.pos = 0

    def error(self, msg: str, pos: int) -> CompileError:
        return CompileError(msg, location=_location(self.src, pos), pos=pos)

    def tokens(self, closer: str | None = None) -> list[Token]:
        """Tokens up to the end, or up to the `)` closing an interpolation."""
        out: list[Token] = []
        depth = 0
        src = self.src
        n = len(src)
        while True:
            self._skip_space()
            if self.pos >= n:
                if closer is not None:
                    raise self.error(
                        "syntax error, unexpected end of file, expecting QQSTRING_INTERP_END"
                        " (Unix shell quoting issues?)",
                        self.pos,
                    )
                # bison reports an unexpected end at the last token
                out.append(Token("EOF", "", out[-1].pos if out else self.pos))
                return out
            c = src[self.pos]
            if closer is not None and c == ")" and depth == 0:
                self.pos += 1
                out.append(Token("EOF", "", self.pos - 1))
                return out
            tok = self._one()
            if tok.kind == "OP":
                if tok.text in "([{":
                    depth += 1
                elif tok.text in ")]}":
                    depth -= 1
            out.append(tok)

    def _skip_space(self) -> None:
        src = self.src
        n = len(src)
        while self.pos < n:
            c = src[self.pos]
            if c in " \t\n\r":
                self.pos += 1
            elif c == "#":
                nl = src.find("\n", self.pos)
                self.pos = n if nl < 0 else nl + 1
            else:
                return

    def _one(self) -> Token:
        src = self.src
        start = self.pos
        c = src[start]
        if c == '"':
            return self._string(start)
        if c in _IDENT_START:
            end = self._ident_end(start)
            text = src[start:end]
            self.pos = end
            if text in KEYWORDS and text != "__loc__":
                return Token("KEYWORD", text, start)
            return Token("IDENT", text, start)
        if c == "." and start + 1 < len(src) and src[start + 1] in _IDENT_START:
            end = start + 1
            while end < len(src) and src[end] in _IDENT_CHARS:
                end += 1
            self.pos = end
            return Token("FIELD", src[start + 1 : end], start)
        if c in _DIGITS or (c == "." and start + 1 < len(src) and src[start + 1] in _DIGITS):
            return self._number(start)
        if c == "$" and start + 1 < len(src) and src[start + 1] in _IDENT_START:
            end = self._ident_end(start + 1)
            self.pos = end
            name = src[start + 1 : end]
            if name == "__loc__":
                return Token("LOC", "$__loc__", start)
            return Token("BINDING", name, start)
        if c == "@" and start + 1 < len(src) and src[start + 1] in _IDENT_CHARS:
            end = start + 1
            while end < len(src) and src[end] in _IDENT_CHARS:
                end += 1
            self.pos = end
            return Token("FORMAT", src[start + 1 : end], start)
        for op in OPERATORS:
            if src.startswith(op, start):
                self.pos = start + len(op)
                return Token("OP", op, start)
        self.pos = start + 1
        return Token("INVALID", c, start)

    def _ident_end(self, start: int) -> int:
        src = self.src
        n = len(src)
        end = start
        while True:
            while end < n and src[end] in _IDENT_CHARS:
                end += 1
            # module-qualified names: mod::name
            if src.startswith("::", end) and end + 2 < n and src[end + 2] in _IDENT_START:
                end += 2
                continue
            return end

    def _number(self, start: int) -> Token:
        src = self.src
        n = len(src)
        i = start
        while i < n and src[i] in _DIGITS:
            i += 1
        if i < n and src[i] == ".":
            i += 1
            while i < n and src[i] in _DIGITS:
                i += 1
        if i < n and src[i] in "eE":
            j = i + 1
            if j < n and src[j] in "+-":
                j += 1
            if j < n and src[j] in _DIGITS:
                while j < n and src[j] in _DIGITS:
                    j += 1
                i = j
        self.pos = i
        text = src[start:i]
        return Token("NUMBER", text, start, value=make_literal(text))

    def _string(self, start: int) -> Token:
        src = self.src
        n = len(src)
        i = start + 1
        parts: list[Any] = []
        buf: list[str] = []
        while True:
            if i >= n:
                raise self.error(
                    "syntax error, unexpected end of file, expecting QQSTRING_TEXT or "
                    "QQSTRING_INTERP_START or QQSTRING_END (Unix shell quoting issues?)",
                    start,
                )
            c = src[i]
            if c == '"':
                i += 1
                break
            if c != "\\":
                buf.append(c)
                i += 1
                continue
            nxt = src[i + 1 : i + 2]
            if nxt == "(":
                if buf:
                    parts.append("".join(buf))
                    buf = []
                sub = Lexer(src)
                sub.pos = i + 2
                parts.append(sub.tokens(closer=")"))
                i = sub.pos
                continue
            i = self._escape(i, buf)
        if buf:
            parts.append("".join(buf))
        self.pos = i
        return Token("STRING", src[start:i], start, parts=parts)

    def _escape(self, i: int, buf: list[str]) -> int:
        src = self.src
        c = src[i + 1 : i + 2]
        simple = {"\\": "\\", '"': '"', "/": "/", "b": "\b", "f": "\f", "t": "\t", "n": "\n", "r": "\r"}
        if c in simple and c:
            buf.append(simple[c])
            return i + 2
        if c == "u":
            h = src[i + 2 : i + 6]
            if len(h) == 4 and all(x in "0123456789abcdefABCDEF" for x in h):
                cp = int(h, 16)
                if 0xD800 <= cp <= 0xDBFF and src[i + 6 : i + 8] == "\\u":
                    lo_h = src[i + 8 : i + 12]
                    if len(lo_h) == 4 and all(x in "0123456789abcdefABCDEF" for x in lo_h):
                        lo = int(lo_h, 16)
                        if 0xDC00 <= lo <= 0xDFFF:
                            buf.append(chr(0x10000 + (((cp - 0xD800) << 10) | (lo - 0xDC00))))
                            return i + 12
                if 0xD800 <= cp <= 0xDFFF:
                    buf.append("\ufffd")
                else:
                    buf.append(chr(cp))
                return i + 6
        # jq hands the run of escapes to its JSON parser, quoted
        raise self.error(f"Invalid escape at line 1, column 4 (while parsing '\"{src[i : i + 2]}\"')", i)


def _location(src: str, pos: int) -> str:
    line = src.count("\n", 0, pos) + 1
    return f"at <top-level>, line {line}:"


def tokenize(src: str) -> list[Token]:
    return Lexer(src).tokens()
