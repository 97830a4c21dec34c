"""Compiled filters for the core jq language (see runtime.F)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from .errors import BreakSignal, JqError
from .runtime import (
    PV,
    Closure,
    Env,
    F,
    Path,
    index,
    iterate,
    iterate_paths,
    lookup,
    path_error,
    slice_value,
)
from .values import negate, trunc_dump, truthy, typename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class FIdentity(F):
    __slots__ = ()
    single = True

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return (v,)

    def one(self, v: Any, env: Env) -> Any:
        return v

    def prun(self, pv: PV, env: Env) -> Iterable[PV]:
        return (pv,)


class FLiteral(F):
    __slots__ = ("value",)
    single = True

    def __init__(self, value: Any) -> None:
        self.value = value

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return (self.value,)

    def one(self, v: Any, env: Env) -> Any:
        return self.value


class FEmpty(F):
    __slots__ = ()

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return ()

    def prun(self, pv: PV, env: Env) -> Iterable[PV]:
        return ()


class FVar(F):
    __slots__ = ("depth",)
    single = True

    def __init__(self, depth: int) -> None:
        self.depth = depth

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return (lookup(env, self.depth),)

    def one(self, v: Any, env: Env) -> Any:
        e: Any = env
        for _ in range(self.depth):
            e = e[1]
        return e[0]


class FEnvVar(F):
    """`$ENV`."""

    __slots__ = ()
    single = True

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return (env[2].env_object,)

    def one(self, v: Any, env: Env) -> Any:
        return env[2].env_object


class FIndex(F):
    __slots__ = ("target", "key", "opt", "single")

    def __init__(self, target: F, key: F, opt: bool) -> None:
        self.target = target
        self.key = key
        self.opt = opt
        self.single = target.single and key.single and not opt

    def one(self, v: Any, env: Env) -> Any:
        return index(self.target.one(v, env), self.key.one(v, env))

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.single:
            return (index(self.target.one(v, env), self.key.one(v, env)),)
        return self._gen(v, env)

    def _gen(self, v: Any, env: Env) -> Iterator[Any]:
        for k in self.key.run(v, env):
            for t in self.target.run(v, env):
                if self.opt:
                    try:
                        out = index(t, k)
                    except JqError:
                        continue
                    yield out
                else:
                    yield index(t, k)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        v = pv[1]
        for k in self.key.run(v, env):
            for path, t in self.target.prun(pv, env):
                if path is None:
                    if self.opt:
                        continue
                    raise path_error("index", k, t)
                try:
                    out = index(t, k)
                except JqError:
                    if self.opt:
                        continue
                    raise
                yield path + (k,), out


class FField(F):
    """`.name` on the input: the hot path of most programs."""

    __slots__ = ("name",)
    single = True

    def __init__(self, name: str) -> None:
        self.name = name

    def one(self, v: Any, env: Env) -> Any:
        if type(v) is dict:
            return v.get(self.name)
        return index(v, self.name)

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if type(v) is dict:
            return (v.get(self.name),)
        return (index(v, self.name),)

    def prun(self, pv: PV, env: Env) -> Iterable[PV]:
        path, v = pv
        if path is None:
            raise path_error("index", self.name, v)
        return ((path + (self.name,), self.one(v, env)),)


class FSlice(F):
    __slots__ = ("target", "start", "stop", "opt")

    def __init__(self, target: F, start: F, stop: F, opt: bool) -> None:
        self.target = target
        self.start = start
        self.stop = stop
        self.opt = opt

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for e in self.stop.run(v, env):
            for s in self.start.run(v, env):
                for t in self.target.run(v, env):
                    try:
                        yield slice_value(t, s, e)
                    except JqError:
                        if not self.opt:
                            raise

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        v = pv[1]
        for e in self.stop.run(v, env):
            for s in self.start.run(v, env):
                for path, t in self.target.prun(pv, env):
                    key = {"start": s, "end": e}
                    if path is None:
                        raise path_error("index", key, t)
                    try:
                        out = slice_value(t, s, e)
                    except JqError:
                        if self.opt:
                            continue
                        raise
                    yield path + (key,), out


class FIterate(F):
    __slots__ = ("target", "opt")

    def __init__(self, target: F, opt: bool) -> None:
        self.target = target
        self.opt = opt

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.target.single:
            t = self.target.one(v, env)
            out = iterate(t, self.opt)
            env[2].checkpoint(1 + len(out) // 16 if type(out) is list else 1)  # type: ignore[arg-type]
            return out
        return self._gen(v, env)

    def _gen(self, v: Any, env: Env) -> Iterator[Any]:
        for t in self.target.run(v, env):
            yield from iterate(t, self.opt)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        for path, t in self.target.prun(pv, env):
            if path is None:
                if self.opt:
                    continue
                raise path_error("iterate", None, t)
            yield from iterate_paths(path, t, self.opt)


class FPipe(F):
    __slots__ = ("a", "b", "single")

    def __init__(self, a: F, b: F) -> None:
        self.a = a
        self.b = b
        self.single = a.single and b.single

    def one(self, v: Any, env: Env) -> Any:
        return self.b.one(self.a.one(v, env), env)

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.a.single:
            return self.b.run(self.a.one(v, env), env)
        return self._gen(v, env)

    def _gen(self, v: Any, env: Env) -> Iterator[Any]:
        b = self.b
        if b.single:
            one = b.one
            for x in self.a.run(v, env):
                yield one(x, env)
        else:
            brun = b.run
            for x in self.a.run(v, env):
                yield from brun(x, env)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        b = self.b
        for x in self.a.prun(pv, env):
            yield from b.prun(x, env)


class FComma(F):
    __slots__ = ("a", "b")

    def __init__(self, a: F, b: F) -> None:
        self.a = a
        self.b = b

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        yield from self.a.run(v, env)
        yield from self.b.run(v, env)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        yield from self.a.prun(pv, env)
        yield from self.b.prun(pv, env)


class FBinOp(F):
    """Arithmetic and comparison: the right operand is the outer loop, as in jq."""

    __slots__ = ("fn", "a", "b", "single")

    def __init__(self, fn: Callable[[Any, Any], Any], a: F, b: F) -> None:
        self.fn = fn
        self.a = a
        self.b = b
        self.single = a.single and b.single

    def one(self, v: Any, env: Env) -> Any:
        rb = self.b.one(v, env)
        return self.fn(self.a.one(v, env), rb)

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.single:
            rb = self.b.one(v, env)
            return (self.fn(self.a.one(v, env), rb),)
        return self._gen(v, env)

    def _gen(self, v: Any, env: Env) -> Iterator[Any]:
        fn = self.fn
        for rb in self.b.run(v, env):
            for ra in self.a.run(v, env):
                yield fn(ra, rb)


class FAnd(F):
    __slots__ = ("a", "b")

    def __init__(self, a: F, b: F) -> None:
        self.a = a
        self.b = b

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for x in self.a.run(v, env):
            if not truthy(x):
                yield False
                continue
            for y in self.b.run(v, env):
                yield truthy(y)


class FOr(F):
    __slots__ = ("a", "b")

    def __init__(self, a: F, b: F) -> None:
        self.a = a
        self.b = b

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for x in self.a.run(v, env):
            if truthy(x):
                yield True
                continue
            for y in self.b.run(v, env):
                yield truthy(y)


class FAlt(F):
    """`a // b`: a's truthy outputs, else b's outputs (a's errors propagate)."""

    __slots__ = ("a", "b")

    def __init__(self, a: F, b: F) -> None:
        self.a = a
        self.b = b

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        found = False
        for x in self.a.run(v, env):
            if x is not None and x is not False:
                found = True
                yield x
        if not found:
            yield from self.b.run(v, env)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        found = False
        for x in self.a.prun(pv, env):
            if truthy(x[1]):
                found = True
                yield x
        if not found:
            yield from self.b.prun(pv, env)


class FArray(F):
    __slots__ = ("body",)
    single = True

    def __init__(self, body: F | None) -> None:
        self.body = body

    def one(self, v: Any, env: Env) -> Any:
        if self.body is None:
            return []
        mem = env[2].mem
        if mem is None:
            return list(self.body.run(v, env))
        return mem.collect(iter(self.body.run(v, env)))

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return (self.one(v, env),)


def _check_key(k: Any) -> str:
    if type(k) is not str:
        raise JqError(f"Cannot use {typename(k)} ({trunc_dump(k)}) as object key")
    return k  # type: ignore[no-any-return]


class FObject(F):
    __slots__ = ("entries", "single", "fast")

    def __init__(self, entries: list[tuple[F, F]]) -> None:
        self.entries = entries
        self.single = all(k.single and val.single for k, val in entries)
        # literal string keys and single values: build the dict directly
        self.fast = self.single and all(type(k) is FLiteral and type(k.value) is str for k, _ in entries)

    def one(self, v: Any, env: Env) -> Any:
        if self.fast:
            return {k.value: val.one(v, env) for k, val in self.entries}  # type: ignore[attr-defined]
        out: dict[str, Any] = {}
        for k, val in self.entries:
            key = _check_key(k.one(v, env))
            out[key] = val.one(v, env)
        return out

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.single:
            return (self.one(v, env),)
        return self._gen(v, env, 0, {})

    def _gen(self, v: Any, env: Env, i: int, acc: dict[str, Any]) -> Iterator[Any]:
        if i == len(self.entries):
            yield dict(acc)
            return
        kf, vf = self.entries[i]
        for k in kf.run(v, env):
            key = _check_key(k)
            for val in vf.run(v, env):
                acc2 = dict(acc)
                acc2[key] = val
                yield from self._gen(v, env, i + 1, acc2)


class FString(F):
    """String interpolation; `fmt` formats each interpolated value."""

    __slots__ = ("parts", "fmt", "single")

    def __init__(self, parts: list[Any], fmt: Callable[[Any], str]) -> None:
        self.parts = parts  # str or F
        self.fmt = fmt
        self.single = all(type(p) is str or p.single for p in parts)

    def one(self, v: Any, env: Env) -> Any:
        fmt = self.fmt
        return "".join(p if type(p) is str else fmt(p.one(v, env)) for p in self.parts)

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.single:
            return (self.one(v, env),)
        return self._gen(v, env, len(self.parts) - 1, "")

    def _gen(self, v: Any, env: Env, i: int, tail: str) -> Iterator[Any]:
        # the last part is the outer loop, as jq evaluates it
        if i < 0:
            yield tail
            return
        p = self.parts[i]
        if type(p) is str:
            yield from self._gen(v, env, i - 1, p + tail)
            return
        for x in p.run(v, env):
            yield from self._gen(v, env, i - 1, self.fmt(x) + tail)


class FIf(F):
    __slots__ = ("cond", "then", "orelse", "single")

    def __init__(self, cond: F, then: F, orelse: F) -> None:
        self.cond = cond
        self.then = then
        self.orelse = orelse
        self.single = cond.single and then.single and orelse.single

    def one(self, v: Any, env: Env) -> Any:
        c = self.cond.one(v, env)
        if c is not None and c is not False:
            return self.then.one(v, env)
        return self.orelse.one(v, env)

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.cond.single:
            c = self.cond.one(v, env)
            if c is not None and c is not False:
                return self.then.run(v, env)
            return self.orelse.run(v, env)
        return self._gen(v, env)

    def _gen(self, v: Any, env: Env) -> Iterator[Any]:
        for c in self.cond.run(v, env):
            if c is not None and c is not False:
                yield from self.then.run(v, env)
            else:
                yield from self.orelse.run(v, env)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        for c in self.cond.run(pv[1], env):
            if truthy(c):
                yield from self.then.prun(pv, env)
            else:
                yield from self.orelse.prun(pv, env)


class FTry(F):
    """`try body catch handler`: the first error ends the body's outputs."""

    __slots__ = ("body", "handler")

    def __init__(self, body: F, handler: F | None) -> None:
        self.body = body
        self.handler = handler

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        try:
            yield from self.body.run(v, env)
        except JqError as e:
            if self.handler is not None:
                yield from self.handler.run(e.value, env)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        try:
            yield from self.body.prun(pv, env)
        except JqError as e:
            if self.handler is not None:
                yield from self.handler.prun((None, e.value), env)


class FNeg(F):
    __slots__ = ("body", "single")

    def __init__(self, body: F) -> None:
        self.body = body
        self.single = body.single

    def one(self, v: Any, env: Env) -> Any:
        return negate(self.body.one(v, env))

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.single:
            return (negate(self.body.one(v, env)),)
        return (negate(x) for x in self.body.run(v, env))


class FLabel(F):
    __slots__ = ("body",)

    def __init__(self, body: F) -> None:
        self.body = body

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        token = object()
        try:
            yield from self.body.run(v, (token, env, env[2]))
        except BreakSignal as b:
            if b.token is not token:
                raise

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        token = object()
        try:
            yield from self.body.prun(pv, (token, env, env[2]))
        except BreakSignal as b:
            if b.token is not token:
                raise


class FBreak(F):
    __slots__ = ("depth",)

    def __init__(self, depth: int) -> None:
        self.depth = depth

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        raise BreakSignal(lookup(env, self.depth))

    def prun(self, pv: PV, env: Env) -> Iterable[PV]:
        raise BreakSignal(lookup(env, self.depth))


class FDef(F):
    """`def f: body; rest` -- binds a closure for rest (and for body, recursively)."""

    __slots__ = ("body", "rest", "single")

    def __init__(self, body: F, rest: F) -> None:
        self.body = body
        self.rest = rest
        self.single = rest.single

    def _env(self, env: Env) -> Env:
        cl = Closure(self.body, None)
        env2 = (cl, env, env[2])
        cl.env = env2
        return env2

    def one(self, v: Any, env: Env) -> Any:
        return self.rest.one(v, self._env(env))

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return self.rest.run(v, self._env(env))

    def prun(self, pv: PV, env: Env) -> Iterable[PV]:
        return self.rest.prun(pv, self._env(env))


class FCallParam(F):
    """Calling a filter parameter: run the argument in its caller's environment."""

    __slots__ = ("depth",)

    def __init__(self, depth: int) -> None:
        self.depth = depth

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        cl = lookup(env, self.depth)
        return cl.body.run(v, cl.env)  # type: ignore[no-any-return]

    def prun(self, pv: PV, env: Env) -> Iterable[PV]:
        cl = lookup(env, self.depth)
        return cl.body.prun(pv, cl.env)  # type: ignore[no-any-return]


class FCall(F):
    """Calling a jq-defined function (user or library).

    `depth` locates the closure in the environment; library functions have
    a fixed closure instead. `kinds` says which parameters are `$values`."""

    __slots__ = ("depth", "fixed", "args", "kinds")

    def __init__(self, depth: int, fixed: Closure | None, args: list[F], kinds: list[bool]) -> None:
        self.depth = depth
        self.fixed = fixed
        self.args = args
        self.kinds = kinds

    def _closure(self, env: Env) -> Closure:
        if self.fixed is not None:
            return self.fixed
        return lookup(env, self.depth)  # type: ignore[no-any-return]

    def _bind(self, v: Any, env: Env) -> Iterator[Env]:
        rt = env[2]
        rt.checkpoint(1)
        cl = self._closure(env)
        base: Any = cl.env if cl.env is not None else (None, None, rt)
        if not self.args:
            yield base
            return
        yield from self._bind_from(0, v, env, base)

    def _bind_from(self, i: int, v: Any, env: Env, acc: Env) -> Iterator[Env]:
        if i == len(self.args):
            yield acc
            return
        arg = self.args[i]
        rt = env[2]
        acc = (Closure(arg, env), acc, rt)
        if not self.kinds[i]:
            yield from self._bind_from(i + 1, v, env, acc)
            return
        for x in arg.run(v, env):
            yield from self._bind_from(i + 1, v, env, (x, acc, rt))

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if not any(self.kinds):
            # no $params: one environment, no generator needed
            rt = env[2]
            rt.checkpoint(1)
            cl = self._closure(env)
            e: Any = cl.env if cl.env is not None else (None, None, rt)
            for arg in self.args:
                e = (Closure(arg, env), e, rt)
            return cl.body.run(v, e)
        return self._gen(v, env)

    def _gen(self, v: Any, env: Env) -> Iterator[Any]:
        body = self._closure(env).body
        for e in self._bind(v, env):
            yield from body.run(v, e)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        body = self._closure(env).body
        for e in self._bind(pv[1], env):
            yield from body.prun(pv, e)


class FRecurseAll(F):
    """`..` (recurse): pre-order over all values, without Python recursion."""

    __slots__ = ()

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        checkpoint = env[2].checkpoint
        yield v
        if type(v) is not list and type(v) is not dict:
            return
        stack: list[Iterator[Any]] = [iter(iterate(v))]
        while stack:
            x = next(stack[-1], _END)
            if x is _END:
                stack.pop()
                continue
            checkpoint(1)
            yield x
            tx = type(x)
            if tx is list:
                stack.append(iter(x))
            elif tx is dict:
                stack.append(iter(x.values()))

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        checkpoint = env[2].checkpoint
        yield pv
        path, v = pv
        if path is None or (type(v) is not list and type(v) is not dict):
            return
        stack: list[Iterator[tuple[Path, Any]]] = [iterate_paths(path, v)]
        while stack:
            x = next(stack[-1], _END)
            if x is _END:
                stack.pop()
                continue
            checkpoint(1)
            yield x
            p, val = x
            if type(val) is list or type(val) is dict:
                stack.append(iterate_paths(p, val))


_END: Any = object()


def run_path(f: F, v: Any, env: Env) -> Iterator[list[Any]]:
    """`path(f)`: the paths f's outputs come from."""
    for path, out in f.prun(((), v), env):
        if path is None:
            raise path_error("result", None, out)
        yield list(path)
