"""The one place awk matches regular expressions.

awk EREs (gawk dialect) are translated to RE2 syntax and run with POSIX
leftmost-longest semantics, so no user pattern can backtrack. Patterns
without metacharacters skip the engine (`str.find`), which is what most
`/foo/` patterns are. Subjects are str; RE2 works on UTF-8 bytes, so spans
are mapped back to character offsets (free for ASCII text).
"""

from __future__ import annotations

from collections.abc import Iterator

import re2

Span = tuple[int, int]

_SPECIAL = set("\\^$.[]|()*+?{}")
_CLASSES = {"alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print", "graph", "cntrl", "xdigit"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "b": "\b", "/": "/", '"': '"'}
_OPS = {"y": r"\b", "B": r"\B", "<": r"\b", ">": r"\b", "`": r"\A", "'": r"\z",
        "s": r"\s", "S": r"\S", "w": r"\w", "W": r"\W"}
_UNANCHORED = re2._Anchor.UNANCHORED


class RegexError(Exception):
    """An invalid regular expression; the message is GNU regex's wording."""


def _lit(ch: str) -> str:
    """One literal character in RE2 syntax."""
    if ch in _SPECIAL or ch in "-/":
        return "\\" + ch
    if ch == "\n":
        return "\\n"
    return ch


def _class_lit(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[" else ("\\n" if ch == "\n" else ch)


def _escape_char(p: str, i: int) -> tuple[str, int]:
    """The character a backslash escape at p[i] (after the backslash) stands for."""
    c = p[i]
    if c in _ESCAPES:
        return _ESCAPES[c], i + 1
    if c in "01234567":
        j = i
        while j < len(p) and j < i + 3 and p[j] in "01234567":
            j += 1
        return chr(int(p[i:j], 8)), j
    if c == "x":
        j = i + 1
        while j < len(p) and j < i + 3 and p[j] in "0123456789abcdefABCDEF":
            j += 1
        if j > i + 1:
            return chr(int(p[i + 1 : j], 16)), j
    return c, i + 1


def _bracket(p: str, i: int) -> tuple[str, int]:
    """Translate a bracket expression starting after its '['; returns (re2, next index)."""
    n = len(p)
    out = ["["]
    if i < n and p[i] == "^":
        out.append("^")
        i += 1
    first = True
    prev: str | None = None  # last single character, for ranges
    while True:
        if i >= n:
            raise RegexError("Unmatched [, [^, [:, [., or [=")
        c = p[i]
        if c == "]" and not first:
            break
        first = False
        if c == "[" and i + 1 < n and p[i + 1] in ":=.":
            kind = p[i + 1]
            end = p.find(kind + "]", i + 2)
            if end < 0:
                raise RegexError("Unmatched [, [^, [:, [., or [=")
            name = p[i + 2 : end]
            i = end + 2
            if kind == ":":
                if name not in _CLASSES:
                    raise RegexError("Invalid character class name")
                out.append(f"[:{name}:]")
                prev = None
                continue
            c = name[:1] or "["
            out.append(_class_lit(c))
            prev = c
            continue
        if c == "\\" and i + 1 < n:
            c, i = _escape_char(p, i + 1)
        else:
            i += 1
        if c == "-" and prev is not None and i < n and p[i] != "]":
            # a range: prev-hi
            hi = p[i]
            if hi == "\\" and i + 1 < n:
                hi, i = _escape_char(p, i + 1)
            elif hi == "[" and i + 1 < n and p[i + 1] in ".=":
                end = p.find(p[i + 1] + "]", i + 2)
                if end < 0:
                    raise RegexError("Unmatched [, [^, [:, [., or [=")
                hi = p[i + 2 : end][:1] or "["
                i = end + 2
            else:
                i += 1
            if hi < prev:
                raise RegexError("Invalid range end")
            out.append("-" + _class_lit(hi))
            prev = None
            continue
        out.append(_class_lit(c))
        prev = c
    out.append("]")
    return "".join(out), i + 1


def _interval(p: str, i: int) -> tuple[str, int] | None:
    """An interval `{n}`, `{n,}`, `{n,m}` or `{,m}` at p[i] == '{'; None if it is literal."""
    j = p.find("}", i)
    if j < 0:
        return None
    body = p[i + 1 : j]
    lo, comma, hi = body.partition(",")
    if not (lo.isdigit() or (lo == "" and comma)) or not (hi == "" or hi.isdigit()) or (not lo and not hi):
        return None
    low = int(lo or "0")
    if hi and int(hi) < low:
        raise RegexError("Invalid content of \\{\\}")
    if low > 1000 or (hi and int(hi) > 1000):
        raise RegexError("Regular expression too big")
    return "{" + str(low) + (("," + hi) if comma else "") + "}", j + 1


def translate(p: str) -> str:
    """awk ERE -> RE2 syntax (raises RegexError)."""
    stack: list[list[str]] = []
    items: list[str] = []  # atoms (with their quantifiers), "|" and anchors
    quantified: list[bool] = []
    qstack: list[list[bool]] = []
    i = 0
    n = len(p)

    def atom(text: str) -> None:
        items.append(text)
        quantified.append(False)

    def can_repeat() -> bool:
        return bool(items) and items[-1] not in ("|", "^")

    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                i += 1  # a trailing backslash is ignored, as gawk does
                continue
            d = p[i + 1]
            if d in _OPS:
                atom(_OPS[d])
                i += 2
                continue
            ch, i = _escape_char(p, i + 1)
            atom(_lit(ch))
        elif c == "[":
            text, i = _bracket(p, i + 1)
            atom(text)
        elif c == "(":
            stack.append(items)
            qstack.append(quantified)
            items, quantified = [], []
            i += 1
        elif c == ")":
            if not stack:
                atom("\\)")
            else:
                inner = "".join(items)
                items, quantified = stack.pop(), qstack.pop()
                atom("(" + inner + ")")
            i += 1
        elif c == "|":
            items.append("|")
            quantified.append(False)
            i += 1
        elif c in "*+?{":
            q: str | None = c
            nxt = i + 1
            if c == "{":
                iv = _interval(p, i) if can_repeat() else None
                if iv is None:
                    q = None
                else:
                    q, nxt = iv
            if q is None or not can_repeat():
                atom(_lit(c))
                i += 1
                continue
            if quantified[-1]:
                items[-1] = "(?:" + items[-1] + ")"
            items[-1] += q
            quantified[-1] = True
            i = nxt
        elif c == "^":
            items.append("^")
            quantified.append(False)
            i += 1
        elif c == "$":
            atom("$")
            i += 1
        elif c == ".":
            atom(".")
            i += 1
        else:
            atom(_lit(c))
            i += 1
    if stack:
        raise RegexError("Unmatched ( or \\(")
    return "".join(items)


def _options(icase: bool) -> re2.Options:
    o = re2.Options()
    o.posix_syntax = True
    o.longest_match = True
    o.perl_classes = True
    o.word_boundary = True
    o.one_line = True
    o.dot_nl = True
    o.log_errors = False
    o.case_sensitive = not icase
    o.max_mem = 32 << 20
    return o


def _encode(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


class Regex:
    """A compiled awk regex. `literal` is set when the pattern is plain text."""

    __slots__ = ("source", "literal", "icase", "_re", "groups")

    def __init__(self, source: str, icase: bool = False) -> None:
        self.source = source
        self.icase = icase
        self.literal: str | None = None
        if not icase and not (_SPECIAL & set(source)):
            self.literal = source
        translated = translate(source)
        rx = re2._re2.RE2(_encode(translated), _options(icase))
        if not rx.ok():
            raise RegexError(_re2_message(rx.error()))
        self._re = rx
        self.groups: int = rx.NumberOfCapturingGroups()

    def test(self, s: str) -> bool:
        lit = self.literal
        if lit is not None:
            return lit in s
        b = s.encode("utf-8", "surrogateescape")
        return bool(self._re.Match(_UNANCHORED, b, 0, len(b))[0][0] >= 0)

    def search(self, s: str, pos: int = 0) -> Span | None:
        """The leftmost-longest match at or after `pos` (character offsets)."""
        lit = self.literal
        if lit is not None:
            k = s.find(lit, pos)
            return None if k < 0 else (k, k + len(lit))
        spans = self.search_groups(s, pos)
        return None if spans is None else spans[0]

    def search_groups(self, s: str, pos: int = 0) -> list[Span] | None:
        """Spans of the whole match and each group ((-1, -1) when unset)."""
        if s.isascii():
            b = s.encode("ascii")
            spans = self._re.Match(_UNANCHORED, b, pos, len(b))
            return None if spans[0][0] < 0 else list(spans)
        b = _encode(s)
        bpos = len(_encode(s[:pos])) if pos else 0
        spans = self._re.Match(_UNANCHORED, b, bpos, len(b))
        if spans[0][0] < 0:
            return None
        return [(-1, -1) if a < 0 else (_char_off(b, a), _char_off(b, e)) for a, e in spans]

    def finditer(self, s: str) -> Iterator[Span]:
        """Successive matches as awk's gsub/split see them: an empty match
        right after the previous match is skipped."""
        lit = self.literal
        if lit:
            k = s.find(lit)
            while k >= 0:
                yield k, k + len(lit)
                k = s.find(lit, k + len(lit))
            return
        for spans in self.finditer_groups(s):
            yield spans[0]

    def finditer_groups(self, s: str) -> Iterator[list[Span]]:
        """Like finditer, with the spans of the groups too."""
        ascii_ = s.isascii()
        b = s.encode("ascii") if ascii_ else _encode(s)
        nb = len(b)
        bpos = 0
        last_end = -1
        match = self._re.Match
        while bpos <= nb:
            spans = match(_UNANCHORED, b, bpos, nb)
            st, en = spans[0]
            if st < 0:
                return
            if st == en and st == last_end:
                bpos = st + (1 if ascii_ else _char_len(b, st))
                continue
            if ascii_:
                yield list(spans)
            else:
                yield [(-1, -1) if a < 0 else (_char_off(b, a), _char_off(b, e)) for a, e in spans]
            last_end = en
            bpos = en if en > st else en + (1 if ascii_ else _char_len(b, en))


def _char_off(b: bytes, off: int) -> int:
    return len(b[:off].decode("utf-8", "surrogateescape"))


def _char_len(b: bytes, off: int) -> int:
    """Bytes in the character starting at b[off] (1 for an invalid byte)."""
    if off >= len(b):
        return 1
    lead = b[off]
    size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    try:
        b[off : off + size].decode("utf-8")
    except UnicodeDecodeError:
        return 1
    return size


def _re2_message(err: bytes) -> str:
    text = err.decode("utf-8", "replace")
    if "missing )" in text:
        return "Unmatched ( or \\("
    if "missing ]" in text:
        return "Unmatched [, [^, [:, [., or [="
    if "repetition" in text:
        return "Invalid preceding regular expression"
    return text


_CACHE: dict[tuple[str, bool], Regex] = {}


def compile_regex(source: str, icase: bool = False) -> Regex:
    """Compile (cached): dynamic regexes recompile from the same few strings."""
    key = (source, icase)
    rx = _CACHE.get(key)
    if rx is None:
        rx = Regex(source, icase)
        if len(_CACHE) > 512:
            _CACHE.clear()
        _CACHE[key] = rx
    return rx
