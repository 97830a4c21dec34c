"""Array assignments and element reads compiled (interp/arrayassign.py: `a+=(...)` / `a=(...)`
alone; expand/elements.py: `${a[sub]}` with or without an operator) give what the walker gives:
stdout, stderr and status, on scripts that change the array's type, attributes or existence
between iterations, and a closure never serves a stale decision (a variable that became
associative, readonly, a nameref or unset after the closure was made)."""

from __future__ import annotations

import pytest

from .walking import run_walked

SCRIPTS = {
    "append-then-assoc": "for k in 1 2 3; do a+=(x$k y); if ((k == 1)); then unset a; declare -A a; fi; done 2>&1;"
    " declare -p a",
    "append-then-readonly": "a=(); for k in 1 2 3; do a+=(v$k); ((k == 2)) && readonly a; done 2>&1; declare -p a",
    "append-then-nameref": "a=(); t=(t0); for k in 1 2; do a+=(v$k); ((k == 1)) && { unset a; declare -n a=t; }; done;"
    " declare -p t",
    "append-then-integer": "a=(); for k in 1 2; do a+=(1+$k); ((k == 1)) && declare -i a; done; declare -p a",
    "append-then-scalar": "for k in 1 2 3; do a+=(x$k); ((k == 2)) && { unset a; a=scalar; }; done; declare -p a",
    "append-special": 'f() { for k in 1 2; do FUNCNAME+=(x); echo ${#FUNCNAME[@]}; done; }\nf\necho "after $?"\n'
    'for k in 1; do GROUPS=(1); echo no; done\necho "after2 $?"',
    "append-in-function": 'f() { local -a l=(); local k; for k in 1 2; do l+=($k "$k"); done; declare -p l; }; f; f',
    "append-errors": 'for k in 1 2; do a+=( $((k / (k - 1))) ); echo "st $?"; done 2>&1; declare -p a',
    "append-cmdsub-status": 'for k in 1 2; do a+=($(exit $k) z); echo "st $?"; done; declare -p a',
    "read-type-changes": 'for k in 1 2 3 4; do echo "[${m[x]-u}] [${m[0]:-e}] [${m[$k]+s}]";'
    " case $k in 1) declare -A m=([x]=1);; 2) unset m; m=(z0 z1 z2);; 3) m=str;; esac; done 2>&1",
    "read-nounset": "set -u; declare -A m=([a]=1); for k in a b; do echo ${m[$k]:-d}; echo ${m[$k]}; done 2>&1",
    "read-bad-index": "a=(x y); for i in 1 -1 -2 -3 'i+' '1/0'; do echo \"[${a[$i]}]\"; done 2>&1; echo end",
    "read-empty-key": "declare -A m=([a]=1); k=; for j in 1 2; do v=${m[$k]:-d}; echo $v; done 2>&1",
    "read-side-effects": 'a=(a b c d); i=0; for j in 1 2 3; do v="${a[i++]}:${a[i]}"; echo $v $i; done',
    "read-refs": "a=(p q); declare -A h=([k]=hv); declare -n r=a s=h; for j in 1 2; do echo ${r[1]} ${s[k]} ${r[-1]};"
    " done",
}


@pytest.mark.parametrize("script", list(SCRIPTS.values()), ids=list(SCRIPTS))
def test_compiled_as_walked(script: str) -> None:
    compiled = run_walked(script, False)
    assert compiled == run_walked(script, True)
    assert compiled[0], compiled  # (every script prints something)
