"""Parser for bash arithmetic expressions (the text of $((...)), ((...)), let).

A precedence-climbing parser over a string. Errors raise `ArithSyntaxError`
with bash's wording and the offset of the error token, so the caller can
print `EXPR: MESSAGE (error token is "REST")`.

bash evaluates while it parses (expr.c reads a variable's value as it reads its name), so what
comes before a syntax error has run when the error is reported: `(( x=5, 1+ ))` leaves x=5, and
`x='1+'; (( x 2 ))` reports x's own error, not the `2`. The error carries that prefix as a tree
(`before`), built as the error unwinds the grammar, for the evaluator to run before raising it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..textcache import TextCache
from .ast import AAssign, ABinary, AComma, AIncDec, ANum, Arith, ATernary, AUnary, AVar


class ArithSyntaxError(Exception):
    def __init__(self, message: str, pos: int, whole: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        # the error token is the whole number literal, not the rest of the text
        self.token: str | None = None
        self.whole = whole
        # what bash evaluates before it meets the error (None: nothing); see the module's doc
        self.before: Arith | None = None

    def after(self, first: Arith) -> ArithSyntaxError:
        """This error, `first` now evaluated before what was already in `before`."""
        self.before = first if self.before is None else AComma((first, self.before))
        return self


MAX_NESTING = 1024  # parentheses and unary operators: bash has no bound of its own (its C stack
# ends near 25,000); eight Python frames a level (binary) keep 1,024 well within the recursion limit
_ASSIGN_OPS = ("=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=")
# binary operators by precedence level (lowest first)
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<=", ">=", "<", ">"),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)
_LEVEL_OF = {op: level for level, ops in enumerate(_LEVELS) for op in ops}
_PLUS_LEVEL = _LEVEL_OF["+"]
_OPERATORS = sorted(
    {
        "||",
        "&&",
        "|",
        "^",
        "&",
        "==",
        "!=",
        "<=",
        ">=",
        "<",
        ">",
        "<<",
        ">>",
        "+",
        "-",
        "*",
        "/",
        "%",
        "**",
        "!",
        "~",
        "++",
        "--",
        "(",
        ")",
        "?",
        ":",
        ",",
        *_ASSIGN_OPS,
    },
    key=len,
    reverse=True,
)
# the operators by first character, longest first (the tokenizer tries only these)
_OPS_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _op in _OPERATORS:
    _OPS_BY_FIRST[_op[0]] = (*_OPS_BY_FIRST.get(_op[0], ()), _op)
_NAME_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | set("0123456789")
_ALNUM = frozenset(_NAME_CHARS - {"_"})  # what ends a number: ASCII letters and digits
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"


def parse_number(text: str) -> int:
    """Parse a bash integer constant (decimal, 0octal, 0xhex, base#digits), digit by digit as
    bash's strlong() does, so the first problem met decides the message.

    Raises ArithSyntaxError(..., whole=True) with bash's message when invalid.
    """
    if text.isdigit() and text.isascii() and (text[0] != "0" or len(text) == 1):
        return int(text)  # the common case: plain decimal
    base, i, n = 10, 0, len(text)
    found_base = False
    if text[0] == "0":
        i = 1
        if i == n:
            return 0
        if text[i] in "xX":
            base, i = 16, i + 1
        else:
            base = 8
        found_base = True
    value = 0
    while i < n:
        ch = text[i]
        i += 1
        if ch == "#":
            if found_base:
                raise ArithSyntaxError("invalid number", 0, whole=True)
            if value < 2 or value > 64:
                raise ArithSyntaxError("invalid arithmetic base", 0, whole=True)
            base, value, found_base = value, 0, True
            if i == n or not (text[i] in _ALNUM or text[i] in "@_"):
                raise ArithSyntaxError("invalid integer constant", 0, whole=True)
            continue
        if "0" <= ch <= "9":
            d = ord(ch) - 48
        elif "a" <= ch <= "z":
            d = ord(ch) - 87
        elif "A" <= ch <= "Z":
            d = ord(ch) - (55 if base <= 36 else 29)
        elif ch == "@":
            d = 62
        elif ch == "_":
            d = 63
        else:
            raise ArithSyntaxError("invalid number", 0, whole=True)
        if d >= base:
            raise ArithSyntaxError("value too great for base", 0, whole=True)
        value = value * base + d
    return value


def subscript_end(text: str, start: int, quotes: bool = True) -> int:
    """Where the subscript whose text begins at `start` (just after its `[`) ends: the index
    of its closing `]`, or -1. As bash's skipsubscript: nested brackets count, and quotes,
    backslashes, backquotes and `$(...)`/`${...}` hide brackets (`A[']']` and `A[$(echo ])]` are
    one); a quote left open runs to the end (`a[1"]` has no end). `quotes=False`: only brackets
    and `$(...)`/`${...}` count."""
    depth = 1
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if quotes and c == "\\":
            i += 2
            continue
        if quotes and c in "'`":
            close = text.find(c, i + 1)
            if close < 0:
                return -1
            i = close + 1
            continue
        if quotes and c == '"':
            i = _double_quoted_end(text, i + 1)
            if i < 0:
                return -1
            continue
        if c == "$" and i + 1 < n and text[i + 1] in "({":
            i = _group_end(text, i + 1)
            if i < 0:
                return -1
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if not depth:
                return i
        i += 1
    return -1


def _double_quoted_end(text: str, i: int) -> int:
    """The index just past the `"` that closes a double-quoted string whose text begins at `i`,
    or -1: a backslash escapes the next character, a `$(...)`/`${...}` is passed whole."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and i + 1 < n and text[i + 1] in "({":
            i = _group_end(text, i + 1)
            if i < 0:
                return -1
        else:
            i += 1
    return -1


def _group_end(text: str, i: int) -> int:
    """The index just past the bracket that closes the `(` or `{` at `i`, or -1. Quotes and
    backslashes inside hide brackets, as when bash reads the `$( )` or `${ }` (`$(echo ")")`)."""
    opener = text[i]
    closer = ")" if opener == "(" else "}"
    level = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c in "'`":
            i = text.find(c, i + 1) + 1
            if not i:
                return -1
            continue
        if c == '"':
            i = _double_quoted_end(text, i + 1)
            if i < 0:
                return -1
            continue
        if c == opener:
            level += 1
        elif c == closer:
            level -= 1
            if not level:
                return i + 1
        i += 1
    return -1


def _in_branch(e: ArithSyntaxError, cond: Arith, then: Arith | None) -> ArithSyntaxError:
    """`e`, met in the first branch of `cond ? ...` (`then` None) or in the second after `then`:
    what ran before it is the condition, then the part of the branch it takes."""
    part = ANum(0) if e.before is None else AComma((e.before, ANum(0)))
    if then is None:
        e.before = cond if e.before is None else ATernary(cond, part, ANum(0))
    else:
        e.before = ATernary(cond, then, part)
    return e


class _Parser:
    def __init__(self, text: str, keys_as_is: bool = False) -> None:
        self.text = text
        self.keys_as_is = keys_as_is
        self.pos = 0
        self.tok = ""
        self.tok_pos = 0
        self.kind = ""  # 'num', 'name', 'op', 'eof', 'bad' (no token), 'badop' (no operator)
        self.bad_op: ArithSyntaxError | None = None
        self.depth = 0
        self.tick: Callable[[], None] | None = None
        self.ntok = 0
        self.next()

    # --- tokens
    def next(self) -> None:
        text = self.text
        n = len(text)
        i = self.pos
        self.prev_pos = self.tok_pos
        if self.tick is not None:
            self.ntok += 1
            if not self.ntok & 1023:
                self.tick()
        while i < n and text[i] in " \t\n":
            i += 1
        self.tok_pos = i
        if i >= n:
            self.kind, self.tok, self.pos = "eof", "", i
            return
        c = text[i]
        if "0" <= c <= "9":  # (ASCII only, as bash: `٣` is no digit)
            j = i
            while j < n and (text[j] in _ALNUM or text[j] in "#@_"):
                j += 1
            self.kind, self.tok, self.pos = "num", text[i:j], j
            return
        if c in _NAME_START:
            j = i
            while j < n and text[j] in _NAME_CHARS:
                j += 1
            self.kind, self.tok, self.pos = "name", text[i:j], j
            return
        for op in _OPS_BY_FIRST.get(c, ()):
            if text.startswith(op, i):
                self.kind, self.tok, self.pos = "op", op, i + len(op)
                return
        if self.kind in ("num", "name") or self.tok in (")", "]", "++", "--"):
            # after an operand bash's lexer wants an operator: an unknown character is reported as
            # one as the token is read, before the operand is used (see _operand_end)
            self.bad_op = ArithSyntaxError("syntax error: invalid arithmetic operator", i)
            self.kind, self.tok, self.pos = "badop", c, i + 1
            return
        self.kind, self.tok, self.pos = "bad", c, i + 1

    def _operand_end(self, done: Arith | None = None) -> None:
        """After an operand's last token: a character that is no operator ends the parse here, as
        bash's lexer raises it while reading the token after the operand, before any operator
        takes that operand. What ran by then is `done` (a post-increment: bash's lexer applies it
        with the name; a parenthesized group) and, as the error unwinds the grammar, the left
        sides and comma items before it: `(( a = 3 + 4 # c ))` assigns nothing, `(( x++ @ ))`
        increments x, `x='1+'; (( x @ ))` never reads x's value and names the `@`."""
        if self.kind == "badop" and self.bad_op is not None:
            e = self.bad_op
            e.before = done
            raise e

    def error(self, message: str) -> ArithSyntaxError:
        if self.bad_op is not None and self.kind == "badop":
            return self.bad_op  # the lexer's error came first
        # at the end of the text bash names the last token read (`(43 * 6`: "6")
        return ArithSyntaxError(message, self.prev_pos if self.kind == "eof" else self.tok_pos)

    def expect_operand_error(self) -> ArithSyntaxError:
        if self.kind == "eof":
            # bash points at the operator left dangling at the end
            return ArithSyntaxError("syntax error: operand expected", self.prev_pos)
        return self.error("syntax error: operand expected")

    # --- grammar
    def parse(self) -> Arith:
        if self.kind == "eof":
            return ANum(0)
        node = self.comma()
        if self.kind != "eof":
            if self.kind == "op" and self.tok in _ASSIGN_OPS:
                raise self.error("attempted assignment to non-variable").after(node)
            raise self.error("syntax error in expression").after(node)
        return node

    def comma(self) -> Arith:
        first = self.assign()
        if self.kind == "op" and self.tok == ",":
            items = [first]
            while self.kind == "op" and self.tok == ",":
                self.next()
                try:
                    items.append(self.assign())
                except ArithSyntaxError as e:
                    raise e.after(AComma(tuple(items))) from None
            return AComma(tuple(items))
        return first

    def assign(self) -> Arith:
        left = self.ternary()
        if self.kind == "op" and self.tok in _ASSIGN_OPS:
            if not isinstance(left, AVar):
                raise self.error("attempted assignment to non-variable").after(left)
            op = self.tok
            self.next()
            # (a value that fails stores nothing: only what ran of it is `before`)
            value = self.assign()
            # a compound assignment's error names the token after its value (the last at the end)
            return AAssign(op, left, value, self.prev_pos if self.kind == "eof" else self.tok_pos)
        return left

    def ternary(self) -> Arith:
        cond = self.binary(0)
        if self.kind == "op" and self.tok == "?":
            self.next()
            if (self.kind == "op" and self.tok == ":") or self.kind == "eof":  # (expr.c's expcond)
                raise self.error("expression expected").after(cond)
            # the branch bash does not take it parses without evaluating
            try:
                then = self.comma()
            except ArithSyntaxError as e:
                raise _in_branch(e, cond, None) from None
            if not (self.kind == "op" and self.tok == ":"):
                raise self.error("`:' expected for conditional expression").after(
                    ATernary(cond, then, ANum(0))
                )
            self.next()
            if self.kind == "eof":
                raise self.error("expression expected").after(ATernary(cond, then, ANum(0)))
            try:
                other = self.ternary()
            except ArithSyntaxError as e:
                raise _in_branch(e, cond, then) from None
            return ATernary(cond, then, other)
        return cond

    def binary(self, level: int) -> Arith:
        """The operators of `level` and above, by precedence climbing: one Python frame per
        operand whatever the levels between, so a parenthesised operand costs eight frames (was
        eighteen, one per level), which is what lets MAX_NESTING be as deep as it is."""
        left = self.power()
        while self.kind == "op":
            op = self.tok
            at = _LEVEL_OF.get(op, -1)
            if at < level:
                if op not in ("++", "--") or level > _PLUS_LEVEL or self._names_next():
                    break
                # `1 ++ 2` after an operand is a binary plus, then a unary one
                op, at = op[0], _PLUS_LEVEL
                self.pos = self.tok_pos + 1
            self.next()
            right_pos = self.tok_pos
            try:
                right = self.binary(at + 1)
            except ArithSyntaxError as e:
                if op in ("&&", "||") and e.before is not None:
                    # the right side runs only when the left does not decide
                    e.before = ABinary(op, left, AComma((e.before, ANum(0))), right_pos)
                    raise e from None
                raise e.after(left) from None
            left = ABinary(op, left, right, right_pos)
        return left

    def _names_next(self) -> bool:
        """Whether a variable name follows the current token (`2 ++x` is a
        misplaced pre-increment to bash, not `2 + +x`)."""
        text = self.text
        i = self.pos
        while i < len(text) and text[i] in " \t\n":
            i += 1
        return i < len(text) and text[i] in _NAME_START

    def power(self) -> Arith:
        base = self.unary()
        if self.kind == "op" and self.tok == "**":
            self.next()
            try:
                exp = self.power()
            except ArithSyntaxError as e:
                raise e.after(base) from None
            # bash names the token after the exponent (the last one at the end of the text)
            return ABinary("**", base, exp, self.prev_pos if self.kind == "eof" else self.tok_pos)
        return base

    def unary(self) -> Arith:
        if self.kind == "op":
            tok = self.tok
            if tok in ("!", "~", "-", "+"):
                self.depth += 1
                if self.depth > MAX_NESTING:
                    raise self.error("expression recursion level exceeded")
                self.next()
                node = AUnary(tok, self.unary())
                self.depth -= 1
                return node
            if tok in ("++", "--"):
                save = (self.pos, self.tok, self.tok_pos, self.kind)
                self.next()
                if self.kind == "name":
                    target = self.lvalue()
                    if self.kind == "op" and self.tok in ("++", "--"):
                        # `--x++`: the value of --x is no variable to increment
                        raise self.error(f"{self.tok}: assignment requires lvalue")
                    return AIncDec(tok, True, target)
                # not before a name: `++` is a unary plus and the second `+` is read again
                # (`++5`, `++ + 7`, `+++7`, `++-7` are all unary signs in bash)
                self.pos, self.tok, self.tok_pos, self.kind = save
                self.pos = self.tok_pos + 1
                self.tok, self.kind = tok[0], "op"
                self.next()
                self.depth += 1
                if self.depth > MAX_NESTING:
                    raise self.error("expression recursion level exceeded")
                node = AUnary(tok[0], self.unary())
                self.depth -= 1
                return node
        return self.postfix()

    def postfix(self) -> Arith:
        node = self.primary()
        if isinstance(node, AVar) and self.kind == "op" and self.tok in ("++", "--"):
            op = self.tok
            self.next()
            node = AIncDec(op, False, node)
            self._operand_end(node)
        return node

    def lvalue(self) -> AVar:
        name = self.tok
        name_pos = self.tok_pos
        self.pos_after_name = self.pos
        sub = None
        if self.pos < len(self.text) and self.text[self.pos] == "[":
            sub = self._subscript(name_pos)
        self.next()
        self._operand_end()  # (the name's value is not read yet: `x @` never evaluates x)
        return AVar(name, sub)

    def _subscript(self, name_pos: int) -> str:
        # (bash's expr_skipsubscript: quotes, backslashes and substitutions hide brackets, and a
        # quote left open leaves the subscript without its `]`: `let 'a[1"]=2'` is refused)
        start = self.pos + 1
        end = subscript_end(self.text, start, not self.keys_as_is)
        if end < 0:
            raise ArithSyntaxError("bad array subscript", name_pos)
        self.pos = end + 1
        return self.text[start:end]

    def primary(self) -> Arith:
        kind = self.kind
        if kind == "num":
            try:
                value = parse_number(self.tok)
            except ArithSyntaxError as e:
                e.pos = self.tok_pos
                e.token = self.tok
                raise
            self.next()
            self._operand_end()
            return ANum(value)
        if kind == "name":
            return self.lvalue()
        if kind == "op" and self.tok == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise self.error("expression recursion level exceeded")
            self.next()
            node = self.comma()
            self.depth -= 1
            if not (self.kind == "op" and self.tok == ")"):
                raise self.error("missing `)'").after(node)
            self.next()
            if self.kind == "badop":  # (after a group bash names the character an operand missing)
                raise ArithSyntaxError("syntax error: operand expected", self.tok_pos).after(node)
            return node
        raise self.expect_operand_error()


# shared by every run of the process: bounded in entries and text, nothing from a long text (T-TEN-5)
_CACHE: TextCache[str, Arith] = TextCache()


def parse_arith(text: str, tick: Callable[[], None] | None = None, keys_as_is: bool = False) -> Arith:
    """Parse arithmetic text, with a cache (expressions repeat in loops). `tick`
    is called every so many tokens (the run's deadline, for huge expressions). `keys_as_is`
    (`let` under assoc_expand_once, not cached): quotes in a subscript are plain characters, as
    bash takes an associative array's key there (`let "++a[$b]"`, b="80's")."""
    if keys_as_is:
        parser = _Parser(text, True)
        parser.tick = tick
        return parser.parse()
    node = _CACHE.get(text)
    if node is None:
        parser = _Parser(text)
        parser.tick = tick
        node = parser.parse()
        _CACHE.put(text, text, node)
    return node
