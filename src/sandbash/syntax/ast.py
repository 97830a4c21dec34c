"""The typed syntax tree of a bash script.

Every node is a frozen dataclass with slots (built by nodeclass.py: `metaclass=Declared` has the
class statement make a declaration, of which the decorator makes the class, once; type checkers see
a plain class under `@dataclass`). Every command node, word and
redirection carries where it starts: `line` (what bash reports in errors and `LINENO`) and `col`,
the 1-based column in characters (0: not known, e.g. a node made when the script runs; inside
backquotes and $((...)), whose text is read on its own, the column counts from that text).
Word parts are located by their word.
Word parts keep their quoting so expansion can decide splitting and globbing
per piece.
"""

from __future__ import annotations

from ..leanclass import Declared, str_enum

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from enum import StrEnum
else:  # the same classes, built faster at import (nodeclass.py)
    from .nodeclass import dataclass, field

    StrEnum = object  # (str_enum makes the class a StrEnum)

# ---------------------------------------------------------------- word parts


@dataclass(frozen=True, slots=True)
class Lit(metaclass=Declared):
    """Unquoted literal text (glob characters stay active)."""

    text: str


@dataclass(frozen=True, slots=True)
class Esc(metaclass=Declared):
    """A backslash-escaped character outside quotes (quoted, no globbing)."""

    text: str


@dataclass(frozen=True, slots=True)
class SQ(metaclass=Declared):
    """Single-quoted text, or the decoded text of $'...'."""

    text: str
    dollar: bool = False


@dataclass(frozen=True, slots=True)
class DQ(metaclass=Declared):
    """A double-quoted string ("..." or $"...")."""

    parts: tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class Tilde(metaclass=Declared):
    """A tilde prefix: `~`, `~user`, `~+`, `~-`. `in_argument`: after the `=` or a `:` of a
    command's argument shaped like an assignment, where posix mode leaves it as it is."""

    user: str
    in_argument: bool = False


@str_enum
class OpKind(StrEnum):
    """The family of a ${name OP ...} operator: it decides how the operator is evaluated."""

    TEST = "test"  # default, assign, error, alternate: arg is the word
    TRIM = "trim"  # arg is the pattern
    REPL = "repl"  # arg is the pattern, arg2 the replacement (None: delete)
    SLICE = "slice"  # arg is the offset, arg2 the length (None: to the end), both arithmetic
    CASE = "case"  # arg is the pattern (None: every character)
    XFORM = "xform"  # ${name@X}: no argument
    BAD = "bad"  # a bad substitution, reported when it is expanded; ParamOp.text is its source


@str_enum
class Op(StrEnum):
    """A ${name OP ...} operator, spelled as in the source."""

    DEFAULT = ":-"
    DEFAULT_UNSET = "-"
    ASSIGN = ":="
    ASSIGN_UNSET = "="
    ERROR = ":?"
    ERROR_UNSET = "?"
    ALTERNATE = ":+"
    ALTERNATE_SET = "+"
    SHORT_PREFIX = "#"
    LONG_PREFIX = "##"
    SHORT_SUFFIX = "%"
    LONG_SUFFIX = "%%"
    REPLACE = "/"
    REPLACE_ALL = "//"
    REPLACE_PREFIX = "/#"
    REPLACE_SUFFIX = "/%"
    SLICE = ":"
    UPPER_FIRST = "^"
    UPPER_ALL = "^^"
    LOWER_FIRST = ","
    LOWER_ALL = ",,"
    TOGGLE_FIRST = "~"
    TOGGLE_ALL = "~~"
    AT_QUOTE = "Q"
    AT_ESCAPES = "E"
    AT_PROMPT = "P"
    AT_ASSIGNMENT = "A"
    AT_ATTRIBUTES = "a"
    AT_KEYS_QUOTED = "K"
    AT_KEYS = "k"
    AT_UPPER = "U"
    AT_UPPER_FIRST = "u"
    AT_LOWER = "L"
    BAD = ""


# the family of each operator (the parser reads the spelling, then looks the family up here)
OP_KIND: dict[Op, OpKind] = {
    **dict.fromkeys(
        (
            Op.DEFAULT,
            Op.DEFAULT_UNSET,
            Op.ASSIGN,
            Op.ASSIGN_UNSET,
            Op.ERROR,
            Op.ERROR_UNSET,
            Op.ALTERNATE,
            Op.ALTERNATE_SET,
        ),
        OpKind.TEST,
    ),
    **dict.fromkeys((Op.SHORT_PREFIX, Op.LONG_PREFIX, Op.SHORT_SUFFIX, Op.LONG_SUFFIX), OpKind.TRIM),
    **dict.fromkeys((Op.REPLACE, Op.REPLACE_ALL, Op.REPLACE_PREFIX, Op.REPLACE_SUFFIX), OpKind.REPL),
    Op.SLICE: OpKind.SLICE,
    **dict.fromkeys(
        (Op.UPPER_FIRST, Op.UPPER_ALL, Op.LOWER_FIRST, Op.LOWER_ALL, Op.TOGGLE_FIRST, Op.TOGGLE_ALL),
        OpKind.CASE,
    ),
    **dict.fromkeys(
        (
            Op.AT_QUOTE,
            Op.AT_ESCAPES,
            Op.AT_PROMPT,
            Op.AT_ASSIGNMENT,
            Op.AT_ATTRIBUTES,
            Op.AT_KEYS_QUOTED,
            Op.AT_KEYS,
            Op.AT_UPPER,
            Op.AT_UPPER_FIRST,
            Op.AT_LOWER,
        ),
        OpKind.XFORM,
    ),
    Op.BAD: OpKind.BAD,
}


@dataclass(frozen=True, slots=True)
class ParamOp(metaclass=Declared):
    """The operator part of ${...}: `op` is the operator, `kind` its family (OP_KIND[op]);
    see OpKind for what `arg` and `arg2` hold. `text`: the source of a bad substitution."""

    kind: OpKind
    op: Op
    arg: Word | None = None
    arg2: Word | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Param(metaclass=Declared):
    """$name, ${name}, ${name[sub]}, ${#...}, ${!...} and ${name OP ...}.

    prefix: '' , '#' (length) or '!' (indirection / keys / names).
    sub: the raw subscript text inside [...] (None when absent); '@'/'*' mean all.
    names_suffix: for ${!prefix*} / ${!prefix@}, the '*' or '@'; for a bad substitution
    (prefix 'bad'), '@' when it is a bad `@` transformation (${x@Z}), '!@' of an indirection (${!x@Z}),
    an unclosed subscript's marks (syntax/lexer.py: `${a[}`, `${u:-${a[}}`).
    subscript: `sub` parsed with the script (None: parse it when it runs).
    """

    name: str
    sub: str | None = None
    prefix: str = ""
    op: ParamOp | None = None
    braced: bool = False
    names_suffix: str = ""
    subscript: Subscript | None = None


@dataclass(frozen=True, slots=True)
class Subscript(metaclass=Declared):
    """An array subscript's text, parsed once with the script.

    Whether the array is associative is known only when it runs, so both readings are kept:
    `arith` (an indexed array: the text expanded, then evaluated as arithmetic) and `key` (an
    associative array: expanded as one word without splitting, quotes removed). A reading that
    is None has nothing to expand: the raw text is used as it is.
    """

    arith: Word | None = None
    key: Word | None = None


@dataclass(frozen=True, slots=True)
class CmdSub(metaclass=Declared):
    body: CommandList
    backtick: bool = False
    text: str = ""
    # the text the substitution's child reads again when it runs with aliases on, and its first
    # line (None: `text` from body.line; see interp/aliasrun.py)
    run: tuple[str, int] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ArithSub(metaclass=Declared):
    """$(( expr )) or $[ expr ]; `word` is the expression text to expand."""

    word: Word
    text: str


@dataclass(frozen=True, slots=True)
class ProcSub(metaclass=Declared):
    body: CommandList
    direction: str  # '<' or '>'
    text: str = ""
    run: tuple[str, int] | None = field(default=None, compare=False, repr=False)  # (as CmdSub's)


@dataclass(frozen=True, slots=True)
class Brace(metaclass=Declared):
    """Brace expansion alternatives {a,b,c}; each alternative is a part list."""

    alts: tuple[tuple[Part, ...], ...]


@dataclass(frozen=True, slots=True)
class BraceSeq(metaclass=Declared):
    """Sequence brace expansion {a..b[..step]}."""

    start: str
    end: str
    step: str | None


@dataclass(frozen=True, slots=True)
class ExtGlob(metaclass=Declared):
    """An extended glob group: op is one of ?*+@! ; alts are part lists."""

    op: str
    alts: tuple[tuple[Part, ...], ...]


@dataclass(frozen=True, slots=True)
class AssignWord(metaclass=Declared):
    """An argument of a declaration builtin (declare, local, ...) written as an
    assignment: expanded with assignment rules (no splitting, arrays allowed)."""

    assign: Assign


Part = (
    Lit
    | Esc
    | SQ
    | DQ
    | Tilde
    | Param
    | CmdSub
    | ArithSub
    | ProcSub
    | Brace
    | BraceSeq
    | ExtGlob
    | AssignWord
)


@dataclass(frozen=True, slots=True)
class Word(metaclass=Declared):
    parts: tuple[Part, ...]
    line: int = 0
    # the source text of the word, for messages, `set -x` of assignments, etc.
    text: str = ""
    col: int = 0


# ---------------------------------------------------------------- arithmetic


@dataclass(frozen=True, slots=True)
class ANum(metaclass=Declared):
    value: int


@dataclass(frozen=True, slots=True)
class AVar(metaclass=Declared):
    """A variable reference; `sub` is the raw subscript text (None: scalar)."""

    name: str
    sub: str | None = None


@dataclass(frozen=True, slots=True)
class AUnary(metaclass=Declared):
    op: str
    operand: Arith


@dataclass(frozen=True, slots=True)
class ABinary(metaclass=Declared):
    op: str
    left: Arith
    right: Arith
    # offset of the right operand in the text (for "error token is" messages)
    pos: int = -1


@dataclass(frozen=True, slots=True)
class ATernary(metaclass=Declared):
    cond: Arith
    then: Arith
    other: Arith


@dataclass(frozen=True, slots=True)
class AAssign(metaclass=Declared):
    op: str  # '=', '+=', ...
    target: AVar
    value: Arith
    pos: int = -1  # the token after the value (a compound assignment's error names it)


@dataclass(frozen=True, slots=True)
class AIncDec(metaclass=Declared):
    op: str  # '++' or '--'
    prefix: bool
    target: AVar


@dataclass(frozen=True, slots=True)
class AComma(metaclass=Declared):
    items: tuple[Arith, ...]


Arith = ANum | AVar | AUnary | ABinary | ATernary | AAssign | AIncDec | AComma


# ---------------------------------------------------------------- conditionals


@dataclass(frozen=True, slots=True)
class CondWord(metaclass=Declared):
    word: Word


@dataclass(frozen=True, slots=True)
class CondUnary(metaclass=Declared):
    op: str
    operand: Word


@dataclass(frozen=True, slots=True)
class CondBinary(metaclass=Declared):
    op: str
    left: Word
    right: Word


@dataclass(frozen=True, slots=True)
class CondNot(metaclass=Declared):
    operand: Cond


@dataclass(frozen=True, slots=True)
class CondAnd(metaclass=Declared):
    left: Cond
    right: Cond


@dataclass(frozen=True, slots=True)
class CondOr(metaclass=Declared):
    left: Cond
    right: Cond


Cond = CondWord | CondUnary | CondBinary | CondNot | CondAnd | CondOr


# ---------------------------------------------------------------- commands


@dataclass(slots=True)
class HereDoc(metaclass=Declared):
    """A here-document body; filled in when the parser reaches the body."""

    delim: str
    quoted: bool
    strip_tabs: bool
    body: Word | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Redir(metaclass=Declared):
    """A redirection. op is one of
    < > >> >| <> <& >& &> &>> <<< << <<-
    fd is the explicit fd number (None: the operator's default);
    fd_var is the {name} form; target is a Word or a HereDoc."""

    op: str
    target: Word | HereDoc
    fd: int | None = None
    fd_var: str | None = None
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class ArrayItem(metaclass=Declared):
    value: Word
    key: Word | None = None  # [key]=value
    append: bool = False  # [key]+=value
    # `[key]=value` read as one word when that word has a brace expansion: bash brace-expands it
    # in an indexed array's list, and its words are then values (`a=([1]=x{a,b})`: "[1]=xa" "[1]=xb")
    whole: Word | None = None


@dataclass(frozen=True, slots=True)
class Assign(metaclass=Declared):
    name: str
    value: Word | None  # None with `array` set
    sub: str | None = None  # a[sub]=...
    append: bool = False
    array: tuple[ArrayItem, ...] | None = None
    text: str = ""
    subscript: Subscript | None = None  # `sub` parsed with the script (None: when it runs)


@dataclass(frozen=True, slots=True)
class SimpleCommand(metaclass=Declared):
    assigns: tuple[Assign, ...]
    words: tuple[Word, ...]
    redirs: tuple[Redir, ...]
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class Pipeline(metaclass=Declared):
    cmds: tuple[Command, ...]
    negate: bool = False
    timed: bool = False
    time_posix: bool = False
    # per link: True when it was `|&`
    stderr_links: tuple[bool, ...] = ()
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class AndOr(metaclass=Declared):
    first: Command
    rest: tuple[tuple[str, Command], ...]  # ('&&'|'||', cmd)
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class ListItem(metaclass=Declared):
    cmd: Command
    background: bool = False
    newline: bool = False  # ended by a newline, not `;` (bash keeps it when it prints a `$(...)`)


@dataclass(frozen=True, slots=True)
class CommandList(metaclass=Declared):
    items: tuple[ListItem, ...]
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class Subshell(metaclass=Declared):
    body: CommandList
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class Group(metaclass=Declared):
    body: CommandList
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class IfClause(metaclass=Declared):
    cond: CommandList
    body: CommandList


@dataclass(frozen=True, slots=True)
class If(metaclass=Declared):
    clauses: tuple[IfClause, ...]
    else_body: CommandList | None
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class While(metaclass=Declared):
    cond: CommandList
    body: CommandList
    until: bool = False
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class For(metaclass=Declared):
    var: str
    words: tuple[Word, ...] | None  # None: "$@"
    body: CommandList
    line: int = 0
    end_line: int = 0  # where `done` is: bash reports a bad name there
    col: int = 0


@dataclass(frozen=True, slots=True)
class ArithFor(metaclass=Declared):
    init: Word | None
    cond: Word | None
    step: Word | None
    body: CommandList
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class Select(metaclass=Declared):
    var: str
    words: tuple[Word, ...] | None
    body: CommandList
    line: int = 0
    end_line: int = 0  # where `done` is: bash reports a bad name there
    col: int = 0


@dataclass(frozen=True, slots=True)
class CaseItem(metaclass=Declared):
    patterns: tuple[Word, ...]
    body: CommandList | None
    term: str  # ';;', ';&', ';;&'


@dataclass(frozen=True, slots=True)
class Case(metaclass=Declared):
    word: Word
    items: tuple[CaseItem, ...]
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class ArithCmd(metaclass=Declared):
    word: Word
    text: str = ""
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class CondCmd(metaclass=Declared):
    expr: Cond
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class FuncDef(metaclass=Declared):
    name: str
    body: Command
    line: int = 0
    text: str = ""
    keyword: bool = False
    col: int = 0


@dataclass(frozen=True, slots=True)
class Coproc(metaclass=Declared):
    name: str
    body: Command
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class Redirected(metaclass=Declared):
    """A compound command with redirections attached."""

    body: Command
    redirs: tuple[Redir, ...]
    line: int = 0
    col: int = 0


Command = (
    SimpleCommand
    | Pipeline
    | AndOr
    | CommandList
    | Subshell
    | Group
    | If
    | While
    | For
    | ArithFor
    | Select
    | Case
    | ArithCmd
    | CondCmd
    | FuncDef
    | Coproc
    | Redirected
)

EMPTY_LIST = CommandList(items=())


@dataclass(slots=True)
class ParseCache(metaclass=Declared):
    """Per-node caches filled at run time (parsed arithmetic by text, etc.)."""

    arith: dict[str, object] = field(default_factory=dict)
