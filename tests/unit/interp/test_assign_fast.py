"""`name=value` alone, compiled (Compiler.scalar) and walked (Executor.assign_one), and the short
path both take for an existing plain variable (Variables.store_plain): every script here runs
compiled, walked, and with the short path turned off (set_var's general way for every variable),
and the three must give the same stdout, stderr, status and memory held. The scripts change what a
variable is between two runs of the same assignment (attributes, readonly, nameref, export, set -a,
set -x, unset, scopes); tests/spec/cases/pf_assign_fast.txt holds the same corners recorded from
bash."""

from __future__ import annotations

import pytest

import sandbash.interp.evaluator as evaluator_module
from memheld import vars_held
from sandbash import Bash, ExecutionLimitError, Limits, Session
from sandbash.interp import steps
from sandbash.interp.variables import NOT_PLAIN, Variables

SCRIPTS: dict[str, str] = {
    "attributes-between": (
        "for i in 1 2 3 4 5 6; do x=$i+1; case $i in 2) declare -i x;; 3) declare +i x; declare -u x;;"
        " 4) declare +u x; declare -l x;; 5) declare +l x;; esac; x+=Ab; echo $i:$x; done"
    ),
    "function-local-attributes": (
        "f() { local y; for i in 1 2 3; do y=$i; y+=Q; [ $i = 1 ] && declare -u y;"
        " [ $i = 2 ] && declare -i y; echo $y; done; }; f; f"
    ),
    "arrays": (
        "a=(1 2); declare -A m=([0]=z [k]=v); for i in 1 2; do a=$i; m=q$i; a+=x; done; declare -p a m;"
        " unset a; for i in 1 2; do a=$i; [ $i = 1 ] && declare -a a; done; declare -p a"
    ),
    "readonly": "f() { for i in 1 2 3; do x=$i; [ $i = 2 ] && readonly x; echo $i $x; done; }; f; echo end $x $?",
    "readonly-local": "g() { local v=1; for i in 1 2; do v=$i; [ $i = 1 ] && readonly v; done; echo no; }; g; echo $?",
    "readonly-posix": "set -o posix; for i in 1 2; do p=$i; readonly p; done; echo not-here",
    "nameref": (
        "declare -n r=y; for i in 1 2 3; do r=$i; echo $y; done; a=(p q r); declare -n e='a[1]';"
        " for i in 1 2; do e=E$i; done; echo ${a[*]}; f() { local t=1; for i in 1 2 3; do t=$i;"
        " [ $i = 2 ] && local -n t=u; done; echo $t $u; }; f; for i in 1 2; do declare -n s=z; s=v$i;"
        " unset -n s; s=w$i; echo $z $s; done"
    ),
    "nameref-circular": "declare -n c=c2; declare -n c2=c; for i in 1 2; do c=$i; echo s=$?; done; echo end",
    "export": (
        "x=0; for i in 1 2 3; do x=$i; [ $i = 2 ] && export x; env | grep '^x=' || echo none; done;"
        " export e=1; for i in 1 2; do e=$i$i; [ $i = 2 ] && export -n e; done; env | grep -c '^e='; echo $e"
    ),
    "allexport": (
        "for i in 1 2 3; do v=$i; [ $i = 2 ] && set -a; env | grep '^v=' || echo none; done; set +a;"
        " f() { local l; for i in 1 2; do l=$i; done; set -a; l=9; set +a; env | grep '^l='; }; f"
    ),
    "xtrace": (
        'f() { for i in 1 2; do x=$i; y+=z; z=$((i*2)); w="$x.$y"; done; }; f; set -x; f; x=q; set +x;'
        " g() { for i in 1 2; do [ $i = 2 ] && set -x; v=$i$i; done; set +x; }; g; echo $x $y $z $w $v"
    ),
    "ifs": (
        "s='a:b,c d'; for sep in : , ' '; do IFS=$sep; set -- $s; echo $#; done; unset IFS;"
        " f() { local IFS; for sep in , :; do IFS=$sep; set -- $s; echo $#; done; }; f; set -- $s; echo $#"
    ),
    "scopes": (
        "x=g; inner() { x=inner$1; }; outer() { local x=o; for i in 1 2; do inner $i; echo $x; done; };"
        " outer; echo $x; tmp() { for i in 1 2; do x=t$i; done; echo $x; }; x=e tmp; echo $x;"
        " f() { x=$((x+1)); echo f $x; }; x=10; for i in 1 2; do x=5 f; done; echo $x"
    ),
    "unset-between": (
        "for i in 1 2 3; do x=$i; unset x; echo ${x-unset}; done; f() { local v; for i in 1 2; do v=$i;"
        " unset v; v=${v-u}$i; echo $v; done; }; f; f"
    ),
    "special-names": (
        "for i in 1 2; do LINENO=$i; BASHPID=$i; SECONDS=100; OPTIND=1; getopts ab o -a -b; echo $o; done;"
        " [[ $(declare -p BASHPID) == *'\"2\"'* ]] && echo kept || echo dynamic; echo $LINENO;"
        " for i in 1 2; do RANDOM=7; a=$RANDOM; done; RANDOM=7; echo $((a == RANDOM));"
        " f() { for i in 1 2; do FUNCNAME=x; done; echo $FUNCNAME; }; f;"
        " for i in 1 2; do PATH=/nowhere; cat /dev/null 2>/dev/null; echo $?; PATH=/usr/bin:/bin; done"
    ),
    "status": (
        "for i in 1 2; do x=$(exit $i); echo s=$? _=[$_]; y=$(true)$i; echo s=$?; done;"
        " g() { for i in 1 2; do x=$i; done; }; false; g; echo $? ${PIPESTATUS[*]};"
        " set -e; for i in 1 2; do x=$(echo $i); done; x=$(false); echo not reached"
    ),
    "procsubs": "for i in 1 2; do f=<(echo $i); done; echo ${f:0:8}",
    "errors": (
        "for i in 1 2; do x=$((1/0)); echo s=$?; y=${nope?gone}; echo never; done; echo end;"
        " set -u; for i in 1 2; do z=$nope; echo never; done"
    ),
    "traps": "trap 'echo debug' DEBUG; for i in 1 2; do x=$i; done; trap - DEBUG; trap 'echo err' ERR; for i in 1 2; do x=$(false); done",
    "wide-text": (
        "x=é; for i in 1 2 3; do x+=ü$i; done; echo $x ${#x}; a=abc; for i in 1 2; do a+=ß; a+=d; done;"
        " echo $a; declare -i n=5; for i in 1 2; do n+=i*2; done; echo $n; for i in 1 2; do s=ascii; s=ñ$i; done; echo $s"
    ),
    "arith-set": "k=0; n=0; for ((k=0; k<5; k++)); do (( n += k )); let m=n*2; done; echo $k $n $m",
}


def _run(script: str, walker: bool, limits: Limits | None = None) -> tuple[str, str, int, int]:
    saved = evaluator_module.TREE_WALKER
    evaluator_module.TREE_WALKER = walker
    try:
        sess = Session(Bash(limits=limits) if limits is not None else Bash())
        r = sess.exec(script)
    finally:
        evaluator_module.TREE_WALKER = saved
    return r.stdout, r.stderr, r.exit_code, vars_held(sess.shell.state.vars)


@pytest.fixture
def stores(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names Variables.store_plain stored (returned True for), in order."""
    done: list[str] = []
    original = Variables.store_plain

    def spy(self: Variables, name: str, value: str, append: bool = False) -> bool:
        ok = original(self, name, value, append)
        if ok:
            done.append(name)
        return ok

    monkeypatch.setattr(Variables, "store_plain", spy)
    return done


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    """set_var's general way for every variable: the short path always declines (and compiled
    closures do not write its common case out)."""

    def decline(self: Variables, name: str, value: str, append: bool = False) -> bool:
        return False

    monkeypatch.setattr(Variables, "store_plain", decline)
    _method_only(monkeypatch)


def _method_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled closures call Variables.store_plain rather than write its common case out."""
    monkeypatch.setattr(steps, "CLOSURE_STORES_INLINE", False)
    monkeypatch.setattr(steps, "_MAKERS", {})


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_compiled_walked_and_general_agree(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    script = SCRIPTS[name]
    compiled = _run(script, walker=False)
    assert compiled == _run(script, walker=True)
    _general(monkeypatch)
    assert compiled == _run(script, walker=False)
    assert compiled == _run(script, walker=True)


@pytest.mark.parametrize("walker", [False, True])
def test_the_short_path_stores_plain_variables(
    walker: bool, stores: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    script = "f() { local l; for i in 1 2; do l=$i; g=$l; done; }; f; f; x=1; x+=2; echo $x $g"
    if not walker:  # (a closure writes the common case out: every plain store but the append)
        assert _run(script, walker)[0] == "12 2\n"
        assert stores == ["x"]
        stores.clear()
        _method_only(monkeypatch)
    out = _run(script, walker)
    assert out[0] == "12 2\n"
    assert stores.count("l") == 4  # (`local l` declares it: every assignment finds it)
    assert stores.count("g") == 3  # (the first one makes it: set_var's general way)
    assert stores.count("x") == 1


@pytest.mark.parametrize("walker", [False, True])
def test_special_names_never_take_the_short_path(walker: bool, stores: list[str]) -> None:
    names = sorted(n for n in NOT_PLAIN if n.isupper() and n not in ("SHELLOPTS", "BASHOPTS", "GROUPS"))
    script = "".join(f"for i in 1 2; do {n}=$i; done 2>/dev/null; " for n in names if n != "PATH")
    _run(script + "for i in 1 2; do PATH=$PATH; done", walker)
    assert not set(stores) & NOT_PLAIN
    assert {"LINENO", "BASHPID", "RANDOM", "PATH", "LC_ALL", "OPTIND"} <= set(names)


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize(
    "script",
    [
        "x=; for i in 1 2; do x=aaaaaaaaaaaaaaaaaaaaa; done",  # (21 characters: under 256)
        "x=abc; for i in 1 2 3 4 5 6; do x+=abcd; done",
        "f() { local v=1; for i in 1 2; do v=$1; done; }; f 12345678901",
    ],
)
def test_max_string_length_below_256_holds_for_existing_variables(walker: bool, script: str) -> None:
    """(The short path once checked the length of values over 256 characters only.)"""
    with pytest.raises(ExecutionLimitError) as e:
        _run(script, walker, Limits(max_string_length=10))
    assert e.value.limit == "max_string_length"


@pytest.mark.parametrize("walker", [False, True])
def test_growing_text_meets_max_memory_and_keeps_the_old_value(walker: bool) -> None:
    limits = Limits(max_memory=8 << 20, max_string_length=1 << 30, max_expansion_bytes=1 << 40)
    sess = Session(Bash(limits=limits))
    saved = evaluator_module.TREE_WALKER
    evaluator_module.TREE_WALKER = walker
    try:
        with pytest.raises(ExecutionLimitError) as e:
            sess.exec("x=ab; y=z; for i in {1..40}; do y=${#x}; x+=$x; done")
    finally:
        evaluator_module.TREE_WALKER = saved
    assert e.value.limit == "max_memory"
    y, n = sess.exec('echo "$y ${#x}"').stdout.split()
    assert y == n and int(n) >= 1 << 20  # (the assignment that went over left x as it was)


@pytest.mark.parametrize(
    "script",
    [
        "x=aaaa; for i in 1 2 3; do x+=é; done",  # wide text appended to narrow
        "x=é; for i in 1 2 3; do x+=aaaa; done",  # narrow text appended to wide
        "x=éé; for i in 1 2; do x=abcdef; x=ü$i; done",
        "f() { local v; for i in 1 2; do v=$i; v+=ß; done; }; f",
    ],
)
def test_the_short_path_charges_what_the_general_way_charges(
    script: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    short = _run(script, walker=False)
    _general(monkeypatch)
    assert _run(script, walker=False) == short
    assert _run(script, walker=True) == short
