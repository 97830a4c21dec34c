"""Hot function bodies generated as one Python function (interp/funcgen.py; issue 23,
pf-funcgen19): when a body is generated, that the result is the closures' result, that the tier
can be switched off alone, that its budget and size caps hold, and that two shells never share
a generated body (its namespace holds one shell's state), that the inline statements and the
closures are made from one step (steps.py) and agree with bash generated, as closures and walked
(tests/spec/cases/pf_funcgen19_bodies.txt, pf_funcgen20_steps.txt), and that the limits end a
generated body."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash, ExecutionLimitError, Limits, textcache
from sandbash.expand import arith
from sandbash.interp import compiler, funcgen, steps
from sandbash.interp import evaluator as evaluator_module

# (600 calls: past the wait of a body for its `$(( ))` texts to be generated, compiler._COLD_WAIT)
SCRIPT = """
f() { local v=$1; r=$(( v * 3 )); s="$2$v"; local w; w=$s; }
for ((i = 0; i < 600; i++)); do f "$i" x; done
echo "$r $s $_ $?"
"""


@pytest.fixture
def generating(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling and generating on, whatever SANDBASH_TREE_WALKER or SANDBASH_NO_FUNCGEN say."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)


def _generated(comp: compiler.Compiler) -> list[object]:
    """The bodies of `comp` that are generated functions (not closures)."""
    return [code for _, code in comp.bodies.values() if code.__code__.co_filename == "<funcgen>"]


@pytest.mark.usefixtures("generating")
def test_a_hot_body_is_generated_once(compilers: list[compiler.Compiler]) -> None:
    out = Bash().exec(SCRIPT).stdout
    assert out == "1797 x599 x 0\n"
    assert len(_generated(compilers[0])) == 1
    assert compilers[0].generated > 0


@pytest.mark.usefixtures("generating")
def test_a_body_called_fewer_times_stays_closures(compilers: list[compiler.Compiler]) -> None:
    calls = funcgen.BODY_HOT - 1
    Bash().exec(f"f() {{ local v=$1; w=$v; }}; for ((i = 0; i < {calls}; i++)); do f $i; done")
    assert _generated(compilers[0]) == []


@pytest.mark.usefixtures("generating")
def test_the_switch_turns_the_tier_off_alone(
    compilers: list[compiler.Compiler], monkeypatch: pytest.MonkeyPatch
) -> None:
    generated = Bash().exec(SCRIPT).stdout
    monkeypatch.setattr(compiler, "NO_FUNCGEN", True)
    closures = Bash().exec(SCRIPT).stdout
    assert generated == closures
    assert len(_generated(compilers[0])) == 1
    assert _generated(compilers[-1]) == [] and compilers[-1].codes  # (still compiled)


@pytest.mark.usefixtures("generating")
def test_the_source_budget_caps_generation(
    compilers: list[compiler.Compiler], monkeypatch: pytest.MonkeyPatch
) -> None:
    Bash().exec(SCRIPT)
    size = compilers[0].generated  # (f's source)
    monkeypatch.setattr(funcgen, "GEN_CHARS", size)  # (room for f, then none for g)
    script = SCRIPT + "g() { local a=$1; b=$a; }; for ((i = 0; i < 100; i++)); do g $i; done; echo $b\n"
    out = Bash().exec(script).stdout
    assert out == "1797 x599 x 0\n99\n"
    comp = compilers[-1]
    assert len(_generated(comp)) == 1 and len(comp.bodies) == 2  # (g's: its closures, final)
    assert comp.generated == size


@pytest.mark.usefixtures("generating")
def test_a_long_body_keeps_its_closures(compilers: list[compiler.Compiler]) -> None:
    body = "; ".join(f"a{k}=$1" for k in range(funcgen.MAX_ITEMS + 1))
    out = Bash().exec(
        f"f() {{ {body}; }}; for ((i = 0; i < 100; i++)); do f $i; done; echo $a0 $a{funcgen.MAX_ITEMS}"
    )
    assert out.stdout == "99 99\n"
    assert _generated(compilers[0]) == []


@pytest.mark.usefixtures("generating")
def test_two_shells_never_share_a_generated_body(compilers: list[compiler.Compiler]) -> None:
    first, second = Bash(), Bash()
    assert first.exec(SCRIPT).stdout == second.exec(SCRIPT).stdout
    bodies = [_generated(comp) for comp in compilers]
    made = [b for found in bodies for b in found]
    assert len(made) == 2 and made[0] is not made[1]
    states = {id(body.__globals__["st"]) for body in made}  # type: ignore[attr-defined]
    assert len(states) == 2  # (each holds its own shell's state)


@pytest.mark.usefixtures("generating")
def test_a_second_run_compiles_no_generated_source(
    compilers: list[compiler.Compiler], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The code of generated source is made once per process (textcache.function_of): a second
    shell running the same script makes its own functions (the body; `t=$(( t + r ))`, an
    assignment's arithmetic generated past arith.HOT_CALLS) from the same code and compiles
    nothing; each still holds its own shell."""
    script = SCRIPT.replace("600", str(arith.HOT_CALLS + 10)).replace("x; done", "x; t=$(( t + r )); done")
    want = Bash().exec(script).stdout  # (fills the cache, whatever ran before)
    # (a second time: the first run's loop, its call written in, was generated while the
    # assignment's text was not yet, and so with the steps that hand back once it is: RENEW)
    assert Bash().exec(script).stdout == want
    compiled: list[str] = []

    def counting(source: str, namespace: dict[str, object]) -> None:
        compiled.append(source)
        exec(source, namespace)

    monkeypatch.setattr(textcache, "exec", counting, raising=False)
    start = len(compilers)
    first, second = Bash(), Bash()
    assert first.exec(script).stdout == second.exec(script).stdout == want
    assert compiled == []
    made = [b for comp in compilers[start:] for b in _generated(comp)]
    assert len(made) == 2 and made[0] is not made[1]
    # (the same code, a copy each: CPython specializes a code for the globals it runs with)
    assert made[0].__code__ == made[1].__code__ and made[0].__code__ is not made[1].__code__  # type: ignore[attr-defined]
    assert made[0].__globals__["st"] is not made[1].__globals__["st"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("filename", ["<arith>", "<steps>"])
def test_a_generated_function_is_fresh_over_its_namespace(filename: str) -> None:
    """function_of: the function the source defines, named by its generator in its code (and the
    code of the functions it defines), bound in and reading the namespace given; the same source
    gives a new function each time, of a copy of the same code (one code over two live namespaces
    would lose CPython's specialization at every call)."""
    source = f"def make(k):\n    def inner():\n        return (k, VALUE, {filename!r})\n    return inner\n"
    one: dict[str, object] = {"VALUE": 1}
    two: dict[str, object] = {"VALUE": 2}
    first = textcache.function_of(source, filename, "make", one)
    second = textcache.function_of(source, filename, "make", two)
    assert first is not second and first.__code__ == second.__code__ and first.__code__ is not second.__code__
    assert one["make"] is first and two["make"] is second
    assert first("a")() == ("a", 1, filename) and second("b")() == ("b", 2, filename)
    assert first.__code__.co_filename == first("a").__code__.co_filename == filename


@pytest.mark.usefixtures("generating")
def test_a_generated_local_takes_the_slow_exit_under_set_x() -> None:
    script = "f() { local v=$1; w=$v; }; for ((i = 0; i < 100; i++)); do f $i; done; set -x; f 7 2>&1; set +x"
    result = Bash().exec(script)
    assert result.stdout == "+ local v=7\n+ w=7\n" and result.stderr == "+ f 7\n+ set +x\n"


# ------------------------------------------------------------ `if` and `(( ))` written in

NESTED = """
f() {
  if (( $1 % 2 )); then
    if (( $1 % 3 )); then
      if [ $(( $1 % 5 )) = 0 ]; then
        if (( $1 % 7 )); then
          if [[ $1 == *5 ]]; then
            if (( $1 > 100 )); then deep=$1; return 4; fi
          fi
        fi
      fi
    fi
  elif [ $1 = 8 ]; then r=eight; else r=even; fi
  (( n++ ))
}
for ((i = 0; i < 700; i++)); do f $i; s+=$?; done
echo "$deep $r $n ${#s} ${s//0/}"
"""


@pytest.mark.parametrize("depth", [1, 2, 4, 9])
@pytest.mark.parametrize("items", [3, 8, funcgen.MAX_ITEMS])
def test_nested_ifs_past_the_depth_and_size_caps_agree(
    depth: int, items: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ifs nested deeper than _IF_DEPTH, or holding more than MAX_ITEMS commands, keep their
    closures there: the result is the walker's, whatever is written in."""
    monkeypatch.setattr(funcgen, "_IF_DEPTH", depth)
    monkeypatch.setattr(funcgen, "MAX_ITEMS", items)
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    generated = Bash().exec(NESTED)
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", True)
    walked = Bash().exec(NESTED)
    assert generated.stdout == walked.stdout == f"695 even 666 700 1{'4' * 34}\n"  # (bash's)
    assert generated.exit_code == walked.exit_code == 0


@pytest.mark.usefixtures("generating")
def test_an_if_chain_and_its_arith_are_written_in(compilers: list[compiler.Compiler]) -> None:
    script = (
        "f() { local r=$(( $1 % 3 )); if [ $r = 0 ]; then (( a++ )); elif (( r == 1 )); then (( b++ ));"
        " else c=$r; fi; }\nfor ((i = 0; i < 700; i++)); do f $i; done; echo $a $b $c"
    )
    assert Bash().exec(script).stdout == "234 233 2\n"
    (body,) = _generated(compilers[0])
    names = body.__code__.co_names  # type: ignore[attr-defined]
    assert "errexit_ignored" in names and "arith_cmd" in names  # (the if and the (( )) inline)
    assert "disabled_builtins" in names and "isalnum" in names  # (the `[ $r = 0 ]` inline)
    called = [v for v in body.__globals__.values() if getattr(v, "__name__", "") == "if_cmd"]  # type: ignore[attr-defined]
    assert not called


# ---------------------------------------------------------------- one description (steps.py)

SPEC = Path(__file__).resolve().parents[2] / "spec"
TABLES = (
    "pf_funcgen19_bodies",
    "pf_funcgen20_steps",
    "pf_func29_bodies",
    "pf_call30_sites",
    "pf_gen31_case",
    "pf_kw31_local_reasons",
)


def _cases() -> list[Any]:
    sys.path.insert(0, str(SPEC))
    from spec_loader import parse

    return [case for table in TABLES for case in parse(SPEC / "cases" / f"{table}.txt").cases]


def _way(monkeypatch: pytest.MonkeyPatch, way: str) -> None:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", way == "walked")
    monkeypatch.setattr(compiler, "NO_FUNCGEN", way != "generated")


@pytest.mark.parametrize("way", ["generated", "closures", "walked"])
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.id)
def test_the_steps_tables_agree_every_way(case: Any, way: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The funcgen tables, recorded from bash, run here generated (the steps' text written out,
    with the common cases of declare_local and store_plain inline), as closures (the same text,
    calling those methods) and walked (the builtin's general way), whatever the environment's
    switches say: each gives bash's output."""
    from spec_loader import run_sandbash

    _way(monkeypatch, way)
    got = run_sandbash(case)
    assert (got.stdout, got.status) == (case.stdout, case.status), got.stderr


@pytest.mark.usefixtures("generating")
def test_a_generated_statement_is_its_closures_text(compilers: list[compiler.Compiler]) -> None:
    """Every inline statement of a generated body stands for a closure compiled from the same
    step (steps.make_step: one text for both)."""
    Bash().exec(SCRIPT + "g() { local a=$1 b; b=$a; c+=$a; }; for ((i = 0; i < 70; i++)); do g $i; done\n")
    comp = compilers[0]
    assert len(_generated(comp)) == 2
    kinds = set()
    for code, (key, _values) in comp.shapes.items():
        assert code.__code__.co_filename == "<steps>"  # type: ignore[attr-defined]
        assert code.__name__ == steps.make_step(key).name == steps.make_step(key, inline=True).name  # type: ignore[attr-defined]
        kinds.add(key[0])
    assert kinds == {"local", "locals", "scalar", "arith", "call"}


@pytest.mark.parametrize("generated", [True, False])
def test_a_change_to_a_step_changes_both(generated: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step changed in steps.py (here: its $LINENO moved by 1000) is changed for the closures and
    for the generated bodies alike: there is no second copy to forget."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    monkeypatch.setattr(compiler, "NO_FUNCGEN", not generated)
    script = (
        "f() {\nlocal v=$LINENO\nu=$v\nw=$LINENO$1\n}\nfor ((i = 0; i < 70; i++)); do f $i; done; echo $u $w"
    )
    assert Bash().exec(script).stdout == "2 469\n"
    monkeypatch.setattr(steps, "_MAKERS", {})  # (the factories made from the text before)
    monkeypatch.setattr(steps, "START", steps.START.replace("st.line = {line}", "st.line = {line} + 1000"))
    assert Bash().exec(script).stdout == "1002 100469\n"


# ---------------------------------------------------------------- limits inside a generated body


@pytest.mark.usefixtures("generating")
def test_max_command_count_ends_a_generated_body_between_its_statements(
    compilers: list[compiler.Compiler],
) -> None:
    """The command budget is charged at every statement of a generated body (its runtime read once
    a call): some count ends the run inside the body, after a and before d were assigned."""
    script = "f() { local v=$1; a=$v; b=$v; c=$v; d=$v; }; for ((i = 0; ; i++)); do f $i; done"
    partial = []
    for count in range(2000, 2008):
        session = Bash(limits=Limits(max_command_count=count)).session()
        with pytest.raises(ExecutionLimitError) as e:
            session.exec(script)
        assert e.value.limit == "max_command_count"
        partial.append(session.exec("echo $a $d").stdout.split())
    assert any(a != d for a, d in partial), partial  # (a run that ended between the two)
    assert _generated(compilers[0])


@pytest.mark.usefixtures("generating")
def test_the_deadline_ends_a_hot_generated_body(compilers: list[compiler.Compiler]) -> None:
    """A function whose body is generated, called forever, ends on the run's deadline."""
    script = "f() { local v=$1; a=$v; b=$a; }; while :; do f 1; done"
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits=Limits(timeout=0.5)).exec(script)
    assert e.value.limit == "timeout"
    assert _generated(compilers[0])


@pytest.mark.parametrize("header", ["def make(k=1):", "def make(*, k=1):"])
def test_a_generated_function_with_defaults_is_refused(header: str) -> None:
    """function_of keeps only a function's code: a generated def with default values would lose
    them without a word, so it is refused where it is made."""
    with pytest.raises(ValueError, match="defaults"):
        textcache.function_of(f"{header}\n    return k\n", "<steps>", "make", {})
