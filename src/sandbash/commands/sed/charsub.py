"""s///g whose every match is one ASCII character of a set, or one ASCII literal: done by bytes
operations in C, not one regex call per match.

`s/[0-9]/#/g` over a log matches a third of its bytes: a search per match costs more than GNU's
whole run. When the pattern is one character from a set of ASCII characters (a literal, a bracket
expression of ASCII characters, ranges and the ASCII-only classes [:digit:] [:xdigit:], maybe in
one group), each match is that one byte wherever it is: no context, no empty match, and an ASCII
byte is a whole character in UTF-8 text, valid or not. Its replacement depends on that byte alone
(`&`, `\\1`, `\\U&`), so it is made once per byte by the same expand() a match uses, and a block
is rewritten by translate() (every replacement one byte), or by splitting it at the set's bytes
and joining the pieces with the replacements. A pattern of ASCII literal text (`s/user/U/g`) has
one replacement: bytes.replace() finds the same leftmost, non-overlapping matches.
"""

from __future__ import annotations

from itertools import chain

from ...regex import RegexError
from ...regex.posix import parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ...regex import Match, Regex
    from .parse import Repl

# what a slice of a block may grow to: the slice is made short enough when a replacement is long
OUT_BOUND = 4 << 20
SLICE = 256 << 10
_ASCII_CLASSES = frozenset(["digit", "xdigit"])  # (the others take non-ASCII letters too)
_FOLDS_OUT = frozenset(b"kKsS")  # case-folded to a non-ASCII letter too (K is KELVIN SIGN's)


class CharSub:
    """The rewrite of a block for one s///g: `run(text)` gives the text with every match replaced."""

    __slots__ = ("delete", "lit", "mode", "one", "reps", "slice", "split_at", "table")

    def __init__(self, mode: str) -> None:
        # "lit": bytes.replace; "first": the first match of each line, bytes.replace once; "tr": translate (every replacement one byte); "del": every match
        # deleted; "join": one replacement for every match; "zip": a replacement per byte
        self.mode = mode
        self.lit = b""  # the literal pattern
        self.one = b""  # the replacement when it is the same for every match
        self.table = b""  # translate(): the set's bytes to their one-byte replacements, or to split_at
        self.split_at = b""  # the set's first byte: where a text so translated is split
        self.delete = b""  # translate()'s deletions: the set's bytes ("del"), or all the others ("zip")
        self.reps: list[bytes] = []  # a byte's replacement (set members only)
        self.slice = SLICE

    def run(self, text: bytes, write: Callable[[bytes], None], tick: Callable[[], None]) -> None:
        if self.mode == "lit":
            self._literal(text, write, tick)
            return
        if self.mode == "first":
            self._first(text, write, tick)
            return
        step = self.slice
        for i in range(0, len(text), step):
            if i:
                tick()
            write(self._chars(text[i : i + step] if len(text) > step else text))

    def _literal(self, text: bytes, write: Callable[[bytes], None], tick: Callable[[], None]) -> None:
        lit, one = self.lit, self.one
        grow = len(one) - len(lit)
        if grow <= 0 or len(text) + text.count(lit) * grow <= OUT_BOUND:
            write(text.replace(lit, one))
            return
        # cut after a newline (no match spans one) so that no piece grows past the bound; a line
        # too long for that is replaced match by match, written as it is made
        step = max(1, OUT_BOUND // (len(one) // len(lit) + 1))
        pos = 0
        while pos < len(text):
            tick()
            cut = text.find(b"\n", pos + step)
            cut = len(text) if cut < 0 else cut + 1
            if cut - pos <= 2 * step:
                write(text[pos:cut].replace(lit, one))
            else:
                self._by_match(text, pos, cut, write, tick)
            pos = cut

    def _first(self, text: bytes, write: Callable[[bytes], None], tick: Callable[[], None]) -> None:
        lit, one = self.lit, self.one
        lines = text.split(b"\n")
        # a piece of n lines grows by n replacements at most
        n = len(lines) if len(one) <= len(lit) else max(1, OUT_BOUND // (len(one) - len(lit)))
        for i in range(0, len(lines), n):
            if i:
                tick()
                write(b"\n")
            write(b"\n".join([line.replace(lit, one, 1) for line in lines[i : i + n]]))

    def _by_match(
        self, text: bytes, pos: int, end: int, write: Callable[[bytes], None], tick: Callable[[], None]
    ) -> None:
        lit, one = self.lit, self.one
        out: list[bytes] = []
        size = 0
        while True:
            at = text.find(lit, pos, end)
            if at < 0:
                break
            out.append(text[pos:at])
            out.append(one)
            size += at - pos + len(one)
            pos = at + len(lit)
            if size >= OUT_BOUND:
                tick()
                write(b"".join(out))
                out.clear()
                size = 0
        out.append(text[pos:end])
        write(b"".join(out))

    def _chars(self, t: bytes) -> bytes:
        mode = self.mode
        if mode == "tr":
            return t.translate(self.table)
        if mode == "del":
            return t.translate(None, self.delete)
        parts = t.translate(self.table).split(self.split_at)
        if mode == "join":
            return self.one.join(parts)
        got = t.translate(None, self.delete)
        return (
            b"".join(chain.from_iterable(zip(parts, map(self.reps.__getitem__, got), strict=False)))
            + parts[-1]
        )


def plan(
    rx: Regex, line_rx: Regex, repl: Repl, expand: Callable[[Repl, Match], bytes], global_: bool
) -> CharSub | None:
    """The bytes rewrite of s/rx/repl/g, or None when its matches are not all one ASCII character
    (or one ASCII literal); of s/rx/repl/ (the first match of each line) when rx is an ASCII
    literal. `line_rx` is the pattern in line mode (its Match feeds expand)."""
    pat = rx.pattern
    if not isinstance(pat, str) or rx.flavor not in ("bre", "ere"):
        return None
    try:
        node, ngroups, _warnings, has_bref = parse(pat, rx.flavor, "sed")
    except RegexError:
        return None
    if has_bref or ngroups > 1:
        return None
    if node[0] == "group":
        node = node[2]
    if node[0] == "cat" and len(node[1]) > 1 and not rx.icase:
        if all(n[0] == "lit" and 0 < n[1] < 128 and n[1] != 10 for n in node[1]):
            return _literal_plan(bytes(n[1] for n in node[1]), line_rx, repl, expand, global_)
        return None
    if not global_:
        if node[0] == "lit" and not rx.icase and _one_ascii(node):
            return _literal_plan(bytes([node[1]]), line_rx, repl, expand, global_)
        return None
    if not _one_ascii(node):
        return None
    members = []
    reps = [b""] * 128
    for c in range(128):
        m = line_rx.search(bytes([c]))
        if m is not None:
            if m.span() != (0, 1):
                return None
            members.append(c)
            reps[c] = expand(repl, m)
    if not members or (rx.icase and not _FOLDS_OUT.isdisjoint(members)):
        return None
    return _set_plan(members, reps)


def _one_ascii(node: tuple[object, ...]) -> bool:
    """Does the node match exactly one character, always an ASCII one other than newline?"""
    if node[0] == "lit":
        return isinstance(node[1], int) and 0 < node[1] < 128 and node[1] != 10
    if node[0] != "set" or node[1]:
        return False
    for it in node[2]:  # type: ignore[attr-defined]
        if it[0] == "c" and not 0 <= it[1] < 128:
            return False
        if it[0] == "r" and not it[2] < 128:
            return False
        if it[0] == "cls" and it[1] not in _ASCII_CLASSES:
            return False
    return True


def _literal_plan(
    lit: bytes, line_rx: Regex, repl: Repl, expand: Callable[[Repl, Match], bytes], global_: bool
) -> CharSub | None:
    m = line_rx.search(lit)
    if m is None or m.span() != (0, len(lit)):
        return None
    p = CharSub("lit" if global_ else "first")
    p.lit = lit
    p.one = expand(repl, m)
    return p


def _set_plan(members: list[int], reps: list[bytes]) -> CharSub:
    mine = [reps[c] for c in members]
    if all(len(r) == 1 for r in mine):
        p = CharSub("tr")
        p.table = bytes.maketrans(bytes(members), b"".join(mine))
        return p
    if not any(mine):
        p = CharSub("del")
        p.delete = bytes(members)
        return p
    p = CharSub("join" if len(set(mine)) == 1 else "zip")
    p.table = bytes.maketrans(bytes(members), bytes([members[0]]) * len(members))
    p.split_at = bytes([members[0]])
    p.slice = max(1, min(SLICE, OUT_BOUND // max(map(len, mine))))
    p.one = mine[0]
    p.delete = bytes(c for c in range(256) if c not in members)
    p.reps = reps
    return p
