"""Native builtins: the registry, control flow, paths and I/O.

A native is registered as a factory taking the compiled argument filters.
Most natives are plain functions of the input and their `$value`
arguments (`FNative`); generators and anything that must also work as a
path expression (select, recurse, first, limit, getpath, ...) get their own
filter class with a `prun`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from .encode import dumps
from .errors import HaltSignal, JqError
from .filters import FEmpty, FLiteral, FRecurseAll, run_path
from .runtime import PV, Env, F, Path, delpaths, getpath, iterate_paths, path_error, setpath
from .values import compare, is_number, truthy, type_error, type_error2, typename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NativeFactory = Callable[[list[F]], F]
Registry = dict[tuple[str, int], NativeFactory]


class FNative(F):
    """fn(input, *args): the last argument is the outer loop, as in jq."""

    __slots__ = ("fn", "args", "single")

    def __init__(self, fn: Callable[..., Any], args: list[F]) -> None:
        self.fn = fn
        self.args = args
        self.single = all(a.single for a in args)

    def one(self, v: Any, env: Env) -> Any:
        args = self.args
        if not args:
            return self.fn(v)
        if len(args) == 1:
            return self.fn(v, args[0].one(v, env))
        vals = [a.one(v, env) for a in reversed(args)]
        vals.reverse()
        return self.fn(v, *vals)

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.single:
            return (self.one(v, env),)
        return self._gen(v, env)

    def _gen(self, v: Any, env: Env) -> Iterator[Any]:
        fn = self.fn
        for vals in cartesian(self.args, v, env):
            yield fn(v, *vals)


class FRtNative(FNative):
    """Like FNative, but fn also receives the runtime: fn(rt, input, *args)."""

    __slots__ = ()

    def __init__(self, fn: Callable[..., Any], args: list[F]) -> None:
        super().__init__(fn, args)
        self.single = False

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        rt = env[2]
        for vals in cartesian(self.args, v, env):
            yield self.fn(rt, v, *vals)


def cartesian(args: list[F], v: Any, env: Env) -> Iterator[list[Any]]:
    if not args:
        yield []
        return
    last = args[-1]
    rest = args[:-1]
    for x in last.run(v, env):
        for init in cartesian(rest, v, env):
            yield init + [x]


def value(reg: Registry, name: str, arity: int, fn: Callable[..., Any]) -> None:
    reg[(name, arity)] = lambda args: FNative(fn, args)


def rt_value(reg: Registry, name: str, arity: int, fn: Callable[..., Any]) -> None:
    reg[(name, arity)] = lambda args: FRtNative(fn, args)


def cls(reg: Registry, name: str, arity: int, factory: Callable[..., F]) -> None:
    reg[(name, arity)] = lambda args: factory(*args)


# ---------------------------------------------------------------- control


class FError(F):
    __slots__ = ("msg",)

    def __init__(self, msg: F | None = None) -> None:
        self.msg = msg

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        if self.msg is None:
            raise JqError(v)
        for m in self.msg.run(v, env):
            raise JqError(m)
        yield from ()

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        yield from ((None, x) for x in self.run(pv[1], env))


class FSelect(F):
    __slots__ = ("cond",)

    def __init__(self, cond: F) -> None:
        self.cond = cond

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        cond = self.cond
        if cond.single:
            c = cond.one(v, env)
            return (v,) if c is not None and c is not False else ()
        return (v for c in cond.run(v, env) if c is not None and c is not False)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        for c in self.cond.run(pv[1], env):
            if truthy(c):
                yield pv


class FRecurse(F):
    """recurse(f) / recurse(f; cond): pre-order, depth-first, without Python recursion."""

    __slots__ = ("f", "cond")

    def __init__(self, f: F, cond: F | None = None) -> None:
        self.f = f
        self.cond = cond

    def _walk(
        self, start: Any, env: Env, step: Callable[[Any], Iterable[Any]], val: Callable[[Any], Any]
    ) -> Iterator[Any]:
        checkpoint = env[2].checkpoint
        cond = self.cond
        yield start
        stack: list[Iterator[Any]] = [iter(step(start))]
        while stack:
            x = next(stack[-1], _END)
            if x is _END:
                stack.pop()
                continue
            if cond is not None and not all(truthy(c) for c in cond.run(val(x), env)):
                continue
            checkpoint(1)
            yield x
            stack.append(iter(step(x)))

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        f = self.f
        if f.single and self.cond is None:
            return self._chain(v, env)
        return self._walk(v, env, lambda x: f.run(x, env), lambda x: x)

    def _chain(self, x: Any, env: Env) -> Iterator[Any]:
        # one output per step: a plain loop
        checkpoint = env[2].checkpoint
        one = self.f.one
        while True:
            yield x
            checkpoint(1)
            x = one(x, env)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        f = self.f
        return self._walk(pv, env, lambda x: f.prun(x, env), lambda x: x[1])


_END: Any = object()


class FLimit(F):
    __slots__ = ("n", "f")

    def __init__(self, n: F, f: F) -> None:
        self.n = n
        self.f = f

    def _gen(self, v: Any, env: Env, runner: Callable[[Any, Env], Iterable[Any]], inp: Any) -> Iterator[Any]:
        for n in self.n.run(v, env):
            if not is_number(n):
                # jq's definition counts down with `. - 1`
                if compare(n, 0) > 0:
                    for _ in runner(inp, env):
                        raise type_error2(n, 1, "cannot be subtracted")
                    continue
                n = -1
            if n <= 0:
                if n < 0:
                    yield from runner(inp, env)
                continue
            for count, x in enumerate(runner(inp, env), 1):
                yield x
                if count >= n:
                    break

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        return self._gen(v, env, self.f.run, v)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        return self._gen(pv[1], env, self.f.prun, pv)


class FSkip(F):
    __slots__ = ("n", "f")

    def __init__(self, n: F, f: F) -> None:
        self.n = n
        self.f = f

    def _gen(self, v: Any, env: Env, runner: Callable[[Any, Env], Iterable[Any]], inp: Any) -> Iterator[Any]:
        for n in self.n.run(v, env):
            if not is_number(n):
                raise JqError("Invalid skip: must be a number")
            if n < 0:
                raise JqError("skip doesn't support negative count")
            count = 0
            for x in runner(inp, env):
                if count >= n:
                    yield x
                else:
                    count += 1

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        return self._gen(v, env, self.f.run, v)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        return self._gen(pv[1], env, self.f.prun, pv)


class FFirst(F):
    __slots__ = ("f",)

    def __init__(self, f: F) -> None:
        self.f = f

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for x in self.f.run(v, env):
            yield x
            return

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        for x in self.f.prun(pv, env):
            yield x
            return


class FLast(F):
    __slots__ = ("f",)

    def __init__(self, f: F) -> None:
        self.f = f

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        last = _last_of(self.f.run(v, env))
        if last is not _END:
            yield last

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        last = _last_of(self.f.prun(pv, env))
        if last is not _END:
            yield last


def _last_of(items: Iterable[Any]) -> Any:
    out = _END
    for out in items:  # noqa: B007 - keeping the last one
        pass
    return out


class FNth(F):
    __slots__ = ("n", "f")

    def __init__(self, n: F, f: F) -> None:
        self.n = n
        self.f = f

    def _gen(self, v: Any, env: Env, runner: Callable[[Any, Env], Iterable[Any]], inp: Any) -> Iterator[Any]:
        for n in self.n.run(v, env):
            if not is_number(n):
                raise JqError("Cannot index array with " + typename(n))
            if n < 0:
                raise JqError("nth doesn't support negative indices")
            for i, x in enumerate(runner(inp, env)):
                if i >= n:
                    yield x
                    break

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        return self._gen(v, env, self.f.run, v)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        return self._gen(pv[1], env, self.f.prun, pv)


class FLoop(F):
    """while(cond; update), until(cond; next), repeat(f) as loops."""

    __slots__ = ("kind", "cond", "update")

    def __init__(self, kind: str, cond: F | None, update: F) -> None:
        self.kind = kind
        self.cond = cond
        self.update = update

    def _gen(
        self, start: Any, env: Env, runner: Callable[[Any, Env], Iterable[Any]], val: Callable[[Any], Any]
    ) -> Iterator[Any]:
        checkpoint = env[2].checkpoint
        kind = self.kind
        cond = self.cond
        # a stack of pending generators keeps jq's depth-first output order
        if kind == "repeat":
            # jq: def repeat(f): def _repeat: f, _repeat; -- f again and again on the same input
            while True:
                checkpoint(1)
                yield from runner(start, env)
        assert cond is not None
        work: list[Iterator[Any]] = [iter((start,))]
        while work:
            x = next(work[-1], _END)
            if x is _END:
                work.pop()
                continue
            checkpoint(1)
            for c in cond.run(val(x), env):
                if kind == "while":
                    if truthy(c):
                        yield x
                        work.append(iter(runner(x, env)))
                elif truthy(c):
                    yield x
                else:
                    work.append(iter(runner(x, env)))

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        cond = self.cond
        if self.kind != "repeat" and cond is not None and cond.single and self.update.single:
            return self._simple(v, env, cond)
        return self._gen(v, env, self.update.run, lambda x: x)

    def _simple(self, x: Any, env: Env, cond: F) -> Iterator[Any]:
        # single-output condition and update: a plain loop
        checkpoint = env[2].checkpoint
        test = cond.one
        step = self.update.one
        if self.kind == "while":
            while truthy(test(x, env)):
                yield x
                checkpoint(1)
                x = step(x, env)
            return
        while not truthy(test(x, env)):
            checkpoint(1)
            x = step(x, env)
        yield x

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        return self._gen(pv, env, self.update.prun, lambda x: x[1])


class FRange(F):
    __slots__ = ("start", "stop", "step")

    def __init__(self, start: F, stop: F, step: F | None = None) -> None:
        self.start = start
        self.stop = stop
        self.step = step

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        checkpoint = env[2].checkpoint
        for start in self.start.run(v, env):
            for stop in self.stop.run(v, env):
                for by in self.step.run(v, env) if self.step is not None else (1,):
                    if not is_number(start) or not is_number(stop) or not is_number(by):
                        raise JqError("Range bounds must be numeric")
                    x = start
                    if by > 0:
                        while x < stop:
                            checkpoint(1)
                            yield x
                            x = x + by
                    elif by < 0:
                        while x > stop:
                            checkpoint(1)
                            yield x
                            x = x + by
                    elif x < stop and self.step is not None:
                        # jq 1.7: a zero step repeats forever (bounded by the budget)
                        while True:
                            checkpoint(1)
                            yield x


class FPath(F):
    __slots__ = ("f",)

    def __init__(self, f: F) -> None:
        self.f = f

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        return run_path(self.f, v, env)


class FPaths(F):
    """paths, paths(f), leaf_paths: every path below the input, pre-order."""

    __slots__ = ("filt", "leaves")

    def __init__(self, filt: F | None = None, leaves: bool = False) -> None:
        self.filt = filt
        self.leaves = leaves

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        checkpoint = env[2].checkpoint
        filt = self.filt
        stack: list[Iterator[tuple[Path, Any]]] = [iterate_paths((), v, True)]
        while stack:
            item = next(stack[-1], _END)
            if item is _END:
                stack.pop()
                continue
            path, x = item
            checkpoint(1 + (len(path) >> 6))  # a path is copied to be output
            if self.leaves:
                # jq's paths(scalars) selects on the value itself: null and false leaves are not output
                if type(x) is not list and type(x) is not dict and truthy(x):
                    yield list(path)
            elif filt is not None:
                for c in filt.run(x, env):
                    if truthy(c):
                        yield list(path)
            else:
                yield list(path)
            if type(x) is list or type(x) is dict:
                stack.append(iterate_paths(path, x))


class FGetpath(F):
    __slots__ = ("p",)

    def __init__(self, p: F) -> None:
        self.p = p

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for p in self.p.run(v, env):
            yield getpath(v, p)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        path, v = pv
        for p in self.p.run(v, env):
            if type(p) is not list:
                raise JqError("Path must be specified as an array")
            if path is None:
                raise path_error("index", p, v)
            yield path + tuple(p), getpath(v, p)


class FDel(F):
    __slots__ = ("f",)

    def __init__(self, f: F) -> None:
        self.f = f

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        return (delpaths(v, list(run_path(self.f, v, env))),)


class FInputs(F):
    """inputs: `try repeat(input) catch if . == "break" then empty else error end`."""

    __slots__ = ()

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        rt = env[2]
        while True:
            try:
                x = rt.next_input()
            except JqError as e:
                if e.value == "break":
                    return
                raise
            rt.checkpoint(1)
            yield x


def _halt(v: Any) -> Any:
    raise HaltSignal(0)


def _halt_error(v: Any, code: Any = 5) -> Any:
    if not is_number(code):
        raise type_error(v, "halt_error/1: number required")
    raise HaltSignal(int(code), v, True)


def _debug(rt: Any, v: Any, *msg: Any) -> Any:
    rt.debug(dumps(["DEBUG:", msg[0] if msg else v]))
    return v


def _stderr(rt: Any, v: Any) -> Any:
    # jq 1.7: strings go out raw, other values as compact JSON
    rt.stderr(v if type(v) is str else dumps(v))
    return v


class FDebugMsg(F):
    """debug(msgs): each message of msgs goes to stderr, then the input."""

    __slots__ = ("msg",)

    def __init__(self, msg: F) -> None:
        self.msg = msg

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for m in self.msg.run(v, env):
            _debug(env[2], v, m)
        yield v


def register(reg: Registry) -> None:
    reg[("empty", 0)] = lambda args: FEmpty()
    cls(reg, "error", 0, FError)
    cls(reg, "error", 1, FError)
    cls(reg, "select", 1, FSelect)
    reg[("recurse", 0)] = lambda args: _recurse_default()
    cls(reg, "recurse", 1, FRecurse)
    cls(reg, "recurse", 2, FRecurse)
    cls(reg, "limit", 2, FLimit)
    cls(reg, "skip", 2, FSkip)
    cls(reg, "first", 1, FFirst)
    cls(reg, "last", 1, FLast)
    cls(reg, "nth", 2, FNth)
    reg[("while", 2)] = lambda args: FLoop("while", args[0], args[1])
    reg[("until", 2)] = lambda args: FLoop("until", args[0], args[1])
    reg[("repeat", 1)] = lambda args: FLoop("repeat", None, args[0])
    reg[("range", 1)] = lambda args: FRange(_literal(0), args[0])
    cls(reg, "range", 2, FRange)
    cls(reg, "range", 3, FRange)
    cls(reg, "path", 1, FPath)
    reg[("paths", 0)] = lambda args: FPaths()
    cls(reg, "paths", 1, FPaths)
    reg[("leaf_paths", 0)] = lambda args: FPaths(None, leaves=True)
    cls(reg, "getpath", 1, FGetpath)
    value(reg, "setpath", 2, setpath)
    value(reg, "delpaths", 1, delpaths)
    cls(reg, "del", 1, FDel)
    reg[("input", 0)] = lambda args: FRtNative(lambda rt, v: rt.next_input(), [])
    reg[("inputs", 0)] = lambda args: FInputs()
    value(reg, "halt", 0, _halt)
    value(reg, "halt_error", 0, _halt_error)
    value(reg, "halt_error", 1, _halt_error)
    rt_value(reg, "debug", 0, _debug)
    cls(reg, "debug", 1, FDebugMsg)
    rt_value(reg, "stderr", 0, _stderr)
    rt_value(reg, "input_filename", 0, lambda rt, v: rt.input_filename())
    rt_value(reg, "input_line_number", 0, lambda rt, v: rt.input_line())
    rt_value(reg, "env", 0, lambda rt, v: rt.env_object)
    reg[("not", 0)] = lambda args: FNative(lambda v: not truthy(v), [])


def _literal(x: Any) -> F:
    return FLiteral(x)


def _recurse_default() -> F:
    return FRecurseAll()
