"""A precedence-climbing parser for jq programs (jq 1.7/1.8 grammar)."""

from __future__ import annotations

from . import nodes as n
from .errors import CompileError
from .lexer import Lexer, Token, _location

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# binding powers, lowest first; `|` is right-associative, `//` too
_BINARY: dict[str, tuple[int, str]] = {
    "|": (1, "right"),
    ",": (2, "left"),
    "//": (3, "right"),
    "=": (4, "none"),
    "|=": (4, "none"),
    "+=": (4, "none"),
    "-=": (4, "none"),
    "*=": (4, "none"),
    "/=": (4, "none"),
    "%=": (4, "none"),
    "//=": (4, "none"),
    "or": (5, "left"),
    "and": (6, "left"),
    "==": (7, "none"),
    "!=": (7, "none"),
    "<": (7, "none"),
    "<=": (7, "none"),
    ">": (7, "none"),
    ">=": (7, "none"),
    "+": (8, "left"),
    "-": (8, "left"),
    "*": (9, "left"),
    "/": (9, "left"),
    "%": (9, "left"),
}
_ASSIGN = frozenset({"=", "|=", "+=", "-=", "*=", "/=", "%=", "//="})
_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})


class Parser:
    def __init__(self, tokens: list[Token], src: str) -> None:
        self.toks = tokens
        self.i = 0
        self.src = src

    # ------------------------------------------------------------ helpers

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = min(self.i + k, len(self.toks) - 1)
        return self.toks[j]

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "EOF":
            self.i += 1
        return t

    def is_op(self, text: str) -> bool:
        t = self.tok
        return t.kind == "OP" and t.text == text

    def is_kw(self, text: str) -> bool:
        t = self.tok
        return t.kind == "KEYWORD" and t.text == text

    def error(self, tok: Token | None = None) -> CompileError:
        t = tok or self.tok
        return CompileError(
            f"syntax error, unexpected {t.describe()} (Unix shell quoting issues?)",
            _location(self.src, t.pos),
            t.pos,
        )

    def expect_op(self, text: str) -> Token:
        if not self.is_op(text):
            raise self.error()
        return self.advance()

    def expect_kw(self, text: str) -> Token:
        if not self.is_kw(text):
            raise self.error()
        return self.advance()

    # ------------------------------------------------------------ grammar

    def parse_program(self) -> n.Node:
        if self.is_kw("module") or self.is_kw("import") or self.is_kw("include"):
            raise CompileError(
                "modules are not supported (import/include)", _location(self.src, self.tok.pos)
            )
        if self.tok.kind == "EOF":
            return n.Identity()
        # a program of only definitions is the identity
        node = self.parse_query(allow_empty_after_defs=True)
        if self.tok.kind != "EOF":
            raise self.error()
        return node

    def parse_query(
        self, min_bp: int = 0, allow_empty_after_defs: bool = False, allow_as: bool = True
    ) -> n.Node:
        """A query; `allow_as` where jq's grammar has a Query (after `|`, `,`,
        or at the start), which is where `Expr as $x | Query` may appear."""
        if self.is_kw("def"):
            name, params, body = self.parse_def()
            if allow_empty_after_defs and self.tok.kind == "EOF":
                rest: n.Node = n.Identity()
            else:
                rest = self.parse_query(0, allow_empty_after_defs)
            return n.FuncDef(name, params, body, rest)
        left = self.parse_prefix()
        if allow_as:
            left = self.parse_infix(left, max(min_bp, 3))
            if self.is_kw("as"):
                self.advance()
                patterns = self.parse_patterns()
                self.expect_op("|")
                return n.Bind(left, patterns, self.parse_query(0))
        return self.parse_infix(left, min_bp)

    def parse_expr(self) -> n.Node:
        """jq's Expr: binary operators above `,` (no `as`)."""
        return self.parse_query(3, allow_as=False)

    def parse_infix(self, left: n.Node, min_bp: int) -> n.Node:
        while True:
            t = self.tok
            if t.kind == "OP" or (t.kind == "KEYWORD" and t.text in ("and", "or")):
                op = t.text
            else:
                return left
            info = _BINARY.get(op)
            if info is None:
                return left
            bp, assoc = info
            if bp < min_bp:
                return left
            self.advance()
            next_bp = bp if assoc == "right" else bp + 1
            right = self.parse_query(next_bp, allow_as=op in ("|", ","))
            left = self._combine(op, left, right)
            if assoc == "none":
                nt = self.tok
                if nt.kind == "OP" and nt.text in _BINARY and _BINARY[nt.text][0] == bp:
                    raise self.error()

    def _combine(self, op: str, left: n.Node, right: n.Node) -> n.Node:
        if op == "|":
            return n.Pipe(left, right)
        if op == ",":
            return n.Comma(left, right)
        if op == "//":
            return n.Alt(left, right)
        if op == "and":
            return n.And(left, right)
        if op == "or":
            return n.Or(left, right)
        if op in _ASSIGN:
            return n.Assign(op, left, right)
        return n.BinOp(op, left, right)

    def parse_def(self) -> tuple[str, tuple[str, ...], n.Node]:
        self.expect_kw("def")
        t = self.advance()
        if t.kind not in ("IDENT", "KEYWORD"):
            raise self.error(t)
        if t.kind == "KEYWORD":
            raise self.error(t)
        params: list[str] = []
        if self.is_op("("):
            self.advance()
            while True:
                p = self.advance()
                if p.kind == "BINDING":
                    params.append("$" + p.text)
                elif p.kind == "IDENT":
                    params.append(p.text)
                else:
                    raise self.error(p)
                if self.is_op(";"):
                    self.advance()
                    continue
                self.expect_op(")")
                break
        self.expect_op(":")
        body = self.parse_query()
        self.expect_op(";")
        return t.text, tuple(params), body

    def parse_prefix(self) -> n.Node:
        """A term with its postfixes, or a construct that extends to the right."""
        t = self.tok
        if t.kind == "KEYWORD":
            if t.text == "def":
                return self.parse_query()
            if t.text == "label":
                self.advance()
                b = self.advance()
                if b.kind != "BINDING":
                    raise self.error(b)
                self.expect_op("|")
                return n.Label(b.text, self.parse_query(1))
        if t.kind == "OP" and t.text == "-":
            self.advance()
            return n.Neg(self.parse_postfix_term())
        return self.parse_postfix_term()

    def parse_postfix_term(self) -> n.Node:
        if self.is_op("-"):
            self.advance()
            return n.Neg(self.parse_postfix_term())
        term = self.parse_primary()
        return self.parse_postfix(term)

    def parse_postfix(self, term: n.Node) -> n.Node:
        while True:
            t = self.tok
            if t.kind == "FIELD":
                self.advance()
                term = n.Index(term, n.Literal(t.text), self._opt())
            elif t.kind == "OP" and t.text == "." and self.peek().kind == "STRING":
                self.advance()
                key = self.parse_string()
                term = n.Index(term, key, self._opt())
            elif t.kind == "OP" and t.text == "." and self.peek().kind == "OP" and self.peek().text == "[":
                self.advance()
                term = self._bracket(term)
            elif t.kind == "OP" and t.text == "[":
                term = self._bracket(term)
            elif t.kind == "OP" and t.text == "?":
                self.advance()
                term = n.Try(term, None)
            else:
                return term

    def _opt(self) -> bool:
        if self.is_op("?"):
            self.advance()
            return True
        return False

    def _bracket(self, term: n.Node) -> n.Node:
        self.expect_op("[")
        if self.is_op("]"):
            self.advance()
            return n.Iterate(term, self._opt())
        if self.is_op(":"):
            self.advance()
            stop = self.parse_query()
            self.expect_op("]")
            return n.Slice(term, None, stop, self._opt())
        first = self.parse_query()
        if self.is_op(":"):
            self.advance()
            if self.is_op("]"):
                self.advance()
                return n.Slice(term, first, None, self._opt())
            stop = self.parse_query()
            self.expect_op("]")
            return n.Slice(term, first, stop, self._opt())
        self.expect_op("]")
        return n.Index(term, first, self._opt())

    def parse_primary(self) -> n.Node:
        t = self.tok
        k = t.kind
        if k == "OP":
            return self._primary_op(t)
        if k == "NUMBER":
            self.advance()
            return n.Literal(t.value)
        if k == "STRING":
            return self.parse_string()
        if k == "FORMAT":
            self.advance()
            if self.tok.kind == "STRING":
                return self.parse_string(fmt=t.text)
            return n.Format(t.text)
        if k == "FIELD":
            self.advance()
            return n.Index(n.Identity(), n.Literal(t.text), self._opt())
        if k == "BINDING":
            self.advance()
            return n.Var(t.text, t.pos)
        if k == "LOC":
            self.advance()
            line = self.src.count("\n", 0, t.pos) + 1
            return n.Literal({"file": "<top-level>", "line": line})
        if k == "IDENT":
            return self._call_or_const(t)
        if k == "KEYWORD":
            return self._keyword_term(t)
        raise self.error()

    def _primary_op(self, t: Token) -> n.Node:
        text = t.text
        if text == ".":
            self.advance()
            if self.tok.kind == "STRING":
                key = self.parse_string()
                return n.Index(n.Identity(), key, self._opt())
            return n.Identity()
        if text == "..":
            self.advance()
            return n.RecurseAll()
        if text == "(":
            self.advance()
            body = self.parse_query()
            self.expect_op(")")
            return body
        if text == "[":
            self.advance()
            if self.is_op("]"):
                self.advance()
                return n.ArrayCons(None)
            body = self.parse_query()
            self.expect_op("]")
            return n.ArrayCons(body)
        if text == "{":
            return self.parse_object()
        raise self.error()

    def _call_or_const(self, t: Token) -> n.Node:
        self.advance()
        name = t.text
        if self.is_op("("):
            self.advance()
            args: list[n.Node] = []
            while True:
                args.append(self.parse_query())
                if self.is_op(";"):
                    self.advance()
                    continue
                self.expect_op(")")
                break
            return n.Call(name, tuple(args), t.pos)
        if name == "true":
            return n.Literal(True)
        if name == "false":
            return n.Literal(False)
        if name == "null":
            return n.Literal(None)
        return n.Call(name, (), t.pos)

    def _keyword_term(self, t: Token) -> n.Node:
        w = t.text
        if w == "if":
            return self.parse_if()
        if w == "try":
            self.advance()
            body = self.parse_postfix_term()
            handler = None
            if self.is_kw("catch"):
                self.advance()
                handler = self.parse_postfix_term()
            return n.Try(body, handler)
        if w == "reduce":
            self.advance()
            source = self.parse_expr()
            self.expect_kw("as")
            patterns = self.parse_patterns()
            self.expect_op("(")
            init = self.parse_query()
            self.expect_op(";")
            update = self.parse_query()
            self.expect_op(")")
            return n.Reduce(source, patterns, init, update)
        if w == "foreach":
            self.advance()
            source = self.parse_expr()
            self.expect_kw("as")
            patterns = self.parse_patterns()
            self.expect_op("(")
            init = self.parse_query()
            self.expect_op(";")
            update = self.parse_query()
            extract = None
            if self.is_op(";"):
                self.advance()
                extract = self.parse_query()
            self.expect_op(")")
            return n.Foreach(source, patterns, init, update, extract)
        if w == "break":
            self.advance()
            b = self.advance()
            if b.kind != "BINDING":
                raise CompileError("break requires a label to break to", _location(self.src, b.pos))
            return n.Break(b.text, b.pos)
        if w in ("def", "label"):
            return self.parse_prefix()
        raise self.error()

    def parse_if(self) -> n.Node:
        self.expect_kw("if")
        cond = self.parse_query()
        self.expect_kw("then")
        then = self.parse_query()
        if self.is_kw("elif"):
            self.toks[self.i] = Token("KEYWORD", "if", self.tok.pos)
            return n.If(cond, then, self.parse_if())
        if self.is_kw("else"):
            self.advance()
            orelse = self.parse_query()
            self.expect_kw("end")
            return n.If(cond, then, orelse)
        self.expect_kw("end")
        return n.If(cond, then, None)

    def parse_string(self, fmt: str | None = None) -> n.Node:
        t = self.advance()
        if t.kind != "STRING":
            raise self.error(t)
        parts: list[Any] = []
        for p in t.parts:
            if isinstance(p, str):
                parts.append(p)
            else:
                sub = Parser(p, self.src)
                node = sub.parse_query()
                if sub.tok.kind != "EOF":
                    raise sub.error()
                parts.append(node)
        if all(isinstance(p, str) for p in parts):
            return n.Literal("".join(parts))
        return n.StringInterp(tuple(parts), fmt)

    # ------------------------------------------------------------ objects

    def parse_object(self) -> n.Node:
        self.expect_op("{")
        entries: list[tuple[n.Node, n.Node]] = []
        if self.is_op("}"):
            self.advance()
            return n.ObjectCons(())
        while True:
            entries.append(self._object_entry())
            if self.is_op(","):
                self.advance()
                if self.is_op("}"):
                    # a trailing comma is allowed: {a:1,}
                    self.advance()
                    return n.ObjectCons(tuple(entries))
                continue
            self.expect_op("}")
            return n.ObjectCons(tuple(entries))

    def _object_entry(self) -> tuple[n.Node, n.Node]:
        t = self.tok
        if t.kind in ("IDENT", "KEYWORD"):
            self.advance()
            key: n.Node = n.Literal(t.text)
            if not self.is_op(":"):
                return key, n.Index(n.Identity(), key)
        elif t.kind == "BINDING":
            self.advance()
            if not self.is_op(":"):
                return n.Literal(t.text), n.Var(t.text, t.pos)
            key = n.Var(t.text, t.pos)
        elif t.kind == "LOC":
            self.advance()
            line = self.src.count("\n", 0, t.pos) + 1
            return n.Literal("__loc__"), n.Literal({"file": "<top-level>", "line": line})
        elif t.kind == "STRING" or t.kind == "FORMAT":
            if t.kind == "FORMAT":
                self.advance()
                if self.tok.kind != "STRING":
                    raise self.error()
                key = self.parse_string(fmt=t.text)
            else:
                key = self.parse_string()
            if not self.is_op(":"):
                return key, n.Index(n.Identity(), key)
        elif t.kind == "NUMBER":
            raise self.error()
        elif t.kind == "OP" and t.text == "(":
            self.advance()
            key = self.parse_query()
            self.expect_op(")")
        else:
            raise self.error()
        self.expect_op(":")
        return key, self._object_value()

    def _object_value(self) -> n.Node:
        node = self._object_value_term()
        while self.is_op("|"):
            self.advance()
            node = n.Pipe(node, self._object_value_term())
        return node

    def _object_value_term(self) -> n.Node:
        # jq 1.8: DictExpr is an Expr (binary operators, no comma)
        return self.parse_expr()

    # ------------------------------------------------------------ patterns

    def parse_patterns(self) -> tuple[n.Node, ...]:
        pats = [self.parse_pattern()]
        while self.is_op("?//"):
            self.advance()
            pats.append(self.parse_pattern())
        return tuple(pats)

    def parse_pattern(self) -> n.Node:
        t = self.tok
        if t.kind == "BINDING":
            self.advance()
            return n.PVar(t.text)
        if t.kind == "OP" and t.text == "[":
            self.advance()
            items = [self.parse_pattern()]
            while self.is_op(","):
                self.advance()
                items.append(self.parse_pattern())
            self.expect_op("]")
            return n.PArray(tuple(items))
        if t.kind == "OP" and t.text == "{":
            self.advance()
            entries = [self._object_pattern_entry()]
            while self.is_op(","):
                self.advance()
                entries.append(self._object_pattern_entry())
            self.expect_op("}")
            return n.PObject(tuple(entries))
        raise self.error()

    def _object_pattern_entry(self) -> tuple[n.Node, n.Node | None, str | None]:
        t = self.tok
        if t.kind == "BINDING":
            self.advance()
            if self.is_op(":"):
                self.advance()
                return n.Literal(t.text), self.parse_pattern(), t.text
            return n.Literal(t.text), None, t.text
        if t.kind in ("IDENT", "KEYWORD"):
            self.advance()
            key: n.Node = n.Literal(t.text)
        elif t.kind == "STRING":
            key = self.parse_string()
        elif t.kind == "OP" and t.text == "(":
            self.advance()
            key = self.parse_query()
            self.expect_op(")")
        else:
            raise self.error()
        self.expect_op(":")
        return key, self.parse_pattern(), None


def parse(src: str) -> n.Node:
    tokens = Lexer(src).tokens()
    return Parser(tokens, src).parse_program()
