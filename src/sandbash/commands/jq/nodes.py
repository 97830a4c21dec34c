"""The jq abstract syntax tree."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass


class Node:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Identity(Node):
    pass


@dataclass(frozen=True, slots=True)
class RecurseAll(Node):
    """`..`"""


@dataclass(frozen=True, slots=True)
class Literal(Node):
    value: Any


@dataclass(frozen=True, slots=True)
class Index(Node):
    """`T[k]`, `T.k`, `T."k"`; `opt` for the trailing `?`."""

    target: Node
    key: Node
    opt: bool = False


@dataclass(frozen=True, slots=True)
class Slice(Node):
    target: Node
    start: Node | None
    stop: Node | None
    opt: bool = False


@dataclass(frozen=True, slots=True)
class Iterate(Node):
    target: Node
    opt: bool = False


@dataclass(frozen=True, slots=True)
class StringInterp(Node):
    """A string with `\\(...)` parts; `fmt` is the `@format` applied to them."""

    parts: tuple[Any, ...]  # str or Node
    fmt: str | None


@dataclass(frozen=True, slots=True)
class Format(Node):
    """`@name` on its own: format the input."""

    name: str


@dataclass(frozen=True, slots=True)
class ArrayCons(Node):
    body: Node | None


@dataclass(frozen=True, slots=True)
class ObjectCons(Node):
    entries: tuple[tuple[Node, Node], ...]


@dataclass(frozen=True, slots=True)
class Neg(Node):
    body: Node


@dataclass(frozen=True, slots=True)
class Pipe(Node):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Comma(Node):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class BinOp(Node):
    op: str  # + - * / % == != < <= > >=
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class And(Node):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Or(Node):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Alt(Node):
    """`a // b`"""

    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Assign(Node):
    op: str  # = |= += -= *= /= %= //=
    target: Node
    value: Node


@dataclass(frozen=True, slots=True)
class If(Node):
    cond: Node
    then: Node
    orelse: Node | None  # None: `else .` (jq 1.7 optional else)


@dataclass(frozen=True, slots=True)
class Try(Node):
    body: Node
    catch: Node | None


@dataclass(frozen=True, slots=True)
class Reduce(Node):
    source: Node
    patterns: tuple[Node, ...]
    init: Node
    update: Node


@dataclass(frozen=True, slots=True)
class Foreach(Node):
    source: Node
    patterns: tuple[Node, ...]
    init: Node
    update: Node
    extract: Node | None


@dataclass(frozen=True, slots=True)
class FuncDef(Node):
    name: str
    params: tuple[str, ...]  # "$x" for value params, "f" for filter params
    body: Node
    rest: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    name: str
    args: tuple[Node, ...]
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Var(Node):
    name: str
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Bind(Node):
    """`source as $x | body`, with `?//` alternatives in patterns."""

    source: Node
    patterns: tuple[Node, ...]
    body: Node


@dataclass(frozen=True, slots=True)
class Label(Node):
    name: str
    body: Node


@dataclass(frozen=True, slots=True)
class Break(Node):
    name: str
    pos: int = 0


# ---------------------------------------------------------------- patterns


@dataclass(frozen=True, slots=True)
class PVar(Node):
    name: str


@dataclass(frozen=True, slots=True)
class PArray(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class PObject(Node):
    """Entries: (key expression, pattern or None, variable bound to the whole value or None)."""

    entries: tuple[tuple[Node, Node | None, str | None], ...]
