"""A lean stand-in for `@dataclass` for the classes every run builds at start-up.

The standard module costs about 6 ms to import (it imports `inspect`, which imports `ast`, `dis` and
`tokenize`) and half a millisecond per class for its general machinery; the twenty-odd classes that
`sandbash -c 'echo hi'` needs made that a quarter of its CPU. This decorator generates the same
methods (`__init__` with defaults, `field(default_factory=...)`, `init=False`, `__post_init__`;
`__repr__`; `__eq__` and the hash dataclass would give; read-only attributes when frozen;
`__match_args__`; slots; pickling) and keeps a method the class defines itself, as dataclass does.

The dataclass protocol stays: `dataclasses.fields`, `replace`, `asdict` and `is_dataclass` read
`__dataclass_fields__`, which a lean class makes on first use with the real decorator applied to a
copy of its declaration, so `dataclasses` is imported only by a program that asks. Type checkers
see the real `dataclass` (modules import it under TYPE_CHECKING), so both must accept the same forms;
what this one does not support (inheriting fields, `InitVar`, `kw_only`, `order`) is a TypeError
when the class is built.
"""

from __future__ import annotations

from _thread import get_ident
from collections.abc import Callable
from operator import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing itself is ~2 ms of a start-up: its names are for the type checker only)
    from typing import Any, TypeVar

    T = TypeVar("T", bound=type)
    O = TypeVar("O")


class _Sentinel:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


MISSING: Any = _Sentinel("MISSING")
_FACTORY: Any = _Sentinel("<factory>")  # a parameter whose default a factory makes (as dataclass shows it)


class Field:
    """What `field(...)` declares (the subset of dataclasses.Field the lean classes use)."""

    __slots__ = ("compare", "default", "default_factory", "hash", "init", "repr")

    def __init__(
        self, default: Any, default_factory: Any, init: bool, repr: bool, hash: bool | None, compare: bool
    ) -> None:
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.hash, self.compare = init, repr, hash, compare


_REQUIRED = Field(MISSING, MISSING, True, True, None, True)  # a field declared by its annotation alone
# specs of plain defaults by (class, value), shared by every class declaring one: `line: int = 0` and
# the like (bool, None, int and str values only: an equal float may differ, 0.0 and -0.0)
_DEFAULTS: dict[tuple[type, object], Field] = {}
_SHAREABLE = frozenset({bool, type(None), int, str})


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
) -> Any:
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare)


def dataclass(
    cls: T | None = None, *, repr: bool = True, eq: bool = True, frozen: bool = False, slots: bool = False
) -> Any:
    """Build the class as `@dataclass(repr=..., eq=..., frozen=..., slots=...)` would."""

    def wrap(c: T) -> T:
        return build(c, repr_=repr, eq=eq, frozen=frozen, slots=slots, lazy_init=True)

    return wrap(cls) if cls is not None else wrap


def str_enum(cls: T) -> T:
    """`class X(StrEnum)` made as the standard library makes its own enums at start-up
    (enum._simple_enum): the same kind of class and members, built in about 40% of the time (the
    five StrEnums of a plain run cost ~0.85 ms the usual way). The body's values must be strings
    (no checks are made). A module declares the class as `@str_enum class X(StrEnum)` with
    `StrEnum` the real one for type checkers and `object` at run time."""
    import enum

    made: T = enum._simple_enum(enum.StrEnum)(cls)  # type: ignore[attr-defined]
    return made


def field_names(cls_or_obj: Any) -> tuple[str, ...]:
    """The fields' names in order, as `[f.name for f in dataclasses.fields(x)]` (no import)."""
    names: tuple[str, ...] = cls_or_obj.__lean_fields__
    return names


def replace(obj: O, /, **changes: Any) -> O:
    """`dataclasses.replace(obj, **changes)` for a lean class, without importing dataclasses (a module
    a first command imports may derive one spec from another): a new instance made from the fields
    the constructor takes, `changes` over them; a field with init=False is made afresh, and naming
    one is the ValueError replace gives."""
    specs = type(obj).__lean_specs__  # type: ignore[attr-defined]
    for name in changes:
        if name in specs and not specs[name].init:
            raise ValueError(
                f"field {name} is declared with init=False, it cannot be specified with replace()"
            )
    args = {n: getattr(obj, n) for n, f in specs.items() if f.init}
    args.update(changes)  # (an unknown name is the constructor's TypeError, as replace's)
    made: O = type(obj)(**args)
    return made


class Declaration:
    """What `class X(metaclass=Declared): ...` makes: the class statement's name, bases and namespace,
    not yet a class. The lean decorator over it then makes the class once, with its slots (over a
    class, a slotted lean class is a second class made from the first: making a class is ~90 k
    instructions, and the syntax tree's fifty were ~5 M of a start-up)."""

    __slots__ = ("bases", "name", "ns")

    def __init__(self, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> None:
        self.name, self.bases, self.ns = name, bases, ns

    def __repr__(self) -> str:
        return f"<declaration of {self.name} (no lean decorator over it)>"


if TYPE_CHECKING:  # (for type checkers the statement makes a class, which the decorator takes)

    class Declared(type):
        """The metaclass of a declaration the lean decorator makes a class of (Declaration)."""

else:

    class Declared(type):
        """The metaclass of a declaration the lean decorator makes a class of (Declaration)."""

        def __new__(mcls, name, bases, ns, **kwargs):
            if kwargs:
                raise TypeError(f"{name}: a declaration takes no class keywords ({', '.join(kwargs)})")
            return Declaration(name, bases, ns)


def build(cls: T, *, repr_: bool, eq: bool, frozen: bool, slots: bool, lazy_init: bool) -> T:
    """The lean class for `cls` (a class, or a Declaration). `lazy_init` compiles `__init__` when the
    class makes more than _COMPILE_AFTER instances (the first ones are set field by field,
    _init_generic), or when `inspect.signature` asks for it (compiling one is ~0.1 ms: the syntax tree
    has some fifty node classes and a script builds a few; a start-up with mounts made 21 of the 31
    other classes, most of them once); otherwise it is compiled now."""
    declared = cls if isinstance(cls, Declaration) else None
    if declared is not None and not slots:  # (nothing to save: the class is made, then given its methods)
        cls = type(declared.name, declared.bases, declared.ns)  # type: ignore[assignment]
        declared = None
    if declared is not None:
        name, bases, own = declared.name, declared.bases, declared.ns
        ancestors = tuple(c for b in bases for c in b.__mro__) if bases else ()
        meta: type = type
        qualname = own.get("__qualname__", name)
    else:
        name, bases, own = cls.__name__, cls.__bases__, cls.__dict__  # type: ignore[assignment]
        ancestors, meta, qualname = cls.__mro__[1:], type(cls), cls.__qualname__
    # (a class is made per node of the syntax tree at start-up: the usual declaration, no field() with
    # init=/repr=/compare=/hash=, takes one tuple and one getter for every role and no per-role pass)
    specs, plain = _specs(name, ancestors, own)
    names = tuple(specs)
    get_all = _getter(names)
    if plain:
        shown = compared = hashed = init_names = names
    else:
        init_names = tuple(n for n, f in specs.items() if f.init)
        shown = tuple(n for n, f in specs.items() if f.repr)
        compared = tuple(n for n, f in specs.items() if f.compare)
        hashed = tuple(n for n, f in specs.items() if (f.compare if f.hash is None else bool(f.hash)))
    # the methods are shared by every lean class and read these (building a class makes no function)
    methods: dict[str, Any] = {
        "__lean_fields__": names,
        "__lean_specs__": specs,
        "__lean_params__": (repr_, eq, frozen),
        "__lean_get__": get_all,
        "__dataclass_fields__": _FIELDS,
        "__dataclass_params__": _PARAMS,
        "__signature__": _SIGNATURE,
    }
    if "__match_args__" not in own:
        methods["__match_args__"] = init_names
    if repr_ and "__repr__" not in own:
        methods["__lean_repr__"] = shown
        methods["__repr__"] = _repr
    if eq and "__eq__" not in own:
        methods["__lean_cmp__"] = get_all if compared is names else _getter(compared)
        methods["__eq__"] = _eq
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if eq and not explicit_hash:
        # dataclass's table: frozen and compared is hashable by the fields, compared and mutable is not
        methods["__lean_hashed__"] = get_all if hashed is names else _getter(hashed)
        methods["__hash__"] = _hash if frozen else None
    if frozen:
        methods["__setattr__"] = _frozen_setattr
        methods["__delattr__"] = _frozen_delattr
    if slots:
        methods["__getstate__"] = _getstate  # (no __dict__ to pickle: the state is the fields' tuple)
        methods["__setstate__"] = _setstate
        ns = dict(own)
        for n in names:  # (a field's default is in its spec: a class attribute would clash with its slot)
            ns.pop(n, None)
        ns.pop("__dict__", None)
        ns.pop("__weakref__", None)
        ns.update(methods, __slots__=names, __qualname__=qualname)
        built: T = meta(name, bases, ns)
    else:
        built = cls
        for k, v in methods.items():
            type.__setattr__(built, k, v)
        for n, f in specs.items():  # as dataclass: a plain default stays a class attribute
            if f.default is not MISSING:
                type.__setattr__(built, n, f.default)
            elif n in own:
                type.__delattr__(built, n)
    _install_init(built, specs, frozen, lazy_init)
    return built


def _specs(cls_name: str, ancestors: tuple[type, ...], own: Any) -> tuple[dict[str, Field], bool]:
    """Each field's declaration in order (`own`: the class's namespace), checked as dataclass checks it,
    and whether every field is plain (no field() with init=False, repr=False, compare=False or hash=)."""
    for base in ancestors:
        if "__lean_fields__" in base.__dict__ or "__dataclass_fields__" in base.__dict__:
            raise TypeError(f"{cls_name}: lean classes do not inherit fields ({base.__name__})")
    specs: dict[str, Field] = {}
    seen_default = False
    plain = True
    # (not inspect.get_annotations: importing inspect is what this module saves)
    for name, note in own.get("__annotations__", {}).items():
        text = note if isinstance(note, str) else getattr(note, "__name__", repr(note))
        if "Var" in text:  # (one test for the usual annotation)
            if text.startswith(("ClassVar", "typing.ClassVar")):
                continue
            if text.startswith(("InitVar", "dataclasses.InitVar")):
                raise TypeError(f"{cls_name}.{name}: InitVar is not supported by lean classes")
        value = own.get(name, MISSING)
        if value is MISSING:  # (the usual required field: one shared spec, never changed)
            if seen_default:
                raise TypeError(f"non-default argument {name!r} follows default argument")
            specs[name] = _REQUIRED
            continue
        if not isinstance(value, Field):  # a plain default
            kind = value.__class__
            if kind in _SHAREABLE:  # (equal values of these are interchangeable: one spec for each)
                spec = _DEFAULTS.get((kind, value)) or _DEFAULTS.setdefault(
                    (kind, value), Field(value, MISSING, True, True, None, True)
                )
                specs[name] = spec
                seen_default = True
                continue
            spec = Field(value, MISSING, True, True, None, True)
        else:
            spec = value
            plain = plain and spec.init and spec.repr and spec.compare and spec.hash is None
        if spec.default.__class__ in (list, dict, set):
            raise ValueError(
                f"mutable default {spec.default.__class__} for field {name} is not allowed: use default_factory"
            )
        has_default = spec.default is not MISSING or spec.default_factory is not MISSING
        if spec.init and not has_default and seen_default:
            raise TypeError(f"non-default argument {name!r} follows default argument")
        seen_default = seen_default or (spec.init and has_default)
        specs[name] = spec
    return specs, plain


def _install_init(built: type, specs: dict[str, Field], frozen: bool, lazy: bool) -> None:
    if "__init__" in built.__dict__ and not getattr(built.__dict__["__init__"], "__lean_lazy__", False):
        return  # the class wrote its own, as dataclass keeps it
    if not lazy:
        type.__setattr__(built, "__init__", _compile_init(built, specs, frozen))
        return

    def real() -> Callable[..., None]:
        init = _compile_init(built, specs, frozen)
        type.__setattr__(built, "__init__", init)
        return init

    made = [0]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        if made[0] > _COMPILE_AFTER or not _init_generic(built, specs, frozen, self, args, kwargs):
            real()(self, *args, **kwargs)

    __init__.__lean_lazy__ = real  # type: ignore[attr-defined]
    type.__setattr__(built, "__init__", __init__)


# instances a class makes through _init_generic before its __init__ is compiled: most classes of a short
# run are made once or twice (limits, options, the shell's parts) and compiling one is ~0.1 ms, about
# what 32 generic ones cost (~2 us each instead of ~0.5)
_COMPILE_AFTER = 32


def _init_generic(cls: type, specs: dict[str, Field], frozen: bool, obj: Any, args: Any, kwargs: Any) -> bool:
    """What the compiled `__init__` does, without compiling it: the arguments bound by name, defaults
    and factories, the fields set in order, `__post_init__`. False, having set nothing, when the
    arguments do not bind plainly (too many, unknown, repeated, missing): the compiled one then
    reports it in Python's words."""
    params = [n for n, f in specs.items() if f.init]
    if len(args) > len(params):
        return False
    given = dict(zip(params, args, strict=False))
    for name, value in kwargs.items():
        if name in given or name not in params:
            return False
        given[name] = value
    values: list[tuple[str, Any]] = []
    for n, f in specs.items():
        if f.init and n in given:
            value = given[n]
            if value is _FACTORY and f.default_factory is not MISSING:
                value = f.default_factory()
        elif f.default_factory is not MISSING:
            value = f.default_factory()
        elif f.default is not MISSING:
            value = f.default
        elif f.init:
            return False  # a required argument is missing
        else:
            continue  # init=False without a default: left unset, as the compiled one leaves it
        values.append((n, value))
    put = object.__setattr__ if frozen else setattr
    for n, value in values:
        put(obj, n, value)
    if hasattr(cls, "__post_init__"):
        obj.__post_init__()
    return True


class _RealSignature:
    """`__signature__` of a lean class, which `inspect.signature` reads first: it compiles the real
    `__init__` if it is still the stand-in and answers None, so inspect goes on to read that one."""

    def __get__(self, obj: object, owner: type) -> None:
        lazy = getattr(getattr(owner, "__init__", None), "__lean_lazy__", None)
        if lazy is not None:
            lazy()


_SIGNATURE = _RealSignature()


def _compile_init(built: type, specs: dict[str, Field], frozen: bool) -> Callable[..., None]:
    """`__init__` is the one generated method: it takes its arguments by name with no per-call
    dispatch (built objects are made in hot loops: the parser's nodes, a command's parsed options)."""
    env: dict[str, Any] = {"_set": object.__setattr__, "_FACTORY": _FACTORY}
    params: list[str] = []
    body: list[str] = []
    for n, f in specs.items():
        if f.default_factory is not MISSING:
            env[f"_f_{n}"] = f.default_factory
            value = f"_f_{n}()"
            if f.init:
                params.append(f"{n}=_FACTORY")
                value = f"_f_{n}() if {n} is _FACTORY else {n}"
        elif f.default is not MISSING:
            env[f"_d_{n}"] = f.default
            value = n if f.init else f"_d_{n}"
            if f.init:
                params.append(f"{n}=_d_{n}")
        elif f.init:
            params.append(n)
            value = n
        else:
            continue  # init=False without a default: left unset, as dataclass leaves it
        body.append(f" _set(self, {n!r}, {value})" if frozen else f" self.{n} = {value}")
    if hasattr(built, "__post_init__"):
        body.append(" self.__post_init__()")
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or [" pass"]), env)
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{built.__qualname__}.__init__"
    notes = built.__dict__.get("__annotations__") or {}  # noqa: RUF063
    init.__annotations__ = {n: notes[n] for n, f in specs.items() if f.init} | {"return": None}
    return init


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields' values as a tuple (`attrgetter` runs in C)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = names[0]
        return lambda o: (getattr(o, one),)
    return lambda o: ()


_IN_REPR: set[tuple[int, int]] = set()  # (object, thread) whose repr is being made: a cycle shows ...


def _repr(self: Any) -> str:
    key = (id(self), get_ident())
    if key in _IN_REPR:
        return "..."
    _IN_REPR.add(key)
    try:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__class__.__lean_repr__)
        return f"{self.__class__.__qualname__}({shown})"
    finally:
        _IN_REPR.discard(key)


# (the getters are read from the class: a lambda read from the instance would be bound to it)
def _eq(self: Any, other: Any) -> Any:
    cls: Any = self.__class__
    if other.__class__ is cls:
        get = cls.__lean_cmp__
        return get(self) == get(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__class__.__lean_hashed__(self))


def _getstate(self: Any) -> tuple[Any, ...]:
    return tuple(self.__class__.__lean_get__(self))


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    for name, value in zip(self.__class__.__lean_fields__, state, strict=True):
        object.__setattr__(self, name, value)


def _frozen_setattr(self: object, name: str, value: object) -> None:
    from dataclasses import FrozenInstanceError  # only on this error: the same class dataclass raises

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")


class _Protocol:
    """`__dataclass_fields__` / `__dataclass_params__` of a lean class, made on first read by the real
    decorator over a copy of the declaration (same names, types, defaults and flags), then cached on
    the class, so the dataclasses module's functions treat a lean class as a dataclass."""

    def __init__(self, attr: str) -> None:
        self.attr = attr

    def __get__(self, obj: object, owner: Any) -> Any:
        import dataclasses
        import typing

        specs: dict[str, Field] = owner.__lean_specs__
        notes = owner.__dict__.get("__annotations__") or {}  # noqa: RUF063
        ns: dict[str, Any] = {"__annotations__": {n: notes.get(n, typing.Any) for n in specs}}
        for n, f in specs.items():
            given = {"default": f.default, "default_factory": f.default_factory}
            ns[n] = dataclasses.field(
                **{k: v for k, v in given.items() if v is not MISSING},
                init=f.init,
                repr=f.repr,
                hash=f.hash,
                compare=f.compare,
            )
        repr_, eq, frozen = owner.__lean_params__
        twin: type = dataclasses.dataclass(repr=repr_, eq=eq, frozen=frozen)(type(owner.__name__, (), ns))
        for attr in ("__dataclass_fields__", "__dataclass_params__"):
            type.__setattr__(owner, attr, getattr(twin, attr))
        return getattr(twin, self.attr)


_FIELDS = _Protocol("__dataclass_fields__")
_PARAMS = _Protocol("__dataclass_params__")


__all__ = ["MISSING", "Declaration", "Declared", "Field", "build", "dataclass", "field", "field_names"]
