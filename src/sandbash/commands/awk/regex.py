"""The one place awk matches regular expressions: a thin adapter over the
shared layer (`sandbash.regex`, flavor "awk", leftmost-longest on RE2).

It adds what awk's hot paths want: patterns without metacharacters skip
the engine (`str.find` / `in`), which is what most `/foo/` patterns are,
and spans come back as plain tuples.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...regex import RegexError as _SharedError
from ...regex import compile_regex as _shared_compile

Span = tuple[int, int]

_SPECIAL = frozenset("\\^$.[]|()*+?{}")


class RegexError(Exception):
    """An invalid regular expression; the message is GNU regex's wording."""


class Regex:
    """A compiled awk regex. `literal` is set when the pattern is plain text."""

    __slots__ = ("source", "literal", "icase", "_rx", "groups")

    def __init__(self, source: str, icase: bool = False) -> None:
        self.source = source
        self.icase = icase
        self.literal: str | None = None
        if not icase and not (_SPECIAL & set(source)):
            self.literal = source
        try:
            self._rx = _shared_compile(source, "awk", icase)
        except _SharedError as e:
            raise RegexError(e.message) from None
        self.groups: int = self._rx.groups

    def test(self, s: str) -> bool:
        lit = self.literal
        if lit is not None:
            return lit in s
        return self._rx.search(s) is not None

    def search(self, s: str, pos: int = 0) -> Span | None:
        """The leftmost-longest match at or after `pos`."""
        lit = self.literal
        if lit is not None:
            k = s.find(lit, pos)
            return None if k < 0 else (k, k + len(lit))
        m = self._rx.search(s, pos)
        return None if m is None else m.span()

    def search_groups(self, s: str, pos: int = 0) -> list[Span] | None:
        """Spans of the whole match and each group ((-1, -1) when unset)."""
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
        for m in self._rx.finditer(s):
            yield m.span()

    def finditer_groups(self, s: str) -> Iterator[list[Span]]:
        """Like finditer, with the spans of the groups too."""
        for m in self._rx.finditer(s):
            yield m.spans()


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
