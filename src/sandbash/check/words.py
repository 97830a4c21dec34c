"""Static word expansion for the check (check_walk.py): literals, quotes, `~`, braces and brace
sequences give their words; anything else (variables, substitutions, globs) is known only at run
time. Also the command lists a word holds (`$(...)`, `<(...)`, inside `${x:-...}`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..expand.pattern import has_glob
from ..syntax import ast as A
from .models import FOUND

MAX_BRACE = 1000


# ------------------------------------------------------------ words


@dataclass
class WordValue:
    fields: list[str] | None  # None: known only at run time
    kind: str = ""  # why not: glob | variable | substitution | tilde
    glob_dir: str | None = None  # a glob: the directory the shell lists (its matches are FOUND + dir)


def glob_dir(pattern: str) -> str | None:
    """The directory the shell lists to expand a glob (relative ones: "."); None when the
    pattern climbs out of it again (`/data/*/../..`)."""
    marks = [i for i in (pattern.find(c) for c in "*?[") if i >= 0]
    first = min(marks) if marks else len(pattern)
    head = pattern[:first]
    if ".." in pattern[first:].split("/"):
        return None
    return head.rsplit("/", 1)[0] or "/" if "/" in head else "."


class Words:
    """Static word expansion: literals, quotes, `~`, braces; anything else is run-time."""

    def __init__(self, home: str | None) -> None:
        self.home = home
        self.bound: dict[str, str] = {}  # loop variables over glob matches: name -> FOUND + dir
        # values nothing else in the script can change (check/known.py): assignments passed, environment
        self.known: dict[str, str] = {}
        self.unquoted = False  # unquoted uses may be resolved too (IFS is never written)

    def value(self, w: A.Word) -> WordValue:
        parts = w.parts
        if len(parts) == 1 and isinstance(parts[0], A.DQ) and len(parts[0].parts) == 1:
            parts = parts[0].parts
        if len(parts) == 1 and isinstance(parts[0], A.Param) and parts[0].name in self.bound:
            p = parts[0]
            if p.op is None and p.sub is None and not p.prefix:
                return WordValue([self.bound[p.name]], "glob")
        pieces: list[list[str]] = [[""]]
        glob = False
        for part in w.parts:
            if isinstance(part, A.Lit) and has_glob(part.text):
                glob = True
                pieces.append([part.text])
                continue
            alts, why = self._part(part, top=True)
            if alts is None:
                return WordValue(None, "glob" if glob else why)
            pieces.append(alts)
        out = [""]
        for alts in pieces:
            out = [a + b for a in out for b in alts]
            if len(out) > MAX_BRACE:
                return WordValue(None, "brace")
        if glob:
            if len(out) != 1 or "\0" in out[0]:
                return WordValue(None, "glob")
            directory = glob_dir(out[0])
            if directory is None:
                return WordValue(None, "glob")
            return WordValue([FOUND + directory], "glob", directory)
        return WordValue(out, "")

    def _part(self, part: A.Part, top: bool) -> tuple[list[str] | None, str]:
        if isinstance(part, A.Lit):
            if top and has_glob(part.text):
                return None, "glob"
            return [part.text], ""
        if isinstance(part, A.Esc | A.SQ):
            return [part.text], ""
        if isinstance(part, A.DQ):
            text = ""
            for p in part.parts:
                alts, why = self._part(p, top=False)
                if alts is None or len(alts) != 1:
                    return None, why or "variable"
                text += alts[0]
            return [text], ""
        if isinstance(part, A.Tilde):
            if part.user == "" and self.home:
                return [self.home], ""
            return None, "tilde"
        if isinstance(part, A.Brace):
            out: list[str] = []
            for alt in part.alts:
                sub = [""]
                for p in alt:
                    alts, why = self._part(p, top)
                    if alts is None:
                        return None, why
                    sub = [a + b for a in sub for b in alts]
                out.extend(sub)
            return out, ""
        if isinstance(part, A.BraceSeq):
            seq = _brace_seq(part)
            return (seq, "") if seq is not None else (None, "brace")
        if isinstance(part, A.ProcSub):
            return ["/dev/fd/63"], ""
        if isinstance(part, A.AssignWord):
            return None, "variable"
        if isinstance(part, A.Param):
            return self._known(part, top)
        return None, "substitution" if isinstance(part, A.CmdSub | A.ArithSub) else "glob"

    def _known(self, p: A.Param, top: bool) -> tuple[list[str] | None, str]:
        """$NAME / ${NAME} with a value the check knows; unquoted only when it cannot split or glob."""
        value = self.known.get(p.name)
        if value is None or p.op is not None or p.sub is not None or p.prefix or p.names_suffix:
            return None, "variable"
        if top and (not self.unquoted or not value or any(c in value for c in " \t\n*?[")):
            return None, "variable"
        return [value], ""


def _brace_seq(part: A.BraceSeq) -> list[str] | None:
    try:
        step = abs(int(part.step)) if part.step else 1
        a, b = int(part.start), int(part.end)
    except ValueError:
        if len(part.start) == 1 and len(part.end) == 1 and not part.step:
            lo, hi = ord(part.start), ord(part.end)
            rng = range(lo, hi + 1) if lo <= hi else range(lo, hi - 1, -1)
            return [chr(c) for c in rng] if len(rng) <= MAX_BRACE else None
        return None
    step = step or 1
    rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
    if len(rng) > MAX_BRACE:
        return None
    width = (
        max(len(part.start), len(part.end))
        if part.start.lstrip("-").startswith("0") or part.end.lstrip("-").startswith("0")
        else 0
    )
    return [str(n).zfill(width) if width else str(n) for n in rng]


# ------------------------------------------------------------ nested bodies in words


def word_bodies(w: A.Word | None) -> Iterator[tuple[A.CommandList, str]]:
    """Command lists inside a word: `$(...)`, backquotes, `<(...)`, also inside `${x:-$(...)}`."""
    if w is None:
        return
    yield from _part_bodies(w.parts)


def _part_bodies(parts: tuple[A.Part, ...]) -> Iterator[tuple[A.CommandList, str]]:
    for p in parts:
        if isinstance(p, A.CmdSub):
            yield p.body, "$(...)"
        elif isinstance(p, A.ProcSub):
            yield p.body, p.direction + "(...)"
        elif isinstance(p, A.DQ):
            yield from _part_bodies(p.parts)
        elif isinstance(p, A.Brace | A.ExtGlob):
            for alt in p.alts:
                yield from _part_bodies(alt)
        elif isinstance(p, A.ArithSub):
            yield from word_bodies(p.word)
        elif isinstance(p, A.Param):
            if p.op is not None:
                yield from word_bodies(p.op.arg)
                yield from word_bodies(getattr(p.op, "arg2", None))
            yield from word_bodies(p.subscript.arith if p.subscript is not None else None)
        elif isinstance(p, A.AssignWord):
            yield from assign_bodies(p.assign)


def assign_bodies(a: A.Assign) -> Iterator[tuple[A.CommandList, str]]:
    yield from word_bodies(a.value)
    for item in a.array or ():
        yield from word_bodies(item.key)
        yield from word_bodies(item.value)


def has_indirection(w: A.Word) -> bool:
    """`${!x}`: the value of x names another variable, whose subscript can run commands."""

    def scan(parts: tuple[A.Part, ...]) -> bool:
        for p in parts:
            if isinstance(p, A.Param) and p.prefix == "!" and not p.names_suffix and p.sub not in ("@", "*"):
                return True
            if isinstance(p, A.DQ) and scan(p.parts):
                return True
        return False

    return scan(w.parts)
