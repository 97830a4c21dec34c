"""A lean stand-in for `@dataclass(frozen=..., slots=True)` for the syntax tree.

The standard decorator spends about half a millisecond per class on its
general machinery; the tree has some fifty node classes, so it was a fifth of
sandbash's start-up. This one generates the same methods (`__init__` with
defaults and `field(default_factory=...)`, `__repr__`, `__eq__`, `__hash__`
for frozen classes, read-only attributes, `__match_args__`, slots, copying);
only `__init__` is compiled (one small `exec` per class), the rest are closures. Type checkers see the real `dataclass`
(ast.py imports it under TYPE_CHECKING), so both must accept the same forms.
"""

from __future__ import annotations

from dataclasses import MISSING, Field, FrozenInstanceError
from dataclasses import field as field
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def dataclass(cls: T | None = None, *, frozen: bool = False, slots: bool = True) -> Any:
    """Build the class as `@dataclass(frozen=frozen, slots=True)` would."""
    del slots  # always slotted

    def wrap(c: T) -> T:
        return _build(c, frozen)

    return wrap(cls) if cls is not None else wrap


def _build(cls: T, frozen: bool) -> T:
    # (not inspect.get_annotations: importing inspect costs more than this saves)
    names = tuple(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063
    ns: dict[str, Any] = {
        k: v for k, v in cls.__dict__.items() if k not in names and k not in ("__dict__", "__weakref__")
    }
    ns["__slots__"] = names
    ns["__match_args__"] = names
    ns["__qualname__"] = cls.__qualname__
    ns.update(_methods(names))
    if frozen:
        ns["__setattr__"] = _frozen_setattr
        ns["__delattr__"] = _frozen_delattr
    else:
        ns["__hash__"] = None  # mutable and comparable: unhashable, as dataclass makes it
    built: T = type(cls)(cls.__name__, cls.__bases__, ns)
    defaults = cls  # the decorated class holds the defaults (the built one's names are slots)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # compiled on the class's first instance: a script builds a few of the fifty node
        # classes, and compiling them all was most of the module's import time
        real = _init(defaults, names, frozen)
        type.__setattr__(built, "__init__", real)
        real(self, *args, **kwargs)

    type.__setattr__(built, "__init__", __init__)
    return built


def _init(cls: type, names: tuple[str, ...], frozen: bool) -> Any:
    """`__init__` is the one generated method: the parser builds nodes in its hot loop, so it takes
    its arguments by name with no per-call dispatch (compiling is most of this module's cost: the
    other methods are shared closures below, and this one is compiled on first use)."""
    env: dict[str, Any] = {"_set": object.__setattr__, "MISSING": MISSING}
    params: list[str] = []
    body: list[str] = []
    for n in names:
        default: Any = cls.__dict__.get(n, MISSING)
        factory: Any = MISSING
        if isinstance(default, Field):
            default, factory = default.default, default.default_factory
        if factory is not MISSING:
            env[f"_f_{n}"] = factory
            params.append(f"{n}=MISSING")
            body.append(f" if {n} is MISSING: {n} = _f_{n}()")
        elif default is not MISSING:
            env[f"_d_{n}"] = default
            params.append(f"{n}=_d_{n}")
        else:
            params.append(n)
        body.append(f" _set(self, {n!r}, {n})" if frozen else f" self.{n} = {n}")
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or [" pass"]), env)
    return env["__init__"]


def _methods(names: tuple[str, ...]) -> dict[str, Any]:
    """`__repr__`, `__eq__`, `__hash__` and pickling over the fields' tuple (`attrgetter` runs in C)."""
    get = (
        attrgetter(*names)
        if len(names) > 1
        else (lambda o: (getattr(o, names[0]),))
        if names
        else (lambda o: ())
    )
    setter = object.__setattr__

    def __repr__(self: object) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"

    def __eq__(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(get(self) == get(other))
        return NotImplemented

    def __hash__(self: object) -> int:
        return hash(get(self))

    def __getstate__(self: object) -> tuple[Any, ...]:
        return tuple(get(self))

    def __setstate__(self: object, state: tuple[Any, ...]) -> None:
        for name, value in zip(names, state, strict=True):
            setter(self, name, value)

    return {
        "__repr__": __repr__,
        "__eq__": __eq__,
        "__hash__": __hash__,
        "__getstate__": __getstate__,
        "__setstate__": __setstate__,
    }


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


__all__ = ["dataclass", "field"]
