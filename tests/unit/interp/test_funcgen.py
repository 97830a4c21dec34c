"""Hot function bodies generated as one Python function (interp/funcgen.py; issue 23,
pf-funcgen19): when a body is generated, that the result is the closures' result, that the tier
can be switched off alone, that its budget and size caps hold, and that two shells never share
a generated body (its namespace holds one shell's state). What the generated statements do
against bash is in tests/spec/cases/pf_funcgen19_bodies.txt."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.interp import compiler, funcgen
from sandbash.interp import evaluator as evaluator_module

SCRIPT = """
f() { local v=$1; r=$(( v * 3 )); s="$2$v"; local w; w=$s; }
for ((i = 0; i < 200; i++)); do f "$i" x; done
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
    assert out == "597 x199 x 0\n"
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
    assert out == "597 x199 x 0\n99\n"
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
def test_a_generated_local_takes_the_slow_exit_under_set_x() -> None:
    script = "f() { local v=$1; w=$v; }; for ((i = 0; i < 100; i++)); do f $i; done; set -x; f 7 2>&1; set +x"
    result = Bash().exec(script)
    assert result.stdout == "+ local v=7\n+ w=7\n" and result.stderr == "+ f 7\n+ set +x\n"
