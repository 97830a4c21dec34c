"""Native builtins over collections: map, with_entries, sort_by and
friends, any/all, add, walk, to_entries/from_entries."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

from .builtins_core import Registry, cls, value
from .errors import JqError
from .memory import live
from .runtime import Env, F, index, iterate
from .values import add, simple_keys, sort_key, trunc_dump, truthy, type_error2, typename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_END: Any = object()


class FWithPaths(F):
    """to_entries-style helpers that need filter arguments: map, map_values, with_entries."""

    __slots__ = ("kind", "f")

    def __init__(self, kind: str, f: F) -> None:
        self.kind = kind
        self.f = f

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        f = self.f
        kind = self.kind
        if kind == "map":
            items = iterate(v)
            env[2].checkpoint(1 + len(v) // 16)
            mem = env[2].mem
            if f.single:
                one = f.one
                if mem is not None:  # (f's outputs held as they come: `map("x" * 900000)`)
                    return (mem.collect(one(x, env) for x in items),)
                return ([one(x, env) for x in items],)
            run = f.run
            if mem is not None:
                return (mem.collect(y for x in items for y in run(x, env)),)
            return ([y for x in items for y in run(x, env)],)
        if kind == "map_values":
            return (_map_values(v, f, env),)
        entries = to_entries(v)
        out: list[Any] = []
        with live(out):
            for e in entries:
                out.extend(f.run(e, env))
            return (from_entries(out),)


def _map_values(v: Any, f: F, env: Env) -> Any:
    """`.[] |= f`: first output of f per element; no output drops it."""
    if type(v) is dict:
        out: dict[str, Any] = {}
        with live(out):  # (what f made for the keys before stays counted: `map_values("x" * 900000)`)
            for k, x in v.items():
                for y in f.run(x, env):
                    out[k] = y
                    break
        return out
    if type(v) is list:
        res: list[Any] = []
        with live(res):
            for x in v:
                for y in f.run(x, env):
                    res.append(y)
                    break
        return res
    raise JqError(
        f"Cannot iterate over {typename(v)}" + (f" ({trunc_dump(v)})" if v is not None else " (null)")
    )


def to_entries(v: Any) -> list[Any]:
    if type(v) is dict:
        return [{"key": k, "value": x} for k, x in v.items()]
    if type(v) is list:
        return [{"key": i, "value": x} for i, x in enumerate(v)]
    raise JqError(f"{typename(v)} ({trunc_dump(v)}) has no keys")


def from_entries(v: Any) -> Any:
    """jq's definition: key from .key // .Key // .name // .Name, value from
    .value if present else .Value; keys must be strings."""
    out: dict[str, Any] = {}
    for e in iterate(v):
        k: Any = None
        for name in ("key", "Key", "name", "Name"):
            k = index(e, name)
            if truthy(k):
                break
        if type(k) is not str:
            raise JqError(f"Cannot use {typename(k)} ({trunc_dump(k)}) as object key")
        if e is None:
            val = None
        elif type(e) is dict:
            val = e["value"] if "value" in e else e.get("Value")
        else:
            raise JqError(f"Cannot check whether {typename(e)} has a string key")
        out[k] = val
    return out


class FSortBy(F):
    """sort_by, group_by, unique_by, min_by, max_by: keys are `[f]` per element."""

    __slots__ = ("kind", "f")

    def __init__(self, kind: str, f: F) -> None:
        self.kind = kind
        self.f = f

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if type(v) is not list:
            keys = [list(self.f.run(x, env)) for x in iterate(v)]
            what = "iterated over" if self.kind in ("min", "max") else "sorted, as they are not both arrays"
            raise type_error2(v, keys, f"cannot be {what}")
        env[2].checkpoint(1 + len(v))
        f = self.f
        memo: dict[int, tuple[Any, Any]] = {}  # (parts shared between the keys are keyed once)
        mem = env[2].mem
        # the keys are live while they are made (`sort_by("x" * 900000)`: a measurement counts them)
        if f.single:
            made = (f.one(x, env) for x in v)
            raw = mem.collect(made) if mem is not None else list(made)
            keys = raw if simple_keys(raw) else [sort_key([k], memo) for k in raw]
        else:
            keyed_parts = (sort_key(list(f.run(x, env)), memo) for x in v)
            keys = mem.collect(keyed_parts) if mem is not None else list(keyed_parts)
        keyed = [(k, i, x) for i, (k, x) in enumerate(zip(keys, v, strict=True))]
        kind = self.kind
        if kind in ("min", "max"):
            if not keyed:
                return (None,)
            best = keyed[0]
            for item in keyed[1:]:
                if (kind == "min" and item[0] < best[0]) or (kind == "max" and item[0] >= best[0]):
                    best = item
            return (best[2],)
        keyed.sort(key=lambda t: (t[0], t[1]))
        if kind == "sort":
            return ([x for _, _, x in keyed],)
        groups: list[list[Any]] = []
        prev: Any = _END
        for k, _, x in keyed:
            if prev is not _END and k == prev:
                groups[-1].append(x)
            else:
                groups.append([x])
            prev = k
        if kind == "group":
            return (groups,)
        return ([g[0] for g in groups],)


class FAnyAll(F):
    __slots__ = ("kind", "gen", "cond")

    def __init__(self, kind: str, gen: F | None, cond: F | None) -> None:
        self.kind = kind
        self.gen = gen
        self.cond = cond

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        items = self.gen.run(v, env) if self.gen is not None else iterate(v)
        want = self.kind == "any"
        cond = self.cond
        for x in items:
            results = cond.run(x, env) if cond is not None else (x,)
            for c in results:
                if truthy(c) == want:
                    return (want,)
        return (not want,)


class FIsEmpty(F):
    __slots__ = ("f",)

    def __init__(self, f: F) -> None:
        self.f = f

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        for _ in self.f.run(v, env):
            return (False,)
        return (True,)


class FAddBy(F):
    """add(f) (jq 1.8): the sum of f's outputs."""

    __slots__ = ("f",)

    def __init__(self, f: F) -> None:
        self.f = f

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return (add_all(self.f.run(v, env), env),)


def add_all(items: Iterable[Any], env: Env | None = None) -> Any:
    acc: Any = None
    it = iter(items)
    for x in it:
        acc = x
        break
    else:
        return None
    # strings and arrays: join once instead of quadratic concatenation
    if type(acc) is str or type(acc) is list:
        parts: list[Any] = [acc]
        kind = type(acc)
        for x in it:
            if x is None:
                continue
            if type(x) is not kind:
                acc = add("".join(parts) if kind is str else [y for p in parts for y in p], x)
                for y in it:
                    acc = add(acc, y)
                return acc
            parts.append(x)
        return "".join(parts) if kind is str else [y for p in parts for y in p]
    if type(acc) is dict:
        merged = dict(acc)
        for x in it:
            if type(x) is dict:
                merged.update(x)
            else:
                acc = add(merged, x)
                for y in it:
                    acc = add(acc, y)
                return acc
        return merged
    for x in it:
        acc = add(acc, x)
    return acc


class FWalk(F):
    __slots__ = ("f",)

    def __init__(self, f: F) -> None:
        self.f = f

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return self._walk(v, env)

    def _walk(self, v: Any, env: Env) -> Iterator[Any]:
        env[2].checkpoint(1)
        t = type(v)
        if t is list:
            made = (y for x in v for y in self._walk(x, env))
            mem = env[2].mem
            new: Any = mem.collect(made) if mem is not None else list(made)
        elif t is dict:
            new = {}
            with live(new):  # (what f made for the keys before stays counted)
                for k, x in v.items():
                    for y in self._walk(x, env):
                        new[k] = y
                        break
        else:
            new = v
        yield from self.f.run(new, env)


def _sort_by(kind: str, args: list[F]) -> F:
    return FSortBy(kind, args[0])


def _any_all(kind: str, args: list[F]) -> F:
    if len(args) == 2:
        return FAnyAll(kind, args[0], args[1])
    return FAnyAll(kind, None, args[0] if args else None)


def register(reg: Registry) -> None:
    cls(reg, "isempty", 1, FIsEmpty)
    value(reg, "to_entries", 0, to_entries)
    value(reg, "from_entries", 0, from_entries)
    reg[("map", 1)] = lambda args: FWithPaths("map", args[0])
    reg[("map_values", 1)] = lambda args: FWithPaths("map_values", args[0])
    reg[("with_entries", 1)] = lambda args: FWithPaths("with_entries", args[0])
    for kind in ("sort", "group", "unique", "min", "max"):
        reg[(kind + "_by", 1)] = functools.partial(_sort_by, kind)
    for kind in ("any", "all"):
        for arity in (0, 1, 2):
            reg[(kind, arity)] = functools.partial(_any_all, kind)
    value(reg, "add", 0, lambda v: add_all(iterate(v)))
    cls(reg, "add", 1, FAddBy)
    cls(reg, "walk", 1, FWalk)
