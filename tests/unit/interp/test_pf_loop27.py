"""A hot `for ((;;))` loop's steps as one generated function (interp/arithfor.py; issue 23,
pf-loop27): when the loop hands its steps over (both parts empty or literal and generated, the
shared evaluator free), that it keeps to the run's limits (max_loop_iterations at the same step as
the walker, max_work, the deadline, cancellation), that what it generates spells no script text
and keeps to the bodies' budget, and that the results are the walker's for the shapes around the
hand-over; the same shapes against bash are tests/spec/cases/pf_loop27_arith_for.txt."""

from __future__ import annotations

import threading

import pytest

from sandbash import Bash, CancelToken, ExecutionCancelled, ExecutionLimitError
from sandbash.interp import arithfor, compiler
from sandbash.interp import evaluator as evaluator_module
from sandbash.syntax import ast as A
from sandbash.syntax.parser import parse


@pytest.fixture
def compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling on, whatever SANDBASH_TREE_WALKER says."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)


def _runs(comp: compiler.Compiler) -> list[object]:
    return [run for _, run in comp.fors.values()]


def _generated(run: object) -> bool:
    return getattr(getattr(run, "__code__", None), "co_filename", "") == arithfor.FILE


def _run(script: str, walker: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
    r = Bash().exec(script)
    return r.stdout, r.stderr, r.exit_code


@pytest.mark.usefixtures("compiling")
def test_a_hot_loop_hands_its_steps_over(compilers: list[compiler.Compiler]) -> None:
    out = Bash().exec("s=0; for ((q7 = 0; q7 < 700; q7 += 1)); do (( s += q7 )); done; echo $s $q7").stdout
    assert out == f"{sum(range(700))} 700\n"
    runs = _runs(compilers[0])
    assert len(runs) == 1 and _generated(runs[0])


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize(
    "script",
    [
        # a part to expand first that is no template (a `$( )` in it)
        "for ((i = 0; i < $(echo 700); i++)); do :; done",
        # too short for its parts to be generated
        "for ((z9 = 0; z9 < 100; z9++)); do :; done",
    ],
)
def test_loops_that_keep_their_walk(script: str, compilers: list[compiler.Compiler]) -> None:
    assert Bash().exec(script + "; echo $?").stdout == "0\n"
    assert not any(_generated(run) for run in _runs(compilers[0]))


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize(
    "script",
    [
        # a part to expand first that is a template (pf-dparen30: arithfor writes it in)
        "for ((i = 0; i < ${n:-700}; i++)); do :; done",
        "n=700; for ((i = 0; i < $n; i++)); do :; done",
    ],
)
def test_loops_with_template_parts_hand_their_steps_over(
    script: str, compilers: list[compiler.Compiler]
) -> None:
    assert Bash().exec(script + "; echo $?").stdout == "0\n"
    assert any(_generated(run) for run in _runs(compilers[0]))


@pytest.mark.usefixtures("compiling")
def test_a_loop_in_a_substitution_inside_arithmetic(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hot loop in a $( ) of a subscript that a `(( ))` evaluates: the walker's results."""
    script = "a=(1 2 3); for ((k = 0; k < 3; k++)); do (( x = a[$(for ((j = 0; j < 700; j++)); do :; done; echo $((j % 3)))] )); done; echo $x $j"
    assert _run(script, False, monkeypatch) == _run(script, True, monkeypatch)
    assert _run(script, False, monkeypatch)[0] == "2\n"


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize("limit", [500, 700, 1000, 1025])
def test_max_loop_iterations_ends_it_at_the_walkers_step(limit: int, monkeypatch: pytest.MonkeyPatch) -> None:
    script = "for ((i = 0; ; i++)); do n=$i; done"
    seen = []
    for walker in (False, True):
        monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
        with pytest.raises(ExecutionLimitError) as e:
            Bash().exec(script + "; echo after", limits={"max_loop_iterations": limit})
        assert e.value.limit == "max_loop_iterations"
        assert "after" not in e.value.result.stdout
        seen.append(e.value.result)
    assert seen[0].stdout == seen[1].stdout and seen[0].exit_code == seen[1].exit_code


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize("script", ["for ((;;)); do :; done", "for ((i = 0; i >= 0; i++)); do (( i )); done"])
def test_the_deadline_ends_an_endless_loop(script: str) -> None:
    limits = {"timeout": 0.3, "max_loop_iterations": 10**12, "max_command_count": 10**12, "max_work": 10**15}
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec(script, limits=limits)
    assert e.value.limit == "timeout"


@pytest.mark.usefixtures("compiling")
def test_max_work_ends_an_endless_loop() -> None:
    limits = {"max_loop_iterations": 10**12, "max_command_count": 10**12, "max_work": 5000}
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec("for ((i = 0; ; i++)); do :; done", limits=limits)
    assert e.value.limit == "max_work"


@pytest.mark.usefixtures("compiling")
def test_cancellation_ends_an_endless_loop() -> None:
    token = CancelToken()
    timer = threading.Timer(0.2, token.cancel)
    timer.start()
    try:
        with pytest.raises(ExecutionCancelled):
            Bash().exec("for ((c5 = 0; ; c5++)); do :; done", cancel=token, limits={"timeout": 30})
    finally:
        timer.cancel()


def _loop(text: str) -> A.ArithFor:
    node = parse(text).items[0].cmd
    assert isinstance(node, A.ArithFor)
    return node


def test_the_source_spells_no_script_text() -> None:
    made = arithfor.source(_loop("for ((qq = 123457; qq < 987651 && ww; qq += 13579)); do :; done"))
    assert made is not None
    src, namespace, _cold = made
    for text in ("qq", "ww", "123457", "987651", "13579", "&&"):
        assert text not in src
    assert {"qq", "ww", 987651, 13579} <= {v for v in namespace.values() if isinstance(v, str | int)}


def test_empty_parts_and_parts_not_generated() -> None:
    assert arithfor.source(_loop("for ((;;)); do :; done")) is not None
    assert arithfor.source(_loop("for ((; x < 3;)); do :; done")) is not None
    assert arithfor.source(_loop("for ((; x < $n;)); do :; done")) is None
    big = " + ".join(["x"] * 300)  # (past arithgen.MAX_NODES: its closures are kept)
    assert arithfor.source(_loop(f"for ((; {big};)); do :; done")) is None
    assert arithfor.hot(_loop("for ((; x < $n;)); do :; done")) is None
    assert arithfor.hot(_loop("for ((;;)); do :; done")) is True


@pytest.mark.usefixtures("compiling")
def test_the_generated_steps_keep_to_the_bodies_budget(
    compilers: list[compiler.Compiler], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sandbash.interp import funcgen

    monkeypatch.setattr(funcgen, "GEN_CHARS", 100)
    out = Bash().exec("for ((b3 = 0; b3 < 700; b3++)); do :; done; echo $b3").stdout
    assert out == "700\n"
    comp = compilers[0]
    assert comp.generated <= 100
    assert comp.fors and not any(_generated(run) for run in _runs(comp))  # (remembered as None)


SHAPES = {
    "break-continue": "s=0; for ((i=0; i<900; i++)); do (( i % 5 )) || continue; (( s += i )); (( i == 800 )) && break; done; echo $s $i $?",
    "break-2": "for ((j=0; j<3; j++)); do for ((k=0; k<900; k++)); do (( k == 600 && j == 1 )) && continue 2; (( k == 700 )) && break 2; done; done; echo $j $k",
    "return-in-body": "f() { for ((i=0; i<900; i++)); do (( i == 640 )) && return 7; done; }; f; echo $? $i",
    "cond-error": "for ((i=0; i < 900 + 1/(650-i); i++)); do :; done; echo $? $i",
    "step-error": "for ((i=0; i<900; i += 1 + 0/(650-i))); do :; done; echo $? $i",
    "readonly-step": "for ((i=0; i<900; i++)); do (( i == 620 )) && readonly i; done; echo $? $i",
    "errexit": "set -e; for ((i=0; i<900; i++)); do (( i - 630 )); done; echo unreached",
    "nounset": "set -u; for ((i=0; i < (i > 640 ? nope : 900); i++)); do :; done; echo unreached",
    "xtrace-late": "for ((i=0; i<700; i++)); do (( i == 697 )) && set -x; done; set +x",
    "debug-trap-late": "for ((i=0; i<700; i++)); do (( i == 697 )) && trap 'echo D $BASH_COMMAND' DEBUG; done; trap - DEBUG",
    "status-at-end": "for n in 256 300 320 384 449; do for ((i=0; i<n; i++)); do (( i & 1 )); done; echo $n $?; done",
    "loop-var-unset": "for ((i=0; i<900; i++)); do (( i == 650 && !u++ )) && unset i; done; echo $i $u",
    "loop-var-array": "for ((i=0; i<900; i++)); do (( i == 650 )) && i[1]=5; done; echo ${i[*]}",
    "local-shadow": "i=5; f() { local i; for ((i=0; i<700; i++)); do :; done; echo $i; }; f; echo $i",
}


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize("name", SHAPES, ids=list(SHAPES))
def test_shapes_around_the_hand_over_are_the_walkers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    script = SHAPES[name]
    assert _run(script, False, monkeypatch) == _run(script, True, monkeypatch)
