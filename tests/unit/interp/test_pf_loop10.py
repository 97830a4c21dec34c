"""The loops' step guard is a countdown (interp/loops.py LoopFrame: a step counts in a local and
the full check runs at a precomputed step), and globbing compiles a pattern only when a name in
the directory could match it (expand/glob.py). Each limit still ends each kind of loop with its
own kind and message, max_loop_iterations at the same step, compiled and walked; a loop's steps
are charged as work whether it ends normally, by `break` or by an error; a glob sees the files
made between two steps and keeps bash's options."""

from __future__ import annotations

import pytest

import sandbash.interp.evaluator as evaluator_module
from sandbash import Bash, ExecutionLimitError, Limits, Policy

# each loop shape ends only by a limit; its body prints the step it is at
ENDLESS = {
    "while": "i=0; while :; do i=$((i+1)); echo $i; done",
    "while_dparen": "i=0; while (( 1 )); do ((i++)); echo $i; done",
    "until": "i=0; until false; do i=$((i+1)); echo $i; done",
    "for_words": "for w in $(seq 100000); do echo $w; done",
    "for_array": 'a=($(seq 100000)); for x in "${a[@]}"; do echo $x; done',
    "arith_for": "for ((i=1;;i++)); do echo $i; done",
    "while_read": "seq 100000 > f; while read -r line; do echo $line; done < f",
    "in_function": "f() { local i=0; while :; do i=$((i+1)); echo $i; done; }; f",
    "nested": "for o in 1; do i=0; while :; do i=$((i+1)); echo $i; done; done",
}


@pytest.fixture(params=[False, True], ids=["compiled", "walked"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", request.param)
    return bool(request.param)


@pytest.mark.parametrize("shape", ENDLESS)
@pytest.mark.parametrize("limit", [1, 63, 64, 65, 130, 1000])
def test_the_iteration_limit_ends_each_loop_at_its_step(walker: bool, shape: str, limit: int) -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=Limits(max_loop_iterations=limit)).exec(ENDLESS[shape])
    assert e.value.limit == "max_loop_iterations"
    assert str(limit) in str(e.value)
    # (`nested`: the outer loop's one step; every other loop's steps print 1..limit)
    assert e.value.result.stdout.split() == [str(i) for i in range(1, limit + 1)]


@pytest.mark.parametrize("shape", ENDLESS)
def test_the_work_limit_ends_each_loop(walker: bool, shape: str) -> None:
    limits = Limits(max_work=3000, max_loop_iterations=10**9, max_command_count=10**9)
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=limits).exec(ENDLESS[shape])
    assert e.value.limit == "max_work"


@pytest.mark.parametrize("shape", ENDLESS)
def test_the_command_limit_ends_each_loop(walker: bool, shape: str) -> None:
    limits = Limits(max_command_count=2000, max_loop_iterations=10**9, max_work=10**12)
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=limits).exec(ENDLESS[shape])
    assert e.value.limit == "max_command_count"


@pytest.mark.parametrize("shape", ["while", "until", "arith_for", "in_function"])
def test_the_timeout_ends_each_loop(walker: bool, shape: str) -> None:
    limits = Limits(timeout=0.3, max_loop_iterations=10**12, max_work=10**15, max_command_count=10**12)
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=limits).exec(ENDLESS[shape].replace("echo $i", ":"))
    assert e.value.limit == "timeout"


@pytest.mark.parametrize(
    "script",
    [
        "for i in 1 2 3; do :; done",
        "for i in 1 2 3; do break; done",
        "i=0; while ((i < 3)); do ((i++)); done",
        "i=0; until ((i >= 3)); do ((i++)); [ $i = 3 ] && break; done",
        "for ((i=0;i<3;i++)); do :; done",
        "f() { for i in 1 2 3; do return; done; }; f",
        "for i in 1 2 3; do for j in a b; do continue 2; done; done",
    ],
)
def test_short_loops_charge_every_step_as_work(walker: bool, script: str) -> None:
    # many short loops in a row: their steps add up to max_work though none reaches a check
    body = "; ".join([script] * 200)
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=Limits(max_work=150, max_command_count=10**9)).exec(body)
    assert e.value.limit == "max_work"
    r = Bash(limits=Limits(max_work=10**6)).exec(script + "; echo ok")
    assert r.stdout.endswith("ok\n")


def test_a_glob_sees_files_made_between_steps(walker: bool) -> None:
    script = (
        "declare -A seen; for w in a b c; do touch seen$w; echo seen[$w]; done; "
        "for w in a b; do rm seen$w; echo seen[$w]; done"
    )
    r = Bash().exec(script)
    assert r.stdout.split() == ["seena", "seenb", "seenc", "seen[a]", "seen[b]"]
    r = Bash().exec("touch seenb; for w in a b; do echo seen[$w]; touch seen$w; done")
    assert r.stdout.split() == ["seen[a]", "seenb"]


@pytest.mark.parametrize(
    ("setup", "word", "out"),
    [
        ("touch ab AB .ab", "a[b]", "ab"),
        ("touch ab AB .ab; shopt -s nocaseglob", "a[b]", "AB ab"),
        ("touch ab AB .ab; shopt -s nocaseglob", "A[B]", "AB ab"),
        ("touch ab AB .ab", ".a[b]", ".ab"),
        ("touch ab AB .ab; shopt -s dotglob", "*[b]", ".ab ab"),
        ("touch ab AB .ab; shopt -s nullglob", "x[b]", ""),
        ("touch ab AB .ab", "x[b]", "x[b]"),
        ("touch ab abc; shopt -s extglob", "a@(b|bc)", "ab abc"),
        ("touch ab abc; shopt -s extglob", "+(a)b", "ab"),
        ("touch ab abc; shopt -s extglob", "!(x)", "ab abc"),
        ("touch ab abc; GLOBIGNORE=ab", "a[b]*", "abc"),
        ("touch 'a*b' ab", "a\\*[b]", "a*b"),
        ("touch 'a?b' ab", "'a?'[b]", "a?b"),
        ("mkdir d; touch d/ab", "d/a[b]", "d/ab"),
        ("mkdir d; touch d/ab", "d/x[b]", "d/x[b]"),
    ],
)
def test_glob_options_hold_with_a_literal_start(walker: bool, setup: str, word: str, out: str) -> None:
    r = Bash().exec(f"{setup}\nfor w in 1; do echo {word}; done")
    assert r.stdout.strip() == out, r.stderr


def test_failglob_with_a_literal_start() -> None:
    r = Bash().exec("shopt -s failglob; touch ab; echo x[b]; echo after")
    assert "no match: x[b]" in r.stderr
    assert "after" not in r.stdout


def test_a_denied_directory_stays_denied_for_a_pattern_nothing_could_match() -> None:
    policy = Policy(paths=["/data:ro"])
    r = Bash(policy=policy, files={"/data/ab": "x", "/secret/ab": "y"}).exec(
        "echo /secret/x[b] /secret/a[b] /data/x[b] /data/a[b]"
    )
    assert r.stdout.split() == ["/secret/x[b]", "/secret/a[b]", "/data/x[b]", "/data/ab"]
