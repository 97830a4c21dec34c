"""Built-in functions that need no run-time state beyond their arguments."""

from __future__ import annotations

import math

from ...textcache import TextCache
from .io import AwkFatal
from .regex import Regex
from .values import Input, Value, str2num

# ---------------------------------------------------------------- strings


def substr(s: str, start: float, length: float | None = None) -> str:
    """gawk's substr: the start is truncated and raised to 1 (the length is
    not reduced when it is), a length under 1 gives ""."""
    if length is not None:
        if not length >= 1:
            return ""
    if not start >= 1:
        start = 1.0
    if not s:
        return ""
    n = len(s)
    idx = int(start) - 1 if start < n + 1 else n
    if idx >= n:
        return ""
    if length is None:
        return s[idx:]
    count = int(length) if length < n + 1 else n
    return s[idx : idx + count]


def index(s: str, t: str, icase: bool = False) -> float:
    if icase:
        s, t = s.lower(), t.lower()
    return float(s.find(t) + 1)


def _case(s: str, fold: str) -> str:
    """Per character, as towlower/towupper do (no length changes); invalid
    bytes come out as U+FFFD, as gawk's wide-character round trip makes them."""
    out = []
    for c in s:
        if "\udc80" <= c <= "\udcff":
            out.append("\ufffd")
            continue
        d = c.lower() if fold == "l" else c.upper()
        out.append(d if len(d) == 1 else c)
    return "".join(out)


def lower(s: str) -> str:
    return s.lower() if s.isascii() else _case(s, "l")


def upper(s: str) -> str:
    return s.upper() if s.isascii() else _case(s, "u")


# A replacement compiled into pieces: str literals, or an int group number
Repl = list[str | int]
# shared by every run of the process: bounded in entries and text (T-TEN-5)
_REPL_CACHE: TextCache[tuple[str, bool], Repl] = TextCache(entries=256)


def _compile_repl(repl: str, gensub: bool) -> Repl:
    key = (repl, gensub)
    cached = _REPL_CACHE.get(key)
    if cached is not None:
        return cached
    pieces: Repl = []
    lit: list[str] = []
    i = 0
    n = len(repl)

    def flush() -> None:
        if lit:
            pieces.append("".join(lit))
            lit.clear()

    while i < n:
        c = repl[i]
        if c == "&":
            flush()
            pieces.append(0)
            i += 1
        elif c == "\\" and i + 1 < n:
            if gensub:
                d = repl[i + 1]
                if d.isdigit():
                    flush()
                    pieces.append(int(d))
                else:
                    lit.append(d)
                i += 2
            elif repl.startswith(("\\\\\\&", "\\\\\\\\"), i):
                lit.append("\\" + repl[i + 3])
                i += 4
            elif repl.startswith("\\\\&", i):
                lit.append("\\")
                flush()
                pieces.append(0)
                i += 3
            elif repl[i + 1] == "&":
                lit.append("&")
                i += 2
            else:
                lit.append("\\")
                i += 1
        else:
            lit.append(c)
            i += 1
    flush()
    _REPL_CACHE.put(key, repl, pieces)
    return pieces


def _expand(pieces: Repl, s: str, spans: list[tuple[int, int]]) -> str:
    out: list[str] = []
    for p in pieces:
        if p.__class__ is str:
            out.append(p)  # type: ignore[arg-type]
        else:
            g: int = p  # type: ignore[assignment]
            if g < len(spans) and spans[g][0] >= 0:
                out.append(s[spans[g][0] : spans[g][1]])
    return "".join(out)


def subst(
    rx: Regex, repl: str, s: str, is_global: bool, nth: int = 0, gensub: bool = False
) -> tuple[int, str]:
    """sub/gsub/gensub: (number of replacements, new string)."""
    pieces = _compile_repl(repl, gensub)
    lit = rx.literal
    if lit and not nth and len(pieces) <= 1 and (not pieces or pieces[0].__class__ is str):
        # a plain string replaced by plain text: str.replace does it all
        count = s.count(lit) if is_global else (1 if lit in s else 0)
        if not count:
            return 0, s
        return count, s.replace(lit, pieces[0] if pieces else "", -1 if is_global else 1)  # type: ignore[arg-type]
    out: list[str] = []
    pos = 0
    count = 0
    seen = 0
    if not nth and all(p.__class__ is str for p in pieces):
        # constant replacement text: no groups to fetch, nothing to expand per match
        text = "".join(pieces)  # type: ignore[arg-type]
        for st, en in rx.finditer(s):
            out.append(s[pos:st])
            out.append(text)
            pos = en
            count += 1
            if not is_global:
                break
        if not count:
            return 0, s
        out.append(s[pos:])
        return count, "".join(out)
    simple = all(p.__class__ is str or p == 0 for p in pieces)
    matches = ([m] for m in rx.finditer(s)) if simple else rx.finditer_groups(s)
    for spans in matches:
        seen += 1
        if nth and seen != nth:
            continue
        st, en = spans[0]
        out.append(s[pos:st])
        out.append(_expand(pieces, s, spans))
        pos = en
        count += 1
        if not is_global:
            break
    if not count:
        return 0, s
    out.append(s[pos:])
    return count, "".join(out)


def gensub_how(how: Value) -> tuple[bool, int, str | None]:
    """(global, nth, warning) for gensub's third argument."""
    if how.__class__ is not float:
        text = str(how)
        if text[:1] in ("g", "G"):
            return True, 0, None
        n = str2num(text) if text.strip() else 0.0
        if n >= 1:
            return False, int(n), None
        return False, 1, f"gensub: third argument `{text}' treated as 1"
    n2 = float(how)  # type: ignore[arg-type]
    if n2 >= 1:
        return False, int(n2), None
    return False, 1, f"gensub: third argument {n2:g} treated as 1"


# ---------------------------------------------------------------- numbers


def awk_int(x: float) -> float:
    if x != x or x in (math.inf, -math.inf):
        return x
    return float(int(x))


def awk_log(x: float) -> float:
    if x == 0:
        return -math.inf
    if x < 0 or x != x:
        return -math.nan if x < 0 else x
    return math.log(x)


def awk_sqrt(x: float) -> float:
    if x < 0:
        return -math.nan
    return math.sqrt(x)


def awk_exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def awk_mod(a: float, b: float) -> float:
    if b == 0:
        raise AwkFatal("division by zero attempted in `%'")
    try:
        return math.fmod(a, b)
    except ValueError:
        return -math.nan  # the x86 default NaN has its sign bit set: gawk prints -nan


def div_assign(a: float, b: float) -> float:
    if b == 0:
        raise AwkFatal("division by zero attempted in `/='")
    return a / b


def mod_assign(a: float, b: float) -> float:
    if b == 0:
        raise AwkFatal("division by zero attempted in `%='")
    return awk_mod(a, b)


def join_bytes(a: str, b: str) -> str:
    """A concatenation where a string constant holds bytes that are not UTF-8 (`"\\303" "\\251"`):
    gawk joins bytes, so the two halves of a character become that character (one of length 1)."""
    s = a + b
    if a[-1:] and b[:1] and "\udc80" <= a[-1] <= "\udcff" and "\udc80" <= b[0] <= "\udcff":
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    return s


def awk_pow(a: float, b: float) -> float:
    if math.isfinite(b) and b == int(b) and abs(b) < 1 << 31 and math.isfinite(a):
        # integer powers by repeated squaring, as gawk does
        n = int(b)
        result = 1.0
        base = a
        k = abs(n)
        try:
            while k:
                if k & 1:
                    result *= base
                base *= base
                k >>= 1
        except OverflowError:
            result = math.inf
        if n < 0:
            return 1.0 / result if result != 0 else math.inf
        return result
    try:
        return math.pow(a, b)
    except OverflowError:
        return math.inf
    except ValueError:
        if a == 0 and b < 0:
            return math.inf
        return -math.nan


def strtonum(v: Value) -> float:
    if v.__class__ is float:
        return v  # type: ignore[return-value]
    s = str(v).lstrip(" \t\n\r\f\v")
    sign = 1.0
    body = s
    if body[:1] in ("+", "-"):
        sign = -1.0 if body[0] == "-" else 1.0
        body = body[1:]
    if body[:2] in ("0x", "0X"):
        digits = ""
        for c in body[2:]:
            if c in "0123456789abcdefABCDEF":
                digits += c
            else:
                break
        return sign * float(int(digits, 16)) if digits else 0.0
    if body[:1] == "0" and len(body) > 1 and body[1].isdigit():
        digits = ""
        for c in body[1:]:
            if c in "01234567":
                digits += c
            elif c in "89.eE":
                return str2num(s)
            else:
                break
        return sign * float(int(digits or "0", 8))
    return str2num(s)


def _adjust(n: int) -> float:
    """gawk's adjust_uint: keep 53 significant bits starting at the lowest set bit."""
    n &= (1 << 64) - 1
    shift = ((n | (1 << 11)) & -(n | (1 << 11))).bit_length() - 1
    n &= ((1 << 53) - 1) << shift
    return float(n)


def bits(name: str, args: tuple[float, ...]) -> float:
    vals: list[int] = []
    for i, a in enumerate(args):
        if a < 0:
            if name in ("lshift", "rshift"):
                raise AwkFatal(f"{name}({args[0]:f}, {args[1]:f}): negative values are not allowed")
            raise AwkFatal(f"{name}: argument {i + 1} negative value {a:g} is not allowed")
        vals.append(int(a) if math.isfinite(a) else 0)
    if name == "and":
        r = vals[0]
        for v in vals[1:]:
            r &= v
    elif name == "or":
        r = 0
        for v in vals:
            r |= v
    elif name == "xor":
        r = 0
        for v in vals:
            r ^= v
    elif name == "lshift":
        r = (vals[0] << vals[1]) if vals[1] < 64 else 0
    else:
        r = (vals[0] >> vals[1]) if vals[1] < 64 else 0
    return _adjust(r)


def compl(x: float) -> float:
    if x < 0:
        raise AwkFatal(f"compl({x:f}): negative value is not allowed")
    return _adjust(~int(x) & ((1 << 64) - 1))


# the generator's state after seed(1), filled on first use (see GawkRandom.__init__)
_SEEDED_1: list[tuple[tuple[int, ...], int, int, tuple[int, ...], int]] = []


class GawkRandom:
    """gawk's rand(): BSD random() (TYPE_4, 63 words) behind a 512-entry
    shuffle buffer, so seeds give the same sequences as gawk."""

    def __init__(self) -> None:
        self.state = [0] * 63
        self.f = 1
        self.r = 0
        self.buf: list[int] = []
        self.s = 0
        start = _SEEDED_1
        if not start:
            # gawk starts as if seeded with 1: ~1,800 Python calls (1.8 ms), made once a process
            # and copied into each run's own generator (a tuple: no run can change it)
            self.seed(1)
            start.append((tuple(self.state), self.f, self.r, tuple(self.buf), self.s))
            return
        state, self.f, self.r, buf, self.s = start[0]
        self.state = list(state)
        self.buf = list(buf)

    @staticmethod
    def _good(x: int) -> int:
        x &= 0xFFFFFFFF
        if x >= 1 << 31:
            x -= 1 << 32
        if x == 0:
            x = 123459876
        hi = int(x / 127773)
        lo = x - hi * 127773
        x = 16807 * lo - 2836 * hi
        if x < 0:
            x += 0x7FFFFFFF
        return x & 0xFFFFFFFF

    def seed(self, x: int) -> None:
        st = self.state
        st[0] = x & 0xFFFFFFFF
        for i in range(1, 63):
            st[i] = self._good(st[i - 1])
        self.f, self.r = 1, 0
        self.buf = []
        for _ in range(630):
            self.random()

    def _old(self) -> int:
        st = self.state
        f, r = self.f, self.r
        st[f] = (st[f] + st[r]) & 0xFFFFFFFF
        i = (st[f] >> 1) & 0x7FFFFFFF
        f += 1
        if f >= 63:
            f = 0
            r += 1
        else:
            r += 1
            if r >= 63:
                r = 0
        self.f, self.r = f, r
        return i

    def random(self) -> int:
        if not self.buf:
            self.buf = [self._old() for _ in range(512)]
            self.s = self._old()
        r = self._old()
        k = self.s & 511
        self.s = self.buf[k]
        self.buf[k] = r
        return self.s

    def rand(self) -> float:
        div = 2147483648.0
        while True:
            d1 = self.random()
            d2 = self.random()
            v = 0.5 + ((d1 / div + d2) / div)
            v -= 0.5
            if v != 1.0:
                return v


def ikey(k: str) -> str:
    """A for-in index: integer-looking indexes compare as numbers (gawk keeps them numeric)."""
    if k.isdigit() and (k[0] != "0" or k == "0"):
        return Input(k)
    if k[:1] == "-" and k[1:].isdigit() and k[1] != "0":
        return Input(k)
    return str(k) if k.__class__ is not str else k
