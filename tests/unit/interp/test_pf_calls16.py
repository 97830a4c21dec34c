"""A new local is exported when the variable it hides is (bash's find() from the scope below):
VarStore.declare_local, declare_each and declare_locals look in the caller's scope first, then
walk on down (shvars.vars._found_below; issue 23, pf-calls16). Each must find exactly what
VarStore.find finds below the current scope, wherever that variable lives."""

from __future__ import annotations

import pytest

from sandbash.shvars.vars import EXPORT, Scope, Var, VarStore

DEPTH = 4  # (the globals, then four function scopes: the local is made in the last)


def _store(where: int | None, attrs: int, shadow: int | None) -> VarStore:
    """A store DEPTH calls deep with `x` bound in scope `where` (None: nowhere) with `attrs`, and
    an unexported `x` in scope `shadow` (None: none) that hides it if it is nearer."""
    store = VarStore()
    for _ in range(DEPTH):
        store.push(Scope(False, True))
    for i, a in ((where, attrs), (shadow, 0)):
        if i is not None:
            store.scopes[i]["x"] = Var("v", a)  # (Scope.__setitem__ adds pushed scopes' names)
    return store


def _expected(store: VarStore) -> int:
    scopes = store.scopes
    for scope in reversed(scopes[:-1]):
        var = scope.get("x")
        if var is not None:
            return EXPORT if var.attrs & EXPORT else 0
    return 0


CASES = [
    (where, attrs, shadow)
    for where in (None, 0, 1, 2, 3)
    for attrs in (0, EXPORT)
    for shadow in (None, 0, 1, 2, 3)
    if shadow != where
]


@pytest.mark.parametrize(("where", "attrs", "shadow"), CASES)
@pytest.mark.parametrize("way", ["declare_local", "declare_each", "declare_locals"])
def test_a_local_is_exported_exactly_when_the_nearest_below_is(
    where: int | None, attrs: int, shadow: int | None, way: str
) -> None:
    store = _store(where, attrs, shadow)
    want = _expected(store)
    if way == "declare_local":
        assert store.declare_local("x", "1")
    elif way == "declare_each":
        assert store.declare_each(("x", "y"), ("1", None))
    else:
        assert store.declare_locals([("x", "1"), ("y", None)], checked=True)
    made = store.scopes[-1]["x"]
    assert made.attrs == want and made.value == "1"
    assert "x" in store.scopes[-1].locals and "x" in store.local_names
