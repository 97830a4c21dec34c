"""Function calls and `local` made cheaper (issue 23, pf-funcs3): call_function's body dispatch,
compiler.local_cmd with the names checked once, VarStore.declare_locals, MemAccount.add's common
case and Scope.nbytes. Each script runs compiled and walked and must give the same stdout,
stderr and status (the spec table pf_funcs3_calls.txt checks the shapes against bash 5.2); the
accounting helpers are compared with the plain formulas they replace."""

from __future__ import annotations

import random

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError
from sandbash.limits import Limits
from sandbash.shvars.arrays import IndexedArray
from sandbash.shvars.vars import _GRAIN, EXPORT, VAR_OVERHEAD, MemAccount, Scope, Var, VarStore, value_size

from .walking import run_walked, walking

# (script, expected stdout): every function runs three times or more, so its body compiles
CASES: dict[str, tuple[str, str]] = {
    "local-one-name-forms": (
        'f() { local a=$1; local b; local c="$1 x"; local d=; echo "[$a|${b-u}|$c|$d]"; };'
        " for v in 1 'é*' ''; do f \"$v\"; done",
        "[1|u|1 x|]\n[é*|u|é* x|]\n[|u| x|]\n",
    ),
    "local-several-names": (
        'f() { local n=$1 left right=r; echo "$n ${left-u} $right $_"; }; for i in 1 2 3; do f $i; done',
        "1 u r right=r\n2 u r right=r\n3 u r right=r\n",
    ),
    "local-duplicates-and-invalid": (
        'f() { local p=1 p; local q=1 q=2; local 1x=3 2>/dev/null; echo "$p $q $?"; }; for i in 1 2 3; do f; done',
        "1 2 1\n1 2 1\n1 2 1\n",
    ),
    "local-special-names": (
        'f() { local RANDOM=4 OPTIND=2 v=1; echo "${#RANDOM} $OPTIND $v"; }; for i in 1 2 3; do f; done;'
        ' echo "${OPTIND}"',
        "1 2 1\n1 2 1\n1 2 1\n1\n",
    ),
    "local-hides-exported": (
        "export X=1; g() { local X=3; declare -p X; }; f() { local X=2; g; }; for i in 1 2 3; do f; done",
        'declare -x X="3"\n' * 3,
    ),
    "local-readonly": (
        'readonly R=1; f() { local v=1 R=2 2>/dev/null; echo "$? ${v-u} $R"; }; for i in 1 2 3; do f; done',
        "1 1 1\n" * 3,  # (v made before R fails, as bash)
    ),
    "local-temp-binding": (
        'f() { local v; echo "${v-u}"; }; for i in 1 2 3; do v=$i f; done; echo "${v-u}"',
        "1\n2\n3\nu\n",
    ),
    "local-allexport": (
        "f() { local e=$1; declare -p e; }; for i in 1 2; do f $i; set -a; done; set +a",
        'declare -- e="1"\ndeclare -x e="2"\n',
    ),
    "local-localvar-inherit": (
        'f() { local v; echo "${v-u}"; }; v=out; for i in 1 2; do f; shopt -s localvar_inherit; done',
        "u\nout\n",
    ),
    "local-function-named-local": (
        'f() { local v=$1; echo "${v-u}"; }; for i in 1 2 3; do f $i; local() { echo "fn $*"; }; done',
        "1\nfn v=2\nu\nfn v=3\nu\n",
    ),
    "body-kinds": (
        's() ( echo "s$1" ); i() if [[ $1 ]]; then echo "i$1"; fi; a() (( $1 > 1 ));'
        ' for v in 1 2 3; do s $v; i $v; a $v; echo "a$?"; done',
        "s1\ni1\na1\ns2\ni2\na0\ns3\ni3\na0\n",
    ),
    "body-expansion-error-group": (
        'g() { echo "${1:?no}"; echo after; }; for v in a b \'\' c; do g "$v"; echo "g$?"; done',
        "a\nafter\ng0\nb\nafter\ng0\n",
    ),
    "body-expansion-error-not-group": (
        'n() for x in ${1:?no}; do echo $x; done; for v in a b \'\' c; do n "$v"; echo "n$?"; done',
        "a\nn0\nb\nn0\n",
    ),
    "body-redefined-at-one-site": (
        "f() { echo g$1; }; for i in 1 2 3 4; do f $i; if ((i == 2)); then f() ( echo s$1 ); fi; done",
        "g1\ng2\ns3\ns4\n",
    ),
    "debug-and-return-traps": (
        "f() { local v=$1; :; }; for i in 1 2; do f $i; done; set -T;"
        ' trap "echo r\\$v" RETURN; for i in 3 4; do f $i; done; trap - RETURN; echo end',
        "r3\nr4\nend\n",
    ),
    "xtrace-local": (
        "f() { local v=$1; }; for i in 1 2; do f $i; set -x; done 2>&1; set +x",
        "+ for i in 1 2\n+ f 2\n+ local v=2\n+ set -x\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_equals_walker(name: str) -> None:
    script, expected = CASES[name]
    compiled = run_walked(script, walker=False)
    assert compiled == run_walked(script, walker=True)
    assert compiled[0] == expected


def _store_in_function() -> VarStore:
    store = VarStore()
    store.push(Scope(False, True))
    return store


@pytest.mark.parametrize(
    "pairs",
    [
        [("a", "1")],
        [("a", None)],
        [("a", "é" * 10), ("b", None), ("c", "")],
        [("x", "y" * 3000)],
    ],
)
def test_declare_locals_checked_makes_the_same(pairs: list[tuple[str, str | None]]) -> None:
    """Names the compiler checked (checked=True) are made exactly as unchecked ones: the same
    variables, attributes and charge (4 bytes a character for non-ASCII text)."""
    made = []
    for checked in (False, True):
        store = _store_in_function()
        store.globals["b"] = Var("g", EXPORT)
        before = vars_held(store)
        assert store.declare_locals(pairs, checked)
        scope = store.scopes[-1]
        made.append(
            ({k: (v.value, v.attrs) for k, v in scope.items()}, vars_held(store) - before, set(scope.locals))
        )
    assert made[0] == made[1]
    want = sum(VAR_OVERHEAD + value_size(v) for _, v in pairs)
    assert made[0][1] == want
    if ("b", None) in pairs:
        assert made[0][0]["b"] == (None, EXPORT)  # (hides an exported b: exported, as bash's)


def test_declare_locals_unchecked_still_refuses() -> None:
    store = _store_in_function()
    for pairs in ([("1x", "1")], [("d", "1"), ("d", None)], [("SECONDS", "1")], [("a-b", None)]):
        assert not store.declare_locals(pairs)
    assert not store.scopes[-1] and vars_held(store) == 0


def _reference_add(acct: MemAccount, n: int) -> None:
    """MemAccount.add as it was written before its common case came first."""
    held = acct.held + n
    if held < 0:
        held = 0
    if held > acct.charged or held + 2 * _GRAIN < acct.charged:
        acct._settle(held)
    acct.held = held


class _Budget:
    def __init__(self) -> None:
        self.memory = 0

    def charge_memory(self, n: int) -> None:
        self.memory += n

    def release_memory(self, n: int) -> None:
        self.memory -= n


def test_memaccount_add_matches_reference() -> None:
    rng = random.Random(23)
    for _ in range(200):
        a, b = _Budget(), _Budget()
        new, ref = MemAccount(a), MemAccount(b)  # type: ignore[arg-type]
        for _ in range(60):
            n = rng.choice([1, 64, 160, _GRAIN - 1, _GRAIN, 3 * _GRAIN]) * rng.choice([1, -1])
            new.add(n)
            _reference_add(ref, n)
            assert (new.held, new.charged, a.memory) == (ref.held, ref.charged, b.memory)
            assert new.held >= 0 and new.charged >= new.held


def test_scope_nbytes_is_the_sum_of_value_sizes() -> None:
    scope = Scope(False, True)
    values: list[str | IndexedArray | None] = ["abc", "é" * 5, None, "", IndexedArray()]
    for i, v in enumerate(values):
        scope[f"v{i}"] = Var(v)
    assert scope.nbytes() == VAR_OVERHEAD * len(values) + sum(value_size(v) for v in values)


@pytest.mark.parametrize("walker", [False, True])
def test_locals_give_back_what_they_held(walker: bool) -> None:
    """Locals with and without values, ASCII or not, are given back as each call returns."""
    with walking(walker):
        session = Bash().session()
        session.exec('big=$(printf "%20000s"); u=${big// /é}; f() { local a=$1 b c="$2"; b=$1; }; f x y; i=0')
        vars_ = session.shell.state.vars
        before = vars_held(vars_)
        r = session.exec('for i in 1 2 3 4 5; do f "$big" "$u"; done; echo ${#u}')
        assert r.stdout == "20000\n"
        assert vars_held(vars_) == before


@pytest.mark.parametrize("walker", [False, True])
def test_compiled_locals_count_to_max_memory(walker: bool) -> None:
    """Nested calls each holding a local copy of a big non-ASCII value end with max_memory."""
    script = (
        'u=$(printf "%20000s"); u=${u// /é}; r() { local v="$u$1"; (( $1 < 200 )) && r $(( $1 + 1 )); }; r 0'
    )
    with walking(walker), pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(max_call_depth=1000, max_memory=12 << 20)).exec(script)
    assert info.value.limit == "max_memory"
