"""find's expression language: operators, options, tests and actions, parsed
into closures over an Entry."""

from __future__ import annotations

from collections.abc import Callable

from ..context import Ctx
from .entry import Entry, State

Pred = Callable[[Entry], bool]
# parses a test's arguments (the parser, the test's name) into its predicate
Handler = Callable[["Parser", str], Pred]


class FindError(Exception):
    """A command-line error: `find: message`, status 1."""


GLOBAL_OPTIONS = {
    "-maxdepth",
    "-mindepth",
    "-depth",
    "-d",
    "-follow",
    "-xdev",
    "-mount",
    "-noleaf",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-help",
    "--help",
    "-version",
    "--version",
}
POSITIONAL_OPTIONS = {"-daystart", "-regextype", "-warn", "-nowarn"}
# tests whose pattern argument may have been an unquoted glob
_PATTERN_TESTS = {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-lname", "-ilname"}
_BINARY = {"-a", "-and", "-o", "-or", ","}
# the actions that keep findutils from adding its -print
_ACTIONS = frozenset(
    [
        "-print",
        "-print0",
        "-fprint",
        "-fprint0",
        "-printf",
        "-fprintf",
        "-ls",
        "-fls",
        "-delete",
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
    ]
)


class Parser:
    def __init__(self, ctx: Ctx, state: State, tokens: list[str], table: dict[str, Handler]) -> None:
        self.ctx = ctx
        self.state = state
        self.tokens = tokens
        self.pos = 0
        self.artificial = -1  # where the `)` findutils adds is, when it wraps the expression (parse)
        self.wrapped = 0
        self.has_action = False
        self.uses_prune = False
        self.uses_delete = False
        self.explicit_depth = False
        self.seen_test: str | None = None
        self.warn = ctx.stdin.is_tty
        self.regextype = "findutils-default"
        self.finishers: list[Callable[[], None]] = []
        self.table = table

    # --- tokens
    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def next(self) -> str:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def arg(self, name: str) -> str:
        if self.pos >= len(self.tokens) or self.pos == self.artificial:
            raise FindError(f"missing argument to `{name}'")
        return self.next()

    # --- grammar
    def parse(self) -> Pred:
        if self.peek() is None:
            return lambda e: True
        if not _ACTIONS.intersection(self.tokens):
            # findutils wraps an expression without an action as `( EXPR ) -print`, its `(` and `)`
            # artificial, before it builds the tree: a `)` of the user's may close that `(`
            # (`find d -true \) \( -true` is true), a `(` of the user's that artificial `)`, and
            # the -print is and-ed to what ends the expression (`find d -true \) -o \( -true`
            # prints nothing)
            self.tokens = ["(", *self.tokens, ")", "-print"]
            self.artificial = len(self.tokens) - 2
            self.wrapped = 1
        expr = self.parse_comma()
        if self.peek() is not None:
            tok = self.peek()
            if tok == ")":
                raise FindError("you have too many ')'")
            raise FindError(f"unexpected extra predicate '{tok}'")
        return expr

    def operand(self, op: str) -> None:
        """The word after operator `op` must begin an expression: findutils' words when not."""
        nxt = self.peek()
        if nxt is None:  # (with an action given, no implicit -print wraps the expression)
            raise FindError(
                "invalid expression" if self.has_action else f"expected an expression after '{op}'"
            )
        if nxt == ")":
            if self.pos == self.artificial:
                raise FindError(f"expected an expression after '{op}'")
            raise FindError(f"expected an expression between '{op}' and ')'")
        if nxt in _BINARY:
            raise FindError(
                f"invalid expression; you have used a binary operator '{nxt}' with nothing before it."
            )

    def parse_comma(self) -> Pred:
        left = self.parse_or()
        while self.peek() == ",":
            self.operand(self.next())
            right = self.parse_or()
            left = _comma(left, right)
        return left

    def parse_or(self) -> Pred:
        left = self.parse_and()
        while self.peek() in ("-o", "-or"):
            self.operand(self.next())
            right = self.parse_and()
            left = _or(left, right)
        return left

    def parse_and(self) -> Pred:
        left = self.parse_not()
        while True:
            tok = self.peek()
            if tok is None or tok in (")", ",", "-o", "-or"):
                return left
            if tok in ("-a", "-and"):
                self.operand(self.next())
            right = self.parse_not()
            left = _and(left, right)

    def parse_not(self) -> Pred:
        tok = self.peek()
        if tok in ("!", "-not"):
            self.operand(self.next())
            inner = self.parse_not()
            return lambda e: not inner(e)
        return self.parse_primary()

    def parse_primary(self) -> Pred:
        tok = self.next()
        if tok == "(":
            if self.peek() is None or self.pos == self.artificial:
                raise FindError(
                    "invalid expression; expected to find a ')' but didn't see one. Perhaps you need an "
                    "extra predicate after '('"
                )
            if self.peek() == ")":
                raise FindError("invalid expression; empty parentheses are not allowed.")
            inner = self.parse_comma()
            if self.peek() != ")":
                raise FindError(
                    "invalid expression; I was expecting to find a ')' somewhere but did not see one."
                )
            self.next()
            return inner
        if tok == ")":
            raise (
                FindError("invalid expression; you have too many ')'")
                if self.pos == 1 + self.wrapped
                else FindError("you have too many ')'")
            )
        if tok in _BINARY:
            raise FindError(
                f"invalid expression; you have used a binary operator '{tok}' with nothing before it."
            )
        if tok in GLOBAL_OPTIONS and self.seen_test is not None and self.warn:
            self.ctx.error(
                f"warning: you have specified the global option {tok} after the argument "
                f"{self.seen_test}, but global options are not positional, i.e., {tok} affects tests "
                "specified before it as well as those specified after it.  Please specify global "
                "options before other arguments."
            )
        handler = self.table.get(tok)
        if handler is None:
            if tok.startswith("-") and len(tok) > 1:
                raise FindError(f"unknown predicate `{tok}'")
            message = f"paths must precede expression: `{tok}'"
            if self.seen_test in _PATTERN_TESTS:
                message += f"\nfind: possible unquoted pattern after predicate `{self.seen_test}'?"
            raise FindError(message)
        if tok not in GLOBAL_OPTIONS and tok not in POSITIONAL_OPTIONS:
            self.seen_test = tok
        return handler(self, tok)

    # --- helpers for predicates


def _and(a: Pred, b: Pred) -> Pred:
    return lambda e: a(e) and b(e)


def _or(a: Pred, b: Pred) -> Pred:
    return lambda e: a(e) or b(e)


def _comma(a: Pred, b: Pred) -> Pred:
    def both(e: Entry) -> bool:
        a(e)
        return b(e)

    return both
