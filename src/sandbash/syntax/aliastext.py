"""Where alias values were put into the source being parsed, for bash's line numbers.

The parser expands an alias by splicing its value into the source text. bash instead pushes the
value as a string to read before the rest of the line, so:
- a newline inside a value is not a line of the script (`$LINENO` and error messages after it
  keep the line the alias was used on);
- bash 5.2 reads the body of a here-document whose line ends inside an alias value from the script
  lines after the one the alias was used on, not from the value (`alias h='cat <<E` + newline +
  `x'`: the body is what follows in the script, then `x` runs as a command).
"""

from __future__ import annotations

import bisect


class AliasSpans:
    """Disjoint, sorted (start, end) ranges of the source that hold alias text with newlines."""

    __slots__ = ("spans", "_starts", "_counts")

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []
        self._starts: list[int] = []
        self._counts: list[int] | None = None

    def expanded(self, start: int, end: int, value: str) -> None:
        """The source between start and end was replaced by `value`."""
        delta = len(value) - (end - start)
        spans: list[tuple[int, int]] = []
        inside = False
        for s, t in self.spans:
            if t <= start:
                spans.append((s, t))
            elif s >= end:
                spans.append((s + delta, t + delta))
            else:  # an alias used inside another one's value: the outer range covers it
                spans.append((s, t + delta))
                inside = True
        if not inside and "\n" in value:
            bisect.insort(spans, (start, start + len(value)))
        self._set(spans)

    def _set(self, spans: list[tuple[int, int]]) -> None:
        self.spans = spans
        self._starts = [s for s, _ in spans]
        self._counts = None

    def containing(self, pos: int) -> tuple[int, int] | None:
        k = bisect.bisect_right(self._starts, pos)
        if k and self.spans[k - 1][1] > pos:
            return self.spans[k - 1]
        return None

    def newlines_before(self, src: str, pos: int) -> int:
        """The newlines of alias text before `pos`."""
        spans = self.spans
        if not spans:
            return 0
        counts = self._counts
        if counts is None:
            counts = [0]
            for s, t in spans:
                counts.append(counts[-1] + src.count("\n", s, t))
            self._counts = counts
        k = bisect.bisect_left(self._starts, pos)
        if not k:
            return 0
        s, t = spans[k - 1]
        return counts[k] if t <= pos else counts[k - 1] + src.count("\n", s, pos)

    def moved(self, at: int, start: int, end: int) -> None:
        """The source between start and end (after `at`) was moved to `at`."""
        size = end - start
        spans: list[tuple[int, int]] = []
        for s, t in self.spans:
            if t <= at or s >= end:
                spans.append((s, t))
            elif s < at:  # the range the text went into is split around it
                spans.append((s, at))
                spans.append((at + size, t + size))
            else:
                spans.append((s + size, t + size))
        self._set(spans)


# bash's shellblank and shellmeta characters: an alias value ending in one is popped when its last
# token is read, not kept by the space shell_getc returns at its end (END_ALIAS)
_POPPED_AFTER = frozenset(" \t\n;&|<>()")


class AliasUses:
    """The aliases expanded on the lines being parsed: (start, end) of each value in the source,
    the word it replaced and the value, for the line bash quotes after a syntax error. bash reads
    a value as a string pushed before the rest of the line (parse.y's push_string), so the line it
    quotes (print_offending_line's shell_input_line) is the value when the bad token is in it, and
    the line as written, alias names and all, when the token comes after it."""

    __slots__ = ("uses",)

    def __init__(self) -> None:
        self.uses: list[tuple[int, int, str, str]] = []

    def edited(self, start: int, end: int, text: str) -> None:
        """The source between start and end became `text`: the values after it move, one holding
        it grows (an alias used in another's value)."""
        if not self.uses:
            return
        delta = len(text) - (end - start)
        uses = []
        for s, t, name, value in self.uses:
            if t <= start:
                uses.append((s, t, name, value))
            elif s >= end:
                uses.append((s + delta, t + delta, name, value))
            else:
                uses.append((s, t + delta, name, value))
        self.uses = uses

    def add(self, start: int, name: str, value: str, line_start: int) -> None:
        """`name` at `start` was replaced by `value` (after `edited`); the uses that ended before
        `line_start`, a line the parser has left, are forgotten."""
        uses = [u for u in self.uses if u[1] > line_start]
        uses.append((start, start + len(value), name, value))
        self.uses = uses

    def quoted_line(self, src: str, pos: int, end: int, word: bool) -> str | None:
        """The line bash quotes for a bad token at pos..end (`word`: a word, not an operator), or
        None when no alias was used on its line. In a value: that value, its last character a
        space when the token ends it and it does not end in a blank or metacharacter (bash's
        END_ALIAS space, which read_token_word puts back over that character: `alias x='echo;
        fi'` quotes `echo; f `); after one: the line with the alias names as written. An operator
        that ends a value is read with a look at the character after it (bash's read_token), which
        pops the value first: the line around it is quoted (`alias x='echo )'; x` quotes `x`)."""
        # (a use inside another's value comes after it: the innermost last)
        for _s, t, _name, value in reversed([u for u in self.uses if u[0] <= pos < u[1]]):
            if not word and end >= t:
                continue
            if word and end >= t and value and value[-1] not in _POPPED_AFTER:
                return value[:-1] + " "
            return value
        start = src.rfind("\n", 0, pos) + 1
        stop = src.find("\n", pos)
        if stop < 0:
            stop = len(src)
        outer = [u for u in self.uses if u[0] < stop and u[1] > start]
        if not outer:
            return None
        # (a value with a newline in it stays one line, as bash reads it)
        start = src.rfind("\n", 0, min(start, outer[0][0])) + 1
        last = max(stop, max(u[1] for u in outer))
        stop = src.find("\n", last)
        if stop < 0:
            stop = len(src)
        pieces: list[str] = []
        at = start
        for s, t, name, _value in sorted(outer, key=lambda u: (u[0], -u[1])):
            if s >= at:  # (one inside an outer value goes with it)
                pieces += (src[at:s], name)
                at = t
        pieces.append(src[at:stop])
        return "".join(pieces)
