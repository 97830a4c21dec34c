"""Brace expansion ({a,b}, {1..9..2}) of a word's parts, before any other expansion."""

from __future__ import annotations

import re
from functools import cache

from ..syntax import ast as A
from ..syntax.lexer import tilde_prefix
from .env import ExpansionError

# bytes of a part's reference in a result, and of a result's list without them
PART_BYTES = 8
RESULT_BYTES = 56

# the backquote a letter sequence makes (`{Y..b}` passes it): bash expands braces in the word's
# text, so that backquote is live there and opens a command substitution (the one object: told
# from a quoted backquote by identity)
_TICK = A.Lit("`")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .words import Expander


def braces(ex: Expander, parts: tuple[A.Part, ...], top: bool = False) -> list[tuple[A.Part, ...]]:
    for p in parts:
        if type(p) is A.Brace or type(p) is A.BraceSeq:
            break
    else:
        return [parts]
    if not ex.env.option("braceexpand"):
        return [parts]  # (`set +B`: the braces stay as text, their parts expanded: Expander._parts)
    results: list[list[A.Part]] = [[]]
    size = _Size(ex)
    ticked = False  # (a live backquote made: _live_ticks has to read the results)
    for p in parts:
        if type(p) is A.Brace:
            alts: list[tuple[A.Part, ...]] = []
            for alt in p.alts:
                alts.extend(ex._braces(alt))
            if top and not ticked:
                ticked = any(q is _TICK for alt in alts for q in alt)
            ex.env.charge_brace(len(results) * len(alts))
            size.grow(len(results) * len(alts), size.parts * len(alts) + len(results) * sum(map(len, alts)))
            results = [r + list(a) for r in results for a in alts]
        elif type(p) is A.BraceSeq:
            # the size is charged before any string is built
            ex.env.charge_brace(len(results) * _sequence_len(p))
            items = _sequence(p)
            if items is None:
                text = brace_text(p)
                size.grow(len(results), size.parts + len(results))
                for r in results:
                    r.append(A.Lit(text))
                continue
            ex.env.charge_brace(len(results) * len(items))
            ticked = ticked or "`" in items
            size.grow(len(results) * len(items), (size.parts + len(results)) * len(items))
            results = [
                r + [(_TICK if item == "`" else A.Lit(item)) if item else A.SQ("")]
                for r in results
                for item in items
            ]
        else:
            size.grow(len(results), size.parts + len(results))
            for r in results:
                r.append(p)
    if top:
        # tilde expansion follows brace expansion: `{a,~}/x` gives `~/x` a home
        if ticked:
            for r in results:
                _live_ticks(r)
        return [_tilde_after_brace(_glue_names(r)) for r in results]
    return [tuple(r) for r in results]


def _live_ticks(parts: list[A.Part]) -> None:
    """A result holding a backquote that a letter sequence made, as bash reads the word's text
    (subst.c's expand_word_internal): last in the word it is a literal; with text after it and no
    closing backquote, `bad substitution: no closing`, which discards the command line as an
    arithmetic error does. (A closing one could only be a later sequence's, and the results come
    in an order that meets a backquote followed by another item first: that one fails.)"""
    for k, p in enumerate(parts):
        if p is _TICK and k + 1 < len(parts):
            rest = "".join(_source(q) for q in parts[k + 1 :])
            raise ExpansionError(f'bad substitution: no closing "`" in `{rest}', 1, arith=True)


def _source(p: A.Part) -> str:
    """A part as its text reads in the word (for a message)."""
    if type(p) is A.Lit:
        return p.text
    if type(p) is A.Esc:
        return "\\" + p.text
    if type(p) is A.SQ:
        return "'" + p.text + "'"
    return str(getattr(p, "text", ""))


class _Size:
    """What one brace expansion's results hold, charged before they are made: a word's parts
    are copied into every result, so `{a,b}...{a,b}$x$x...` (16 braces, 2,000 parameters) made
    131 million references from 65,536 results (780 MB, and 15 s past a 10 s deadline, under
    max_memory 64 MiB). The references are charged to max_memory with the word's other transient
    lists (Expander.hold_fields: given back at the next command) and as work (copying them takes
    time), once they are enough to count."""

    __slots__ = ("ex", "results", "parts", "pending")

    def __init__(self, ex: Expander) -> None:
        self.ex = ex
        self.results = 1
        self.parts = 0  # part references over all results
        self.pending = 0  # references grown by and not charged yet

    def grow(self, results: int, parts: int) -> None:
        """The results are about to become `results` lists holding `parts` references in all."""
        more = parts - self.parts + (results - self.results) * RESULT_BYTES // PART_BYTES
        self.results = results
        self.parts = parts
        if more > 0:
            self.pending += more
            ex = self.ex
            if ex.hold_fields(self.pending, PART_BYTES) and (rt := ex._rt) is not None:
                rt.budget.checkpoint(self.pending)
                self.pending = 0


def sequence_fields(ex: Expander, p: A.BraceSeq) -> list[str] | None:
    """The fields of a word that is one sequence expression and nothing else (`for i in
    {1..100000}`): its items themselves, charged as braces() charges them, when each is text that
    cannot glob or begin a tilde prefix (numbers never do); None: braces() and the fields of each
    result, the general way (`set +B`, `{Z..a}` with its `[`, `{~..~}`, a sequence bash leaves as
    text)."""
    if not ex.env.option("braceexpand"):
        return None
    size = _sequence_len(p)
    ex.env.charge_brace(size)
    items = _sequence(p)
    if items is None or (not _numeric(p) and any(_active(t) for t in items)):
        return None
    ex.env.charge_brace(len(items))
    return items


def _active(item: str) -> bool:
    """A letter sequence's item that the word's later expansions would act on."""
    return item[:1] == "~" or "*" in item or "?" in item or "[" in item or "(" in item


def brace_text(p: A.Part) -> str:
    if isinstance(p, A.BraceSeq):
        return "{" + p.start + ".." + p.end + (".." + p.step if p.step else "") + "}"
    return ""


@cache
def _name_tail() -> re.Pattern[str]:
    """The name characters a parameter's name continues with: compiled on first use, not by every start-up."""
    return re.compile("[A-Za-z0-9_]*")  # our own fixed pattern


def _glue_names(parts: list[A.Part]) -> list[A.Part]:
    """`$var{x,y}` is `$varx $vary`: bash expands braces in the word's text before parameters, so
    a `$name` goes on into the letters a brace put after it (the lexer ended the name there)."""
    out: list[A.Part] = []
    for p in parts:
        if type(p) is A.Lit and out:
            q = out[-1]
            if (
                type(q) is A.Param
                and not q.braced
                and not q.prefix
                and q.sub is None
                and q.op is None
                and (q.name[:1].isalpha() or q.name[:1] == "_")
            ):
                m = _name_tail().match(p.text)
                tail = m.end() if m is not None else 0
                if tail:
                    out[-1] = A.Param(q.name + p.text[:tail])
                    if tail == len(p.text):
                        continue
                    p = A.Lit(p.text[tail:])
        out.append(p)
    return out


def _tilde_after_brace(parts: list[A.Part]) -> tuple[A.Part, ...]:
    if not parts or type(parts[0]) is not A.Lit or not parts[0].text.startswith("~"):
        return tuple(parts)
    k = 1
    while k < len(parts) and type(parts[k]) is A.Lit:
        k += 1
    lead = A.Lit("".join(p.text for p in parts[:k]))  # type: ignore[union-attr]
    return tuple(tilde_prefix([lead, *parts[k:]]))


def _numeric(p: A.BraceSeq) -> bool:
    """{1..10}, {-05..+5..2}: a sequence of numbers (else of characters, or no sequence)."""
    return p.start.lstrip("+-").isdigit() and p.end.lstrip("+-").isdigit()


def _sequence_len(p: A.BraceSeq) -> int:
    step = abs(int(p.step)) if p.step else 1
    step = step or 1
    if _numeric(p):
        return abs(int(p.end) - int(p.start)) // step + 1
    if len(p.start) == 1 and len(p.end) == 1:
        return abs(ord(p.end) - ord(p.start)) // step + 1
    return 1


def _sequence(p: A.BraceSeq) -> list[str] | None:
    step = int(p.step) if p.step else 1
    if _numeric(p):
        a, b = int(p.start), int(p.end)
        step = abs(step) or 1
        width = 0
        for s in (p.start, p.end):
            digits = s.lstrip("+-")
            if len(digits) > 1 and digits[0] == "0":
                width = max(width, len(s))
        if a <= b:
            rng = range(a, b + 1, step)
        else:
            rng = range(a, b - 1, -step)
        if width:
            return [(f"-{str(-v).zfill(width - 1)}" if v < 0 else str(v).zfill(width)) for v in rng]
        return [str(v) for v in rng]
    if len(p.start) == 1 and len(p.end) == 1:
        a, b = ord(p.start), ord(p.end)
        step = abs(step) or 1
        rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        # bash yields an empty word for the backslash between Z and a
        return ["" if v == 92 else chr(v) for v in rng]
    return None
