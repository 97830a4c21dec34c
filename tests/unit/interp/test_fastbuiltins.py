"""Compiled `let`, `test` and `[` (interp/fastbuiltins.py) against the tree walker: each script runs
both ways in one process and must give the same stdout, stderr and status. The scripts put the
commands in loops and functions (where compiling happens) next to what must send them the general
way: set -x/-e/-u/-n, traps, a function or a disabled builtin of the name, assoc_expand_once, a
policy, an audit, limits. tests/spec/cases/pf_loops2.txt pins the same shapes against bash."""

from __future__ import annotations

from typing import Any

import pytest

import sandbash.interp.evaluator as evaluator_module
from sandbash import Bash, Policy
from sandbash.audit import Audit, AuditEvent
from sandbash.errors import ExecutionLimitError
from sandbash.interp import executor as executor_module

SCRIPTS: dict[str, str] = {
    # let
    "let-values": 'for i in 1 2 3; do let "a = i * 2" b=a+1 c=a-b+1; echo "$? $a $b $c $_"; let i-i; echo $?; done',
    "let-one-and-zero": "for e in 0 1 -1 '0*5' '2>1' 'x=0' 'y=3'; do let \"$e\"; echo \"$e $? $x $y\"; done",
    "let-literal-zero": "for i in 1 2; do let 0; echo $?; let 00 0x0 1; echo $?; let 1 0; echo $?; done",
    "let-errors": (
        "f() { let 'x = 1 +'; echo s$?; let 5/0; echo d$?; let x=1 2/0 w=3; echo m$? $x ${w-u};"
        " let; echo n$?; let --; echo dd$?; let -- 4; echo f$?; let --help >/dev/null; echo h$?; }; f 2>&1; f 2>&1"
    ),
    "let-readonly-integer": (
        "readonly r=1; declare -i n=0; for k in 1 2; do let r=2; echo $?; let n=k+n; echo $n;"
        " let 'n += 5 * k'; echo $n; done 2>&1"
    ),
    "let-nameref-array": (
        "a=(1 2 3); declare -A h; declare -n ref=a; for k in 0 1 2; do let 'a[k] *= 10' 'h[x$k] = k'"
        " 'ref[2]++'; done; echo ${a[*]} ${h[x2]} ${!h[*]}"
    ),
    "let-set-u": "set -u; f() { let 'x = nope + 1'; echo after; }; f 2>&1; f 2>&1; echo end $?",
    "let-set-e": "f() { for k in 2 1 0; do let k; echo $k; done; }; set -e; f; echo unreached",
    "let-set-e-tested": "set -e; for k in 1 0 2; do let k || echo or$k; if let k; then :; fi; done; echo end",
    "let-err-trap": "trap 'echo ERR $k $?' ERR; for k in 1 0 2; do let k; done; echo $?",
    "let-xtrace-mid-loop": "for k in 1 2 3; do let 'x = k' y=2; [ $k = 2 ] && set -x; done 2>&1; set +x",
    "let-noexec": "for k in 1 2; do let x=k; [ $k = 1 ] && set -n; done; echo $x",
    "let-redefined": (
        "for k in 1 2 3 4; do [ $k = 2 ] && let() { echo fn $*; }; [ $k = 3 ] && unset -f let;"
        " let n+=1; echo $? $n; done; for k in 1 2; do [ $k = 2 ] && enable -n let; let n+=1 2>&1; echo $? $n; done"
    ),
    "let-assoc-expand-once": (
        "declare -A h; k='a b'; for i in 1 2; do let 'h[$k] += 1'; [ $i = 1 ] && shopt -s assoc_expand_once;"
        " done; declare -p h"
    ),
    "let-globs-and-expansions": (
        "cd /tmp && mkdir -p lg && cd lg && : > 'x=213'; v='q = 4'; for k in 1 2; do let x=2*3 \"$v\" $v"
        " 'z = k'; echo $x $q $z $?; let z = 1 2>&1; echo $?; done"
    ),
    "let-status-and-pipestatus": "for k in 0 1; do let k; echo $? ${PIPESTATUS[*]} $_; done",
    "let-in-cmdsub": 'for k in 1 2; do v=$(let "k - 1"; echo $?); echo $v; done',
    "let-lineno": "for k in 1 2; do\n  let 1/0\n  echo $LINENO\ndone 2>&1",
    "let-recursive-values": "x='y + 1' y=2; for k in 1 2; do let 'z = x * 2'; echo $z; done",
    # test / [
    "test-binary-shapes": (
        "for v in 5 -5 ' 7 ' +3 007 '' abc 9223372036854775807 9223372036854775808 -0; do"
        ' n=$(( ${v:-0} )) 2>/dev/null; [ $n -eq 5 ]; a=$?; [ "$v" -lt 0 ]; b=$?; test "$v" -ge -5; c=$?;'
        ' [ "$n" != "$v" ]; d=$?; [ "$v" = 5 ]; e=$?; [ x"$v" \\< x5 ]; f=$?; echo "[$v] $a $b $c $d $e $f"; done 2>&1'
    ),
    "test-field-counts": (
        "x=; for v in '1 -lt 2' '' 'a b' -n 'x = x' '1 -eq' '!' '('; do [ $v -lt 3 ]; echo -n $?;"
        " [ $x = $v ]; echo -n $?; test $v = $v; echo $?; done 2>&1"
    ),
    "test-one-operand": (
        "cd /tmp && mkdir -p one && cd one && : > a1 && : > a2; for v in 3 '' 'a b' 'a*' '!' '(' -n 5x 007 ' 4 '"
        " -3 '='; do [ $v = 3 ]; echo -n $?; [ $v != 'a*' ]; echo -n $?; test 4 -gt $v; echo -n $?;"
        ' [ "$v" -le 4 ]; echo -n $?; test x \\< "$v"; echo -n $?; [ a == $v ]; echo -n $?; test "$v" -ne 007;'
        ' echo " $_"; done 2>&1; for k in 1 2; do [ $(echo $k) = 1 ]; echo $?; [ <(:) != x ]; echo $?; done'
    ),
    "test-ifs": "IFS=:; for v in 1:2 3; do [ $v -lt 3 ]; echo $?; done 2>&1",
    "test-quoted-operand": (
        'f() { for k in 1 2; do [ "$@" = a ]; echo -n $?; [ "$*" != a ]; echo -n $?; [ "${@:2}" = b ]; echo -n $?;'
        ' [ "$1" -lt 3 ]; echo " $?"; done 2>&1; }; f a; f a b; f; f 2 b c; a=(x y); s=a.b;'
        ' for k in 1 2; do [ "${a[@]}" = x ]; echo -n $?; [ "${a[*]}" = "x y" ]; echo -n $?; [ "${s%.*}" = a ];'
        ' echo -n $?; [ "${#s}" -eq 3 ]; echo -n $?; declare -n r=s; [ "$r" = a.b ]; echo $?; done 2>&1;'
        ' set -u; for k in 1 2; do [ "$u" = x ]; echo "$k $?"; done 2>&1; echo end'
    ),
    "test-arg-counts": (
        'chk() { "$@"; echo "$# $?"; }; for r in 1 2; do chk test; chk [ ]; chk test \'\'; chk test -n;'
        " chk test ! ''; chk [ ! -z '' ]; chk test '(' x ')'; chk test x -a ''; chk test x -o '';"
        " chk [ ! '' -a x ]; chk test 1 -eq 1 -a 2 -lt 3; chk test 1 -eq 2 -o '(' a = a ')'; chk [ ! ! x ]; done"
    ),
    "test-errors": (
        "for k in 1 2; do [ 1 -lt 2; echo $?; [ abc -lt 2 ]; echo $?; test x y; echo $?; test x y z; echo $?;"
        " [ -z a b ]; echo $?; test '(' x; echo $?; test a = b c; echo $?; [ 1 -eq '' ]; echo $?; done 2>&1"
    ),
    "test-unary-and-v": (
        "declare -A h=([k]=1); a=(1 '' 3); s=; for r in 1 2; do for t in -n -z -e -f -d -v -R -o -t; do"
        " [ $t '' ]; echo -n $?; test $t s; echo -n $?; done; echo; [ -v a[1] ]; echo -n $?; [ -v a[5] ];"
        " echo -n $?; test -v 'h[k]'; echo -n $?; [ -v s ]; echo -n $?; [ -f /etc/passwd ]; echo $?; done"
    ),
    "test-shadowed": (
        "for k in 1 2 3 4; do case $k in 2) [() { echo fn $*; return 3; } ;; 3) unset -f [; enable -n test ;; esac;"
        " [ $k = 1 ]; echo br $?; test $k = 4; echo test $?; done 2>&1; enable test"
    ),
    "test-xtrace": 'for k in 1 2 3; do [ $k -lt 9 ]; test "$k" = 2 && set -x; done 2>&1; set +x',
    "test-errexit": "set -e; for k in 1 2; do [ $k = 1 ] || echo no; done; f() { [ 1 = 2 ]; }; f; f; echo unreached",
    "test-err-trap": "trap 'echo ERR $?' ERR; for k in 1 2; do [ $k = 2 ]; test $k -gt 9 -o x = x; done",
    "test-procsub": "for k in 1 2; do [ -n <(echo $k) ]; echo $?; test -p <(:); echo $?; done",
    "test-last-arg": "for k in 1 2; do [ $k = 1 ]; echo $_; test -n x$k; echo $_; done",
    "test-nocasematch-locale": "shopt -s nocasematch; for s in A a; do [ $s = a ]; echo $?; [ $s \\> B ]; echo $?; done",
    "test-cmdsub-operand": "for k in 1 2; do [ $(echo $k) -eq $(( k * 1 )) ]; echo $?; done",
    "test-in-function-twice": "f() { if [ $1 -lt 3 ]; then echo lt; elif test $1 = 3; then echo eq; fi; }; f 1; f 3; f 5",
    "test-set-u": "set -u; for k in 1 2; do [ $nope = x ] 2>&1; echo $?; done; echo end",
    # [[ a OP N ]] with literal operands
    "cond-literal-operands": (
        "N=3 z=07; for v in 1 3 8 9 16 -2 ' 4' '' 'N+1' 'a[0]'; do a=; [[ $v -lt 010 ]] && a+=o;"
        " [[ $v -lt 0x10 ]] && a+=x; [[ $v -lt N ]] && a+=n; [[ $v -eq 3 ]] && a+=e; [[ $v -ge -1 ]] && a+=g;"
        " [[ ${v} -gt 7 ]] && a+=s; [[ $v -lt z+1 ]] && a+=z; [[ '' -lt $v ]] && a+=E; echo \"[$v] $a\"; done 2>&1"
    ),
    "cond-param-operands": (
        "declare -n r=v; a=(3 9); for v in 2 '' ' 5' 'a[1]' x; do [[ \"$v\" -lt 4 ]]; echo -n $?; [[ $r -ge 3 ]];"
        ' echo -n $?; [[ 1 -le "${v}" ]]; echo -n $?; [[ $v -eq $r ]]; echo $?; done 2>&1;'
        ' set -u; for k in 1 2; do [[ "$nope" -lt 1 ]]; echo $k; done 2>&1'
    ),
    "cond-literal-errors": "for v in 08 'x[' '1 +'; do [[ $v -eq 3 ]] 2>&1; echo $?; [[ 3 -eq $v ]] 2>&1; echo $?; done",
}


def _run(script: str, walker: bool, **kw: Any) -> tuple[str, str, int]:
    saved = evaluator_module.TREE_WALKER
    evaluator_module.TREE_WALKER = walker
    try:
        result = Bash(**kw).exec(script)
    finally:
        evaluator_module.TREE_WALKER = saved
    return result.stdout, result.stderr, result.exit_code


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_compiled_equals_walker(name: str) -> None:
    script = SCRIPTS[name]
    assert _run(script, walker=False) == _run(script, walker=True)


@pytest.mark.parametrize("denied", ["let", "test", "["])
def test_policy_decides_each_time(denied: str) -> None:
    """A policy that refuses the builtin refuses it at every step, compiled or walked."""
    policy = Policy(deny=[denied])
    script = "for k in 1 2 3; do let n=k; echo l$?; test $k = 1; echo t$?; [ $k = 1 ]; echo b$?; done"
    walked = _run(script, walker=True, policy=policy)
    assert _run(script, walker=False, policy=policy) == walked
    tag = {"let": "l", "test": "t", "[": "b"}[denied]
    assert [line for line in walked[0].split("\n") if line.startswith(tag)] == [f"{tag}126"] * 3


def test_audit_records_each_step() -> None:
    """With an audit the commands take the general path: every let/test/[ is recorded, as walked."""
    script = "for k in 1 2; do let n=k; test $k = 1; [ $k = 2 ]; done"

    def events(walker: bool) -> list[tuple[str, ...]]:
        got: list[AuditEvent] = []
        _run(script, walker, audit=Audit([got.append]))
        starts = [tuple(e.fields["argv"]) for e in got if e.kind == "command.start"]
        return [argv for argv in starts if argv[0] in ("let", "test", "[")]

    walked = events(True)
    assert len(walked) == 6
    assert events(False) == walked


@pytest.mark.parametrize(
    "script", ["for k in 1 2; do let a=1 b=2 c=3 d=4 e=5 f=6; done", "for k in 1 2; do [ $k = 1 ]; done"]
)
def test_max_arguments_both_ways(script: str) -> None:
    """An argv over max_arguments ends the run with that limit, compiled as walked."""
    for walker in (True, False):
        saved = evaluator_module.TREE_WALKER
        evaluator_module.TREE_WALKER = walker
        try:
            with pytest.raises(ExecutionLimitError) as info:
                Bash(limits={"max_arguments": 1, "max_array_elements": 2}).exec(script)
        finally:
            evaluator_module.TREE_WALKER = saved
        assert info.value.limit == "max_array_elements"


def test_fast_path_skips_the_dispatch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled, let/test/[ in a loop do not go through run_argv; a function named let does."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    seen: list[str] = []
    original = executor_module.Executor.run_argv

    def spy(self: executor_module.Executor, cmd: Any, argv: list[str], *rest: Any) -> int:
        seen.append(str(argv[0]))
        return original(self, cmd, argv, *rest)

    monkeypatch.setattr(executor_module.Executor, "run_argv", spy)
    result = Bash().exec("for k in 1 2 3; do let n+=k; test $k = 1; [ $k -lt 2 ]; done; echo $n")
    assert result.stdout == "6\n"
    assert seen.count("let") + seen.count("test") + seen.count("[") == 0
    seen.clear()
    result = Bash().exec("let() { :; }; for k in 1 2 3; do let n+=k; done; echo ${n-unset}")
    assert result.stdout == "unset\n"
    assert seen.count("let") == 3
