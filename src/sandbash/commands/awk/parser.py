"""Recursive-descent parser: tokens -> ast.Program.

Precedence, lowest first: ?: (right), ||, &&, in, ~ !~, comparisons
(non-associative; `>` is a redirection at the top of a print statement),
concatenation, + -, * / %, unary ! - +, ^ ** (right), ++ --, $, grouping.
`cmd | getline` binds tighter than comparisons and looser than
concatenation, as in gawk.
"""

from __future__ import annotations

from . import ast as A
from .analyze import SPECIAL_ARRAYS, SPECIAL_SCALARS
from .lexer import AwkSyntaxError, Tok

LINE_BASE = A.LINE_BASE
_ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**="})
_REL_OPS = frozenset({"<", "<=", "==", "!=", ">", ">="})
# tokens that may start an operand of a concatenation
_CONCAT_START = frozenset(
    {"NUMBER", "STRING", "ERE", "NAME", "FUNC_NAME", "BUILTIN", "$", "!", "(", "++", "--", "@"}
)
_TERMINATORS = frozenset({";", "NEWLINE", "}", "EOF"})
# (min, max) argument counts; max None = any
_BUILTIN_ARITY: dict[str, tuple[int, int | None]] = {
    "length": (0, 1),
    "substr": (2, 3),
    "index": (2, 2),
    "split": (2, 4),
    "sub": (2, 3),
    "gsub": (2, 3),
    "match": (2, 3),
    "sprintf": (1, None),
    "sin": (1, 1),
    "cos": (1, 1),
    "atan2": (2, 2),
    "exp": (1, 1),
    "log": (1, 1),
    "sqrt": (1, 1),
    "int": (1, 1),
    "rand": (0, 0),
    "srand": (0, 1),
    "tolower": (1, 1),
    "toupper": (1, 1),
    "system": (1, 1),
    "close": (1, 2),
    "fflush": (0, 1),
    "gensub": (3, 4),
    "asort": (1, 3),
    "asorti": (1, 3),
    "strftime": (0, 3),
    "systime": (0, 0),
    "mktime": (1, 2),
    "and": (2, None),
    "or": (2, None),
    "xor": (2, None),
    "lshift": (2, 2),
    "rshift": (2, 2),
    "compl": (1, 1),
    "patsplit": (2, 4),
    "isarray": (1, 1),
    "typeof": (1, 2),
    "strtonum": (1, 1),
}
# names a function may not take for a parameter or a name (the special variables)
SPECIAL_VARS = SPECIAL_SCALARS | SPECIAL_ARRAYS


class Parser:
    def __init__(self, toks: list[Tok]) -> None:
        self.toks = toks
        self.i = 0
        self.program = A.Program()
        self.in_print = False  # at the top level of a print statement's arguments
        self.in_function: A.Function | None = None
        self.rule_kind = ""
        self.loop_depth = 0
        self.calls: list[tuple[str, int, int]] = []  # (name, nargs, location) of user calls
        self.warnings: list[tuple[int, str]] = []
        self.includes: list[tuple[str, int]] = []  # (file, location) of @include "file"

    # ------------------------------------------------------------ helpers

    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def advance(self) -> Tok:
        t = self.toks[self.i]
        if self.i < len(self.toks) - 1:
            self.i += 1
        return t

    def loc(self, t: Tok | None = None) -> int:
        t = t or self.tok
        return t.src * LINE_BASE + t.line

    def error(self, t: Tok | None = None, message: str | None = None) -> AwkSyntaxError:
        t = t or self.tok
        if message is None:
            message = (
                "unexpected newline or end of string" if t.kind in ("NEWLINE", "EOF") else "syntax error"
            )
        err = AwkSyntaxError(message, t.src, t.line, t.col)
        if t.kind == "NEWLINE" and t.col >= 0:
            err.shown_line = t.line + 1  # gawk has read past the newline by then
        return err

    def expect(self, kind: str) -> Tok:
        if self.tok.kind != kind:
            raise self.error()
        return self.advance()

    def opt_nl(self) -> None:
        while self.tok.kind == "NEWLINE":
            self.advance()

    def skip_terms(self) -> None:
        while self.tok.kind in ("NEWLINE", ";"):
            self.advance()

    # ------------------------------------------------------------ program

    def parse(self) -> A.Program:
        self.skip_rule_separators()
        while self.tok.kind != "EOF":
            self.item()
            if self.tok.kind == ";":
                self.advance()
            self.skip_rule_separators()
        return self.program

    def skip_rule_separators(self) -> None:
        """Newlines between rules; a `;` that does not end a rule must end its line."""
        while self.tok.kind in ("NEWLINE", ";"):
            t = self.advance()
            if t.kind == ";" and self.tok.kind not in ("NEWLINE", "EOF"):
                err = AwkSyntaxError(
                    "each rule must have a pattern or an action part", t.src, t.line, -1, show=False
                )
                err.bare = True
                raise err

    def item(self) -> None:
        t = self.tok
        if t.kind == "func":
            self.function()
            return
        if t.kind == "@include" and self.peek().kind == "STRING":
            # the cli loads included files as sources of their own
            self.advance()
            self.includes.append((str(self.advance().val), self.loc(t)))
            return
        if t.kind in ("@include", "@load", "@namespace"):
            raise self.error(t, f"{t.kind} is not supported here")
        if t.kind in ("BEGIN", "END", "BEGINFILE", "ENDFILE"):
            self.advance()
            if self.tok.kind != "{":
                err = AwkSyntaxError(
                    f"{t.kind} blocks must have an action part", t.src, t.line, -1, show=False
                )
                err.bare = True
                raise err
            self.rule_kind = t.kind
            self.program.rules.append(A.Rule(t.kind, None, None, self.block(), self.loc(t)))
            self.rule_kind = ""
            return
        pattern: A.Expr | None = None
        pattern2: A.Expr | None = None
        if t.kind != "{":
            pattern = self.expr()
            if self.tok.kind == ",":
                self.advance()
                self.opt_nl()
                pattern2 = self.expr()
        body: A.Block | None = None
        if self.tok.kind == "{":
            self.rule_kind = "main"
            body = self.block()
            self.rule_kind = ""
        elif self.tok.kind not in ("NEWLINE", ";", "EOF"):
            raise self.error()
        self.program.rules.append(A.Rule("main", pattern, pattern2, body, self.loc(t)))

    def function(self) -> None:
        start = self.advance()
        t = self.tok
        if t.kind not in ("NAME", "FUNC_NAME"):
            if t.kind == "BUILTIN":
                raise AwkSyntaxError(
                    f"function name `{t.val}' previously defined", t.src, t.line, -1, show=False
                )
            raise self.error()
        name = str(t.val)
        self.advance()
        if name in SPECIAL_VARS or name in self.program.functions:
            raise AwkSyntaxError(f"function name `{name}' previously defined", t.src, t.line, -1, show=False)
        self.expect("(")
        params: list[str] = []
        self.opt_nl()
        while self.tok.kind != ")":
            p = self.expect("NAME")
            pname = str(p.val)
            if pname in params:
                raise AwkSyntaxError(
                    f"function `{name}': parameter #{len(params) + 1}, `{pname}', duplicates parameter "
                    f"#{params.index(pname) + 1}",
                    p.src,
                    p.line,
                    -1,
                    show=False,
                )
            if pname == name:
                raise AwkSyntaxError(
                    f"function `{name}': cannot use function name as parameter name",
                    p.src,
                    p.line,
                    -1,
                    show=False,
                )
            if pname in SPECIAL_VARS:
                raise AwkSyntaxError(
                    f"function `{name}': cannot use special variable `{pname}' as a function parameter",
                    p.src,
                    p.line,
                    -1,
                    show=False,
                )
            params.append(pname)
            self.opt_nl()
            if self.tok.kind == ",":
                self.advance()
                self.opt_nl()
            elif self.tok.kind != ")":
                raise self.error()
        self.advance()
        self.opt_nl()
        fn = A.Function(name, params, A.Block([]), self.loc(start), start.src)
        self.program.functions[name] = fn
        self.in_function = fn
        fn.body = self.block()
        self.in_function = None

    # ------------------------------------------------------------ statements

    def block(self) -> A.Block:
        self.expect("{")
        stmts: list[A.Stmt] = []
        self.skip_terms()
        while self.tok.kind != "}":
            if self.tok.kind == "EOF":
                raise self.error()
            stmts.append(self.statement())
            self.skip_terms()
        self.advance()
        return A.Block(stmts)

    def end_simple(self) -> None:
        """A simple statement ends at `;`, a newline, or before `}`."""
        k = self.tok.kind
        if k in (";", "NEWLINE"):
            self.advance()
        elif k not in ("}", "EOF"):
            raise self.error()

    def body_stmt(self) -> A.Stmt:
        """The body of if/while/for: a statement, or `;` for none."""
        self.opt_nl()
        if self.tok.kind == ";":
            self.advance()
            return A.Block([])
        return self.statement()

    def statement(self) -> A.Stmt:
        t = self.tok
        k = t.kind
        line = self.loc(t)
        if k == "{":
            return self.block()
        if k == "if":
            self.advance()
            self.expect("(")
            test = self.expr()
            self.expect(")")
            yes = self.body_stmt()
            save = self.i
            self.skip_terms()
            if self.tok.kind == "else":
                self.advance()
                no = self.body_stmt()
                return A.If(test, yes, no, line)
            self.i = save
            return A.If(test, yes, None, line)
        if k == "while":
            self.advance()
            self.expect("(")
            test = self.expr()
            self.expect(")")
            if self.tok.kind == ";":
                self.advance()
                return A.While(test, A.Block([]), line)
            self.loop_depth += 1
            body = self.body_stmt()
            self.loop_depth -= 1
            return A.While(test, body, line)
        if k == "do":
            self.advance()
            self.loop_depth += 1
            body = self.body_stmt()
            self.loop_depth -= 1
            self.skip_terms()
            self.expect("while")
            self.expect("(")
            test = self.expr()
            self.expect(")")
            self.end_simple()
            return A.DoWhile(body, test, line)
        if k == "for":
            return self.for_stmt()
        if k == "switch":
            return self.switch_stmt()
        if k == ";":
            self.advance()
            return A.Block([])
        stmt = self.simple_statement()
        self.end_simple()
        return stmt

    def for_stmt(self) -> A.Stmt:
        line = self.loc()
        self.advance()
        self.expect("(")
        # for (NAME in ARRAY) or for (NAME in ARRAY[i]...): a subarray
        if (
            self.tok.kind == "NAME"
            and self.peek().kind == "in"
            and self.peek(2).kind == "NAME"
            and self.peek(3).kind in (")", "[")
        ):
            start = self.i
            var = A.Var(str(self.advance().val))
            self.advance()
            arr = str(self.advance().val)
            path = self.subscripts()
            if self.tok.kind == ")":
                self.advance()
                self.loop_depth += 1
                body = self.body_stmt()
                self.loop_depth -= 1
                return A.ForIn(var, arr, body, line, path)
            self.i = start  # `for (k in a[1] ...; ...)`: a C-style loop after all
        init = None if self.tok.kind == ";" else self.simple_statement()
        self.expect(";")
        self.opt_nl()
        test = None if self.tok.kind == ";" else self.expr()
        self.expect(";")
        self.opt_nl()
        step = None if self.tok.kind == ")" else self.simple_statement()
        self.expect(")")
        if self.tok.kind == ";":
            self.advance()
            return A.For(init, test, step, A.Block([]), line)
        self.loop_depth += 1
        body = self.body_stmt()
        self.loop_depth -= 1
        return A.For(init, test, step, body, line)

    def switch_stmt(self) -> A.Stmt:
        line = self.loc()
        self.advance()
        self.expect("(")
        subject = self.expr()
        self.expect(")")
        self.opt_nl()
        self.expect("{")
        cases: list[tuple[A.Expr | None, list[A.Stmt]]] = []
        self.skip_terms()
        self.loop_depth += 1  # `break` leaves a switch
        while self.tok.kind != "}":
            if self.tok.kind == "case":
                self.advance()
                label: A.Expr | None = self.case_label()
            elif self.tok.kind == "default":
                self.advance()
                label = None
            else:
                raise self.error()
            self.expect(":")
            stmts: list[A.Stmt] = []
            self.skip_terms()
            while self.tok.kind not in ("case", "default", "}"):
                if self.tok.kind == "EOF":
                    raise self.error()
                stmts.append(self.statement())
                self.skip_terms()
            cases.append((label, stmts))
        self.loop_depth -= 1
        self.advance()
        return A.Switch(subject, cases, line)

    def case_label(self) -> A.Expr:
        t = self.advance()
        if t.kind == "-" and self.tok.kind == "NUMBER":
            return A.Num(-float(self.advance().val))
        if t.kind == "+" and self.tok.kind == "NUMBER":
            return A.Num(float(self.advance().val))
        if t.kind == "NUMBER":
            return A.Num(float(t.val))
        if t.kind == "STRING":
            return A.Str(str(t.val))
        if t.kind == "ERE":
            return A.Regex(str(t.val), self.loc(t))
        raise self.error(t)

    def simple_statement(self) -> A.Stmt:
        t = self.tok
        k = t.kind
        line = self.loc(t)
        if k in ("print", "printf"):
            return self.print_stmt()
        if k in ("next", "nextfile"):
            self.advance()
            if self.rule_kind in ("BEGIN", "END") or (
                k == "next" and self.rule_kind in ("BEGINFILE", "ENDFILE")
            ):
                where = self.rule_kind
                raise AwkSyntaxError(f"`{k}' used in {where} action", t.src, t.line, -1, show=False)
            return A.Simple(k, line)
        if k in ("break", "continue"):
            self.advance()
            if self.loop_depth == 0:
                raise AwkSyntaxError(
                    f"`{k}' is not allowed outside a loop" + (" or switch" if k == "break" else ""),
                    t.src,
                    t.line,
                    -1,
                    show=False,
                )
            return A.Simple(k, line)
        if k == "exit":
            self.advance()
            value = None if self.tok.kind in _TERMINATORS else self.expr()
            return A.Exit(value, line)
        if k == "return":
            if self.in_function is None:
                raise self.error(t, "`return' used outside function context")
            self.advance()
            value = None if self.tok.kind in _TERMINATORS else self.expr()
            return A.Return(value, line)
        if k == "delete":
            self.advance()
            paren = False
            if self.tok.kind == "(" and self.peek().kind == "NAME" and self.peek(2).kind == ")":
                self.advance()
                paren = True
            name_tok = self.expect("NAME")
            path = self.subscripts()
            subs = path.pop() if path else None
            if paren:
                self.expect(")")
            return A.Delete(str(name_tok.val), subs, line, path)
        return A.ExprStmt(self.expr(), line)

    def print_stmt(self) -> A.Stmt:
        t = self.advance()
        printf = t.kind == "printf"
        line = self.loc(t)
        args: list[A.Expr] = []
        if self.tok.kind == "(":
            save = self.i
            self.advance()
            saved_print, self.in_print = self.in_print, False
            items = self.expr_list(")") if self.tok.kind != ")" else []
            self.in_print = saved_print
            if self.tok.kind == ")" and self.peek().kind in _TERMINATORS | {">", ">>", "|", "|&"}:
                self.advance()
                args = items
            else:
                self.i = save
                args = self.print_args()
        elif self.tok.kind not in _TERMINATORS and self.tok.kind not in (">", ">>", "|", "|&"):
            args = self.print_args()
        if printf and not args:
            raise self.error()
        redirect = None
        dest = None
        if self.tok.kind in (">", ">>", "|", "|&"):
            redirect = str(self.advance().kind)
            saved_print, self.in_print = self.in_print, True
            dest = self.concat()
            self.in_print = saved_print
        return A.Print(printf, args, redirect, dest, line)

    def print_args(self) -> list[A.Expr]:
        saved, self.in_print = self.in_print, True
        args = [self.expr()]
        while self.tok.kind == ",":
            self.advance()
            self.opt_nl()
            args.append(self.expr())
        self.in_print = saved
        return args

    def expr_list(self, closer: str) -> list[A.Expr]:
        """Comma-separated expressions; a newline may follow a comma only."""
        items = [self.expr()]
        while self.tok.kind == ",":
            self.advance()
            self.opt_nl()
            items.append(self.expr())
        return items

    # ------------------------------------------------------------ expressions

    def expr(self) -> A.Expr:
        left = self.ternary()
        k = self.tok.kind
        if k in _ASSIGN_OPS:
            if not isinstance(left, (A.Var, A.Index, A.Field)):
                raise self.error()
            t = self.advance()
            self.opt_nl()
            value = self.expr()
            op = "^=" if k == "**=" else k
            self.check_assign_target(left, t)
            return A.Assign(op, left, value, self.loc(t))
        return left

    def check_assign_target(self, target: A.Expr, t: Tok) -> None:
        if isinstance(target, A.Var) and target.name in self.program.functions:
            raise AwkSyntaxError(
                f"function `{target.name}' called with space between name and `(',\n"
                "or used as a variable or an array",
                t.src,
                t.line,
                -1,
                show=False,
            )

    def ternary(self) -> A.Expr:
        test = self.logical_or()
        if self.tok.kind != "?":
            return test
        self.advance()
        self.opt_nl()
        yes = self.expr()
        self.opt_nl()
        self.expect(":")
        self.opt_nl()
        no = self.expr()
        return A.Cond(test, yes, no)

    def logical_or(self) -> A.Expr:
        left = self.logical_and()
        while self.tok.kind == "||":
            self.advance()
            self.opt_nl()
            left = A.Logical("||", left, self.logical_and())
        return left

    def logical_and(self) -> A.Expr:
        left = self.in_expr()
        while self.tok.kind == "&&":
            self.advance()
            self.opt_nl()
            left = A.Logical("&&", left, self.in_expr())
        return left

    def in_expr(self) -> A.Expr:
        left = self.match_expr()
        while self.tok.kind == "in":
            self.advance()
            name = self.expect("NAME")
            left = A.In([left], str(name.val), self.subscripts())
        return left

    def match_expr(self) -> A.Expr:
        left = self.comparison()
        while self.tok.kind in ("~", "!~"):
            negate = self.advance().kind == "!~"
            left = A.MatchOp(negate, left, self.comparison())
        return left

    def comparison(self) -> A.Expr:
        left = self.pipe_getline()
        k = self.tok.kind
        if k in _REL_OPS and not (self.in_print and k == ">"):
            t = self.advance()
            right = self.pipe_getline()
            left = A.Binary(k, left, right, self.loc(t))
            if self.tok.kind in _REL_OPS and not (self.in_print and self.tok.kind == ">"):
                raise self.error()
        return left

    def pipe_getline(self) -> A.Expr:
        left = self.concat()
        while self.tok.kind in ("|", "|&") and self.peek().kind == "getline":
            kind = "cmd" if self.advance().kind == "|" else "coproc"
            t = self.advance()
            target = self.opt_lvalue()
            left = A.Getline(kind, target, left, self.loc(t))
        return left

    def concat(self) -> A.Expr:
        left = self.additive()
        while self.tok.kind in _CONCAT_START:
            if self.tok.kind == "@" and self.peek().kind not in ("NAME", "FUNC_NAME"):
                break
            left = A.Binary("concat", left, self.additive())
        # `x in a` after a concatenation is handled by in_expr
        return left

    def additive(self) -> A.Expr:
        left = self.multiplicative()
        while self.tok.kind in ("+", "-"):
            t = self.advance()
            left = A.Binary(str(t.kind), left, self.multiplicative(), self.loc(t))
        return left

    def multiplicative(self) -> A.Expr:
        left = self.unary()
        while self.tok.kind in ("*", "/", "%"):
            t = self.advance()
            left = A.Binary(str(t.kind), left, self.unary(), self.loc(t))
        return left

    def unary(self) -> A.Expr:
        k = self.tok.kind
        if k in ("!", "-", "+"):
            self.advance()
            return A.Unary(k, self.unary())
        return self.power()

    def power(self) -> A.Expr:
        base = self.postfix()
        if self.tok.kind in ("^", "**"):
            t = self.advance()
            # right associative; the exponent may carry a sign: 2^-1
            k = self.tok.kind
            if k in ("-", "+", "!"):
                self.advance()
                exponent: A.Expr = A.Unary(k, self.unary())
            else:
                exponent = self.power()
            return A.Binary("^", base, exponent, self.loc(t))
        return base

    def postfix(self) -> A.Expr:
        e = self.primary()
        if self.tok.kind in ("++", "--") and isinstance(e, (A.Var, A.Index, A.Field)):
            op = str(self.advance().kind)
            return A.IncDec(op, False, e)
        return e

    def lvalue(self) -> A.Expr:
        t = self.tok
        if t.kind == "$":
            self.advance()
            return A.Field(self.field_operand())
        if t.kind == "NAME":
            self.advance()
            name = str(t.val)
            if self.tok.kind == "[":
                path = self.subscripts()
                return A.Index(name, path.pop(), path)
            return A.Var(name)
        raise self.error()

    def subscripts(self) -> list[list[A.Expr]]:
        """The `[...]` groups after an array name: more than one names a subarray's element."""
        groups: list[list[A.Expr]] = []
        while self.tok.kind == "[":
            self.advance()
            groups.append(self.expr_list("]"))  # gawk keeps `print`'s `>` rule inside brackets
            self.expect("]")
        return groups

    def opt_lvalue(self) -> A.Expr | None:
        if self.tok.kind in ("$", "NAME"):
            return self.lvalue()
        return None

    def field_operand(self) -> A.Expr:
        k = self.tok.kind
        if k in ("++", "--"):
            self.advance()
            return A.IncDec(k, True, self.lvalue())
        if k in ("-", "+", "!"):
            self.advance()
            return A.Unary(k, self.field_operand())
        return self.primary()

    def primary(self) -> A.Expr:
        t = self.tok
        k = t.kind
        if k == "NUMBER":
            self.advance()
            return A.Num(float(t.val))
        if k == "STRING":
            self.advance()
            return A.Str(str(t.val))
        if k == "ERE":
            self.advance()
            return A.Regex(str(t.val), self.loc(t))
        if k == "$":
            self.advance()
            return A.Field(self.field_operand())
        if k in ("++", "--"):
            self.advance()
            return A.IncDec(k, True, self.lvalue())
        if k in ("-", "+", "!"):
            self.advance()
            return A.Unary(k, self.unary())
        if k == "(":
            return self.paren()
        if k == "NAME":
            return self.lvalue()
        if k == "FUNC_NAME":
            return self.call()
        if k == "BUILTIN":
            return self.builtin()
        if k == "getline":
            self.advance()
            target = self.opt_lvalue()
            if self.tok.kind == "<":
                self.advance()
                saved, self.in_print = self.in_print, False
                source = self.getline_source()
                self.in_print = saved
                return A.Getline("file", target, source, self.loc(t))
            return A.Getline("main", target, None, self.loc(t))
        if k == "@" and self.peek().kind in ("FUNC_NAME", "NAME"):
            self.advance()
            name_tok = self.advance()
            self.expect("(")
            args = self.expr_list(")") if self.tok.kind != ")" else []
            self.expect(")")
            return A.IndirectCall(str(name_tok.val), args, self.loc(t))
        raise self.error()

    def getline_source(self) -> A.Expr:
        """The file after `getline <`: a primary (concatenation needs parentheses)."""
        k = self.tok.kind
        if k in ("-", "+", "!"):
            self.advance()
            return A.Unary(k, self.getline_source())
        return self.postfix()

    def paren(self) -> A.Expr:
        self.advance()
        saved, self.in_print = self.in_print, False
        items = self.expr_list(")")
        self.in_print = saved
        self.expect(")")
        if len(items) > 1:
            if self.tok.kind != "in":
                raise self.error()
            self.advance()
            name = self.expect("NAME")
            return A.In(items, str(name.val), self.subscripts())
        return A.Group(items[0])

    def call(self) -> A.Expr:
        t = self.advance()
        self.expect("(")
        saved, self.in_print = self.in_print, False
        args = self.expr_list(")") if self.tok.kind != ")" else []
        self.in_print = saved
        self.expect(")")
        self.calls.append((str(t.val), len(args), self.loc(t)))
        return A.Call(str(t.val), args, self.loc(t))

    def builtin(self) -> A.Expr:
        t = self.advance()
        name = str(t.val)
        if self.tok.kind != "(":
            if name == "length":
                return A.Builtin("length", [], self.loc(t))
            raise self.error()
        self.advance()
        saved, self.in_print = self.in_print, False
        args = self.expr_list(")") if self.tok.kind != ")" else []
        self.in_print = saved
        close = self.tok
        self.expect(")")
        lo, hi = _BUILTIN_ARITY[name]
        if len(args) < lo or (hi is not None and len(args) > hi):
            raise self.error(close, f"{len(args)} is invalid as number of arguments for {name}")
        return A.Builtin(name, args, self.loc(t))


def parse(toks: list[Tok]) -> tuple[A.Program, Parser]:
    p = Parser(toks)
    program = p.parse()
    return program, p
