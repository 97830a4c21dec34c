"""The compiling evaluator (interp/compiler.py) against the tree walker: every script here runs
both ways in one process and must give the same stdout, stderr and status. The scripts put each
compiled shape (simple commands of every word kind, `name=value`, `(( ))`, `[[ ]]`, `&&`/`||`,
`if`, loops, function bodies) in a loop or a function, where compiling happens, and next to what
changes how a command runs (set -e/-x/-u/-k/-n, traps, errors, break/continue/return, policy).
The spec tables and the conformance harnesses compare the two on a larger scale (CI runs the
spec tables with SANDBASH_TREE_WALKER=1)."""

from __future__ import annotations

import pytest

import sandbash.interp.evaluator as evaluator_module
from sandbash import Bash, Policy
from sandbash.interp import compiler

SCRIPTS: dict[str, str] = {
    "literal-words": "for i in 1 2 3; do echo a 'b c' \"d\" e\\ f; done",
    "param-words": 'x="a  b"; for i in 1 2; do echo $x "$x" ${x}z "$i-$x"; done',
    "glob-words": "touch /tmp/g1 /tmp/g2; for i in 1 2; do echo /tmp/g*; echo '/tmp/g*' /tmp/g[12]; done",
    "brackets-not-glob": "for i in 1 2; do [ $i -lt 2 ] && echo lt || echo ge; done",
    "arith-words": 'for ((i=0;i<3;i++)); do echo $((i*2)) $[i+1] "$((i))"; done',
    "assign-shapes": (
        "for i in 1 2 3; do a=$i; b+=x$i; c[i]=$((i*i)); d=${c[i]}; declare -A m; m[k$i]=$i; done;"
        ' echo "$a $b ${c[*]} $d ${m[k2]}"'
    ),
    "assign-errors": ("readonly R=1; f() { R=2; echo after $?; x=$((1/0)); echo not; }; f; f; echo end $?"),
    "integer-var": "declare -i n; for i in 1 2; do n=i+3; echo $n; done",
    "declaration-words": (
        'f() { local v=$1 w="$2"; declare -A m=([a]=1); local -a arr=(1 2); echo $v $w ${m[a]} ${#arr[@]}; };'
        " f 1 'x y'; f 2 z"
    ),
    "arrayref-args": "a=(1 2 3); for i in 1 2; do unset 'a[0]'; declare -p a; done; x=([1]=q); unset x[1]; declare -p x",
    "let-and-test": "n=0; while [ $n -lt 5 ]; do let n++; let 'm = n * 2'; test $m -gt 4 && echo $m; done",
    "dparen": "for ((i=0;i<4;i++)); do (( i % 2 )) && echo odd $i; (( j += i )); done; echo $j",
    "dparen-errors": "for i in 1 2; do (( 1/0 )); echo s=$?; (( x = )); echo t=$?; done",
    "cond": (
        "for s in abc xyz; do [[ $s == a* ]] && echo yes $s; [[ $s =~ ^(x)(y) ]] && echo ${BASH_REMATCH[2]};"
        " [[ -n $s && $s != q ]] || echo no; done"
    ),
    "cond-int-shapes": (
        "a=(4 5); x=3; for v in 1 010 ' 2 ' '' x 'a[1]' 0x10 'x+1'; do [[ $v -lt 3 ]]; echo -n $?;"
        " [[ 2 -le $v && $v -ne 9 ]]; echo -n $?; [[ ! $v -gt 1 || 1 -eq 2 ]]; echo $?; done"
    ),
    "cond-int-order": "for i in 1 2; do unset x; [[ x -lt ${x:=5} ]]; echo $? $x; done",
    "cond-int-literals": "a=(7 8); for i in 1 2; do [[ a[1] -eq 8 ]]; echo $?; [[ ~ -eq 0 ]] 2>&1; echo $?; done",
    "cond-equal-shapes": (
        "for s in abc ABC 'a c' '' x; do [[ $s == abc ]]; echo -n $?; [[ $s != abc ]]; echo -n $?;"
        " [[ $s = 'a c' ]]; echo -n $?; [[ $s == a\\ c ]]; echo -n $?; [[ x == $s ]]; echo $?; done;"
        " shopt -s nocasematch; for s in abc ABC; do [[ $s == abc ]]; echo $?; done"
    ),
    "cond-equal-tilde": "HOME=/h; for s in /h '~'; do [[ $s == ~ ]]; echo $?; [[ $s == '~' ]]; echo $?; done",
    "cond-word-not": "for s in '' a; do [[ $s ]]; echo -n $?; [[ ! $s ]]; echo -n $?; [[ ! ! $s ]]; echo $?; done",
    "cond-unset-u": "set -u; for i in 1 2; do [[ $nope -lt 1 ]]; echo $?; done; echo end",
    "cond-unary-shapes": (
        "declare -A m=([k]=1 ['a b']=2); a=(x); touch /tmp/cu; for w in k 'a b' z '' '$(echo k)'; do"
        " [[ -v m[$w] ]]; echo -n $?; [[ -v m[\\$w] ]]; echo -n $?; [[ -n $w ]]; echo -n $?; [[ -z $w ]];"
        " echo -n $?; [[ -v a[0] && -f /tmp/cu && ! -d /tmp/cu ]]; echo -n $?; [[ -v w ]]; echo $?; done"
    ),
    "assignments-alone": (
        'declare -A m; readonly R=1; for i in 1 2 3; do a+=(x$i "$i y" $(echo s$i)); b=(${a[@]:1:2}); m=([k$i]=$i);'
        ' c=$i d=$((i*2)) e=; f=1 g=3; echo $? "${a[*]}" "${b[*]}" ${m[k$i]} $c $d [$e] $f ${g-unset};'
        " h=(1 2) x=$(exit 4); echo $? ${h[1]}; [ $i = 2 ] && set -x; n=$i o=(p); done 2>&1;"
        " set +x; declare -p a b n o; for i in 1 2; do f=$i R=2 g=3; done; echo not"
    ),
    "assignments-alone-fatal": "for i in 1 2; do a[1]=(q); echo $?; done; echo not",
    "assignments-alone-errors": (
        "set -u; for i in 1 2; do a=(${nope:-d} $i) b=$((i/0)); echo s=$? ${a[*]}; w=(${undef}) ; echo after; done; echo end"
    ),
    "cond-errors": "for i in 1 2; do [[ 1 -eq 1/0 ]]; echo c=$?; done",
    "and-or": "for i in 1 2 3; do false && echo a || echo b && echo c; true || echo d; done",
    "if-elif-else": (
        "for i in 0 1 2; do if [ $i = 0 ]; then echo zero; elif (( i == 1 )); then echo one; else echo other; fi; done"
    ),
    "case": "for w in a.txt b.sh c; do case $w in *.txt) echo text;; *.sh) echo sh;& c) echo fall;; *) echo none;; esac; done",
    "case-shapes": (
        "for w in a.txt b.sh c x 'q r' ''; do case $w in *.txt) echo text;; *.sh) echo sh;& c) echo fall;;&"
        " [cx]) echo cx;; 'q r'|\"\") echo quoted:$w;; *) ;; esac; echo s=$?; done"
    ),
    "case-return-and-options": (
        "f() { case $1 in a) return 4;; b) case x in x) return 5;; esac;; A) echo big;; esac; echo after $1; };"
        " for i in a b c A; do f $i; echo $?; [ $i = b ] && shopt -s nocasematch; done; shopt -u nocasematch;"
        " shopt -s extglob; for i in ab abab c; do case $i in +(ab)) echo rep;; *) echo no;; esac; done"
    ),
    "case-traces": (
        "for i in 1 2 3; do case $((i*2)) in 2) echo two;; $(echo 4)) echo four;; esac; echo s=$?;"
        " [ $i = 2 ] && set -x; done 2>&1; set +x"
    ),
    "case-pattern-error": "for i in 1 2 3; do case $i in 1) echo one;; $((i/(i-2)))) echo d;; esac; done",
    "case-unset-subject": "set -u; for i in 1 2; do case $i in 1) echo one;; esac; case $nope in *) echo never;; esac; done",
    "case-status-and-debug": (
        "for i in 1 2 3; do case $i in 1) false;; 2) ;; esac; echo $?; [ $i = 2 ] && trap 'echo dbg' DEBUG; done;"
        " trap - DEBUG; for i in 1 2; do case $i in 1) echo $(echo sub$i);; esac; done"
    ),
    "nested-loops-break": (
        "for i in 1 2 3; do for j in a b c; do [ $j = b ] && continue; [ $i = 2 ] && break 2; echo $i$j; done; done"
    ),
    "while-until": "i=0; until (( i >= 3 )); do echo u$i; ((i++)); done; while read -r l; do echo r$l; done <<< $'1\\n2'",
    "functions-recursion": (
        "fib() { local n=$1; if (( n < 2 )); then echo $n; return; fi;"
        " echo $(( $(fib $((n-1))) + $(fib $((n-2))) )); }; fib 7"
    ),
    "return-status": "f() { [ $1 = a ] && return 3; return 0; }; for x in a b a; do f $x; echo $?; done",
    "positional": 'f() { echo $# "$@" "$*"; shift; echo "$1"; }; for i in 1 2; do f a "b c" $i; done',
    "set-e-in-loop": "set -e; f() { false; echo no; }; for i in 1 2; do echo $i; if f; then :; fi; done; false; echo never",
    "set-e-andor": "set -e; for i in 1 2; do false || echo ok$i; true && false || echo x$i; done; echo end",
    "set-x-toggled": "for i in 1 2 3; do [ $i = 2 ] && set -x; echo $i; x=$i; ((i)); [[ $i ]]; done; set +x",
    "set-u": "set -u; f() { echo $1; echo ${nope}; echo after; }; f a; echo $?",
    "set-k": "f() { echo ${v:-none}; }; for i in 1 2; do [ $i = 2 ] && set -k; f v=$i; done",
    "set-n-late": "for i in 1 2; do echo $i; done; set -n; for i in 1 2; do echo no; done",
    "debug-trap-late": "for i in 1 2 3; do [ $i = 2 ] && trap 'echo dbg' DEBUG; x=$i; done; trap - DEBUG; echo $x",
    "err-trap": "trap 'echo err $?' ERR; for i in 1 2; do false; (( 0 )); [[ a = b ]]; done",
    "return-trap": "f() { trap 'echo ret' RETURN; :; }; for i in 1 2; do f; done",
    "exit-in-loop": "for i in 1 2 3; do [ $i = 2 ] && exit 7; echo $i; done",
    "procsubs": "for i in 1 2; do cat <(echo p$i); read -r v < <(echo q$i); echo $v; x=<(echo z); done",
    "cmdsubs-status": "for i in 1 2; do x=$(exit 3); echo $?; y=$(echo a)$(false); echo $? $y; done",
    "empty-expansion": "e=; for i in 1 2; do $e; echo $?; $e x=1; done",
    "globbing-options": "touch /tmp/q1; for o in nullglob failglob; do shopt -s $o; echo /tmp/zz*; shopt -u $o; done",
    "ifs": "IFS=:; for i in 1 2; do v=a:b; echo $v; set -- $v; echo $#; done",
    "alias-in-function": "shopt -s expand_aliases; alias hi='echo hi'; f() { hi; }; f; f",
    "redefine-function": "f() { echo one; }; for i in 1 2 3; do f; [ $i = 2 ] && f() { echo two; }; done",
    "builtin-overridden": "for i in 1 2; do echo $i; [ $i = 1 ] && echo() { printf 'E:%s\\n' \"$*\"; }; done; unset -f echo",
    "eval-in-loop": "for i in 1 2 3; do eval \"v$i=\\$i\"; eval 'for j in a; do echo $j$i; done'; done; echo $v3",
    "select-like-read": "printf '1\\n2\\n' | while read -r n; do case $n in 1) echo one;; *) echo $n;; esac; done",
    "subshell-loop": "for i in 1 2; do (x=$i; for j in a b; do echo $x$j; done); done",
    "pipestatus": "for i in 1 2; do (( 0 )); echo ${PIPESTATUS[@]}; x=1; echo ${PIPESTATUS[@]}; done",
    "lineno": "for i in 1 2; do\n  echo $LINENO\n  x=$LINENO; echo $x\ndone",
    "bash-command": "trap 'echo \"[$BASH_COMMAND]\"' ERR; for i in 1 2; do false $i; done",
    # name[sub]=value alone (Compiler.element), the subscripts of arithmetic text and of -v
    # (arithwords.arith_join_fn): keys bash quotes, attributes, namerefs, readonly, errors
    "element-keys": (
        "declare -A m; for w in a 'x y' ']' '*' '@' '$v' '\\\\' '~' 'a[1]'; do m[$w]=1; m[\"$w\"]+=2;"
        " m[k$w]=$(( m[$w] + 1 )); [[ -v m[$w] ]]; echo -n $?; (( m[$w]++ )); done; declare -p m;"
        " for w in '' a; do (m[$w]=1; echo $?); (m[\"$w\"]+=1; echo $?); done 2>&1"
    ),
    "element-indexed": (
        "a=(1 2 3); j=0; for i in 0 1 2; do a[i+4]=$i; a[-1]+=x; a[j++]=$(( a[$i] * 2 ));"
        " [[ -v a[$i+4] ]]; echo -n $?; (a[$i - 9]=bad; echo $?); (a[$i/0]=x; echo $?); done 2>&1; declare -p a; echo $j"
    ),
    "element-attributes": (
        "declare -Ai n=([a]=1); declare -al l; declare -n r=n; readonly -A ro=([k]=1);"
        " for i in 1 2; do n[a]+=$i*2; l[i]=AB$i; r[b]=$i; (ro[k]=2; echo $?); done 2>&1;"
        " declare -p n l ro; set -u; for i in 1; do (n[$nope]=1; echo no); done 2>&1; echo $?"
    ),
    "element-new-variable": (
        "for i in 1 2; do unset q; q[$i]=v$i; declare -p q; done; declare -A e;"
        " for i in 1 2; do (e[]=1; echo $?); e[k$i]=$i; done 2>&1; declare -p e"
    ),
}


def _run(script: str, walker: bool, policy: Policy | None = None) -> tuple[str, str, int]:
    saved = evaluator_module.TREE_WALKER
    evaluator_module.TREE_WALKER = walker
    try:
        result = Bash(policy=policy).exec(script)
    finally:
        evaluator_module.TREE_WALKER = saved
    return result.stdout, result.stderr, result.exit_code


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_compiled_equals_walker(name: str) -> None:
    script = SCRIPTS[name]
    assert _run(script, walker=False) == _run(script, walker=True)


def test_policy_decides_compiled_commands_as_walked() -> None:
    """A refused command in a loop is refused each time, compiled or not; its arguments'
    substitutions never run."""
    policy = Policy(deny=["rm"])
    script = "touch /tmp/k; for i in 1 2 3; do rm /tmp/k$(echo ran >&2); echo $?; done; ls /tmp/k"
    walked = _run(script, walker=True, policy=policy)
    assert _run(script, walker=False, policy=policy) == walked
    assert "ran" not in walked[1]
    assert walked[0].split("\n")[:3] == ["126", "126", "126"]


@pytest.fixture
def compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling on, whatever SANDBASH_TREE_WALKER says (CI runs this file with it set too)."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)


@pytest.mark.usefixtures("compiling")
def test_bodies_compile_the_second_time(compilers: list[compiler.Compiler]) -> None:
    """A body that runs once stays with the walker; the second run compiles it; a loop's body is
    compiled as the loop starts."""
    Bash().exec("f() { echo once; }; f; g() { echo twice; }; g; g; for i in 1; do :; done")
    assert compilers, "the shell made no compiler"
    main = compilers[0]
    compiled = [node for node, _ in main.codes.values()]
    texts = {len(node.items) for node in compiled}
    assert len(compiled) == 2  # g's body (second call) and the for loop's body; not f's
    assert texts == {1}


@pytest.mark.usefixtures("compiling")
def test_cache_is_bounded(compilers: list[compiler.Compiler]) -> None:
    """A script that keeps making new loops (eval) cannot grow the cache without bound."""
    n = compiler._CACHE_MAX + 500
    result = Bash().exec(f"for ((k=0;k<{n};k++)); do eval 'for j in 1; do x=$j; done'; done; echo $x")
    assert result.stdout == "1\n"
    main = compilers[0]
    assert len(main.codes) <= compiler._CACHE_MAX
    assert len(main.seen) <= compiler._CACHE_MAX


@pytest.mark.usefixtures("compiling")
def test_cache_holds_a_bounded_number_of_commands(compilers: list[compiler.Compiler]) -> None:
    """The cache holds the syntax trees of the bodies it compiled: big bodies made by eval, one
    after another, are let go once the commands held pass the bound."""
    body = "; ".join(f"x{i}=$j" for i in range(500)) + "; y='" + "z" * 200_000 + "'"
    script = f"for ((k=0;k<100;k++)); do eval 'for j in 1 2; do {body}; done'; done; echo $x499"
    # (4-5 s of CPU: the default 30 s of wall time was not enough on a loaded host)
    result = Bash().exec(script, limits={"timeout": 600})
    assert result.stdout == "2\n"
    main = compilers[0]
    held = sum(compiler._tree_size(node) for node, _ in main.codes.values())
    one = compiler._tree_size(next(iter(main.codes.values()))[0])
    assert held <= compiler._WEIGHT_MAX + one
    assert held == main.weight


@pytest.mark.usefixtures("compiling")
def test_sessions_keep_compiled_functions_correct_across_turns() -> None:
    """A session's shell keeps its compiled bodies between exec calls; a function redefined in a
    later turn runs its new body."""
    session = Bash().session()
    assert session.exec("f() { echo v1 $1; }; for i in 1 2; do f $i; done").stdout == "v1 1\nv1 2\n"
    assert session.exec("for i in 3; do f $i; done; f() { echo v2; }; f; f").stdout == "v1 3\nv2\nv2\n"


@pytest.mark.parametrize("walker", [False, True])
def test_each_command_counts_its_own_argument_bytes(walker: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # max_argument_bytes is per command: 200 array assignments of 100 characters each stay under a
    # limit of 1,000, however they are run (a compiled assignment once skipped the count's reset)
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
    script = 'x=$(printf "%100s"); for ((i=0;i<200;i++)); do a=("$x$i"); b+=("$x") c=$x; done; echo ${#a[0]} ${#b[@]}'
    r = Bash().exec(script, limits={"max_argument_bytes": 1000})
    assert (r.stdout, r.exit_code) == ("103 200\n", 0)
