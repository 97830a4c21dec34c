"""bc's lexer and parser: GNU bc's grammar as recursive descent.

The program is parsed one input item at a time (a line of statements, or a
function definition) so the interpreter can run each as soon as it is
complete, as GNU bc does; `quit` takes effect when it is parsed.

Precedence, lowest first (GNU): || && ! relational assignment + - * / % ^
unary-minus ++/--. So `a = 3 < 5` assigns 3 and `-2^2` is 4.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

KEYWORDS = {
    "auto",
    "break",
    "continue",
    "define",
    "else",
    "for",
    "halt",
    "ibase",
    "if",
    "last",
    "length",
    "limits",
    "obase",
    "print",
    "quit",
    "read",
    "return",
    "scale",
    "sqrt",
    "warranty",
    "while",
    "void",
    "random",
}
Node = tuple["Any", ...]  # (a string: typing is not imported at run time)


class BcSyntaxError(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class Quit(Exception):
    pass


@dataclass
class Tok:
    kind: str  # num name str op nl eof kw
    text: str
    line: int


@dataclass
class Function:
    name: str
    params: list[tuple[str, bool]]
    autos: list[tuple[str, bool]]
    body: list[Node]
    void: bool = False


@dataclass
class Lexer:
    src: str
    pos: int = 0
    line: int = 1
    # "illegal character" messages waiting to be printed (GNU reports and goes on)
    complaints: list[tuple[int, str]] = field(default_factory=list)
    # the next line of a program read from standard input as it runs (None at its end), so that
    # each line runs before the next is read, as GNU bc's: `coproc bc` answers what it is sent
    more: Callable[[], str | None] | None = None

    def pull(self) -> bool:
        """Read the next line of a streamed program after what is left unscanned (all of it
        scanned, or a comment or string that goes on); False at the end of the input."""
        line = self.more() if self.more is not None else None
        if line is None:
            self.more = None
            return False
        self.src = self.src[self.pos :] + line
        self.pos = 0
        return True

    def _skip_blanks(self) -> None:
        """Past blanks, continuation lines and comments (a comment still open pulls more)."""
        while True:
            src, n = self.src, len(self.src)
            while self.pos < n:
                ch = src[self.pos]
                if ch in " \t\r\f\v":
                    self.pos += 1
                elif ch == "\\" and src.startswith("\n", self.pos + 1):
                    self.pos += 2
                    self.line += 1
                elif src.startswith("/*", self.pos):
                    end = src.find("*/", self.pos + 2)
                    if end < 0 and self.more is not None:
                        # (what the comment has read so far is dropped, not kept: only its
                        # lines are counted)
                        self.line += src.count("\n", self.pos)
                        self.src, self.pos = "/*", 0
                        self.pull()
                        break
                    end = n if end < 0 else end + 2
                    self.line += src.count("\n", self.pos, end)
                    self.pos = end
                elif ch == "#":
                    end = src.find("\n", self.pos)
                    self.pos = n if end < 0 else end
                else:
                    return
            else:
                if not (self.more is not None and self.pull()):
                    return

    def next(self) -> Tok:
        src = self.src
        if self.pos >= len(src) or src[self.pos] in " \t\r\f\v\\/#":  # (most tokens start at once)
            self._skip_blanks()
            src = self.src
        n = len(src)
        if self.pos >= n:
            # GNU bc reports a last line without its newline as an error on line 1
            return Tok("eof", "", self.line if src.endswith("\n") or not src else 1)
        start = self.pos
        ch = src[start]
        if ch == "\n":
            self.pos += 1
            self.line += 1
            return Tok("nl", "\n", self.line)
        if ch.isdigit() or ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" or (ch == "." and not self._last_alone(start)):
            return self._number()
        if ch.islower():
            end = start
            while end < n and (src[end].islower() or src[end].isdigit() or src[end] == "_"):
                end += 1
            self.pos = end
            word = src[start:end]
            return Tok("kw" if word in KEYWORDS else "name", word, self.line)
        if ch == '"':
            end = src.find('"', start + 1)
            while end < 0 and self.more is not None:  # a string over lines
                searched = n - start
                if not self.pull():
                    break
                src, n, start = self.src, len(self.src), 0
                end = src.find('"', searched)
            end = n if end < 0 else end
            text = src[start + 1 : end]
            line = self.line
            self.line += text.count("\n")
            self.pos = min(end + 1, n)
            return Tok("str", text, line)
        for op in ("++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "==", "!=", "<=", ">=", "&&", "||"):
            if src.startswith(op, start):
                self.pos += 2
                return Tok("op", op, self.line)
        if ch in "+-*/%^=<>!()[]{},;.":
            self.pos += 1
            return Tok("op", ch, self.line)
        self.pos += 1
        self.complaints.append((self.line, f"illegal character: {ch}"))
        return self.next()

    def _last_alone(self, start: int) -> bool:
        """A lone `.` (not followed by a digit) is the `last` variable."""
        nxt = self.src[start + 1 : start + 2]
        return not (nxt.isdigit() or (nxt != "" and nxt in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))

    def _number(self) -> Tok:
        src, n = self.src, len(self.src)
        digits: list[str] = []
        seen_dot = False
        while self.pos < n:
            ch = src[self.pos]
            if ch.isdigit() or "A" <= ch <= "Z":
                digits.append(ch)
            elif ch == "." and not seen_dot:
                seen_dot = True
                digits.append(ch)
            elif ch == "\\" and src.startswith("\n", self.pos + 1):
                self.pos += 1
                self.line += 1
            else:
                break
            self.pos += 1
        return Tok("num", "".join(digits), self.line)

    def read_line(self) -> str | None:
        """For read(): the next line of the program's own input."""
        if self.pos >= len(self.src) and not (self.more is not None and self.pull()):
            return None
        end = self.src.find("\n", self.pos)
        end = len(self.src) if end < 0 else end + 1
        text = self.src[self.pos : end]
        self.pos = end
        self.line += text.count("\n")
        return text


# the lookahead after a line's newline was taken: the next token is scanned when the next item
# begins, not before the line has run
_LINE_TAKEN = Tok("nl", "\n", 0)


class Parser:
    def __init__(self, lexer: Lexer) -> None:
        self.lex = lexer
        self.tok = _LINE_TAKEN  # the lookahead (scanned by the first item())
        self.loops = 0
        self.function: Function | None = None
        self.prev_line = 1
        self.depth = 0  # braces open inside the function being defined

    # ------------------------------------------------------------ tokens

    def advance(self) -> Tok:
        tok = self.tok
        self.tok = self.lex.next()
        self.prev_line = tok.line
        return tok

    def at(self, text: str) -> bool:
        return self.tok.kind in ("op", "kw") and self.tok.text == text

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.advance()
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            self.error()

    def error(self, message: str = "syntax error", line: int | None = None) -> BcSyntaxError:
        raise BcSyntaxError(message, self.tok.line if line is None else line)

    def skip_newlines(self) -> None:
        while self.tok.kind == "nl":
            self.advance()

    def recover(self) -> None:
        """After a syntax error: drop the rest of the line; inside a function
        definition, drop the whole definition up to its closing brace."""
        depth = self.depth if self.function is not None else 0
        while self.tok.kind != "eof":
            tok = self.tok
            if depth <= 0 and tok.kind == "nl":
                self.tok = _LINE_TAKEN
                break
            self.tok = self.lex.next()
            if tok.kind == "op" and tok.text in "{}":
                depth += 1 if tok.text == "{" else -1
            if depth <= 0 and tok.text == "}" and tok.kind == "op":
                if self.tok.kind == "nl":
                    self.tok = _LINE_TAKEN
                break
        self.loops = 0
        self.depth = 0
        self.function = None

    # ------------------------------------------------------------ items

    def item(self) -> Function | list[Node] | None:
        """The next input item: a function, a line of statements, or None at the end."""
        if self.tok is _LINE_TAKEN:
            self.tok = self.lex.next()
        if self.tok.kind == "eof":
            return None
        if self.at("define"):
            return self.function_def()
        stmts: list[Node] = []
        while True:
            if self.tok.kind == "eof" and stmts:
                self.error()  # an unterminated last line is not run
            if self.tok.kind in ("nl", "eof"):
                if self.tok.kind == "nl":
                    # the line is run before the next one is scanned: a program streamed from
                    # standard input may not have sent it yet (`coproc bc` waits for the answer)
                    self.prev_line = self.tok.line
                    self.tok = _LINE_TAKEN
                return stmts
            if self.accept(";"):
                continue
            stmts.append(self.statement())
            if self.tok.kind not in ("nl", "eof") and not self.at(";"):
                self.error()

    def function_def(self) -> Function:
        self.advance()
        void = self.accept("void")
        if self.tok.kind != "name":
            self.error()
        name = self.advance().text
        self.expect("(")
        params = self.name_list(")")
        self.expect(")")
        self.skip_newlines()
        self.expect("{")
        self.skip_newlines()
        func = Function(name, params, [], [], void)
        self.function = func
        self.depth = 1
        if self.accept("auto"):
            func.autos = self.name_list(";\n")
            if not (self.accept(";") or self.tok.kind == "nl"):
                self.error()
        func.body = self.statement_list("}")
        self.expect("}")
        self.function = None
        self.depth = 0
        return func

    def name_list(self, closers: str) -> list[tuple[str, bool]]:
        names: list[tuple[str, bool]] = []
        while self.tok.kind == "name":
            name = self.advance().text
            array = False
            if self.accept("["):
                self.expect("]")
                array = True
            names.append((name, array))
            if not self.accept(","):
                break
        return names

    def statement_list(self, closer: str) -> list[Node]:
        stmts: list[Node] = []
        while not self.at(closer):
            if self.tok.kind == "eof":
                self.error()
            if self.tok.kind == "nl" or self.accept(";"):
                if self.tok.kind == "nl":
                    self.advance()
                continue
            stmts.append(self.statement())
            if not (self.tok.kind == "nl" or self.at(";") or self.at(closer)):
                self.error()
        return stmts

    # ------------------------------------------------------------ statements

    def statement(self) -> Node:
        tok = self.tok
        if tok.kind == "str":
            self.advance()
            return ("str", tok.text)
        if tok.kind == "kw":
            word = tok.text
            if word == "quit":
                raise Quit
            handler = getattr(self, "st_" + word, None)
            if handler is not None:
                self.advance()
                result: Node = handler()
                return result
        if self.accept("{"):
            self.depth += 1
            body = self.statement_list("}")
            self.expect("}")
            self.depth -= 1
            return ("block", body)
        return ("expr", self.expression())

    def st_break(self) -> Node:
        if not self.loops:
            self.error("Break outside a for/while", self.prev_line)
        return ("break",)

    def st_continue(self) -> Node:
        if not self.loops:
            self.error("Continue outside a for", self.prev_line)
        return ("continue",)

    def st_halt(self) -> Node:
        return ("halt",)

    def st_limits(self) -> Node:
        return ("limits",)

    def st_warranty(self) -> Node:
        return ("warranty",)

    def st_return(self) -> Node:
        if self.function is None:
            self.error("Return outside of a function.", self.prev_line)
        value = None
        if not (self.tok.kind in ("nl", "eof") or self.at(";") or self.at("}")):
            value = self.expression()
        if value is not None and self.function is not None and self.function.void:
            self.error("Return expression in a void function.")
        return ("return", value)

    def st_print(self) -> Node:
        items: list[Node] = []
        while True:
            if self.tok.kind == "str":
                items.append(("str", self.advance().text))
            else:
                items.append(self.expression())
            if not self.accept(","):
                return ("print", items)

    def _loop_body(self) -> Node:
        self.skip_newlines()
        self.loops += 1
        try:
            return self.statement()
        finally:
            self.loops -= 1

    def st_if(self) -> Node:
        self.expect("(")
        cond = self.expression()
        self.expect(")")
        self.skip_newlines()
        then = self.statement()
        other = None
        if self.accept("else"):  # a GNU extension; never on a later line
            self.skip_newlines()
            other = self.statement()
        return ("if", cond, then, other)

    def st_while(self) -> Node:
        self.expect("(")
        cond = self.expression()
        self.expect(")")
        return ("while", cond, self._loop_body())

    def st_for(self) -> Node:
        self.expect("(")
        parts: list[Node | None] = []
        for closer in (";", ";", ")"):
            parts.append(None if self.at(closer) else self.expression())
            self.expect(closer)
        return ("for", parts[0], parts[1], parts[2], self._loop_body())

    # ------------------------------------------------------------ expressions

    def expression(self) -> Node:
        left = self.and_expr()
        while self.accept("||"):
            left = ("or", left, self.and_expr())
        return left

    def and_expr(self) -> Node:
        left = self.not_expr()
        while self.accept("&&"):
            left = ("and", left, self.not_expr())
        return left

    def not_expr(self) -> Node:
        if self.accept("!"):
            return ("not", self.not_expr())
        return self.rel_expr()

    def rel_expr(self) -> Node:
        left = self.assign_expr()
        while self.tok.kind == "op" and self.tok.text in ("==", "!=", "<", "<=", ">", ">="):
            op = self.advance().text
            left = ("rel", op, left, self.assign_expr())
        return left

    def assign_expr(self) -> Node:
        left = self.additive()
        if self.tok.kind == "op" and self.tok.text in ("=", "+=", "-=", "*=", "/=", "%=", "^="):
            if left[0] not in ("var", "elem", "special"):
                self.error()
            op = self.advance().text
            return ("assign", op, left, self.assign_expr())
        return left

    def additive(self) -> Node:
        left = self.multiplicative()
        while self.tok.kind == "op" and self.tok.text in ("+", "-"):
            op = self.advance().text
            left = ("bin", op, left, self.multiplicative())
        return left

    def multiplicative(self) -> Node:
        left = self.power()
        while self.tok.kind == "op" and self.tok.text in ("*", "/", "%"):
            op = self.advance().text
            left = ("bin", op, left, self.power())
        return left

    def power(self) -> Node:
        base = self.unary()
        if self.accept("^"):
            return ("bin", "^", base, self.power())
        return base

    def unary(self) -> Node:
        if self.accept("-"):
            return ("neg", self.unary())
        if self.tok.kind == "op" and self.tok.text in ("++", "--"):
            op = self.advance().text
            target = self.primary()
            if target[0] not in ("var", "elem", "special"):
                self.error()
            return ("pre", op, target)
        node = self.primary()
        if self.tok.kind == "op" and self.tok.text in ("++", "--") and node[0] in ("var", "elem", "special"):
            return ("post", self.advance().text, node)
        return node

    def primary(self) -> Node:
        tok = self.tok
        if tok.kind == "num":
            self.advance()
            return ("num", tok.text)
        if self.accept("("):
            inner = self.expression()
            self.expect(")")
            return ("paren", inner)
        if self.accept("."):
            return ("special", "last")
        if tok.kind == "name":
            self.advance()
            if self.accept("("):
                return ("call", tok.text, self.arguments(), tok.line)
            if self.accept("["):
                index = self.expression()
                self.expect("]")
                return ("elem", tok.text, index)
            return ("var", tok.text)
        if tok.kind == "kw":
            word = tok.text
            if word in ("scale", "ibase", "obase", "last"):
                self.advance()
                if word == "scale" and self.accept("("):
                    arg = self.expression()
                    self.expect(")")
                    return ("scalef", arg)
                return ("special", word)
            if word in ("length", "sqrt"):
                self.advance()
                self.expect("(")
                arg = self.expression()
                self.expect(")")
                return (word, arg)
            if word in ("read", "random"):
                self.advance()
                self.expect("(")
                self.expect(")")
                return (word,)
        self.error()
        raise AssertionError  # unreachable: error() raises

    def arguments(self) -> list[Node]:
        args: list[Node] = []
        if self.accept(")"):
            return args
        while True:
            if self.tok.kind == "name" and self._array_argument():
                args.append(("arrayarg", self.advance().text))
                self.advance()
                self.advance()
            else:
                args.append(self.expression())
            if self.accept(")"):
                return args
            self.expect(",")

    def _array_argument(self) -> bool:
        """`name[]` passes a whole array: look past the name without consuming."""
        rest = self.lex.src[self.lex.pos :].lstrip(" \t")
        return rest.startswith("[") and rest[1:].lstrip(" \t").startswith("]")
