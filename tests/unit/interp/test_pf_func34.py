"""Assignments whose value is one `$(( ))`, and `case $(( )) in`, written into generated function
bodies and loops (issue 23, pf-func34: steps.VALUE_ARITH, loopgen.Writer.value, casegen._read).

These tests pin that once a body or loop is generated with its texts hot, such a value is
evaluated in place (its value function, or its text's generated assignment function, no longer
runs), that the source spells no script text, that a nested evaluation (the shared evaluator in
use) takes the value's function, and that limits, the policy and what the written-in store does
not cover give the walker's result. The shapes against bash 5.2: tests/spec/cases/pf-func34.txt
(run compiled and with SANDBASH_TREE_WALKER=1)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sandbash import Bash, ExecutionLimitError, Policy
from sandbash.expand import arith, arithwords
from sandbash.interp import arithfor, compiler, funcgen, loopgen, shell, steps
from sandbash.syntax import ast as A
from sandbash.textcache import TextCache

from .walking import LATE_CHANGES, run_walked, walking


@pytest.fixture
def value_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times an assignment's value function, a `case` subject's string function or an
    `x=$(( text ))`'s generated assignment function runs while the test runs."""
    runs = [0]

    def counting(make: Callable[..., Callable[..., object] | None]) -> Callable[..., object]:
        def spy(*args: object) -> Callable[..., object] | None:
            fn = make(*args)
            if fn is None or (isinstance(args[-1], A.Word) and steps.one_arith(args[-1]) is None):
                return fn  # (a value that is not one `$(( ))`)

            def counted(*inner: object) -> object:
                runs[0] += 1
                return fn(*inner)

            return counted

        return spy

    monkeypatch.setattr(compiler, "value_fn", counting(compiler.value_fn))
    monkeypatch.setattr(compiler.Compiler, "_string_fn", counting(compiler.Compiler._string_fn))
    monkeypatch.setattr(shell, "assign_generated", counting(shell.assign_generated))
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)
    return runs


SHAPES = {
    # (3000 calls or steps; each value runs once a call or step)
    "body-template": "f() { t=x$1; n=$(( n + ${#t} )); }; for ((i = 0; i < 3000; i++)); do f $i; done; echo $n",
    "body-positional": "f() { local r=$(( $1 % 7 )); s=$(( s + r )); }; for ((i = 0; i < 3000; i++)); do f $i; done; echo $s",
    "body-literal": "f() { local v=$1; w=$(( v * 2 + 1 )); }; for ((i = 0; i < 3000; i++)); do f $i; done; echo $w",
    "body-locals": 'f() { local a=$(( $1 + 1 )) b="$(( $1 * 2 ))"; c=$b; }; for ((i = 0; i < 3000; i++)); do f $i; done; echo $c',
    "body-case": "f() { case $(( $1 % 3 )) in 0) z=$1 ;; esac; w=$1; }; for ((i = 0; i < 3000; i++)); do f $i; done; echo $z",
    "while": "i=0; while (( i < 3000 )); do x=$(( i * 3 )); y+=$(( i % 2 )); (( i++ )); done; echo $x ${#y}",
    "arith-for": 'for ((i = 0; i < 3000; i++)); do x="$(( i + ${#y} ))"; y=$i; done; echo $x',
    "case-while": "i=0; while (( i < 3000 )); do case $(( i % 4 )) in 3) c=$i ;; esac; (( i++ )); done; echo $c",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_hot_value_is_written_in(shape: str, value_runs: list[int]) -> None:
    """Once the body (or the loop) is generated with its texts hot, the values are evaluated in
    place: their functions run only before that, a small part of the 3000 steps; the result is
    the walker's."""
    script = SHAPES[shape]
    with walking(False):
        got = Bash().exec(script)
    assert (got.stdout, got.stderr, got.exit_code) == run_walked(script, True)
    assert got.stdout.strip() and got.exit_code == 0
    assert value_runs[0] < 1300


# the loops' own texts, made hot by an earlier run of the process (a server's sessions share them)
WARM = "i=0; while (( i < 3000 )); do (( i++ )); done; for ((i = 0; i < 3000; i++)); do :; done"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_value_is_written_in_when_the_loop_was_hot_first(
    shape: str, value_runs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loop whose `(( ))` texts were generated before it ran is generated at once, its values'
    texts still cold: it waits for them (renewal) and writes them in once they are hot. It
    wrote them in never, found by a CI run where another test had run `while (( i < 3000 ))`."""
    arith._COMPILED.clear()  # (the values' texts and templates cold: earlier tests ran them)
    monkeypatch.setattr(arithwords, "_ARITH_TEMPLATES", TextCache())
    with walking(False):
        Bash().exec(WARM)
        got = Bash().exec(SHAPES[shape])
    assert (got.stdout, got.stderr, got.exit_code) == run_walked(SHAPES[shape], True)
    assert value_runs[0] < 1300


def test_the_source_spells_no_script_text(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def capture(module: object) -> None:
        original = module.function_of  # type: ignore[attr-defined]

        def spy(source: str, filename: str, name: str, namespace: dict[str, object]) -> object:
            made.append(source)
            return original(source, filename, name, namespace)

        monkeypatch.setattr(module, "function_of", spy)

    for module in (funcgen, loopgen, arithfor):
        capture(module)
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)
    script = (
        "f() { local import_os=$(( $1 % 7 )); evil_name=$(( evil_name + import_os + ${#__import__} )); }\n"
        "__import__=system evil_name=0\n"
        "for ((k = 0; k < 2000; k++)); do f $k; case $(( k + 31337 )) in 33336) q=$k ;; esac; done\n"
        "echo $evil_name $q"
    )
    with walking(False):
        assert Bash().exec(script).stdout == "17995 1999\n"
    written = [source for source in made if "_sr = " in source]
    assert written  # (the values were written in)
    for source in written:
        for text in ("import_os", "evil_name", "__import__", "31337", "% 7"):
            assert text not in source


def test_a_nested_evaluation_takes_the_value_functions(value_runs: list[int]) -> None:
    """With the shared evaluator in use (a nested evaluation), a written-in value is its
    function's, as the closure would evaluate it."""
    with walking(False):
        session = Bash().session()
        script = (
            "f() { local r=$(( $1 % 5 )); y=$(( r + ${#1} )); }; for ((k = 0; k < 2000; k++)); do f $k; done"
        )
        session.exec(script)
        before = value_runs[0]
        session.exec("f 0")
        assert value_runs[0] == before  # (written in)
        arith = session.shell._arith
        arith.depth = 1
        try:
            out = session.exec("f 123; echo $y").stdout
        finally:
            arith.depth = 0
        assert out == "6\n"
        assert value_runs[0] == before + 2


@pytest.mark.parametrize("walker", [False, True])
def test_limits_end_a_written_in_value_as_walked(walker: bool) -> None:
    """A number's text past max_string_length, and the loop's own limits, end the run as walked."""
    script = "f() { x=$(( $1 * 1000 )); }; for ((k = 0; k < 3000; k++)); do f $k; done; echo after"
    with walking(walker):
        with pytest.raises(ExecutionLimitError) as e:
            Bash().exec(script, limits={"max_string_length": 6})
        assert e.value.limit == "max_string_length"
        assert "after" not in e.value.result.stdout
        loop = "i=0; while (( 1 )); do x=$(( i * 2 )); case $(( i % 3 )) in 1) y=$(( x + i )) ;; esac; (( i++ )); done"
        with pytest.raises(ExecutionLimitError) as e:
            Bash().exec(loop, limits={"max_loop_iterations": 2500})
        assert e.value.limit == "max_loop_iterations"
        limits = {
            "timeout": 0.3,
            "max_loop_iterations": 10**12,
            "max_command_count": 10**12,
            "max_work": 10**15,
        }
        with pytest.raises(ExecutionLimitError) as e:
            Bash().exec(loop, limits=limits)
        assert e.value.limit == "timeout"


def test_a_policy_sees_every_command_beside_written_in_values() -> None:
    """A denied command beside written-in values is refused at each call, as walked."""
    script = (
        "f() { local r=$(( $1 % 3 )); rm x$r; s=$(( s + $? )); }\n"
        "for ((k = 0; k < 1500; k++)); do f $k; done; echo $s"
    )
    got = {}
    for walker in (False, True):
        with walking(walker):
            r = Bash(policy=Policy(deny=["rm"])).exec(script)
        got[walker] = (r.stdout, r.stderr.count("policy denied"), r.exit_code)
    assert got[False] == got[True] == (f"{1500 * 126}\n", 1500, 0)


@pytest.mark.parametrize(
    "late",
    [
        *LATE_CHANGES,
        "declare -n n=z",
        "set -u; unset n",
        "n='i * 2'",
        "n=08",
    ],
)
@pytest.mark.parametrize("value", ["$(( i + n ))", '"$(( ${#n} * 2 ))"', "$(( i % 7 ))"])
def test_a_value_meeting_an_attribute_late_is_as_walked(late: str, value: str) -> None:
    """What the written-in evaluation and store do not cover, turned on in the middle of the
    loop: the general way, as walked."""
    script = (
        "exec 2>&1\nf() {\nn=3\nfor ((i = 0; i < 1400; i++)); do\n"
        f'  (( i == 1350 )) && {{ {late}; }}\n  x={value}\n  (( i > 1395 )) && echo "$x $z"\ndone\n}}\nf; echo $? "$x"'
    )
    got = run_walked(script, False)
    assert got == run_walked(script, True)
    assert got[0]
