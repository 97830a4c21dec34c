"""Parse POSIX BRE/ERE (with GNU extensions) and awk EREs into a small AST.

The AST is made of tuples, so the emitters stay simple and fast:

    ("lit", cp)                 one character (code point)
    ("any",)                    `.`
    ("set", negated, items)     bracket expression; items are ("c", cp),
                                ("r", lo, hi) or ("cls", name)
    ("perl", "w"|"W"|"s"|"S")   GNU \\w \\W \\s \\S
    ("cat", [nodes])            concatenation
    ("alt", [nodes])            alternation
    ("group", index, node)      capturing group (1-based index)
    ("rep", node, min, max)     repetition (max None: unbounded)
    ("bol",) ("eol",)           ^ $
    ("bot",) ("eot",)           \\` \\'  (start/end of the subject)
    ("wb",) ("nwb",)            \\b \\B
    ("ws",) ("we",)             \\< \\>
    ("bref", n)                 back-reference
    ("empty",)
    ("never",)                  matches nothing (a repeated anchor, as in glibc)

Dialects follow the tools' real parsers:
  glibc  regcomp() as used by sed, expr, find -regex (errors for `a**` in BRE,
         for a leading `*` in ERE, for an unmatched `)` in ERE, ...);
  grep   GNU grep 3.8 (dfa.c + regex: a leading ERE `*` is ignored with a
         warning, an invalid ERE `{` is literal, `a**` stacks, ...);
  sed    glibc plus sed's escape preprocessing (\\n \\t \\dNNN \\oNNN \\xHH \\cX).
"""

from __future__ import annotations

from ..syntax.escapes import decode_raw
from . import errors as E
from .errors import RegexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Node = tuple["Any", ...]  # (a string: typing is not imported at run time)

RE_DUP_MAX = 0x7FFF
CLASS_NAMES = frozenset(
    [
        "alpha",
        "upper",
        "lower",
        "digit",
        "xdigit",
        "space",
        "print",
        "punct",
        "graph",
        "cntrl",
        "blank",
        "alnum",
    ]
)
EMPTY: Node = ("empty",)
NEVER: Node = ("never",)
_ANCHORS = frozenset(["bol", "eol", "bot", "eot", "wb", "nwb", "ws", "we"])


def sed_preprocess(pattern: str) -> str:
    """GNU sed's escape conversion before regcomp: \\n \\t \\a \\f \\v \\r \\dNNN
    \\oNNN \\xHH \\cX become the characters themselves (which may then act as
    operators, as in GNU sed 4.9); a byte value is that byte."""
    if "\\" not in pattern:
        return pattern
    return decode_raw(pattern, "sed")


_AWK_SIMPLE = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "f": "\f",
    "v": "\v",
    "a": "\a",
    "b": "\b",
    "/": "/",
    '"': '"',
}


class Parser:
    """Recursive-descent parser for one pattern."""

    def __init__(self, pattern: str, flavor: str, dialect: str) -> None:
        self.p = pattern
        self.n = len(pattern)
        self.i = 0
        self.ere = flavor in ("ere", "awk")
        self.awk = flavor == "awk"
        self.grep = dialect == "grep"
        self.ngroups = 0
        self.closed: set[int] = set()
        self.depth = 0
        self.warnings: list[str] = []
        self.has_bref = False
        self.rep_start = True
        self.items: list[Node] = []

    # ------------------------------------------------------------------ entry
    def parse(self) -> Node:
        node = self.parse_alt()
        if self.i < self.n:
            # only an unmatched close paren can stop the top level
            raise RegexError(E.UNMATCHED_RPAREN, offset=self.i)
        return node

    def err(self, msg: str) -> RegexError:
        return RegexError(msg, offset=self.i)

    # ------------------------------------------------------------------ structure
    def at_alt(self) -> bool:
        p, i = self.p, self.i
        if i >= self.n:
            return False
        if self.ere:
            return p[i] == "|"
        return p[i] == "\\" and i + 1 < self.n and p[i + 1] == "|"

    def at_close(self) -> bool:
        p, i = self.p, self.i
        if i >= self.n:
            return False
        if self.ere:
            return p[i] == ")" and (self.depth > 0 or not (self.grep or self.awk))
        return p[i] == "\\" and i + 1 < self.n and p[i + 1] == ")"

    def parse_alt(self) -> Node:
        # a back-reference may only name a group of its own branch (glibc)
        before = set(self.closed)
        branches = [self.parse_branch()]
        seen = set(self.closed)
        while self.at_alt():
            self.i += 1 if self.ere else 2
            self.closed = set(before)
            branches.append(self.parse_branch())
            seen |= self.closed
        self.closed = seen
        if len(branches) == 1:
            return branches[0]
        return ("alt", branches)

    def parse_branch(self) -> Node:
        items: list[Node] = []
        saved = self.items
        self.items = items
        start = True  # "start of expression" context for * and ^
        self.rep_start = True  # a following * + ? { has nothing to repeat
        while self.i < self.n and not self.at_alt() and not self.at_close():
            atom, start_after = self.parse_atom(start)
            if atom is None:
                start = start_after
                continue
            if atom[0] in _ANCHORS:
                # an anchor cannot be repeated: what follows is parsed as at
                # the start (BRE: literal *, ERE: error or grep's warning)
                items.append(atom)
                start = start_after
                self.rep_start = True
                continue
            self.rep_start = False
            atom = self.parse_postfix(atom, start_after)
            items.append(atom)
            start = False
        self.items = saved
        if not items:
            return EMPTY
        if len(items) == 1:
            return items[0]
        return ("cat", items)

    # ------------------------------------------------------------------ atoms
    def parse_atom(self, start: bool) -> tuple[Node | None, bool]:
        """Returns (node, still_at_start)."""
        p = self.p
        c = p[self.i]
        ere = self.ere
        if c == "[":
            self.i += 1
            return self.parse_bracket(), False
        if c == ".":
            self.i += 1
            return ("any",), False
        if c == "^":
            if ere or start:
                self.i += 1
                return ("bol",), True
            self.i += 1
            return ("lit", ord(c)), False
        if c == "$":
            self.i += 1
            if ere or self.at_branch_end():
                return ("eol",), False
            return ("lit", ord(c)), False
        if ere and c == "(":
            self.i += 1
            return self.parse_group(), False
        if ere and c == ")":
            # unmatched ) at top level (grep/awk treat it as literal)
            self.i += 1
            return ("lit", ord(c)), False
        if c in "*+?{" if ere else c == "*":
            if c == "*" and not ere:
                # BRE: a leading * is literal
                self.i += 1
                return ("lit", ord(c)), False
            if c == "{" and ere and not self.interval_follows():
                self.i += 1
                return ("lit", ord(c)), False
            if start or self.rep_start:
                if self.awk:
                    self.i += 1
                    return ("lit", ord(c)), False
                if self.grep:
                    what = "{...}" if c == "{" else c
                    self.warnings.append(f"{what} at start of expression")
                    self.i += 1
                    prev = self.items[-1][0] if self.items else None
                    if prev is not None and c == "{":
                        # after an anchor GNU grep takes the whole interval,
                        # and a counted word assertion (or a counted anchor
                        # after other items) never matches
                        self.parse_interval("}")
                        if prev in ("wb", "nwb", "ws", "we") or len(self.items) > 1:
                            self.items[-1] = NEVER
                    return None, start
            raise self.err(E.BAD_PRECEDING)
        if c == "\\":
            return self.parse_escape(start)
        self.i += 1
        return ("lit", ord(c)), False

    def at_branch_end(self) -> bool:
        """BRE `$` is an anchor only at the end of a branch."""
        return self.i >= self.n or self.at_alt() or (self.at_close())

    def parse_group(self) -> Node:
        self.ngroups += 1
        idx = self.ngroups
        self.depth += 1
        inner = self.parse_alt()
        self.depth -= 1
        if self.ere:
            if self.i >= self.n or self.p[self.i] != ")":
                raise self.err(E.UNMATCHED_PAREN)
            self.i += 1
        else:
            if not (self.p.startswith("\\)", self.i)):
                raise self.err(E.UNMATCHED_PAREN)
            self.i += 2
        self.closed.add(idx)
        return ("group", idx, inner)

    def parse_escape(self, start: bool) -> tuple[Node | None, bool]:
        p = self.p
        if self.i + 1 >= self.n:
            raise self.err(E.TRAILING_BACKSLASH)
        d = p[self.i + 1]
        self.i += 2
        ere = self.ere
        if not ere:
            if d == "(":
                return self.parse_group(), False
            if d == ")":
                raise self.err(E.UNMATCHED_RPAREN)
            if d == "{":
                if start or self.rep_start:
                    if self.grep:
                        return ("lit", ord("{")), False
                    raise self.err(E.BAD_PRECEDING)
                raise self.err(E.BAD_PRECEDING)
            if d in "+?":
                # at the start these are literal (GNU)
                return ("lit", ord(d)), False
        if "1" <= d <= "9" and not self.awk:
            k = ord(d) - 48
            if k not in self.closed:
                raise self.err(E.BAD_BACKREF)
            self.has_bref = True
            return ("bref", k), False
        if d == "w" or d == "W" or d == "s" or d == "S":
            return ("perl", d), False
        if d == "b":
            if self.awk:
                return ("lit", 8), False
            return ("wb",), False
        if d == "y" and self.awk:
            return ("wb",), False
        if d == "B":
            return ("nwb",), False
        if d == "<":
            return ("ws",), False
        if d == ">":
            return ("we",), False
        if d == "`":
            return ("bot",), False
        if d == "'":
            return ("eot",), False
        if self.awk:
            if d in _AWK_SIMPLE:
                return ("lit", ord(_AWK_SIMPLE[d])), False
            if d in "01234567":
                j = self.i - 1
                k = j
                while k < self.n and k < j + 3 and p[k] in "01234567":
                    k += 1
                self.i = k
                return ("lit", int(p[j:k], 8) & 0xFF), False
            if d == "x":
                j = self.i
                k = j
                while k < self.n and k < j + 2 and p[k] in "0123456789abcdefABCDEF":
                    k += 1
                if k > j:
                    self.i = k
                    return ("lit", int(p[j:k], 16)), False
                return ("lit", ord("x")), False
        return ("lit", ord(d)), False

    # ------------------------------------------------------------------ postfix
    def interval_follows(self) -> bool:
        """ERE: does the `{` at self.i start an interval (else it is literal)?"""
        if not (self.grep or self.awk):
            return True
        close = self.p.find("}", self.i + 1)
        if close < 0:
            return False
        body = self.p[self.i + 1 : close]
        if body == "":
            return True  # `{}`: an error, reported by parse_interval
        return all(ch.isdigit() or ch == "," for ch in body) and any(ch.isdigit() or ch == "," for ch in body)

    def parse_postfix(self, atom: Node, at_start: bool) -> Node:
        p = self.p
        ere = self.ere
        stacked = False
        while self.i < self.n:
            c = p[self.i]
            if c == "*":
                if not ere and stacked and not self.grep:
                    raise self.err(E.BAD_PRECEDING)
                self.i += 1
                atom = ("rep", atom, 0, None)
            elif ere and c == "+":
                self.i += 1
                atom = ("rep", atom, 1, None)
            elif ere and c == "?":
                self.i += 1
                atom = ("rep", atom, 0, 1)
            elif ere and c == "{":
                if not self.interval_follows():
                    break
                self.i += 1
                lo, hi = self.parse_interval("}")
                atom = ("rep", atom, lo, hi)
            elif not ere and c == "\\" and self.i + 1 < self.n and p[self.i + 1] in "{+?":
                d = p[self.i + 1]
                if stacked and not self.grep:
                    raise self.err(E.BAD_PRECEDING)
                self.i += 2
                if d == "{":
                    lo, hi = self.parse_interval("\\}")
                    atom = ("rep", atom, lo, hi)
                elif d == "+":
                    atom = ("rep", atom, 1, None)
                else:
                    atom = ("rep", atom, 0, 1)
            else:
                break
            if atom[1][0] in _ANCHORS:
                # glibc and GNU grep: a repeated anchor never matches
                atom = NEVER
            stacked = True
        return atom

    def parse_interval(self, close: str) -> tuple[int, int | None]:
        p = self.p
        end = p.find(close, self.i)
        if end < 0:
            raise self.err(E.UNMATCHED_BRACE)
        body = p[self.i : end]
        self.i = end + len(close)
        lo_s, comma, hi_s = body.partition(",")
        if (
            (not lo_s and not comma)
            or not (lo_s == "" or lo_s.isdigit())
            or not (hi_s == "" or hi_s.isdigit())
        ):
            raise self.err(E.BAD_BRACE)
        if not comma and not lo_s:
            raise self.err(E.BAD_BRACE)
        lo = int(lo_s) if lo_s else 0
        hi: int | None
        if comma:
            hi = int(hi_s) if hi_s else None
        else:
            hi = lo
        if (hi is not None and hi > RE_DUP_MAX) or lo > RE_DUP_MAX:
            raise self.err(E.TOO_BIG)
        if hi is not None and lo > hi:
            raise self.err(E.BAD_BRACE)
        return lo, hi

    # ------------------------------------------------------------------ brackets
    def parse_bracket(self) -> Node:
        p = self.p
        n = self.n
        start = self.i - 1
        neg = False
        if self.i < n and p[self.i] == "^":
            neg = True
            self.i += 1
        items: list[tuple[Any, ...]] = []
        first = True
        # `[:space:]` written without the outer brackets
        if not neg and self.i < n and p[self.i] == ":":
            close = p.find("]", self.i)
            if close > self.i + 1 and p[close - 1] == ":" and close - 1 > self.i:
                name = p[self.i + 1 : close - 1]
                if name in CLASS_NAMES:
                    raise RegexError(
                        f"character class syntax is [[:{name}:]], not [:{name}:]",
                        kind="class_syntax",
                        offset=start,
                    )
        while True:
            if self.i >= n:
                # glibc: the pattern ending right after `[` or `[^` is REG_BADPAT, not REG_EBRACK
                raise RegexError(E.INVALID if first else E.UNMATCHED_BRACKET, offset=start)
            c = p[self.i]
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            lo_item = self.bracket_elem()
            # a range?
            if self.i + 1 < n and p[self.i] == "-" and p[self.i + 1] != "]":
                self.i += 1
                hi_item = self.bracket_elem()
                if lo_item[0] != "c" or hi_item[0] != "c":
                    raise self.err(E.BAD_RANGE)
                lo, hi = lo_item[1], hi_item[1]
                if lo > hi:
                    raise self.err(E.BAD_RANGE)
                items.append(("r", lo, hi))
                if self.i + 1 < n and p[self.i] == "-" and p[self.i + 1] != "]":
                    # `[1-3-5]`: a range cannot start at another range's end
                    raise self.err(E.BAD_RANGE)
            else:
                items.append(lo_item)
        return ("set", neg, items)

    def bracket_elem(self) -> tuple[Any, ...]:
        p = self.p
        n = self.n
        c = p[self.i]
        if c == "[" and self.i + 1 < n and p[self.i + 1] in ":=.":
            kind = p[self.i + 1]
            close = p.find(kind + "]", self.i + 2)
            if close < 0:
                raise RegexError(E.UNMATCHED_BRACKET, offset=self.i)
            body = p[self.i + 2 : close]
            self.i = close + 2
            if kind == ":":
                if body not in CLASS_NAMES:
                    raise self.err(E.BAD_CLASS)
                return ("cls", body)
            if len(body) != 1:
                raise self.err(E.BAD_COLLATE)
            return ("c", ord(body))
        if c == "\\" and self.awk and self.i + 1 < n:
            d = p[self.i + 1]
            self.i += 2
            if d in _AWK_SIMPLE:
                return ("c", ord(_AWK_SIMPLE[d]))
            if d in "01234567":
                j = self.i - 1
                k = j
                while k < n and k < j + 3 and p[k] in "01234567":
                    k += 1
                self.i = k
                return ("c", int(p[j:k], 8) & 0xFF)
            if d == "x":
                j = self.i
                k = j
                while k < n and k < j + 2 and p[k] in "0123456789abcdefABCDEF":
                    k += 1
                if k > j:
                    self.i = k
                    return ("c", int(p[j:k], 16))
            return ("c", ord(d))
        self.i += 1
        return ("c", ord(c))


def parse(pattern: str, flavor: str = "bre", dialect: str = "glibc") -> tuple[Node, int, list[str], bool]:
    """Parse one pattern; returns (ast, number of groups, warnings, has back-references)."""
    if dialect == "sed":
        pattern = sed_preprocess(pattern)
    ps = Parser(pattern, flavor, dialect)
    node = ps.parse()
    return node, ps.ngroups, ps.warnings, ps.has_bref
