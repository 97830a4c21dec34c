"""max_memory's account of variables against the calls' fast paths (Scope.release).

A function's scope gives back what Scope.nbytes counts of it as it is popped (calls.call_function),
so every variable placed in a scope must have been charged as nbytes counts it. `declare`/`local`
with attributes or a value placed variables without their overhead, set their value through a
temporary carrier scope that gave the value back a second time when it was dropped (its __del__ is
Scope.release), and gave a reference its target name uncharged; a temporary binding that outlives
its command (`v=x export v`, `v=x :` in POSIX mode) was kept uncharged: each call of
`f() { local -r a=$1; }` gave back about the size of `$1` more than it charged. The account (never
below zero) could so be worn down while the memory was still held: a run with max_memory 8 MB
kept 16 MB of variables (and a session, more at every call). Checked compiled and walked.
"""

from __future__ import annotations

import pytest

from memheld import vars_held
from sandbash import Bash
from sandbash.errors import ExecutionLimitError
from sandbash.interp import evaluator as evaluator_module
from sandbash.limits import Limits

# functions that declare, set and drop variables in every way the builtins do; `$1` is ~1 KB
SHAPES = {
    "local": "f() { local a=$1; }",
    "local -r": "f() { local -r a=$1; }",
    "local -x": "f() { local -x a=$1; a+=$1; }",
    "local twice": "f() { local a=x; local a=$1; }",
    "local -a": "f() { local -a a=($1 $1); a+=($1); }",
    "local -A": "f() { local -A m=([k]=$1); m[j]=$1; }",
    "local -a quoted": "f() { local -a a='($1 $1)'; }",
    "local -i": "f() { local -i n=${#1}; n+=3; }",
    "local -l -u": "f() { local -l a=$1; local -u b=$1; }",
    "local -n": "OUT=abc; f() { local -n r=OUT; r=$1; }",
    "local -n bad": "f() { local -n r=1bad 2>/dev/null; declare -n q=9 2>/dev/null; }",
    "declare -g": "f() { declare -g G=$1; unset G; }",
    "declare -ga": "f() { declare -ga GA=($1); unset GA; }",
    "export": "f() { export E=$1; unset E; }",
    "typeset": "f() { typeset a=$1 b=$1; typeset -a c=($1); }",
    "declare +x": "f() { local a=$1; declare +x a; declare -x a; }",
    "localvar_inherit": "shopt -s localvar_inherit; OUT=abc; f() { local OUT; OUT+=$1; }",
    "temporary binding": "g() { export T; }; f() { T=$1 g; unset T; }",
    "export of a binding": "f() { v=$1 export v; unset v; }",
    "a special builtin's binding": "set -o posix; f() { v=$1 :; unset v; }",
    "local over a binding": "g() { local T3=$1; }; f() { T3=$1 g; }",
    "a binding's own local": "f() { T4=$1 local T4; }",
    "local OPTIND": "f() { local OPTIND; getopts a x; }",
    "mapfile": 'f() { local -a a; mapfile -t a <<< "$1"; }',
    "read -a": 'f() { local -a a; read -ra a <<< "$1 $1"; }',
    "printf -v": 'f() { local a; printf -v a %s "$1$1"; }',
    "unset a local": "f() { local a=$1; unset a; a=zz; }",
    "readonly errors": "f() { local -r a=$1; a=2 2>/dev/null; local a=3 2>/dev/null; }",
    # compiled array assignments and element reads (interp/arrayassign.py, expand/elements.py)
    "local -a appends": 'f() { local -a a=(); local k; for k in 1 2 3; do a+=($1 "$1"); a=("$1"); a+=("${a[0]}" $((k))); done; }',
    "local -A reads": "f() { local -A m=([k]=$1); local k v; for k in k j k; do v=${m[$k]-0}; m[$k]=${m[$k]:-$1}; done; }",
    "global appends": 'f() { GA2=(); local k; for k in 1 2; do GA2+=("$1"); done; unset GA2; }',
    # element assignments by index (Compiler.element, Variables.element_setter's closure)
    "local -a by index": "f() { local -a a=(); local k; for k in 0 1 2; do a[k]=$1; a[k+1]+=$1; a[${#a[@]}]=x; done; }",
    "global by index": "f() { GI=(); local k; for k in 1 2; do GI[k*2]=$1; GI[-1]+=$1; done; unset GI; }",
}


@pytest.fixture(params=[False, True], ids=["compiled", "walked"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", request.param)
    return bool(request.param)


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_calls_give_back_what_they_charged(shape: str, walker: bool) -> None:
    """200 more calls leave the account where it was (but for the loop's own `$i`)."""
    session = Bash().session()
    arg = "x" * 1000
    session.exec(f'i=000; {SHAPES[shape]}; h() {{ f "$@"; }}; h {arg}; h {arg}')
    before = vars_held(session.shell.state.vars)
    r = session.exec(f"for i in $(seq 100 299); do h {arg}; done")
    assert "internal error" not in r.stderr, r  # (some shapes end with a status of 1: getopts, errors)
    assert vars_held(session.shell.state.vars) == before


@pytest.mark.parametrize(
    "shape",
    ["local -r", "local -x", "local twice", "declare -g", "local -a", "local -n"],
)
def test_calls_cannot_wear_down_max_memory(shape: str, walker: bool) -> None:
    """Variables of 8 x 2 MB under max_memory 8 MB end the run with max_memory, however many
    calls run between them."""
    fn = SHAPES[shape]
    script = (
        f"{fn}; v=$(printf '%100000s' x); "
        "for k in 1 2 3 4 5 6 7 8; do "
        'eval "x$k=\\$(printf \'%2000000s\' $k)"; for i in $(seq 40); do f "$v"; done; done; echo held'
    )
    with pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(max_memory=8 << 20, timeout=60)).exec(script)
    assert info.value.limit == "max_memory"
    assert "held" not in info.value.result.stdout


@pytest.mark.parametrize(
    "body",
    [
        'a+=("$v")',
        "a+=($v)",
        'a=("${a[@]}" "$v")',
        'a+=("${m[$k]}")',
        'n=${m[$k]:-$v}; a+=("$n")',
        "a[i]=$v",
        'a[${#a[@]}]="$v"',
        'a[$i]="$v"',
        "a[i*3]+=$v",
    ],
)
def test_array_appends_are_charged(body: str, walker: bool) -> None:
    """Elements of 1 MB appended in a loop (the compiled `a+=(...)` stores through
    Variables.push_values, `a[i]=x` through Variables.element_setter's closure) end the run with max_memory under 8 MB, as the walker's set_array."""
    script = (
        "v=$(printf '%1000000s' x); v=${v// /y}; declare -A m=([k]=\"$v\"); k=k; a=(); "
        f"for i in $(seq 30); do {body}; done; echo held"
    )
    with pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(max_memory=8 << 20, timeout=60)).exec(script)
    assert info.value.limit == "max_memory"
    assert "held" not in info.value.result.stdout


@pytest.mark.parametrize(
    "body",
    ["((a[i]++))", "((a[i*2+1] += i))", "((a[$i] = i))", ": $(( a[i%7+i*7] -= 3 ))", "let 'a[i]=i'"],
)
def test_arithmetic_element_stores_are_charged(body: str, walker: bool) -> None:
    """Arithmetic element stores (Shell.arith_set -> Variables.store_index, the index evaluated
    once) charge each new element: ~100 bytes each, so 200,000 of them end the run on max_memory
    under 8 MB (max_array_elements set above the loop's count)."""
    script = f"a=(); for ((i=0;i<200000;i++)); do {body}; done; echo held"
    with pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(max_memory=8 << 20, max_array_elements=10**6, timeout=120)).exec(script)
    assert info.value.limit == "max_memory"
    assert "held" not in info.value.result.stdout


@pytest.mark.parametrize(
    "body",
    ["((m[k$i]++))", '((m["k $i"] += i))', "((m[${i}x] = i))", ": $(( m[k$i] -= 3 ))", 'let "m[k$i]++"'],
)
def test_arithmetic_associative_stores_are_charged(body: str, walker: bool) -> None:
    """Arithmetic stores of associative elements (Shell.arith_set -> Variables.store_key, a key
    with nothing left to expand) charge each new key and value: 200,000 of them end the run on
    max_memory under 8 MB (max_array_elements set above the loop's count)."""
    script = f"declare -A m; for ((i=0;i<200000;i++)); do {body}; done; echo held"
    with pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(max_memory=8 << 20, max_array_elements=10**6, timeout=120)).exec(script)
    assert info.value.limit == "max_memory"
    assert "held" not in info.value.result.stdout
