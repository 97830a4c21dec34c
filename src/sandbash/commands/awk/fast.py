"""Fast paths for the commonest one-rule programs, run over whole chunks of bytes.

`{print $3}`, `{print $1, $4}`, `$2 == "x"` (optionally with `{print $N...}`)
and `{s += $3}` are recognised once from the syntax tree. While the input is
read with a newline RS and split with the default FS or a one-character FS,
their main rule runs a chunk of records at a time with `bytes.split` and list
comprehensions instead of one generated-function call per record. BEGIN,
END, BEGINFILE and ENDFILE still run as compiled; NR, FNR and the last $0
are left as the record loop would leave them.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from functools import reduce

from ...stdio.streams import StreamError, StreamReadError
from . import ast as A
from .io import OutputFailed
from .values import UNINIT, str2num, to_num

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

if TYPE_CHECKING:
    from .records import Reader
    from .runtime import Runtime

# awk's default field separators are blanks and newlines only; bytes.split()
# also splits at these, so chunks holding them take the regex below
_ODD_BLANKS = (b"\r", b"\x0b", b"\x0c")
_AWK_FIELD = re.compile(rb"[^ \t\n]+")  # fixed pattern, not user input
# bytes whose float() value equals awk's (see values.str2num); others convert one by one
_NUMERIC_BYTES = b"0123456789+-.eE \t\n\r\x0b\x0c"


LAST = -1  # `$NF` in a plan's fields


@dataclass(frozen=True)
class FastPlan:
    kind: str  # "print" or "sum"
    fields: tuple[
        int, ...
    ] = ()  # print: the fields printed (0 is $0, LAST alone $NF); sum: the one field added
    var: str = ""  # sum: the variable
    test: tuple[int, bool, str] | None = None  # print only: (field, negated, text) of `$k == "text"`


def _unwrap(e: A.Expr) -> A.Expr:
    while isinstance(e, A.Group):
        e = e.expr
    return e


def _field_num(e: A.Expr) -> int | None:
    e = _unwrap(e)
    if not isinstance(e, A.Field):
        return None
    i = _unwrap(e.index)
    if isinstance(i, A.Num) and i.value == int(i.value) and 0 <= i.value <= 1000:
        return int(i.value)
    return None


def _last_field(e: A.Expr) -> bool:
    """`$NF` (or `$(NF)`)."""
    e = _unwrap(e)
    if not isinstance(e, A.Field):
        return False
    i = _unwrap(e.index)
    return isinstance(i, A.Var) and i.name == "NF"


def _test(e: A.Expr) -> tuple[int, bool, str] | None:
    e = _unwrap(e)
    if not isinstance(e, A.Binary) or e.op not in ("==", "!="):
        return None
    left, right = _unwrap(e.left), _unwrap(e.right)
    if isinstance(left, A.Str):
        left, right = right, left
    k = _field_num(left)
    if k is None or k == 0 or not isinstance(right, A.Str):
        return None
    return (k, e.op == "!=", right.value)


def plan_for(program: A.Program) -> FastPlan | None:
    """The fast plan for a program whose only main rule has one of the recognised shapes."""
    mains = [r for r in program.rules if r.kind == "main"]
    if len(mains) != 1:
        return None
    rule = mains[0]
    if rule.pattern2 is not None:
        return None
    test = None
    if rule.pattern is not None:
        test = _test(rule.pattern)
        if test is None:
            return None
    if rule.body is None:
        return FastPlan("print", (0,), test=test)
    if len(rule.body.stmts) != 1:
        return None
    stmt = rule.body.stmts[0]
    if isinstance(stmt, A.Print) and not stmt.printf and stmt.redirect is None:
        if not stmt.args:
            return FastPlan("print", (0,), test=test)
        if len(stmt.args) == 1 and _last_field(stmt.args[0]):
            return FastPlan("print", (LAST,), test=test)
        nums = [_field_num(a) for a in stmt.args]
        if len(nums) > 16 or any(n is None for n in nums):
            return None
        return FastPlan("print", tuple(n for n in nums if n is not None), test=test)
    if test is None and isinstance(stmt, A.ExprStmt):
        e = _unwrap(stmt.expr)
        if isinstance(e, A.Assign) and e.op == "+=" and isinstance(e.target, A.Var):
            name = e.target.name
            k = _field_num(e.value)
            if k is not None and k > 0 and not name.isupper():
                return FastPlan("sum", (k,), var=name)
    return None


def _splitter(rt: Runtime) -> tuple[bytes | None, bool] | None:
    """(separator, default) for the FS in effect, or None when the fast path does not apply."""
    fs = rt.ns["V_FS"]
    if not isinstance(fs, str):  # a str subclass (-v FS=, from input) is its own text
        return None
    if fs == " ":
        return None, True
    if len(fs) == 1 and fs.isascii() and not fs.isalpha():
        return fs.encode(), False
    return None


def _text(v: object) -> bytes | None:
    if not isinstance(v, str):  # a number would print through OFMT/CONVFMT
        return None
    return v.encode("utf-8", "surrogateescape")


def applies(rt: Runtime, rd: Reader) -> bool:
    """Whether the fast loop can take this input now (before anything is read)."""
    ns = rt.ns
    return (
        ns["V_RS"] == "\n"
        and isinstance(ns["V_RS"], str)
        and not rd.buf
        and not rd.lines
        and not rd.eof
        and not rt.paragraph
        and _splitter(rt) is not None
        and _text(ns["V_OFS"]) is not None
        and _text(ns["V_ORS"]) is not None
    )


# For one field, each record's list of fields is dropped as soon as its field is picked:
# keeping a list per record alive makes the cyclic GC walk them again and again.


def _column(lines: list[bytes], k: int, split: Callable[[bytes], list[bytes]]) -> list[bytes]:
    """Field k (1-based) of each record; '' past the last field."""
    i = k - 1
    return [p[i] if len(p) > i else b"" for p in map(split, lines)]


def _column_by(lines: list[bytes], k: int, sep: bytes | None, kmax: int) -> list[bytes]:
    """_column for `bytes.split(sep, kmax)`, the method called in place (no methodcaller)."""
    i = k - 1
    return [p[i] if len(p) > i else b"" for line in lines for p in (line.split(sep, kmax),)]


def _last(lines: list[bytes], sep: bytes | None, split: Callable[[bytes], list[bytes]] | None) -> list[bytes]:
    """$NF of each record: its last field, or $0 when it has none (a blank record is its blanks)."""
    if split is not None:  # (odd blanks: the regex's fields)
        return [p[-1] if p else line for line in lines for p in (split(line),)]
    return [p[-1] if p else line for line in lines for p in (line.rsplit(sep, 1),)]


def _rows(
    lines: list[bytes], ks: tuple[int, ...], split: Callable[[bytes], list[bytes]], ofs: bytes
) -> list[bytes]:
    """Fields ks of each record ($0 for 0) joined by OFS: columns picked at C speed
    from one chunk's split records, then zipped."""
    parts = list(map(split, lines))
    return list(map(ofs.join, zip(*[lines if k == 0 else _pick(parts, k) for k in ks], strict=True)))


def _pick(parts: list[list[bytes]], k: int) -> list[bytes]:
    """Field k (1-based) of each split record; '' past the last field."""
    try:
        return list(map(operator.itemgetter(k - 1), parts))
    except IndexError:
        return [p[k - 1] if len(p) >= k else b"" for p in parts]


def run(rt: Runtime, rd: Reader, plan: FastPlan) -> None:
    """Run the main rule over all of rd's input (applies() said yes)."""
    ns = rt.ns
    sep, default = _splitter(rt) or (None, True)
    ofs = _text(ns["V_OFS"]) or b""
    ors = _text(ns["V_ORS"]) or b""
    stream = rd.stream
    checkpoint = rt.ctx.budget.checkpoint
    charge = rd.charge
    out = rt.io.stdout
    out.flush()
    raw_write = out.stream.write
    total = 0

    def write(data: bytes) -> None:
        try:
            raw_write(data)
        except StreamError as e:
            if type(e) is StreamReadError:
                raise
            # (the records read so far, for the report's FNR: Interp._stdout_failed)
            ns["V_NR"] = to_num(ns["V_NR"]) + total
            ns["V_FNR"] = to_num(ns["V_FNR"]) + total
            raise OutputFailed(out, e) from None

    kmax = max([*plan.fields, plan.test[0] if plan.test is not None else 0])

    by_sep = operator.methodcaller("split", sep, kmax)

    def splitter(odd: bool) -> Callable[[bytes], list[bytes]]:
        return _AWK_FIELD.findall if odd else by_sep  # type: ignore[no-any-return]

    total_add = 0.0
    summed = False
    last = b""
    if plan.kind == "sum":
        total_add = to_num(ns.get("V_" + plan.var, UNINIT))
    test_text = _text(plan.test[2]) if plan.test is not None else None
    buf = b""
    while True:
        chunk = stream.read_chunk()
        if not chunk:
            if not buf:
                break
            chunk = buf
            lines = [buf]
            buf = b""
        else:
            if charge is not None:
                charge(len(chunk) >> 10)
            if buf:
                chunk = buf + chunk
            lines = chunk.split(b"\n")
            buf = lines.pop()
            if not lines:
                continue
        checkpoint(len(lines))
        total += len(lines)
        last = lines[-1]
        odd = default and any(c in chunk for c in _ODD_BLANKS)
        split = splitter(odd)
        if plan.kind == "sum":
            vals = (
                _column(lines, plan.fields[0], split) if odd else _column_by(lines, plan.fields[0], sep, kmax)
            )
            total_add = _add(total_add, vals)
            summed = True
            continue
        if plan.test is not None:
            k, negate, _ = plan.test
            col = _column(lines, k, split) if odd else _column_by(lines, k, sep, kmax)
            if negate:
                lines = [line for line, v in zip(lines, col, strict=True) if v != test_text]
            else:
                lines = [line for line, v in zip(lines, col, strict=True) if v == test_text]
            if not lines:
                continue
        ks = plan.fields
        if len(ks) == 1:
            if ks[0] == 0:
                picked = lines
            elif ks[0] == LAST:
                picked = _last(lines, sep, split if odd else None)
            else:
                picked = _column(lines, ks[0], split) if odd else _column_by(lines, ks[0], sep, kmax)
        else:
            picked = _rows(lines, ks, split, ofs)
        picked.append(b"")
        write(ors.join(picked))
    ns["V_NR"] = to_num(ns["V_NR"]) + total
    ns["V_FNR"] = to_num(ns["V_FNR"]) + total
    if summed:
        ns["V_" + plan.var] = total_add
    if total:
        rt.rec = last.decode("utf-8", "surrogateescape")
        rt.flds = None
        rt.rec_input = True
        rt.cur_split = rt.splitter


def _add(start: float, vals: list[bytes]) -> float:
    """start + each value in turn, converted as awk converts input text."""
    joined = b"\n".join(vals)
    if not joined.translate(None, _NUMERIC_BYTES):
        try:
            result: float = reduce(operator.add, map(float, vals), start)
            if math.isfinite(result):
                return result
        except ValueError:
            pass
    for v in vals:
        start += str2num(v.decode("utf-8", "surrogateescape"))
    return start
