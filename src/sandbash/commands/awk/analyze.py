"""Which names are arrays: a fixed point over uses and function calls.

awk has no declarations: a name is an array when it is subscripted, deleted,
iterated, given to split() and friends, or passed to a function parameter
that is an array (and a parameter is an array when an array is passed to
it). Knowing this before code generation lets arrays be plain dicts held in
their variables, passed by reference, with no run-time type tests.
"""

from __future__ import annotations

from . import ast as A
from .lexer import AwkSyntaxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

SPECIAL_ARRAYS = frozenset({"ENVIRON", "ARGV", "PROCINFO", "SYMTAB", "FUNCTAB"})
SPECIAL_SCALARS = frozenset(
    {
        "NF",
        "NR",
        "FNR",
        "FS",
        "OFS",
        "ORS",
        "RS",
        "RT",
        "SUBSEP",
        "CONVFMT",
        "OFMT",
        "FILENAME",
        "RSTART",
        "RLENGTH",
        "ARGC",
        "IGNORECASE",
        "FIELDWIDTHS",
        "FPAT",
        "BINMODE",
        "LINT",
        "TEXTDOMAIN",
        "ERRNO",
    }
)
# builtin -> argument positions that are arrays
ARRAY_ARGS: dict[str, tuple[int, ...]] = {
    "split": (1, 3),
    "patsplit": (1, 3),
    "match": (2,),
    "asort": (0, 1),
    "asorti": (0, 1),
}
# builtins that accept either kind of argument
POLY_BUILTINS = frozenset({"length", "isarray", "typeof"})

Key = tuple[str | None, str]  # (function or None for global, name)


@dataclass
class Symbols:
    kinds: dict[Key, str] = field(default_factory=dict)  # "array" | "scalar"
    globals_seen: set[str] = field(default_factory=set)
    # the program can make subarrays (a[i][j], a subarray passed or split into): array elements
    # may then hold arrays, so element reads and stores are checked
    nested: bool = False
    # parameters given an element f(a[k]) in a nested program: it may be a subarray, an error
    # where the function uses the parameter as a scalar
    element_params: set[Key] = field(default_factory=set)

    def kind(self, key: Key) -> str | None:
        return self.kinds.get(key)

    def is_array(self, key: Key) -> bool:
        return self.kinds.get(key) == "array"


class _Walker:
    def __init__(self, program: A.Program) -> None:
        self.program = program
        self.fn: A.Function | None = None
        self.array_uses: dict[Key, int] = {}
        self.scalar_uses: dict[Key, int] = {}
        self.passes: list[tuple[Key, str, int]] = []  # (caller key, callee, arg index)
        self.element_args: list[tuple[str, int]] = []  # (callee, arg index) given an element a[i]
        self.nested = False
        self.order = 0
        self.globals_seen: set[str] = set()

    def key(self, name: str) -> Key:
        if self.fn is not None and name in self.fn.params:
            return (self.fn.name, name)
        self.globals_seen.add(name)
        return (None, name)

    def use(self, name: str, array: bool) -> None:
        k = self.key(name)
        self.order += 1
        table = self.array_uses if array else self.scalar_uses
        table.setdefault(k, self.order)

    # ------------------------------------------------------------ walking

    def run(self) -> None:
        for rule in self.program.rules:
            self.fn = None
            for e in (rule.pattern, rule.pattern2):
                if e is not None:
                    self.expr(e)
            if rule.body is not None:
                self.stmt(rule.body)
        for fn in self.program.functions.values():
            self.fn = fn
            self.stmt(fn.body)
        self.fn = None

    def stmt(self, s: A.Stmt) -> None:
        if isinstance(s, A.Block):
            for x in s.stmts:
                self.stmt(x)
        elif isinstance(s, A.ExprStmt):
            self.expr(s.expr)
        elif isinstance(s, A.Print):
            for e in s.args:
                self.expr(e)
            if s.dest is not None:
                self.expr(s.dest)
        elif isinstance(s, A.If):
            self.expr(s.test)
            self.stmt(s.yes)
            if s.no is not None:
                self.stmt(s.no)
        elif isinstance(s, (A.While, A.DoWhile)):
            self.expr(s.test)
            self.stmt(s.body)
        elif isinstance(s, A.For):
            for part in (s.init, s.step):
                if part is not None:
                    self.stmt(part)
            if s.test is not None:
                self.expr(s.test)
            self.stmt(s.body)
        elif isinstance(s, A.ForIn):
            self.lvalue(s.var)
            self.use(s.array, True)
            self.path(s.path)
            self.stmt(s.body)
        elif isinstance(s, A.Switch):
            self.expr(s.subject)
            for label, body in s.cases:
                if label is not None:
                    self.expr(label)
                for x in body:
                    self.stmt(x)
        elif isinstance(s, (A.Exit, A.Return)):
            if s.value is not None:
                self.expr(s.value)
        elif isinstance(s, A.Delete):
            self.use(s.name, True)
            self.path(s.path)
            for e in s.subs or ():
                self.expr(e)

    def path(self, path: list[list[A.Expr]]) -> None:
        if path:
            self.nested = True
        for group in path:
            for e in group:
                self.expr(e)

    def lvalue(self, e: A.Expr) -> None:
        if isinstance(e, A.Var):
            self.use(e.name, False)
        else:
            self.expr(e)

    def expr(self, e: A.Expr) -> None:
        if isinstance(e, A.Var):
            self.use(e.name, False)
        elif isinstance(e, (A.Index, A.In)):
            self.use(e.name, True)
            self.path(e.path)
            for x in e.subs:
                self.expr(x)
        elif isinstance(e, A.Field):
            self.expr(e.index)
        elif isinstance(e, A.Group):
            self.expr(e.expr)
        elif isinstance(e, A.Assign):
            self.lvalue(e.target)
            self.expr(e.value)
        elif isinstance(e, A.IncDec):
            self.lvalue(e.target)
        elif isinstance(e, A.Cond):
            for x in (e.test, e.yes, e.no):
                self.expr(x)
        elif isinstance(e, (A.Binary, A.Logical, A.MatchOp)):
            self.expr(e.left)
            self.expr(e.right)
        elif isinstance(e, A.Unary):
            self.expr(e.expr)
        elif isinstance(e, A.Getline):
            if e.target is not None:
                self.lvalue(e.target)
            if e.source is not None:
                self.expr(e.source)
        elif isinstance(e, A.Builtin):
            self.builtin(e)
        elif isinstance(e, (A.Call, A.IndirectCall)):
            for i, arg in enumerate(e.args):
                inner = arg.expr if isinstance(arg, A.Group) else arg
                if isinstance(inner, A.Var) and isinstance(e, A.Call):
                    self.passes.append((self.key(inner.name), e.name, i))
                else:
                    if isinstance(inner, A.Index) and isinstance(e, A.Call):
                        self.element_args.append((e.name, i))
                    self.expr(arg)

    def builtin(self, e: A.Builtin) -> None:
        arrays = ARRAY_ARGS.get(e.name, ())
        for i, arg in enumerate(e.args):
            if isinstance(arg, A.Index) and i in arrays:
                self.nested = True  # split(s, a[1]): a[1] becomes a subarray
            if isinstance(arg, A.Var):
                if i in arrays:
                    self.use(arg.name, True)
                elif e.name in POLY_BUILTINS:
                    self.key(arg.name)
                else:
                    self.use(arg.name, False)
            else:
                self.expr(arg)


def analyze(program: A.Program) -> Symbols:
    w = _Walker(program)
    w.run()
    kinds: dict[Key, str] = {}
    for k in w.array_uses:
        kinds[k] = "array"
    for name in SPECIAL_ARRAYS:
        kinds[(None, name)] = "array"
    changed = True
    funcs = program.functions
    while changed:
        changed = False
        for caller, callee, i in w.passes:
            fn = funcs.get(callee)
            if fn is None or i >= len(fn.params):
                continue
            param = (callee, fn.params[i])
            if kinds.get(param) == "array" and kinds.get(caller) != "array":
                kinds[caller] = "array"
                changed = True
            elif kinds.get(caller) == "array" and kinds.get(param) != "array":
                kinds[param] = "array"
                changed = True
    for k, order in w.scalar_uses.items():
        if kinds.get(k) == "array":
            _conflict(k, order, w.array_uses.get(k))
        kinds[k] = "scalar"
    for k in list(kinds):
        if k[0] is None and k[1] in SPECIAL_SCALARS and kinds[k] == "array":
            raise AwkSyntaxError(f"attempt to use scalar `{k[1]}' as an array", show=False, fatal=True)
    nested = w.nested or any(_array_param(funcs, callee, i, kinds) for callee, i in w.element_args)
    element_params: set[Key] = set()
    if nested:
        for callee, i in w.element_args:
            fn = funcs.get(callee)
            if fn is not None and i < len(fn.params):
                element_params.add((callee, fn.params[i]))
    return Symbols(kinds, w.globals_seen, nested, element_params)


def _array_param(funcs: dict[str, A.Function], callee: str, i: int, kinds: dict[Key, str]) -> bool:
    """Whether f(a[k]) passes a subarray: the parameter is an array."""
    fn = funcs.get(callee)
    return fn is not None and i < len(fn.params) and kinds.get((callee, fn.params[i])) == "array"


def _conflict(k: Key, scalar_order: int, array_order: int | None) -> None:
    fn, name = k
    what = f"parameter `{name}'" if fn is not None else f"`{name}'"
    if array_order is not None and array_order < scalar_order:
        msg = f"attempt to use array {what} in a scalar context"
    else:
        msg = f"attempt to use scalar {what} as an array"
    if fn is None and name in SPECIAL_ARRAYS:
        msg = f"attempt to use array `{name}' in a scalar context"
    raise AwkSyntaxError(msg, show=False, fatal=True)
