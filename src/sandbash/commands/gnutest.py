"""coreutils' test and [ (/usr/bin/test, run by env, find -exec, xargs), as its test.c decides.

The shell's builtin test shares the file and string tests (posix/testexpr.py) but not the grammar:
coreutils dispatches on the argument count first (one to four arguments), evaluates both sides of
-a and -o (an invalid integer on the right of a true -o is still an error), compares integers of any
length, has no -v/-R/-o/-a unary operators, and words its errors with the locale's quotes
(`test: invalid integer 'x'` with curly quotes in a UTF-8 locale, `missing argument after 'y'`).
"""

from __future__ import annotations

from collections.abc import Callable

from ..posix.testexpr import TestEnv, file_compare, unary_test

# test_unop(): the unary operators coreutils knows (no -a, -o, -v, -R)
_UNARY = frozenset("bcdefghkLnprstuwxzGNOS")
_BINARY = frozenset(("=", "==", "!=", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le", "-gt", "-ge"))
_INT_OPS = frozenset(("-eq", "-ne", "-lt", "-le", "-gt", "-ge"))
_BLANKS = " \t"


class GnuTestError(Exception):
    """A syntax error: coreutils prints `NAME: message` and exits 2."""


class GnuTest:
    """One evaluation of test's arguments (without a trailing `]`)."""

    def __init__(self, env: TestEnv, args: list[str], quote: Callable[[str], str]) -> None:
        self.env = env
        self.args = args
        self.n = len(args)
        self.pos = 0
        self.q = quote

    def run(self) -> bool:
        if not self.args:
            return False
        value = self.posixtest(self.n)
        if self.pos != self.n:
            raise GnuTestError(f"extra argument {self.q(self.args[self.pos])}")
        return value

    def beyond(self) -> GnuTestError:
        return GnuTestError(f"missing argument after {self.q(self.args[-1])}")

    def advance(self, need_more: bool) -> None:
        self.pos += 1
        if need_more and self.pos >= self.n:
            raise self.beyond()

    def at(self, offset: int) -> str | None:
        i = self.pos + offset
        return self.args[i] if i < self.n else None

    def posixtest(self, nargs: int) -> bool:
        if nargs == 1:
            return self.one()
        if nargs == 2:
            return self.two()
        if nargs == 3:
            return self.three()
        if nargs == 4:
            if self.args[self.pos] == "!":
                self.advance(True)
                return not self.three()
            if self.args[self.pos] == "(" and self.at(3) == ")":
                self.advance(False)
                value = self.two()
                self.advance(False)
                return value
        return self.expr()

    def one(self) -> bool:
        self.pos += 1
        return self.args[self.pos - 1] != ""

    def two(self) -> bool:
        a = self.args[self.pos]
        if a == "!":
            self.advance(False)
            return not self.one()
        if len(a) == 2 and a[0] == "-":
            if a[1] in _UNARY:
                return self.unary()
            raise GnuTestError(f"{self.q(a)}: unary operator expected")
        raise self.beyond()

    def three(self) -> bool:
        op = self.args[self.pos + 1]
        if op in _BINARY:
            return self.binary(False)
        if self.args[self.pos] == "!":
            self.advance(True)
            return not self.two()
        if self.args[self.pos] == "(" and self.args[self.pos + 2] == ")":
            self.advance(False)
            value = self.one()
            self.advance(False)
            return value
        if op in ("-a", "-o"):
            return self.expr()
        raise GnuTestError(f"{self.q(op)}: binary operator expected")

    def expr(self) -> bool:
        value = False
        while True:  # both sides are always evaluated (no short circuit)
            value = self.and_() | value
            if self.at(0) != "-o":
                return value
            self.advance(False)

    def and_(self) -> bool:
        value = True
        while True:
            value = self.term() & value
            if self.at(0) != "-a":
                return value
            self.advance(False)

    def term(self) -> bool:
        if self.pos >= self.n:
            raise self.beyond()
        negated = False
        while self.pos < self.n and self.args[self.pos] == "!":
            self.advance(True)
            negated = not negated
        a = self.args[self.pos]
        left = self.n - self.pos
        if a == "(":
            self.advance(True)
            nargs = 1
            while self.pos + nargs < self.n and self.args[self.pos + nargs] != ")":
                nargs += 1
                if nargs == 4:
                    nargs = self.n - self.pos
                    break
            value = self.posixtest(nargs)
            close = self.at(0)
            if close is None:
                raise GnuTestError(f"{self.q(')')} expected")
            if close != ")":
                raise GnuTestError(f"{self.q(')')} expected, found {self.q(close)}")
            self.advance(False)
        elif left >= 4 and a == "-l" and self.args[self.pos + 2] in _BINARY:
            value = self.binary(True)
        elif left >= 3 and self.args[self.pos + 1] in _BINARY:
            value = self.binary(False)
        elif len(a) == 2 and a[0] == "-":
            if a[1] not in _UNARY:
                raise GnuTestError(f"{self.q(a)}: unary operator expected")
            value = self.unary()
        else:
            value = a != ""
            self.advance(False)
        return negated != value

    def unary(self) -> bool:
        op = self.args[self.pos]
        self.advance(True)
        self.pos += 1
        arg = self.args[self.pos - 1]
        if op == "-t":
            self.integer(arg)  # no terminal in the sandbox: a valid descriptor is never one
            return False
        return unary_test(self.env, op, arg)

    def integer(self, s: str) -> int:
        """find_int(): blanks, one sign, at least one digit, blanks; of any length."""
        n = len(s)
        i = 0
        while i < n and s[i] in _BLANKS:
            i += 1
        start = i
        if i < n and s[i] in "+-":
            i += 1
        j = i
        while j < n and "0" <= s[j] <= "9":
            j += 1
        end = j
        while j < n and s[j] in _BLANKS:
            j += 1
        if end == i or j != n:
            raise GnuTestError(f"invalid integer {self.q(s)}")
        return int(s[start:end])

    def binary(self, left_is_length: bool) -> bool:
        if left_is_length:
            self.advance(False)
        op_i = self.pos + 1
        op = self.args[op_i]
        right_is_length = op_i < self.n - 2 and self.args[op_i + 1] == "-l"
        if right_is_length:
            self.advance(False)
        left, right = self.args[op_i - 1], self.args[op_i + 2 if right_is_length else op_i + 1]
        self.pos += 3
        if op in _INT_OPS:
            a = len(left) if left_is_length else self.integer(left)
            b = len(right) if right_is_length else self.integer(right)
            return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b, "-ge": a >= b}[
                op
            ]
        if left_is_length or right_is_length:
            raise GnuTestError(f"{op} does not accept -l")
        if op in ("-nt", "-ot", "-ef"):
            return file_compare(self.env, op, left, right)
        if op == "!=":
            return left != right
        return left == right
