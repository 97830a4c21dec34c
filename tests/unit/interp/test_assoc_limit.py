"""max_array_elements bounds an associative array's keys as it bounds an indexed array's
elements, whichever way a script adds them, compiled or walked (the element assignments'
fast paths used to count indices only: 2000 keys under a limit of 1000)."""

from __future__ import annotations

import pytest

import sandbash.interp.evaluator as evaluator_module
from sandbash import Bash, ExecResult, ExecutionLimitError

LIMIT = 50
# each adds keys without end; the loop and command limits are far above what the array limit allows
ADDS = {
    "element": "declare -A m; for ((i=0;;i++)); do m[k$i]=1; done",
    "element-append": "declare -A m; for ((i=0;;i++)); do m[k$i]+=x; done",
    "element-quoted-key": 'declare -A m; for ((i=0;;i++)); do m["k $i"]=1; done',
    "arith": "declare -A m; for ((i=0;;i++)); do (( m[k$i]=1 )); done",
    "arith-increment": "declare -A m; for ((i=0;;i++)); do (( m[k$i]++ )); done",
    # (Variables.store_key: a key with nothing left to expand, quoted or not, at any depth)
    "arith-quoted-key": 'declare -A m; for ((i=0;;i++)); do (( m["k $i"] += 2 )); done',
    "arith-local-key": "f() { local -A l; for ((i=0;;i++)); do (( l[k${i}]-- )); done; }; f",
    "compound-append": "declare -A m; for ((i=0;;i++)); do m+=([k$i]=1); done",
    "declare-element": 'declare -A m; for ((i=0;;i++)); do declare "m[k$i]=1"; done',
    "printf-v": 'declare -A m; for ((i=0;;i++)); do printf -v "m[k$i]" %s 1; done',
    "read": 'declare -A m; for ((i=0;;i++)); do read "m[k$i]" <<< 1; done',
    "in-function": "declare -A m; f() { m[$1]=1; }; for ((i=0;;i++)); do f k$i; done",
    "local-assoc": "f() { local -A l; for ((i=0;;i++)); do l[k$i]=1; done; }; f",
    "list": "declare -A m; s=; for ((i=0;i<2*" + str(LIMIT) + ';i++)); do s+="[k$i]=1 "; done; eval "m=($s)"',
}
LIMITS = {"max_array_elements": LIMIT, "max_loop_iterations": 10**6, "max_command_count": 10**6}


def _run(script: str, walker: bool) -> ExecResult:
    """The script compiled or walked (the tree walker switch), under LIMITS."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluator_module, "TREE_WALKER", walker)
        return Bash(limits=LIMITS).exec(script)


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
def test_keys_below_the_limit_and_overwrites_are_fine(walker: bool) -> None:
    script = (
        "declare -A m; for ((r=0;r<5;r++)); do for ((i=0;i<"
        + str(LIMIT - 1)
        + ";i++)); do m[k$i]=$r; done; done;"
        " echo ${#m[@]} ${m[k0]}"
    )
    r = _run(script, walker)
    assert (r.stdout, r.exit_code) == (f"{LIMIT - 1} 4\n", 0)


# an indexed array's elements, added by the compiled `a+=(...)` / `a=(...)` (interp/arrayassign.py,
# Variables.push_values) and the walker's set_array alike
APPENDS = {
    "append-literal": "a=(); for ((i=0;;i++)); do a+=(x); done",
    "append-words": 'a=(); for ((i=0;;i++)); do a+=("$i" y $((i))); done',
    "append-split": "a=(); s='1 2 3 4 5 6 7'; for ((i=0;;i++)); do a+=($s); done",
    "append-new": "for ((i=0;;i++)); do u+=(x); done",
    "append-sparse": "a=([7]=x); for ((i=0;;i++)); do a+=(x); done",
    "reassign-grow": 'a=(); for ((i=0;;i++)); do a=("${a[@]}" x); done',
    "local-a": "f() { local -a l; for ((i=0;;i++)); do l+=(x); done; }; f",
    "one-command": "s=; for ((i=0;i<2*"
    + str(LIMIT)
    + ';i++)); do s+="x "; done; for k in 1; do a+=($s); done',
    # element assignments by index (Compiler.element, Variables.element_setter's closure)
    "index-literal": "a=(); for ((i=0;;i++)); do a[i]=x; done",
    "index-expression": "a=(); for ((i=0;;i++)); do a[i*2+1]=x; done",
    "index-count": "a=(); for ((i=0;;i++)); do a[${#a[@]}]=x; done",
    "index-expanded": "a=(); for ((i=0;;i++)); do a[$i]+=x; done",
    "index-local": "f() { local -a l=(); for ((i=0;;i++)); do l[i]=x; done; }; f",
    # arithmetic element stores: ++/--/op= evaluate the index once and store through
    # Variables.store_index (Shell.arith_set); a plain `=` (assign, let) keeps set_var's path
    "arith-incdec": "a=(); for ((i=0;;i++)); do ((a[i]++)); done",
    "arith-expression": "a=(); for ((i=0;;i++)); do ((a[i*2+1]+=i)); done",
    "arith-assign": "a=(); for ((i=0;;i++)); do ((a[i%1000+i]=i)); done",
    "arith-slot": "a=(); for ((i=0;;i++)); do ((a[$i]--)); done",
    "arith-let": "a=(); for ((i=0;;i++)); do let 'a[i+1]=i'; done",
    "arith-expansion": "a=(); for ((i=0;;i++)); do : $((a[i*3]+=2)); done",
}


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
@pytest.mark.parametrize("script", [*ADDS.values(), *APPENDS.values()], ids=[*ADDS, *APPENDS])
def test_elements_are_bounded(script: str, walker: bool) -> None:
    """Associative keys (ADDS) and indexed elements (APPENDS) alike end on max_array_elements."""
    with pytest.raises(ExecutionLimitError) as e:
        _run(script, walker)
    assert e.value.limit == "max_array_elements"


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
def test_appends_up_to_the_limit_are_fine(walker: bool) -> None:
    script = (
        "for ((r=0;r<3;r++)); do a=(); for ((i=0;i<"
        + str(LIMIT - 2)
        + ';i++)); do a+=("$r"); done; a+=(y z); done;'
        " echo ${#a[@]} ${a[0]} ${a[-1]}"
    )
    r = _run(script, walker)
    assert (r.stdout, r.exit_code) == (f"{LIMIT} 2 z\n", 0)
