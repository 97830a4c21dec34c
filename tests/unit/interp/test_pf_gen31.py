"""`case`, `if`, `{ }` and `a && b` written into generated loops and function bodies (issue 23,
pf-gen31: interp/casegen.py, loopgen.Writer.compound, funcgen.Body.group).

These tests pin that a hot loop's or body's `case` is written in (its closure no longer runs once
the code is generated), that the source spells no script text, that every pattern shape the
written-in tests decide in place (literal, `*`, the str-method shapes of pattern.glob_shape) gives
the walker's answer for many subjects under each setting of nocasematch and extglob, and that the
limits, the policy and a `return` or `break` in a branch stay as the walker has them. The shapes
against bash 5.2: tests/spec/cases/pf_gen31_case.txt (test_funcgen runs it generated, as closures
and walked)."""

from __future__ import annotations

import pytest

from sandbash import Bash, ExecutionLimitError, Policy
from sandbash.interp import arithfor, casegen, compiler, funcgen, loopgen, steps
from sandbash.syntax import ast as A

from .walking import LATE_CHANGES, run_walked, walking


@pytest.fixture
def case_closures(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a `case` command's closure (Compiler.case_cmd's) runs while the test runs."""
    runs = [0]
    original = compiler.Compiler.case_cmd

    def spy(self: compiler.Compiler, node: A.Case) -> compiler.Code:
        code = original(self, node)

        def counted() -> int:
            runs[0] += 1
            return code()

        return counted

    monkeypatch.setattr(compiler.Compiler, "case_cmd", spy)
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)
    return runs


SHAPES = {
    "while": "i=0; while (( i < 3000 )); do case $(( i % 3 )) in 0) (( a++ )) ;; 1) b=$i ;; *) ;; esac; (( i++ )); done; echo $a $b",
    "arith-for": "for ((i = 0; i < 3000; i++)); do case $i in *7) (( a++ )) ;; 1*) b=$i ;; esac; done; echo $a $b",
    "body": "f() { local v=$1; case $v in *[05]) (( a++ )) ;; *) b=$v ;; esac; }; for ((i = 0; i < 3000; i++)); do f $i; done; echo $a $b",
    "nested": "for ((i = 0; i < 3000; i++)); do case $(( i % 2 )) in 0) case $i in *00) (( a++ )) ;; esac ;; *) { b=$i; } ;; esac; done; echo $a $b",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_hot_case_is_written_in(shape: str, case_closures: list[int]) -> None:
    """Once the loop (or the body) is generated, its `case` runs in place: its closure runs only
    before that, a small part of the 3000 steps; the result is the walker's."""
    script = SHAPES[shape]
    with walking(False):
        got = Bash().exec(script)
    assert (got.stdout, got.stderr, got.exit_code) == run_walked(script, True)
    assert got.stdout.strip() and got.exit_code == 0
    assert case_closures[0] < 1100


def test_the_source_spells_no_script_text(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    original = loopgen.function_of

    def spy(source: str, filename: str, name: str, namespace: dict[str, object]) -> object:
        made.append(source)
        return original(source, filename, name, namespace)

    monkeypatch.setattr(loopgen, "function_of", spy)
    monkeypatch.setattr(arithfor, "function_of", spy)
    script = (
        "evil_name=0\nfor ((k = 0; k < 2000; k++)); do\n"
        "  case import_os$k in import_os1*) evil_name=os_system ;; *__import__*) ;; 'q\"uote'*) ;; esac\ndone\n"
        "echo $evil_name"
    )
    with walking(False):
        assert Bash().exec(script).stdout == "os_system\n"
    (source,) = made
    assert "compound_line" in source  # (the case written in)
    for text in ("import_os", "evil_name", "os_system", "__import__", "uote"):
        assert text not in source


SUBJECTS = [
    "",
    "a",
    "abc",
    "ABC",
    "abcba",
    "aba",
    "ab*ba",
    "x.y",
    "*",
    "a*",
    "é",
    "Ébc",
    "a\nb",
    "b",
    "cab",
    "aXc",
]
PATTERNS = [
    "abc",
    "a*",
    "*c",
    "*b*",
    "a*c",
    "ab*ba",
    "**",
    "*",
    "\\*",
    "a\\*",
    "[ab]*",
    "?bc",
    "'a'*",
    '"*"',
    "$p",
    "a|b",
    "*.*",
    "é*",
    "É*",
    "a*|*c",
    "*[!a-z]*",
    "@(a|b)",
    "!(abc)",
]


@pytest.mark.parametrize(
    "settings", ["", "shopt -s nocasematch", "shopt -s extglob", "shopt -s nocasematch extglob"]
)
def test_every_pattern_shape_agrees_with_the_walker(settings: str) -> None:
    """Each pattern tested on each subject in a generated loop (the subject changes each step),
    with the settings turned on before the loop and again in its middle: the written-in tests give
    the walker's answers."""
    cases = "\n".join(f"  case $w in {pat}) h+=1 ;; *) h+=0 ;; esac" for pat in PATTERNS)
    subjects = " ".join(
        "$'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'" for s in SUBJECTS
    )
    script = (
        f"shopt -s extglob\np='a*'\nsubjects=({subjects})\n{settings}\n"
        f"for ((i = 0; i < {len(SUBJECTS) * 40}; i++)); do\n"
        f"  (( i == {len(SUBJECTS) * 20} )) && shopt -u nocasematch\n"
        f"  (( i == {len(SUBJECTS) * 30} )) && {settings or ':'}\n"
        f"  w=${{subjects[i % {len(SUBJECTS)}]}}\n  h=\n{cases}\n"
        '  (( i % 37 == 0 )) && echo "$i $h"\ndone\necho "$h"'
    )
    got = run_walked(script, False)
    assert got == run_walked(script, True)
    assert got[2] == 0 and len(got[0].splitlines()) > 10


def test_the_fast_tests_are_the_plain_shapes() -> None:
    """Which patterns are decided in place (an expression) and which call their test."""
    names: list[object] = []

    def const(value: object) -> str:
        names.append(value)
        return f"c{len(names) - 1}"

    def word(text: str) -> A.Word:
        from sandbash.syntax.parser import parse

        (item,) = parse(f"case x in {text}) ;; esac").items  # type: ignore[attr-defined]
        return item.cmd.items[0].patterns[0]  # type: ignore[no-any-return]

    assert casegen.fast_test(word("*"), "w", const) == "True"
    assert casegen.fast_test(word("**"), "w", const) == "True"
    assert casegen.fast_test(word("abc"), "w", const) == "w == c0"
    assert casegen.fast_test(word("a*"), "w", const) == "w.startswith(c1)"
    assert casegen.fast_test(word("*c"), "w", const) == "w.endswith(c2)"
    assert casegen.fast_test(word("*b*"), "w", const) == "c3 in w"
    assert (
        casegen.fast_test(word("ab*ba"), "w", const)
        == "(len(w) >= 4 and w.startswith(c4) and w.endswith(c5))"
    )
    assert casegen.fast_test(word("a[b]c"), "w", const) == "w == c6"  # (one character: glob_test's literal)
    assert names == ["abc", "a", "c", "b", "ab", "ba", "abc"]
    # (quoted or escaped text, brackets, `?`, expansions, three pieces, extglob: the test itself)
    for called in ("a\\*", "[ab]*", "?bc", "'a'*", "$p", "a*b*c", "a[bc]"):
        assert casegen.fast_test(word(called), "w", const) is None


def test_fall_through_keeps_the_closure(case_closures: list[int]) -> None:
    script = "for ((i = 0; i < 2000; i++)); do case $(( i % 3 )) in 0) r=a ;& 1) r+=b ;;& *) r+=c ;; esac; done; echo $r"
    assert run_walked(script, False) == run_walked(script, True) == ("abcbc\n", "", 0)
    assert case_closures[0] == 2000


@pytest.mark.parametrize("walker", [False, True])
@pytest.mark.parametrize(
    "body",
    [
        "case $i in *) (( n++ )) ;; esac",
        "case $(( i % 2 )) in 0) { n=$i; } ;; *) if [ $i = 3 ]; then n=3; fi ;; esac",
    ],
)
def test_max_loop_iterations_and_the_deadline_end_it_as_walked(walker: bool, body: str) -> None:
    script = f"i=0; while (( 1 )); do (( i++ )); {body}; done; echo after"
    with walking(walker):
        with pytest.raises(ExecutionLimitError) as e:
            Bash().exec(script, limits={"max_loop_iterations": 2500})
        assert e.value.limit == "max_loop_iterations"
        assert "after" not in e.value.result.stdout
        limits = {
            "timeout": 0.3,
            "max_loop_iterations": 10**12,
            "max_command_count": 10**12,
            "max_work": 10**15,
        }
        with pytest.raises(ExecutionLimitError) as e:
            Bash().exec(script, limits=limits)
        assert e.value.limit == "timeout"


def test_a_policy_sees_every_command_of_a_written_in_branch() -> None:
    """A denied command in a written-in branch is refused at each step, as walked."""
    script = "i=0; while (( i < 1500 )); do case $i in *) rm x$i; s=$? ;; esac; (( i++ )); done; echo $s"
    got = {}
    for walker in (False, True):
        with walking(walker):
            r = Bash(policy=Policy(deny=["rm"])).exec(script)
        got[walker] = (r.stdout, r.stderr.count("policy denied"), r.exit_code)
    assert got[False] == got[True] == ("126\n", 1500, 0)


def test_the_nesting_cap_keeps_deep_compounds_as_closures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compounds nested past _IF_DEPTH call their closures there: the result is the walker's."""
    script = (
        "for ((i = 0; i < 1500; i++)); do case $(( i % 2 )) in 0) { if [ $(( i % 4 )) = 0 ]; then"
        " case $i in *00) { (( n++ )); } ;; esac; fi; } ;; esac; done; echo $n"
    )
    for depth in (0, 1, 2, 3, 5):
        monkeypatch.setattr(funcgen, "_IF_DEPTH", depth)
        assert run_walked(script, False) == run_walked(script, True) == ("14\n", "", 0)


@pytest.fixture
def step_closures(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a step's closure (an assignment's, a `local`'s: steps.closure) runs."""
    runs = [0]
    original = steps.closure

    def spy(*args: object) -> compiler.Code:
        code = original(*args)  # type: ignore[arg-type]

        def counted() -> int:
            runs[0] += 1
            return code()

        return counted

    monkeypatch.setattr(steps, "closure", spy)
    return runs


ASSIGNING = {
    "while": "i=0; while (( i < 3000 )); do x=v$i; y=${x%?}; (( i++ )); done; echo $x $y",
    "arith-for": "for ((i = 0; i < 3000; i++)); do x=v$i; y=${x#v}; done; echo $x $y",
    "case": "for ((i = 0; i < 3000; i++)); do case $i in *) x=v$i ;; esac; done; echo $x",
    "function": "f() { local n; for ((i = 0; i < 3000; i++)); do n=$i; done; echo $n; }; f",
}


@pytest.mark.parametrize("shape", sorted(ASSIGNING))
def test_a_loops_assignments_are_written_in(shape: str, step_closures: list[int]) -> None:
    """A generated loop's `NAME=WORD` commands run their step's text in place: their closures run
    only before the loop is generated, a small part of the steps; the result is the walker's."""
    script = ASSIGNING[shape]
    with walking(False):
        got = Bash().exec(script)
    assert (got.stdout, got.stderr, got.exit_code) == run_walked(script, True)
    assert step_closures[0] < 1100


@pytest.mark.parametrize("late", LATE_CHANGES)
def test_an_assignment_meeting_an_attribute_late_is_as_walked(late: str) -> None:
    """What the written-in store's common case does not cover, turned on in the middle of the
    loop: the general way, as walked."""
    script = (
        "exec 2>&1\nf() {\nfor ((i = 0; i < 1400; i++)); do\n"
        f'  (( i == 1350 )) && {{ {late}; }}\n  x=1$i\n  (( i > 1395 )) && echo "$x $z"\ndone\n}}\nf; echo $? "$x"'
    )
    got = run_walked(script, False)
    assert got == run_walked(script, True)
    assert got[0]  # (readonly: the error ends the script, as in bash)


@pytest.mark.parametrize(
    "setup",
    [
        "v=abc",
        "local v=abd",
        "v=(abe x)",
        "local -n v=w; w=abf",
        "local v",
        "declare -i v=7",
        "v=$(printf 'a%.0s' {1..5000})",
        "unset v; set -u",
        "declare -A v=([0]=abg)",
    ],
)
@pytest.mark.parametrize("subject", ["$v", '"$v"', "$LINENO", "${v}"])
def test_a_subject_read_in_place_is_as_walked(setup: str, subject: str) -> None:
    """A `case $name` subject read in place from the innermost scope (casegen._read), for the
    kinds of variable it must leave to the string function: the walker's result."""
    script = (
        "exec 2>&1\nf() {\n"
        f"  {setup}\n"
        "  for ((i = 0; i < 1300; i++)); do\n"
        f"    case {subject} in ab*) r=$i ;; 7) r=seven ;; a*) r=long ;; '') r=empty ;; *) r=other ;; esac\n"
        '  done\n  echo "$r"\n}\nf; echo $?'
    )
    got = run_walked(script, False)
    assert got == run_walked(script, True)
    assert got[0]
