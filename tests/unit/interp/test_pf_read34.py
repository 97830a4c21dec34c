"""`while read` loops (and any `while`/`until` loop with no `(( ))` text) handed to one generated
function once they have run loopgen.PLAIN_STEPS steps (issue 23, pf-read34): which loops are
handed over, that the results are the walker's (input shapes, sources, control, traps), that the
run's limits and the policy end or refuse what they did before; the same loops against bash are
tests/spec/cases/pf-read34.txt."""

from __future__ import annotations

import threading

import pytest

from sandbash import Bash, CancelToken, ExecutionCancelled, ExecutionLimitError, Policy
from sandbash.interp import compiler, loopgen
from sandbash.interp import evaluator as evaluator_module

from .walking import compiled_and_walked

LINES = "".join(f"user{i},item{i % 7},{i % 5}\n" for i in range(2500))
FILES = {"/d/f.csv": LINES, "/d/nonl.txt": LINES + "last,x,9", "/d/bs.txt": LINES.replace(",", "\\,")}


@pytest.fixture
def compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling on, whatever SANDBASH_TREE_WALKER says."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)


def _generated(comp: compiler.Compiler) -> list[bool]:
    return [
        getattr(getattr(run, "__code__", None), "co_filename", "") == loopgen.FILE
        for _, run in comp.whiles.values()
    ]


def _both(script: str, **kw: object) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    """The script's (stdout, stderr, status) over FILES compiled, then walked."""
    return compiled_and_walked(script, files=FILES, **kw)


# the agent loops' bodies (benchmarks/workloads) and rewrites of them, each with something written in
HANDED = [
    'c=0; while read -r line; do u=${line%%,*}; u=${u#user}; [ "$u" -gt 150 ] && c=$((c+1)); done < /d/f.csv; echo $c',
    "c=0; while IFS=, read -r u _; do u=${u#user}; [[ $u -gt 150 ]] && c=$((c+1)); done < /d/f.csv; echo $c",
    "c=0; while IFS=, read -r a b q; do case $b in item5) c=$((c+q));; esac; done < /d/f.csv; echo $c",
    'c=0; while read -r l; do if [[ $l == *item3,* ]]; then c=$((c+1)); fi; done < /d/f.csv; echo "$c $l"',
    'while read l; do x=$l; done < /d/bs.txt; echo "$x"',
    'while read -r l; do x=$l; done < /d/nonl.txt; echo "$x $?"',
    'until ! IFS=, read -r -a f; do x=${f[1]}; done < /d/f.csv; echo "$x ${#f[@]}"',
    'while read -r -d , v; do x=$v; done < /d/f.csv; echo "$x"',
    'while read -r l; do x=$l; done <<< "$(cat /d/f.csv)"; echo "$x"',
    'cat /d/f.csv | { while read -r l; do x=$l; done; echo "$x"; }',
    'while read -r l; do x=$l; done < <(cat /d/f.csv); echo "$x"',
]


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize("script", HANDED)
def test_a_long_while_read_loop_is_handed_over(script: str, compilers: list[compiler.Compiler]) -> None:
    compiled, walked = _both(script)
    assert compiled == walked
    # (the compiled run's shells: its own and a pipeline's or a substitution's)
    assert any(True in _generated(comp) for comp in compilers)


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize(
    "script",
    [
        # too short: its closures run
        "head -n 1500 /d/f.csv > /s; while read -r l; do x=$l; done < /s; echo $x",
        # nothing to write in: the condition and the body called
        "while read -r l; do echo $l; done < /d/f.csv > /dev/null",
    ],
)
def test_loops_that_keep_their_closures(script: str, compilers: list[compiler.Compiler]) -> None:
    Bash(files=FILES).exec(script)
    assert not any(any(_generated(comp)) for comp in compilers)


@pytest.mark.parametrize(
    "script",
    [
        # break, continue, `break 2`, return, a status
        "while read -r v; do x=$v; [ ${v%%,*} = user2200 ] && break; done < /d/f.csv; echo $x $?",
        "for o in 1 2; do while read -r v; do x=$v; [ ${v%%,*} = user2200 ] && continue 2; done < /d/f.csv; done; echo $x",
        "f() { while read -r v; do x=$v; [ ${v%%,*} = user2100 ] && return 3; done < /d/f.csv; }; f; echo $? $x",
        "while read -r v; do x=$v; false; done < /d/f.csv; echo $?",
        # set -e, an ERR and a DEBUG trap set from inside the loop, LINENO
        "set -e; while read -r v; do x=$v; [ ${v%%,*} != user999 ]; done < /d/f.csv; echo no",
        "n=0; while read -r v; do x=$v\n [ ${v%%,*} = user2100 ] && trap 'n=$((n+1))' ERR\n [ ${v: -1} != 3 ]\n l=$LINENO\ndone < /d/f.csv; echo $n $l",
        "d=0; while read -r v; do x=$v; [ ${v%%,*} = user2400 ] && trap 'd=$((d+1))' DEBUG; done < /d/f.csv; trap - DEBUG; echo $d",
        "while read -r v; do x=$v; [ ${v%%,*} = user2300 ] && set -x; done < /d/f.csv 2>&1 | tail -n 2",
        # a variable made readonly, a nameref, an integer in the middle of the loop
        "while read -r v; do x=$v; [ ${v%%,*} = user2100 ] && readonly x; done < /d/f.csv; echo $? $x",
        "declare -n r=y; while read -r v; do r=${v%%,*}; [ $r = user2100 ] && declare -i y; done < /d/f.csv; echo $y",
    ],
)
def test_results_are_the_walkers(script: str) -> None:
    compiled, walked = _both(script)
    assert compiled == walked


def test_a_policy_refuses_a_command_at_every_step() -> None:
    script = "while read -r l; do x=${l%%,*}; rm /d/$x; s=$?; done < /d/f.csv; echo $s $x"
    compiled, walked = _both(script, policy=Policy(deny=["rm"]))
    assert compiled == walked
    out, err, status = compiled  # type: ignore[misc]
    assert (out, err.count("policy denied"), status) == ("126 user2499\n", 2500, 0)


# endless inputs: a pipe from `yes` and a process substitution of it, a file-like device
ENDLESS = [
    "yes abc | while read -r l; do x=$l; done",
    "while read -r l; do x=${l%c}; done < <(yes abc)",
    "yes 1 | while read -r l; do [ $l = 1 ] && x=$l; done",
]


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize("script", ENDLESS)
def test_the_deadline_ends_a_loop_over_an_endless_pipe(script: str) -> None:
    limits = {"timeout": 0.5, "max_loop_iterations": 10**12, "max_command_count": 10**12, "max_work": 10**15}
    with pytest.raises(ExecutionLimitError) as e:
        Bash().exec(script, limits=limits)
    assert e.value.limit == "timeout"


@pytest.mark.usefixtures("compiling")
@pytest.mark.parametrize("limit", [2100, 2200, 2500])
def test_max_loop_iterations_ends_it_at_the_walkers_step(limit: int, monkeypatch: pytest.MonkeyPatch) -> None:
    script = "while read -r l; do x=$l; done < /d/f.csv; echo $x"
    seen = []
    for walker in (False, True):
        monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
        with pytest.raises(ExecutionLimitError) as e:
            Bash(files=FILES).exec(script + "; echo after", limits={"max_loop_iterations": limit})
        assert e.value.limit == "max_loop_iterations"
        seen.append(e.value.result.stdout if e.value.result is not None else None)
    assert seen[0] == seen[1]


@pytest.mark.usefixtures("compiling")
def test_cancellation_ends_a_loop_over_an_endless_pipe() -> None:
    token = CancelToken()
    timer = threading.Timer(0.3, token.cancel)
    timer.start()
    try:
        with pytest.raises(ExecutionCancelled):
            Bash().exec("yes | while read -r l; do x=$l; done", cancel=token, limits={"timeout": 30})
    finally:
        timer.cancel()
