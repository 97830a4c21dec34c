"""expr: evaluate an expression given as separate arguments.

A recursive-descent parser over argv, GNU's grammar and messages: integers
are arbitrary precision (as GNU's GMP build), `:` matches a basic regular
expression anchored at the start through the shared regex layer, and the
`evaluate` flag lets `|` and `&` skip errors in the branch they short-circuit.
Exit status: 0 (result neither null nor empty), 1 (null or empty), 2 (usage
or syntax error), 3 (other error).
"""

from __future__ import annotations

from ..regex import RegexError, compile_regex
from .context import CommandExit, Ctx
from .options import CommandSpec
from .record import Effects, WriteFailure, declare
from .shellutils.common import quote

SPEC = CommandSpec(
    "expr",
    "EXPRESSION\n  or:  expr OPTION",
    "Print the value of EXPRESSION to standard output.",
    usage_status=2,
)

Value = int | str


class ExprError(Exception):
    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _looks_like_integer(s: str) -> bool:
    digits = s[1:] if s.startswith("-") else s
    return bool(digits) and digits.isascii() and digits.isdigit()


def _is_null(v: Value) -> bool:
    """GNU null(): 0, "", and strings of zeros with an optional minus."""
    if isinstance(v, int):
        return v == 0
    if v == "":
        return True
    digits = v[1:] if v.startswith("-") else v
    return bool(digits) and all(c == "0" for c in digits)


def _to_int(v: Value) -> int | None:
    if isinstance(v, int):
        return v
    return int(v) if _looks_like_integer(v) else None


def _to_str(v: Value) -> str:
    return str(v) if isinstance(v, int) else v


class _Parser:
    def __init__(self, ctx: Ctx, args: list[str]) -> None:
        self.ctx = ctx
        self.args = args
        self.pos = 0

    def _next_is(self, token: str) -> bool:
        if self.pos < len(self.args) and self.args[self.pos] == token:
            self.pos += 1
            return True
        return False

    def _peek_in(self, tokens: tuple[str, ...]) -> str | None:
        if self.pos < len(self.args) and self.args[self.pos] in tokens:
            tok = self.args[self.pos]
            self.pos += 1
            return tok
        return None

    def parse(self) -> Value:
        value = self.or_(True)
        if self.pos < len(self.args):
            raise ExprError(f"syntax error: unexpected argument {quote(self.args[self.pos])}")
        return value

    def or_(self, ev: bool) -> Value:
        left = self.and_(ev)
        while self._next_is("|"):
            right = self.and_(ev and _is_null(left))
            if _is_null(left):
                left = right if not _is_null(right) else 0
        return left

    def and_(self, ev: bool) -> Value:
        left = self.compare(ev)
        while self._next_is("&"):
            right = self.compare(ev and not _is_null(left))
            if _is_null(left) or _is_null(right):
                left = 0
        return left

    def compare(self, ev: bool) -> Value:
        left = self.additive(ev)
        while (op := self._peek_in(("<", "<=", "=", "==", "!=", ">=", ">"))) is not None:
            right = self.additive(ev)
            if not ev:
                left = 0
                continue
            a, b = _to_str(left), _to_str(right)
            if _looks_like_integer(a) and _looks_like_integer(b):
                cmp = (int(a) > int(b)) - (int(a) < int(b))
            else:
                # the sandbox runs in a UTF-8 locale whose collation is codepoint order
                ab = a.encode("utf-8", "surrogateescape")
                bb = b.encode("utf-8", "surrogateescape")
                cmp = (ab > bb) - (ab < bb)
            left = int(
                {
                    "<": cmp < 0,
                    "<=": cmp <= 0,
                    "=": cmp == 0,
                    "==": cmp == 0,
                    "!=": cmp != 0,
                    ">=": cmp >= 0,
                    ">": cmp > 0,
                }[op]
            )
        return left

    def _arith(self, left: Value, right: Value, ev: bool) -> tuple[int, int] | None:
        if not ev:
            return None
        a, b = _to_int(left), _to_int(right)
        if a is None or b is None:
            raise ExprError("non-integer argument")
        return a, b

    def additive(self, ev: bool) -> Value:
        left = self.multiplicative(ev)
        while (op := self._peek_in(("+", "-"))) is not None:
            right = self.multiplicative(ev)
            pair = self._arith(left, right, ev)
            left = 0 if pair is None else (pair[0] + pair[1] if op == "+" else pair[0] - pair[1])
        return left

    def multiplicative(self, ev: bool) -> Value:
        left = self.colon(ev)
        while (op := self._peek_in(("*", "/", "%"))) is not None:
            right = self.colon(ev)
            pair = self._arith(left, right, ev)
            if pair is None:
                left = 0
                continue
            a, b = pair
            if op == "*":
                left = a * b
                continue
            if b == 0:
                raise ExprError("division by zero")
            # GMP's truncating division: the quotient rounds toward zero, the remainder takes a's sign
            q = abs(a) // abs(b)
            q = q if (a >= 0) == (b >= 0) else -q
            left = q if op == "/" else a - q * b
        return left

    def colon(self, ev: bool) -> Value:
        left = self.primary(ev)
        while self._next_is(":"):
            right = self.primary(ev)
            left = self._match(left, right) if ev else 0
        return left

    def _match(self, subject: Value, pattern: Value) -> Value:
        try:
            rx = compile_regex(_to_str(pattern), flavor="bre", budget=self.ctx.budget)
        except RegexError as e:
            raise ExprError(e.message)
        text = _to_str(subject)
        m = rx.match(text)
        if rx.groups > 0:
            if m is None or m.start(1) < 0:
                return ""
            return str(m.group(1))
        return 0 if m is None else m.end()

    def primary(self, ev: bool) -> Value:
        if self.pos >= len(self.args):
            raise ExprError(f"syntax error: missing argument after {quote(self.args[self.pos - 1])}")
        tok = self.args[self.pos]
        self.pos += 1
        if tok == "+":
            if self.pos >= len(self.args):
                raise ExprError(f"syntax error: missing argument after {quote('+')}")
            self.pos += 1
            return self.args[self.pos - 1]
        if tok == "length":
            return len(_to_str(self.primary(ev)))
        if tok == "match":
            subject = self.primary(ev)
            pattern = self.primary(ev)
            return self._match(subject, pattern) if ev else 0
        if tok == "index":
            text, chars = _to_str(self.primary(ev)), _to_str(self.primary(ev))
            return next((i + 1 for i, ch in enumerate(text) if ch in chars), 0)
        if tok == "substr":
            return self._substr(self.primary(ev), self.primary(ev), self.primary(ev))
        if tok == "(":
            value = self.or_(ev)
            if self.pos >= len(self.args):
                raise ExprError(f"syntax error: expecting ')' after {quote(self.args[self.pos - 1])}")
            if not self._next_is(")"):
                raise ExprError(f"syntax error: expecting ')' instead of {quote(self.args[self.pos])}")
            return value
        if tok == ")":
            raise ExprError("syntax error: unexpected ')'")
        return tok

    @staticmethod
    def _substr(text: Value, start: Value, length: Value) -> Value:
        s = _to_str(text)
        pos, size = _to_int(start), _to_int(length)
        # a non-number, a negative or a zero position or length gives the empty string
        if pos is None or size is None or pos <= 0 or size <= 0 or pos > len(s):
            return ""
        return s[pos - 1 : pos - 1 + size]


@declare("expr", spec=SPEC, effects=Effects.NONE, write_failure=WriteFailure(status=3))
def cmd_expr(ctx: Ctx) -> int:
    args = list(ctx.args)
    # only a first `--` is an option terminator; --help/--version are the only options
    if args and args[0] == "--":
        args = args[1:]
    elif (
        len(args) == 1
        and len(args[0]) > 2
        and ("--help".startswith(args[0]) or "--version".startswith(args[0]))
    ):
        ctx.parse(SPEC, args)
    if not args:
        ctx.error("missing operand")
        ctx.stderr.write(f"Try '{ctx.help_prog} --help' for more information.\n".encode())
        return 2
    try:
        value = _Parser(ctx, args).parse()
    except ExprError as e:
        ctx.error(e.message)
        raise CommandExit(e.status)
    ctx.out(_to_str(value) + "\n")
    return 1 if _is_null(value) else 0
