"""A hot `(( ))` command as one generated function (interp/arithcmd.py; issue 23, pf-arith26):
that a loop body or function body compiled before its texts were hot is compiled again once
they are and then runs the fused function, that a body whose text never gets generated keeps its
closures without being compiled again and again, that the fused functions stay within the bodies'
budget and spell no script text, and that the results are the walker's and the closures' for the
shapes around the switch (statuses, set -e, traps, set -x, errors, namerefs, arrays, nested
evaluation); the same shapes against bash are tests/spec/cases/pf_arith26_hot.txt."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.expand import arith
from sandbash.interp import arithcmd, compiler, funcgen
from sandbash.interp import evaluator as evaluator_module


@pytest.fixture
def compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling and generating on, whatever SANDBASH_TREE_WALKER or SANDBASH_NO_FUNCGEN say."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)


def _fused(code: object) -> bool:
    return getattr(getattr(code, "__code__", None), "co_filename", "") == arithcmd.FILE


def _codes(comp: compiler.Compiler) -> list[object]:
    return [code for _, code in comp.codes.values()]


def _run(script: str, walker: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
    r = Bash().exec(script)
    return r.stdout, r.stderr, r.exit_code


# a text no other test evaluates: the cache is process-wide, so each test's texts are its own
LOOP = "s=0\nfor ((i = 0; i < {n}; i++)); do (( s += i * {k} )); done\necho $s"


@pytest.mark.usefixtures("compiling")
def test_a_loop_body_runs_the_fused_function_once_its_text_is_hot(compilers: list[compiler.Compiler]) -> None:
    out = Bash().exec(LOOP.format(n=600, k=7)).stdout
    assert out == f"{sum(i * 7 for i in range(600))}\n"
    comp = compilers[0]
    assert any(_fused(code) for code in _codes(comp))  # (compiled again: the body is the command)
    assert not comp.stale  # (nothing left to wait for)
    assert comp.generated > 0


@pytest.mark.usefixtures("compiling")
def test_a_short_loop_keeps_its_closures(compilers: list[compiler.Compiler]) -> None:
    Bash().exec(LOOP.format(n=arith.HOT_CALLS - 10, k=11))
    comp = compilers[0]
    assert not any(_fused(code) for code in _codes(comp))
    assert len(comp.stale) == 1  # (the body, waiting for its text)


@pytest.mark.usefixtures("compiling")
def test_a_text_never_generated_is_never_waited_for(
    compilers: list[compiler.Compiler], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past GEN_LONGEST a text keeps its closures: its body is not stale and not compiled again."""
    long_text = " + ".join(["i"] * (arith.GEN_LONGEST // 4 + 1))
    calls = 0
    original = compiler.Compiler.command_list

    def counting(self: compiler.Compiler, node: object) -> object:
        nonlocal calls
        calls += 1
        return original(self, node)  # type: ignore[arg-type]

    monkeypatch.setattr(compiler.Compiler, "command_list", counting)
    out = Bash().exec(f"for ((i = 0; i < 700; i++)); do (( s = {long_text} )); done; echo $s").stdout
    assert out == f"{699 * (arith.GEN_LONGEST // 4 + 1)}\n"
    assert not compilers[0].stale
    assert calls == 1


@pytest.mark.usefixtures("compiling")
def test_a_function_body_waits_for_its_texts_then_writes_them_in(
    compilers: list[compiler.Compiler],
) -> None:
    script = "f() { local v=$1; (( r = v * 13 % 17 )); }\nfor ((j = 0; j < 700; j++)); do f $j; done\necho $r"
    assert Bash().exec(script).stdout == f"{699 * 13 % 17}\n"
    comp = compilers[0]
    bodies = [code for _, code in comp.bodies.values()]
    assert len(bodies) == 1 and bodies[0].__code__.co_filename == "<funcgen>"
    # (the text's statements are the body's own since pf-func29: no fused function is called,
    # the closure kept for the slow way is not fused)
    assert not [v for v in bodies[0].__globals__.values() if _fused(v)]
    assert "arith_cmd" in bodies[0].__code__.co_names


@pytest.mark.usefixtures("compiling")
def test_a_one_command_function_body_waits_too(compilers: list[compiler.Compiler]) -> None:
    script = "g() { (( q = q * 3 % 1000003 + 1 )); }\nq=0\nfor ((j = 0; j < 700; j++)); do g; done\necho $q"
    q = 0
    for _ in range(700):
        q = q * 3 % 1000003 + 1
    assert Bash().exec(script).stdout == f"{q}\n"
    assert any(_fused(code) for code in _codes(compilers[0]))


@pytest.mark.usefixtures("compiling")
def test_the_fused_functions_keep_to_the_bodies_budget(
    compilers: list[compiler.Compiler], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(funcgen, "GEN_CHARS", 100)  # (less than any fused function's source)
    assert Bash().exec(LOOP.format(n=600, k=19)).stdout == f"{sum(i * 19 for i in range(600))}\n"
    comp = compilers[0]
    assert not any(_fused(code) for code in _codes(comp))
    assert comp.generated == 0


def test_the_source_spells_no_script_text() -> None:
    text = 'evil_name = arr["x)\\nimport os"] + 31337 * other ? q++ : (w -= 60606)'
    made = arithcmd.source(text)
    assert made is not None
    source, namespace = made
    for piece in ("evil_name", "import os", "31337", "other", "60606", "arr"):
        assert piece not in source
    constants = {v for v in namespace.values() if type(v) in (str, int)}
    assert {"evil_name", "arr", 31337, "other", "q", "w", 60606, text} <= constants
    assert arithcmd.source("1 +") is None  # (a syntax error keeps the closures)


# shapes around the switch from the closure to the fused function: each must give the walker's
# stdout, stderr and status (600-700 steps: the switch comes at about the 320th)
SHAPES = {
    "statuses": "z=0 n=0\nfor ((k = 0; k < 600; k++)); do (( z = k % 2 )) || (( n++ )); (( 0 )); a=$?; done\n"
    'echo "$n $a $? ${PIPESTATUS[*]}"',
    "errexit": "set -e\nfor ((k = 1; k < 700; k++)); do (( k % 650 )); done\necho never",
    "errexit-ignored": "set -e\nc=0\nfor ((k = 0; k < 700; k++)); do (( k % 2 )) || (( c++ )) || :; done\necho $c",
    "err-trap": "trap 'echo \"ERR $LINENO $?\"' ERR\nfor ((k = 0; k < 700; k++)); do (( k % 300 )); done\necho end",
    "xtrace-late": "for ((k = 0; k < 600; k++)); do (( m = k )); (( k == 597 )) && set -x; done\nset +x\necho $m",
    "debug-trap-late": "for ((k = 0; k < 600; k++)); do (( m = k ))\n"
    "(( k == 598 )) && trap 'echo \"D $BASH_COMMAND\"' DEBUG; done\ntrap - DEBUG\necho $m",
    "division-late": "d=3 s=0\nfor ((k = 0; k < 600; k++)); do (( k == 550 )) && d=0; (( s += 9 / d )); d=3; done\necho $s",
    "readonly-late": "c=0\nfor ((k = 0; k < 600; k++)); do (( c++ )); (( k == 590 )) && readonly c; done\necho $c",
    "nounset-late": "set -u\na=1 s=0\nfor ((k = 0; k < 600; k++)); do (( s += a )); (( k == 560 )) && unset a; done\necho $s",
    "kinds": "v=1 s=0\nfor ((k = 0; k < 700; k++)); do (( s += v, v2 = v ))\ncase $k in\n"
    "500) declare -i v; v='2+3' ;; 550) unset v; w=7; declare -n v=w ;;\n"
    "600) unset -n v; v=(4 5) ;; 650) unset v; v='k % 3' ;; esac; done\necho $s $w; declare -p v v2",
    "arrays": "declare -a h; declare -A m\nfor ((k = 0; k < 600; k++)); do (( h[k % 5] += k, m[x$((k % 3))]++ )); done\n"
    'echo "${h[*]} ${m[x0]} ${m[x1]} ${m[x2]}"',
    "nested": "a=(10 20 30)\nv='a[$(s=0; for ((k = 0; k < 600; k++)); do (( s += k )); done; echo \"in $s\" >&2; echo 2)]'\n"
    '(( t = v + 1 )); echo "t=$t"',
    "while-until": "k=0 n=0\nwhile (( k < 900 )); do (( k++ )); (( k % 7 )) || continue; (( n += 2 ))\n"
    "(( k == 800 )) && break; done\necho $k $n $?\nuntil (( k-- <= 300 )); do (( n-- )); done\necho $k $n $?",
    "function": "f() { local v=$1; (( r = v % 5 )); }\nc=0\nfor ((k = 0; k < 700; k++)); do f $k || (( c++ )); done\n"
    "echo $c $r\nset -e\nfor ((k = 1; k < 700; k++)); do f $k; done\necho never",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes_around_the_switch_are_the_walkers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)
    script = SHAPES[name]
    assert _run(script, False, monkeypatch) == _run(script, True, monkeypatch)
