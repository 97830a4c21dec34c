"""Shapes users write, made cheaper (issue 23, pf-variants12). `local` of a name already local in
the same function (VarStore._local_again): the value assigned, what it holds charged and given
back, and anything but a plain local of this very function left to the builtin. The spec table
pf_variants12_local.txt checks the shapes against bash 5.2, compiled and walked."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.shvars.vars import EXPORT, INTEGER, VAR_OVERHEAD, Scope, Var, VarStore, value_size

from .walking import walking


def _store_in_function() -> VarStore:
    store = VarStore()
    store.push(Scope(False, True))
    return store


@pytest.mark.parametrize("checked", [False, True])
@pytest.mark.parametrize(
    ("first", "again"),
    [("1", "22"), ("é" * 10, "x"), (None, "abc"), ("abc", None), ("", "é"), ("y" * 3000, "")],
)
def test_local_again_assigns_and_charges_the_difference(
    first: str | None, again: str | None, checked: bool
) -> None:
    for multi in (False, True):
        store = _store_in_function()
        before = store.held()
        if multi:
            assert store.declare_locals([("a", first), ("n", "1")], checked)
            assert store.declare_locals([("a", again), ("m", None)], checked)
        else:
            assert store.declare_local("a", first)
            assert store.declare_local("a", again)
        var = store.scopes[-1]["a"]
        want = again if again is not None else first
        assert (var.value, var.attrs) == (want, 0)
        assert store.scopes[-1].locals >= {"a"}
        extra = (2 * VAR_OVERHEAD + value_size("1")) if multi else 0
        assert store.held() - before == VAR_OVERHEAD + value_size(want) + extra


def test_local_again_keeps_export_and_refuses_the_rest() -> None:
    store = _store_in_function()
    scope = store.scopes[-1]
    assert store.declare_local("e", "1")
    scope["e"].attrs = EXPORT
    assert store.declare_local("e", "2") and (scope["e"].value, scope["e"].attrs) == ("2", EXPORT)
    assert store.declare_local("i", "1")
    scope["i"].attrs = INTEGER
    # attributes, a temporary binding of the call, a name the scope holds but did not declare
    scope.tempvars = {"t"}
    scope["t"] = Var("temp", 0)
    scope.locals.add("t")
    scope["h"] = Var("hidden", 0)
    held = store.held()
    for pairs in ([("i", "5")], [("t", "x")], [("h", "x")], [("e", "3"), ("i", "4")]):
        assert not store.declare_locals(pairs)
        if len(pairs) == 1:
            assert not store.declare_local(*pairs[0])
    assert store.held() == held
    assert [scope[k].value for k in "eith"] == ["2", "1", "temp", "hidden"]


@pytest.mark.parametrize("walker", [False, True])
def test_locals_declared_again_in_a_loop_give_back_what_they_held(walker: bool) -> None:
    with walking(walker):
        session = Bash().session()
        session.exec(
            'big=$(printf "%20000s"); u=${big// /é}; f() { local a b=1; for v in "$@" x ""; do local a=$v b; '
            "local c=$v$v; done; echo ${#a}${#c}; }; f x; i=0"
        )
        vars_ = session.shell.state.vars
        before = vars_.held()
        r = session.exec('for i in 1 2 3; do f "$big" "$u"; done')
        assert r.stdout == "00\n00\n00\n"
        assert vars_.held() == before
