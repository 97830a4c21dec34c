"""leanclass.py builds the same classes as `@dataclass`: each declaration below is built both ways, for
every set of decorator flags the package uses, and must behave alike (construction, defaults, factories,
`init=False`, `__post_init__`, repr, equality, hashing, read-only fields, copying, pickling, match
patterns), and the dataclasses module's own functions (fields, replace, asdict, is_dataclass) must
accept a lean class without it having imported dataclasses at start-up."""

from __future__ import annotations

import copy
import dataclasses
import enum
import inspect
import pickle
from typing import Any, ClassVar

import pytest

from sandbash import leanclass
from sandbash.commands.record import Effects
from sandbash.limits import LimitKind
from sandbash.syntax import ast as A
from sandbash.vfs.ops import FileOp


def _declarations(make: Any, field: Any, meta: Any = type) -> dict[str, type]:
    """Each declaration made by `make`; `meta`: leanclass.Declared has the statement make a Declaration
    (the lean decorator makes the class from it once), `type` a class."""

    class Empty(metaclass=meta):
        pass

    class Plain(metaclass=meta):
        a: int
        b: str = "x"
        c: float = 1.5

    class Factory(metaclass=meta):
        name: str
        items: list[int] = field(default_factory=list)
        table: dict[str, int] = field(default_factory=dict)
        flag: bool = field(default=False)

    class Hidden(metaclass=meta):
        key: str
        note: str = field(default="", compare=False, repr=False)
        cache: list[int] = field(default_factory=list, init=False)
        count: int = field(default=0, init=False)

    class Post(metaclass=meta):
        low: int
        high: int = 10
        seen: ClassVar[int] = 0

        def __post_init__(self) -> None:
            if self.low > self.high:
                raise ValueError(f"{self.low} > {self.high}")

    class OwnRepr(metaclass=meta):
        x: int

        def __repr__(self) -> str:
            return f"<{self.x}>"

        @property
        def double(self) -> int:
            return self.x * 2

    found = {"Empty": Empty, "Plain": Plain, "Factory": Factory, "Hidden": Hidden, "Post": Post}
    found["OwnRepr"] = OwnRepr
    return {k: make(v) for k, v in found.items()}


FLAGS: list[dict[str, bool]] = [
    {},
    {"slots": True},
    {"frozen": True},
    {"frozen": True, "slots": True},
    {"frozen": True, "eq": False},
    {"eq": False},
    {"repr": False, "slots": True},
]

CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("Empty", (), {}),
    ("Plain", (1,), {}),
    ("Plain", (1, "y", 2.5), {}),
    ("Plain", (), {"c": 0.0, "a": 3}),
    ("Factory", ("n",), {}),
    ("Factory", ("n", [1, 2]), {"flag": True}),
    ("Factory", ("n",), {"table": {"k": 1}}),
    ("Hidden", ("k",), {}),
    ("Hidden", ("k", "a note"), {}),
    ("Post", (1,), {}),
    ("Post", (3, 4), {}),
    ("OwnRepr", (7,), {}),
]


def _both(flags: dict[str, bool], meta: Any = type) -> tuple[dict[str, type], dict[str, type]]:
    make_ours: Any = leanclass.dataclass
    make_real: Any = dataclasses.dataclass
    ours = _declarations(lambda c: make_ours(**flags)(c), leanclass.field, meta)
    real = _declarations(lambda c: make_real(**flags)(c), dataclasses.field)
    return ours, real


def _state(o: object, names: list[str]) -> list[Any]:
    return [getattr(o, n, "<unset>") for n in names]


@pytest.mark.parametrize("meta", [type, leanclass.Declared], ids=["class", "declared"])
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(f) or "default")
@pytest.mark.parametrize(("name", "args", "kwargs"), CASES)
def test_same_behaviour_as_dataclass(
    flags: dict[str, bool], name: str, args: tuple[Any, ...], kwargs: dict[str, Any], meta: Any
) -> None:
    ours, real = _both(flags, meta)
    assert type(ours[name]) is type  # (a declaration's class is a plain class, as the syntax tree's are)
    o, r = ours[name](*args, **kwargs), real[name](*args, **kwargs)
    names = [f.name for f in dataclasses.fields(real[name])]
    assert [f.name for f in dataclasses.fields(ours[name])] == names
    assert leanclass.field_names(o) == tuple(names)
    assert _state(o, names) == _state(r, names)
    assert type(o).__match_args__ == type(r).__match_args__
    assert str(inspect.signature(ours[name])) == str(inspect.signature(real[name]))
    if flags.get("repr", True) and name != "OwnRepr":
        assert repr(o) == repr(r)
    plain: Any = object.__repr__
    assert (type(o).__repr__ is plain) == (type(r).__repr__ is plain)
    if name == "OwnRepr":
        assert repr(o) == repr(r) == "<7>" and o.double == 14  # type: ignore[attr-defined]
    again = ours[name](*args, **kwargs)
    assert (o == again) == (r == real[name](*args, **kwargs))
    assert o != r  # another class is never equal, as with dataclass
    _check_hash(o, r, again)
    if flags.get("frozen") and names:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(o, names[0], 1)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(o, names[0])
    assert hasattr(o, "__dict__") == hasattr(r, "__dict__")
    for clone in (copy.copy(o), copy.deepcopy(o)):  # the reduce protocol pickle uses (local classes)
        assert _state(clone, names) == _state(o, names) and clone is not o


def _check_hash(o: Any, r: Any, again: Any) -> None:
    """Hashable exactly when the dataclass is, and by the compared fields."""
    real_hashable = type(r).__hash__ is not None
    assert (type(o).__hash__ is not None) == real_hashable
    if real_hashable:
        try:
            want = hash(r) == hash(
                type(r)(**{f.name: getattr(r, f.name) for f in dataclasses.fields(r) if f.init})
            )
        except TypeError:  # a list field: neither can hash
            with pytest.raises(TypeError):
                hash(o)
            return
        assert (hash(o) == hash(again)) == want


@pytest.mark.parametrize("meta", [type, leanclass.Declared], ids=["class", "declared"])
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(f) or "default")
def test_dataclasses_functions_accept_lean_classes(flags: dict[str, bool], meta: Any) -> None:
    ours, real = _both(flags, meta)
    o: Any = ours["Factory"]("n", [1])
    r: Any = real["Factory"]("n", [1])
    assert dataclasses.asdict(o) == dataclasses.asdict(r)
    assert dataclasses.astuple(o) == dataclasses.astuple(r)
    changed = dataclasses.replace(o, name="m")
    assert type(changed) is ours["Factory"] and changed.name == "m" and changed.items == [1]  # type: ignore[attr-defined]
    hidden = dataclasses.replace(ours["Hidden"]("k"), key="j")
    assert hidden.key == "j" and hidden.cache == []  # type: ignore[attr-defined]
    assert dataclasses.is_dataclass(ours["Factory"]) and dataclasses.is_dataclass(o)
    params = ours["Plain"].__dataclass_params__  # type: ignore[attr-defined]
    assert (params.frozen, params.eq) == (flags.get("frozen", False), flags.get("eq", True))


@pytest.mark.parametrize("meta", [type, leanclass.Declared], ids=["class", "declared"])
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(f) or "default")
def test_lean_replace_is_dataclasses_replace(flags: dict[str, bool], meta: Any) -> None:
    ours, _ = _both(flags, meta)
    for name, args, changes in [
        ("Factory", ("n", [1]), {"name": "m"}),
        ("Factory", ("n", [1]), {}),
        ("Hidden", ("k",), {"key": "j", "note": "x"}),
        ("Plain", (1,), {"c": 2.5}),
        ("Post", (1,), {"high": 3}),
    ]:
        o = ours[name](*args)
        if name == "Hidden" and not flags.get("frozen"):
            o.cache, o.count = [7], 7  # (init=False fields are made afresh by replace)
        made, want = leanclass.replace(o, **changes), dataclasses.replace(o, **changes)
        assert type(made) is ours[name] and made is not o
        names = leanclass.field_names(made)
        assert [getattr(made, n) for n in names] == [getattr(want, n) for n in names]
    with pytest.raises(ValueError, match="init=False"):
        leanclass.replace(ours["Hidden"]("k"), count=1)
    with pytest.raises(TypeError):
        leanclass.replace(ours["Plain"](1), nope=1)
    with pytest.raises(ValueError, match="5 > 3"):
        leanclass.replace(ours["Post"](1), low=5, high=3)


def test_post_init_runs_and_class_vars_are_not_fields() -> None:
    ours, _ = _both({"frozen": True, "slots": True})
    with pytest.raises(ValueError, match="5 > 4"):
        ours["Post"](5, 4)
    assert leanclass.field_names(ours["Post"]) == ("low", "high")
    assert ours["Post"].seen == 0  # type: ignore[attr-defined]


def test_factory_defaults_are_fresh_per_instance() -> None:
    ours, _ = _both({})
    a, b = ours["Factory"]("a"), ours["Factory"]("b")
    a.items.append(1)  # type: ignore[attr-defined]
    assert b.items == []  # type: ignore[attr-defined]


def _bad_mutable() -> None:
    class Bad:
        items: list[int] = []

    leanclass.dataclass(Bad)


def _bad_order() -> None:
    class Bad:
        a: int = 1
        b: int

    leanclass.dataclass(Bad)


def _bad_both() -> None:
    leanclass.field(default=1, default_factory=list)


def _bad_base() -> None:
    @leanclass.dataclass
    class Base:
        a: int

    class Child(Base):
        b: int

    leanclass.dataclass(Child)


@pytest.mark.parametrize(
    ("make", "error", "text"),
    [
        (_bad_mutable, ValueError, "mutable default"),
        (_bad_order, TypeError, "non-default argument 'b' follows default argument"),
        (_bad_both, ValueError, "cannot specify both"),
        (_bad_base, TypeError, "do not inherit fields"),
    ],
)
def test_declarations_dataclass_refuses_are_refused(make: Any, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text):
        make()


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(f) or "default")
def test_signature_before_the_first_instance(flags: dict[str, bool]) -> None:
    """`__init__` is compiled on first use; inspect.signature of the class is the real one before that,
    and the instances made after it are the dataclass's."""
    ours, real = _both(flags)
    for name, cls in ours.items():
        assert str(inspect.signature(cls)) == str(inspect.signature(real[name]))
    for name, args, kwargs in CASES:
        o, r = ours[name](*args, **kwargs), real[name](*args, **kwargs)
        names = [f.name for f in dataclasses.fields(r)]
        assert _state(o, names) == _state(r, names)


def test_missing_or_unknown_argument_is_a_type_error() -> None:
    ours, _ = _both({"frozen": True})
    with pytest.raises(TypeError):
        ours["Plain"]()
    with pytest.raises(TypeError):
        ours["Plain"](1, nope=2)
    with pytest.raises(TypeError):
        ours["Hidden"]("k", cache=[1])  # init=False is no parameter


def test_module_level_classes_pickle_and_keep_the_protocol() -> None:
    from sandbash.limits import Limits
    from sandbash.result import ExecResult

    lim = Limits(timeout=5.0)
    assert pickle.loads(pickle.dumps(lim)) == lim
    assert dataclasses.replace(lim, max_tokens=7).max_tokens == 7
    assert dataclasses.asdict(lim)["timeout"] == 5.0
    assert lim.with_overrides(max_tokens=9) == dataclasses.replace(lim, max_tokens=9)
    res = ExecResult(b"a", b"", 0)
    assert pickle.loads(pickle.dumps(res)) == res and dataclasses.is_dataclass(res)


def test_a_cycle_repr_shows_dots_as_dataclass() -> None:
    made: dict[str, Any] = {}
    for name, make in (("ours", leanclass.dataclass), ("real", dataclasses.dataclass)):

        class Box:
            inner: Any = None

        made[name] = make(Box)
    ours, real = made["ours"](), made["real"]()
    ours.inner, real.inner = ours, real
    assert repr(ours) == repr(real) and repr(ours).endswith(".Box(inner=...)")
    nested = made["ours"]([made["ours"](1)])
    assert repr(nested) == repr(made["real"]([made["real"](1)]))


# calls that bind and calls that do not: (declaration, args, kwargs)
_BAD_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("Plain", (), {}),  # missing a
    ("Plain", (1, "y", 2.5, 4), {}),  # too many
    ("Plain", (1,), {"a": 2}),  # a twice
    ("Plain", (1,), {"nope": 2}),  # unknown
    ("Hidden", ("k",), {"cache": [1]}),  # init=False is no parameter
    ("Hidden", ("k", "n", [1]), {}),
    ("Factory", (), {"items": []}),
    ("Post", (5, 4), {}),  # __post_init__ raises
    ("Empty", (1,), {}),
]


def _outcome(cls: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        o = cls(*args, **kwargs)
    except (TypeError, ValueError) as e:
        return type(e), str(e).replace(cls.__qualname__ + ".", "")
    return _state(o, [f.name for f in dataclasses.fields(cls)])


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(f) or "default")
def test_first_instances_are_the_compiled_init_s(flags: dict[str, bool]) -> None:
    """A class's first instances are set field by field (_init_generic) and the later ones by the
    compiled `__init__`: the same fields, defaults, fresh factory values and __post_init__, and a call
    that does not bind raises the compiled one's TypeError (its message names the class as Python does)."""
    for name, args, kwargs in CASES + _BAD_CALLS:
        generic, _ = _both(flags)
        compiled, _ = _both(flags)
        cls: Any = compiled[name]
        cls.__init__.__lean_lazy__()
        fresh: Any = generic[name]
        assert getattr(fresh.__init__, "__lean_lazy__", None) is not None
        assert _outcome(fresh, args, kwargs) == _outcome(cls, args, kwargs), (name, args, kwargs)
    made, _ = _both(flags)
    first, second = made["Factory"]("a"), made["Factory"]("b")
    assert first.items is not second.items and first.table is not second.table  # type: ignore[attr-defined]


def test_the_init_is_compiled_after_the_first_instances() -> None:
    ours, _ = _both({"frozen": True, "slots": True})
    cls: Any = ours["Factory"]
    made = [cls(str(i), [i]) for i in range(leanclass._COMPILE_AFTER)]
    assert getattr(cls.__init__, "__lean_lazy__", None) is not None  # still the stand-in
    made.append(cls("last"))
    assert getattr(cls.__init__, "__lean_lazy__", None) is None
    assert cls.__init__.__qualname__.endswith("Factory.__init__")
    assert [(o.name, o.items) for o in made[:3]] == [("0", [0]), ("1", [1]), ("2", [2])]
    assert (made[-1].name, made[-1].items, made[-1].flag) == ("last", [], False)


# ---------------------------------------------------------------- str_enum


def _twin(made: type[enum.StrEnum]) -> type[enum.StrEnum]:
    """The same StrEnum made the usual way (a class statement's metaclass call)."""
    return enum.StrEnum(made.__name__, [(m.name, m.value) for m in made])  # type: ignore[return-value]


@pytest.mark.parametrize("made", [LimitKind, FileOp, Effects, A.Op, A.OpKind])
def test_str_enum_classes_behave_as_class_statement_ones(made: type[enum.StrEnum]) -> None:
    """sandbash's StrEnums (built by leanclass.str_enum, as the standard library builds its own) are
    the enums a class statement makes: members, lookups, text, comparisons, pickling, errors."""
    twin = _twin(made)
    assert type(made) is type(twin) is enum.EnumType
    assert issubclass(made, enum.StrEnum) and made.__mro__[1:] == twin.__mro__[1:]
    assert [(m.name, m.value) for m in made] == [(m.name, m.value) for m in twin]
    assert list(made.__members__) == list(twin.__members__) and len(made) == len(twin)
    for mine, theirs in zip(made, twin, strict=True):
        assert made(theirs.value) is mine and made[theirs.name] is mine and getattr(made, mine.name) is mine
        assert mine == theirs.value and hash(mine) == hash(theirs.value) and isinstance(mine, str)
        assert (str(mine), format(mine), f"{mine:>3}") == (str(theirs), format(theirs), f"{theirs:>3}")
        assert repr(mine) == repr(theirs).replace(twin.__name__, made.__name__, 1)
        assert mine._name_ == mine.name and mine._value_ == mine.value and mine in made
        assert pickle.loads(pickle.dumps(mine)) is mine and copy.copy(mine) is mine
    with pytest.raises(ValueError, match=f"'nope' is not a valid {made.__name__}"):
        made("nope")
    with pytest.raises(KeyError):
        made["nope"]
    with pytest.raises(AttributeError):
        made.__members__[made._member_names_[0]].name = "x"  # type: ignore[misc]


def test_a_declaration_is_made_a_class_once() -> None:
    """`metaclass=Declared`: the statement makes a Declaration, and the decorator one class from it
    (its module, qualified name, docstring and methods kept; a method's super() and __class__ name that
    class); without the decorator the name holds the declaration, which says so; class keywords are refused."""
    made: list[type] = []

    class Base:
        __slots__ = ()

        def hello(self) -> str:
            return "base"

    @leanclass.dataclass(frozen=True, slots=True)
    class Point(Base, metaclass=leanclass.Declared):
        """A point."""

        x: int
        y: int = 0

        def hello(self) -> str:
            made.append(__class__)
            return "point of " + super().hello()

    p = Point(1)
    assert (p.x, p.y, p.hello(), made) == (1, 0, "point of base", [Point])
    assert Point.__qualname__.endswith("test_a_declaration_is_made_a_class_once.<locals>.Point")
    assert (Point.__module__, Point.__doc__, Point.__slots__) == (__name__, "A point.", ("x", "y"))
    assert isinstance(p, Base) and type(Point) is type and not hasattr(p, "__dict__")

    class Bare(metaclass=leanclass.Declared):
        a: int

    assert isinstance(Bare, leanclass.Declaration) and "no lean decorator" in repr(Bare)
    with pytest.raises(TypeError, match="class keywords"):

        class Keyed(metaclass=leanclass.Declared, flag=True):  # type: ignore[call-arg]
            pass

    with pytest.raises(TypeError, match="do not inherit fields"):

        @leanclass.dataclass(slots=True)
        class Child(Point, metaclass=leanclass.Declared):  # type: ignore[misc]
            z: int = 0


def test_the_syntax_tree_is_declared() -> None:
    """Every node class of syntax/ast.py is made once from its declaration: a slotted plain class with
    the lean methods (a node class made from a first class would leave that one behind)."""
    nodes = [v for v in vars(A).values() if isinstance(v, type) and "__lean_fields__" in v.__dict__]
    assert len(nodes) > 50
    for cls in nodes:
        assert type(cls) is type and cls.__module__ == A.__name__ and cls.__slots__ == cls.__lean_fields__
        assert cls.__mro__ == (cls, object)
