"""Shell patterns (globs with bracket classes and extglob) and their matching.

A pattern string uses backslash to quote the next character (expansion has
already escaped every quoted character). Patterns compile to an RE2 program,
which runs in linear time; patterns RE2 cannot express (`!(...)`, invalid
ranges) use a small set-based matcher that is polynomial in the worst case, as
do subjects that are not valid UTF-8 against a pattern with no `*` or group
(with one, RE2 sees each byte that is not UTF-8 as a private-use character). No
backtracking regex ever sees a user pattern.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from ..syntax.escapes import as_bytes as as_bytes
from ..syntax.escapes import from_bytes as from_bytes
from ..textcache import TextLRU

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_GLOB_CHARS = frozenset("*?[")
PATTERN_RE2_MEM = 1 << 20  # a glob's regex needs little; its DFA is bounded by this
_EXT_OPS = frozenset("?*+@!")
# The classes beyond ASCII are Unicode general categories close to what the C library gives bash
# in a UTF-8 locale (letters and letter numbers are alpha, titlecase both upper and lower, punct is
# every graphic character that is not alnum: `²`, `€`, combining marks), so that RE2 can say the
# same (_RE2_CLASSES): a pattern must match alike whichever of the two matchers runs it.
_CATEGORIES = {
    "alpha": ("L", "Nl"),
    "alnum": ("L", "Nl", "Nd"),
    "upper": ("Lu", "Lt"),
    "lower": ("Ll", "Lt"),
    "punct": ("M", "No", "P", "S"),
    "graph": ("L", "M", "N", "P", "S"),
}


def _category_test(name: str) -> Callable[[str], bool]:
    wanted = _CATEGORIES[name]
    ascii_test: Callable[[str], bool] = {
        "alpha": str.isalpha,
        "alnum": str.isalnum,
        "upper": str.isupper,
        "lower": str.islower,
        "punct": lambda c: not c.isalnum() and c.isprintable() and c != " ",
        "graph": lambda c: c.isprintable() and c != " ",
    }[name]

    def test(c: str) -> bool:
        if c.isascii():
            return ascii_test(c)
        import unicodedata  # (not at start-up)

        cat = unicodedata.category(c)
        return cat in wanted or cat[0] in wanted

    return test


_CLASSES: dict[str, Callable[[str], bool]] = {
    "alpha": _category_test("alpha"),
    "digit": lambda c: c in "0123456789",
    "alnum": _category_test("alnum"),
    "upper": _category_test("upper"),
    "lower": _category_test("lower"),
    "space": lambda c: c in " \t\n\r\f\v",
    "blank": lambda c: c in " \t",
    "punct": _category_test("punct"),
    "print": lambda c: c == " " or _CLASSES["graph"](c),
    "graph": _category_test("graph"),
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127,
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
    "word": lambda c: c.isalnum() or c == "_",
    "ascii": lambda c: c.isascii(),
}


# POSIX names of the portable character set, for collating symbols such as `[[.hyphen.]]`
_CONTROL_NAMES = (
    "NUL",
    "SOH",
    "STX",
    "ETX",
    "EOT",
    "ENQ",
    "ACK",
    "alert",
    "BS",
    "HT",
    "LF",
    "VT",
    "FF",
    "CR",
    "SO",
    "SI",
    "DLE",
    "DC1",
    "DC2",
    "DC3",
    "DC4",
    "NAK",
    "SYN",
    "ETB",
    "CAN",
    "EM",
    "SUB",
    "ESC",
    "FS",
    "GS",
    "RS",
    "US",
)
_PRINTABLE_NAMES = {
    " ": "space",
    "!": "exclamation-mark",
    '"': "quotation-mark",
    "#": "number-sign",
    "$": "dollar-sign",
    "%": "percent-sign",
    "&": "ampersand",
    "'": "apostrophe",
    "(": "left-parenthesis",
    ")": "right-parenthesis",
    "*": "asterisk",
    "+": "plus-sign",
    ",": "comma",
    "-": "hyphen hyphen-minus minus dash",
    ".": "period full-stop",
    "/": "slash solidus",
    "0": "zero",
    "1": "one",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    ":": "colon",
    ";": "semicolon",
    "<": "less-than-sign",
    "=": "equals-sign",
    ">": "greater-than-sign",
    "?": "question-mark",
    "@": "commercial-at",
    "[": "left-square-bracket",
    "\\": "backslash reverse-solidus",
    "]": "right-square-bracket",
    "^": "circumflex circumflex-accent",
    "_": "underscore",
    "`": "grave-accent",
    "{": "left-brace left-curly-bracket",
    "|": "vertical-line",
    "}": "right-brace right-curly-bracket",
    "~": "tilde",
    "\x7f": "DEL",
    "\b": "backspace",
    "\t": "tab",
    "\n": "newline",
    "\v": "vertical-tab",
    "\f": "form-feed",
    "\r": "carriage-return",
    "\x1c": "IS4",
    "\x1d": "IS3",
    "\x1e": "IS2",
    "\x1f": "IS1",
}
_COLLATING = {name: ch for ch, names in _PRINTABLE_NAMES.items() for name in names.split()}
_COLLATING.update((name, chr(i)) for i, name in enumerate(_CONTROL_NAMES))


def collating_symbol(name: str) -> str:
    """The character `[.name.]` stands for: itself when one character, else its POSIX name; ""
    (matching nothing) for an unknown name, as in bash."""
    if len(name) == 1:
        return name
    return _COLLATING.get(name, "")


def patscan(p: str, i: int, delim: str = "") -> int:
    """Index just past the `)` closing the extglob group whose body starts at p[i] (or past the
    next top-level `|` when `delim` is "|"); -1 when there is none. Brackets and backslashes
    hide parentheses, as bash's glob_patscan has it."""
    pnest = bnest = 0
    cchar = ""
    bfirst = -1
    n = len(p)
    if i >= n:
        return -1
    while i < n:
        c = p[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            if bnest == 0:
                bfirst = i + 1
                if bfirst < n and p[bfirst] in "!^":
                    bfirst += 1
                bnest += 1
            elif i + 1 < n and p[i + 1] in ":.=":
                cchar = p[i + 1]
        elif c == "]":
            if bnest:
                if cchar and p[i - 1] == cchar:
                    cchar = ""
                elif i != bfirst:
                    bnest -= 1
                    bfirst = -1
        elif c == "(":
            if bnest == 0:
                pnest += 1
        elif c == ")":
            if bnest == 0:
                if pnest <= 0:
                    return i + 1
                pnest -= 1
        elif c == "|" and bnest == 0 and pnest == 0 and delim == "|":
            return i + 1
        i += 1
    return -1


def bash_matchlen(p: str) -> int:
    """How many characters bash's pattern substitution takes a match of the (escaped) pattern to
    be (glob's MATCHLEN), -1 for any number (a star, an extglob group). bash tries no other length
    at a position, and its scan ends a bracket at the first `]` after the one character it takes
    whole: `[^]]` and `[!]a]` count the `]` twice, so `${s//[^]]/z}` replaces nothing. The
    bracket rules are MATCHLEN's: `[:...:]`, `[.x.]`, `[=x=]` hide their `]`; an unclosed bracket
    counts as its characters."""
    n = len(p)
    length = 0
    i = 0
    while i < n:
        c = p[i]
        i += 1
        if c == "*":
            return -1
        if c in "?+!@" and p[i : i + 1] == "(":
            return -1
        if c == "\\":
            length += 1
            i += 1
            continue
        if c != "[":
            length += 1
            continue
        taken = 1  # the characters of the bracket, counted when it does not close
        if i >= n:
            return length + taken
        c = p[i]
        i += 1
        inside = ""  # the ':', '.' or '=' of a class, collating symbol or equivalence class
        while True:
            if c == "\\":
                taken += 1
                if i >= n or i + 1 >= n:
                    return length + taken
                i += 1
            elif c == "[" and p[i : i + 1] in (":", ".", "=") and i < n:
                kind = p[i]
                i += 1
                taken += 1
                if kind != ":" and p[i : i + 1] == "]":
                    i += 1
                    taken += 1
                inside = kind
            elif inside and c == inside and p[i : i + 1] == "]":
                i += 1
                taken += 1
                inside = ""
            else:
                taken += 1
            if i >= n:
                return length + taken
            c = p[i]
            i += 1
            if c == "]":
                break
        length += 1
    return length


def has_glob(pattern: str, extglob: bool = False) -> bool:
    """True when the (escaped) pattern has an unquoted glob character."""
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c in _GLOB_CHARS:
            if c == "[":
                if _bracket_end(pattern, i) > 0:
                    return True
            else:
                return True
        if extglob and c in _EXT_OPS and i + 1 < n and pattern[i + 1] == "(":
            return True
        i += 1
    return False


def has_path_glob(pattern: str, extglob: bool = False) -> bool:
    """Whether pathname expansion treats the (escaped) word as a pattern, as bash decides it: `*`
    or `?`, a `]` after a `[` with no slash between them (`[a/b]` is plain text, `[a\\/b]` is not),
    or an extglob group."""
    open_ = False
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*" or c == "?":
            return True
        if c == "[":
            open_ = True
        elif c == "]":
            if open_:
                return True
        elif c == "/":
            open_ = False
        elif c == "\\":
            i += 2  # a quoted character (a quoted slash in brackets keeps them open)
            continue
        elif extglob and c in _EXT_OPS and i + 1 < n and pattern[i + 1] == "(":
            return True
        i += 1
    return False


def unescape(pattern: str) -> str:
    """Remove the quoting backslashes of a pattern string."""
    if "\\" not in pattern:
        return pattern
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def escape(text: str) -> str:
    """Quote every pattern-special character of a literal string."""
    out = []
    for c in text:
        if c in "*?[]\\!@+()|^-":
            out.append("\\")
        out.append(c)
    return "".join(out)


def _bracket_end(p: str, i: int) -> int:
    """Index of the `]` closing the bracket expression at p[i] == '[', or -1 (`!` negates too;
    a backslash quotes the next character; a `[:` without `:]` is a plain `[`, as in bash)."""
    # imported here: the regex package (and RE2) loads only when a script uses a bracket
    from ..regex.brackets import bracket_end

    return bracket_end(p, i, "!^", escapes=True, open_class_fails=False)


# ------------------------------------------------------------ pattern tree
# Nodes: ('lit', str) ('any',) ('star',) ('cls', negated, items) ('grp', op, [seq...])
Node = tuple["Any", ...]  # (a string: typing is not imported at run time)


def _parse(p: str, i: int, extglob: bool, stop: str = "") -> tuple[list[Node], int]:
    seq: list[Node] = []
    n = len(p)
    lit: list[str] = []

    def flush() -> None:
        if lit:
            seq.append(("lit", "".join(lit)))
            lit.clear()

    while i < n:
        c = p[i]
        if stop and c in stop:
            break
        if c == "\\":
            if i + 1 < n:
                lit.append(p[i + 1])
                i += 2
            else:
                lit.append("\\")
                i += 1
            continue
        if extglob and c in _EXT_OPS and i + 1 < n and p[i + 1] == "(":
            if patscan(p, i + 2) < 0:
                # no `)` closes the group (a `[` hides one up to its `]`): bash compares the rest
                # of the pattern with the rest of the text as plain strings
                lit.append(p[i:])
                break
            alts, j = _parse_group(p, i + 2, extglob)
            if j >= 0:
                flush()
                seq.append(("grp", c, alts))
                i = j
                continue
        if c == "*":
            flush()
            if not (seq and seq[-1][0] == "star"):
                seq.append(("star",))
            i += 1
            continue
        if c == "?":
            flush()
            seq.append(("any",))
            i += 1
            continue
        if c == "[":
            end = _bracket_end(p, i)
            if end > 0:
                flush()
                seq.append(_parse_bracket(p[i + 1 : end]))
                i = end + 1
                continue
        lit.append(c)
        i += 1
    flush()
    return seq, i


def _parse_group(p: str, i: int, extglob: bool) -> tuple[list[list[Node]], int]:
    alts: list[list[Node]] = []
    n = len(p)
    while True:
        seq, j = _parse(p, i, extglob, stop="|)")
        alts.append(seq)
        if j >= n:
            return alts, -1
        if p[j] == ")":
            return alts, j + 1
        i = j + 1


def _parse_bracket(body: str) -> Node:
    negated = False
    i = 0
    if body and body[0] in "!^":
        negated = True
        i = 1
    # the elements first: ('c', ch), ('k', class), ('-',) an unquoted dash, ('x',) a collating
    # symbol with no character; then ranges between two characters (`a-z`, `[.a.]-[.z.]`)
    toks: list[tuple[str, ...]] = []
    n = len(body)
    first = True
    while i < n:
        c = body[i]
        if c == "[" and i + 1 < n and body[i + 1] in ":=.":
            kind = body[i + 1]
            end = body.find(kind + "]", i + 2)
            if end < 0:  # unclosed, as bash reads it: `[[:alp]` drops the `[`, `[[=a]` keeps it
                if kind == ".":
                    return ("cls", False, ())  # and `[[.a]` matches nothing
                if kind == "=":
                    toks.append(("c", "["))
                i += 1
                first = False
                continue
            name = body[i + 2 : end]
            if kind == ":":
                toks.append(("k", name))
            else:
                sym = collating_symbol(name)
                toks.append(("c", sym) if sym else ("x",))
            i = end + 2
            first = False
            continue
        if c == "\\" and i + 1 < n:
            toks.append(("c", body[i + 1]))
            i += 2
            first = False
            continue
        if c == "]" and not first:
            break
        toks.append(("-",) if c == "-" and not first else ("c", c))
        i += 1
        first = False
    return ("cls", negated, tuple(_bracket_items(toks)))


def _bracket_items(toks: list[tuple[str, ...]]) -> list[tuple[str, str]]:
    """('c', ch), ('r', lo + hi), ('k', class) from a bracket's elements. A range with an end that
    is no character (an unknown collating symbol, a class after the dash) matches nothing, as in
    bash; after a class a dash is itself."""
    items: list[tuple[str, str]] = []
    k = 0
    n = len(toks)
    while k < n:
        tok = toks[k]
        if k + 2 < n and toks[k + 1] == ("-",) and tok[0] in "cx" and toks[k + 2][0] != "-":
            lo, hi = tok, toks[k + 2]
            if lo[0] == "c" and hi[0] == "c":
                items.append(("r", lo[1] + hi[1]))
            k += 3
            continue
        if tok[0] == "-":
            items.append(("c", "-"))
        elif tok[0] != "x":
            items.append((tok[0], tok[1]))
        k += 1
    return items


def _class_match(node: Node, ch: str, nocase: bool) -> bool:
    _, negated, items = node
    hit = False
    for kind, val in items:
        if kind == "c":
            hit = ch == val or (nocase and ch.lower() == val.lower())
        elif kind == "r":
            lo, hi = val[0], val[1]
            hit = lo <= ch <= hi or (nocase and (lo <= ch.lower() <= hi or lo <= ch.upper() <= hi))
        else:
            fn = _CLASSES.get(val)
            hit = bool(fn and fn(ch))
        if hit:
            break
    return bool(hit) != bool(negated)


# ------------------------------------------------------------ short ASCII texts, without RE2
# A pattern of literals, `?`, `*` and brackets (no extglob group), case-sensitive and not a
# path's, is also kept as the pieces its stars separate, each a tuple of units: a literal string,
# the set of ASCII characters a bracket matches, or None for `?`. An ASCII text is matched with
# them in Python (RE2's binding costs ~3.7 us a call however short the text: `[[ $c == [a-m] ]]`
# took 5 us, a `case $c in [0-9])` as much); with a star, only a text of up to _PLAIN_TEXT_MAX
# characters (each piece after the first is searched for leftmost, positions only move forward:
# at most that many tries a piece), a longer one still goes to RE2's linear time.
_PLAIN_TEXT_MAX = 256
if TYPE_CHECKING:
    Unit = str | frozenset[str] | None
    Piece = tuple[tuple[Unit, ...], int]  # (the units, the characters they match)
_ASCII = tuple(chr(c) for c in range(128))


def _one_char_brackets(seq: list[Node]) -> list[Node]:
    """`seq` with each bracket of one letter, digit or `_` (`file*[7]`, `[a]*`) made that literal,
    joined to the literals beside it: it matches that character and no other, in every locale and
    with nocasematch as the character itself does, and then `pre*suf` shapes are plain string tests
    (Pattern._simple). Not for pathname patterns, where a bracket is a glob character (`[7]`
    with no file 7 stays the word)."""
    if not any(node[0] == "cls" for node in seq):
        return seq
    out: list[Node] = []
    for node in seq:
        if node[0] == "cls" and not node[1] and len(node[2]) == 1 and node[2][0][0] == "c":
            ch = node[2][0][1]
            if ch.isascii() and (ch.isalnum() or ch == "_"):
                node = ("lit", ch)
        if node[0] == "lit" and out and out[-1][0] == "lit":
            out[-1] = ("lit", out[-1][1] + node[1])
        else:
            out.append(node)
    return out


def _plain_segments(seq: list[Node]) -> tuple[Piece, ...] | None:
    """The pieces between `seq`'s stars (one piece: no star), or None when it has a group."""
    pieces: list[Piece] = []
    units: list[Unit] = []
    for node in seq:
        kind = node[0]
        if kind == "lit":
            units.append(node[1])
        elif kind == "any":
            units.append(None)
        elif kind == "cls":
            units.append(frozenset(c for c in _ASCII if _class_match(node, c, False)))
        elif kind == "star":
            pieces.append(_piece(units))
            units = []
        else:
            return None
    pieces.append(_piece(units))
    return tuple(pieces)


def _piece(units: list[Unit]) -> Piece:
    return tuple(units), sum(len(u) if type(u) is str else 1 for u in units)


def _piece_at(text: str, j: int, units: tuple[Unit, ...]) -> bool:
    """Whether the units match `text` from `j` (the caller made sure they fit before the end)."""
    for u in units:
        if type(u) is str:
            if not text.startswith(u, j):
                return False
            j += len(u)
            continue
        if u is not None and text[j] not in u:
            return False
        j += 1
    return True


def _plain_fits(pieces: tuple[Piece, ...], text: str) -> bool:
    """Whether _plain_full takes `text` (else RE2 or the set matcher does)."""
    return text.isascii() and (len(pieces) == 1 or len(text) <= _PLAIN_TEXT_MAX)


def _plain_full(pieces: tuple[Piece, ...], text: str) -> bool:
    """Whether the pattern of `pieces` (joined by stars) matches all of an ASCII `text`."""
    n = len(text)
    first, size = pieces[0]
    if len(pieces) == 1:
        return n == size and _piece_at(text, 0, first)
    last, tail = pieces[-1]
    if n < size + tail or not _piece_at(text, 0, first) or not _piece_at(text, n - tail, last):
        return False
    pos, end = size, n - tail
    for units, k in pieces[1:-1]:  # leftmost placement of each: what a star skips is free
        j = pos
        while j + k <= end and not _piece_at(text, j, units):
            j += 1
        if j + k > end:
            return False
        pos = j + k
    return True


# ------------------------------------------------------------ RE2 translation


def _re_escape(s: str) -> str:
    out = []
    for c in s:
        if c.isalnum() or c == "_" or ord(c) > 127:
            out.append(c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\0":
            out.append("\\x00")
        else:
            out.append("\\" + c)
    return "".join(out)


class _NoRe2(Exception):
    pass


def _to_regex(seq: list[Node], path: bool) -> str:
    out: list[str] = []
    anych = "[^/]" if path else "(?s:.)"
    for node in seq:
        kind = node[0]
        if kind == "lit":
            out.append(_re_escape(node[1]))
        elif kind == "any":
            out.append(anych)
        elif kind == "star":
            out.append(anych + "*")
        elif kind == "cls":
            out.append(_class_regex(node, path))
        else:
            op, alts = node[1], node[2]
            if op == "!":
                raise _NoRe2()
            inner = "|".join(_to_regex(a, path) for a in alts)
            suffix = {"?": "?", "*": "*", "+": "+", "@": ""}[op]
            out.append(f"(?:{inner}){suffix}")
    return "".join(out)


# RE2's [:alpha:] and the like are ASCII; bash's (the C library's in a UTF-8 locale) and the slow
# path's (_CLASSES: str.isalpha ...) take in every script's letters: `[[ É == [[:upper:]] ]]`
_RE2_CLASSES = {
    name: "".join(f"\\p{{{cat}}}" for cat in cats) for name, cats in _CATEGORIES.items() if name != "punct"
}
_RE2_CLASSES["print"] = " " + _RE2_CLASSES["graph"]
# ASCII punctuation is in P and S; beyond ASCII, M and No as well
_RE2_CLASSES["punct"] = "[:punct:]" + "".join(f"\\p{{{cat}}}" for cat in _CATEGORIES["punct"])


def _class_regex(node: Node, path: bool) -> str:
    _, negated, items = node
    parts: list[str] = []
    for kind, val in items:
        if kind == "c":
            if not val:
                continue
            parts.append(_re_escape(val) if not val.isalnum() else val)
        elif kind == "r":
            lo, hi = val[0], val[1]
            if lo > hi:
                raise _NoRe2()
            parts.append(f"{_re_escape(lo)}-{_re_escape(hi)}")
        else:
            if val not in _CLASSES or val == "word":
                raise _NoRe2()
            parts.append(_RE2_CLASSES.get(val) or f"[:{val}:]")
    if not parts:
        return "(?:(?s:.))" if negated else "[^\\x00-\\x{10FFFF}]"
    body = "".join(parts)
    if negated:
        return f"[^{body}{'/' if path else ''}]"
    return f"[{body}]"


# ------------------------------------------------------------ compiled pattern

# a byte >= 0x80 that is not UTF-8 (U+DC80-U+DCFF) -> the private-use character RE2 matches for it
_TO_PUA = {0xDC80 + k: 0xF780 + k for k in range(128)}


def _pua_clash(text: str) -> bool:
    """Whether `text` holds one of the private-use characters _TO_PUA maps bytes to (then a byte
    and that character would look alike to RE2: the set matcher runs)."""
    return not text.isascii() and _pua_search()(text) is not None


@cache
def _pua_search() -> Callable[[str], object]:
    """A search for those characters (our own fixed class: stdlib re, compiled on first use; a
    Python loop over a 9 MB value took ~0.5 s)."""
    import re

    return re.compile("[\uf780-\uf7ff]").search


class Pattern:
    """A compiled shell pattern."""

    __slots__ = (
        "source",
        "seq",
        "literal",
        "_full",
        "_prefix",
        "_search",
        "_suffix",
        "nocase",
        "path",
        "_simple",
        "_plain",
        "_compiled",
        "extglob",
        "_bytewise",
        "_sets_only",
        "_mapped",
    )

    def __init__(self, source: str, extglob: bool = False, nocase: bool = False, path: bool = False) -> None:
        self.source = source
        self.extglob = extglob
        self.nocase = nocase
        self.path = path
        self._bytewise: Pattern | None = None
        # whether a text that is not UTF-8 goes to the set matcher (_re2_text: asked once one does)
        self._sets_only: bool | None = None
        self._mapped: tuple[str, str] | None = None
        seq, _ = _parse(source, 0, extglob)
        if not path:
            seq = _one_char_brackets(seq)
        self.seq = seq
        self.literal: str | None = None
        if not seq:
            self.literal = ""
        elif len(seq) == 1 and seq[0][0] == "lit":
            self.literal = seq[0][1]
        # RE2's forms of the pattern: the whole text, at a position, a suffix (_regexes)
        self._full: Any = None
        self._search: Any = None
        self._suffix: Any = None
        self._prefix = None
        self._simple: tuple[str, str, str] | None = None
        if not nocase and not path and self.literal is None:
            # `pre*`, `*suf`, `*mid*`, `pre*suf`: plain string tests, no regex
            kinds = [n[0] for n in seq]
            if kinds == ["lit", "star"]:
                self._simple = ("pre", seq[0][1], "")
            elif kinds == ["star", "lit"]:
                self._simple = ("suf", seq[1][1], "")
            elif kinds == ["star", "lit", "star"]:
                self._simple = ("mid", seq[1][1], "")
            elif kinds == ["lit", "star", "lit"]:
                self._simple = ("presuf", seq[0][1], seq[2][1])
            elif kinds == ["star"]:
                self._simple = ("all", "", "")
        self._plain = _plain_segments(seq) if not nocase and not path and self.literal is None else None
        self._compiled = False

    def _regexes(self) -> bool:
        """Whether RE2 holds the pattern, its three forms compiled at the first match that needs
        them: a literal, a `pre*suf` shape or a plain bracket sequence matches a whole text without
        them, so `case $f in *.txt)` or find -name '*.py' loads no RE2 (~8 M instructions)."""
        if not self._compiled:
            self._compile()
        return self._full is not None

    def _compile(self) -> None:
        # (a cached pattern is shared by pipeline stages' threads: _full, which readers test, is
        # set last, and two threads that both compile make the same regexes)
        import re2

        try:
            regex = _to_regex(self.seq, self.path)
            if not regex.isascii():
                regex = regex.translate(_TO_PUA)  # (bytes that are not UTF-8: see _re2_text)
            opts = re2.Options()
            opts.case_sensitive = not self.nocase
            opts.longest_match = True
            opts.log_errors = False
            # each compiled pattern may hold up to max_mem (DFA states it adds while matching),
            # and patterns live in a process-wide cache bounded by that size
            opts.max_mem = PATTERN_RE2_MEM
            full = re2.compile(f"(?:{regex})\\z", opts)
            self._search = re2.compile(regex, opts)
            self._suffix = re2.compile(f"(?:{regex})\\z", opts)
            self._full = full
        except (_NoRe2, re2.error, TypeError, ValueError):
            pass
        self._compiled = True

    # --- the set matcher (for what RE2 cannot do: `!(...)`, odd text)
    # Positions move forward as sets: one pass per node, so `*a*a*b` costs
    # O(nodes x length), not a backtracking search.
    def _ends(self, text: str, seq: list[Node], starts: set[int], guard: bool = False) -> set[int]:
        cur = starts
        for node in seq:
            if not cur:
                break
            cur = self._node_ends(text, node, cur, guard)
        return cur

    def _node_ends(self, text: str, node: Node, starts: set[int], guard: bool = False) -> set[int]:
        """`guard`: position 0 holds a dot that only a literal may match (bash's FNM_PERIOD /
        FNM_DOTDOT): `?`, `*`, a bracket and `!(...)` starting there match nothing."""
        n = len(text)
        kind = node[0]
        path = self.path
        if guard and 0 in starts and kind != "lit" and (kind != "grp" or node[1] == "!"):
            starts = starts - {0}
            if not starts:
                return starts
        if kind == "lit":
            lit = node[1]
            size = len(lit)
            if self.nocase:
                low = lit.lower()
                return {j + size for j in starts if text[j : j + size].lower() == low}
            return {j + size for j in starts if text.startswith(lit, j)}
        if kind == "any":
            return {j + 1 for j in starts if j < n and not (path and text[j] == "/")}
        if kind == "star":
            if not path:
                return set(range(min(starts), n + 1))
            out: set[int] = set()
            for j in sorted(starts):
                if j in out:
                    continue  # already reached from an earlier start
                out.add(j)
                e = j
                while e < n and text[e] != "/":
                    e += 1
                    out.add(e)
            return out
        if kind == "cls":
            nocase = self.nocase
            return {
                j + 1
                for j in starts
                if j < n and not (path and text[j] == "/") and _class_match(node, text[j], nocase)
            }
        op, alts = node[1], node[2]

        def once(begin: set[int]) -> set[int]:
            got: set[int] = set()
            for alt in alts:
                got |= self._ends(text, alt, begin, guard)
            return got

        if op == "@":
            return once(starts)
        if op == "?":
            return once(starts) | starts
        if op in ("*", "+"):
            seen: set[int] = set()
            frontier = once(starts)
            while frontier:
                new = frontier - seen
                if not new:
                    break
                seen |= new
                frontier = once(new)
            return seen | starts if op == "*" else seen
        # `!(...)`: any substring the alternatives do not match entirely
        out = set()
        for j in starts:
            bad = once({j})
            out.update(e for e in range(j, n + 1) if e not in bad)
        return out

    def _slow_full(self, text: str) -> bool:
        return len(text) in self._ends(text, self.seq, {0})

    def match_name(self, text: str, dotglob: bool) -> bool:
        """Whether a file name matches as pathname expansion matches it: a leading dot only
        explicitly (bash's FNM_PERIOD), or with dotglob `.` and `..` only explicitly (FNM_DOTDOT)."""
        if text[:1] == "." and (not dotglob or text in (".", "..")):
            return len(text) in self._ends(text, self.seq, {0}, True)
        return self.fullmatch(text)

    def _re2_text(self, text: str) -> str | None:
        """`text` as RE2 takes it (valid UTF-8), else None (the set matcher's). A byte that is not
        UTF-8 (the lone surrogate surrogateescape gives it: invalid input, or as_bytes's C locale)
        is one private-use character for RE2, one for one so that offsets hold, and in no class
        (_CATEGORIES has no C category) as in the set matcher: else a `*x` search went quadratic
        (6,000 bytes of é under LC_ALL=C: 5 s for one `${x//*[0-9]/}`)."""
        if text.isascii():
            return text
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            pass
        last = self._mapped  # (one text, searched again and again by `${x//pat/rep}`)
        if last is not None and last[0] is text:
            return last[1]
        if self._sets_only is None:
            # (a pattern with no `*` and no group costs the set matcher a few steps a start)
            starry = any(node[0] in ("star", "grp") for node in self.seq)
            self._sets_only = not starry or _pua_clash(self.source)
        if self._sets_only or _pua_clash(text):
            return None
        mapped = text.translate(_TO_PUA)
        try:
            mapped.encode("utf-8")  # (a surrogate of no byte: the set matcher's)
        except UnicodeEncodeError:
            return None
        self._mapped = (text, mapped)
        return mapped

    # --- public matching
    def bytewise(self) -> Pattern:
        """The pattern as a C locale reads it, a byte a character (`as_bytes` of its text): to
        match `as_bytes` of a text. (Kept on the shared pattern: it depends on the text alone.)"""
        got = self._bytewise
        if got is None:
            got = (
                self
                if self.source.isascii()
                else Pattern(as_bytes(self.source), self.extglob, self.nocase, self.path)
            )
            self._bytewise = got
        return got

    def matches(self, text: str, byte_locale: Callable[[], bool]) -> bool:
        """fullmatch in the shell's locale: a non-ASCII text under C/POSIX (`byte_locale()`, asked
        only then) is matched a byte at a time, as bash does (`[[ μé == ???? ]]`)."""
        if text.isascii() or not byte_locale():
            return self.fullmatch(text)
        return self.bytewise().fullmatch(as_bytes(text))

    def fullmatch(self, text: str) -> bool:
        lit = self.literal
        if lit is not None:
            return text == lit or (self.nocase and text.lower() == lit.lower())
        simple = self._simple
        if simple is not None:
            kind, s, s2 = simple
            if kind == "pre":
                return text.startswith(s)
            if kind == "suf":
                return text.endswith(s)
            if kind == "mid":
                return s in text
            if kind == "presuf":
                return len(text) >= len(s) + len(s2) and text.startswith(s) and text.endswith(s2)
            return True
        plain = self._plain
        if plain is not None and _plain_fits(plain, text):
            return _plain_full(plain, text)
        mapped = self._re2_text(text)
        if mapped is not None and self._regexes():
            return bool(self._full.match(mapped) is not None)
        return self._slow_full(text)

    def prefix_len(self, text: str, longest: bool) -> int:
        """Length of the shortest/longest prefix matching, or -1."""
        lit = self.literal
        if lit is not None and not self.nocase:
            return len(lit) if text.startswith(lit) else -1
        simple = self._simple
        if simple is not None and simple[0] != "presuf":
            kind, s, _ = simple
            if kind == "all":  # `*`
                return len(text) if longest else 0
            if kind == "pre":  # `s*`: any prefix that starts with s
                return (len(text) if longest else len(s)) if text.startswith(s) else -1
            # `*s` and `*s*`: a prefix that ends with s, or contains it
            k = text.rfind(s) if longest and kind == "suf" else text.find(s)
            if k < 0:
                return -1
            return len(text) if longest and kind == "mid" else k + len(s)
        mapped = self._re2_text(text)
        if mapped is not None and self._regexes():
            m = self._search.match(mapped)
            if m is None:
                return -1
            if longest:
                return int(m.end())
            for k in range(0, m.end() + 1):
                if self._full is not None and self._full.match(mapped[:k]) is not None:
                    return k
            return int(m.end())
        ends = self._ends(text, self.seq, {0})
        if not ends:
            return -1
        return max(ends) if longest else min(ends)

    def suffix_start(self, text: str, longest: bool) -> int:
        """Start of the shortest/longest suffix matching, or -1."""
        lit = self.literal
        if lit is not None and not self.nocase:
            return len(text) - len(lit) if text.endswith(lit) else -1
        simple = self._simple
        if simple is not None and simple[0] != "presuf":
            kind, s, _ = simple
            if kind == "all":  # `*`
                return 0 if longest else len(text)
            if kind == "suf":  # `*s`: any suffix that ends with s
                return (0 if longest else len(text) - len(s)) if text.endswith(s) else -1
            # `s*` and `*s*`: a suffix that starts with s, or contains it
            k = text.find(s) if longest and kind == "pre" else text.rfind(s)
            if k < 0:
                return -1
            return 0 if longest and kind == "mid" else k
        n = len(text)
        mapped = self._re2_text(text)
        if mapped is not None and self._regexes():
            m = self._suffix.search(mapped)
            if m is None:
                return -1
            if longest:
                return int(m.start())
            for k in range(n, m.start() - 1, -1):
                if self._full is not None and self._full.match(mapped[k:]) is not None:
                    return k
            return int(m.start())
        rng = range(0, n + 1) if longest else range(n, -1, -1)
        for k in rng:
            if n in self._ends(text, self.seq, {k}):
                return k
        return -1

    def encoded(self, text: str) -> Encoded | None:
        """`text` encoded once for RE2, for a caller that searches it many times from left to right
        (search's `encoded`), or None when RE2 does not search it."""
        if self.literal is not None and not self.nocase:
            return None
        mapped = self._re2_text(text)
        if mapped is None or not self._regexes():
            return None
        return Encoded(mapped)

    def search(self, text: str, start: int = 0, encoded: Encoded | None = None) -> tuple[int, int] | None:
        """Leftmost-longest match at or after `start`. `encoded`: self.encoded(text), from a caller
        that searches one text many times from left to right (RE2's binding encodes a str at every
        call, which made `${x//[[:alpha:]]/}` quadratic: 38 s for 96 KB; 20,000 é under
        `${x//?/.}` 2.3 s)."""
        n = len(text)
        lit = self.literal
        if lit is not None and not self.nocase:
            if lit == "":
                return None
            i = text.find(lit, start)
            return (i, i + len(lit)) if i >= 0 else None
        if encoded is not None:
            m = self._search.search(encoded.data, encoded.to_byte(start))
            if m is None:
                return None
            return encoded.to_char(m.start()), encoded.to_char(m.end())
        mapped = self._re2_text(text)
        if mapped is not None and self._regexes():
            m = self._search.search(mapped, start)
            if m is None:
                return None
            return m.start(), m.end()
        for k in range(start, n + 1):
            ends = self._ends(text, self.seq, {k})
            if ends:
                return k, max(ends)
        return None

    def match_at(self, text: str, start: int, anchored_end: bool = False) -> int:
        """Longest match starting exactly at `start`; -1 when none."""
        if anchored_end:
            return len(text) if self.fullmatch(text[start:]) else -1
        mapped = self._re2_text(text)
        if mapped is not None and self._regexes():
            m = self._search.match(mapped, start)
            return m.end() if m is not None else -1
        ends = self._ends(text, self.seq, {start})
        return max(ends) if ends else -1


_FROM_PUA = {v: k for k, v in _TO_PUA.items()}


class Encoded:
    """A text RE2 searches many times from left to right: its UTF-8 form, made once, and the last
    place converted between character and byte offsets, from which each conversion walks on (the
    text between two matches: linear in all)."""

    __slots__ = ("text", "data", "plain", "char", "byte")

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8")
        self.plain = len(self.data) == len(text)  # (ASCII: the offsets are the same)
        self.char = 0
        self.byte = 0

    def to_byte(self, k: int) -> int:
        """The byte offset of character offset `k`."""
        if self.plain:
            return k
        if k < self.char:
            self.char = self.byte = 0
        self.byte += len(self.text[self.char : k].encode("utf-8"))
        self.char = k
        return self.byte

    def to_char(self, b: int) -> int:
        """The character offset of byte offset `b` (a character's start: RE2 matches whole ones)."""
        if self.plain:
            return b
        if b < self.byte:
            self.char = self.byte = 0
        self.char += len(self.data[self.byte : b].decode("utf-8"))
        self.byte = b
        return self.char


def as_byte_chars(text: str) -> str:
    """`text` as the C locale sees it (as_bytes) with each byte >= 0x80 the private-use character
    U+F780-U+F7FF: what a regex engine on Unicode text matches one byte at a time, in no class
    and with no case (a private-use character in `text` becomes its three bytes first, so none
    is taken for a byte)."""
    return text if text.isascii() else as_bytes(text).translate(_TO_PUA)


def from_byte_chars(text: str) -> str:
    """The text whose as_byte_chars form `text` is (a piece that cuts a character leaves its
    bytes as surrogate escapes, as bash leaves them)."""
    return text if text.isascii() else from_bytes(text.translate(_FROM_PUA))


# shared by every run of the process: bounded in entries, text and what the compiled regexes
# may hold; nothing from a long text (T-TEN-5)
_PATTERNS: TextLRU[tuple[str, bool, bool, bool], Pattern] = TextLRU(2048, retained=256 << 20)


def compile_pattern(source: str, extglob: bool = False, nocase: bool = False, path: bool = False) -> Pattern:
    key = (source, extglob, nocase, path)
    pattern = _PATTERNS.get(key)
    if pattern is None:
        pattern = Pattern(source, extglob, nocase, path)
        if len(source) <= 1024:
            # (what RE2 may come to hold for it: its regexes are compiled at the first match that
            # needs them, which a literal matched case-sensitively never does)
            held = 0 if pattern.literal is not None and not nocase else 3 * PATTERN_RE2_MEM
            _PATTERNS.put(key, len(source), pattern, held + 2 * len(source))
    return pattern


def match(pattern: str, text: str, extglob: bool = False, nocase: bool = False) -> bool:
    return compile_pattern(pattern, extglob, nocase).fullmatch(text)


def _shape_of(plain: Pattern) -> tuple[str, str, str] | None:
    """A pattern's shape that str methods test while nocasematch is off: ("lit", text, ""), or
    Pattern._simple's `pre*`, `*suf`, `*mid*`, `pre*suf`, `*`; else None."""
    lit = plain.literal
    return ("lit", lit, "") if lit is not None else plain._simple


def glob_shape(source: str) -> tuple[str, str, str] | None:
    """The shape glob_test tests `source` by with str methods while nocasematch is off (see
    _shape_of), or None: a generated `case` (funcgen.py) writes the same test in."""
    return _shape_of(compile_pattern(source)) if "(" not in source else None


def pattern_site(source: str) -> Callable[[bool, bool], Pattern]:
    """compile_pattern(source, extglob, nocase) for one place in a script whose pattern text is
    fixed (`case $x in file*7)`, `[[ $x == file*7 ]]`): the pattern made under each setting of
    extglob and nocasematch is kept by the place (a pattern made for one setting is never used
    under another), when it matches without running its regex (a literal or a `pre*suf` shape:
    nothing grows behind it) and its text is short; any other comes from the shared, bounded
    cache each time."""
    held: list[Pattern | None] = [None, None, None, None]
    keep = len(source) <= 1024

    def site(extglob: bool, nocase: bool) -> Pattern:
        i = (2 if nocase else 0) + (1 if extglob else 0)
        pattern = held[i]
        if pattern is None:
            pattern = compile_pattern(source, extglob, nocase)
            if keep and (pattern.literal is not None or pattern._simple is not None):
                held[i] = pattern
        return pattern

    return site


def varying_site() -> Callable[[str, bool, bool], Pattern]:
    """compile_pattern(source, extglob, nocase) for one place in a script whose pattern text comes
    from a variable (`case $x in $p)`): the last pattern is kept by the place while the text and
    settings stay the same, when it matches without running its regex (as pattern_site keeps
    one) and its text is short; any other comes from the shared, bounded cache each time."""
    last: list[object] = [None, False, False, None]

    def site(source: str, extglob: bool, nocase: bool) -> Pattern:
        if source == last[0] and extglob is last[1] and nocase is last[2]:
            return last[3]  # type: ignore[return-value]
        pattern = compile_pattern(source, extglob, nocase)
        if len(source) <= 1024 and (pattern.literal is not None or pattern._simple is not None):
            last[:] = source, extglob, nocase, pattern
        return pattern

    return site


def glob_test(source: str, byte_locale: Callable[[], bool]) -> Callable[[str, bool, bool], object]:
    """The test of one unquoted `case` pattern whose text is fixed (`file*7)`), taking (subject,
    nocasematch, extglob) as Compiler.case_tests' tests do. A text without `(` (extglob changes
    nothing in it) that parses to a literal or a `pre*`, `*suf`, `*mid*`, `pre*suf` shape is tested
    with str methods in the closure itself while nocasematch is off (what Pattern.fullmatch does
    for those shapes, without pattern_site's and fullmatch's calls: a third of a two-pattern
    `case`), one of brackets, `?` and stars by its pieces (_plain_full) for a text they take; any
    other text, or nocasematch on, asks the pattern made for the setting, in the shell's locale
    (`byte_locale`: Pattern.matches; the str tests of a shape answer alike in both)."""
    site = pattern_site(source)
    shape = None
    pieces = None
    if "(" not in source:
        plain = compile_pattern(source)
        shape = _shape_of(plain)
        pieces = plain._plain

    if shape is None and pieces is not None and len(pieces) == 2 and not pieces[1][1]:
        units, size = pieces[0]  # `[a-e]*`, `[0-9]*`, `?*`: units, then a star (_plain_full's first test)

        def plain_prefix(subject: str, nocase: bool, extglob: bool) -> object:
            if nocase or not subject.isascii():
                return site(extglob, nocase).matches(subject, byte_locale)
            return len(subject) >= size and _piece_at(subject, 0, units)

        return plain_prefix
    if shape is None and pieces is not None:
        held = pieces  # (a tuple of strings and frozensets: the regex stays in the shared cache)

        def plain_glob(subject: str, nocase: bool, extglob: bool) -> object:
            if nocase or not _plain_fits(held, subject):
                return site(extglob, nocase).matches(subject, byte_locale)
            return _plain_full(held, subject)  # (`[0-9]`, `*[!a-z]*`: Pattern.fullmatch's own way)

        return plain_glob
    if shape is None:

        def glob(subject: str, nocase: bool, extglob: bool) -> object:
            return site(extglob, nocase).matches(subject, byte_locale)

        return glob
    kind, s, s2 = shape
    if kind == "pre":

        def pre(subject: str, nocase: bool, extglob: bool) -> object:
            return site(extglob, nocase).matches(subject, byte_locale) if nocase else subject.startswith(s)

        return pre
    if kind == "suf":

        def suf(subject: str, nocase: bool, extglob: bool) -> object:
            return site(extglob, nocase).matches(subject, byte_locale) if nocase else subject.endswith(s)

        return suf
    if kind == "mid":

        def mid(subject: str, nocase: bool, extglob: bool) -> object:
            return site(extglob, nocase).matches(subject, byte_locale) if nocase else s in subject

        return mid
    if kind == "presuf":
        least = len(s) + len(s2)  # (`ab*ba` is not matched by `aba`)

        def presuf(subject: str, nocase: bool, extglob: bool) -> object:
            if nocase:
                return site(extglob, nocase).matches(subject, byte_locale)
            return len(subject) >= least and subject.startswith(s) and subject.endswith(s2)

        return presuf
    if kind == "lit":  # (`\*`, `a\?b`: quoted characters only)

        def lit_(subject: str, nocase: bool, extglob: bool) -> object:
            return site(extglob, nocase).matches(subject, byte_locale) if nocase else subject == s

        return lit_

    def any_(subject: str, nocase: bool, extglob: bool) -> object:  # (`**`, `***`)
        return True

    return any_
