"""`name[sub] OP= value` in generated arithmetic (arithgen's element: the subscript evaluated once by
Shell.arith_element, the element read from the array and stored by Shell.arith_put) gives what
the general way gives (once, get, set: the hook answering with arith_index's text), stdout,
stderr and status alike; and the limits that end such a loop are the same."""

from __future__ import annotations

import pytest

from sandbash import Bash, Limits
from sandbash.errors import ExecutionLimitError
from sandbash.interp.shell import Shell

LOOP = "for ((i=0; i<300; i++)); do {}; done"
SCRIPTS = {
    "indexed": "declare -a h; "
    + LOOP.format("(( h[i%10] += 1, g[i%3] -= i, m[i%4] *= 2 ))")
    + "; declare -p h g m",
    "negative": "a=(1 2 3 4); "
    + LOOP.format("(( a[-1-i%2] += 1 )); (( a[i-5] += 1 ))")
    + " 2>&1 | sort | uniq -c; declare -p a",
    "assoc": "declare -A h; k=ab; " + LOOP.format("(( h[k] += 1, h[i%3] += 2 ))") + "; declare -p h",
    "nameref": "a=(0 0 0); declare -n r=a; " + LOOP.format("(( r[i%3] += i ))") + "; declare -p a",
    "readonly": "declare -a ro=(1 2); readonly ro; "
    + LOOP.format("(( ro[i%2] += 1 ))")
    + " 2>&1 | uniq -c; declare -p ro",
    "values": "a=(3 '1+1' 010 '' x); " + LOOP.format("(( a[i%5] += 0 ))") + "; declare -p a",
    "errors": "b=(0); " + LOOP.format("(( b[1/(i-299)] += 1 ))") + " 2>&1 | uniq -c; declare -p b",
    "type-changes": LOOP.format("(( s[i%2] += 1 )); (( i == 150 )) && { unset s; declare -A s; }")
    + "; declare -p s",
    "attributes": "declare -ai n=(1 2); declare -au u=(x); "
    + LOOP.format("(( n[i%2] += 3, u[i%2] += 1 ))")
    + "; declare -p n u",
    "side-effects": "j=0; x='j+0'; "
    + LOOP.format("(( h[j++ % 5] += 1 )); (( h[x] += 1 ))")
    + '; echo "$j ${#h[@]} ${h[4]} ${h[299]}"',
    "incdec": "declare -a h; declare -A m; k=ab; "
    + LOOP.format("(( h[i%10]++, --h[i%3], g[i%4]--, ++g[i%2], m[k]++, m[i%2]-- ))")
    + "; declare -p h g m",
    "incdec-values": "a=(9223372036854775807 '1+1' 010 '' x -9223372036854775808); "
    + LOOP.format("(( x = a[i%6]++ + --a[(i+1)%6] ))")
    + '; declare -p a; echo "$x"',
    "incdec-refs": "a=(0 0); declare -n r=a; declare -a ro=(1); readonly ro; "
    + LOOP.format("(( r[i%2]++, a[-1-i%2]--, a[i-5]++ )); (( ro[i%1]++ ))")
    + " 2>&1 | sort | uniq -c; declare -p a ro",
    "local": "h=(9); f() { local -a h=(0 0); local i; "
    + LOOP.format("(( h[i%2] += 2 ))")
    + '; echo "${h[*]}"; }; f; echo "${h[*]}"',
}


def _run(script: str) -> tuple[str, str, int]:
    r = Bash().exec(script)
    return r.stdout, r.stderr, r.exit_code


@pytest.mark.parametrize("script", list(SCRIPTS.values()), ids=list(SCRIPTS))
def test_element_hook_as_general_way(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _run(script)
    monkeypatch.setattr(Shell, "arith_element", lambda self, name, sub: self.arith_index(name, sub))
    assert fast == _run(script)
    assert fast[0], fast  # (every script prints something)


@pytest.mark.parametrize(
    ("limits", "limit"),
    [
        ({"max_memory": 2_000_000}, "max_memory"),
        ({"max_array_elements": 5_000}, "max_array_elements"),
    ],
)
def test_element_stores_end_at_the_limit(limits: dict[str, int], limit: str) -> None:
    bounded = Limits(max_loop_iterations=10**9, max_command_count=10**9, **limits)
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=bounded).exec("declare -a h; for ((i=0;;i++)); do (( h[i*2] += 123456789 )); done")
    assert e.value.limit == limit
