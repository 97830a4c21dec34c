"""diff's RCS output (-n) and its group and line formats (-D NAME, --GTYPE-group-format,
--LTYPE-line-format), as GNU diffutils 3.8 writes them (ifdef.c, normal.c's RCS twin)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .engine import Hunk

OLD, NEW, UNCHANGED, CHANGED = "old", "new", "unchanged", "changed"


def rcs(a: Sequence[bytes], b: Sequence[bytes], hunks: list[Hunk]) -> list[bytes]:
    """`dFIRST COUNT` for the lines deleted, `aAFTER COUNT` and the lines added (raw: a last line
    without its newline stays without one, no marker)."""
    out: list[bytes] = []
    for h in hunks:
        if h.a1 > h.a0:
            out.append(b"d%d %d\n" % (h.a0 + 1, h.a1 - h.a0))
        if h.b1 > h.b0:
            out.append(b"a%d %d\n" % (h.a1, h.b1 - h.b0))
            out.extend(b[h.b0 : h.b1])
    return out


def ifdef_formats(name: str) -> dict[str, str]:
    """The group formats -D NAME stands for."""
    return {
        UNCHANGED: "%=",
        OLD: f"#ifndef {name}\n%<#endif /* ! {name} */\n",
        NEW: f"#ifdef {name}\n%>#endif /* {name} */\n",
        CHANGED: f"#ifndef {name}\n%<#else /* {name} */\n%>#endif /* {name} */\n",
    }


def complete_formats(groups: dict[str, str], lines: dict[str, str]) -> None:
    """GNU's defaults for the formats not given: an old or new group is the changed group's
    format when that was given, and a changed group is the old one followed by the new one."""
    for kind in (OLD, NEW, UNCHANGED):
        lines.setdefault(kind, "%l\n")
    groups.setdefault(OLD, groups.get(CHANGED, "%<"))
    groups.setdefault(NEW, groups.get(CHANGED, "%>"))
    groups.setdefault(UNCHANGED, "%=")
    groups.setdefault(CHANGED, groups[OLD] + groups[NEW])


class _Group:
    """One group: old lines [a0, a1) and new lines [b0, b1)."""

    __slots__ = ("a", "b", "a0", "a1", "b0", "b1", "lines", "tabs")

    def __init__(
        self,
        a: Sequence[bytes],
        b: Sequence[bytes],
        span: tuple[int, int, int, int],
        lines: dict[str, str],
        tabs: int,
    ) -> None:
        self.a, self.b = a, b
        self.a0, self.a1, self.b0, self.b1 = span
        self.lines = lines
        self.tabs = tabs  # -t: the tab size the lines' tabs are expanded to (0: kept)

    def letter(self, c: str) -> int | None:
        """The value of a line-number letter: e f l m n of the old file, E F L M N of the new."""
        lo, hi = (self.a0, self.a1) if c in "eflmn" else (self.b0, self.b1)
        return {"e": lo, "f": lo + 1, "l": hi, "m": hi + 1, "n": hi - lo}.get(c.lower())


def ifdef(
    a: Sequence[bytes],
    b: Sequence[bytes],
    hunks: list[Hunk],
    groups: dict[str, str],
    lines: dict[str, str],
    tabs: int = 0,
) -> list[bytes]:
    """Every group of lines, changed or not, through its group format."""
    out: list[bytes] = []
    i = j = 0
    for h in hunks:
        if i < h.a0 or j < h.b0:
            _group(groups[UNCHANGED], _Group(a, b, (i, h.a0, j, h.b0), lines, tabs), out)
        kind = CHANGED if h.a1 > h.a0 and h.b1 > h.b0 else (OLD if h.a1 > h.a0 else NEW)
        _group(groups[kind], _Group(a, b, (h.a0, h.a1, h.b0, h.b1), lines, tabs), out)
        i, j = h.a1, h.b1
    if i < len(a) or j < len(b):
        _group(groups[UNCHANGED], _Group(a, b, (i, len(a), j, len(b)), lines, tabs), out)
    return out


def _group(fmt: str, g: _Group, out: list[bytes] | None, pos: int = 0, end: str = "") -> int:
    """Write `fmt` from `pos` up to the character `end` (or its end) for group `g` into `out`
    (None: only scanned, the untaken branch of a conditional); returns where it stopped."""
    n = len(fmt)
    while pos < n and fmt[pos] != end:
        c = fmt[pos]
        pos += 1
        if c != "%" or pos >= n:
            if out is not None:
                out.append(c.encode("utf-8", "surrogateescape"))
            continue
        d = fmt[pos]
        if d in "<=>":
            pos += 1
            if out is not None:
                _lines(g, d, out)
            continue
        if d == "%":
            pos += 1
            if out is not None:
                out.append(b"%")
            continue
        if d == "(":
            after = _conditional(fmt, pos + 1, g, out)
            if after is not None:
                pos = after
                continue
        else:
            after = _printf_spec(fmt, pos, g.letter, out)
            if after is not None:
                pos = after
                continue
        if out is not None:  # (a directive GNU cannot read is written as it stands)
            out.append(b"%")
    return pos


def _conditional(fmt: str, pos: int, g: _Group, out: list[bytes] | None) -> int | None:
    """`%(A=B?THEN:ELSE)` from after its `(`: where it ends, or None when it is malformed."""
    values: list[int] = []
    for sep in "=?":
        k = pos
        while k < len(fmt) and fmt[k].isdigit():
            k += 1
        if k > pos:
            values.append(int(fmt[pos:k]))
        else:
            value = g.letter(fmt[pos]) if pos < len(fmt) else None
            if value is None:
                return None
            values.append(value)
            k = pos + 1
        if k >= len(fmt) or fmt[k] != sep:
            return None
        pos = k + 1
    same = values[0] == values[1]
    pos = _group(fmt, g, out if same else None, pos, ":")
    if pos < len(fmt):
        pos = _group(fmt, g, None if same else out, pos + 1, ")")
        if pos < len(fmt):
            pos += 1
    return pos


def _lines(g: _Group, which: str, out: list[bytes]) -> None:
    """%< (old lines), %> (new lines), %= (the unchanged lines, as the old file has them)."""
    if which == ">":
        fmt, src, lo, hi = g.lines[NEW], g.b, g.b0, g.b1
    else:
        fmt, src, lo = g.lines[OLD if which == "<" else UNCHANGED], g.a, g.a0
        hi = g.a1
    for k in range(lo, hi):
        _line(fmt, src[k].expandtabs(g.tabs) if g.tabs else src[k], k + 1, out)


def _line(fmt: str, line: bytes, number: int, out: list[bytes]) -> None:
    """One line through a line format: %l (without its newline), %L (as it is), %%, %c'C' and
    the number directives of the letter n."""
    pos, n = 0, len(fmt)
    while pos < n:
        c = fmt[pos]
        pos += 1
        if c == "%" and pos < n:
            d = fmt[pos]
            if d in "lL%":
                pos += 1
                out.append(b"%" if d == "%" else (line[:-1] if d == "l" and line.endswith(b"\n") else line))
                continue
            after = _printf_spec(fmt, pos, lambda letter: number if letter == "n" else None, out)
            if after is not None:
                pos = after
                continue
        out.append(c.encode("utf-8", "surrogateescape"))


def _printf_spec(
    fmt: str, pos: int, letter: Callable[[str], int | None], out: list[bytes] | None
) -> int | None:
    """A `%[-'0]*[0-9]*(.[0-9]*)?` directive from after its `%`: `c'C'` / `c'\\OOO'` or one of
    d o x X with a line-number letter. Returns where it ends, or None when GNU cannot read it."""
    start, n = pos, len(fmt)
    while pos < n and fmt[pos] in "-'0":
        pos += 1
    while pos < n and fmt[pos].isdigit():
        pos += 1
    if pos < n and fmt[pos] == ".":
        pos += 1
        while pos < n and fmt[pos].isdigit():
            pos += 1
    if pos >= n:
        return None
    conv = fmt[pos]
    pos += 1
    if conv == "c":
        return _char_literal(fmt, pos, out)
    if conv not in "doxX" or pos >= n:
        return None
    value = letter(fmt[pos])
    if value is None:
        return None
    if out is not None:
        out.append(_c_format(fmt[start : pos - 1], conv, value).encode())
    return pos + 1


def _char_literal(fmt: str, pos: int, out: list[bytes] | None) -> int | None:
    """`'C'` or `'\\OOO'` (one to three octal digits) after %c."""
    n = len(fmt)
    if pos >= n or fmt[pos] != "'" or pos + 1 >= n:
        return None
    pos += 1
    if fmt[pos] == "'":
        return None
    if fmt[pos] != "\\":
        if pos + 1 >= n or fmt[pos + 1] != "'":
            return None
        if out is not None:
            out.append(fmt[pos].encode("utf-8", "surrogateescape"))
        return pos + 2
    k = pos + 1
    while k < n and fmt[k] != "'":
        if fmt[k] not in "01234567":
            return None
        k += 1
    if k >= n or not 1 <= k - pos - 1 <= 3:
        return None
    if out is not None:
        out.append(bytes([int(fmt[pos + 1 : k], 8) & 0xFF]))
    return k + 1


def _c_format(flags_width: str, conv: str, value: int) -> str:
    """printf's %d %o %x %X with the flags (- ' 0), width and precision given (' groups
    nothing in the C locale)."""
    left = "-" in flags_width.split(".")[0]
    body = flags_width.lstrip("-'0")
    zero = "0" in flags_width[: len(flags_width) - len(body)] and not left
    width_text, _, prec_text = body.partition(".")
    width = int(width_text) if width_text else 0
    digits = {"d": "%d", "o": "%o", "x": "%x", "X": "%X"}[conv] % abs(value)
    if "." in body:
        prec = int(prec_text) if prec_text else 0
        digits = digits.rjust(prec, "0") if prec else ("" if value == 0 else digits)
        zero = False
    text = ("-" if value < 0 else "") + digits
    if len(text) >= width:
        return text
    if left:
        return text.ljust(width)
    if zero:
        sign = "-" if value < 0 else ""
        return sign + digits.rjust(width - len(sign), "0")
    return text.rjust(width)
