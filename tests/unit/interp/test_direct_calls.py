"""The compiled direct call of a function (interp/calls.py, issue 23, pf-func2).

A compiled simple command whose literal name finds a function when it runs calls it without the
executor's dispatch (calls.direct_call). These tests pin when that path is taken and when the
general one must be (temporary bindings, redirections, POSIX mode, a policy, a name whose words are
parted, `command`), that both give the same output, and that the call's limits stay: max_call_depth,
max_memory for its positional parameters, and what a call holds given back as it returns. The spec
table pf_func2.txt checks the same shapes against bash 5.2."""

from __future__ import annotations

import pytest

from memheld import vars_held
from sandbash import Bash, ExecutionLimitError, Policy
from sandbash.interp import calls, steps
from sandbash.limits import Limits

from .walking import walking

# (script, expected stdout): every function runs several times, so the loop and its body compile
CASES: dict[str, tuple[str, str]] = {
    "redefined-between-calls": (
        "f() { echo a$1; }; for i in 1 2 3 4; do f $i; [ $i = 2 ] && f() { echo b$1; }; done",
        "a1\na2\nb3\nb4\n",
    ),
    "redefined-by-itself": (
        "f() { echo one; f() { echo two; }; }; for i in 1 2 3; do f; done",
        "one\ntwo\ntwo\n",
    ),
    "unset-then-defined-again": (
        "f() { echo f$1; }; for i in 1 2 3 4; do f $i 2>/dev/null || echo missing; "
        "[ $i = 2 ] && unset -f f; [ $i = 3 ] && f() { echo g$1; }; done",
        "f1\nf2\nmissing\ng4\n",
    ),
    "shadows-builtin-then-unset": (
        'echo() { builtin echo "<$*>"; }; for i in 1 2; do echo $i; done; unset -f echo; '
        "for i in 1 2; do echo $i; done",
        "<1>\n<2>\n1\n2\n",
    ),
    "builtin-becomes-function": (
        "for i in 1 2 3; do echo $i; [ $i = 1 ] && echo() { printf 'E%s\\n' \"$*\"; }; done; unset -f echo",
        "1\nE2\nE3\n",
    ),
    "command-skips-function": (
        "f() { echo func; }; for i in 1 2; do command f 2>/dev/null || echo none$?; f; done",
        "none127\nfunc\nnone127\nfunc\n",
    ),
    "temp-binding-and-redirection": (
        'f() { echo "v=$v"; }; for i in 1 2; do v=$i f; f >/dev/null; f; done; echo "${v-unset}"',
        "v=1\nv=\nv=2\nv=\nunset\n",
    ),
    "declaration-named-function": (
        'local() { echo "mine $*"; }; for i in 1 2; do local a=$i "b c"; done; unset -f local',
        "mine a=1 b c\nmine a=2 b c\n",
    ),
    "odd-function-names": (
        "a.b() { echo dot $1; }; f-g() { echo dash $1; }; for i in 1 2; do a.b $i; f-g $i; done",
        "dot 1\ndash 1\ndot 2\ndash 2\n",
    ),
    "posix-mode": (
        "set -o posix; f() { echo p$1; return 3; }; for i in 1 2; do f $i; echo $?; done",
        "p1\n3\np2\n3\n",
    ),
    "status-errexit-last-arg": (
        'set -e; f() { return $1; }; for i in 0 0; do f $i x$i; echo "$? $_"; done; f 0 || :; f 5 || echo "st $?"; f 2; echo no',
        "0 x0\n0 x0\nst 5\n",
    ),
    "positional-restored": (
        'set -- a b; f() { shift; set -- x "$@"; echo "$# $*"; }; for i in 1 2; do f p q r; echo "$# $*"; done',
        "3 x q r\n2 a b\n3 x q r\n2 a b\n",
    ),
    "process-substitution-argument": (
        'f() { cat "$1"; }; for i in 1 2; do f <(echo ps$i); done',
        "ps1\nps2\n",
    ),
    "nested-locals-and-return": (
        'g() { echo "g:$x"; local x=g; return 4; }; f() { local x=f$1; g; echo "f:$? $x"; };'
        " x=top; for i in 1 2; do f $i; done; echo $x",
        "g:f1\nf:4 f1\ng:f2\nf:4 f2\ntop\n",
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
def direct(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the functions called by the direct path while the test runs."""
    made: list[str] = []
    original = calls.direct_call
    original_call = calls.call_function

    def spy(ev: object, name: str, *rest: object) -> int:
        made.append(name)
        return original(ev, name, *rest)  # type: ignore[arg-type]

    def spy_call(ev: object, name: str, *rest: object) -> int:
        if len(rest) == 5 and rest[-1] != -1:  # (a `mark`: the compiled call site's call)
            made.append(name)
        return original_call(ev, name, *rest)  # type: ignore[arg-type]

    # (the call sites' closures are made from steps._call's text, over steps.NAMESPACE: made
    # again with the spies; a generated loop or body writes the common case in, called by neither)
    monkeypatch.setattr(steps, "_MAKERS", {})
    monkeypatch.setitem(steps.NAMESPACE, "direct_call", spy)
    monkeypatch.setitem(steps.NAMESPACE, "call_function", spy_call)
    return made


def test_direct_path_taken_for_plain_calls(direct: list[str]) -> None:
    with walking(False):
        r = Bash().exec("f() { g $1; }; g() { echo $1; }; for i in 1 2 3; do f $i; done")
    assert r.stdout == "1\n2\n3\n"
    assert direct.count("f") == 3  # (a loop's body compiles as the loop starts)
    assert direct.count("g") == 2  # (f's body from its second call)


def test_other_traps_leave_calls_direct(direct: list[str]) -> None:
    """A trap that runs at no simple command (EXIT, a signal's, ERR, RETURN: RunMode.debug) leaves
    the calls direct, and each still runs what it traps."""
    script = "trap 'echo bye' EXIT; trap 'x=1' USR1; trap 'echo ret' RETURN; f() { :; }; for i in 1 2 3; do f; done"
    with walking(False):
        r = Bash().exec(script)
    assert (r.stdout, r.exit_code) == ("bye\n", 0)  # (RETURN: not for a function without -T, as bash)
    assert direct.count("f") == 3


@pytest.mark.parametrize(
    "script",
    [
        "f() { :; }; for i in 1 2 3; do v=1 f; done",
        "f() { :; }; for i in 1 2 3; do f >/dev/null; done",
        "f() { :; }; for i in 1 2 3; do command f 2>/dev/null || :; done",
        "set -o posix; f() { :; }; for i in 1 2 3; do f; done",
        "declare() { :; }; for i in 1 2 3; do declare x=1; done",
        "echo() { :; }; for i in 1 2 3; do echo x; done",
        "f() { :; }; trap ':' DEBUG; for i in 1 2 3; do f; done",
        "f() { :; }; for i in 1 2 3; do set -x; f; set +x; done 2>/dev/null",
    ],
)
def test_general_path_for_what_it_decides(direct: list[str], script: str) -> None:
    """Temporary bindings, redirections, `command`, POSIX mode, a builtin's name (a function
    shadowing it is found by run_argv), a DEBUG trap and tracing leave the call to
    run_argv/exec_simple."""
    with walking(False):
        r = Bash().exec(script)
    assert r.exit_code == 0
    assert direct == []


def test_policy_decides_function_calls(direct: list[str]) -> None:
    """With gates (a policy), every call goes through the dispatch, which consults them: a
    function named like a denied command is refused at each call, as walked; others run."""
    policy = Policy(deny=["rm"])
    script = "rm() { echo fake; }; f() { echo f$1; }; for i in 1 2; do rm $i; echo $?; f $i; done"
    compiled = _run(script, walker=False, policy=policy)
    assert compiled == _run(script, walker=True, policy=policy)
    assert compiled[0] == "126\nf1\n126\nf2\n"
    assert compiled[1].count("rm: policy denied this command") == 2
    assert direct == []


@pytest.mark.parametrize("walker", [False, True])
def test_recursion_ends_with_max_call_depth(walker: bool) -> None:
    bash = Bash(limits=Limits(max_call_depth=40))
    with walking(walker), pytest.raises(ExecutionLimitError) as info:
        bash.exec("f() { f $(( $1 + 1 )); }; for i in 1 2; do f 0; done")
    assert info.value.limit == "max_call_depth"


@pytest.mark.parametrize("walker", [False, True])
def test_positional_parameters_count_to_max_memory(walker: bool) -> None:
    """Each call's positional parameters are charged while it runs: 300 nested calls with a
    40,000-character argument (too small for the command's own argv charge) pass an 8 MB
    max_memory, though the value itself is one string."""
    script = (
        'big=$(printf "%40000s"); r() { (( $2 < 300 )) && r "$1" $(( $2 + 1 )); };'
        ' for i in 1 2; do r "$big" 0; done; echo ok'
    )
    bash = Bash(limits=Limits(max_call_depth=1000, max_memory=8 << 20))
    with walking(walker), pytest.raises(ExecutionLimitError) as info:
        bash.exec(script)
    assert info.value.limit == "max_memory"
    ok = Bash(limits=Limits(max_call_depth=1000, max_memory=64 << 20))
    with walking(walker):
        assert ok.exec(script).stdout == "ok\n"


@pytest.mark.parametrize("walker", [False, True])
def test_a_call_gives_back_what_it_held(walker: bool) -> None:
    """After many calls with big arguments and locals, the shell's variables hold what they held
    before (the scope's charge is given back as the call returns)."""
    with walking(walker):
        session = Bash().session()
        session.exec(
            'big=$(printf "%50000s"); f() { local a=$1 b="$1$1"; g "$b"; }; g() { local c=$1; }; f x; i=0'
        )
        vars_ = session.shell.state.vars
        before = vars_held(vars_)
        r = session.exec('for i in 1 2 3 4 5 6 7 8; do f "$big"; done; echo ${#big}')
        assert r.stdout == "50000\n"
        assert vars_held(vars_) == before
        assert len(vars_.scopes) == 1 and not session.shell.state.frames


@pytest.mark.parametrize("walker", [False, True])
def test_limit_inside_a_call_leaves_no_frame(walker: bool) -> None:
    """A limit that ends a run inside nested calls pops every frame and scope on its way out (a
    session's next turn starts at the top level)."""
    with walking(walker):
        session = Bash(limits=Limits(max_call_depth=30)).session()
        with pytest.raises(ExecutionLimitError):
            session.exec("f() { local v=$1; f $(( $1 + 1 )); }; for i in 1 2; do f 0; done")
        r = session.exec('echo "[${FUNCNAME[*]}] ${v-unset}"')
    assert r.stdout == "[] unset\n"
