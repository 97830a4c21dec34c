"""PCRE2 10.42's rule for lookbehind (what GNU grep -P links): each top-level alternative of a
`(?<=...)` or `(?<!...)` matches a fixed number of characters, and a group inside one has
alternatives all of one length. The fallback engine (`regex`) accepts any lookbehind, so grep -P
checks the pattern here first: `(?<=\\s+)x` is grep's "lookbehind assertion is not fixed length".

A small scanner, not a regex parser: anything it does not know (backreferences, \\g, subroutine
calls, verbs, extended mode) makes it answer "fine", the permissive side.
"""

from __future__ import annotations

VARIABLE = -1  # an item whose length varies


class _Unknown(Exception):
    """A construct the scanner does not measure: no verdict on the pattern."""


class _Scan:
    def __init__(self, p: str) -> None:
        self.p = p
        self.i = 0
        self.bad = False  # a lookbehind of variable length was seen

    def alternatives(self) -> list[int]:
        """The lengths of the alternatives from here to the `)` that closes this level (left
        unconsumed) or the end."""
        widths = [0]
        p = self.p
        while self.i < len(p) and p[self.i] != ")":
            if p[self.i] == "|":
                self.i += 1
                widths.append(0)
                continue
            w = self._quantified(self._atom())
            widths[-1] = VARIABLE if VARIABLE in (w, widths[-1]) else widths[-1] + w
        return widths

    def _quantified(self, w: int) -> int:
        p = self.p
        if self.i >= len(p):
            return w
        c = p[self.i]
        if c in "*+?":
            self.i += 1
            self._lazy_or_possessive()
            return VARIABLE
        if c == "{":
            close = p.find("}", self.i)
            body = p[self.i + 1 : close] if close > 0 else ""
            lo, sep, hi = body.partition(",")
            if not lo.strip().isdigit() or (sep and hi.strip() and not hi.strip().isdigit()):
                return w  # not a quantifier: a literal `{`, read as the next atom
            self.i = close + 1
            self._lazy_or_possessive()
            if sep and hi.strip() != lo.strip():
                return VARIABLE
            return VARIABLE if w == VARIABLE else w * int(lo)
        return w

    def _lazy_or_possessive(self) -> None:
        if self.i < len(self.p) and self.p[self.i] in "?+":
            self.i += 1

    def _atom(self) -> int:
        p = self.p
        c = p[self.i]
        if c == "\\":
            return self._escape()
        if c == "[":
            self._class()
            return 1
        if c == "(":
            return self._group()
        self.i += 1
        return 0 if c in "^$" else 1

    def _escape(self) -> int:
        p = self.p
        if self.i + 1 >= len(p):
            raise _Unknown
        d = p[self.i + 1]
        self.i += 2
        if d in "bBAzZGKE":
            return 0
        if d == "Q":
            end = p.find("\\E", self.i)
            end = len(p) if end < 0 else end
            n = end - self.i
            self.i = min(len(p), end + 2)
            return n
        if d in "xpPo" and self.i < len(p) and p[self.i] == "{":
            close = p.find("}", self.i)
            if close < 0:
                raise _Unknown
            self.i = close + 1
        elif d in "pP" and self.i < len(p):
            self.i += 1  # \pL
        elif d == "c":
            self.i += 1
        elif d.isdigit() or d in "gkR X":
            raise _Unknown  # backreferences, subroutines, \R and \X (one or two characters)
        return 1

    def _class(self) -> None:
        p = self.p
        i = self.i + 1
        if i < len(p) and p[i] == "^":
            i += 1
        if i < len(p) and p[i] == "]":
            i += 1
        while i < len(p) and p[i] != "]":
            if p[i] == "\\":
                i += 2
            elif p.startswith("[:", i):
                close = p.find(":]", i + 2)
                i = close + 2 if close > 0 else i + 1
            else:
                i += 1
        if i >= len(p):
            raise _Unknown
        self.i = i + 1

    def _group(self) -> int:
        p = self.p
        rest = p[self.i + 1 :]
        look = ""
        if rest.startswith(("?<=", "?<!")):
            look, skip = "behind", 4
        elif rest.startswith(("?=", "?!")):
            look, skip = "ahead", 3
        elif rest.startswith("?#"):
            close = p.find(")", self.i)
            self.i = len(p) if close < 0 else close + 1
            return 0
        elif rest.startswith(("?:", "?>", "?|")):
            skip = 3
        elif rest.startswith(("?<", "?P<", "?'")):
            close = p.find(">" if not rest.startswith("?'") else "'", self.i + 3)
            if close < 0:
                raise _Unknown
            skip = close - self.i + 1
        elif rest.startswith("?"):
            j = 1
            while j < len(rest) and (rest[j].isalpha() or rest[j] == "-"):
                j += 1
            flags = rest[1:j]
            if "x" in flags or not (j < len(rest) and rest[j] in ":)"):
                raise _Unknown  # extended mode, verbs, conditionals, recursion
            if rest[j] == ")":
                self.i += j + 2
                return 0
            skip = j + 2
        else:
            skip = 1
        self.i += skip
        widths = self.alternatives()
        if self.i >= len(p):
            raise _Unknown  # unbalanced: the engine reports it
        self.i += 1
        if look == "behind":
            if VARIABLE in widths:
                self.bad = True
            return 0
        if look:
            return 0
        return widths[0] if all(w == widths[0] for w in widths) else VARIABLE


def variable_lookbehind(pattern: str) -> bool:
    """Whether `pattern` has a lookbehind PCRE2 10.42 rejects as not of fixed length."""
    if "(?<" not in pattern:
        return False
    scan = _Scan(pattern)
    try:
        while scan.i < len(pattern):
            scan.alternatives()
            scan.i += 1  # (a stray `)`: the engine reports it)
    except _Unknown:
        return False
    return scan.bad
