"""Tokens of an awk program.

The whole program is tokenized up front. Whether `/` starts a regex or
divides is decided by the previous token (an operand before it means
division), which is how every awk resolves it in practice.
"""

from __future__ import annotations

from ...leanclass import Declared
from ...syntax.escapes import decode_raw

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

KEYWORDS = frozenset(
    {
        "BEGIN",
        "END",
        "BEGINFILE",
        "ENDFILE",
        "function",
        "func",
        "if",
        "else",
        "while",
        "for",
        "do",
        "break",
        "continue",
        "next",
        "nextfile",
        "exit",
        "return",
        "delete",
        "getline",
        "print",
        "printf",
        "in",
        "switch",
        "case",
        "default",
    }
)
BUILTINS = frozenset(
    {
        "length",
        "substr",
        "index",
        "split",
        "sub",
        "gsub",
        "match",
        "sprintf",
        "sin",
        "cos",
        "atan2",
        "exp",
        "log",
        "sqrt",
        "int",
        "rand",
        "srand",
        "tolower",
        "toupper",
        "system",
        "close",
        "fflush",
        "gensub",
        "asort",
        "asorti",
        "strftime",
        "systime",
        "mktime",
        "and",
        "or",
        "xor",
        "lshift",
        "rshift",
        "compl",
        "patsplit",
        "isarray",
        "typeof",
        "strtonum",
    }
)
# longest first so that `**=` wins over `**` and `*`
_OPERATORS = sorted(
    [
        "**=",
        "&&",
        "||",
        "==",
        "<=",
        ">=",
        "!=",
        "++",
        "--",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "^=",
        ">>",
        "!~",
        "|&",
        "**",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ",",
        "+",
        "-",
        "*",
        "/",
        "%",
        "^",
        "!",
        ">",
        "<",
        "|",
        "?",
        ":",
        "~",
        "$",
        "=",
    ],
    key=len,
    reverse=True,
)
# after these a `/` divides
_OPERAND_END = frozenset(
    {"NAME", "NUMBER", "STRING", "ERE", "BUILTIN", "FUNC_NAME", ")", "]", "$", "++", "--"}
)


@dataclass(slots=True)
class Tok(metaclass=Declared):
    kind: str  # NUMBER STRING ERE NAME FUNC_NAME BUILTIN NEWLINE EOF, a keyword, or the operator text
    val: str | float
    src: int  # index of the source text (several -f / -e are allowed)
    line: int
    col: int


class AwkSyntaxError(Exception):
    """A compile-time error; `tok` locates it for the source-line display."""

    def __init__(
        self, message: str, src: int = 0, line: int = 0, col: int = -1, show: bool = True, fatal: bool = False
    ) -> None:
        super().__init__(message)
        self.message = message
        self.src = src
        self.line = line
        self.col = col
        self.show = show  # print the source line with a caret
        self.fatal = fatal  # "fatal:" and status 2 instead of "error:" and status 1
        self.shown_line = line  # the line number in the message
        self.bare = False  # no "error:" before the message


@dataclass(slots=True)
class Source(metaclass=Declared):
    name: str  # "cmd. line" or the -f file name
    text: str


def unescape(text: str, warn: list[str] | None = None) -> str:
    """Process awk string escapes (also used for -v values and command-line assignments)."""
    if "\\" not in text:
        return text
    unknown: list[str] = []
    out = decode_raw(text, "awk", unknown)
    if any("\udc80" <= c <= "\udcff" for c in out):
        # byte escapes are bytes (gawk's strings are): "\303\251" is the one character é
        out = out.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    if warn is not None:
        warn.extend(
            f"no hex digits in `\\{d}' escape sequence"
            if d == "x"
            else f"escape sequence `\\{d}' treated as plain `{d}'"
            for d in unknown
        )
    return out


def _number(text: str, i: int) -> tuple[float, int]:
    """Scan a numeric constant (gawk also takes 0x hex and 0 octal in programs)."""
    n = len(text)
    if text.startswith(("0x", "0X"), i) and i + 2 < n and text[i + 2] in "0123456789abcdefABCDEF":
        j = i + 2
        while j < n and text[j] in "0123456789abcdefABCDEF":
            j += 1
        return float(int(text[i + 2 : j], 16)), j
    j = i
    while j < n and text[j].isdigit():
        j += 1
    is_int = j > i
    if j < n and text[j] == ".":
        is_int = False
        j += 1
        while j < n and text[j].isdigit():
            j += 1
    if j < n and text[j] in "eE":
        k = j + 1
        if k < n and text[k] in "+-":
            k += 1
        if k < n and text[k].isdigit():
            is_int = False
            while k < n and text[k].isdigit():
                k += 1
            j = k
    lit = text[i:j]
    if is_int and len(lit) > 1 and lit[0] == "0" and all(c in "01234567" for c in lit):
        return float(int(lit, 8)), j
    return float(lit), j


class Lexer:
    def __init__(self, sources: list[Source]) -> None:
        self.sources = sources
        self.warnings: list[tuple[int, int, str]] = []

    def tokenize(self) -> list[Tok]:
        toks: list[Tok] = []
        for si, source in enumerate(self.sources):
            self._scan(si, source.text, toks)
            # each source ends a statement, as if a newline followed it
            if toks and toks[-1].kind != "NEWLINE":
                last = toks[-1]
                toks.append(Tok("NEWLINE", "", si, last.line, -1))
        last_src = len(self.sources) - 1
        toks.append(Tok("EOF", "", max(last_src, 0), self._last_line(), -1))
        return toks

    def _last_line(self) -> int:
        if not self.sources:
            return 1
        return self.sources[-1].text.count("\n") + 1

    def _scan(self, si: int, text: str, toks: list[Tok]) -> None:
        i = 0
        n = len(text)
        line = 1
        line_start = 0
        while i < n:
            c = text[i]
            col = i - line_start
            if c == "\n":
                toks.append(Tok("NEWLINE", "", si, line, col))
                i += 1
                line += 1
                line_start = i
                continue
            if c in " \t\r\f\v":
                i += 1
                continue
            if c == "\\" and i + 1 < n and text[i + 1] == "\n":
                i += 2
                line += 1
                line_start = i
                continue
            if c == "\\" and text.startswith("\r\n", i + 1):
                i += 3
                line += 1
                line_start = i
                continue
            if c == "#":
                while i < n and text[i] != "\n":
                    i += 1
                continue
            if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
                value, i = _number(text, i)
                toks.append(Tok("NUMBER", value, si, line, col))
                continue
            if c.isalpha() or c == "_":
                j = i + 1
                while j < n and (text[j].isalnum() or text[j] == "_") and text[j].isascii():
                    j += 1
                word = text[i:j]
                # gawk's qualified names (awk::x) are the plain name in the default namespace
                if text.startswith("::", j) and word == "awk":
                    i = j + 2
                    continue
                i = j
                if word in KEYWORDS:
                    kind = "func" if word == "function" else word
                    toks.append(Tok(kind, word, si, line, col))
                elif word in BUILTINS:
                    toks.append(Tok("BUILTIN", word, si, line, col))
                elif i < n and text[i] == "(":
                    toks.append(Tok("FUNC_NAME", word, si, line, col))
                else:
                    toks.append(Tok("NAME", word, si, line, col))
                continue
            if c == '"':
                i, line, line_start = self._string(si, text, i, line, line_start, toks)
                continue
            if c == "/" and not (toks and toks[-1].kind in _OPERAND_END):
                i = self._regex(si, text, i, line, line_start, toks)
                continue
            if c == "@":
                j = i + 1
                while j < n and (text[j].isalnum() or text[j] == "_"):
                    j += 1
                word = text[i:j]
                if word in ("@include", "@load", "@namespace"):
                    toks.append(Tok(word, word, si, line, col))
                    i = j
                    continue
                toks.append(Tok("@", "@", si, line, col))
                i += 1
                continue
            for op in _OPERATORS:
                if text.startswith(op, i):
                    toks.append(Tok(op, op, si, line, col))
                    i += len(op)
                    break
            else:
                raise AwkSyntaxError(f"invalid char '{c}' in expression", si, line, col)

    def _string(
        self, si: int, text: str, i: int, line: int, line_start: int, toks: list[Tok]
    ) -> tuple[int, int, int]:
        n = len(text)
        start = i
        col = i - line_start
        i += 1
        while i < n and text[i] != '"':
            if text[i] == "\\" and i + 1 < n:
                if text[i + 1] == "\n":
                    line += 1
                    line_start = i + 2
                i += 2
                continue
            if text[i] == "\n":
                break
            i += 1
        if i >= n or text[i] != '"':
            raise AwkSyntaxError("unterminated string", si, line, col)
        warns: list[str] = []
        value = unescape(text[start + 1 : i], warns)
        for w in warns:
            if all(w != seen for _, _, seen in self.warnings):  # gawk warns once for each escape
                self.warnings.append((si, line, w))
        toks.append(Tok("STRING", value, si, line, col))
        return i + 1, line, line_start

    def _regex(self, si: int, text: str, i: int, line: int, line_start: int, toks: list[Tok]) -> int:
        n = len(text)
        col = i - line_start
        i += 1
        start = i
        in_bracket = False
        first = 0  # where a bracket's first character is (a `]` there is literal)
        while i < n:
            c = text[i]
            if c == "\n":
                break
            if c == "\\" and i + 1 < n:
                i += 2
                continue
            if in_bracket:
                if c == "[" and i + 1 < n and text[i + 1] in ":.=":
                    end = text.find(text[i + 1] + "]", i + 2)
                    if end > 0 and "\n" not in text[i:end]:
                        i = end + 2
                        continue
                if c == "]" and i != first:
                    in_bracket = False
            elif c == "[":
                in_bracket = True
                first = i + 2 if text.startswith("^", i + 1) else i + 1
            elif c == "/":
                break
            i += 1
        if i >= n or text[i] != "/":
            raise AwkSyntaxError("unterminated regexp", si, line, col + 1)  # gawk's caret: past the slash
        toks.append(Tok("ERE", text[start:i], si, line, col))
        return i + 1
