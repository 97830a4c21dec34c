"""Compiling the jq AST into filter objects, once, before any input is read.

Names are resolved here: each variable, function and label gets the depth of
its link in the runtime environment; calls to library (builtin) functions
and natives are bound directly.
"""

from __future__ import annotations

from collections.abc import Callable

from . import nodes as n
from .assign import FArithUpdate, FAssign, FModify, alternative
from .binding import FBind, FBindVar, FForeach, FReduce, Pattern
from .errors import CompileError
from .filters import (
    FAlt,
    FAnd,
    FArray,
    FBinOp,
    FBreak,
    FCall,
    FCallParam,
    FComma,
    FDef,
    FEnvVar,
    FField,
    FIdentity,
    FIf,
    FIndex,
    FIterate,
    FLabel,
    FLiteral,
    FNeg,
    FObject,
    FOr,
    FPipe,
    FRecurseAll,
    FSlice,
    FString,
    FTry,
    FVar,
)
from .parser import parse
from .runtime import Closure, F
from .values import add, compare, div, equal, mod, mul, sub, trunc_dump, typename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass


def _cmp(pred: Callable[[int], bool]) -> Callable[[Any, Any], Any]:
    return lambda a, b: pred(compare(a, b))


BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": add,
    "-": sub,
    "*": mul,
    "/": div,
    "%": mod,
    "==": equal,
    "!=": lambda a, b: not equal(a, b),
    "<": _cmp(lambda c: c < 0),
    "<=": _cmp(lambda c: c <= 0),
    ">": _cmp(lambda c: c > 0),
    ">=": _cmp(lambda c: c >= 0),
}


@dataclass(frozen=True)
class Scope:
    """One link of the compile-time environment (mirrors one runtime link)."""

    parent: Scope | None
    kind: str  # "var" | "func" | "param" | "label"
    name: str
    params: tuple[str, ...] = ()


@dataclass
class LibFunc:
    """A jq-defined builtin: compiled once, bound statically."""

    name: str
    params: tuple[str, ...]
    closure: Closure


# natives: (name, arity) -> factory(compiled args) -> filter
NativeFactory = Callable[[list[F]], F]


class Compiler:
    def __init__(
        self,
        natives: dict[tuple[str, int], NativeFactory],
        library: dict[tuple[str, int], LibFunc],
        formats: Callable[[str], Callable[[Any], str]],
        src: str,
    ) -> None:
        self.natives = natives
        self.library = library
        self.formats = formats
        self.src = src
        self.errors: list[CompileError] = []

    def fail(self, msg: str, pos: int = 0) -> CompileError:
        line = self.src.count("\n", 0, pos) + 1
        err = CompileError(msg, f"at <top-level>, line {line}:", pos)
        self.errors.append(err)
        return err

    # ------------------------------------------------------------ lookups

    def _find(self, scope: Scope | None, pred: Callable[[Scope], bool]) -> tuple[int, Scope] | None:
        depth = 0
        s = scope
        while s is not None:
            if pred(s):
                return depth, s
            depth += 1
            s = s.parent
        return None

    # ------------------------------------------------------------ compile

    def compile(self, node: n.Node, scope: Scope | None) -> F:
        method = getattr(self, "c_" + type(node).__name__)
        return method(node, scope)  # type: ignore[no-any-return]

    def c_Identity(self, node: n.Identity, scope: Scope | None) -> F:
        return FIdentity()

    def c_RecurseAll(self, node: n.RecurseAll, scope: Scope | None) -> F:
        return FRecurseAll()

    def c_Literal(self, node: n.Literal, scope: Scope | None) -> F:
        return FLiteral(node.value)

    def c_Index(self, node: n.Index, scope: Scope | None) -> F:
        if (
            type(node.target) is n.Identity
            and type(node.key) is n.Literal
            and type(node.key.value) is str
            and not node.opt
        ):
            return FField(node.key.value)
        return FIndex(self.compile(node.target, scope), self.compile(node.key, scope), node.opt)

    def c_Slice(self, node: n.Slice, scope: Scope | None) -> F:
        start = self.compile(node.start, scope) if node.start is not None else FLiteral(None)
        stop = self.compile(node.stop, scope) if node.stop is not None else FLiteral(None)
        return FSlice(self.compile(node.target, scope), start, stop, node.opt)

    def c_Iterate(self, node: n.Iterate, scope: Scope | None) -> F:
        return FIterate(self.compile(node.target, scope), node.opt)

    def c_StringInterp(self, node: n.StringInterp, scope: Scope | None) -> F:
        fmt = self.formats(node.fmt or "text")
        parts = [p if isinstance(p, str) else self.compile(p, scope) for p in node.parts]
        return FString(parts, fmt)

    def c_Format(self, node: n.Format, scope: Scope | None) -> F:
        fmt = self.formats(node.name)
        return FString([FIdentity()], fmt)

    def c_ArrayCons(self, node: n.ArrayCons, scope: Scope | None) -> F:
        return FArray(self.compile(node.body, scope) if node.body is not None else None)

    def c_ObjectCons(self, node: n.ObjectCons, scope: Scope | None) -> F:
        for k, _ in node.entries:
            if isinstance(k, n.Literal) and type(k.value) is not str:
                self.fail(f"Cannot use {typename(k.value)} ({trunc_dump(k.value)}) as object key")
        return FObject([(self.compile(k, scope), self.compile(v, scope)) for k, v in node.entries])

    def c_Neg(self, node: n.Neg, scope: Scope | None) -> F:
        return FNeg(self.compile(node.body, scope))

    def c_Pipe(self, node: n.Pipe, scope: Scope | None) -> F:
        a = self.compile(node.left, scope)
        b = self.compile(node.right, scope)
        if type(a) is FIdentity:
            return b
        if type(b) is FIdentity:
            return a
        return FPipe(a, b)

    def c_Comma(self, node: n.Comma, scope: Scope | None) -> F:
        return FComma(self.compile(node.left, scope), self.compile(node.right, scope))

    def c_BinOp(self, node: n.BinOp, scope: Scope | None) -> F:
        return FBinOp(BINOPS[node.op], self.compile(node.left, scope), self.compile(node.right, scope))

    def c_And(self, node: n.And, scope: Scope | None) -> F:
        return FAnd(self.compile(node.left, scope), self.compile(node.right, scope))

    def c_Or(self, node: n.Or, scope: Scope | None) -> F:
        return FOr(self.compile(node.left, scope), self.compile(node.right, scope))

    def c_Alt(self, node: n.Alt, scope: Scope | None) -> F:
        return FAlt(self.compile(node.left, scope), self.compile(node.right, scope))

    def c_Assign(self, node: n.Assign, scope: Scope | None) -> F:
        lhs = self.compile(node.target, scope)
        rhs = self.compile(node.value, scope)
        if node.op == "=":
            return FAssign(lhs, rhs)
        if node.op == "|=":
            return FModify(lhs, rhs)
        if node.op == "//=":
            return FArithUpdate(lhs, rhs, alternative)
        return FArithUpdate(lhs, rhs, BINOPS[node.op[0]])

    def c_If(self, node: n.If, scope: Scope | None) -> F:
        orelse = self.compile(node.orelse, scope) if node.orelse is not None else FIdentity()
        return FIf(self.compile(node.cond, scope), self.compile(node.then, scope), orelse)

    def c_Try(self, node: n.Try, scope: Scope | None) -> F:
        handler = self.compile(node.catch, scope) if node.catch is not None else None
        return FTry(self.compile(node.body, scope), handler)

    def c_Label(self, node: n.Label, scope: Scope | None) -> F:
        return FLabel(self.compile(node.body, Scope(scope, "label", node.name)))

    def c_Break(self, node: n.Break, scope: Scope | None) -> F:
        found = self._find(scope, lambda s: s.kind == "label" and s.name == node.name)
        if found is None:
            self.fail(f"$*label-{node.name} is not defined", node.pos)
            return FIdentity()
        return FBreak(found[0])

    def c_Var(self, node: n.Var, scope: Scope | None) -> F:
        found = self._find(scope, lambda s: s.kind == "var" and s.name == node.name)
        if found is None:
            if node.name == "ENV":
                return FEnvVar()
            if node.name == "__prog_name":
                return FLiteral("jq")
            self.fail(f"${node.name} is not defined", node.pos)
            return FIdentity()
        return FVar(found[0])

    # ------------------------------------------------------------ binding

    def _patterns(self, pats: tuple[n.Node, ...], scope: Scope | None) -> tuple[list[Pattern], list[str]]:
        names: list[str] = []

        def slot(name: str) -> int:
            if name not in names:
                names.append(name)
            return names.index(name)

        def walk(p: n.Node) -> Pattern:
            if isinstance(p, n.PVar):
                return ("var", slot(p.name))
            if isinstance(p, n.PArray):
                return ("array", [walk(x) for x in p.items])
            assert isinstance(p, n.PObject)
            entries = []
            for key, subpat, var in p.entries:
                if isinstance(key, n.Literal) and type(key.value) is not str:
                    self.fail(f"Cannot use {typename(key.value)} ({trunc_dump(key.value)}) as object key")
                s = slot(var) if var is not None else None
                entries.append((self.compile(key, scope), walk(subpat) if subpat is not None else None, s))
            return ("object", entries)

        compiled = [walk(p) for p in pats]
        return compiled, names

    def _push_vars(self, scope: Scope | None, names: list[str]) -> Scope | None:
        for name in names:
            scope = Scope(scope, "var", name)
        return scope

    def c_Bind(self, node: n.Bind, scope: Scope | None) -> F:
        source = self.compile(node.source, scope)
        if len(node.patterns) == 1 and isinstance(node.patterns[0], n.PVar):
            body = self.compile(node.body, Scope(scope, "var", node.patterns[0].name))
            return FBindVar(source, body)
        pats, names = self._patterns(node.patterns, scope)
        body = self.compile(node.body, self._push_vars(scope, names))
        return FBind(source, pats, len(names), body)

    def c_Reduce(self, node: n.Reduce, scope: Scope | None) -> F:
        pats, names = self._patterns(node.patterns, scope)
        inner = self._push_vars(scope, names)
        return FReduce(
            self.compile(node.source, scope),
            pats,
            len(names),
            self.compile(node.init, scope),
            self.compile(node.update, inner),
        )

    def c_Foreach(self, node: n.Foreach, scope: Scope | None) -> F:
        pats, names = self._patterns(node.patterns, scope)
        inner = self._push_vars(scope, names)
        extract = self.compile(node.extract, inner) if node.extract is not None else None
        return FForeach(
            self.compile(node.source, scope),
            pats,
            len(names),
            self.compile(node.init, scope),
            self.compile(node.update, inner),
            extract,
        )

    # ------------------------------------------------------------ functions

    def _param_scope(self, scope: Scope | None, params: tuple[str, ...]) -> Scope | None:
        for p in params:
            if p.startswith("$"):
                scope = Scope(scope, "param", p[1:])
                scope = Scope(scope, "var", p[1:])
            else:
                scope = Scope(scope, "param", p)
        return scope

    def c_FuncDef(self, node: n.FuncDef, scope: Scope | None) -> F:
        fscope = Scope(scope, "func", node.name, node.params)
        body = self.compile(node.body, self._param_scope(fscope, node.params))
        rest = self.compile(node.rest, fscope)
        return FDef(body, rest)

    def c_Call(self, node: n.Call, scope: Scope | None) -> F:
        arity = len(node.args)
        name = node.name

        def match(s: Scope) -> bool:
            if s.name != name:
                return False
            if s.kind == "func":
                return len(s.params) == arity
            return s.kind == "param" and arity == 0

        found = self._find(scope, match)
        if found is not None:
            depth, s = found
            if s.kind == "param":
                return FCallParam(depth)
            args = [self.compile(a, scope) for a in node.args]
            return FCall(depth, None, args, [p.startswith("$") for p in s.params])
        lib = self.library.get((name, arity))
        if lib is not None:
            args = [self.compile(a, scope) for a in node.args]
            return FCall(0, lib.closure, args, [p.startswith("$") for p in lib.params])
        native = self.natives.get((name, arity))
        if native is not None:
            return native([self.compile(a, scope) for a in node.args])
        self.fail(f"{name}/{arity} is not defined", node.pos)
        return FIdentity()


def compile_library(
    src: str,
    natives: dict[tuple[str, int], NativeFactory],
    formats: Callable[[str], Callable[[Any], str]],
) -> dict[tuple[str, int], LibFunc]:
    """Compile the jq-defined builtins (a chain of `def`s)."""
    tree = parse(src)
    defs: list[n.FuncDef] = []
    while isinstance(tree, n.FuncDef):
        defs.append(tree)
        tree = tree.rest
    library: dict[tuple[str, int], LibFunc] = {}
    for d in defs:
        library[(d.name, len(d.params))] = LibFunc(d.name, d.params, Closure(FIdentity(), None))
    comp = Compiler(natives, library, formats, src)
    for d in defs:
        lib = library[(d.name, len(d.params))]
        lib.closure.body = comp.compile(d.body, comp._param_scope(None, d.params))
    if comp.errors:
        raise comp.errors[0]
    return library
