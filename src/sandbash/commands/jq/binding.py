"""Variable binding: `as` patterns (with `?//` alternatives), reduce, foreach."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .errors import JqError
from .memory import drop_root
from .runtime import PV, Env, F, index
from .values import typename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A compiled pattern: ("var", slot) | ("array", [pattern]) |
# ("object", [(key filter, pattern | None, slot | None)])
Pattern = tuple["Any", ...]  # (a string: typing is not imported at run time)


def destructure(pat: Pattern, value: Any, env: Env, slots: list[Any]) -> Iterator[None]:
    """Fill `slots` from `value`; yields once per way the keys match
    (a key expression may have several outputs)."""
    kind = pat[0]
    if kind == "var":
        slots[pat[1]] = value
        yield None
        return
    if kind == "array":
        if value is not None and type(value) is not list:
            raise JqError(f"Cannot index {typename(value)} with number")
        yield from _array(pat[1], 0, value, env, slots)
        return
    yield from _object(pat[1], 0, value, env, slots)


def _array(items: list[Pattern], i: int, value: Any, env: Env, slots: list[Any]) -> Iterator[None]:
    if i == len(items):
        yield None
        return
    elem = index(value, i)
    for _ in destructure(items[i], elem, env, slots):
        yield from _array(items, i + 1, value, env, slots)


def _object(entries: list[Any], i: int, value: Any, env: Env, slots: list[Any]) -> Iterator[None]:
    if i == len(entries):
        yield None
        return
    key_f, sub, slot = entries[i]
    for key in key_f.run(value, env):
        if type(key) is not str:
            raise JqError(f"Cannot index {typename(value)} with {typename(key)}")
        elem = index(value, key)
        if slot is not None:
            slots[slot] = elem
        if sub is None:
            yield from _object(entries, i + 1, value, env, slots)
        else:
            for _ in destructure(sub, elem, env, slots):
                yield from _object(entries, i + 1, value, env, slots)


def push_slots(env: Env, slots: list[Any]) -> Env:
    rt = env[2]
    e: Any = env
    for x in slots:
        e = (x, e, rt)
    return e  # type: ignore[no-any-return]


class FBindVar(F):
    """`source as $x | body`: the common one-variable case."""

    __slots__ = ("source", "body", "single")

    def __init__(self, source: F, body: F) -> None:
        self.source = source
        self.body = body
        self.single = source.single and body.single

    def one(self, v: Any, env: Env) -> Any:
        return self.body.one(v, (self.source.one(v, env), env, env[2]))

    def run(self, v: Any, env: Env) -> Iterable[Any]:
        if self.source.single:
            return self.body.run(v, (self.source.one(v, env), env, env[2]))
        return self._gen(v, env)

    def _gen(self, v: Any, env: Env) -> Iterator[Any]:
        rt = env[2]
        body = self.body
        for x in self.source.run(v, env):
            yield from body.run(v, (x, env, rt))

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        rt = env[2]
        for x in self.source.run(pv[1], env):
            yield from self.body.prun(pv, (x, env, rt))


class FBind(F):
    """`source as PATTERN ?// PATTERN ... | body`."""

    __slots__ = ("source", "patterns", "nslots", "body")

    def __init__(self, source: F, patterns: list[Pattern], nslots: int, body: F) -> None:
        self.source = source
        self.patterns = patterns
        self.nslots = nslots
        self.body = body

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for x in self.source.run(v, env):
            yield from self._alternatives(x, v, env, False)

    def prun(self, pv: PV, env: Env) -> Iterator[PV]:
        for x in self.source.run(pv[1], env):
            yield from self._alternatives(x, pv, env, True)

    def _alternatives(self, x: Any, inp: Any, env: Env, paths: bool) -> Iterator[Any]:
        last = len(self.patterns) - 1
        for i, pat in enumerate(self.patterns):
            slots: list[Any] = [None] * self.nslots
            try:
                for _ in destructure(pat, x, env, slots):
                    e = push_slots(env, slots)
                    if paths:
                        yield from self.body.prun(inp, e)
                    else:
                        yield from self.body.run(inp, e)
                return
            except JqError:
                if i == last:
                    raise


class FReduce(F):
    __slots__ = ("source", "patterns", "nslots", "init", "update")

    def __init__(self, source: F, patterns: list[Pattern], nslots: int, init: F, update: F) -> None:
        self.source = source
        self.patterns = patterns
        self.nslots = nslots
        self.init = init
        self.update = update

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for state in self.init.run(v, env):
            yield self._reduce(v, env, state)

    def _reduce(self, v: Any, env: Env, state: Any) -> Any:
        rt = env[2]
        checkpoint = rt.checkpoint
        update = self.update
        simple = self.nslots == 1 and len(self.patterns) == 1 and self.patterns[0][0] == "var"
        # the state is live while it is updated (what the run's memory measures)
        cell = [state]
        roots = rt.mem.roots if rt.mem is not None else []
        roots.append(cell)
        try:
            for x in self.source.run(v, env):
                checkpoint(1)
                if simple:
                    envs: Iterable[Env] = ((x, env, rt),)
                else:
                    envs = _bindings(self.patterns, self.nslots, x, env)
                for e in envs:
                    if update.single:
                        state = update.one(state, e)
                    else:
                        # the last output is the new state (null when there is none)
                        state = _last(update.run(state, e))
                    cell[0] = state
        finally:
            drop_root(roots, cell)
        return state


class FForeach(F):
    __slots__ = ("source", "patterns", "nslots", "init", "update", "extract")

    def __init__(
        self, source: F, patterns: list[Pattern], nslots: int, init: F, update: F, extract: F | None
    ) -> None:
        self.source = source
        self.patterns = patterns
        self.nslots = nslots
        self.init = init
        self.update = update
        self.extract = extract

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        rt = env[2]
        roots = rt.mem.roots if rt.mem is not None else []
        for state in self.init.run(v, env):
            cell = [state]
            roots.append(cell)
            try:
                for x in self.source.run(v, env):
                    rt.checkpoint(1)
                    for e in _bindings(self.patterns, self.nslots, x, env):
                        for new in self.update.run(state, e):
                            state = cell[0] = new
                            if self.extract is None:
                                yield new
                            else:
                                yield from self.extract.run(new, e)
            finally:
                drop_root(roots, cell)


def _last(items: Iterable[Any]) -> Any:
    out = None
    for out in items:  # noqa: B007 - keeping the last one
        pass
    return out


def _bindings(patterns: list[Pattern], nslots: int, x: Any, env: Env) -> Iterator[Env]:
    """Environments for one item of reduce/foreach (first pattern that fits)."""
    last = len(patterns) - 1
    for i, pat in enumerate(patterns):
        slots: list[Any] = [None] * nslots
        try:
            envs = [push_slots(env, slots) for _ in destructure(pat, x, env, slots)]
        except JqError:
            if i == last:
                raise
            continue
        yield from envs
        return
