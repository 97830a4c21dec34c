"""Assignment operators: `=`, `|=`, `+=` and friends, `//=`.

jq updates values in place when it holds the only reference, so a long
chain of updates stays linear. Here one assignment copies each container on
a path the first time it writes into it and then mutates that private copy
for the remaining paths; a copy that the update filter could see (its input)
stops being private.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from .errors import JqError
from .numbers import LitNum, to_int_index
from .runtime import MAX_ARRAY_GROWTH, Env, F, delpaths, getpath, index, path_error, slice_bounds
from .values import charge, typename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NOTHING: Any = object()


def _set_inplace(t: Any, k: Any, v: Any) -> None:
    tk = type(k)
    if type(t) is dict:
        if tk is not str:
            raise JqError(f"Cannot update field at {typename(k)} index of object")
        t[k] = v
        return
    # a list
    if tk is int or tk is float or tk is LitNum:
        if k != k:
            raise JqError("Cannot set array element at NaN index")
        i = to_int_index(k)
        if i < 0:
            i += len(t)
            if i < 0:
                raise JqError("Out of bounds negative array index")
        if i < len(t):
            t[i] = v
        else:
            if i - len(t) > MAX_ARRAY_GROWTH:
                raise JqError("Array index too large")
            charge(1 + i - len(t))
            t.extend([None] * (i - len(t)))
            t.append(v)
        return
    if tk is dict:
        start, end = slice_bounds(t, k)
        if type(v) is not list:
            raise JqError("A slice of an array can only be assigned another array")
        t[start:end] = v
        return
    raise JqError(f"Cannot update field at {typename(k)} index of array")


class Updater:
    """One assignment's private copies, keyed by id (the dict keeps them alive)."""

    __slots__ = ("owned",)

    def __init__(self) -> None:
        self.owned: dict[int, Any] = {}

    def escape(self, value: Any) -> None:
        if self.owned and id(value) in self.owned:
            self.owned.clear()

    def setpath(self, root: Any, path: tuple[Any, ...], value: Any) -> Any:
        return self._set(root, path, 0, value)

    def _set(self, root: Any, path: tuple[Any, ...], i: int, value: Any) -> Any:
        if i == len(path):
            return value
        k = path[i]
        sub = index(root, k)
        new_sub = self._set(sub, path, i + 1, value)
        tr = type(root)
        if (tr is dict or tr is list) and id(root) in self.owned:
            _set_inplace(root, k, new_sub)
            return root
        if root is None:
            tk = type(k)
            if tk is str:
                container: Any = {}
            elif tk is int or tk is float or tk is LitNum or tk is dict:
                container = []
            else:
                raise JqError(f"Cannot update field at {typename(k)} index of null")
        elif tr is dict or tr is list:
            container = dict(root) if tr is dict else list(root)
        else:
            if type(k) is dict and tr is str:
                raise JqError("Cannot update string slices")
            raise JqError(f"Cannot update field at {typename(k)} index of {typename(root)}")
        _set_inplace(container, k, new_sub)
        self.owned[id(container)] = container
        return container


def _paths(lhs: F, root: Any, env: Env) -> Iterator[tuple[Any, ...]]:
    for path, out in lhs.prun(((), root), env):
        if path is None:
            raise path_error("result", None, out)
        yield path


def modify(lhs: F, root: Any, env: Env, update: Callable[[Any], Any]) -> Any:
    """jq's _modify: each path's value replaced by update's first output;
    paths whose update is empty are deleted at the end."""
    checkpoint = env[2].checkpoint
    upd = Updater()
    state = root
    deletions: list[list[Any]] = []
    for path in _paths(lhs, root, env):
        checkpoint(1)
        old = getpath(state, path)
        upd.escape(old)
        new = update(old)
        if new is _NOTHING:
            deletions.append(list(path))
            continue
        state = upd.setpath(state, path, new)
    if deletions:
        state = delpaths(state, deletions)
    return state


class FAssign(F):
    """`lhs = rhs`: rhs runs on the input; each of its outputs makes one result."""

    __slots__ = ("lhs", "rhs")

    def __init__(self, lhs: F, rhs: F) -> None:
        self.lhs = lhs
        self.rhs = rhs

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        checkpoint = env[2].checkpoint
        for value in self.rhs.run(v, env):
            upd = Updater()
            state = v
            for path in _paths(self.lhs, v, env):
                checkpoint(1)
                state = upd.setpath(state, path, value)
            yield state


class FModify(F):
    """`lhs |= f`."""

    __slots__ = ("lhs", "fn")

    def __init__(self, lhs: F, fn: F) -> None:
        self.lhs = lhs
        self.fn = fn

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        fn = self.fn
        if fn.single:
            one = fn.one

            def update(old: Any) -> Any:
                return one(old, env)
        else:

            def update(old: Any) -> Any:
                for out in fn.run(old, env):
                    return out
                return _NOTHING

        yield modify(self.lhs, v, env, update)


class FArithUpdate(F):
    """`lhs op= rhs` (and `//=`): rhs runs on the input first."""

    __slots__ = ("lhs", "rhs", "op")

    def __init__(self, lhs: F, rhs: F, op: Callable[[Any, Any], Any]) -> None:
        self.lhs = lhs
        self.rhs = rhs
        self.op = op

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        op = self.op
        for value in self.rhs.run(v, env):
            yield modify(self.lhs, v, env, functools.partial(_apply, op, value))


def _apply(op: Callable[[Any, Any], Any], value: Any, old: Any) -> Any:
    return op(old, value)


def alternative(old: Any, value: Any) -> Any:
    return old if old is not None and old is not False else value
