"""The awk syntax tree: expressions, statements, rules and functions.

`line` fields hold a location: source index * LINE_BASE + line number.
"""

from __future__ import annotations

from ...leanclass import Declared

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

LINE_BASE = 10_000_000


class Expr:
    __slots__ = ()


@dataclass(slots=True)
class Num(Expr, metaclass=Declared):
    value: float


@dataclass(slots=True)
class Str(Expr, metaclass=Declared):
    value: str


@dataclass(slots=True)
class Regex(Expr, metaclass=Declared):
    """A regex literal; as a value it means `$0 ~ /re/`."""

    source: str
    line: int = 0


@dataclass(slots=True)
class Var(Expr, metaclass=Declared):
    name: str


@dataclass(slots=True)
class Index(Expr, metaclass=Declared):
    """name[path[0]]...[path[-1]][subs]: `path` selects a subarray (gawk's arrays of arrays)."""

    name: str
    subs: list[Expr]
    path: list[list[Expr]] = field(default_factory=list)


@dataclass(slots=True)
class Field(Expr, metaclass=Declared):
    index: Expr


@dataclass(slots=True)
class Group(Expr, metaclass=Declared):
    """A parenthesized expression (kept: `print (a)(b)` and `(x) in a` care)."""

    expr: Expr


@dataclass(slots=True)
class Assign(Expr, metaclass=Declared):
    op: str  # "=", "+=", "-=", "*=", "/=", "%=", "^="
    target: Expr  # Var, Index or Field
    value: Expr
    line: int = 0


@dataclass(slots=True)
class Cond(Expr, metaclass=Declared):
    test: Expr
    yes: Expr
    no: Expr


@dataclass(slots=True)
class Binary(Expr, metaclass=Declared):
    op: str  # + - * / % ^ concat("") < <= == != > >=
    left: Expr
    right: Expr
    line: int = 0


@dataclass(slots=True)
class Logical(Expr, metaclass=Declared):
    op: str  # && ||
    left: Expr
    right: Expr


@dataclass(slots=True)
class MatchOp(Expr, metaclass=Declared):
    negate: bool
    left: Expr
    right: Expr


@dataclass(slots=True)
class In(Expr, metaclass=Declared):
    subs: list[Expr]
    name: str
    path: list[list[Expr]] = field(default_factory=list)  # `k in a[1]`: the subarray a[1]


@dataclass(slots=True)
class Unary(Expr, metaclass=Declared):
    op: str  # - + !
    expr: Expr


@dataclass(slots=True)
class IncDec(Expr, metaclass=Declared):
    op: str  # ++ --
    prefix: bool
    target: Expr


@dataclass(slots=True)
class Call(Expr, metaclass=Declared):
    name: str
    args: list[Expr]
    line: int = 0


@dataclass(slots=True)
class IndirectCall(Expr, metaclass=Declared):
    var: str
    args: list[Expr]
    line: int = 0


@dataclass(slots=True)
class Builtin(Expr, metaclass=Declared):
    name: str
    args: list[Expr]
    line: int = 0


@dataclass(slots=True)
class Getline(Expr, metaclass=Declared):
    kind: str  # "main", "file", "cmd", "coproc"
    target: Expr | None
    source: Expr | None
    line: int = 0


class Stmt:
    __slots__ = ()


@dataclass(slots=True)
class Block(Stmt, metaclass=Declared):
    stmts: list[Stmt]


@dataclass(slots=True)
class ExprStmt(Stmt, metaclass=Declared):
    expr: Expr
    line: int = 0


@dataclass(slots=True)
class Print(Stmt, metaclass=Declared):
    printf: bool
    args: list[Expr]
    redirect: str | None  # ">", ">>", "|", "|&"
    dest: Expr | None
    line: int = 0


@dataclass(slots=True)
class If(Stmt, metaclass=Declared):
    test: Expr
    yes: Stmt
    no: Stmt | None
    line: int = 0


@dataclass(slots=True)
class While(Stmt, metaclass=Declared):
    test: Expr
    body: Stmt
    line: int = 0


@dataclass(slots=True)
class DoWhile(Stmt, metaclass=Declared):
    body: Stmt
    test: Expr
    line: int = 0


@dataclass(slots=True)
class For(Stmt, metaclass=Declared):
    init: Stmt | None
    test: Expr | None
    step: Stmt | None
    body: Stmt
    line: int = 0


@dataclass(slots=True)
class ForIn(Stmt, metaclass=Declared):
    var: Expr  # Var or Index or Field
    array: str
    body: Stmt
    line: int = 0
    path: list[list[Expr]] = field(default_factory=list)  # `for (k in a[1])`


@dataclass(slots=True)
class Switch(Stmt, metaclass=Declared):
    subject: Expr
    cases: list[tuple[Expr | None, list[Stmt]]]  # None is `default`
    line: int = 0


@dataclass(slots=True)
class Simple(Stmt, metaclass=Declared):
    """next, nextfile, break, continue."""

    kind: str
    line: int = 0


@dataclass(slots=True)
class Exit(Stmt, metaclass=Declared):
    value: Expr | None
    line: int = 0


@dataclass(slots=True)
class Return(Stmt, metaclass=Declared):
    value: Expr | None
    line: int = 0


@dataclass(slots=True)
class Delete(Stmt, metaclass=Declared):
    name: str
    subs: list[Expr] | None
    line: int = 0
    path: list[list[Expr]] = field(default_factory=list)  # `delete a[1][2]`: path [[1]], subs [2]


@dataclass(slots=True)
class Rule(metaclass=Declared):
    kind: str  # BEGIN END BEGINFILE ENDFILE main
    pattern: Expr | None = None
    pattern2: Expr | None = None  # a range pattern's end
    body: Block | None = None  # None: print $0
    line: int = 0


@dataclass(slots=True)
class Function(metaclass=Declared):
    name: str
    params: list[str]
    body: Block
    line: int = 0
    src: int = 0


@dataclass(slots=True)
class Program(metaclass=Declared):
    rules: list[Rule] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)
