"""A lean stand-in for `@dataclass(frozen=..., slots=True)` for the syntax tree.

The standard decorator spends about half a millisecond per class on its
general machinery; the tree has some fifty node classes, so it was a fifth of
sandbash's start-up. This one generates the same methods (`__init__` with
defaults and `field(default_factory=...)`, `__repr__`, `__eq__`, `__hash__`
for frozen classes, read-only attributes, `__match_args__`, slots, copying)
with one small `exec` per class. Type checkers see the real `dataclass`
(ast.py imports it under TYPE_CHECKING), so both must accept the same forms.
"""

from __future__ import annotations

from dataclasses import MISSING, Field, FrozenInstanceError
from dataclasses import field as field
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
    env: dict[str, Any] = {"_set": object.__setattr__, "MISSING": MISSING}
    params: list[str] = []
    body: list[str] = []
    for n in names:
        default = cls.__dict__.get(n, MISSING)
        if isinstance(default, Field):
            if default.default_factory is not MISSING:
                env[f"_f_{n}"] = default.default_factory
                params.append(f"{n}=MISSING")
                body.append(f"    if {n} is MISSING: {n} = _f_{n}()")
            elif default.default is not MISSING:
                env[f"_d_{n}"] = default.default
                params.append(f"{n}=_d_{n}")
            else:
                params.append(n)
        elif default is not MISSING:
            env[f"_d_{n}"] = default
            params.append(f"{n}=_d_{n}")
        else:
            params.append(n)
        body.append(f"    _set(self, {n!r}, {n})" if frozen else f"    self.{n} = {n}")
    fields = "".join(f"self.{n}, " for n in names)
    others = "".join(f"other.{n}, " for n in names)
    shown = ", ".join(f"{n}={{self.{n}!r}}" for n in names)
    src = [
        f"def __init__(self, {', '.join(params)}):",
        *(body or ["    pass"]),
        "def __repr__(self):",
        f"    return f'{cls.__qualname__}({shown})'",
        "def __eq__(self, other):",
        "    if other.__class__ is self.__class__:",
        f"        return ({fields}) == ({others})",
        "    return NotImplemented",
        "def __hash__(self):",
        f"    return hash(({fields}))",
        "def __getstate__(self):",
        f"    return ({fields})",
        "def __setstate__(self, state):",
        f"    for name, value in zip({names!r}, state):",
        "        _set(self, name, value)",
    ]
    exec("\n".join(src), env)
    ns: dict[str, Any] = {k: v for k, v in cls.__dict__.items()
                          if k not in names and k not in ("__dict__", "__weakref__")}
    ns["__slots__"] = names
    ns["__match_args__"] = names
    for method in ("__init__", "__repr__", "__eq__", "__getstate__", "__setstate__"):
        ns[method] = env[method]
    if frozen:
        ns["__hash__"] = env["__hash__"]
        ns["__setattr__"] = _frozen_setattr
        ns["__delattr__"] = _frozen_delattr
    else:
        ns["__hash__"] = None  # mutable and comparable: unhashable, as dataclass makes it
    built: T = type(cls)(cls.__name__, cls.__bases__, ns)
    return built


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


__all__ = ["dataclass", "field"]
