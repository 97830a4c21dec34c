"""jq value semantics: kinds, ordering, equality and arithmetic.

Values are plain Python data: None, bool, int/float/LitNum, str, list, dict.
They are never mutated once built (builtins copy before changing), so sharing
sub-values between results is safe.
"""

from __future__ import annotations

import math
from contextvars import ContextVar

from ...limits import LimitExceeded, LimitKind
from .encode import BUDGET, dumps
from .errors import JqError
from .memory import charge as charge_memory
from .numbers import MAX_SAFE, LitNum, dtoi, normalize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (max string length, max array length) for values that operators build; a
# run sets them from its limits so `. + .` doubling cannot exhaust memory
CAPS: ContextVar[tuple[int, int]] = ContextVar("jq_caps", default=(1 << 30, 1 << 27))


def check_size(n: int, is_string: bool) -> None:
    """A string or array of `n` characters/elements is about to be built:
    within the caps, and charged to the run's memory."""
    cap = CAPS.get()[0 if is_string else 1]
    if n > cap:
        raise LimitExceeded(LimitKind.MAX_STRING_LENGTH if is_string else LimitKind.MAX_ARRAY_ELEMENTS, cap)
    charge_memory(n if is_string else 8 * n)


def charge(work: int) -> None:
    """Charge the run's work budget for values built in bulk (the nulls an
    update pads an array with): the budget and the deadline stop a runaway."""
    checkpoint = BUDGET.get()[0]
    if checkpoint is not None:
        checkpoint(work)


_walked = [0]


def _walk_tick(held: int = 0) -> None:
    """One container visited by a deep walk (compare, sort keys, equality, contains). Values share
    their parts (`reduce range(40) as $i ([]; [., .])` is 40 arrays), and a walk visits a part as
    often as it is shared (2**40 times): every 4096 visits are charged to the run's work, and
    `held` bytes a visit builds (sort keys) to its memory, so the deadline and the limits end it."""
    n = _walked[0] + 1
    _walked[0] = n
    if not n & 4095:
        charge(1025)  # (past 1000: the clock is read each time; the collector slows such walks)
        if held:
            charge_memory(4096 * held)


_KIND_ORDER = {type(None): 0, bool: 1, int: 3, float: 3, LitNum: 3, str: 4, list: 5, dict: 6}
_TYPE_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "number",
    float: "number",
    LitNum: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def typename(x: Any) -> str:
    return _TYPE_NAMES[type(x)]


def is_number(x: Any) -> bool:
    t = type(x)
    return t is int or t is float or t is LitNum


def truthy(x: Any) -> bool:
    return x is not None and x is not False


def trunc_dump(x: Any, size: int = 15) -> str:
    """jv_dump_string_trunc: compact JSON cut to size-1 bytes with '...'."""
    text = dumps(x, stop=4 * size)  # (what is cut off is never made: a value may print as TBs)
    raw = text.encode("utf-8", "surrogatepass")
    limit = size - 1
    if len(raw) <= limit:
        return text
    return raw[: limit - 3].decode("utf-8", "ignore") + "..."


def type_error(x: Any, msg: str) -> JqError:
    return JqError(f"{typename(x)} ({trunc_dump(x)}) {msg}")


def type_error2(a: Any, b: Any, msg: str) -> JqError:
    return JqError(f"{typename(a)} ({trunc_dump(a)}) and {typename(b)} ({trunc_dump(b)}) {msg}")


# ---------------------------------------------------------------- ordering


def _kind(x: Any) -> int:
    if x is True:
        return 2
    return _KIND_ORDER[type(x)]


def compare(a: Any, b: Any) -> int:
    """jq's total order: null < false < true < numbers < strings < arrays < objects."""
    ka = _kind(a)
    kb = _kind(b)
    if ka != kb:
        return -1 if ka < kb else 1
    if ka == 3:
        return _num_cmp(a, b)
    if ka == 4:
        return -1 if a < b else (1 if a > b else 0)
    if ka == 5:
        _walk_tick()
        for x, y in zip(a, b):  # noqa: B905 - lengths compared after
            r = compare(x, y)
            if r:
                return r
        la, lb = len(a), len(b)
        return -1 if la < lb else (1 if la > lb else 0)
    if ka == 6:
        _walk_tick()
        keys_a = sorted(a)
        keys_b = sorted(b)
        if keys_a != keys_b:
            return -1 if keys_a < keys_b else 1
        for k in keys_a:
            r = compare(a[k], b[k])
            if r:
                return r
        return 0
    return 0


def _num_cmp(a: Any, b: Any) -> int:
    # NaN sorts below every number (jq compares it as null against a number)
    if a != a:
        return -1
    if b != b:
        return 1
    if a < b:
        return -1
    if a > b:
        return 1
    if type(a) is LitNum and type(b) is LitNum and a.lit != b.lit:
        # equal doubles: jq compares the literals' decimal values
        from decimal import Decimal

        da, db = Decimal(a.lit), Decimal(b.lit)
        return -1 if da < db else (1 if da > db else 0)
    return 0


def simple_keys(xs: list[Any]) -> bool:
    """All plain strings, or all plain numbers (no NaN, no literals): Python's
    own ordering is jq's then."""
    if not xs:
        return True
    if type(xs[0]) is str:
        return all(type(x) is str for x in xs)
    return all((type(x) is int or type(x) is float) and x == x for x in xs)


def sort_key(x: Any, memo: dict[int, tuple[Any, Any]] | None = None) -> Any:
    """A Python key that orders values as `compare` does. A part shared within the value (the same
    array or object) gets one key object, made once (`memo`), so a value of shared parts costs what
    its parts do, and comparing two keys skips the identical parts."""
    t = type(x)
    if t is str:
        return (4, x)
    if t is int or t is float or t is LitNum:
        if x != x:
            return (3, 0, 0)
        return (3, 1, x)
    if x is None:
        return (0,)
    if t is bool:
        return (2,) if x else (1,)
    if memo is None:
        memo = {}
    held = memo.get(id(x))
    if held is not None:
        return held[1]
    _walk_tick(64)
    key: tuple[Any, ...]
    if t is list:
        key = (5, [sort_key(v, memo) for v in x])
    else:
        keys = sorted(x)
        key = (6, keys, [sort_key(x[k], memo) for k in keys])
    # the memo holds x too: a value made for the call (`sort_by([.a])`'s arrays, the caller's `[k]`)
    # would otherwise die after its key is made, and the next one could take its id and its key
    memo[id(x)] = (x, key)
    return key


def equal(a: Any, b: Any) -> bool:
    """jq equality (numbers by value, no bool/number confusion)."""
    ta = type(a)
    tb = type(b)
    if ta is str or tb is str:
        return ta is tb and a == b
    if ta is bool or tb is bool or a is None or b is None:
        return a is b
    if ta is list or ta is dict or tb is list or tb is dict:
        if ta is not tb:
            return False
        return _deep_equal(a, b)
    # both numbers
    if ta is LitNum and tb is LitNum and a == b and a.lit != b.lit:
        from decimal import Decimal

        return Decimal(a.lit) == Decimal(b.lit)  # type: ignore[no-any-return]
    return a == b  # type: ignore[no-any-return]


def _deep_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if len(a) != len(b):
        return False
    _walk_tick()
    if type(a) is list:
        return all(equal(x, y) for x, y in zip(a, b, strict=True))
    return all(k in b and equal(v, b[k]) for k, v in a.items())


def contains(a: Any, b: Any) -> bool:
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        return False
    if ka == 6:
        _walk_tick()
        return all(k in a and contains(a[k], v) for k, v in b.items())
    if ka == 5:
        _walk_tick()
        return all(any(contains(x, y) for x in a) for y in b)
    if ka == 4:
        return b in a
    return equal(a, b)


# ---------------------------------------------------------------- arithmetic


def _num_result(x: int | float) -> int | float:
    if type(x) is int:
        return normalize(x)  # type: ignore[arg-type]
    return x


def _both_safe_ints(a: Any, b: Any) -> bool:
    return type(a) is int and type(b) is int and -MAX_SAFE < a < MAX_SAFE and -MAX_SAFE < b < MAX_SAFE


def add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        r = a + b
        return r if -MAX_SAFE < r < MAX_SAFE else float(a) + float(b)
    if is_number(a) and is_number(b):
        return float(a) + float(b)
    if ta is str and tb is str:
        if len(a) + len(b) > 65536:
            check_size(len(a) + len(b), True)
        return a + b
    if ta is list and tb is list:
        if len(a) + len(b) > 65536:
            check_size(len(a) + len(b), False)
        return a + b
    if ta is dict and tb is dict:
        if len(a) + len(b) > 4096:
            charge_memory(100 * (len(a) + len(b)))
        r2 = dict(a)
        r2.update(b)
        return r2
    raise type_error2(a, b, "cannot be added")


def sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        r = a - b
        return r if -MAX_SAFE < r < MAX_SAFE else float(a) - float(b)
    if is_number(a) and is_number(b):
        return float(a) - float(b)
    if ta is list and tb is list:
        return [x for x in a if not any(equal(x, y) for y in b)]
    raise type_error2(a, b, "cannot be subtracted")


def mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if _both_safe_ints(a, b):
            return _num_result(a * b)
        return float(a) * float(b)
    an, bn = is_number(a), is_number(b)
    if an and bn:
        return float(a) * float(b)
    if (ta is str and bn) or (an and tb is str):
        s, n = (a, b) if ta is str else (b, a)
        if n != n or n < 0:
            return None
        count = int(min(n, 2147483647))
        check_size(len(s) * count, True)
        return s * count
    if ta is dict and tb is dict:
        return deep_merge(a, b)
    raise type_error2(a, b, "cannot be multiplied")


def deep_merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        old = out.get(k)
        if type(old) is dict and type(v) is dict:
            out[k] = deep_merge(old, v)
        else:
            out[k] = v
    return out


def div(a: Any, b: Any) -> Any:
    if is_number(a) and is_number(b):
        if b == 0:
            raise type_error2(a, b, "cannot be divided because the divisor is zero")
        if type(a) is int and type(b) is int and a % b == 0:
            return _num_result(a // b)
        return float(a) / float(b)
    if type(a) is str and type(b) is str:
        return split_str(a, b)
    raise type_error2(a, b, "cannot be divided")


def mod(a: Any, b: Any) -> Any:
    if is_number(a) and is_number(b):
        if a != a or b != b:
            return math.nan
        bi = dtoi(b)
        if bi == 0:
            raise type_error2(a, b, "cannot be divided (remainder) because the divisor is zero")
        if bi == -1:
            return 0
        ai = dtoi(a)
        # C's % truncates toward zero
        r = abs(ai) % abs(bi)
        return _num_result(-r if ai < 0 else r)
    raise type_error2(a, b, "cannot be divided (remainder)")


def negate(a: Any) -> Any:
    t = type(a)
    if t is int:
        return -a
    if t is LitNum:
        # jq 1.8 keeps a negated literal's text
        out = LitNum(-float(a))
        out.lit = a.lit[1:] if a.lit.startswith("-") else "-" + a.lit
        return out
    if t is float:
        return -a
    raise type_error(a, "cannot be negated")


def split_str(s: str, sep: str) -> list[str]:
    if s == "":
        return []
    if sep == "":
        # jq 1.7 splits into characters... as bytes-free codepoints
        return list(s)
    return s.split(sep)


def length(x: Any) -> Any:
    t = type(x)
    if t is str or t is list or t is dict:
        return len(x)
    if x is None:
        return 0
    if t is int:
        return abs(x)
    if t is float or t is LitNum:
        return abs(float(x))
    raise type_error(x, "has no length")
