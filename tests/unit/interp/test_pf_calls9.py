"""A call's teardown and `local` (issue 23, pf-calls9): a call that made no local hands its scope
back without the general teardown; `local` of several names charges them to max_memory at once,
before making any; a local of a function called from the top level looks in the globals alone.
What a call held is given back as it returns, and the limit ends the run, compiled and walked."""

from __future__ import annotations

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError
from sandbash.limits import Limits

from .walking import walking

SETUP = 'big=$(printf "%20000s"); u=${big// /é}; i=0'

# function bodies called at depth 1 (from the loop) and depth 2 (from g)
BODIES = [
    "f() { :; }",  # no local: the scope goes back as it is
    "f() { local a=$1; }",
    'f() { local a=$1 b c="$2"; b=$1; }',
    "f() { local a b; a=$2; unset b; }",
    "f() { local -; set -f; local x=$1 y=$2; }",
    "f() { local OPTIND=1 w=$1; getopts x o -x; }",
]


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize("body", BODIES)
def test_calls_give_back_what_they_held(walker: bool, body: str) -> None:
    """After calls at depths 1 and 2 (and calls that made no local in between) the store holds
    what it held before, and the shell's options are as before."""
    with walking(walker):
        session = Bash().session()
        session.exec(f'{SETUP}; {body}; g() {{ f "$@"; :; }}; e() {{ :; }}; f x y; g x y')
        vars_ = session.shell.state.vars
        before = vars_held(vars_)
        flags = session.exec("echo $-").stdout
        r = session.exec('for i in 1 2 3 4 5; do f "$big" "$u"; e; g "$u" "$big"; e x; done; echo ${#u} $-')
        assert r.stdout == f"20000 {flags}"
        assert vars_held(vars_) == before


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize("locals_", ['local v="$u$1" w', 'local w v="$u$1"', 'local p q="$u$1" v="$u$1"'])
def test_several_names_count_to_max_memory(walker: bool, locals_: str) -> None:
    """Nested calls each holding big locals made by one `local` of several names end with
    max_memory, wherever the big value is among the names."""
    script = (
        f'u=$(printf "%20000s"); u=${{u// /é}}; r() {{ {locals_}; (( $1 < 200 )) && r $(( $1 + 1 )); }}; r 0'
    )
    with walking(walker), pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(max_call_depth=1000, max_memory=12 << 20)).exec(script)
    assert info.value.limit == "max_memory"


@pytest.mark.parametrize("walker", [False, True])
def test_locals_under_the_limit_run(walker: bool) -> None:
    """The same calls, fewer of them: under the limit, they run and give everything back."""
    script = (
        'u=$(printf "%20000s"); u=${u// /é}; r() { local p q="$u$1" v="$u$1"; (( $1 < 20 )) && r $(( $1 + 1 )); :; }; '
        "r 0; echo ok"
    )
    with walking(walker):
        session = Bash(limits=Limits(max_call_depth=1000, max_memory=12 << 20)).session()
        session.exec("x=1")
        before = vars_held(session.shell.state.vars)
        r = session.exec(script)
        assert r.stdout == "ok\n"
        assert vars_held(session.shell.state.vars) - before < 200_000  # (u itself: 80,000 bytes)
