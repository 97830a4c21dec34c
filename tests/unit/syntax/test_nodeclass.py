"""syntax/nodeclass.py builds the same classes as `@dataclass(frozen=..., slots=True)`: each shape below is
built both ways and must behave alike (construction, defaults, repr, equality, hashing, copying, pickling,
match patterns, read-only fields)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from sandbash.syntax import nodeclass


def _shapes(make: Any, field: Any) -> dict[str, type]:
    class Empty:
        pass

    class One:
        text: str

    class Two:
        a: int
        b: str = "x"

    class Factory:
        name: str
        items: tuple[int, ...] = field(default_factory=tuple)
        extra: list[int] = field(default_factory=list)
        flag: bool = field(default=False)

    class Nested:
        inner: Any
        more: tuple[Any, ...] = ()

    classes = {"Empty": Empty, "One": One, "Two": Two, "Factory": Factory, "Nested": Nested}
    return {k: make(v) for k, v in classes.items()}


def _both(frozen: bool) -> tuple[dict[str, type], dict[str, type]]:
    ours = _shapes(lambda c: nodeclass.dataclass(frozen=frozen, slots=True)(c), nodeclass.field)
    real = _shapes(lambda c: dataclasses.dataclass(frozen=frozen, slots=True)(c), dataclasses.field)
    return ours, real


CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("Empty", (), {}),
    ("One", ("a b",), {}),
    ("One", (), {"text": "kw"}),
    ("Two", (1,), {}),
    ("Two", (1, "y"), {}),
    ("Two", (), {"b": "z", "a": 3}),
    ("Factory", ("n",), {}),
    ("Factory", ("n", (1, 2)), {}),
    ("Factory", ("n",), {"flag": True, "extra": [4]}),
    ("Nested", ("leaf",), {"more": ("m", 1)}),
]


@pytest.mark.parametrize("frozen", [True, False])
@pytest.mark.parametrize(("name", "args", "kwargs"), CASES)
def test_same_behaviour_as_dataclass(
    frozen: bool, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    ours, real = _both(frozen)
    o, r = ours[name](*args, **kwargs), real[name](*args, **kwargs)
    names = [f.name for f in dataclasses.fields(real[name])]
    assert [getattr(o, n) for n in names] == [getattr(r, n) for n in names]
    assert type(o).__match_args__ == type(r).__match_args__ == tuple(names)
    assert type(o).__slots__ == tuple(names)
    assert repr(o) == repr(r)
    assert o == ours[name](*args, **kwargs)
    assert o != r  # another class is never equal, as with dataclass
    if frozen and "extra" not in names:
        assert hash(o) == hash(ours[name](*args, **kwargs))
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(o, names[0] if names else "x", 1)
    elif not frozen:
        with pytest.raises(TypeError):
            hash(o)
    for clone in (copy.copy(o), copy.deepcopy(o)):
        assert clone == o and clone is not o
    with pytest.raises(AttributeError):
        o.__dict__  # noqa: B018  (slots: no instance dict)


def test_differences_in_any_field_make_unequal() -> None:
    ours, _ = _both(True)
    two = ours["Two"]
    assert two(1, "a") != two(1, "b")
    assert two(1, "a") != two(2, "a")
    assert len({two(1, "a"), two(1, "a"), two(2, "a")}) == 2


def test_factory_defaults_are_fresh_per_instance() -> None:
    ours, _ = _both(False)
    a, b = ours["Factory"]("a"), ours["Factory"]("b")
    a.extra.append(1)
    assert b.extra == []


def test_missing_argument_is_a_type_error() -> None:
    ours, _ = _both(True)
    with pytest.raises(TypeError):
        ours["Two"]()


def test_match_pattern_and_pickle_of_module_level_nodes() -> None:
    from sandbash.syntax.ast import Lit, Word

    w = Word(parts=(Lit("a"),), line=3)
    match w:
        case Word((Lit(text),)):
            assert text == "a"
        case _:
            pytest.fail("positional match on a node")
    assert pickle.loads(pickle.dumps(w)) == w
    assert hash(pickle.loads(pickle.dumps(w))) == hash(w)
