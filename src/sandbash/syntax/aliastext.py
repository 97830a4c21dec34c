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
