"""Function calls and `return`, compiled and walked (issue 23, pf-call).

A literal `return` in a compiled function body ends it without an exception: its closure gives the
status below zero (compiler.returned) and the compiled lists, `&&`/`||`, `if` and `{ }` hand it up
to call_function; a list run by anything else raises ReturnFromFunction as the builtin does. Every
script here runs both ways and must give the same stdout, stderr and status, and the outputs are
pinned (the spec table pf_call.txt checks the same shapes against bash 5.2)."""

from __future__ import annotations

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError, Policy
from sandbash.interp import compiler, control
from sandbash.limits import Limits
from sandbash.shvars.vars import INTEGER, Scope, VarStore

from .walking import walking

# (script, expected stdout): each function runs several times, so its body compiles
CASES: dict[str, tuple[str, str]] = {
    "return-in-if": (
        "f() { if (( $1 < 2 )); then echo small; return 3; fi; echo big; }; for n in 1 5 0; do f $n; echo $?; done",
        "small\n3\nbig\n0\nsmall\n3\n",
    ),
    "return-in-and-or-group": (
        "f() { [[ $1 = a ]] && { echo A; return 4; }; echo other; }; for x in a b a; do f $x; echo $?; done",
        "A\n4\nother\n0\nA\n4\n",
    ),
    "return-as-condition": (
        "f() { if return 3; then echo y; else echo n; fi; echo no; }; g() { return 2 || echo or; echo no; };"
        " for i in 1 2 3; do f; echo $?; g; echo $?; done",
        "3\n2\n3\n2\n3\n2\n",
    ),
    "return-in-elif-else": (
        "f() { if [ $1 = a ]; then :; elif [ $1 = b ]; then return 5; else return; fi; echo end; };"
        ' for x in a b c a; do f $x; echo "$x $?"; done',
        "end\na 0\nb 5\nc 1\nend\na 0\n",
    ),
    "return-status-wraps": (
        'f() { return $1; }; for n in 0 255 256 300 -1 -256 007; do f $n; echo -n "$? "; done; echo',
        "0 255 0 44 255 0 7 \n",
    ),
    "return-no-arg-last-status": (
        "f() { (exit $1); return; }; for n in 0 4 200; do f $n; echo $?; done",
        "0\n4\n200\n",
    ),
    "return-in-walked-constructs": (
        "f() { while :; do for i in 1 2; do case $i in 2) return 6;; esac; done; done; };"
        " g() { until false; do if true; then return 7; fi; done; };"
        " for i in 1 2 3; do f; echo $?; g; echo $?; done",
        "6\n7\n6\n7\n6\n7\n",
    ),
    "return-body-not-a-group": (
        "f() if [ $1 = x ]; then return 3; else return 4; fi; g() ( return 5 );"
        " h() for i in 1 2; do return $i; done; for i in 1 2; do f x; echo $?; f y; echo $?; g; echo $?;"
        " h; echo $?; done",
        "3\n4\n5\n1\n3\n4\n5\n1\n",
    ),
    "return-with-redirection-and-pipe": (
        'f() { return 3 >/dev/null; echo no; }; g() { return 4 | cat; echo "piped $?"; return 1; };'
        " for i in 1 2; do f; echo $?; g; echo $?; done",
        "3\npiped 0\n1\n3\npiped 0\n1\n",  # (a pipeline's last command is cat)
    ),
    "return-errors": (
        # (too many arguments ends the script, as in bash -c)
        "f() { return x 2>&1; echo after $?; }; g() { return 1 2 2>&1; echo after $?; };"
        " for i in 1 2; do f; echo $?; g; echo $?; done; echo next",
        "environment: line 1: return: x: numeric argument required\n2\n"
        "environment: line 1: return: too many arguments\n",
    ),
    "return-outside-function": (
        "for i in 1 2; do return 3 2>&1; echo $?; if true; then return 2>&1; fi; echo $?; done",
        "bash: line 1: return: can only `return' from a function or sourced script\n2\n"
        "bash: line 1: return: can only `return' from a function or sourced script\n2\n"
        "bash: line 1: return: can only `return' from a function or sourced script\n2\n"
        "bash: line 1: return: can only `return' from a function or sourced script\n2\n",
    ),
    "return-from-source-in-function": (
        "printf 'if true; then return 6; fi; echo no\\n' > /tmp/s.sh; f() { . /tmp/s.sh; echo \"src $?\"; return 1; };"
        " for i in 1 2 3; do f; echo $?; done",
        "src 6\n1\nsrc 6\n1\nsrc 6\n1\n",
    ),
    "return-in-eval-and-trap": (
        "f() { eval 'if true; then return 3; fi'; echo no; }; g() { trap 'return 9' ERR; false; echo no; };"
        " for i in 1 2; do f; echo $?; g; echo $?; done; trap - ERR",
        "3\n9\n3\n9\n",
    ),
    "return-trap-sees-status": (
        "f() { trap 'echo \"trap $?\"' RETURN; false; if true; then return 5; fi; }; for i in 1 2; do f; echo $?; done",
        "trap 0\n5\ntrap 0\n5\n",  # (the status of `true`, before the return)
    ),
    "return-set-e": (
        'set -e; f() { if return 3; then :; fi; }; for i in 1 2; do f || echo "caught $?"; done; f; echo no',
        "caught 3\ncaught 3\n",
    ),
    "return-set-x": (
        "f() { return $1; }; for i in 1 2; do [ $i = 2 ] && set -x; f $i; echo $?; done 2>&1; set +x",
        "1\n+ f 2\n+ return 2\n+ echo 2\n2\n",
    ),
    "return-named-function-and-disabled": (
        'f() { return 3; echo "after $?"; }; for i in 1 2; do f; echo $?; done;'
        " return() { echo mine; }; f; echo $?; unset -f return; enable -n return; f 2>/dev/null; echo $?;"
        " enable return; f; echo $?",
        "3\n3\nmine\nafter 0\n0\nafter 127\n0\n3\n",
    ),
    "positional-and-locals-put-back": (
        'x=g; f() { local x=l; set -- a b; g2 "$@"; echo "f $# $x"; return 2; };'
        ' g2() { echo "g2 $# $x"; x=changed; return; }; set -- p q r;'
        ' for i in 1 2; do f; echo "top $? $# $x ${FUNCNAME[*]-none}"; done',
        "g2 2 l\nf 2 changed\ntop 2 3 g none\ng2 2 l\nf 2 changed\ntop 2 3 g none\n",
    ),
    "recursion-with-return": (
        "fibo() { local n=$1 left; if (( n < 2 )); then out=$n; return; fi;"
        " fibo $(( n - 1 )); left=$out; fibo $(( n - 2 )); out=$(( left + out )); };"
        " for k in 5 10 15; do fibo $k; echo $out; done",
        "5\n55\n610\n",
    ),
    "funcnest": (
        "r() { (( $1 < 4 )) && r $(( $1 + 1 )); echo d$1; return 0; };"
        " for n in 2 9; do FUNCNEST=$n; r 1 2>&1 | tr '\\n' ' '; echo; done;"
        " f() { local FUNCNEST=3; r 1 2>&1 | tr '\\n' ' '; echo; }; unset FUNCNEST; f; f",
        "environment: line 1: r: maximum function nesting level exceeded (2) \nd4 d3 d2 d1 \n"
        "environment: line 1: r: maximum function nesting level exceeded (3) \n"
        "environment: line 1: r: maximum function nesting level exceeded (3) \n",
    ),
    "local-declined-shapes": (
        # each goes the builtin's way from the compiled command: set -a, readonly, twice, existing,
        # special, a temporary binding, options, outside a function
        'readonly R=1; f() { set -a; local e=1; set +a; local R=2 2>/dev/null; echo "R $?";'
        ' local v=1 v=2; local v=3; local OPTIND=4; local -i n=2+3; local w; echo "$e $v $OPTIND $n ${w-u}";'
        ' env | grep -c "^e="; }; for i in 1 2; do w=t f; local q=1 2>/dev/null; echo "top $?"; done',
        "R 1\n1 3 4 5 t\n1\ntop 1\nR 1\n1 3 4 5 t\n1\ntop 1\n",
    ),
    "local-dollar-underscore": (
        'f() { local a=1 b=$1; echo "$_"; local c; echo "$_"; }; for i in x y; do f $i; done',
        "b=x\nc\nb=y\nc\n",
    ),
    "local-forms": (
        'f() { local a=$1 b="$2" c; local v=1; local v=$((v+1)); c=$a$b; echo "$a|$b|$c|$v"; };'
        ' for i in 1 2; do f $i "p q"; done; echo "${a-unset}"',
        "1|p q|1p q|2\n2|p q|2p q|2\nunset\n",
    ),
}


def _run(script: str, walker: bool, **kwargs: object) -> tuple[str, str, int]:
    with walking(walker):
        result = Bash(**kwargs).exec(script)  # type: ignore[arg-type]
    return result.stdout, result.stderr, result.exit_code


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_equals_walker(name: str) -> None:
    script, expected = CASES[name]
    compiled = _run(script, walker=False)
    assert compiled == _run(script, walker=True)
    assert compiled[0] == expected


@pytest.fixture
def raised(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The statuses of every ReturnFromFunction made while the test runs."""
    made: list[int] = []
    original = control.ReturnFromFunction.__init__

    def spy(self: control.ReturnFromFunction, status: int) -> None:
        made.append(status)
        original(self, status)

    monkeypatch.setattr(control.ReturnFromFunction, "__init__", spy)
    return made


def test_compiled_return_raises_nothing(raised: list[int]) -> None:
    """From the second call on, a literal return in a function body (at its top, in an if, in
    && { }) ends the call without an exception; the first, walked call raises."""
    script = (
        "f() { [[ $1 = a ]] && { return 4; }; if (( $1 > 2 )); then return 5; fi; return 6; };"
        " for x in a 3 1 a 3 1; do f $x; echo -n $?; done"
    )
    out, _, status = _run(script, walker=False)
    assert (out, status) == ("456456", 0)
    assert raised == [4]  # (the first call, walked)
    raised.clear()
    assert _run(script, walker=True)[0] == "456456"
    assert raised == [4, 5, 6, 4, 5, 6]


def test_return_in_walked_construct_still_raises(raised: list[int]) -> None:
    """A return inside a loop or case (the walker's handlers) raises from the compiled list it
    ends, as the builtin would."""
    out, _, _ = _run("f() { while :; do if true; then return 3; fi; done; }; f; f; f; echo $?", walker=False)
    assert out == "3\n"
    assert raised == [3, 3, 3]


def test_returned_status_is_its_own_inverse() -> None:
    for status in range(256):
        code = compiler.returned(status)
        assert code < 0
        assert compiler.returned(code) == status


@pytest.mark.parametrize("walker", [False, True])
def test_deep_recursion_hits_max_call_depth(walker: bool) -> None:
    """Unbounded recursion (with a return on the way) ends with max_call_depth, both ways."""
    bash = Bash(limits=Limits(max_call_depth=60))
    with walking(walker), pytest.raises(ExecutionLimitError) as info:
        bash.exec("r() { if (( $1 < 0 )); then return 1; fi; r $(( $1 + 1 )); return; }; r 0")
    assert info.value.limit == "max_call_depth"


def test_compiled_return_under_a_policy() -> None:
    """With a policy the return command goes the builtin's way: decided by the gate as before."""
    script = "f() { if true; then return 3; fi; }; for i in 1 2 3; do f; echo $?; done"
    policy = Policy(deny=["rm"])
    assert _run(script, walker=False, policy=policy) == _run(script, walker=True, policy=policy)
    assert _run(script, walker=False, policy=policy)[0] == "3\n3\n3\n"


def test_cache_restart_keeps_returns_right() -> None:
    """When the compiled cache starts again (many eval'd loops), functions compiled before and
    after it still return their statuses."""
    n = compiler._CACHE_MAX + 50
    script = (
        "f() { if [ $1 = x ]; then return 3; fi; return 4; }; f x; f y;"
        f" for ((k=0;k<{n};k++)); do eval 'for j in 1; do :; done'; f x; s=$?; done; f y; echo $s $?"
    )
    assert _run(script, walker=False)[0] == "3 4\n"


def test_declare_locals_all_or_nothing() -> None:
    """VarStore.declare_locals makes every name or none (the builtin then decides for all)."""
    store = VarStore()
    assert not store.declare_locals([("a", "1")])  # (not in a function)
    store.push(Scope(False, True))
    assert store.declare_locals([("a", "1"), ("b", None)])
    assert store.find("a") is not None and store.find("a").value == "1"  # type: ignore[union-attr]
    assert store.find("b") is not None and store.find("b").value is None  # type: ignore[union-attr]
    store.scopes[-1]["a"].attrs = INTEGER  # (a plain local again is assigned: _local_again)
    for pairs in (
        [("c", "1"), ("a", "2")],
        [("d", "1"), ("d", "2")],
        [("e", "1"), ("1x", "2")],
        [("RANDOM", "1")],
    ):
        assert not store.declare_locals(pairs)
    assert store.find("c") is None and store.find("d") is None and store.find("e") is None
    held = vars_held(store)
    assert store.declare_locals([("big", "x" * 1000)])
    assert vars_held(store) >= held + 1000  # charged (max_memory) as it is made


@pytest.mark.parametrize("walker", [False, True])
def test_compiled_local_keeps_max_arguments(walker: bool) -> None:
    """A `local` with more words than max_arguments ends with that limit, both ways."""
    words = " ".join(f"v{i}=$1" for i in range(40))
    bash = Bash(limits=Limits(max_arguments=10, max_array_elements=20))  # (a builtin's words: 30)
    with walking(walker), pytest.raises(ExecutionLimitError) as info:
        bash.exec(f"f() {{ local {words}; }}; f 1; f 2; f 3")
    assert info.value.limit == "max_array_elements"
