"""dc: the reverse-Polish desk calculator (GNU dc's commands and messages).

Numbers share bc's arithmetic (number.py); registers are stacks, each entry
carrying its own array; macros run iteratively with an explicit stack of
pending strings, so deep recursion and infinite loops end at the budget.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Union

from ...limits import LimitExceeded, LimitKind
from ...vfs.errors import FsError
from ..context import Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .interp import Output
from .number import BcError, Num, format_number, parse_number

SPEC = CommandSpec(
    "dc",
    "[OPTION] [file ...]",
    "",
    opts=(
        Opt("e", "expression", "required", multi=True, metavar="EXPR", help="evaluate expression"),
        Opt("f", "file", "required", multi=True, metavar="FILE", help="evaluate contents of file"),
    ),
)
Value = Union[Num, str]
DIGITS = set("0123456789ABCDEF.")
DC_MESSAGES = {
    "Divide by zero": "divide by zero",
    "Square root of a negative number": "square root of negative number",
    "Modulo by zero": "remainder by zero",
}


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class DcError(Exception):
    pass


class Frame:
    """A string being executed and the position in it; standard input's frame also has `more`,
    which gives its next line (None at the end): it holds a line at a time, as GNU dc reads."""

    __slots__ = ("levels", "more", "pos", "src")

    def __init__(self, src: str, levels: int = 1, more: Callable[[], str | None] | None = None) -> None:
        self.src = src
        self.pos = 0
        self.levels = levels  # 1 + the finished callers it replaced (tail calls)
        self.more = more


class Register:
    __slots__ = ("stack",)

    def __init__(self) -> None:
        # each entry: (value, array)
        self.stack: list[tuple[Value, dict[int, Value]]] = []


class Dc:
    def __init__(self, ctx: Ctx, out: Output) -> None:
        self.ctx = ctx
        self.out = out
        self.stack: list[Value] = []
        self.regs: dict[str, Register] = {}
        self.k = 0
        self.ibase = 10
        self.obase = 10

    # ------------------------------------------------------------ helpers

    def err(self, message: str) -> None:
        self.ctx.stderr.write(f"dc: {message}\n".encode("utf-8", "surrogateescape"))

    def pop(self) -> Value:
        if not self.stack:
            raise DcError("stack empty")
        return self.stack.pop()

    def need(self, n: int) -> None:
        if len(self.stack) < n:
            raise DcError("stack empty")

    def reg(self, name: str) -> Register:
        return self.regs.setdefault(name, Register())

    def show(self, v: Value) -> str:
        return v if isinstance(v, str) else format_number(v, self.obase)

    def numbers(self, n: int) -> list[Num]:
        """Pop n numbers (restoring the stack if one is a string)."""
        self.need(n)
        values = self.stack[-n:]
        if any(isinstance(v, str) for v in values):
            raise DcError("non-numeric value")
        del self.stack[-n:]
        return values  # type: ignore[return-value]

    def small_int(self, v: Num, message: str) -> int:
        i = v.to_int()
        if abs(i) > 2**63:
            self.err("value overflows simple integer; punting...")
            raise DcError(message)
        return i

    # ------------------------------------------------------------ execution

    def run(self, text: str, stdin_mode: bool, more: Callable[[], str | None] | None = None) -> None:
        """Execute text, then each line `more` gives; macros are pushed on `frames` and run in place."""
        frames: list[Frame] = [Frame(text, more=more)]
        checkpoint = self.ctx.checkpoint
        while frames:
            frame = frames[-1]
            src, n = frame.src, len(frame.src)
            while frame.pos < n:
                ch = src[frame.pos]
                frame.pos += 1
                if ch in " \t\n\r":
                    continue
                checkpoint()
                try:
                    self.step(ch, frame, frames, stdin_mode)
                except DcError as e:
                    self.err(str(e))
                except BcError as e:
                    if e.warning:
                        self.ctx.stderr.write(f"Runtime warning: {e.message}\n".encode())
                    else:
                        self.err(DC_MESSAGES.get(e.message, e.message))
                if frames[-1] is not frame or frame.src is not src:
                    break
            else:
                line = frame.more() if frame.more is not None else None
                if line is None:
                    frames.pop()
                else:
                    frame.src, frame.pos = line, 0  # what ran is let go

    @staticmethod
    def _take(frame: Frame) -> str | None:
        if frame.pos >= len(frame.src):
            return None
        frame.pos += 1
        return frame.src[frame.pos - 1]

    @staticmethod
    def call(frames: list[Frame], frame: Frame, macro: str) -> None:
        # a macro called last in its caller replaces it (GNU's tail call), so loops stay
        # flat; the replaced levels still count for q and Q
        levels = 1
        if frame.pos >= len(frame.src) and len(frames) > 1 and frames[-1] is frame:
            levels += frames.pop().levels
        frames.append(Frame(macro, levels))

    @staticmethod
    def leave(frames: list[Frame], levels: int) -> bool:
        """Exit `levels` macro levels; False if there are not that many."""
        if sum(f.levels for f in frames[1:]) < levels:
            return False
        while levels > 0:
            levels -= frames.pop().levels
        return True

    def step(self, ch: str, frame: Frame, frames: list[Frame], stdin_mode: bool) -> None:
        src = frame.src
        if ch in DIGITS or ch == "_":
            self.number(ch, frame)
            return
        if ch == "[":
            depth, end = 1, frame.pos
            while end < len(src) and depth:
                depth += {"[": 1, "]": -1}.get(src[end], 0)
                end += 1
            if depth and frame.more is not None:
                self.string_over_lines(frame, depth)
                return
            if depth:
                frame.pos = len(src)  # an unterminated string is dropped
                return
            self.stack.append(src[frame.pos : end - 1])
            frame.pos = end
            return
        if ch == "#":
            nl = src.find("\n", frame.pos)
            frame.pos = len(src) if nl < 0 else nl + 1
            return
        if ch in "sSlL:;<>=":
            self.register_op(ch, frame, frames)
            return
        if ch == "!":
            nxt = self._take(frame)
            if nxt in ("<", ">", "="):
                self.register_op("!" + nxt, frame, frames)
                return
            nl = src.find("\n", frame.pos - 1)
            command = src[frame.pos - 1 : len(src) if nl < 0 else nl]
            frame.pos = len(src) if nl < 0 else nl + 1
            self.ctx.run_script(command)
            return
        if ch == "x":
            v = self.pop()
            if isinstance(v, str):
                self.call(frames, frame, v)
            else:
                self.stack.append(v)
            return
        if ch == "q":
            if not self.leave(frames, 2):
                raise _Exit(1 if stdin_mode else 0)
            return
        if ch == "Q":
            (n,) = self.numbers(1)
            count = n.to_int()
            if count <= 0 or not self.leave(frames, count):
                del frames[1:]  # GNU still leaves every macro it is in
                raise DcError("Q command argument exceeded string execution depth")
            return
        if ch == "?":
            line = self.ctx.stdin.readline().decode("utf-8", "surrogateescape")
            if line:
                frames.append(Frame(line))
            return
        self.simple(ch)

    def string_over_lines(self, frame: Frame, depth: int) -> None:
        """A `[` string of standard input left open at the end of its line: the lines it spans
        are read, and the rest of the line that closes it becomes the frame's text."""
        limit = self.ctx.limits.max_string_length
        text = io.StringIO(frame.src[frame.pos :])  # (one buffer: a list of short lines costs ~50x)
        text.seek(0, io.SEEK_END)
        size = text.tell()
        while True:
            line = frame.more() if frame.more is not None else None
            if line is None:
                frame.src, frame.pos = "", 0  # an unterminated string is dropped
                return
            end = 0
            if "[" in line or "]" in line:
                while end < len(line) and depth:
                    depth += {"[": 1, "]": -1}.get(line[end], 0)
                    end += 1
            else:
                end = len(line)
            size += end
            if size > limit:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)
            if not depth:
                text.write(line[: end - 1])
                self.stack.append(text.getvalue())
                frame.src, frame.pos = line, end
                return
            text.write(line)

    def number(self, first: str, frame: Frame) -> None:
        src, pos = frame.src, frame.pos
        negative = first == "_"
        text = "" if negative else first
        seen_dot = first == "."
        while pos < len(src) and (src[pos] in DIGITS):
            if src[pos] == ".":
                if seen_dot:
                    break
                seen_dot = True
            text += src[pos]
            pos += 1
        frame.pos = pos
        value = parse_number(text, self.ibase, clamp=False) if text else Num(0, 0)
        self.stack.append(-value if negative else value)

    def register_op(self, op: str, frame: Frame, frames: list[Frame]) -> None:
        name = self._take(frame)
        if name is None:
            return
        r = self.reg(name)
        shown = f"'{name}' (0{ord(name):o})"
        if op == "s":
            v = self.pop()
            if r.stack:
                r.stack[-1] = (v, r.stack[-1][1])
            else:
                r.stack.append((v, {}))
        elif op == "S":
            r.stack.append((self.pop(), {}))
        elif op == "l":
            self.stack.append(r.stack[-1][0] if r.stack else Num(0, 0))
        elif op == "L":
            if not r.stack:
                raise DcError(f"stack register {shown} is empty")
            self.stack.append(r.stack.pop()[0])
        elif op == ":":
            self.need(2)
            index, value = self.stack.pop(), self.stack.pop()
            if isinstance(index, str):
                raise DcError("array index must be a nonnegative integer")
            if not r.stack:
                r.stack.append((Num(0, 0), {}))
            r.stack[-1][1][index.to_int()] = value
        elif op == ";":
            index = self.pop()
            if isinstance(index, str):
                raise DcError("array index must be a nonnegative integer")
            array = r.stack[-1][1] if r.stack else {}
            self.stack.append(array.get(index.to_int(), Num(0, 0)))
        else:
            a, b = self.numbers(2)  # b was the top
            c = b.cmp(a)
            test = {"<": c < 0, ">": c > 0, "=": c == 0, "!<": c >= 0, "!>": c <= 0, "!=": c != 0}[op]
            if test:
                if not r.stack:
                    raise DcError(f"register {shown} is empty")
                macro = r.stack[-1][0]
                if isinstance(macro, str):
                    self.call(frames, frame, macro)
                else:
                    self.stack.append(macro)

    def simple(self, ch: str) -> None:
        st = self.stack
        if ch in "+-*/%^|~":
            self.arith(ch)
        elif ch == "v":
            (x,) = self.numbers(1)
            st.append(x.sqrt(self.k))
        elif ch == "p":
            if not st:
                raise DcError("stack empty")
            self.out.write(self.show(st[-1]) + "\n")
        elif ch == "n":
            self.out.write(self.show(self.pop()))
        elif ch == "P":
            v = self.pop()
            if isinstance(v, str):
                self.out.write(v, wrap=False)
            else:
                n, data = abs(v.to_int()), bytearray()
                while n:
                    n, b = divmod(n, 256)
                    data.insert(0, b)
                self.ctx.stdout.write(bytes(data))
        elif ch == "f":
            self.out.write("".join(self.show(v) + "\n" for v in reversed(st)))
        elif ch == "c":
            st.clear()
        elif ch == "d":
            if not st:
                raise DcError("stack empty")
            st.append(st[-1])
        elif ch == "r":
            self.need(2)
            st[-1], st[-2] = st[-2], st[-1]
        elif ch == "R":
            (amount,) = self.numbers(1)
            count = min(abs(amount.to_int()), len(st))
            if count > 1:
                if amount.to_int() > 0:
                    st.append(st.pop(-count))
                else:
                    top = st.pop()
                    st.insert(len(st) - count + 1, top)
        elif ch == "z":
            st.append(Num(len(st), 0))
        elif ch == "Z":
            v = self.pop()
            st.append(Num(len(v) if isinstance(v, str) else v.length(), 0))
        elif ch == "X":
            v = self.pop()
            st.append(Num(0 if isinstance(v, str) else v.scale, 0))
        elif ch == "a":
            v = self.pop()
            st.append(v[:1] if isinstance(v, str) else chr(abs(v.to_int()) % 256))
        elif ch in "kio":
            self.set_param(ch)
        elif ch == "K":
            st.append(Num(self.k, 0))
        elif ch == "I":
            st.append(Num(self.ibase, 0))
        elif ch == "O":
            st.append(Num(self.obase, 0))
        else:
            # GNU dc writes the prefix to stderr and the rest to stdout
            self.ctx.stderr.write(b"dc: ")
            self.out.write(f"'{ch}' (0{ord(ch):o}) unimplemented\n", wrap=False)

    def set_param(self, ch: str) -> None:
        v = self.pop()
        if isinstance(v, str):
            raise DcError("non-numeric value")
        n = v.to_int()
        if ch == "k":
            if n < 0 or abs(n) > 2**63:
                if abs(n) > 2**63:
                    self.err("value overflows simple integer; punting...")
                raise DcError("scale must be a nonnegative number")
            self.k = n
        elif ch == "i":
            if not 2 <= n <= 16:
                raise DcError("input base must be a number between 2 and 16 (inclusive)")
            self.ibase = n
        else:
            if n < 2:
                raise DcError("output base must be a number greater than 1")
            self.obase = n

    def arith(self, op: str) -> None:
        if op == "|":
            a, b, m = self.numbers(3)
            if m.is_zero():
                self.stack.extend([a, b, m])
                raise DcError("remainder by zero")
            self.stack.append(Num(pow(a.to_int(), b.to_int(), m.to_int()), 0))
            return
        a, b = self.numbers(2)
        try:
            if op == "+":
                self.stack.append(a.add(b))
            elif op == "-":
                self.stack.append(a.sub(b))
            elif op == "*":
                self.stack.append(a.mul(b, self.k))
            elif op == "/":
                self.stack.append(a.div(b, self.k))
            elif op == "%":
                if b.is_zero():
                    raise DcError("remainder by zero")
                self.stack.append(a.mod(b, self.k))
            elif op == "~":
                if b.is_zero():
                    raise DcError("divide by zero")
                self.stack.extend([a.div(b, self.k), a.mod(b, self.k)])
            else:
                if b.scale and b.n % 10**b.scale:
                    self.ctx.stderr.write(b"Runtime warning: non-zero scale in exponent\n")
                self.stack.append(a.power(b.to_int(), self.k, self.ctx.checkpoint))
        except (DcError, BcError):
            self.stack.extend([a, b])
            raise


@declare("dc", spec=SPEC, effects=Effects.READS)
def cmd_dc(ctx: Ctx) -> int:
    from . import line_length

    opts, files = ctx.parse(SPEC)
    out = Output(ctx, line_length(ctx.env.get("DC_LINE_LENGTH")), room=1)
    calc = Dc(ctx, out)
    # -e and -f run in command-line order, then the file operands
    scripts: list[tuple[str, str]] = [(k, v) for k, v in opts.order if k in ("expression", "file")]
    scripts += [("file", f) for f in files]
    try:
        for kind, value in scripts:
            if kind == "expression":
                calc.run(value, stdin_mode=False)
                continue
            if value == "-":
                calc.run("", stdin_mode=True, more=_stdin_lines(ctx))
                continue
            try:
                text = ctx.fs.read_bytes(value).decode("utf-8", "surrogateescape")
            except FsError:
                calc.err(f"Could not open file {value}")
                continue
            calc.run(text, stdin_mode=True)
        if not scripts:
            calc.run("", stdin_mode=True, more=_stdin_lines(ctx))
    except _Exit as e:
        return e.status
    return 0


def _stdin_lines(ctx: Ctx) -> Callable[[], str | None]:
    """Standard input a line at a time (`coproc dc` answers each line as it comes; a large input
    is never held whole). A line past max_string_length is that limit (`yes | tr -d '\\n' | dc`),
    and so is a string open over lines that grows past it (Dc.step)."""
    limit = ctx.limits.max_string_length

    def more() -> str | None:
        ctx.checkpoint()
        raw = ctx.stdin.readline(limit=limit)
        if len(raw) >= limit and not raw.endswith(b"\n"):
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limit)
        return raw.decode("utf-8", "surrogateescape") if raw else None

    return more
