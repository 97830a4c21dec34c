"""The one place awk matches regular expressions: a thin adapter over the
shared layer (`sandbash.regex`, flavor "awk", leftmost-longest on RE2).

It adds what awk's hot paths want: patterns without metacharacters skip
the engine (`str.find` / `in`), which is what most `/foo/` patterns are,
and spans come back as plain tuples. Such a pattern compiles nothing: the
shared engine (with RE2, ~12 M instructions to load) is imported by the
first pattern that needs it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...limits import Budget
from ...regex import RETAINED_MAX
from ...regex.brackets import bracket_end
from ...textcache import TextLRU

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...regex import Regex as _Shared

Span = tuple[int, int]

_SPECIAL = frozenset("\\^$.[]|()*+?{}")


class RegexError(Exception):
    """An invalid regular expression; the message is GNU regex's wording."""


_ESCAPED_LITERAL = frozenset('/"\\.[]()*+?{}|^$')


def _bracket_end(source: str, i: int) -> int:
    """The index just past the bracket expression that starts at source[i] == '[' (past the
    end of the source when it is not closed)."""
    end = bracket_end(source, i, escapes=True, open_class_fails=False)
    return (end if end >= 0 else len(source)) + 1


def required_text(source: str) -> str:
    """The longest run of plain characters every match must contain ("" if
    none is certain): a cheap `in` test rejects most non-matching lines
    before the regex engine runs. Patterns with alternation have none."""
    if "|" in source:
        return ""
    best = ""
    run: list[str] = []
    i = 0
    n = len(source)
    depth = 0
    while i < n:
        c = source[i]
        ch = ""
        if c == "\\":
            if i + 1 < n and source[i + 1] in _ESCAPED_LITERAL:
                ch, width = source[i + 1], 2
            else:
                # \y, \s, \t, \123, \x41...: not counted; skip the escape and its digits
                width = 2
                digits = (
                    "01234567"
                    if i + 1 < n and source[i + 1].isdigit()
                    else "0123456789abcdefABCDEF"
                    if source[i + 1 : i + 2] == "x"
                    else ""
                )
                while digits and i + width < n and source[i + width] in digits and width < 4:
                    width += 1
        elif c == "[":
            width = _bracket_end(source, i) - i
        elif c == "{":
            close = source.find("}", i)  # an interval (or a literal brace: skipping it only loses text)
            width = (close if close > 0 else n) + 1 - i
        elif c in _SPECIAL:
            width = 1
            depth += 1 if c == "(" else -1 if c == ")" else 0
        else:
            ch, width = c, 1
        nxt = source[i + width] if i + width < n else ""
        if ch and depth == 0 and nxt not in ("*", "?", "{"):
            run.append(ch)
            if nxt == "+":
                ch = ""  # a repeated character ends the run
        else:
            ch = ""
        if not ch:
            if len(run) > len(best):
                best = "".join(run)
            run = []
        i += width
    if len(run) > len(best):
        best = "".join(run)
    return best if len(best) >= 2 else ""


_OCT = "01234567"
_HEX = "0123456789abcdefABCDEF"


def byte_escapes(source: str) -> str:
    """The regex with its escapes of bytes past 127 (`\\351`, `\\xe9`) made the text those bytes
    are: gawk reads them as bytes, so `/\\303\\251/` is `é` and `/\\351/` is the raw byte 0xE9 that a
    Latin-1 line holds (a surrogate escape here, as the line decodes), never the character U+00E9.
    A byte is never a metacharacter, so the result parses as the same pattern."""
    if "\\" not in source:
        return source
    out: list[str] = []
    run = bytearray()
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "\\" and i + 1 < n:
            d = source[i + 1]
            k = i + 1
            if d in _OCT:  # up to three octal digits, as the regex layer reads them
                while k < n and k < i + 4 and source[k] in _OCT:
                    k += 1
                value = int(source[i + 1 : k], 8) & 0xFF
            elif d == "x" and i + 2 < n and source[i + 2] in _HEX:  # up to two hex digits
                k = i + 2
                while k < n and k < i + 4 and source[k] in _HEX:
                    k += 1
                value = int(source[i + 2 : k], 16)
            else:
                value = -1
            if value >= 0x80:
                run.append(value)
                i = k
                continue
            if run:
                out.append(run.decode("utf-8", "surrogateescape"))
                run.clear()
            out.append(source[i : i + 2])  # any other escape (`\\\\` too) stays as written
            i += 2
            continue
        if run:
            out.append(run.decode("utf-8", "surrogateescape"))
            run.clear()
        out.append(c)
        i += 1
    if run:
        out.append(run.decode("utf-8", "surrogateescape"))
    return "".join(out)


class Regex:
    """A compiled awk regex. `literal` is set when the pattern is plain text;
    `needle` is text every match contains, tested before the engine."""

    __slots__ = ("source", "literal", "needle", "icase", "_rx", "groups")

    def __init__(self, source: str, icase: bool = False) -> None:
        source = byte_escapes(source)
        self.source = source
        self.icase = icase
        self.literal: str | None = None
        self.needle = ""
        self._rx: _Shared | None = None  # (None: a literal, matched without the engine)
        self.groups = 0
        if not icase and not (_SPECIAL & set(source)):
            self.literal = source
            if source:  # (the empty pattern's finditer is the engine's: empty matches)
                return
        elif not icase:
            self.needle = required_text(source)
        from ...regex import RegexError as SharedError
        from ...regex import compile_regex as shared_compile

        try:
            self._rx = shared_compile(source, "awk", icase)
        except SharedError as e:
            raise RegexError(e.message) from None
        self.groups = self._rx.groups

    def test(self, s: str) -> bool:
        lit = self.literal
        if lit is not None:
            return lit in s
        if self.needle and self.needle not in s:
            return False
        rx = self._rx  # (only plain text has none)
        assert rx is not None
        return rx.search(s) is not None

    def search(self, s: str, pos: int = 0) -> Span | None:
        """The leftmost-longest match at or after `pos`."""
        lit = self.literal
        if lit is not None:
            k = s.find(lit, pos)
            return None if k < 0 else (k, k + len(lit))
        if self.needle and self.needle not in s:
            return None
        rx = self._rx
        assert rx is not None
        m = rx.search(s, pos)
        return None if m is None else m.span()

    def search_groups(self, s: str, pos: int = 0) -> list[Span] | None:
        """Spans of the whole match and each group ((-1, -1) when unset)."""
        if self._rx is None:  # (plain text: the one span, no groups)
            span = self.search(s, pos)
            return None if span is None else [span]
        if self.needle and self.needle not in s:
            return None
        m = self._rx.search(s, pos)
        return None if m is None else m.spans()

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
        if self.needle and self.needle not in s:
            return
        rx = self._rx
        assert rx is not None
        for m in rx.finditer(s):
            yield m.span()

    def finditer_groups(self, s: str) -> Iterator[list[Span]]:
        """Like finditer, with the spans of the groups too."""
        if self._rx is None:
            for span in self.finditer(s):
                yield [span]
            return
        if self.needle and self.needle not in s:
            return
        for m in self._rx.finditer(s):
            yield m.spans()

    @property
    def retained(self) -> int:
        """Bytes the compiled pattern may hold."""
        return 0 if self._rx is None else self._rx.retained

    def bound(self, budget: Budget | None) -> Regex:
        """This pattern limited by a run's budget. Only the backtracking
        fallback engine needs it (RE2 runs in linear time); a copy then."""
        rx = self._rx
        if budget is None or rx is None or rx.engine == "re2":
            return self
        copy = Regex.__new__(Regex)
        copy.source, copy.literal, copy.needle, copy.icase, copy.groups = (
            self.source,
            self.literal,
            self.needle,
            self.icase,
            self.groups,
        )
        copy._rx = rx.with_budget(budget)
        return copy


# shared by every run of the process: bounded in entries, text and compiled size (T-TEN-5)
_CACHE: TextLRU[tuple[str, bool], Regex] = TextLRU(512, chars=1 << 18, retained=RETAINED_MAX)


def compile_regex(source: str, icase: bool = False, budget: Budget | None = None) -> Regex:
    """Compile (cached): dynamic regexes recompile from the same few strings."""
    key = (source, icase)
    rx = _CACHE.get(key)
    if rx is None:
        rx = Regex(source, icase)
        if len(source) <= 1024:  # a long dynamic regex is compiled each time, as before
            _CACHE.put(key, len(source), rx, rx.retained)
    return rx.bound(budget)
