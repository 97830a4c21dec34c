"""Brace expansion structure, found at parse time over a word's parts.

Only unquoted literal characters take part; quoted parts and expansions are
opaque atoms that travel inside the alternatives. `{a,b}` becomes `Brace`,
`{1..5..2}` becomes `BraceSeq`; anything else stays literal, as in bash.
"""

from __future__ import annotations

import functools
import re

from . import ast as A

Atom = str | A.Part  # a one-character str is an unquoted literal character


@functools.cache
def _seq_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """({1..9..2}, {a..z}): compiled when a brace first looks like a sequence (~0.3 ms of every start)."""
    return (
        re.compile(r"([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?"),
        re.compile(r"([^\\])\.\.([^\\])(?:\.\.([-+]?\d+))?"),
    )


def brace_parts(parts: list[A.Part]) -> list[A.Part]:
    atoms: list[Atom] = []
    for p in parts:
        if isinstance(p, A.Lit):
            atoms.extend(p.text)
        else:
            atoms.append(p)
    return _parse(atoms, _Scan(atoms), 0, len(atoms))


def _merge(items: list[Atom | A.Part]) -> list[A.Part]:
    out: list[A.Part] = []
    buf: list[str] = []
    for it in items:
        if isinstance(it, str):
            buf.append(it)
        else:
            if buf:
                out.append(A.Lit("".join(buf)))
                buf = []
            out.append(it)
    if buf:
        out.append(A.Lit("".join(buf)))
    return out


class _Scan:
    """Bash's brace_gobbler over a word's atoms, answered in O(1) per brace from tables built in one
    pass: `nxt[x]` is the next position at the same nesting level (a `{...}` group, or a `${`
    group, is stepped over whole), `sep[x]` the first separator (`,` or a `..` not just before a
    `}`) at or after x on that level, `close_at[x]` the first `}` on that level. A `{` opens a brace
    expansion when a separator precedes such a `}`; the `}` closing it is the first one after that
    separator, even past the `{`'s own `}` (bash reads `{a}b,c}` as alternatives `a}b` and `c`)."""

    def __init__(self, atoms: list[Atom]) -> None:
        n = len(atoms)
        self.match = match = [-1] * n  # each `{`'s own `}` (-1: none)
        stack: list[int] = []
        for j, a in enumerate(atoms):
            if a == "{":
                stack.append(j)
            elif a == "}" and stack:
                match[stack.pop()] = j
        never = n + 1
        self.sep = sep = [never] * (n + 2)
        self.close_at = close_at = [never] * (n + 2)
        for x in range(n - 1, -1, -1):
            a = atoms[x]
            if a == "{" or (a == "$" and x + 1 < n and atoms[x + 1] == "{"):
                opener = x if a == "{" else x + 1
                after = match[opener] + 1 if match[opener] >= 0 else never
            else:
                after = x + 1
            if a == "," or (
                a == "." and x + 1 < n and atoms[x + 1] == "." and (x + 2 >= n or atoms[x + 2] != "}")
            ):
                sep[x] = x
            else:
                sep[x] = sep[after] if after <= n else never
            close_at[x] = x if a == "}" else (close_at[after] if after <= n else never)

    def closing(self, open_at: int, end: int) -> int:
        """The `}` ending the brace expansion opened at `open_at` within atoms[:end], or -1."""
        y = self.sep[open_at + 1]
        if y >= end:
            return -1
        z = self.close_at[y + 1]
        return z if z < end else -1


def _parse(atoms: list[Atom], scan: _Scan, lo: int, hi: int) -> list[A.Part]:
    """atoms[lo:hi] as bash's brace_expand reads that text: literal text up to the first `{` that
    opens a brace expansion, the expansion, then the rest read the same way."""
    items: list[Atom | A.Part] = []
    i = lo
    while i < hi:
        j = i
        found = -1
        while j < hi:
            a = atoms[j]
            if a == "$" and j + 1 < hi and atoms[j + 1] == "{":  # `${...}` is not a brace expansion
                own = scan.match[j + 1]
                j = own + 1 if 0 <= own < hi else hi
                continue
            # a `{` starting the text and followed by `}` is plain (bash: `{}` alone stays)
            if a == "{" and not (j == lo and j + 1 < hi and atoms[j + 1] == "}"):
                close = scan.closing(j, hi)
                if close >= 0:
                    found = close
                    break
            j += 1
        items.extend(atoms[i:j])
        if found < 0:
            break
        items.extend(_amble(atoms, scan, j, found))
        i = found + 1
    return _merge(items)


def _amble(atoms: list[Atom], scan: _Scan, open_at: int, close: int) -> list[Atom | A.Part]:
    """The brace expansion atoms[open_at:close + 1]: alternatives when a comma is anywhere inside
    (`{{1,2}..3}` is one alternative, `{1,2}..3`), else a sequence, else the text as it is."""
    inner = atoms[open_at + 1 : close]
    if "," not in inner:
        seq = None
        if close - open_at <= 256 and all(isinstance(x, str) for x in inner):  # a sequence is short text
            seq = _sequence("".join(inner))  # type: ignore[arg-type]
        return [seq] if seq is not None else list(atoms[open_at : close + 1])
    alts: list[tuple[A.Part, ...]] = []
    start = open_at + 1
    for k in _top_commas(atoms, scan, open_at + 1, close):
        alts.append(tuple(_parse(atoms, scan, start, k)))
        start = k + 1
    alts.append(tuple(_parse(atoms, scan, start, close)))
    return [A.Brace(tuple(alts))]


def _top_commas(atoms: list[Atom], scan: _Scan, lo: int, hi: int) -> list[int]:
    """The commas of atoms[lo:hi] outside nested groups (bash's brace_gobbler for `,`)."""
    out: list[int] = []
    x = scan.sep[lo] if lo < len(scan.sep) else hi
    while x < hi:
        if atoms[x] == ",":
            out.append(x)
        x = scan.sep[x + 1]
    return out


def _sequence(text: str) -> A.BraceSeq | None:
    if ".." not in text:
        return None
    seq_int, seq_char = _seq_patterns()
    m = seq_int.fullmatch(text)
    if m:
        start, end = int(m.group(1)), int(m.group(2))
    else:
        m = seq_char.fullmatch(text)
        if not (m and all(c.isascii() and c.isalpha() for c in (m.group(1), m.group(2)))):
            return None
        start, end = ord(m.group(1)), ord(m.group(2))
    if not _bash_makes(start, end, int(m.group(3)) if m.group(3) else 1):
        return None
    return A.BraceSeq(m.group(1), m.group(2), m.group(3))


_INTMAX = (1 << 63) - 1
_INT_MAX = (1 << 31) - 1


def _bash_makes(start: int, end: int, step: int) -> bool:
    """Whether bash 5.2 expands the sequence at all: it leaves the braces as text when a number
    overflows intmax_t (strtoimax's ERANGE) and where its mkseq gives up: a step of INTMAX_MIN
    that would be negated, an end-start difference past intmax_t's edges, or more than
    INT_MAX-2 items (so `for i in {1..99999999999999}` runs once, with the text)."""
    if not all(-_INTMAX - 1 <= v <= _INTMAX for v in (start, end, step)):
        return False
    if start < end and step == -_INTMAX - 1:
        return False
    # SUBOVERFLOW(end, start, INTMAX_MIN+3, INTMAX_MAX-2): one bound, by the sign of start
    if (start > 0 and end < -_INTMAX - 1 + 3 + start) or (start < 0 and end > _INTMAX - 2 + start):
        return False
    return abs(end - start) // (abs(step) or 1) <= _INT_MAX - 3
