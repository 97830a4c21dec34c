"""Native builtins over values: collections, conversions and math."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator

from .builtins_core import Registry, value
from .decode import ParseError, parse_single
from .encode import dumps
from .errors import JqError
from .memory import charge as charge_memory
from .memory import live
from .numbers import normalize
from .runtime import Env, F, index, iterate
from .values import (
    add,
    compare,
    contains,
    is_number,
    length,
    negate,
    simple_keys,
    sort_key,
    type_error,
    type_error2,
    typename,
)
from .values import (
    charge as charge_work,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _keys(v: Any) -> Any:
    if type(v) is dict:
        return sorted(v)
    if type(v) is list:
        return list(range(len(v)))
    raise type_error(v, "has no keys")


def _keys_unsorted(v: Any) -> Any:
    if type(v) is dict:
        return list(v)
    if type(v) is list:
        return list(range(len(v)))
    raise type_error(v, "has no keys")


def _has(v: Any, k: Any) -> Any:
    if v is None:
        return False
    if type(v) is dict and type(k) is str:
        return k in v
    if type(v) is list and is_number(k):
        if k != k:
            return False
        return 0 <= int(k) < len(v)
    raise JqError(f"Cannot check whether {typename(v)} has a {typename(k)} key")


def _contains(a: Any, b: Any) -> Any:
    ka = typename(a) if type(a) is not bool else ("true" if a else "false")
    kb = typename(b) if type(b) is not bool else ("true" if b else "false")
    if ka != kb:
        raise type_error2(a, b, "cannot have their containment checked")
    return contains(a, b)


def _sort(v: Any) -> Any:
    if type(v) is not list:
        raise type_error(v, "cannot be sorted, as it is not an array")
    if simple_keys(v):
        return sorted(v)
    memo: dict[int, tuple[Any, Any]] = {}  # parts shared between elements keyed once too
    return sorted(v, key=lambda x: sort_key(x, memo))


def _unique(v: Any) -> Any:
    if type(v) is not list:
        # jq 1.7: def unique: group_by(.) | map(.[0]);
        raise type_error2(v, [[x] for x in iterate(v)], "cannot be sorted, as they are not both arrays")
    out: list[Any] = []
    prev: Any = None
    memo: dict[int, tuple[Any, Any]] = {}
    for x in sorted(v, key=lambda x: sort_key(x, memo)):
        k = sort_key(x, memo)
        if not out or k != prev:
            out.append(x)
        prev = k
    return out


def _minmax(is_min: bool) -> Callable[[Any], Any]:
    def fn(v: Any) -> Any:
        if type(v) is not list:
            raise type_error2(v, v, "cannot be iterated over")
        if not v:
            return None
        best = v[0]
        for x in v[1:]:
            c = compare(x, best)
            if (is_min and c < 0) or (not is_min and c >= 0):
                best = x
        return best

    return fn


def _reverse(v: Any) -> Any:
    if type(v) is str:
        return v[::-1]
    if v is None:
        return []
    if type(v) is list:
        return v[::-1]
    if type(v) is dict:
        if not v:
            return []
        raise JqError("Cannot index object with number")
    raise JqError(f"Cannot index {typename(v)} with number")


def _flatten(v: Any, depth: Any = 1e18) -> Any:
    if not is_number(depth):
        raise JqError("flatten depth must not be negative")
    if depth < 0:
        raise JqError("flatten depth must not be negative")
    out: list[Any] = []
    with live(out):
        # explicit stack: (iterator, remaining depth)
        stack: list[tuple[Iterator[Any], float]] = [(iter(iterate(v)), depth)]
        seen = 0
        while stack:
            it, d = stack[-1]
            x = next(it, _END)
            if x is _END:
                stack.pop()
                continue
            seen += 1
            if not seen & 4095:
                # a shared sub-array is walked as often as it is shared, whether or not it adds
                # elements (`reduce range(40) as $i ([]; [., .]) | flatten`: 2**40 empty arrays)
                charge_work(4096 >> 6)
            if type(x) is list and d != 0:
                stack.append((iter(x), d - 1))
            else:
                out.append(x)
                if not len(out) & 4095:
                    # a shared sub-array flattens to as many copies as it is shared
                    charge_work(4096 >> 6)
                    charge_memory(4096 * 48)
    return out


_END: Any = object()


def _tostring(v: Any) -> Any:
    if type(v) is str:
        return v
    return dumps(v, capped=True)


def _tonumber(v: Any) -> Any:
    if is_number(v):
        return v
    if type(v) is str:
        try:
            parsed = parse_single(v)
        except ParseError as e:
            raise JqError(e.message) from None
        if is_number(parsed):
            return parsed
    raise type_error(v, "cannot be parsed as a number")


def _toboolean(v: Any) -> Any:
    if type(v) is bool:
        return v
    if v == "true" and type(v) is str:
        return True
    if v == "false" and type(v) is str:
        return False
    raise type_error(v, "cannot be parsed as a boolean")


def _fromjson(v: Any) -> Any:
    if type(v) is not str:
        raise type_error(v, "only strings can be parsed")
    try:
        return parse_single(v)
    except ParseError as e:
        raise JqError(e.message) from None


def _tojson(v: Any) -> Any:
    return dumps(v, capped=True)


def _type(v: Any) -> Any:
    return typename(v)


def _utf8len(v: Any) -> Any:
    if type(v) is not str:
        raise type_error(v, "only strings have UTF-8 byte length")
    return len(v.encode("utf-8", "surrogatepass"))


def _transpose(v: Any) -> Any:
    rows = list(iterate(v))
    width = 0
    for r in rows:
        n = length(r)
        if compare(n, width) > 0:
            width = n
    return [[index(r, i) for r in rows] for i in range(int(width))]


def _tostream(v: Any) -> list[Any]:
    out: list[Any] = []
    # post-order: children's events, then the closing event of the container
    stack: list[tuple[tuple[Any, ...], Any, Iterator[Any] | None, Any]] = []

    def push(path: tuple[Any, ...], x: Any) -> None:
        if (type(x) is list or type(x) is dict) and x:
            it: Iterator[Any] = iter(x.items()) if isinstance(x, dict) else iter(enumerate(x))
            stack.append((path, x, it, None))
        else:
            out.append([list(path), x])

    steps = 0
    with live(out):
        push((), v)
        while stack:
            steps += 1
            path, x, it, last = stack[-1]
            if not steps & 4095:
                # a value of shared parts streams as many events as it has paths (2**40 for
                # `reduce range(40) as $i ([]; [., .])`): each step adds at most one event
                charge_work(4096 >> 6)
                charge_memory(4096 * (_EVENT + 8 * len(path)))
            assert it is not None
            item = next(it, _END)
            if item is _END:
                stack.pop()
                out.append([list(path + (last,))])
                continue
            k, child = item
            stack[-1] = (path, x, it, k)
            push(path + (k,), child)
    return out


_EVENT = 2 * 72  # an event's list and its path's list


def _indices(v: Any, i: Any) -> Any:
    if type(v) is list and type(i) is list:
        return index(v, i)
    if type(v) is list:
        return index(v, [i])
    if type(v) is str and type(i) is str:
        if not i:
            return None
        out = []
        start = v.find(i)
        while start >= 0:
            out.append(start)
            start = v.find(i, start + 1)
        return out
    return index(v, i)


def _first_index(v: Any, i: Any) -> Any:
    r = _indices(v, i)
    if r is None:
        return None
    return r[0] if r else None


def _last_index(v: Any, i: Any) -> Any:
    r = _indices(v, i)
    if r is None:
        return None
    return r[-1] if r else None


def _join(v: Any, sep: Any) -> Any:
    """jq: reduce .[] as $i (null; (if .==null then "" else .+$x end) +
    ($i | if type=="boolean" or type=="number" then tostring else .//"" end)) // "" """
    items = list(iterate(v))
    parts: list[str] = []
    for x in items:
        if type(x) is str:
            parts.append(x)
        elif x is None:
            parts.append("")
        elif type(x) is bool or is_number(x):
            parts.append(dumps(x))
        else:
            break
    else:
        if type(sep) is str or len(items) < 2:
            return (sep if type(sep) is str else "").join(parts)
    # the slow, exact way: same errors as jq's reduce
    acc: Any = None
    for x in items:
        acc = "" if acc is None else add(acc, sep)
        if type(x) is bool or is_number(x):
            piece: Any = dumps(x)
        elif x is None or x is False:
            piece = ""
        else:
            piece = x
        acc = add(acc, piece)
    return acc if acc is not None and acc is not False else ""


def _bsearch(v: Any, target: Any) -> Any:
    if type(v) is not list:
        raise type_error(v, "cannot be searched from")
    lo, hi = 0, len(v) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        c = compare(v[mid], target)
        if c == 0:
            return mid
        if c < 0:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1 - lo


def _implode(v: Any) -> Any:
    if type(v) is not list:
        raise JqError("implode input must be an array")
    chars = []
    for n in v:
        if not is_number(n) or n != n:
            raise type_error(n, "can't be imploded, unicode codepoint needs to be numeric")
        c = int(n)
        if c < 0 or c > 0x10FFFF or 0xD800 <= c <= 0xDFFF:
            c = 0xFFFD
        chars.append(chr(c))
    return "".join(chars)


def _explode(v: Any) -> Any:
    if type(v) is not str:
        raise type_error(v, "cannot be exploded")
    return [ord(c) for c in v]


# ---------------------------------------------------------------- math


def _num(fn: Callable[..., float], name: str) -> Callable[..., Any]:
    def call(v: Any, *args: Any) -> Any:
        vals = args if args else (v,)
        for x in vals:
            if not is_number(x):
                raise type_error(x, "number required")
        try:
            r = fn(*(float(x) for x in vals))
        except (ValueError, ZeroDivisionError):
            return math.nan
        except OverflowError:
            return math.inf
        return _clean(r)

    return call


def _clean(r: Any) -> Any:
    if type(r) is float and r.is_integer() and -(2**53) < r < 2**53:
        return normalize(int(r)) if not (r == 0 and math.copysign(1, r) < 0) else r
    if type(r) is int:
        return normalize(r)
    return r


def _round(x: float) -> float:
    # C round(): halves away from zero, sign of zero kept
    if not math.isfinite(x):
        return x
    r = float(math.floor(x + 0.5)) if x >= 0 else -float(math.floor(-x + 0.5))
    return math.copysign(0.0, x) if r == 0 else r


def _significand(x: float) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    m, _ = math.frexp(x)
    return m * 2


def _logb(x: float) -> float:
    if x == 0:
        return -math.inf
    if not math.isfinite(x):
        return abs(x)
    return float(math.frexp(x)[1] - 1)


def _gamma(x: float) -> float:
    return math.lgamma(x)


def _drem(x: float, y: float) -> float:
    return math.remainder(x, y)


def _nearbyint(x: float) -> float:
    if not math.isfinite(x):
        return x
    r = float(round(x))
    return math.copysign(0.0, x) if r == 0 else r


def _exp10(x: float) -> float:
    return float(10.0**x)


def _ldexp(x: float, e: float) -> float:
    return math.ldexp(x, int(e))


def _frexp(v: Any) -> Any:
    if not is_number(v):
        raise type_error(v, "number required")
    m, e = math.frexp(float(v))
    return [_clean(m), e]


def _modf(v: Any) -> Any:
    if not is_number(v):
        raise type_error(v, "number required")
    f, i = math.modf(float(v))
    return [_clean(f), _clean(i)]


def _lgamma_r(v: Any) -> Any:
    if not is_number(v):
        raise type_error(v, "number required")
    x = float(v)
    sign = 1
    if x < 0 and math.floor(x) != x and math.floor(x) % 2 != 0:
        sign = -1
    return [_clean(math.lgamma(x)), sign]


def _fma(v: Any, a: Any, b: Any, c: Any) -> Any:
    for x in (a, b, c):
        if not is_number(x):
            raise type_error(x, "number required")
    return _clean(float(a) * float(b) + float(c))


def _pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except ZeroDivisionError:
        return math.inf
    except ValueError:
        return math.nan


def _infinite(v: Any) -> Any:
    return math.inf


def _nan(v: Any) -> Any:
    return math.nan


def _isinfinite(v: Any) -> Any:
    if not is_number(v):
        raise type_error(v, "number required")
    return math.isinf(float(v))


def _isnan(v: Any) -> Any:
    if not is_number(v):
        raise type_error(v, "number required")
    return v != v


def _isnormal(v: Any) -> Any:
    if not is_number(v):
        raise type_error(v, "number required")
    x = abs(float(v))
    return math.isfinite(x) and x >= 2.2250738585072014e-308


def _abs(v: Any) -> Any:
    # jq: def abs: if . < 0 then - . else . end;
    return negate(v) if compare(v, 0) < 0 else v


_MATH1: dict[str, Callable[..., float]] = {
    "floor": math.floor,
    "ceil": math.ceil,
    "sqrt": math.sqrt,
    "fabs": math.fabs,
    "round": _round,
    "trunc": math.trunc,
    "rint": _nearbyint,
    "nearbyint": _nearbyint,
    "exp": math.exp,
    "exp2": lambda x: 2.0**x,
    "exp10": _exp10,
    "pow10": _exp10,
    "expm1": math.expm1,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "log1p": math.log1p,
    "logb": _logb,
    "significand": _significand,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tanh": math.tanh,
    "asinh": math.asinh,
    "acosh": math.acosh,
    "atanh": math.atanh,
    "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "gamma": _gamma,
    "lgamma": math.lgamma,
    "tgamma": math.gamma,
    "erf": math.erf,
    "erfc": math.erfc,
}
_MATH2: dict[str, Callable[..., float]] = {
    "pow": _pow,
    "atan2": math.atan2,
    "fmod": math.fmod,
    "hypot": math.hypot,
    "copysign": math.copysign,
    "drem": _drem,
    "remainder": _drem,
    "fmin": min,
    "fmax": max,
    "fdim": lambda x, y: max(x - y, 0.0),
    "ldexp": _ldexp,
    "scalb": lambda x, y: x * 2.0**y,
    "scalbln": _ldexp,
    "nextafter": math.nextafter,
    "nexttoward": math.nextafter,
}


def _floor_like(fn: Callable[[float], Any]) -> Callable[[float], Any]:
    """floor/ceil/trunc as C does them: doubles, keeping the sign of zero."""

    def call(x: float) -> Any:
        if not math.isfinite(x):
            return x
        r = float(fn(x))
        return math.copysign(0.0, x) if r == 0 else r

    return call


class FToStream(F):
    """tostream: the input as [path, leaf] and closing [path] events."""

    __slots__ = ()

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return _tostream(v)


def register(reg: Registry) -> None:
    value(reg, "length", 0, length)
    value(reg, "utf8bytelength", 0, _utf8len)
    value(reg, "keys", 0, _keys)
    value(reg, "keys_unsorted", 0, _keys_unsorted)
    value(reg, "has", 1, _has)
    value(reg, "contains", 1, _contains)
    value(reg, "sort", 0, _sort)
    value(reg, "unique", 0, _unique)
    value(reg, "min", 0, _minmax(True))
    value(reg, "max", 0, _minmax(False))
    value(reg, "reverse", 0, _reverse)
    value(reg, "flatten", 0, _flatten)
    value(reg, "flatten", 1, _flatten)
    value(reg, "tostring", 0, _tostring)
    value(reg, "tonumber", 0, _tonumber)
    value(reg, "toboolean", 0, _toboolean)
    value(reg, "tojson", 0, _tojson)
    value(reg, "fromjson", 0, _fromjson)
    value(reg, "type", 0, _type)
    value(reg, "transpose", 0, _transpose)
    reg[("tostream", 0)] = lambda args: FToStream()
    value(reg, "indices", 1, _indices)
    value(reg, "index", 1, _first_index)
    value(reg, "rindex", 1, _last_index)
    value(reg, "join", 1, _join)
    value(reg, "bsearch", 1, _bsearch)
    value(reg, "implode", 0, _implode)
    value(reg, "explode", 0, _explode)
    value(reg, "infinite", 0, _infinite)
    value(reg, "nan", 0, _nan)
    value(reg, "isinfinite", 0, _isinfinite)
    value(reg, "isnan", 0, _isnan)
    value(reg, "isnormal", 0, _isnormal)
    value(reg, "abs", 0, _abs)
    value(reg, "frexp", 0, _frexp)
    value(reg, "modf", 0, _modf)
    value(reg, "lgamma_r", 0, _lgamma_r)
    value(reg, "fma", 3, _fma)
    value(reg, "have_literal_numbers", 0, lambda v: True)
    value(reg, "have_decnum", 0, lambda v: True)
    value(reg, "toarray", 0, lambda v: v if type(v) is list else [v])
    value(reg, "get_search_list", 0, lambda v: [])
    value(reg, "get_prog_origin", 0, lambda v: None)
    value(reg, "get_jq_origin", 0, lambda v: None)
    value(reg, "ascii", 0, lambda v: _implode([v]))
    for name, fn in _MATH1.items():
        wrapped = _floor_like(fn) if name in ("floor", "ceil", "trunc") else fn
        value(reg, name, 0, _num(wrapped, name))
    for name, fn in _MATH2.items():
        value(reg, name, 2, _num(fn, name))
