"""The jq abstract syntax tree."""

from __future__ import annotations

from ...leanclass import Declared

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass


class Node:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Identity(Node, metaclass=Declared):
    pass


@dataclass(frozen=True, slots=True)
class RecurseAll(Node, metaclass=Declared):
    """`..`"""


@dataclass(frozen=True, slots=True)
class Literal(Node, metaclass=Declared):
    value: Any


@dataclass(frozen=True, slots=True)
class Index(Node, metaclass=Declared):
    """`T[k]`, `T.k`, `T."k"`; `opt` for the trailing `?`."""

    target: Node
    key: Node
    opt: bool = False


@dataclass(frozen=True, slots=True)
class Slice(Node, metaclass=Declared):
    target: Node
    start: Node | None
    stop: Node | None
    opt: bool = False


@dataclass(frozen=True, slots=True)
class Iterate(Node, metaclass=Declared):
    target: Node
    opt: bool = False


@dataclass(frozen=True, slots=True)
class StringInterp(Node, metaclass=Declared):
    """A string with `\\(...)` parts; `fmt` is the `@format` applied to them."""

    parts: tuple[Any, ...]  # str or Node
    fmt: str | None


@dataclass(frozen=True, slots=True)
class Format(Node, metaclass=Declared):
    """`@name` on its own: format the input."""

    name: str


@dataclass(frozen=True, slots=True)
class ArrayCons(Node, metaclass=Declared):
    body: Node | None


@dataclass(frozen=True, slots=True)
class ObjectCons(Node, metaclass=Declared):
    entries: tuple[tuple[Node, Node], ...]


@dataclass(frozen=True, slots=True)
class Neg(Node, metaclass=Declared):
    body: Node


@dataclass(frozen=True, slots=True)
class Pipe(Node, metaclass=Declared):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Comma(Node, metaclass=Declared):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class BinOp(Node, metaclass=Declared):
    op: str  # + - * / % == != < <= > >=
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class And(Node, metaclass=Declared):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Or(Node, metaclass=Declared):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Alt(Node, metaclass=Declared):
    """`a // b`"""

    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Assign(Node, metaclass=Declared):
    op: str  # = |= += -= *= /= %= //=
    target: Node
    value: Node


@dataclass(frozen=True, slots=True)
class If(Node, metaclass=Declared):
    cond: Node
    then: Node
    orelse: Node | None  # None: `else .` (jq 1.7 optional else)


@dataclass(frozen=True, slots=True)
class Try(Node, metaclass=Declared):
    body: Node
    catch: Node | None


@dataclass(frozen=True, slots=True)
class Reduce(Node, metaclass=Declared):
    source: Node
    patterns: tuple[Node, ...]
    init: Node
    update: Node


@dataclass(frozen=True, slots=True)
class Foreach(Node, metaclass=Declared):
    source: Node
    patterns: tuple[Node, ...]
    init: Node
    update: Node
    extract: Node | None


@dataclass(frozen=True, slots=True)
class FuncDef(Node, metaclass=Declared):
    name: str
    params: tuple[str, ...]  # "$x" for value params, "f" for filter params
    body: Node
    rest: Node


@dataclass(frozen=True, slots=True)
class Call(Node, metaclass=Declared):
    name: str
    args: tuple[Node, ...]
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Var(Node, metaclass=Declared):
    name: str
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Bind(Node, metaclass=Declared):
    """`source as $x | body`, with `?//` alternatives in patterns."""

    source: Node
    patterns: tuple[Node, ...]
    body: Node


@dataclass(frozen=True, slots=True)
class Label(Node, metaclass=Declared):
    name: str
    body: Node


@dataclass(frozen=True, slots=True)
class Break(Node, metaclass=Declared):
    name: str
    pos: int = 0


# ---------------------------------------------------------------- patterns


@dataclass(frozen=True, slots=True)
class PVar(Node, metaclass=Declared):
    name: str


@dataclass(frozen=True, slots=True)
class PArray(Node, metaclass=Declared):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class PObject(Node, metaclass=Declared):
    """Entries: (key expression, pattern or None, variable bound to the whole value or None)."""

    entries: tuple[tuple[Node, Node | None, str | None], ...]
