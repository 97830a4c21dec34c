"""A call from the top level gets a frame stack of its own, and `local` of several names runs in
one loop (issue 23, pf-calls10). The stack is empty again after every kind of return (status,
`return`, an error, a limit, FUNCNEST, `exit` in a subshell); a call whose words are big enough
is charged to max_memory while it runs (calls.direct_call), a smaller one is not; `local` whose
values are too long, too many or held goes to the builtin with the same result. Compiled and
walked: each body runs three times or more, walked first, then compiled."""

from __future__ import annotations

import pytest

from sandbash import Bash, ExecutionLimitError
from sandbash.expand.words import ARGV_HELD_MIN
from sandbash.interp import calls as calls_module
from sandbash.interp import steps
from sandbash.limits import Limits

from .walking import walking

FUNCS = (
    'g() { return $1; }; f() { g "$@"; echo "${FUNCNAME[*]} ${#FUNCNAME[@]}"; }; '
    'h() { local a=$1 b; f $a; b=$(f x); echo "[$b]"; }; '
    'r() { (( $1 > 0 )) && r $(( $1 - 1 )); echo "r$1 ${#FUNCNAME[@]}"; }'
)
SCRIPTS = [
    "for i in 1 2 3; do f 0; done",
    "for i in 1 2 3; do h 1; done",
    "for i in 1 2 3; do r 3 | tail -1; done",
    "for i in 1 2 3; do (f 0; exit 4); echo $?; done",
    'for i in 1 2 3; do f 0 | cat; x=$(h 2); echo "${#x}"; done',
    "e() { local v=${1:?none}; }; for i in 1 2 3; do (e) 2>/dev/null; echo $?; done",
]


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize("script", SCRIPTS)
def test_stack_empty_after_calls(walker: bool, script: str) -> None:
    """After top-level calls, nested calls, calls in pipelines, subshells and $( ), the session's
    frame stack is empty and FUNCNAME unset; the output matches a fresh run's."""
    with walking(walker):
        session = Bash().session()
        session.exec(FUNCS)
        first = session.exec(script)
        assert session.shell.state.frames == []
        again = session.exec(script + '; echo "${#FUNCNAME[@]} ${FUNCNAME-none}"')
        assert again.stdout == first.stdout + "0 none\n"
        assert session.shell.state.frames == []
        assert Bash().exec(FUNCS + "; " + script).stdout == first.stdout


@pytest.mark.parametrize("walker", [False, True])
def test_stack_empty_after_limit_and_funcnest(walker: bool) -> None:
    """A call ended by max_call_depth deep in a recursion, or by FUNCNEST, leaves no frame."""
    with walking(walker):
        session = Bash(limits=Limits(max_call_depth=40)).session()
        session.exec("r() { r $(( $1 + 1 )); }; s() { s2; }; s2() { :; }")
        with pytest.raises(ExecutionLimitError) as info:
            session.exec("r 0")
        assert info.value.limit == "max_call_depth"
        assert session.shell.state.frames == []
        r = session.exec(
            "FUNCNEST=1\nfor i in 1 2 3; do s; echo $?; done\necho next\nunset FUNCNEST; s; echo ok"
        )
        assert r.stdout == "next\nok\n"  # (the over-deep call drops the whole loop, as bash)
        assert "maximum function nesting level exceeded (1)" in r.stderr
        assert session.shell.state.frames == []


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize("size", [ARGV_HELD_MIN - 100, ARGV_HELD_MIN + 100])
def test_big_words_charged_while_the_call_runs(
    walker: bool, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled call site sends a call whose words hold ARGV_HELD_MIN characters or more to
    direct_call (charged to max_memory while it runs), a smaller one straight to call_function."""
    direct: list[int] = []
    real = calls_module.direct_call

    def counting(*args: object) -> int:
        direct.append(1)
        return real(*args)  # type: ignore[arg-type]

    # (the call sites' closures are made from steps._call's text over steps.NAMESPACE: made
    # again with the spy)
    monkeypatch.setattr(steps, "_MAKERS", {})
    monkeypatch.setitem(steps.NAMESPACE, "direct_call", counting)
    with walking(walker):
        r = Bash().exec(
            f'w=$(printf "%{size - 4}s"); f() {{ echo ${{#1}}; }}; for i in 1 2 3 4; do f "$w" abc; done'
        )
    assert r.stdout == f"{size - 4}\n" * 4
    big = size >= ARGV_HELD_MIN
    # (compiled, the loop's body runs compiled from its second pass; walked, run_argv charges)
    assert (len(direct) >= 2) == (big and not walker)


def _outcome(limits: Limits, setup: str, walker: bool) -> list[tuple[str, str, object]]:
    """stdout, stderr and status (or the limit) of four calls of f in one session."""
    with walking(walker):
        session = Bash(limits=limits).session()
        session.exec(setup)
        outs: list[tuple[str, str, object]] = []
        for _ in range(4):
            try:
                r = session.exec('f "$w" x')
                outs.append((r.stdout, r.stderr, r.exit_code))
            except ExecutionLimitError as e:
                outs.append(("", "", e.limit))
        return outs


@pytest.mark.parametrize(
    "limits, setup, expect",
    [
        # a value longer than max_string_length
        (
            Limits(max_string_length=1000),
            'w=$(printf "%600s"); f() { local a=x b="$1$1" c; echo "${a-u} ${#b}"; }',
            None,
        ),
        # more words than a builtin takes (an array's worth and a program's: Limits.shell_words)
        (
            Limits(max_arguments=1, max_array_elements=2),
            "w=1; f() { local a=x b c; echo ${a-u}; }",
            ("", "", "max_array_elements"),
        ),
        # words held while the command runs (ARGV_HELD_MIN characters): the builtin makes them
        (
            Limits(),
            f'w=$(printf "%{ARGV_HELD_MIN}s"); f() {{ local a=x b="$1" c=$2; echo "$a ${{#b}} ${{c-u}}"; }}',
            (f"x {ARGV_HELD_MIN} x\n", "", 0),
        ),
    ],
)
def test_several_names_general_path(
    limits: Limits, setup: str, expect: tuple[str, str, object] | None
) -> None:
    """`local` of several names that the fast path must not make goes to the builtin: the same
    result compiled and walked, on every pass."""
    compiled = _outcome(limits, setup, False)
    assert compiled == _outcome(limits, setup, True)
    assert compiled[1:] == compiled[:-1]
    if expect is not None:
        assert compiled[0] == expect
