"""diff's output formats: normal, unified, context, ed, side by side."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .engine import Hunk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

NO_NEWLINE = b"\\ No newline at end of file\n"


@dataclass
class Style:
    fmt: str = "normal"  # normal, unified, context, ed, rcs, side, ifdef
    context: int = 3
    width: int = 130
    expand_tabs: bool = False
    left_column: bool = False
    suppress_common: bool = False
    initial_tab: bool = False
    tabsize: int = 8
    groups: dict[str, str] = field(default_factory=dict)  # -D and the group formats, by group kind
    lines: dict[str, str] = field(default_factory=dict)  # the line formats, by line kind


def _line(prefix: bytes, line: bytes, out: list[bytes]) -> None:
    out.append(prefix + line)
    if not line.endswith(b"\n"):
        out.append(b"\n" + NO_NEWLINE)


def _range(a: int, b: int) -> bytes:
    """Normal/context ranges: 1-based first,last; a single or empty range prints the last."""
    return b"%d,%d" % (a, b) if a < b else b"%d" % b


def normal(a: Sequence[bytes], b: Sequence[bytes], hunks: list[Hunk], style: Style) -> list[bytes]:
    out: list[bytes] = []
    tab = b"\t" if style.initial_tab else b" "
    for h in hunks:
        dels, ins = h.a1 - h.a0, h.b1 - h.b0
        op = b"c" if dels and ins else (b"d" if dels else b"a")
        out.append(_range(h.a0 + 1, h.a1) + op + _range(h.b0 + 1, h.b1) + b"\n")
        for i in range(h.a0, h.a1):
            _line(b"<" + tab, a[i], out)
        if dels and ins:
            out.append(b"---\n")
        for j in range(h.b0, h.b1):
            _line(b">" + tab, b[j], out)
    return out


def group(hunks: list[Hunk], context: int) -> list[list[Hunk]]:
    """Changes closer than 2*context unchanged lines share a hunk."""
    groups: list[list[Hunk]] = []
    for h in hunks:
        if groups and h.a0 - groups[-1][-1].a1 <= 2 * context:
            groups[-1].append(h)
        else:
            groups.append([h])
    return groups


def _windows(hunks: list[Hunk], ctx: int, a_len: int) -> list[tuple[list[Hunk], int, int, int, int]]:
    """Each group of hunks (group) with the lines it shows: (hunks, a_lo, a_hi, b_lo, b_hi), the
    ranges of both files widened by `ctx` lines of context (unified and context formats)."""
    windows = []
    for grp in group(hunks, ctx):
        first, last = grp[0], grp[-1]
        a_lo = max(first.a0 - ctx, 0)
        a_hi = min(last.a1 + ctx, a_len)
        windows.append((grp, a_lo, a_hi, first.b0 - (first.a0 - a_lo), last.b1 + (a_hi - last.a1)))
    return windows


def _uni_range(start: int, count: int) -> bytes:
    if count == 1:
        return b"%d" % start
    if count == 0:
        return b"%d,0" % (start - 1)
    return b"%d,%d" % (start, count)


def unified(
    a: Sequence[bytes],
    b: Sequence[bytes],
    hunks: list[Hunk],
    style: Style,
    funcname: Callable[[int], bytes] | None = None,
) -> list[bytes]:
    out: list[bytes] = []
    ctx = style.context
    for grp, a_lo, a_hi, b_lo, b_hi in _windows(hunks, ctx, len(a)):
        header = (
            b"@@ -" + _uni_range(a_lo + 1, a_hi - a_lo) + b" +" + _uni_range(b_lo + 1, b_hi - b_lo) + b" @@"
        )
        if funcname is not None:
            header += funcname(grp[0].a0)
        out.append(header + b"\n")
        pos = a_lo
        for h in grp:
            for i in range(pos, h.a0):
                _line(b" ", a[i], out)
            for i in range(h.a0, h.a1):
                _line(b"-", a[i], out)
            for j in range(h.b0, h.b1):
                _line(b"+", b[j], out)
            pos = h.a1
        for i in range(pos, a_hi):
            _line(b" ", a[i], out)
    return out


def context(
    a: Sequence[bytes],
    b: Sequence[bytes],
    hunks: list[Hunk],
    style: Style,
    funcname: Callable[[int], bytes] | None = None,
) -> list[bytes]:
    out: list[bytes] = []
    ctx = style.context
    for grp, a_lo, a_hi, b_lo, b_hi in _windows(hunks, ctx, len(a)):
        out.append(b"***************" + (funcname(grp[0].a0) if funcname is not None else b"") + b"\n")
        out.append(b"*** " + _range(a_lo + 1, a_hi) + b" ****\n")
        if any(h.a1 > h.a0 for h in grp):
            pos = a_lo
            for h in grp:
                for i in range(pos, h.a0):
                    _line(b"  ", a[i], out)
                mark = b"! " if h.b1 > h.b0 else b"- "
                for i in range(h.a0, h.a1):
                    _line(mark, a[i], out)
                pos = h.a1
            for i in range(pos, a_hi):
                _line(b"  ", a[i], out)
        out.append(b"--- " + _range(b_lo + 1, b_hi) + b" ----\n")
        if any(h.b1 > h.b0 for h in grp):
            pos = b_lo
            for h in grp:
                for j in range(pos, h.b0):
                    _line(b"  ", b[j], out)
                mark = b"! " if h.a1 > h.a0 else b"+ "
                for j in range(h.b0, h.b1):
                    _line(mark, b[j], out)
                pos = h.b1
            for j in range(pos, b_hi):
                _line(b"  ", b[j], out)
    return out


def ed_script(a: Sequence[bytes], b: Sequence[bytes], hunks: list[Hunk], style: Style) -> list[bytes]:
    out: list[bytes] = []
    for h in reversed(hunks):
        dels, ins = h.a1 - h.a0, h.b1 - h.b0
        op = b"c" if dels and ins else (b"d" if dels else b"a")
        rng = _range(h.a0 + 1, h.a1) if dels else b"%d" % h.a0
        out.append(rng + op + b"\n")
        if ins:
            for j in range(h.b0, h.b1):
                line = b[j] if b[j].endswith(b"\n") else b[j] + b"\n"
                out.append(b".." + line[1:] if line == b".\n" else line)
            out.append(b".\n")
    return out


# ------------------------------------------------------------------ side by side


class _Side:
    def __init__(self, style: Style) -> None:
        t = 1 if style.expand_tabs else style.tabsize
        w = style.width
        off = (w + t + 3) // (2 * t) * t
        self.hw = max(0, min(off - 3, w - off))
        self.c2o = off if self.hw else w
        self.style = style

    def _tab_from_to(self, frm: int, to: int, out: bytearray) -> int:
        ts = self.style.tabsize
        if not self.style.expand_tabs:
            tab = frm + ts - frm % ts
            while tab <= to:
                out += b"\t"
                frm = tab
                tab += ts
        while frm < to:
            out += b" "
            frm += 1
        return to

    def _half(self, line: bytes, out: bytearray) -> int:
        ts = self.style.tabsize
        bound = self.hw
        inpos = outpos = 0
        for c in line:
            if c == 10:
                break
            if c == 9:
                spaces = ts - inpos % ts
                if inpos == outpos:
                    stop = outpos + spaces
                    if self.style.expand_tabs:
                        stop = min(stop, bound)
                        out += b" " * max(stop - outpos, 0)
                        outpos = max(outpos, stop)
                    elif stop < bound:
                        outpos = stop
                        out += b"\t"
                inpos += spaces
            elif c == 13 or c == 8:
                if c == 8 and inpos > 0:
                    inpos -= 1
                    if outpos > 0 and inpos < outpos:
                        outpos -= 1
                        out += b"\b"
                elif c == 13:
                    inpos = outpos = 0
                    out += b"\r"
            else:
                if inpos < bound:
                    outpos = inpos + 1
                    out.append(c)
                inpos += 1
        return outpos

    def line(self, left: bytes | None, sep: bytes, right: bytes | None) -> bytes:
        out = bytearray()
        col = 0
        newline = False
        if left is not None:
            newline = left.endswith(b"\n")
            col = self._half(left, out)
        if sep != b" ":
            col = self._tab_from_to(col, (self.hw + self.c2o - 1) // 2, out) + 1
            if sep == b"|" and right is not None and newline != right.endswith(b"\n"):
                sep = b"/" if newline else b"\\"
            out += sep
        if right is not None:
            newline = newline or right.endswith(b"\n")
            if right[:1] != b"\n":
                col = self._tab_from_to(col, self.c2o, out)
                self._half(right, out)
        if newline:
            out += b"\n"
        return bytes(out)


def side_by_side(a: Sequence[bytes], b: Sequence[bytes], hunks: list[Hunk], style: Style) -> list[bytes]:
    s = _Side(style)
    out: list[bytes] = []
    common = b"(" if style.left_column else b" "
    i = j = 0

    def same(upto_a: int) -> None:
        nonlocal i, j
        while i < upto_a:
            if not style.suppress_common:
                out.append(s.line(a[i], common, None if style.left_column else b[j]))
            i += 1
            j += 1

    for h in hunks:
        same(h.a0)
        dels, ins = h.a1 - h.a0, h.b1 - h.b0
        for k in range(max(dels, ins)):
            left = a[h.a0 + k] if k < dels else None
            right = b[h.b0 + k] if k < ins else None
            sep = b"|" if left is not None and right is not None else (b"<" if left is not None else b">")
            out.append(s.line(left, sep, right))
        i, j = h.a1, h.b1
    same(len(a))
    return out
