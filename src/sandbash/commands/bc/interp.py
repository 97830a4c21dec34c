"""bc's interpreter: runs parsed items with GNU bc's semantics.

Variables and arrays are dynamically scoped (a function's parameters and
autos shadow the caller's names for everything it calls); runtime errors
print GNU's `Runtime error (func=..., adr=...)` line and abandon the current
item; output is broken into BC_LINE_LENGTH-wide lines with `\\`.
"""

from __future__ import annotations

from collections.abc import Callable

from ...limits import LimitExceeded, LimitKind
from ...syntax.escapes import decode_raw
from ..context import Ctx
from . import mathlib
from .number import BcError, Num, format_number, parse_number
from .parser import Function, Node

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_INDEX = 16777215
INT_MAX = 2147483647
# bc functions calling themselves this deep (or the run's max_call_depth, if
# higher) stop the run with max_call_depth, as jq does: each call takes several
# Python frames, so this stays well inside the interpreter's recursion limit
MAX_DEPTH = 1000
LIMITS = (
    "BC_BASE_MAX     = 2147483647\nBC_DIM_MAX      = 16777215\nBC_SCALE_MAX    = 2147483647\n"
    "BC_STRING_MAX   = 2147483647\nMAX Exponent    = 9223372036854775807\nNumber of vars  = 32767\n"
)
ZERO = Num(0, 0)
ONE = Num(1, 0)


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: Num | None) -> None:
        super().__init__()
        self.value = value


class Halt(Exception):
    pass


class Output:
    """bc's output column: a line longer than the limit ends with `\\`."""

    def __init__(self, ctx: Ctx, line_length: int, room: int = 2) -> None:
        self.ctx = ctx
        self.width = line_length
        self.col = 0
        # characters a line holds before its `\`: width-2 for bc, width-1 for dc
        self.room = line_length - room

    def write(self, text: str, wrap: bool = True) -> None:
        if not wrap or self.width == 0:
            self.ctx.out(text)
            self.col = len(text) - text.rfind("\n") - 1 if "\n" in text else self.col + len(text)
            return
        out: list[str] = []
        room = self.room
        for i, seg in enumerate(text.split("\n")):
            if i:
                out.append("\n")
                self.col = 0
            while seg:
                avail = room - self.col
                if len(seg) <= avail:
                    out.append(seg)
                    self.col += len(seg)
                    break
                out.append(seg[:avail] + "\\\n")
                seg = seg[avail:]
                self.col = 0
        self.ctx.out("".join(out))


class Interp:
    def __init__(self, ctx: Ctx, out: Output, mathlib_on: bool) -> None:
        self.ctx = ctx
        self.out = out
        # where read() takes its line: the rest of the program when it comes from stdin
        self.reader: Callable[[], str | None] = self._stdin_line
        self.scale = 20 if mathlib_on else 0
        self.ibase = 10
        self.obase = 10
        self.last = ZERO
        self.vars: dict[str, list[Num]] = {}
        self.arrays: dict[str, list[dict[int, Num]]] = {}
        self.funcs: dict[str, Function] = {}
        self.mem = ctx.hold_memory()  # array elements (closed when the run of bc ends)
        self.mathlib = mathlib_on
        self.frame = "(main)"
        self.adr = 0
        self.depth = 0
        self.max_depth = max(MAX_DEPTH, ctx.limits.max_call_depth)

    # ------------------------------------------------------------ items

    def define(self, func: Function) -> None:
        self.funcs[func.name] = func

    def run_item(self, stmts: list[Node]) -> None:
        self.frame, self.adr = "(main)", 0
        try:
            for stmt in stmts:
                self.execute(stmt)
        except BcError as e:
            self.report(e)
        except (_Break, _Continue, _Return):
            pass

    def report(self, e: BcError) -> None:
        kind = "warning" if e.warning else "error"
        self.ctx.stderr.write(f"Runtime {kind} (func={self.frame}, adr={self.adr}): {e.message}\n".encode())

    def warn(self, message: str) -> None:
        self.report(BcError(message, warning=True))

    # ------------------------------------------------------------ statements

    def execute(self, stmt: Node) -> None:
        self.ctx.checkpoint()
        kind = stmt[0]
        if kind == "expr":
            expr = stmt[1]
            value = self.eval(expr)
            if expr[0] != "assign" and value is not None:
                self.out.write(format_number(value, self.obase, self.ctx.checkpoint) + "\n")
                self.last = value
        elif kind == "str":
            self.out.write(stmt[1])
        elif kind == "print":
            for item in stmt[1]:
                if item[0] == "str":
                    self.out.write(_unescape(item[1]))
                else:
                    value = self.eval(item)
                    if value is not None:
                        self.out.write(format_number(value, self.obase, self.ctx.checkpoint))
                        self.last = value
        elif kind == "block":
            for inner in stmt[1]:
                self.execute(inner)
        elif kind == "if":
            if self.truth(stmt[1]):
                self.execute(stmt[2])
            elif stmt[3] is not None:
                self.execute(stmt[3])
        elif kind == "while":
            while self.truth(stmt[1]):
                if not self._loop_body(stmt[2]):
                    break
        elif kind == "for":
            _, init, cond, step, body = stmt
            if init is not None:
                self.eval(init)
            while cond is None or self.truth(cond):
                if not self._loop_body(body):
                    break
                if step is not None:
                    self.eval(step)
        elif kind == "break":
            raise _Break
        elif kind == "continue":
            raise _Continue
        elif kind == "return":
            raise _Return(None if stmt[1] is None else self.num(stmt[1]))
        elif kind == "halt":
            raise Halt
        elif kind == "limits":
            self.out.write(LIMITS)
        elif kind == "warranty":
            self.out.write("This is free software with ABSOLUTELY NO WARRANTY.\n")

    def _loop_body(self, body: Node) -> bool:
        """Run a loop body; False when it breaks."""
        self.ctx.checkpoint()
        try:
            self.execute(body)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def truth(self, expr: Node) -> bool:
        return not self.num(expr).is_zero()

    # ------------------------------------------------------------ expressions

    def num(self, expr: Node) -> Num:
        value = self.eval(expr)
        if value is None:
            raise BcError("void function used in an expression")
        return value

    def eval(self, e: Node) -> Num | None:
        self.adr += 1
        kind = e[0]
        if kind == "num":
            return parse_number(e[1], self.ibase)
        if kind == "paren":
            return self.eval(e[1])
        if kind in ("var", "elem", "special"):
            return self.load(e)
        if kind == "bin":
            return self.binary(e[1], self.num(e[2]), self.num(e[3]))
        if kind == "neg":
            return -self.num(e[1])
        if kind == "assign":
            return self.assign(e)
        if kind in ("pre", "post"):
            old = self.load(e[2])
            new = old.add(ONE) if e[1] == "++" else old.sub(ONE)
            self.store(e[2], new)
            return new if kind == "pre" else old
        if kind == "rel":
            c = self.num(e[2]).cmp(self.num(e[3]))
            ok = {"==": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[e[1]]
            return ONE if ok else ZERO
        if kind == "not":
            return ONE if self.num(e[1]).is_zero() else ZERO
        if kind == "and":
            return ONE if self.truth(e[1]) and self.truth(e[2]) else ZERO
        if kind == "or":
            return ONE if self.truth(e[1]) or self.truth(e[2]) else ZERO
        if kind == "call":
            return self.call(e[1], e[2])
        if kind == "length":
            return Num(self.num(e[1]).length(), 0)
        if kind == "scalef":
            return Num(self.num(e[1]).scale, 0)
        if kind == "sqrt":
            return self.num(e[1]).sqrt(self.scale)
        if kind == "read":
            return self.read()
        raise BcError(f"unknown expression {kind}")

    def binary(self, op: str, a: Num, b: Num) -> Num:
        if op == "+":
            return a.add(b)
        if op == "-":
            return a.sub(b)
        if op == "*":
            return a.mul(b, self.scale)
        if op == "/":
            return a.div(b, self.scale)
        if op == "%":
            return a.mod(b, self.scale)
        if b.scale and b.n % 10**b.scale:
            self.warn("non-zero scale in exponent")
        return a.power(b.to_int(), self.scale, self.ctx.checkpoint)

    def assign(self, e: Node) -> Num:
        _, op, target, expr = e
        value = self.num(expr)
        if op != "=":
            value = self.binary(op[0], self.load(target), value)
        self.store(target, value)
        return value

    # ------------------------------------------------------------ storage

    def _index(self, name: str, expr: Node) -> int:
        index = self.num(expr).to_int()
        if index < 0 or index > MAX_INDEX:
            raise BcError(f"Array {name} subscript out of bounds.")
        return index

    def _array(self, name: str) -> dict[int, Num]:
        stack = self.arrays.setdefault(name, [{}])
        return stack[-1]

    def load(self, target: Node) -> Num:
        kind = target[0]
        if kind == "var":
            stack = self.vars.get(target[1])
            return stack[-1] if stack else ZERO
        if kind == "elem":
            return self._array(target[1]).get(self._index(target[1], target[2]), ZERO)
        name = target[1]
        if name == "scale":
            return Num(self.scale, 0)
        if name == "ibase":
            return Num(self.ibase, 0)
        if name == "obase":
            return Num(self.obase, 0)
        return self.last

    def store(self, target: Node, value: Num) -> None:
        kind = target[0]
        if kind == "var":
            stack = self.vars.setdefault(target[1], [ZERO])
            stack[-1] = value
            return
        if kind == "elem":
            arr = self._array(target[1])
            index = self._index(target[1], target[2])
            # array elements are what a bc program can hold without end: charged
            # to the run's memory, the value they replace given back
            self.mem.charge(_num_bytes(value))
            old = arr.get(index)
            if old is not None:
                self.mem.release(_num_bytes(old))
            arr[index] = value
            return
        name = target[1]
        n = value.to_int()
        if name == "last":
            self.last = value
        elif name == "scale":
            self.scale = self._clamp(n, 0, INT_MAX, "negative scale, set to 0", "scale too large, set to")
        elif name == "ibase":
            self.ibase = self._clamp(n, 2, 36, "ibase too small, set to 2", "ibase too large, set to")
        else:
            self.obase = self._clamp(n, 2, INT_MAX, "obase too small, set to 2", "obase too large, set to")

    def _clamp(self, n: int, low: int, high: int, small: str, large: str) -> int:
        if n < low:
            self.warn(small)
            return low
        if n > high:
            self.warn(f"{large} {high}")
            return high
        return n

    # ------------------------------------------------------------ functions

    def call(self, name: str, args: list[Node]) -> Num | None:
        func = self.funcs.get(name)
        if func is None:
            if self.mathlib and (name in mathlib.UNARY or name == "j"):
                return self._math(name, args)
            raise BcError(f"Function {name} not defined.")
        if len(args) != len(func.params):
            raise BcError("Parameter number mismatch")
        values: list[Any] = []
        for arg, (_name, is_array) in zip(args, func.params, strict=True):
            if is_array != (arg[0] == "arrayarg"):
                raise BcError("Parameter type mismatch")
            values.append(dict(self._array(arg[1])) if is_array else self.num(arg))
        self.ctx.checkpoint(10)
        if self.depth >= self.max_depth:
            raise too_deep(self.ctx)
        pushed = self._push(func, values)
        saved = (self.frame, self.adr)
        self.frame, self.adr = name, 0
        self.depth += 1
        try:
            for stmt in func.body:
                self.execute(stmt)
            result: Num | None = ZERO
        except _Return as r:
            result = r.value if r.value is not None else ZERO
        finally:
            self.depth -= 1
            self.frame, self.adr = saved
            self._pop(pushed)
        return None if func.void else result

    def _push(self, func: Function, values: list[Any]) -> list[tuple[str, bool]]:
        names = func.params + func.autos
        for (name, is_array), value in zip(names, values + [None] * len(func.autos), strict=True):
            if is_array:
                self.arrays.setdefault(name, [{}]).append(value if value is not None else {})
            else:
                self.vars.setdefault(name, [ZERO]).append(value if value is not None else ZERO)
        return names

    def _pop(self, names: list[tuple[str, bool]]) -> None:
        for name, is_array in names:
            if is_array:
                gone = self.arrays[name].pop()
                self.mem.release(sum(map(_num_bytes, gone.values())))
            else:
                self.vars[name].pop()

    def _math(self, name: str, args: list[Node]) -> Num:
        want = 2 if name == "j" else 1
        if len(args) != want:
            raise BcError("Parameter number mismatch")
        values = [self.num(a) for a in args]
        if name == "j":
            return mathlib.bc_bessel(values[0], values[1], self.scale, self.ctx.checkpoint)
        return mathlib.UNARY[name](values[0], self.scale, self.ctx.checkpoint)

    def _stdin_line(self) -> str | None:
        raw = self.ctx.stdin.readline()
        return raw.decode("utf-8", "surrogateescape") if raw else None

    def read(self) -> Num:
        line = self.reader()
        if line is None:
            raise BcError("read() past end of input")
        text = line.strip()
        negative = text.startswith("-")
        digits = text.lstrip("+-")
        if not digits or any(not (c.isdigit() or "A" <= c <= "Z" or c == ".") for c in digits):
            raise BcError("read() error: bad number")
        value = parse_number(digits, self.ibase)
        return -value if negative else value


def too_deep(ctx: Ctx) -> LimitExceeded:
    """Runaway recursion in a bc program: the run stops with max_call_depth."""
    return LimitExceeded(LimitKind.MAX_CALL_DEPTH, ctx.limits.max_call_depth, "bc recursion too deep")


def _unescape(text: str) -> str:
    """bc's print-string escapes (\\n, \\q for a quote, ...); GNU bc prints nothing for others."""
    return decode_raw(text, "bc")


def _num_bytes(value: Num) -> int:
    """Bytes a stored number holds: its digits as a Python int, an object and a table entry."""
    return value.n.bit_length() // 8 + 120
