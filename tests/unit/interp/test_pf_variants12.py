"""Shapes users write, made cheaper (issue 23, pf-variants12). `local` of a name already local in
the same function (VarStore._local_again): the value assigned, what it holds charged and given
back, and anything but a plain local of this very function left to the builtin. `read ... <<<
WORD` compiled (interp/fastread.py): the walked builtin's answers. The spec tables
pf_variants12_local.txt and pf_variants12_read.txt check the shapes against bash 5.2."""

from __future__ import annotations

import random

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError
from sandbash.limits import Limits
from sandbash.shvars.vars import EXPORT, INTEGER, VAR_OVERHEAD, Scope, Var, VarStore, value_size

from .walking import held_change, run_walked, walking


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
    for multi in (False, True, "each"):
        store = _store_in_function()
        before = vars_held(store)
        if multi == "each":  # (the compiler's `local a=... n=1`, names checked as written)
            assert store.declare_each(("a", "n"), (first, "1"))
            assert store.declare_each(("a", "m"), (again, None))
        elif multi:
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
        assert vars_held(store) - before == VAR_OVERHEAD + value_size(want) + extra


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
    held = vars_held(store)
    for pairs in ([("i", "5")], [("t", "x")], [("h", "x")], [("e", "3"), ("i", "4")]):
        assert not store.declare_locals(pairs)
        if len(pairs) == 1:
            assert not store.declare_local(*pairs[0])
            assert not store.declare_each(*zip(*pairs, strict=True))
    assert vars_held(store) == held
    assert [scope[k].value for k in "eith"] == ["2", "1", "temp", "hidden"]


@pytest.mark.parametrize("walker", [False, True])
def test_locals_declared_again_in_a_loop_give_back_what_they_held(walker: bool) -> None:
    setup = (
        'big=$(printf "%20000s"); u=${big// /é}; f() { local a b=1; for v in "$@" x ""; do local a=$v b; '
        "local c=$v$v; done; echo ${#a}${#c}; }; f x; i=0"
    )
    assert held_change(setup, 'for i in 1 2 3; do f "$big" "$u"; done', walker) == ("00\n00\n00\n", 0)


# `read [-r] NAME... <<< WORD` compiled (interp/fastread.py) against the walked builtin: random
# lines of IFS characters, backslashes, non-ASCII text and newlines, with several IFS values,
# temporary IFS bindings and name counts; each runs in a loop so the compiled body runs it
_READ_ALPHABET = [" ", "  ", "\t", ":", ",", "a", "bc", "\\", "é", "\n", "x y"]
_READ_IFS = ["unset IFS", "IFS=:", "IFS=' :'", "IFS=", "IFS=$'\\t'", "IFS=,"]


def _quoted(text: str) -> str:
    return "$'" + "".join(f"\\x{ord(c):02x}" if ord(c) < 128 else c for c in text) + "'"


def _read_script(rng: random.Random) -> str:
    lines = []
    for _ in range(12):
        text = "".join(rng.choice(_READ_ALPHABET) for _ in range(rng.randrange(0, 8)))
        names = " ".join(f"v{k}" for k in range(rng.randrange(0, 4)))
        raw = rng.choice(["-r ", ""])
        prefix = rng.choice(["", "IFS=, ", "IFS=: ", "IFS= "])
        lines.append(
            f"{rng.choice(_READ_IFS)}; t={_quoted(text)}; unset v0 v1 v2 REPLY;"
            f' for i in 1 2; do {prefix}read {raw}{names} <<< "$t"; s=$?; done;'
            ' echo "$s [${v0-u}][${v1-u}][${v2-u}][${REPLY-u}]"'
        )
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(8))
def test_herestring_read_is_the_builtins(seed: int) -> None:
    script = _read_script(random.Random(seed))
    assert run_walked(script, False) == run_walked(script, True)


def test_herestring_read_keeps_max_string_length() -> None:
    """A here-string line near max_string_length goes to the builtin, which ends the run on it."""
    for walker in (False, True):
        with walking(walker), pytest.raises(ExecutionLimitError) as info:
            Bash(limits=Limits(max_string_length=1000)).exec(
                'x=$(printf "%990s" ""); for i in 1 2 3; do read -r a <<< "$x"; done'
            )
        assert info.value.limit == "max_string_length"
