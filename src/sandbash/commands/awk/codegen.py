"""Compile awk expressions to Python expression source.

Each expression compiles to (code, kind): kind NUM means the code yields a
float, STR a plain str (never a strnum), ANY any awk value. Knowing the kind
at compile time removes most run-time conversions: `$2 * 3` is
`_fn(2) * 3.0`, and `x < 10` on two numbers is a bare Python comparison.

No program text reaches the generated source except identifiers (checked to
be plain ASCII names and prefixed) and float literals (via repr); every
string, regex and special number is a pooled constant `K<n>` in the
namespace.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from . import ast as A
from .analyze import SPECIAL_SCALARS, Symbols
from .fmt import static_plan
from .lexer import AwkSyntaxError
from .regex import RegexError, compile_regex

NUM, STR, ANY = "n", "s", "a"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # fixed pattern over program identifiers
_ARITH = {"+": "+", "-": "-", "*": "*", "/": "/"}
_SCALAR_IN = "attempt to use a scalar value as array"  # gawk's `in` and for-in name no element
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
# assigning one of these picks how the next record is split (the runtime must hear of it)
_SPLIT_MODES = frozenset({"FS", "FIELDWIDTHS", "FPAT"})


def _has_raw_bytes(e: A.Expr) -> bool:
    """A string constant holding a byte that is not UTF-8 (a `\\303` escape), or a concatenation
    ending or starting with one: joined, such bytes may make a character."""
    e = _unwrap(e)
    if isinstance(e, A.Str):
        return any("\udc80" <= c <= "\udcff" for c in e.value)
    if isinstance(e, A.Binary) and e.op == "concat":
        return _has_raw_bytes(e.left) or _has_raw_bytes(e.right)
    return False


def _unwrap(e: A.Expr) -> A.Expr:
    while isinstance(e, A.Group):
        e = e.expr
    return e


def pure(e: A.Expr) -> bool:
    """Whether evaluating e can change any state (assignments, calls, getline, ++)."""
    e = _unwrap(e)
    if isinstance(e, (A.Num, A.Str, A.Var, A.Regex)):
        return True
    if isinstance(e, A.Field):
        return pure(e.index)
    if isinstance(e, A.Unary):
        return pure(e.expr)
    if isinstance(e, (A.Binary, A.Logical, A.MatchOp)):
        return pure(e.left) and pure(e.right)
    return False


def _pure_target(e: A.Expr) -> bool:
    e = _unwrap(e)
    if isinstance(e, A.Index):
        return all(pure(x) for x in e.subs) and all(pure(x) for group in e.path for x in group)
    return pure(e)


def _const_field(e: A.Expr) -> int | None:
    """The index of `$k` with a constant non-negative integer k."""
    e = _unwrap(e)
    if isinstance(e, A.Num) and e.value >= 0 and e.value == int(e.value) and e.value < 1 << 31:
        return int(e.value)
    return None


class ExprGen:
    """Expression compiler; StmtGen (gen_stmt.py) adds statements and the program."""

    def __init__(self, program: A.Program, symbols: Symbols, icase: bool) -> None:
        self.program = program
        self.sym = symbols
        self.icase = icase  # the program uses IGNORECASE: regexes and comparisons check it
        self.consts: dict[tuple[str, object], str] = {}
        self.values: dict[str, object] = {}
        self.fn: A.Function | None = None
        self.globals: set[str] = set()  # globals assigned by the Python function being generated
        self.ntemp = 0
        self.loc = 0
        self.moves_input = False  # plain getline or nextfile: the main loop cannot batch records

    # ------------------------------------------------------------ names and constants

    def error(self, message: str, fatal: bool = False) -> AwkSyntaxError:
        return AwkSyntaxError(
            message, self.loc // A.LINE_BASE, self.loc % A.LINE_BASE, -1, show=False, fatal=fatal
        )

    def temp(self) -> str:
        self.ntemp += 1
        return f"_t{self.ntemp}"

    def const(self, value: object, tag: str = "s") -> str:
        key = (tag, value)
        name = self.consts.get(key)
        if name is None:
            name = f"K{len(self.consts)}"
            self.consts[key] = name
            self.values[name] = value
        return name

    def number(self, v: float) -> str:
        if math.isfinite(v):
            return repr(float(v))
        return self.const(v, "f")

    def string(self, s: str) -> str:
        return self.const(s, "s")

    def regex(self, source: str) -> str:
        """Code for the Regex object of a constant regex: one object a source, however many times
        the program's code names it (the record loop writes the main rules a second time)."""
        name = self.consts.get(("rsrc", source))
        if name is None:
            try:
                rx = compile_regex(source, False)
            except RegexError as e:
                raise self.error(f"{e}: /{source}/") from None
            name = self.consts[("rsrc", source)] = self.const(rx, "r")
        return f"_icre({name})" if self.icase else name

    def regex_test(self, source: str, subject: str) -> str:
        code = self.regex(source)  # validates the pattern
        rx = compile_regex(source, False) if not self.icase else None
        if rx is not None and rx.literal is not None:
            return f"({self.string(rx.literal)} in {subject})"
        return f"{code}.test({subject})"

    def key(self, name: str) -> tuple[str | None, str]:
        if self.fn is not None and name in self.fn.params:
            return (self.fn.name, name)
        return (None, name)

    def pyname(self, name: str) -> str:
        if not _IDENT.match(name):
            raise self.error(f"invalid name `{name}'")
        k = self.key(name)
        if k[0] is not None:
            return "L_" + name
        return ("A_" if self.sym.is_array(k) else "V_") + name

    def is_array(self, name: str) -> bool:
        return self.sym.is_array(self.key(name))

    def array_name(self, name: str) -> str:
        k = self.key(name)
        if not self.sym.is_array(k):
            raise self.error(f"attempt to use scalar `{name}' as an array", fatal=True)
        return self.pyname(name)

    def array_ref(
        self, name: str, path: list[list[A.Expr]], scalar_msg: str = "", made_by_arg: bool = False
    ) -> str:
        """Code for the array name[path[0]]...: the array itself, or a subarray (made
        on first use). For the last step, `scalar_msg` is gawk's error when the element
        is a scalar, and `made_by_arg` says a subarray made there is one gawk leaves
        unnamed (an argument: `(null)` in its messages)."""
        code = self.array_name(name)
        for i, group in enumerate(path):
            extra = ""
            if i == len(path) - 1 and (scalar_msg or made_by_arg):
                extra = f", {self.string(scalar_msg)}, {made_by_arg}"
            code = f"_sub({code}, {self.subscript(group)}, {self.string(name)}{extra})"
        return code

    def element(self, e: A.Index) -> tuple[str, str]:
        """(array code, key code) of an element a[...][k]."""
        return self.array_ref(e.name, e.path), self.subscript(e.subs)

    def hooked(self, name: str) -> bool:
        """Whether storing into this name goes through the runtime (the global NF rebuilds the
        record; FS, FIELDWIDTHS and FPAT pick the splitter), so a plain binding will not do."""
        return (name == "NF" or name in _SPLIT_MODES) and self.key(name)[0] is None

    def scalar_name(self, name: str, store: bool = False) -> str:
        k = self.key(name)
        if self.sym.is_array(k):
            raise self.error(f"attempt to use array `{name}' in a scalar context", fatal=True)
        py = self.pyname(name)
        if store and k[0] is None:
            self.globals.add(py)
        return py

    # ------------------------------------------------------------ conversions

    @staticmethod
    def as_num(code: str, kind: str) -> str:
        if kind == NUM:
            return code
        if kind == STR:
            return f"_s2n({code})"
        return f"_num({code})"

    @staticmethod
    def as_str(code: str, kind: str) -> str:
        if kind == STR:
            return code
        if kind == NUM:
            return f"_n2s({code})"
        return f"_str({code})"

    @staticmethod
    def cmp_str(code: str, kind: str) -> str:
        """A value as a string comparison sees it (gawk compares inf and nan as "")."""
        if kind == STR:
            return code
        if code.startswith("_fv(") and code[4:-1].isdigit():
            return f"_fcs({code[4:-1]})"  # a field's text as it is, without a strnum made of it
        return f"_cstr({code})"

    @staticmethod
    def as_out(code: str, kind: str) -> str:
        if kind == STR:
            return code
        if kind == NUM:
            return f"_n2o({code})"
        return f"_ostr({code})"

    @staticmethod
    def as_cond(code: str, kind: str) -> str:
        if kind in (NUM, STR):
            return code
        return f"_bool({code})"

    @staticmethod
    def as_value(cond: str) -> str:
        return f"(1.0 if {cond} else 0.0)"

    def num(self, e: A.Expr) -> str:
        e = _unwrap(e)
        if isinstance(e, A.Var):
            code, kind = self.val(e)
            if kind == ANY:
                # a variable usually holds a number: test inline instead of calling _num
                return f"({code} if {code}.__class__ is float else _num({code}))"
            return self.as_num(code, kind)
        if isinstance(e, A.Field):
            k = _const_field(e.index)
            if k is not None:
                return f"_fn({k})" if k else "_s2n(_rec())"
            return f"_fnd({self.num(e.index)})"
        return self.as_num(*self.val(e))

    def str_(self, e: A.Expr) -> str:
        e = _unwrap(e)
        if isinstance(e, A.Field):
            k = _const_field(e.index)
            if k is not None:
                return f"_fs({k})" if k else "_rec()"
            return f"_fsd({self.num(e.index)})"
        return self.as_str(*self.val(e))

    def out(self, e: A.Expr) -> str:
        """A value as print shows it (numbers through OFMT)."""
        e = _unwrap(e)
        if isinstance(e, A.Field):
            k = _const_field(e.index)
            if k is not None:
                return f"_fo({k})" if k else "_rec()"
            return f"_fod({self.num(e.index)})"
        return self.as_out(*self.val(e))

    def cond(self, e: A.Expr) -> str:
        e = _unwrap(e)
        if isinstance(e, A.Regex):
            return self.regex_test(e.source, "_rec()")
        if isinstance(e, A.Binary) and e.op in ("<", "<=", "==", "!=", ">", ">="):
            return self.compare(e)
        if isinstance(e, A.Logical):
            op = "and" if e.op == "&&" else "or"
            return f"({self.cond(e.left)} {op} {self.cond(e.right)})"
        if isinstance(e, A.Unary) and e.op == "!":
            return f"(not {self.cond(e.expr)})"
        if isinstance(e, A.MatchOp):
            return self.match(e)
        if isinstance(e, A.In):
            return f"({self.subscript(e.subs)} in {self.array_ref(e.name, e.path, _SCALAR_IN)})"
        if isinstance(e, A.Field):
            k = _const_field(e.index)
            return f"_fb({k})" if k else f"_bool({self.val(e)[0]})"
        return self.as_cond(*self.val(e))

    # ------------------------------------------------------------ expressions

    def val(self, e: A.Expr) -> tuple[str, str]:
        method = getattr(self, "e_" + type(e).__name__)
        result: tuple[str, str] = method(e)
        return result

    def e_Num(self, e: A.Num) -> tuple[str, str]:
        return self.number(e.value), NUM

    def e_Str(self, e: A.Str) -> tuple[str, str]:
        return self.string(e.value), STR

    def e_Regex(self, e: A.Regex) -> tuple[str, str]:
        return self.as_value(self.regex_test(e.source, "_rec()")), NUM

    def e_Group(self, e: A.Group) -> tuple[str, str]:
        return self.val(e.expr)

    def e_Var(self, e: A.Var) -> tuple[str, str]:
        if e.name in self.program.functions:
            raise self.error(
                f"function `{e.name}' called with space between name and `(',\n"
                "or used as a variable or an array"
            )
        if e.name == "NF" and self.key("NF")[0] is None:
            return "_nf()", NUM
        return self.scalar_read(e.name, self.scalar_name(e.name)), ANY

    def scalar_read(self, name: str, py: str) -> str:
        """A read of scalar variable `py`; a parameter given an element f(a[k]) may hold a
        subarray, which gawk reports where the function first uses it as a scalar."""
        k = self.key(name)
        if k[0] is not None and k in self.sym.element_params:
            return f"_pscal({py}, {self.string(name)})"
        return py

    def subscript(self, subs: list[A.Expr]) -> str:
        if len(subs) == 1:
            return self.key1(subs[0])
        parts = [self.key1(s) for s in subs]
        return "(" + " + _subsep() + ".join(parts) + ")"

    def key1(self, e: A.Expr) -> str:
        e = _unwrap(e)
        if isinstance(e, A.Num):
            v = e.value
            if math.isfinite(v) and v == int(v):
                return self.string(str(int(v)))
            return f"_n2k({self.number(v)})"
        if isinstance(e, A.Field):
            return self.str_(e)
        code, kind = self.val(e)
        if kind == STR:
            return code
        if kind == NUM:
            return f"_n2k({code})"
        return f"_key({code})"

    def e_Index(self, e: A.Index) -> tuple[str, str]:
        arr, key = self.element(e)
        if self.sym.nested:  # the element may be a subarray: an error in a scalar context
            return f"_aget({arr}, {key})", ANY
        # referencing an element creates it, as in every awk
        return f"{arr}.setdefault({key}, U)", ANY

    def e_In(self, e: A.In) -> tuple[str, str]:
        return self.as_value(self.cond(e)), NUM

    def e_Field(self, e: A.Field) -> tuple[str, str]:
        k = _const_field(e.index)
        if k is not None:
            return (f"_fv({k})" if k else "_r0()"), ANY
        return f"_fvd({self.num(e.index)})", ANY

    def e_Cond(self, e: A.Cond) -> tuple[str, str]:
        test = self.cond(e.test)
        yes, yk = self.val(e.yes)
        no, nk = self.val(e.no)
        kind = yk if yk == nk else ANY
        return f"({yes} if {test} else {no})", kind

    def e_Unary(self, e: A.Unary) -> tuple[str, str]:
        if e.op == "!":
            return f"(0.0 if {self.cond(e.expr)} else 1.0)", NUM
        inner = self.num(e.expr)
        return (f"(-{inner})" if e.op == "-" else inner), NUM

    def e_Logical(self, e: A.Logical) -> tuple[str, str]:
        return self.as_value(self.cond(e)), NUM

    def e_MatchOp(self, e: A.MatchOp) -> tuple[str, str]:
        return self.as_value(self.match(e)), NUM

    def match(self, e: A.MatchOp) -> str:
        subject = self.str_(e.left)
        right = _unwrap(e.right)
        if isinstance(right, A.Regex):
            test = self.regex_test(right.source, subject)
        else:
            test = f"_dmatch({subject}, {self.str_(right)})"  # the subject is evaluated first
        return f"(not {test})" if e.negate else test

    def e_Binary(self, e: A.Binary) -> tuple[str, str]:
        op = e.op
        self.loc = e.line or self.loc
        if op == "concat":
            if _has_raw_bytes(e.left) or _has_raw_bytes(e.right):
                return f"_bcat({self.str_(e.left)}, {self.str_(e.right)})", STR
            return f"({self.str_(e.left)} + {self.str_(e.right)})", STR
        if op in ("<", "<=", "==", "!=", ">", ">="):
            return self.as_value(self.compare(e)), NUM
        return self.arith(op, self.num(e.left), e.right), NUM

    def check_divisor(self, op: str, right: A.Expr) -> None:
        """gawk rejects a constant zero divisor when it compiles the program."""
        r = _unwrap(right)
        if isinstance(r, A.Num) and r.value == 0 and op in ("/", "%"):
            raise self.error("division by zero attempted" + (" in `%'" if op == "%" else ""))

    def arith(self, op: str, left: str, right_e: A.Expr | str, assign: bool = False) -> str:
        right = right_e if isinstance(right_e, str) else self.num(right_e)
        if assign and op in "/%":
            # `x /= 0` is a run-time error with its own wording
            return f"_{'div' if op == '/' else 'mod'}_assign({left}, {right})"
        if isinstance(right_e, A.Expr):
            self.check_divisor(op, right_e)
        if op in _ARITH:
            return f"({left} {_ARITH[op]} {right})"
        if op == "%":
            if isinstance(right_e, A.Expr) and isinstance(_unwrap(right_e), A.Num):
                return f"_fmod({left}, {right})"  # a non-zero constant divisor
            return f"_mod({left}, {right})"
        return f"_pow({left}, {right})"

    def compare(self, e: A.Binary) -> str:
        op = e.op
        lc, lk = self.val(e.left)
        rc, rk = self.val(e.right)
        if lk == NUM and rk == NUM:
            return f"({lc} {op} {rc})"
        if (lk == STR or rk == STR) and not self.icase:
            return f"({self.cmp_str(lc, lk)} {op} {self.cmp_str(rc, rk)})"
        if lk == STR or rk == STR:
            return f"(_scmp({self.cmp_str(lc, lk)}, {self.cmp_str(rc, rk)}) {op} 0)"
        if rk == NUM or lk == NUM:
            # one side is a number: no string conversion unless the other is a non-numeric string
            if rk != NUM:
                if not pure(e.left):
                    return f"(_cmp({lc}, {rc}) {op} 0)"  # keep left-to-right evaluation
                lc, rc = rc, lc
                e = A.Binary(_MIRROR[op], e.right, e.left)
                op = e.op
            left = _unwrap(e.left)
            if isinstance(left, A.Field) and _const_field(left.index):
                return f"(_fcmpn({_const_field(left.index)}, {rc}) {op} 0)"
            if isinstance(left, A.Var) and lk == ANY:
                # a variable usually holds a number: compare inline
                return f"(({lc} {op} {rc}) if {lc}.__class__ is float else (_cmpn({lc}, {rc}) {op} 0))"
            return f"(_cmpn({lc}, {rc}) {op} 0)"
        return f"(_cmp({lc}, {rc}) {op} 0)"

    # ------------------------------------------------------------ assignment

    def load_num(self, target: A.Expr) -> tuple[str, str, Callable[[str], str]]:
        """For compound assignment: (setup, numeric load, store(value) -> expression).

        `setup` binds temporaries the load and the store share, so a
        subscript or field index is evaluated once."""
        target = _unwrap(target)
        if isinstance(target, A.Var):
            if target.name == "NF" and self.key("NF")[0] is None:
                return "", "_nf()", lambda v: f"_setnf({v})"
            py = self.scalar_name(target.name, store=True)
            load = f"({py} if {py}.__class__ is float else _num({self.scalar_read(target.name, py)}))"
            if target.name in _SPLIT_MODES and self.key(target.name)[0] is None:
                return "", load, lambda v: f"_setmode({target.name!r}, ({py} := {v}))"
            return "", load, lambda v: f"({py} := {v})"
        if isinstance(target, A.Index):
            arr, key = self.element(target)
            t = self.temp()
            setup = f"({t} := {key})"
            if self.sym.nested:
                a = self.temp()
                return f"(({a} := {arr}), {setup})", f"_anum({a}, {t})", lambda v: f"_aset2({a}, {t}, {v})"
            return setup, f"_num({arr}.get({t}, 0.0))", lambda v: f"_aset({arr}, {t}, {v})"
        if isinstance(target, A.Field):
            k = _const_field(target.index)
            if k is not None:
                return "", (f"_fn({k})" if k else "_s2n(_rec())"), lambda v: f"_setf({k}, {v})"
            t = self.temp()
            setup = f"({t} := _fidx({self.num(target.index)}))"
            return setup, f"_fnd({t})", lambda v: f"_setf({t}, {v})"
        raise self.error("assignment to a non-variable")

    def store(self, target: A.Expr, value: str) -> str:
        """An expression storing `value` (an awk value) into target; yields the value."""
        target = _unwrap(target)
        if isinstance(target, A.Var):
            if target.name == "NF" and self.key("NF")[0] is None:
                return f"_setnf({value})"
            py = self.scalar_name(target.name, store=True)
            checked = self.scalar_read(target.name, py)
            if checked != py:  # a parameter bound to a subarray cannot be assigned a scalar
                return f"({checked}, ({py} := {value}))[1]"
            if target.name in _SPLIT_MODES and self.key(target.name)[0] is None:
                return f"_setmode({target.name!r}, ({py} := {value}))"
            return f"({py} := {value})"
        if isinstance(target, A.Index):
            arr, key = self.element(target)
            if self.sym.nested:
                return f"_aset2({arr}, {key}, {value})"
            return f"_aset({arr}, {key}, {value})"
        if isinstance(target, A.Field):
            k = _const_field(target.index)
            idx = str(k) if k is not None else f"_fidx({self.num(target.index)})"
            return f"_setf({idx}, {value})"
        raise self.error("assignment to a non-variable")

    def checked(self, e: A.Expr) -> tuple[str, str]:
        """A value about to be kept (assigned, passed, returned): a
        concatenation is length-checked so doubling loops hit the limit."""
        code, kind = self.val(e)
        if isinstance(_unwrap(e), A.Binary) and getattr(_unwrap(e), "op", "") == "concat":
            return f"_chk({code})", kind
        return code, kind

    def append_in_place(self, e: A.Assign) -> str | None:
        """`v = v x ...` for a global scalar v whose other operands cannot change v: a call of the
        runtime's append_str, which grows v's string in place and stores it (a concatenation
        copies it: quadratic in a loop); None for any other assignment."""
        target = _unwrap(e.target)
        if not isinstance(target, A.Var) or target.name in SPECIAL_SCALARS or target.name in _SPLIT_MODES:
            return None
        k = self.key(target.name)
        if k[0] is not None or self.sym.is_array(k):
            return None
        tail: list[A.Expr] = []
        v = _unwrap(e.value)
        while isinstance(v, A.Binary) and v.op == "concat":
            tail.append(v.right)
            v = _unwrap(v.left)
        if not tail or not isinstance(v, A.Var) or v.name != target.name:
            return None
        if not all(pure(x) and not _has_raw_bytes(x) for x in tail):
            return None
        tail.reverse()
        py = self.scalar_name(target.name, store=True)
        return f"_sapp({py!r}, {' + '.join(self.str_(x) for x in tail)})"

    def e_Assign(self, e: A.Assign) -> tuple[str, str]:
        self.loc = e.line or self.loc
        if e.op == "=":
            appended = self.append_in_place(e)
            target = _unwrap(e.target)
            if appended is not None and isinstance(target, A.Var):  # (stored: bound to it again)
                return f"({self.pyname(target.name)} := {appended})", STR
            code, kind = self.checked(e.value)
            return self.store(e.target, code), kind
        # gawk evaluates the right side first, then the target: x -= (x = 2) is 0
        parts = []
        rhs: A.Expr | str = e.value
        if not (pure(e.value) and _pure_target(e.target)):
            t = self.temp()
            parts.append(f"({t} := {self.num(e.value)})")
            rhs = t
        setup, load, store = self.load_num(e.target)
        if setup:
            parts.append(setup)
        parts.append(store(self.arith(e.op[0], load, rhs, assign=True)))
        return (f"({', '.join(parts)})[-1]" if len(parts) > 1 else parts[0]), NUM

    def e_IncDec(self, e: A.IncDec) -> tuple[str, str]:
        delta = "1.0" if e.op == "++" else "-1.0"
        setup, load, store = self.load_num(e.target)
        if e.prefix:
            expr = store(f"({load} + {delta})")
            return (f"({setup}, {expr})[1]" if setup else expr), NUM
        old = self.temp()
        expr = store(f"({old} + {delta})")
        parts = ([setup] if setup else []) + [f"({old} := {load})", expr]
        return f"({', '.join(parts)})[{len(parts) - 2}]", NUM

    # ------------------------------------------------------------ calls

    def e_Call(self, e: A.Call) -> tuple[str, str]:
        self.loc = e.line or self.loc
        fn = self.program.functions.get(e.name)
        if fn is None:
            raise self.error(f"function `{e.name}' not defined", fatal=True)
        args = [self.call_arg(fn, i, a) for i, a in enumerate(e.args[: len(fn.params)])]
        extra = [self.val(a)[0] for a in e.args[len(fn.params) :]]
        call = f"F_{fn.name}({', '.join(args)})"
        if extra:
            call = f"({', '.join(extra)}, {call})[-1]"
        return call, ANY

    def call_arg(self, fn: A.Function, i: int, arg: A.Expr) -> str:
        param = (fn.name, fn.params[i])
        param_array = self.sym.is_array(param)
        inner = _unwrap(arg)
        if isinstance(inner, A.Index) and self.sym.nested:
            # f(a[k]): a subarray into an array parameter, an element's value into a scalar one
            if param_array:
                msg = f"attempt to use scalar parameter `{fn.params[i]}' as an array"
                return self.array_ref(inner.name, [*inner.path, inner.subs], msg, made_by_arg=True)
            # the element, scalar or subarray: a scalar parameter checks where it is read
            arr, key = self.element(inner)
            return f"_aval({arr}, {key})"
        if isinstance(inner, A.Var) and inner.name not in self.program.functions:
            if self.is_array(inner.name):
                return self.pyname(inner.name)
            if param_array:
                raise self.error(f"attempt to use scalar `{inner.name}' as an array", fatal=True)
            if inner.name == "NF" and self.key("NF")[0] is None:
                return "_nf()"
            return self.pyname(inner.name)
        if param_array:
            raise self.error(
                f"function `{fn.name}': argument #{i + 1}: attempt to use scalar value as array", fatal=True
            )
        return self.checked(arg)[0]

    def e_IndirectCall(self, e: A.IndirectCall) -> tuple[str, str]:
        self.loc = e.line or self.loc
        args = ", ".join(self.val(a)[0] for a in e.args)
        return f"_indirect({self.scalar_name(e.var)}, ({args}{',' if len(e.args) == 1 else ''}))", ANY

    def e_Builtin(self, e: A.Builtin) -> tuple[str, str]:
        self.loc = e.line or self.loc
        result: tuple[str, str] = getattr(self, "b_" + e.name)(e)
        return result

    def e_Getline(self, e: A.Getline) -> tuple[str, str]:
        self.loc = e.line or self.loc
        src = "" if e.source is None else self.str_(e.source)
        fn = {"main": "_gl", "file": "_glf", "cmd": "_glc", "coproc": "_glp"}[e.kind]
        if e.kind != "main" and getattr(self, "sandbox", False):
            raise self.error("redirection not allowed in sandbox mode", fatal=True)
        if e.kind == "main":
            self.moves_input = True
        if e.target is None:
            return f"{fn}({src})", NUM
        t = self.temp()
        if isinstance(_unwrap(e.target), A.Index):
            # gawk evaluates the subscript before reading: `getline a[NR]` uses the old NR
            setup, _, store_at = self.load_num(e.target)
            store = store_at(f"{t}[1]")
            return f"({setup}, ({t} := {fn}v({src})), ({store} if {t}[0] > 0 else None), {t}[0])[3]", NUM
        store = self.store(e.target, f"{t}[1]")
        return f"(({t} := {fn}v({src})), ({store} if {t}[0] > 0 else None), {t}[0])[2]", NUM

    def fast_format(self, args: list[A.Expr]) -> tuple[str, str] | None:
        """(plan constant, argument tuple) for printf/sprintf with a constant
        format that Python's % can apply as C would."""
        fmt = _unwrap(args[0])
        if not isinstance(fmt, A.Str):
            return None
        plan = static_plan(fmt.value)
        if plan is None or len(plan[3]) != len(args) - 1:
            return None
        codes = [
            self.str_(a) if letter == "s" else self.num(a)
            for letter, a in zip(plan[3], args[1:], strict=True)
        ]
        return self.const(plan, "p"), "(" + ", ".join(codes) + ("," if len(codes) == 1 else "") + ")"

    def regex_arg(self, e: A.Expr) -> str:
        """A regex argument (split, sub, match...): a constant or a dynamic string."""
        inner = _unwrap(e)
        if isinstance(inner, A.Regex):
            return self.regex(inner.source)
        return f"_dre({self.str_(e)})"
