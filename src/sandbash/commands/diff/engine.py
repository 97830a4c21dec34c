"""The line-difference algorithm of GNU diff (diffutils 3.8, analyze.c + gnulib diffseq.h).

GNU's output for a pair of files is deterministic; to print the same hunks we
follow its steps: identical prefix and suffix lines are set aside, lines are
mapped to equivalence classes, lines with no match in the other file are
discarded up front (discard_confusing_lines), the rest are compared with
Myers' divide-and-conquer middle-snake search (diag/compareseq, including the
"too expensive" cut-off), and runs of changes are slid to GNU's canonical
place (shift_boundaries)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

OFFSET_MAX = 1 << 62
SNAKE_LIMIT = 20


@dataclass
class Hunk:
    """A change: old lines [a0, a1) replaced by new lines [b0, b1) (0-based)."""

    a0: int
    a1: int
    b0: int
    b1: int


class _Ctx:
    __slots__ = ("fd", "bd", "xv", "yv", "too_expensive", "cx", "cy", "checkpoint")

    def __init__(
        self, xv: list[int], yv: list[int], too_expensive: int, checkpoint: Callable[[int], None]
    ) -> None:
        size = len(xv) + len(yv) + 3
        self.fd = [0] * (2 * size + 2)
        self.bd = [0] * (2 * size + 2)
        self.xv = xv
        self.yv = yv
        self.too_expensive = too_expensive
        self.cx = [False] * len(xv)
        self.cy = [False] * len(yv)
        self.checkpoint = checkpoint


def _diag(xoff: int, xlim: int, yoff: int, ylim: int, minimal: bool, c: _Ctx) -> tuple[int, int, bool, bool]:
    """Find the midpoint of the shortest edit script (GNU's diag)."""
    xv, yv = c.xv, c.yv
    base = len(yv) + 1  # offset so diagonal indexes are non-negative
    fd, bd = c.fd, c.bd
    dmin = xoff - ylim
    dmax = xlim - yoff
    fmid = xoff - yoff
    bmid = xlim - ylim
    fmin = fmax = fmid
    bmin = bmax = bmid
    odd = (fmid - bmid) & 1
    fd[base + fmid] = xoff
    bd[base + bmid] = xlim
    cost = 0
    while True:
        cost += 1
        c.checkpoint(fmax - fmin + bmax - bmin + 2)
        if fmin > dmin:
            fmin -= 1
            fd[base + fmin - 1] = -1
        else:
            fmin += 1
        if fmax < dmax:
            fmax += 1
            fd[base + fmax + 1] = -1
        else:
            fmax -= 1
        for d in range(fmax, fmin - 1, -2):
            tlo = fd[base + d - 1]
            thi = fd[base + d + 1]
            x = thi if tlo < thi else tlo + 1
            y = x - d
            while x < xlim and y < ylim and xv[x] == yv[y]:
                x += 1
                y += 1
            fd[base + d] = x
            if odd and bmin <= d <= bmax and bd[base + d] <= x:
                return x, y, True, True
        if bmin > dmin:
            bmin -= 1
            bd[base + bmin - 1] = OFFSET_MAX
        else:
            bmin += 1
        if bmax < dmax:
            bmax += 1
            bd[base + bmax + 1] = OFFSET_MAX
        else:
            bmax -= 1
        for d in range(bmax, bmin - 1, -2):
            tlo = bd[base + d - 1]
            thi = bd[base + d + 1]
            x = tlo if tlo < thi else thi - 1
            y = x - d
            while xoff < x and yoff < y and xv[x - 1] == yv[y - 1]:
                x -= 1
                y -= 1
            bd[base + d] = x
            if not odd and fmin <= d <= fmax and x <= fd[base + d]:
                return x, y, True, True
        if minimal:
            continue
        if cost >= c.too_expensive:
            fxybest = -1
            fxbest = 0
            for d in range(fmax, fmin - 1, -2):
                x = min(fd[base + d], xlim)
                y = x - d
                if ylim < y:
                    x = ylim + d
                    y = ylim
                if fxybest < x + y:
                    fxybest = x + y
                    fxbest = x
            bxybest = OFFSET_MAX
            bxbest = 0
            for d in range(bmax, bmin - 1, -2):
                x = max(xoff, bd[base + d])
                y = x - d
                if y < yoff:
                    x = yoff + d
                    y = yoff
                if x + y < bxybest:
                    bxybest = x + y
                    bxbest = x
            if (xlim + ylim) - bxybest < fxybest - (xoff + yoff):
                return fxbest, fxybest - fxbest, True, False
            return bxbest, bxybest - bxbest, False, True


def _compareseq(xoff: int, xlim: int, yoff: int, ylim: int, minimal: bool, c: _Ctx) -> None:
    # iterative over the right half, recursive over the left, to bound the stack
    stack = [(xoff, xlim, yoff, ylim, minimal)]
    xv, yv = c.xv, c.yv
    while stack:
        xoff, xlim, yoff, ylim, minimal = stack.pop()
        while xoff < xlim and yoff < ylim and xv[xoff] == yv[yoff]:
            xoff += 1
            yoff += 1
        while xoff < xlim and yoff < ylim and xv[xlim - 1] == yv[ylim - 1]:
            xlim -= 1
            ylim -= 1
        if xoff == xlim:
            for y in range(yoff, ylim):
                c.cy[y] = True
        elif yoff == ylim:
            for x in range(xoff, xlim):
                c.cx[x] = True
        else:
            xmid, ymid, lo_min, hi_min = _diag(xoff, xlim, yoff, ylim, minimal, c)
            stack.append((xmid, xlim, ymid, ylim, hi_min))
            stack.append((xoff, xmid, yoff, ymid, lo_min))


def _discard_confusing(
    eq: tuple[list[int], list[int]], minimal: bool
) -> tuple[list[list[int]], list[list[bool]]]:
    """GNU's discard_confusing_lines: (undiscarded index lists, discarded flags)."""
    counts: list[dict[int, int]] = [{}, {}]
    for f in (0, 1):
        cnt = counts[f]
        for v in eq[f]:
            cnt[v] = cnt.get(v, 0) + 1
    discarded: list[list[int]] = []
    for f in (0, 1):
        end = len(eq[f])
        other = counts[1 - f]
        many = 5
        tem = end // 64
        while True:
            tem >>= 2
            if tem <= 0:
                break
            many *= 2
        marks = [0] * end
        for i, v in enumerate(eq[f]):
            n = other.get(v, 0)
            if n == 0:
                marks[i] = 1
            elif n > many:
                marks[i] = 2
        discarded.append(marks)
    for f in (0, 1):
        d = discarded[f]
        end = len(d)
        i = 0
        while i < end:
            if d[i] == 2:
                d[i] = 0
            elif d[i] != 0:
                provisional = 0
                j = i
                while j < end:
                    if d[j] == 0:
                        break
                    if d[j] == 2:
                        provisional += 1
                    j += 1
                while j > i and d[j - 1] == 2:
                    j -= 1
                    d[j] = 0
                    provisional -= 1
                length = j - i
                if provisional * 4 > length:
                    while j > i:
                        j -= 1
                        if d[j] == 2:
                            d[j] = 0
                else:
                    minimum = 1
                    tem = length >> 2
                    while True:
                        tem >>= 2
                        if tem <= 0:
                            break
                        minimum <<= 1
                    minimum += 1
                    consec = 0
                    j = 0
                    while j < length:
                        if d[i + j] != 2:
                            consec = 0
                        else:
                            consec += 1
                            if minimum == consec:
                                j -= consec
                            elif minimum < consec:
                                d[i + j] = 0
                        j += 1
                    consec = 0
                    for j in range(length):
                        if j >= 8 and d[i + j] == 1:
                            break
                        if d[i + j] == 2:
                            consec = 0
                            d[i + j] = 0
                        elif d[i + j] == 0:
                            consec = 0
                        else:
                            consec += 1
                        if consec == 3:
                            break
                    i += length - 1
                    consec = 0
                    for j in range(length):
                        if j >= 8 and d[i - j] == 1:
                            break
                        if d[i - j] == 2:
                            consec = 0
                            d[i - j] = 0
                        elif d[i - j] == 0:
                            consec = 0
                        else:
                            consec += 1
                        if consec == 3:
                            break
            i += 1
    kept: list[list[int]] = [[], []]
    flags: list[list[bool]] = [[], []]
    for f in (0, 1):
        for i, mark in enumerate(discarded[f]):
            if minimal or mark == 0:
                kept[f].append(i)
                flags[f].append(False)
            else:
                flags[f].append(True)
    return kept, flags


def _shift_boundaries(eq: tuple[list[int], list[int]], changed: list[list[bool]]) -> None:
    """GNU's shift_boundaries on 1-padded arrays (a False sentinel at each end)."""
    for f in (0, 1):
        n = len(eq[f])
        ch = [False, *changed[f], False]
        oth = [False, *changed[1 - f], False]
        equivs = eq[f]
        i = 0
        j = 0
        while True:
            while i < n and not ch[i + 1]:
                while oth[j + 1]:
                    j += 1
                j += 1
                i += 1
            if i == n:
                break
            start = i
            i += 1
            while ch[i + 1]:
                i += 1
            while oth[j + 1]:
                j += 1
            while True:
                runlength = i - start
                while start and equivs[start - 1] == equivs[i - 1]:
                    start -= 1
                    ch[start + 1] = True
                    i -= 1
                    ch[i + 1] = False
                    while ch[start]:
                        start -= 1
                    j -= 1
                    while oth[j + 1]:
                        j -= 1
                corresponding = i if oth[j] else n
                while i != n and equivs[start] == equivs[i]:
                    ch[start + 1] = False
                    start += 1
                    ch[i + 1] = True
                    i += 1
                    while ch[i + 1]:
                        i += 1
                    j += 1
                    while oth[j + 1]:
                        j += 1
                        corresponding = i
                if runlength == i - start:
                    break
            while corresponding < i:
                start -= 1
                ch[start + 1] = True
                i -= 1
                ch[i + 1] = False
                j -= 1
                while oth[j + 1]:
                    j -= 1
        changed[f] = ch[1:-1]


def diff_lines(
    a: Sequence[bytes],
    b: Sequence[bytes],
    key: Callable[[bytes], bytes] | None = None,
    minimal: bool = False,
    checkpoint: Callable[[int], None] | None = None,
    horizon: int = 0,
) -> list[Hunk]:
    """The hunks GNU diff reports between line lists a and b (lines keep their newlines).

    `horizon`: lines of the identical prefix and suffix that still take part
    in the comparison (GNU keeps as many as the output context)."""
    check = checkpoint or (lambda n: None)
    ka = [key(x) for x in a] if key else list(a)
    kb = [key(x) for x in b] if key else list(b)
    # identical prefix and suffix (raw lines, like GNU's find_identical_ends)
    n, m = len(a), len(b)
    pre = 0
    while pre < n and pre < m and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < n - pre and suf < m - pre and a[n - 1 - suf] == b[m - 1 - suf]:
        suf += 1
    pre = max(pre - horizon, 0)
    suf = max(suf - horizon, 0)
    classes: dict[bytes, int] = {}
    ea = [classes.setdefault(x, len(classes) + 1) for x in ka[pre : n - suf]]
    eb = [classes.setdefault(x, len(classes) + 1) for x in kb[pre : m - suf]]
    check(len(ea) + len(eb) + 1)
    kept, flags = _discard_confusing((ea, eb), minimal)
    xv = [ea[i] for i in kept[0]]
    yv = [eb[i] for i in kept[1]]
    diags = len(xv) + len(yv) + 3
    too_expensive = 1
    while diags:
        too_expensive <<= 1
        diags >>= 2
    too_expensive = max(4096, too_expensive)
    c = _Ctx(xv, yv, too_expensive, check)
    _compareseq(0, len(xv), 0, len(yv), minimal, c)
    changed = [flags[0], flags[1]]
    for x, v in enumerate(c.cx):
        if v:
            changed[0][kept[0][x]] = True
    for y, v in enumerate(c.cy):
        if v:
            changed[1][kept[1][y]] = True
    _shift_boundaries((ea, eb), changed)
    return _script(changed, pre)


def _script(changed: list[list[bool]], pre: int) -> list[Hunk]:
    ca, cb = changed
    hunks: list[Hunk] = []
    i = j = 0
    n, m = len(ca), len(cb)
    while i < n or j < m:
        if (i < n and ca[i]) or (j < m and cb[j]):
            i0, j0 = i, j
            while i < n and ca[i]:
                i += 1
            while j < m and cb[j]:
                j += 1
            hunks.append(Hunk(i0 + pre, i + pre, j0 + pre, j + pre))
        else:
            i += 1
            j += 1
    return hunks
