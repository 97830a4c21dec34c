"""`${#a[@]}` (expand/elements.py's count closure) and `name[sub]=value` stored by
Variables.element_setter's closure (Compiler.element) give what the walker gives: stdout, stderr
and status, on scripts that change the array's type, attributes or existence between
iterations, with sparse arrays, negative and bad subscripts, arithmetic errors, and the
max_array_elements limit."""

from __future__ import annotations

import pytest

from .walking import run_walked

SCRIPTS = {
    "count-type-changes": "a=(1 2 3); for i in 1 2 3 4 5 6; do case $i in 2) unset 'a[1]';; 3) a=s;; 4) unset a;;"
    ' 5) declare -A a=([k]=v [l]=w);; 6) declare -n r=a; unset -n r;; esac; echo "$i ${#a[@]} ${#a[*]}"; done',
    "count-nounset": "set -u; a=(1); for i in 1 2; do echo ${#a[@]}; ((i == 1)) && unset a; done 2>&1; echo end",
    "count-nounset-empty": "set -u; declare -a e=(); declare -A m=(); for i in 1 2; do echo ${#e[@]} ${#m[*]}; done",
    "count-refs": "b=(p q r); declare -n r=b; f() { local -a l=(1); for i in 1 2; do echo ${#r[@]} ${#l[@]}; l+=(x); done; }; f",
    "count-in-arith": "a=(); a[7]=x; for ((k=0; k<${#a[@]}+2 && k<5; k++)); do echo $k $(( ${#a[@]} * 10 )); a+=(y); done",
    "set-literal-index": "a=(); for k in 0 1 2 3; do a[k]=v$k; a[k+10]+=w$k; a[-1]=last$k; done; declare -p a",
    "set-negative-bad": 'a=(x); for k in 1 2; do a[-5]=bad; echo "st $?"; a[-1]+=z; done 2>&1; declare -p a',
    "set-arith-errors": 'a=(); for k in 1 2; do a[1/0]=x; echo "st $?"; a[k/(k-1)]=y; echo "st2 $?"; done 2>&1;'
    " declare -p a",
    "set-len-index": "b=(); for k in 1 2 3; do b[${#b[@]}]=v$k; ((k == 2)) && b[9]=nine; done; declare -p b",
    "set-type-changes": "for k in 1 2 3 4 5; do a[k]=v$k; case $k in 1) unset a; declare -A a;; 2) unset a; a=s;;"
    " 3) readonly -a a 2>/dev/null || true;; esac; done 2>&1; declare -p a",
    "set-octal-hex": "a=(); i=010; for t in 010 0x10 '08'; do a[$t]=v; a[i]=w; echo \"st $?\"; done 2>&1; declare -p a",
    "set-integer-attr": "declare -ai a=(); for k in 1 2; do a[k]=k*3; done; declare -p a",
    "set-assoc": "declare -A m; for k in a b a; do m[$k]+=x; m[${#m[@]}]=n; done; declare -p m",
}


@pytest.mark.parametrize("script", list(SCRIPTS.values()), ids=list(SCRIPTS))
def test_compiled_as_walked(script: str) -> None:
    compiled = run_walked(script, False)
    assert compiled == run_walked(script, True)
    assert compiled[0], compiled  # (every script prints something)
