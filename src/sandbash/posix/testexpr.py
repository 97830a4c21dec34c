"""The `test` / `[` expression language and the file tests `[[ ]]` shares.

The caller supplies a `TestEnv`: how to stat paths, the user's ids, and (for
the builtin) whether a variable is set. /usr/bin/test uses the same code.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from ..syntax.testops import BINARY_TESTS, UNARY_TESTS
from ..vfs.base import Stat
from . import number_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object  # the protocols are the type checker's: a plain base at run time (typing is ~2 ms of a start-up)


class TestError(Exception):
    pass


class TestEnv(Protocol):
    uid: int
    gid: int

    def stat(self, path: str) -> Stat | None: ...
    def lstat(self, path: str) -> Stat | None: ...
    def var_set(self, name: str) -> bool: ...
    def is_nameref(self, name: str) -> bool: ...
    def option(self, name: str) -> bool: ...


def _perm(env: TestEnv, st: Stat, bit: int) -> bool:
    if st.uid == env.uid:
        return bool(st.mode & (bit << 6))
    if st.gid == env.gid:
        return bool(st.mode & (bit << 3))
    return bool(st.mode & bit)


def unary_test(env: TestEnv, op: str, arg: str) -> bool:
    if op == "-z":
        return arg == ""
    if op == "-n":
        return arg != ""
    if op == "-v":
        return env.var_set(arg)
    if op == "-R":
        return env.is_nameref(arg)
    if op == "-o":
        return env.option(arg)
    if op == "-t":
        return False
    if op in ("-h", "-L"):
        st = env.lstat(arg) if arg else None
        return st is not None and st.is_link
    st = env.stat(arg) if arg else None
    if st is None:
        return False
    if op in ("-e", "-a"):
        return True
    if op == "-f":
        return st.is_file
    if op == "-d":
        return st.is_dir
    if op == "-s":
        return st.size > 0
    if op == "-r":
        return _perm(env, st, 4)
    if op == "-w":
        return _perm(env, st, 2)
    if op == "-x":
        return _perm(env, st, 1)
    if op == "-b":
        return (st.mode & 0o170000) == 0o060000
    if op == "-c":
        return st.is_chr
    if op == "-p":
        return (st.mode & 0o170000) == 0o010000
    if op == "-S":
        return (st.mode & 0o170000) == 0o140000
    if op == "-g":
        return bool(st.mode & 0o2000)
    if op == "-u":
        return bool(st.mode & 0o4000)
    if op == "-k":
        return bool(st.mode & 0o1000)
    if op == "-O":
        return st.uid == env.uid
    if op == "-G":
        return st.gid == env.gid
    if op == "-N":
        return st.mtime_ns > st.atime_ns
    return False


def file_compare(env: TestEnv, op: str, a: str, b: str) -> bool:
    sa = env.stat(a)
    sb = env.stat(b)
    if op == "-nt":
        return sa is not None and (sb is None or sa.mtime_ns > sb.mtime_ns)
    if op == "-ot":
        return sb is not None and (sa is None or sa.mtime_ns < sb.mtime_ns)
    # -ef
    return sa is not None and sb is not None and sa.ino == sb.ino and sa.dev == sb.dev


INT_OPS: dict[str, Callable[[int, int], bool]] = {
    "-eq": operator.eq,
    "-ne": operator.ne,
    "-lt": operator.lt,
    "-le": operator.le,
    "-gt": operator.gt,
    "-ge": operator.ge,
}


def collate(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def integer(s: str) -> int:
    """An operand of -eq and the like: decimal, blanks and a sign allowed, within 64 bits."""
    if s.isdigit() and s.isascii() and len(s) < 19:
        return int(s)  # (the common case: plain digits)
    text = number_text(s)
    body = text[1:] if text[:1] in "+-" else text
    if not body.isdigit() or not body.isascii():
        raise TestError(f"{s}: integer expression expected")
    value = int(text, 10)
    if not -(1 << 63) <= value < (1 << 63):
        raise TestError(f"{s}: integer expression expected")
    return value


# the binary operators that look at no file: strings and integers
STRING_INT_OPS = frozenset(["=", "==", "!=", "<", ">", *INT_OPS])


def string_int_test(a: str, op: str, b: str) -> bool:
    """`a OP b` for an operator in STRING_INT_OPS."""
    if op == "=" or op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return collate(a) < collate(b)
    if op == ">":
        return collate(a) > collate(b)
    return INT_OPS[op](integer(a), integer(b))


def quick_test(args: list[str]) -> bool | None:
    """The answer for the common shapes that need no environment (`[ "$a" = x ]`, `[ $n -lt 5 ]`,
    `[ -n "$s" ]`, `[ "$s" ]`), in the order TestParser.evaluate decides them; None for the rest."""
    n = len(args)
    if n == 3:
        op = args[1]
        if op in STRING_INT_OPS:
            return string_int_test(args[0], op, args[2])
        return None
    if n == 1:
        return args[0] != ""
    if n == 2:
        a = args[0]
        if a == "-n":
            return args[1] != ""
        if a == "-z" or a == "!":
            return args[1] == ""
    return None


class TestParser:
    """test as bash's test.c parses it: the argument-count rules for 0-4 arguments, then a
    recursive parser with ! -a -o ( ). `end` is the word after the arguments (`]` for `[`),
    which bash's messages name when a `)` is missing."""

    def __init__(self, env: TestEnv, args: list[str], end: str | None = None) -> None:
        self.env = env
        self.args = args
        self.end = end
        self.i = 0

    integer = staticmethod(integer)

    def binary(self, a: str, op: str, b: str) -> bool:
        if op in STRING_INT_OPS:
            return string_int_test(a, op, b)
        return file_compare(self.env, op, a, b)

    def evaluate(self) -> bool:
        args = self.args
        n = len(args)
        if n == 0:
            return False
        if n == 1:
            return args[0] != ""
        if n == 2:
            return self.two(args[0], args[1])
        if n == 3:
            return self.three(args)
        if n == 4 and args[0] == "!":
            return not self.three(args[1:])
        if n == 4 and args[0] == "(" and args[3] == ")":
            return self.two(args[1], args[2])
        result = self.expr_or()
        if self.i < n:
            # bash names a stray operator-looking word; anything else is one word too many
            if self.args[self.i][:1] == "-":
                raise TestError(f"syntax error: `{self.args[self.i]}' unexpected")
            raise TestError("too many arguments")
        return result

    def two(self, a: str, b: str) -> bool:
        if a == "!":
            return b == ""
        if a in UNARY_TESTS:
            return unary_test(self.env, a, b)
        raise TestError(f"{a}: unary operator expected")

    def three(self, args: list[str]) -> bool:
        # bash's order: a binary operator, then -a/-o, then !, then a bracketed word (its test
        # looks only at the first character of the brackets)
        if args[1] in BINARY_TESTS:
            return self.binary(args[0], args[1], args[2])
        if args[1] == "-a":
            return args[0] != "" and args[2] != ""
        if args[1] == "-o":
            return args[0] != "" or args[2] != ""
        if args[0] == "!":
            return not self.two(args[1], args[2])
        if args[0][:1] == "(" and args[2][:1] == ")":
            return args[1] != ""
        raise TestError(f"{args[1]}: binary operator expected")

    def peek(self) -> str | None:
        return self.args[self.i] if self.i < len(self.args) else None

    def take(self) -> str:
        if self.i >= len(self.args):
            raise TestError("argument expected")
        a = self.args[self.i]
        self.i += 1
        return a

    def expr_or(self) -> bool:
        left = self.expr_and()
        while self.peek() == "-o":
            self.i += 1
            right = self.expr_and()
            left = left or right
        return left

    def expr_and(self) -> bool:
        left = self.expr_not()
        while self.peek() == "-a":
            self.i += 1
            right = self.expr_not()
            left = left and right
        return left

    def expr_not(self) -> bool:
        if self.peek() == "!":
            self.i += 1
            return not self.expr_not()
        return self.primary()

    def primary(self) -> bool:
        a = self.take()
        left = len(self.args) - self.i  # words after `a`
        if a == "(":
            value = self.expr_or()
            nxt = self.peek()
            if nxt is None:
                raise TestError("`)' expected" + (f", found {self.end}" if self.end is not None else ""))
            if nxt != ")":
                raise TestError(f"`)' expected, found {nxt}")
            self.i += 1
            return value
        if left >= 2 and self.args[self.i] in BINARY_TESTS:  # a binary operator needs both operands
            op = self.args[self.i]
            self.i += 2
            return self.binary(a, op, self.args[self.i - 1])
        if left >= 1 and a == "-t":
            # -t takes the next word only when it is a number (a descriptor); else it tests fd 1
            if _is_number(self.args[self.i]):
                self.i += 1
            return False
        if left >= 1 and a in UNARY_TESTS:
            self.i += 1
            return unary_test(self.env, a, self.args[self.i - 1])
        return a != ""


def _is_number(s: str) -> bool:
    """bash's legal_number: optional blanks, a sign, decimal digits, optional blanks."""
    body = number_text(s)
    body = body[1:] if body[:1] in "+-" else body
    return body.isascii() and body.isdigit()
