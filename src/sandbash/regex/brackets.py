"""The one scanner for bracket expressions (`[a-z]`, `[^]x]`, `[[:digit:]]`) in the pattern
languages that have them: shell globs, POSIX regexes as sed, awk and find write them.

It only finds where a bracket expression ends; the engines parse its inside themselves.
"""

from __future__ import annotations


def bracket_end(
    text: str,
    i: int,
    negators: str = "^",
    escapes: bool = False,
    newline_ends: bool = False,
    open_class_fails: bool = True,
) -> int:
    """Index of the `]` that closes the bracket expression whose `[` is at `text[i]`, or -1.

    A `]` first in the list (after a negator) is a member; `[:name:]`, `[=c=]` and `[.c.]` are
    skipped whole. `escapes`: a backslash takes the next character along (globs, awk);
    POSIX brackets take it literally. `newline_ends`: a newline leaves the expression open
    (sed reads one line). `open_class_fails`: a `[:` without its `:]` leaves it open; otherwise
    that `[` is a plain member (awk, find).
    """
    n = len(text)
    j = i + 1
    if j < n and text[j] in negators:
        j += 1
    if j < n and text[j] == "]":
        j += 1
    while j < n:
        c = text[j]
        if c == "]":
            return j
        if c == "\n" and newline_ends:
            return -1
        if c == "\\" and escapes:
            j += 2
            continue
        if c == "[" and j + 1 < n and text[j + 1] in ":.=":
            close = text.find(text[j + 1] + "]", j + 2)
            if close >= 0:
                j = close + 2
                continue
            if open_class_fails:
                return -1
        j += 1
    return -1
