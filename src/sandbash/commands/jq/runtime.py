"""Runtime pieces shared by the compiler and the builtins.

A compiled filter is an `F` with `run(v, env)` returning an iterable of
outputs and `prun(pv, env)` running it as a path expression over
`(path, value)` pairs (`path` is a tuple of keys, or None for a value that
is not a path of the input, as jq's `path_intact` check decides). Filters
marked `single` always produce exactly one output (or raise) and also offer
`one(v, env)`, which lets pipelines of simple steps skip generators.

The environment is a linked tuple `(item, parent, rt)`: one link per
variable, function closure or label in scope, resolved at compile time to a
depth. `rt` (the runtime services) rides along in every link.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from .errors import JqError
from .memory import JqMemory
from .numbers import LitNum, to_int_index
from .values import charge, equal, sort_key, trunc_dump, typename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (Any as a string: typing is not imported at run time)
Path = tuple["Any", ...]
PV = tuple[Path | None, "Any"]
Env = tuple["Any", "Any", "Rt"]
MAX_ARRAY_GROWTH = 10_000_000


class Rt:
    """Services a running program needs (inputs, environment, budget, clock)."""

    def __init__(self) -> None:
        self.checkpoint: Callable[[int], None] = lambda work: None
        self.next_input: Callable[[], Any] = _no_input
        self.env_object: dict[str, Any] = {}
        # extra per-run values for embedders (yq's document index)
        self.named_args: dict[str, Any] = {}
        self.debug: Callable[[str], None] = lambda text: None
        self.stderr: Callable[[str], None] = lambda text: None
        self.clock: Callable[[], float] = lambda: 0.0
        self.input_filename: Callable[[], Any] = lambda: None
        self.input_line: Callable[[], int] = lambda: 0
        self.budget: Any = None
        self.mem: JqMemory | None = None


def _no_input() -> Any:
    raise JqError("break")


class F:
    """Base of compiled filters."""

    __slots__ = ()
    single = False

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        raise NotImplementedError

    def one(self, v: Any, env: Env) -> Any:
        for x in self.run(v, env):
            return x
        raise AssertionError("single filter produced nothing")

    def prun(self, pv: PV, env: Env) -> Iterable[PV]:
        """Default for filters that are not path expressions: an output is a
        path only when it is the input itself (jq's identity check)."""
        path, v = pv
        for out in self.run(v, env):
            yield (path if identical(out, v) else None), out


class Closure:
    """A function body with the environment it was defined in."""

    __slots__ = ("body", "env")

    def __init__(self, body: F, env: Any) -> None:
        self.body = body
        self.env = env


def lookup(env: Env, depth: int) -> Any:
    e: Any = env
    for _ in range(depth):
        e = e[1]
    return e[0]


def identical(a: Any, b: Any) -> bool:
    """jv_identical: same scalar value, or the very same container/string."""
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b):
        return (ta in (int, float, LitNum) and type(b) in (int, float, LitNum)) and a == b
    return ta in (int, float, LitNum) and a == b


# ---------------------------------------------------------------- indexing


def index(t: Any, k: Any) -> Any:
    """jv_get: `t[k]` with jq's null and error rules."""
    tt = type(t)
    tk = type(k)
    if tt is dict and tk is str:
        return t.get(k)
    if tt is list and (tk is int or tk is float or tk is LitNum):
        if k != k:
            return None
        i = to_int_index(k)
        if i < 0:
            i += len(t)
            if i < 0:
                return None
        return t[i] if i < len(t) else None
    if t is None and (tk is str or tk is int or tk is float or tk is LitNum or tk is dict):
        return None
    if tk is dict and (tt is list or tt is str):
        start, end = slice_bounds(t, k)
        return t[start:end]
    if tt is list and tk is list:
        return indices_of(t, k)
    if tk is str and len(k.encode("utf-8", "surrogatepass")) < 30:
        raise JqError(f'Cannot index {typename(t)} with string "{k}"')
    raise JqError(f"Cannot index {typename(t)} with {typename(k)}")


def indices_of(t: list[Any], k: list[Any]) -> Any:
    if not k:
        return None
    n = len(k)
    return [i for i in range(len(t) - n + 1) if all(equal(t[i + j], k[j]) for j in range(n))]


def slice_bounds(t: Any, k: dict[str, Any]) -> tuple[int, int]:
    """parse_slice: clamp `{"start":..,"end":..}` onto t (start rounds down, end up)."""
    length = len(t)
    s = k.get("start")
    e = k.get("end")
    if s is None:
        s = 0
    if e is None:
        e = length
    if type(s) not in (int, float, LitNum) or type(e) not in (int, float, LitNum):
        raise JqError("Array/string slice indices must be integers")
    ds = float(s)
    de = float(e)
    if ds != ds:
        ds = 0.0
    if ds < 0:
        ds += length
    if ds < 0:
        ds = 0.0
    if ds > length:
        ds = float(length)
    start = int(ds)
    if de != de:
        de = float(length)
    if de < 0:
        de += length
    if de < 0:
        de = float(start)
    end = length if de > length else int(de)
    if end < length and end < de:
        end += 1
    if end < start:
        end = start
    return start, end


def slice_value(t: Any, start: Any, end: Any) -> Any:
    if t is None:
        return None
    if type(t) is not list and type(t) is not str:
        raise JqError(f"Cannot index {typename(t)} with object")
    a, b = slice_bounds(t, {"start": start, "end": end})
    return t[a:b]


def iterate(t: Any, opt: bool = False) -> Iterable[Any]:
    tt = type(t)
    if tt is list:
        items: list[Any] = t  # (typed by assignment: typing's cast is not imported at run time)
        return items
    if tt is dict:
        members: dict[str, Any] = t
        return members.values()
    if opt:
        return ()
    raise JqError(
        f"Cannot iterate over {typename(t)}" + (f" ({trunc_dump(t)})" if t is not None else " (null)")
    )


def iterate_paths(path: Path, t: Any, opt: bool = False) -> Iterator[tuple[Path, Any]]:
    tt = type(t)
    if tt is list:
        for i, x in enumerate(t):
            yield path + (i,), x
    elif tt is dict:
        for k, x in t.items():
            yield path + (k,), x
    elif not opt:
        raise JqError(
            f"Cannot iterate over {typename(t)}" + (f" ({trunc_dump(t)})" if t is not None else " (null)")
        )


# ---------------------------------------------------------------- paths


def set_key(t: Any, k: Any, v: Any) -> Any:
    """jv_set: a copy of t with t[k] = v."""
    tk = type(k)
    if tk is str and (t is None or type(t) is dict):
        out = dict(t) if t is not None else {}
        out[k] = v
        return out
    if (tk is int or tk is float or tk is LitNum) and (t is None or type(t) is list):
        if k != k:
            raise JqError("Cannot set array element at NaN index")
        arr = list(t) if t is not None else []
        i = to_int_index(k)
        if i < 0:
            i += len(arr)
            if i < 0:
                raise JqError("Out of bounds negative array index")
        if i < len(arr):
            arr[i] = v
        else:
            if i - len(arr) > MAX_ARRAY_GROWTH:
                raise JqError("Array index too large")
            charge(1 + i - len(arr))
            arr.extend([None] * (i - len(arr)))
            arr.append(v)
        return arr
    if tk is dict and (t is None or type(t) is list):
        arr = list(t) if t is not None else []
        start, end = slice_bounds(arr, k)
        if type(v) is not list:
            raise JqError("A slice of an array can only be assigned another array")
        arr[start:end] = v
        return arr
    if tk is dict and type(t) is str:
        raise JqError("Cannot update string slices")
    raise JqError(f"Cannot update field at {typename(k)} index of {typename(t)}")


def getpath(root: Any, path: Any) -> Any:
    if type(path) is not list and type(path) is not tuple:
        raise JqError("Path must be specified as an array")
    v = root
    for k in path:
        if v is None:
            # jq keeps going through nulls (`null | getpath(["a","b"])` is null)
            index(None, k)
            continue
        v = index(v, k)
    return v


def setpath(root: Any, path: Any, value: Any) -> Any:
    if type(path) is not list and type(path) is not tuple:
        raise JqError("Path must be specified as an array")
    return _setpath(root, path, 0, value)


def _setpath(root: Any, path: Any, i: int, value: Any) -> Any:
    if i == len(path):
        return value
    k = path[i]
    sub = index(root, k)
    return set_key(root, k, _setpath(sub, path, i + 1, value))


def delpaths(root: Any, paths: Any) -> Any:
    if type(paths) is not list:
        raise JqError("Paths must be specified as an array")
    for p in paths:
        if type(p) is not list:
            raise JqError(f"Path must be specified as array, not {typename(p)}")
    if not paths:
        return root
    ordered = sorted(paths, key=sort_key)
    if not ordered[0]:
        return None
    return _delpaths_sorted(root, ordered, 0)


def _delpaths_sorted(obj: Any, paths: list[list[Any]], start: int) -> Any:
    delkeys: list[Any] = []
    i = 0
    n = len(paths)
    while i < n:
        key = paths[i][start]
        j = i
        while j < n and equal(key, paths[j][start]):
            j += 1
        if len(paths[i]) == start + 1:
            delkeys.append(key)
        else:
            sub = index(obj, key)
            if sub is not None:
                obj = set_key(obj, key, _delpaths_sorted(sub, paths[i:j], start + 1))
        i = j
    return delete_keys(obj, delkeys)


def delete_keys(t: Any, keys: list[Any]) -> Any:
    """jv_dels."""
    if t is None or not keys:
        return t
    if type(t) is list:
        length = len(t)
        drop: set[int] = set()
        ranges: list[tuple[int, int]] = []
        for k in keys:
            tk = type(k)
            if tk is int or tk is float or tk is LitNum:
                i = to_int_index(k)
                drop.add(i + length if i < 0 else i)
            elif tk is dict:
                ranges.append(slice_bounds(t, k))
            else:
                raise JqError(f"Cannot delete {typename(k)} element of array")
        return [x for i, x in enumerate(t) if i not in drop and not any(a <= i < b for a, b in ranges)]
    if type(t) is dict:
        out = dict(t)
        for k in keys:
            if type(k) is not str:
                raise JqError(f"Cannot delete {typename(k)} field of object")
            out.pop(k, None)
        return out
    raise JqError(f"Cannot delete fields from {typename(t)}")


def path_error(kind: str, key: Any, value: Any) -> JqError:
    if kind == "index":
        return JqError(
            f"Invalid path expression near attempt to access element {trunc_dump(key)} of {trunc_dump(value, 30)}"
        )
    if kind == "iterate":
        return JqError(f"Invalid path expression near attempt to iterate through {trunc_dump(value, 30)}")
    return JqError(f"Invalid path expression with result {trunc_dump(value, 30)}")
