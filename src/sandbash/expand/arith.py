"""Evaluation of parsed arithmetic with bash's 64-bit wrap-around and errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..syntax.arith import ArithSyntaxError, parse_arith, parse_number
from ..syntax.ast import AAssign, ABinary, AIncDec, ANum, Arith, ATernary, AUnary, AVar

_MASK = (1 << 64) - 1
_SIGN = 1 << 63
MAX_RECURSION = 1024


def wrap(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v & _SIGN else v


class ArithError(Exception):
    """An arithmetic error: `text` is the expression, `token` the error token."""

    def __init__(self, message: str, text: str, token: str) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.token = token

    def render(self) -> str:
        return f"{self.text}: {self.message} (error token is \"{self.token}\")"


class ArithVars(Protocol):
    def arith_get(self, name: str, sub: str | None) -> str | None: ...
    def arith_set(self, name: str, sub: str | None, value: int) -> None: ...


def parse_or_raise(text: str) -> Arith:
    try:
        return parse_arith(text)
    except ArithSyntaxError as e:
        shown = text.lstrip()
        offset = len(text) - len(shown)
        if e.whole and e.token is not None:
            raise ArithError(e.message, e.token, e.token)
        if e.token is not None:
            raise ArithError(e.message, e.token, e.token)
        raise ArithError(e.message, shown, text[max(e.pos, offset) :])


class Evaluator:
    """Evaluates an arithmetic tree; variable values are themselves
    expressions, evaluated recursively as bash does."""

    __slots__ = ("vars", "text", "depth", "sub_eval")

    def __init__(self, vars: ArithVars, text: str, sub_eval: Callable[[str], int] | None = None) -> None:
        self.vars = vars
        self.text = text
        self.depth = 0
        self.sub_eval = sub_eval

    def error(self, message: str, pos: int) -> ArithError:
        text = self.text
        shown = text.lstrip()
        return ArithError(message, shown, text[pos:] if pos >= 0 else "")

    def value_of(self, raw: str | None) -> int:
        if raw is None or raw == "":
            return 0
        s = raw.strip()
        if not s:
            return 0
        if s.isdigit() and (s[0] != "0" or len(s) == 1):
            return wrap(int(s))
        if s[0] == "-" and s[1:].isdigit() and (len(s) == 2 or s[1] != "0"):
            return wrap(int(s))
        self.depth += 1
        if self.depth > MAX_RECURSION:
            raise ArithError("expression recursion level exceeded", s, s)
        try:
            node = parse_or_raise(raw)
            saved = self.text
            self.text = raw
            try:
                return self.eval(node)
            finally:
                self.text = saved
        finally:
            self.depth -= 1

    def get(self, node: AVar) -> int:
        return self.value_of(self.vars.arith_get(node.name, node.sub))

    def eval(self, node: Arith) -> int:
        if isinstance(node, ANum):
            return node.value
        if isinstance(node, AVar):
            return self.get(node)
        if isinstance(node, ABinary):
            return self.binary(node)
        if isinstance(node, AUnary):
            v = self.eval(node.operand)
            op = node.op
            if op == "-":
                return wrap(-v)
            if op == "+":
                return v
            if op == "!":
                return 0 if v else 1
            return wrap(~v)
        if isinstance(node, AAssign):
            return self.assign(node)
        if isinstance(node, AIncDec):
            old = self.get(node.target)
            new = wrap(old + 1 if node.op == "++" else old - 1)
            self.vars.arith_set(node.target.name, node.target.sub, new)
            return new if node.prefix else old
        if isinstance(node, ATernary):
            return self.eval(node.then) if self.eval(node.cond) else self.eval(node.other)
        result = 0
        for item in node.items:
            result = self.eval(item)
        return result

    def binary(self, node: ABinary) -> int:
        op = node.op
        if op == "&&":
            return 1 if self.eval(node.left) and self.eval(node.right) else 0
        if op == "||":
            return 1 if self.eval(node.left) or self.eval(node.right) else 0
        a = self.eval(node.left)
        b = self.eval(node.right)
        return self.apply(op, a, b, node.pos)

    def apply(self, op: str, a: int, b: int, pos: int) -> int:
        if op == "+":
            return wrap(a + b)
        if op == "-":
            return wrap(a - b)
        if op == "*":
            return wrap(a * b)
        if op == "/" or op == "%":
            if b == 0:
                raise self.error("division by 0", pos)
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            if op == "/":
                return wrap(q)
            return wrap(a - q * b)
        if op == "**":
            if b < 0:
                raise self.error("exponent less than 0", pos)
            return _ipow(a, b)
        if op == "<<":
            return wrap(a << (b & 63))
        if op == ">>":
            return a >> (b & 63)
        if op == "<":
            return int(a < b)
        if op == ">":
            return int(a > b)
        if op == "<=":
            return int(a <= b)
        if op == ">=":
            return int(a >= b)
        if op == "==":
            return int(a == b)
        if op == "!=":
            return int(a != b)
        if op == "&":
            return a & b
        if op == "|":
            return a | b
        if op == "^":
            return a ^ b
        raise self.error("syntax error in expression", pos)

    def assign(self, node: AAssign) -> int:
        target = node.target
        if node.op == "=":
            value = self.eval(node.value)
        else:
            cur = self.get(target)
            rhs = self.eval(node.value)
            value = self.apply(node.op[:-1], cur, rhs, -1)
        self.vars.arith_set(target.name, target.sub, value)
        return value


def _ipow(a: int, b: int) -> int:
    result = 1
    base = a
    while b:
        if b & 1:
            result = wrap(result * base)
        base = wrap(base * base)
        b >>= 1
    return result


def evaluate(text: str, vars: ArithVars) -> int:
    """Parse (cached) and evaluate arithmetic text."""
    node = parse_or_raise(text)
    return Evaluator(vars, text).eval(node)


def literal_int(text: str) -> int | None:
    """A bash integer constant, or None (used by `test -eq` and friends)."""
    try:
        return parse_number(text)
    except ArithSyntaxError:
        return None
