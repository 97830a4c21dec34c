"""find's -printf directives and -ls lines."""

from __future__ import annotations

import math
from collections.abc import Callable

from ...vfs.base import NS, Stat
from ..fsutil import (
    blocks_512,
    find_type_char,
    group_name,
    ls_time,
    mode_string,
    to_datetime,
    user_name,
)
from .entry import Entry, State

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
_TIME_LETTERS = set("@HIklMprSTXZaAbBcdDhjmUwWxyY+gGVuCenstz")

# one compiled piece: a literal, or (directive, flags/width/precision text)
Piece = str | tuple[str, str]


class FormatError(Exception):
    pass


def compile_format(fmt: str, warn: Callable[[str], None]) -> list[Piece]:
    """Split a -printf format into literals and directives (escapes resolved).
    A `\\c` ends the output; it is kept as the piece ("\\c", "")."""
    pieces: list[Piece] = []
    lit: list[str] = []
    i = 0
    n = len(fmt)
    while i < n:
        c = fmt[i]
        if c == "\\":
            if i + 1 >= n:
                lit.append("\\")
                i += 1
                continue
            nxt = fmt[i + 1]
            if nxt in _ESCAPES:
                lit.append(_ESCAPES[nxt])
                i += 2
            elif nxt == "c":
                if lit:
                    pieces.append("".join(lit))
                    lit = []
                pieces.append(("\\c", ""))
                i += 2
            elif nxt in "01234567":
                j = i + 1
                while j < n and j < i + 4 and fmt[j] in "01234567":
                    j += 1
                lit.append(chr(int(fmt[i + 1 : j], 8)))
                i = j
            else:
                warn(f"warning: unrecognized escape `\\{nxt}'")
                lit.append("\\" + nxt)
                i += 2
            continue
        if c != "%":
            lit.append(c)
            i += 1
            continue
        j = i + 1
        while j < n and fmt[j] in "-+ #0":
            j += 1
        while j < n and fmt[j].isdigit():
            j += 1
        if j < n and fmt[j] == ".":
            j += 1
            while j < n and fmt[j].isdigit():
                j += 1
        if j >= n:
            raise FormatError("error: % at end of format string")
        d = fmt[j]
        spec = fmt[i + 1 : j]
        if d == "%":
            lit.append("%")
            i = j + 1
            continue
        if d in "ACTW" and j + 1 < n:
            if lit:
                pieces.append("".join(lit))
                lit = []
            pieces.append((d + fmt[j + 1], spec))
            i = j + 2
            continue
        if d in "ACTW":
            raise FormatError("error: % at end of format string")
        if d not in "abcdDfFgGhHiklmMnpPsStuUyYZ":
            warn(f"warning: unrecognized format directive `%{d}'")
            lit.append("%" + d)
            i = j + 1
            continue
        if lit:
            pieces.append("".join(lit))
            lit = []
        pieces.append((d, spec))
        i = j + 1
    if lit:
        pieces.append("".join(lit))
    return pieces


def _apply_spec(text: str, spec: str) -> str:
    """Width, precision and `-` of a directive (all values print as strings)."""
    if not spec:
        return text
    left = "-" in spec
    body = spec.lstrip("-+ #0")
    width, _, prec = body.partition(".")
    if prec or body.endswith("."):
        text = text[: int(prec or 0)]
    if width:
        w = int(width)
        text = text.ljust(w) if left else text.rjust(w)
    return text


def _frac_seconds(ns: int) -> str:
    # GNU prints nanoseconds followed by a 0: 10 fractional digits
    return f"{ns % NS:09d}0"


def format_time(t: int, letter: str, state: State) -> str:
    """One %Ak/%Ck/%Tk letter of a time in nanoseconds."""
    d = to_datetime(t // NS, state.tz)
    if letter == "@":
        return f"{t // NS}.{_frac_seconds(t)}"
    if letter == "S":
        return f"{d.second:02d}.{_frac_seconds(t)}"
    if letter == "T":
        return d.strftime("%H:%M:%S") + "." + _frac_seconds(t)
    if letter == "X":
        return d.strftime("%H:%M:%S") + "." + _frac_seconds(t)
    if letter == "+":
        return d.strftime("%Y-%m-%d+%H:%M:%S") + "." + _frac_seconds(t)
    if letter == "k":
        return f"{d.hour:2d}"
    if letter == "l":
        return f"{(d.hour % 12) or 12:2d}"
    if letter == "e":
        return f"{d.day:2d}"
    if letter == "Z":
        return d.tzname() or "UTC"
    if letter == "s":
        return str(t // NS)
    try:
        return d.strftime("%" + letter)
    except ValueError:
        return "%" + letter


def ctime_text(t: int, state: State) -> str:
    """%t, %a, %c: like ctime(3) with the fraction GNU find adds (t in nanoseconds)."""
    d = to_datetime(t // NS, state.tz)
    return d.strftime("%a %b ") + f"{d.day:2d} " + d.strftime("%H:%M:%S") + f".{_frac_seconds(t)} {d.year}"


def _sparseness(st: Stat) -> str:
    if st.size == 0:
        return "1"
    value = blocks_512(st) * 512 / st.size
    text = f"{value:g}"
    return text


def _base_name(path: str) -> str:
    """gnulib base_name: the last component, keeping its trailing slashes."""
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path else ""
    head = stripped.rsplit("/", 1)[-1]
    return head + path[len(stripped) :]


def directive(entry: Entry, d: str, state: State) -> str:
    ctx = state.ctx
    st = entry.stat(ctx)
    lst = entry.lst
    if d[0] in "ACTW" and len(d) == 2:
        t = {"A": st.atime_ns, "C": st.ctime_ns, "T": st.mtime_ns, "W": st.mtime_ns}[d[0]]
        return format_time(t, d[1], state)
    if d == "p":
        return entry.path
    if d == "f":
        return _base_name(entry.path)
    if d == "h":
        # everything before the last slash (GNU keeps "t" for the start "t/")
        cut = entry.path.rfind("/")
        if cut < 0:
            return "."
        return entry.path[:cut] or ("/" if entry.path != "/" else "")
    if d == "P":
        start = entry.start
        if entry.path == start:
            return ""
        rest = entry.path[len(start) :]
        return rest.lstrip("/") if not start.endswith("/") else rest
    if d == "H":
        return entry.start
    if d == "d":
        return str(entry.depth)
    if d == "s":
        return str(st.size)
    if d == "m":
        return f"{st.perm:o}"
    if d == "M":
        return mode_string(st.mode)
    if d == "u":
        return user_name(st.uid)
    if d == "g":
        return group_name(st.gid)
    if d == "U":
        return str(st.uid)
    if d == "G":
        return str(st.gid)
    if d == "n":
        return str(st.nlink)
    if d == "i":
        return str(st.ino)
    if d == "k":
        return str(math.ceil(blocks_512(st) / 2))
    if d == "b":
        return str(blocks_512(st))
    if d == "D":
        return str(st.dev)
    if d == "F":
        return "tmpfs"
    if d == "y":
        return find_type_char(lst.mode)
    if d == "Y":
        if lst.is_link:
            target = entry.target_stat(ctx)
            if target is None:
                return "N"
            return find_type_char(target.mode)
        return find_type_char(lst.mode)
    if d == "l":
        if lst.is_link:
            try:
                return ctx.fs.readlink(entry.path)
            except OSError:
                return ""
        return ""
    if d == "S":
        return _sparseness(st)
    if d in ("t", "a", "c"):
        t = {"t": st.mtime_ns, "a": st.atime_ns, "c": st.ctime_ns}[d]
        return ctime_text(t, state)
    if d == "Z":
        return ""
    return ""


def render(entry: Entry, pieces: list[Piece], state: State) -> str:
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        d, spec = piece
        if d == "\\c":
            break
        out.append(_apply_spec(directive(entry, d, state), spec))
    return "".join(out)


def ls_line(entry: Entry, state: State) -> str:
    """-ls: `ls -dils` style, with find's column widths."""
    ctx = state.ctx
    st = entry.stat(ctx)
    blocks = str(math.ceil(blocks_512(st) / 2))
    if st.is_chr or (st.mode & 0o170000) == 0o060000:
        size = f"{(st.rdev >> 8) & 0xFFF:3d}, {st.rdev & 0xFF:3d}"
    else:
        size = str(st.size)
    line = (
        f"{st.ino:9d} {blocks:>6} {mode_string(st.mode)} {st.nlink:3d} {user_name(st.uid):<8} "
        f"{group_name(st.gid):<8} {size:>8} {ls_time(st.mtime, state.now, state.tz)} {entry.path}"
    )
    if st.is_link:
        try:
            line += " -> " + ctx.fs.readlink(entry.path)
        except OSError:
            pass
    return line + "\n"
