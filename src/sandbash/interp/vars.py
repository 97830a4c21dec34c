"""Shell variables: values, attributes and dynamic scopes.

A `Var` holds a str, an `IndexedArray`, an `AssocArray`, or None (declared
but unset, like `local x`). `VarStore` is a stack of scopes searched from the
innermost function outwards (bash's dynamic scoping). Attribute semantics that
need evaluation (integer, case conversion) live in `state.ShellState`.
"""

from __future__ import annotations

from .arrays import AssocArray, IndexedArray

EXPORT = 1
READONLY = 2
INTEGER = 4
LOWER = 8
UPPER = 16
NAMEREF = 32
ARRAY = 64
ASSOC = 128
TRACE = 256
CAPITALIZE = 512

# variables whose assignment does more than store the value (variables.set_var)
SPECIAL_ASSIGN = frozenset({"RANDOM", "SECONDS", "OPTIND", "BASH_ARGV0"})

ATTR_LETTERS = (
    (ARRAY, "a"),
    (ASSOC, "A"),
    (INTEGER, "i"),
    (LOWER, "l"),
    (NAMEREF, "n"),
    (READONLY, "r"),
    (TRACE, "t"),
    (UPPER, "u"),
    (EXPORT, "x"),
)

Value = str | IndexedArray | AssocArray | None


class Var:
    __slots__ = ("value", "attrs")

    def __init__(self, value: Value = None, attrs: int = 0) -> None:
        self.value = value
        self.attrs = attrs

    def copy(self) -> Var:
        v = self.value
        if isinstance(v, (IndexedArray, AssocArray)):
            v = v.copy()
        return Var(v, self.attrs)

    def is_set(self) -> bool:
        return self.value is not None

    def __repr__(self) -> str:
        return f"Var({self.value!r}, {self.attrs})"


class AssignArg(str):
    """An argument of a declaration builtin written as an assignment
    (`declare a=(1 2)`, `local x=$y`): the text plus the parsed pieces."""

    name: str
    value: str
    sub: str | None = None
    append: bool = False
    items: list[tuple[str | None, str, bool]] | None = None

    @classmethod
    def make(cls, text: str, name: str, sub: str | None, append: bool, value: str,
             items: list[tuple[str | None, str, bool]] | None) -> AssignArg:
        obj = cls(text)
        obj.name = name
        obj.value = value
        if sub is not None:
            obj.sub = sub
        if append:
            obj.append = append
        if items is not None:
            obj.items = items
        return obj


class Scope(dict[str, Var]):
    """One level of variables: the globals, a function's context, or the
    temporary assignments before a builtin (`temp` is True). A function's
    context also holds its call's temporary bindings; `locals` names the
    variables really declared local there (they behave differently on unset)."""

    __slots__ = ("temp", "func", "locals")

    def __init__(self, temp: bool = False, func: bool = False) -> None:
        # dict.__new__ made the (empty) mapping: dict.__init__ has nothing to add
        self.temp = temp
        self.func = func
        self.locals: set[str] = set()

    def clone(self) -> Scope:
        new = Scope(self.temp, self.func)
        new.locals = set(self.locals)
        for k, v in self.items():
            new[k] = v.copy()
        return new


class VarStore:
    __slots__ = ("scopes", "readonly_names")

    def __init__(self) -> None:
        self.scopes: list[Scope] = [Scope()]
        # names ever made readonly (readonly cannot be undone): lets `local x`
        # skip searching every scope for a readonly x
        self.readonly_names: set[str] = set()

    def clone(self) -> VarStore:
        new = VarStore.__new__(VarStore)
        new.scopes = [s.clone() for s in self.scopes]
        new.readonly_names = set(self.readonly_names)
        return new

    @property
    def globals(self) -> Scope:
        return self.scopes[0]

    def find(self, name: str) -> Var | None:
        scopes = self.scopes
        if len(scopes) == 1:
            return scopes[0].get(name)
        for scope in reversed(scopes):
            v = scope.get(name)
            if v is not None:
                return v
        return None

    def find_scope(self, name: str) -> tuple[int, Var] | tuple[int, None]:
        scopes = self.scopes
        for i in range(len(scopes) - 1, -1, -1):
            v = scopes[i].get(name)
            if v is not None:
                return i, v
        return -1, None

    def in_function(self) -> bool:
        return any(s.func for s in self.scopes)

    def function_scope(self) -> Scope | None:
        for s in reversed(self.scopes):
            if s.func:
                return s
        return None

    def names(self) -> list[str]:
        seen: dict[str, None] = {}
        for s in self.scopes:
            for k in s:
                seen[k] = None
        return sorted(seen)

    def visible(self) -> dict[str, Var]:
        out: dict[str, Var] = {}
        for s in self.scopes:
            out.update(s)
        return out

    def push(self, scope: Scope) -> None:
        self.scopes.append(scope)

    def pop(self) -> Scope:
        return self.scopes.pop()
