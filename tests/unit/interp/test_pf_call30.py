"""Calls of a function by its literal name written into generated loops and bodies (issue 23,
pf-call30): steps._call, with calls.SITE_CALL's common case in place of call_function's frame.

These tests pin that the generated loops and bodies write the call in and take call_function's
frame only for what the common case leaves to it, and that the call's limits, policy and memory
stay as the walker has them: max_call_depth, max_memory for the positional parameters, what a call
holds given back, a policy's refusal at every call. The spec table pf_call30_sites.txt checks the
shapes against bash 5.2 (test_funcgen runs it generated, as closures and walked)."""

from __future__ import annotations

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError, Policy
from sandbash.interp import compiler, steps
from sandbash.limits import Limits

from .walking import run_walked, walking

# (a `while (( ))` loop, a `for ((;;))` loop and a hot body, each calling by a literal name)
SHAPES = {
    "while": 'f() { local v=$1; (( r = v * 2 )); }; i=0; while (( i < 3000 )); do f "$i"; (( i++ )); done; echo $r',
    "arith-for": "f() { local v=$1; (( r = v * 2 )); }; for ((i = 0; i < 3000; i++)); do f $i; (( s += r )); done; echo $r $s",
    "body": 'g() { r=$1; }; f() { local v=$1; g "$v"; g $(( v * 2 )); }; for ((i = 0; i < 3000; i++)); do f $i; done; echo $r',
}


@pytest.fixture
def calls_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names given to call_function by the call sites (closures and generated code) while the
    test runs: generated code made from steps.NAMESPACE while it is patched calls the spy."""
    made: list[str] = []
    real = steps.NAMESPACE["call_function"]

    def spy(ev: object, name: str, *rest: object) -> int:
        made.append(name)
        return real(ev, name, *rest)  # type: ignore[operator,no-any-return]

    monkeypatch.setattr(steps, "_MAKERS", {})
    monkeypatch.setitem(steps.NAMESPACE, "call_function", spy)
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)
    return made


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_generated_code_calls_in_place(shape: str, calls_made: list[str]) -> None:
    """Once the loop (or the body) is generated, its calls take no call_function frame: only the
    calls made before that (closures) do, a small part of the 3000."""
    script = SHAPES[shape]
    with walking(False):
        got = Bash().exec(script)
    assert (got.stdout, got.exit_code) == run_walked(script, True)[::2]
    assert 0 < len(calls_made) < 1100


@pytest.mark.parametrize("walker", [False, True])
def test_max_call_depth_inside_a_generated_loop(walker: bool) -> None:
    """A recursion that grows with a generated loop's steps ends with max_call_depth at the same
    step as walked, and leaves no frame or scope behind."""
    with walking(walker):
        session = Bash(limits=Limits(max_call_depth=40)).session()
        session.exec("r() { (( $1 > 0 )) && r $(( $1 - 1 )); }; i=0")
        with pytest.raises(ExecutionLimitError) as info:
            session.exec("while (( i < 600 )); do r $(( i / 8 )); (( i++ )); done")
        assert info.value.limit == "max_call_depth"
        r = session.exec('echo "$i [${FUNCNAME[*]}]"')
    assert r.stdout == "320 []\n"  # (r 40: 41 levels)
    assert len(session.shell.state.vars.scopes) == 1 and not session.shell.state.frames


@pytest.mark.parametrize("walker", [False, True])
def test_positional_parameters_count_to_max_memory_in_place(walker: bool) -> None:
    """A written-in call charges its positional parameters while it runs, one word or several:
    300 nested calls of a 40,000-character argument pass an 8 MB max_memory, not a 64 MB one."""
    for args in ('"$2"', '"$2" x y'):
        script = (
            f'big=$(printf "%40000s"); r() {{ (( $1 < 300 )) && r $(( $1 + 1 )) {args}; (( d++ )); }};'
            ' i=0; while (( i < 400 )); do r 290 ""; (( i++ )); done; r 0 "$big"; echo ok'
        )
        bash = Bash(limits=Limits(max_call_depth=1000, max_memory=8 << 20))
        with walking(walker), pytest.raises(ExecutionLimitError) as info:
            bash.exec(script)
        assert info.value.limit == "max_memory"
        ok = Bash(limits=Limits(max_call_depth=1000, max_memory=64 << 20))
        with walking(walker):
            assert ok.exec(script).stdout == "ok\n"


@pytest.mark.parametrize("walker", [False, True])
def test_a_written_in_call_gives_back_what_it_held(walker: bool) -> None:
    """After many written-in calls with big arguments and locals (a recursion's scopes made at
    each level), the shell's variables hold what they held before."""
    with walking(walker):
        session = Bash().session()
        session.exec(
            'big=$(printf "%10000s"); f() { local a=$1 b="$1$1"; g "$b"; (( $2 > 0 )) && f "$1" $(( $2 - 1 )); };'
            " g() { local c=$1; }; i=0 n=300; while (( i < n )); do f x 2; (( i++ )); done; i=0 n=100"
        )  # (the loop's texts hot: the same loop below is generated as it starts)
        vars_ = session.shell.state.vars
        before = vars_held(vars_)
        r = session.exec('while (( i < n )); do f "$big" 2; (( i++ )); done; echo ${#big}; i=0')
        assert r.stdout == "10000\n"
        assert vars_held(vars_) == before
        assert len(vars_.scopes) == 1 and not session.shell.state.frames


def test_a_policy_sees_every_written_in_call() -> None:
    """With a policy, every call of a generated loop goes through the dispatch, which asks it: a
    function named like a denied command is refused at each call, as walked, with the same audit."""
    policy = Policy(deny=["rm"])
    script = 'rm() { echo fake; }; f() { n=$1; }; i=0; while (( i < 400 )); do rm "$i"; s=$?; f "$i"; (( i++ )); done; echo "$s $n"'
    got = {}
    for walker in (False, True):
        with walking(walker):
            r = Bash(policy=policy).exec(script)
        got[walker] = (r.stdout, r.stderr.count("rm: policy denied this command"), r.exit_code)
    assert got[False] == got[True] == ("126 399\n", 400, 0)
