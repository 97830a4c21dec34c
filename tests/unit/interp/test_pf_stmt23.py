"""`(( name[sub] = value ))` in generated arithmetic (arithgen's store: the value computed, then the
subscript evaluated once by Shell.arith_assign_element and the element stored by arith_put) gives
what the general way gives (ev.set: the hook declining), stdout, stderr and status alike, and is
taken at all; the limits that end such a loop are the same."""

from __future__ import annotations

import pytest

from sandbash import Bash, Limits
from sandbash.errors import ExecutionLimitError
from sandbash.interp.shell import Shell

LOOP = "for ((i=0; i<300; i++)); do {}; done"
SCRIPTS = {
    "order": "a=(); j=0; " + LOOP.format("(( a[j++] = j, b[i%7] = i++ ))") + "; declare -p a b; echo $i $j",
    "chain": "d=(0); " + LOOP.format("(( d[i+1] = d[i] + 2 ))") + '; echo "${d[300]} ${#d[@]}"',
    "negative": "a=(1 2 3 4); "
    + LOOP.format("(( a[-1-i%2] = i )); (( a[i-5] = 1 ))")
    + " 2>&1 | sort | uniq -c; declare -p a",
    "assoc": "declare -A h; k=ab; " + LOOP.format("(( h[k] = i, h[i%3] = 2 ))") + "; declare -p h",
    "nameref": "a=(0 0 0); declare -n r=a; " + LOOP.format("(( r[i%3] = i ))") + "; declare -p a",
    "readonly": "declare -a ro=(1 2); readonly ro; "
    + LOOP.format("(( ro[i%2] = 1 ))")
    + " 2>&1 | uniq -c; declare -p ro",
    "errors": "b=(0); " + LOOP.format("(( b[1/(i-299)] = 1 ))") + " 2>&1 | uniq -c; declare -p b",
    "type-changes": LOOP.format("(( s[i%2] = i )); (( i == 150 )) && { unset s; declare -A s; }")
    + "; declare -p s",
    "attributes": "declare -ai n=(1 2); declare -au u=(x); "
    + LOOP.format("(( n[i%2] = 3, u[i%2] = i ))")
    + "; declare -p n u",
    "scalar": "x=5; " + LOOP.format("(( x[i%2] = i ))") + "; declare -p x",
    "local": "h=(9); f() { local -a h=(0 0); local i; "
    + LOOP.format("(( h[i%2] = i ))")
    + '; echo "${h[*]}"; }; f; echo "${h[*]}"',
}


def _run(script: str) -> tuple[str, str, int]:
    r = Bash().exec(script)
    return r.stdout, r.stderr, r.exit_code


@pytest.mark.parametrize("script", list(SCRIPTS.values()), ids=list(SCRIPTS))
def test_assign_hook_as_general_way(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _run(script)
    monkeypatch.setattr(Shell, "arith_assign_element", lambda self, name, sub, value: False)
    assert fast == _run(script)
    assert fast[0], fast  # (every script prints something)


def test_the_hook_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    stored: list[int] = []
    hook = Shell.arith_assign_element

    def counted(self: Shell, name: str, sub: str, value: int) -> bool:
        done = hook(self, name, sub, value)
        stored.append(done)
        return done

    monkeypatch.setattr(Shell, "arith_assign_element", counted)
    assert _run("a=(); " + LOOP.format("(( a[i%5] = i ))") + '; echo "${a[*]}"')[0] == "295 296 297 298 299\n"
    assert sum(stored) > 20


@pytest.mark.parametrize(
    ("limits", "limit"),
    [
        ({"max_memory": 2_000_000}, "max_memory"),
        ({"max_array_elements": 5_000}, "max_array_elements"),
    ],
)
def test_assigned_elements_end_at_the_limit(limits: dict[str, int], limit: str) -> None:
    bounded = Limits(max_loop_iterations=10**9, max_command_count=10**9, **limits)
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=bounded).exec("declare -a h; for ((i=0;;i++)); do (( h[i*2] = 123456789 )); done")
    assert e.value.limit == limit
