"""Brace expansion structure, found at parse time over a word's parts.

Only unquoted literal characters take part; quoted parts and expansions are
opaque atoms that travel inside the alternatives. `{a,b}` becomes `Brace`,
`{1..5..2}` becomes `BraceSeq`; anything else stays literal, as in bash.
"""

from __future__ import annotations

import re

from . import ast as A

Atom = str | A.Part  # a one-character str is an unquoted literal character

_SEQ_INT = re.compile(r"([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?")
_SEQ_CHAR = re.compile(r"([^\\])\.\.([^\\])(?:\.\.([-+]?\d+))?")


def brace_parts(parts: list[A.Part]) -> list[A.Part]:
    atoms: list[Atom] = []
    for p in parts:
        if isinstance(p, A.Lit):
            atoms.extend(p.text)
        else:
            atoms.append(p)
    out, _ = _parse(atoms, 0, top=True)
    return out


def _merge(items: list[Atom | A.Part]) -> list[A.Part]:
    out: list[A.Part] = []
    buf: list[str] = []
    for it in items:
        if isinstance(it, str):
            buf.append(it)
        else:
            if buf:
                out.append(A.Lit("".join(buf)))
                buf = []
            out.append(it)
    if buf:
        out.append(A.Lit("".join(buf)))
    return out


def _pairs(atoms: list[Atom]) -> tuple[dict[int, int], dict[int, list[int]]]:
    """In one pass: each `{`'s matching `}` and its top-level commas (unmatched
    `{` have no entry), so deep nesting stays linear."""
    close_of: dict[int, int] = {}
    commas_of: dict[int, list[int]] = {}
    stack: list[int] = []
    for j, a in enumerate(atoms):
        if a == "{":
            stack.append(j)
            commas_of[j] = []
        elif a == "}":
            if stack:
                close_of[stack.pop()] = j
        elif a == "," and stack:
            commas_of[stack[-1]].append(j)
    return close_of, commas_of


def _parse(atoms: list[Atom], i: int, top: bool) -> tuple[list[A.Part], int]:
    items: list[Atom | A.Part] = []
    n = len(atoms)
    close_of, commas_of = _pairs(atoms)
    while i < n:
        a = atoms[i]
        if a == "{" and not (items and items[-1] == "$"):
            close = close_of.get(i, -1)
            commas = commas_of.get(i, [])
            if close < 0:
                items.append(a)
                i += 1
                continue
            if commas:
                alts: list[tuple[A.Part, ...]] = []
                bounds = [i, *commas, close]
                for k in range(len(bounds) - 1):
                    inner, _ = _parse(atoms[bounds[k] + 1 : bounds[k + 1]], 0, top=False)
                    alts.append(tuple(inner))
                items.append(A.Brace(tuple(alts)))
                i = close + 1
                continue
            inner_atoms = atoms[i + 1 : close] if close - i <= 256 else []  # a sequence is short text
            if inner_atoms and all(isinstance(x, str) for x in inner_atoms):
                text = "".join(inner_atoms)  # type: ignore[arg-type]
                seq = _sequence(text)
                if seq is not None:
                    items.append(seq)
                    i = close + 1
                    continue
            items.append(a)
            i += 1
            continue
        items.append(a)
        i += 1
    return _merge(items), i


def _sequence(text: str) -> A.BraceSeq | None:
    m = _SEQ_INT.fullmatch(text)
    if m:
        return A.BraceSeq(m.group(1), m.group(2), m.group(3))
    m = _SEQ_CHAR.fullmatch(text)
    if m and m.group(1).isascii() and m.group(2).isascii() and m.group(1).isalpha() and m.group(2).isalpha():
        return A.BraceSeq(m.group(1), m.group(2), m.group(3))
    return None
