"""tsort (GNU's algorithm, so the order matches) and factor."""

from __future__ import annotations

import errno
import math
import random

from ...stdio.streams import StreamError
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..options import CommandSpec
from ..record import Effects, declare
from ..textbasic.common import (
    Out,
    decode,
    encode,
    quote,
    quotef,
    read_input_held,
    usage_fail,
)

TSORT_SPEC = CommandSpec(
    name="tsort",
    usage="[OPTION] [FILE]",
    summary="Write totally ordered list consistent with the partial ordering in FILE.",
)


class _Item:
    __slots__ = ("count", "done", "name", "qlink", "top")

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0
        self.top: list[_Item] = []  # successors, most recent first
        self.qlink: _Item | None = None
        self.done = False


@declare("tsort", spec=TSORT_SPEC, effects=Effects.READS)
def cmd_tsort(ctx: Ctx) -> int:
    _opts, files = ctx.parse(TSORT_SPEC)
    if len(files) > 1:
        raise usage_fail(ctx, f"extra operand {quote(ctx, files[1])}")
    name = files[0] if files else "-"
    with ctx.hold_memory() as mem:
        try:
            data = read_input_held(ctx, name, mem)
        except (FsError, StreamError) as e:
            if e.errno != errno.EISDIR:
                shown = "standard input" if name == "-" else quotef(name)
                ctx.error(f"{shown}: {strerror(e.errno or 5)}")
                return 1
            data = b""  # (GNU's token reader takes a failed read for the end: a directory is empty)
        # the text, then per token (at most one per separator) its bytes and
        # str objects, list slots and its share of a graph node
        seps = data.count(b" ") + data.count(b"\n") + data.count(b"\t") + 1
        mem.charge(2 * len(data) + 240 * seps)
        return _tsort(ctx, name, data)


def _tsort(ctx: Ctx, name: str, data: bytes) -> int:
    tokens = [decode(t) for t in data.split()]
    items: dict[str, _Item] = {}

    def item(s: str) -> _Item:
        it = items.get(s)
        if it is None:
            it = items[s] = _Item(s)
        return it

    for i in range(0, len(tokens) - 1, 2):
        j, k = item(tokens[i]), item(tokens[i + 1])
        if j is not k:
            k.count += 1
            j.top.insert(0, k)
    if len(tokens) % 2:
        item(tokens[-1])
        ctx.error(f"{quotef(name)}: input contains an odd number of tokens")
        return 1
    order = [items[k] for k in sorted(items, key=lambda s: encode(s))]
    out = Out(ctx.stdout)
    remaining = len(order)
    status = 0
    while remaining > 0:
        head: _Item | None = None
        tail: _Item | None = None
        for it in order:
            if it.count == 0 and not it.done:
                if head is None:
                    head = it
                else:
                    assert tail is not None
                    tail.qlink = it
                tail = it
        while head is not None:
            ctx.checkpoint()
            out.write(encode(head.name) + b"\n")
            head.done = True
            remaining -= 1
            for suc in head.top:
                suc.count -= 1
                if suc.count == 0:
                    assert tail is not None
                    tail.qlink = suc
                    tail = suc
            head = head.qlink
        if remaining > 0:
            out.flush()
            ctx.error(f"{quotef(name)}: input contains a loop:")
            status = 1
            _break_loop(ctx, order)
    out.flush()
    return status


def _break_loop(ctx: Ctx, order: list[_Item]) -> None:
    """GNU's detect_loop: report one cycle and drop one of its relations."""
    for it in order:
        if not it.done:
            it.qlink = None
    loop: _Item | None = None
    while True:
        found = False
        for k in order:
            if k.done or k.count <= 0:
                continue
            if loop is None:
                loop = k
                continue
            for idx, suc in enumerate(k.top):
                if suc is not loop:
                    continue
                if k.qlink is not None:
                    while loop is not None:
                        nxt: _Item | None = loop.qlink
                        ctx.error(loop.name)
                        if loop is k:
                            suc.count -= 1
                            del k.top[idx]
                            break
                        loop.qlink = None
                        loop = nxt
                    while loop is not None:
                        nxt = loop.qlink
                        loop.qlink = None
                        loop = nxt
                    found = True
                else:
                    k.qlink = loop
                    loop = k
                break
            if found:
                break
        if found or loop is None:
            return


# ------------------------------------------------------------------ factor

FACTOR_SPEC = CommandSpec(
    name="factor",
    usage="[NUMBER]...",
    summary="Print the prime factors of each specified integer NUMBER.",
)

_SMALL = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    for p in _SMALL:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in _SMALL:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _rho(ctx: Ctx, n: int, rng: random.Random) -> int:
    if n % 2 == 0:
        return 2
    while True:
        y, c, m = rng.randrange(1, n), rng.randrange(1, n), 128
        g = r = q = 1
        x = ys = 0
        while g == 1:
            x = y
            for _ in range(r):
                y = (y * y + c) % n
            k = 0
            while k < r and g == 1:
                ys = y
                for _ in range(min(m, r - k)):
                    y = (y * y + c) % n
                    q = q * abs(x - y) % n
                g = math.gcd(q, n)
                k += m
            r *= 2
            ctx.checkpoint(r)
        if g == n:
            g = 1
            while g == 1:
                ys = (ys * ys + c) % n
                g = math.gcd(abs(x - ys), n)
        if g != n:
            return g


def factorize(ctx: Ctx, n: int) -> list[int]:
    out: list[int] = []
    if n < 2:
        return out
    for p in (2, 3, 5):
        while n % p == 0:
            out.append(p)
            n //= p
    f = 7
    while f * f <= n and f < 10000:
        while n % f == 0:
            out.append(f)
            n //= f
        f += 2
    rng = random.Random(n)
    stack = [n] if n > 1 else []
    while stack:
        m = stack.pop()
        if _is_prime(m):
            out.append(m)
            continue
        d = _rho(ctx, m, rng)
        stack += [d, m // d]
    return sorted(out)


@declare("factor", spec=FACTOR_SPEC, effects=Effects.NONE)
def cmd_factor(ctx: Ctx) -> int:
    _opts, numbers = ctx.parse(FACTOR_SPEC)
    out = Out(ctx.stdout)
    status = 0
    exps = False  # --exponents (-h) arrived in coreutils 9.2

    def one(text: str) -> None:
        nonlocal status
        t = text.strip()
        if t.startswith("+"):
            t = t[1:]
        if not t.isdigit() or not t.isascii():
            out.flush()
            ctx.error(f"{quote(ctx, text)} is not a valid positive integer")
            status = 1
            return
        n = int(t)
        fs = factorize(ctx, n)
        if exps:
            parts = []
            for p in sorted(set(fs)):
                e = fs.count(p)
                parts.append(f"{p}^{e}" if e > 1 else str(p))
        else:
            parts = [str(p) for p in fs]
        out.write(encode(f"{n}:" + "".join(" " + p for p in parts) + "\n"))

    if numbers:
        for text in numbers:
            one(text)
    else:
        try:
            for chunk in _tokens(ctx):
                one(chunk)
        except (FsError, StreamError):
            pass  # (GNU's token reader takes a failed read for the end: `factor < dir`, `<&-`)
    out.flush()
    return status


def _tokens(ctx: Ctx) -> list[str]:
    data = ctx.read_all(ctx.stdin)
    return [decode(t) for t in data.split()]
