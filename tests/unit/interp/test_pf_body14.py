"""`local` of several names checked at compile time (Compiler._local_many, VarStore.declare_each;
issue 23, pf-body14): the store's steps in one frame must make, charge and refuse exactly as
declare_local does name by name, and a function's locals must give back all they held."""

from __future__ import annotations

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError, Limits, Session
from sandbash.shvars.vars import EXPORT, VAR_OVERHEAD, Scope, Var, VarStore, value_size


def _store_at_depth(depth: int) -> VarStore:
    store = VarStore()
    for _ in range(depth):
        store.push(Scope(False, True))
    return store


@pytest.mark.parametrize("depth", [1, 3])
def test_each_name_made_as_declare_local_makes_it(depth: int) -> None:
    values = ("1", None, "é" * 5, "")
    names = ("a", "e", "w", "z")
    one, each = _store_at_depth(depth), _store_at_depth(depth)
    for store in (one, each):
        store.scopes[0]["e"] = Var("global", EXPORT)  # (hidden: the local is exported)
        if depth > 1:
            store.scopes[1]["w"] = Var("below", EXPORT)
            store.local_names.add("w")
    before = vars_held(one)
    for name, value in zip(names, values, strict=True):
        assert one.declare_local(name, value)
    assert each.declare_each(names, values)
    assert (
        vars_held(one)
        == vars_held(each)
        == before + sum(VAR_OVERHEAD + (value_size(v) if v is not None else 0) for v in values)
    )
    got = [(k, v.value, v.attrs) for k, v in each.scopes[-1].items()]
    assert got == [(k, v.value, v.attrs) for k, v in one.scopes[-1].items()]
    assert [attrs for _, _, attrs in got] == [0, EXPORT, EXPORT if depth > 1 else 0, 0]
    assert each.scopes[-1].locals == set(names)


def test_a_name_that_cannot_be_made_stops_there() -> None:
    store = _store_at_depth(1)
    store.readonly_names.add("r")
    before = vars_held(store)
    # made before the readonly name, charged; nothing after it
    assert not store.declare_each(("a", "r", "b"), ("xy", "1", "2"))
    scope = store.scopes[-1]
    assert set(scope) == {"a"} and scope.locals == {"a"}
    assert vars_held(store) - before == VAR_OVERHEAD + 2
    # outside a function: nothing at all
    top = VarStore()
    assert not top.declare_each(("a", "b"), ("1", "2")) and not top.scopes[0]


def test_a_temporary_binding_to_inherit_goes_to_the_builtin() -> None:
    store = VarStore()
    temp = Scope()
    temp.temp = True
    temp["v"] = Var("tmp", EXPORT)
    store.push(temp)
    store.push(Scope(False, True))
    assert not store.declare_each(("w", "v"), ("1", None))
    assert store.declare_each(("v",), ("given",))  # (a value: nothing to inherit)


@pytest.mark.parametrize(
    "body",
    [
        'local a=$1 b c="$2$2"; b=$a$c',
        "local x y; x=$1; y=$2$2",
        "local a=$1 b=$2; local a=$2 b",  # (local again in the same function)
        "local -i n=$1; local m=$((n * 2)) k=$1",
    ],
)
@pytest.mark.parametrize("walker", [False, True])
def test_calls_give_back_what_their_locals_held(
    body: str, walker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if walker:
        monkeypatch.setenv("SANDBASH_TREE_WALKER", "1")
    sess: Session = Bash().session()
    sess.exec(f'f() {{ {body}; }}; g() {{ f "$@"; }}; unset i')  # ($_ the same after both)
    base = vars_held(sess.shell.state.vars)
    sess.exec('for ((i=0; i<300; i++)); do g "$i" "$(printf "%*s" $((i % 50)) "")"; done; unset i')
    assert vars_held(sess.shell.state.vars) == base


def test_max_memory_stops_a_local_of_several_names() -> None:
    big = 3 * (1 << 20)
    bash = Bash(limits=Limits(max_memory=8 << 20))
    script = f'f() {{ local a=$1 b=$1 c=$1; echo no; }}; x=$(printf "%{big}s" ""); f "$x"'
    with pytest.raises(ExecutionLimitError):
        bash.exec(script)
