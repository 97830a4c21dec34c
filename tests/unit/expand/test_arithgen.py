"""The generated tier of arithmetic (expand/arithgen.py) against the closures (arith._compile)
and against real bash.

- hundreds of expressions made from a seeded grammar (every operator, precedence, wrap-around,
  division by zero, negative exponents, assignments, ++/--, array elements, values that are
  expressions) run in one script three ways: every expression generated at its first
  evaluation, closures only, and /bin/bash 5.2;
- every spec case that does arithmetic runs with every expression generated at once;
- what the generator refuses (too large, too deep) keeps its closures; what it makes spells
  none of the script's text.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import oracle
from sandbash import Bash
from sandbash.expand import arith
from sandbash.expand.arith import _COMPILED, Evaluator, _compile
from sandbash.expand.arithgen import MAX_DEPTH, MAX_NODES, _Gen, generate
from sandbash.expand.arithops import INTS, INTS_MAX, text_fn
from sandbash.syntax.arith import parse_arith

SPEC = Path(__file__).resolve().parents[2] / "spec"
sys.path.insert(0, str(SPEC))

from spec_loader import Case, load_all, run_sandbash  # type: ignore[import-not-found]  # noqa: E402

ALWAYS = 1  # HOT_CALLS: generated at the first evaluation
NEVER = 10**9  # closures only


@pytest.fixture
def tier(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A clean cache; the test sets arith.HOT_CALLS itself."""
    _COMPILED.clear()
    yield
    monkeypatch.undo()
    _COMPILED.clear()


def _run(script: str, hot_calls: int, monkeypatch: pytest.MonkeyPatch) -> tuple[str, int]:
    monkeypatch.setattr(arith, "HOT_CALLS", hot_calls)
    _COMPILED.clear()
    r = Bash().exec(script)
    return r.stdout + r.stderr, r.exit_code


def _bash_52() -> bool:
    try:
        out = subprocess.run(
            ["/bin/bash", "-c", "echo $BASH_VERSION"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.startswith("5.2")


def _real_bash(script: str) -> tuple[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        p = oracle.run(
            ["bash", "-c", script],
            executable="/bin/bash",
            capture_output=True,
            text=True,
            cwd=tmp,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
            timeout=60,
        )
    return p.stdout + p.stderr, p.returncode


# ------------------------------------------------------------------ expressions from a grammar

_NUMBERS = ["0", "1", "2", "3", "7", "13", "255", "0x1f", "010", "2#101", "36#z", "64#@_"]
_BIG = ["9223372036854775807", "4611686018427387904", "3037000500", "18446744073709551615"]
_VARS = ["a", "b", "c", "d", "e", "u", "i"]
_ELEMS = ["arr[1]", "arr[i]", "arr[i+1]", "arr[-1]", "h[k]", "h[zz]"]
_BINARY = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!="]
_ASSIGN = ["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="]
_TARGETS = ["a", "b", "d", "n", "arr[2]", "arr[i]", "h[k]"]


def _expr(rng: random.Random, depth: int) -> str:
    if depth <= 0:
        return _operand(rng)
    roll = rng.random()
    if roll < 0.32:
        return f"{_expr(rng, depth - 1)} {rng.choice(_BINARY)} {_expr(rng, depth - 1)}"
    if roll < 0.35:
        # (a small exponent: bash checks for a negative one even where && / || / ?: skip the
        # evaluation, which neither tier does; EDGES has the exponent's own errors)
        return f"{_expr(rng, depth - 1)} ** {rng.choice(('0', '1', '2', '3', '7', '63', '64'))}"
    if roll < 0.45:
        return f"({_expr(rng, depth - 1)} {rng.choice(('&&', '||'))} {_expr(rng, depth - 1)})"
    if roll < 0.55:
        return f"{rng.choice(('-', '+', '!', '~'))}{_expr(rng, depth - 1)}"
    if roll < 0.63:
        return f"({_expr(rng, depth - 1)} ? {_expr(rng, depth - 1)} : {_expr(rng, depth - 1)})"
    if roll < 0.75:
        return f"({rng.choice(_TARGETS)} {rng.choice(_ASSIGN)} {_expr(rng, depth - 1)})"
    if roll < 0.85:
        target = rng.choice(_TARGETS + ["c"])
        return rng.choice((f"{target}++", f"{target}--", f"++{target}", f"--{target}"))
    if roll < 0.92:
        return f"({_expr(rng, depth - 1)}, {_expr(rng, depth - 1)})"
    return f"({_expr(rng, depth - 1)})"


def _operand(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.4:
        return rng.choice(_NUMBERS)
    if roll < 0.5:
        return rng.choice(_BIG)
    if roll < 0.85:
        return rng.choice(_VARS)
    return rng.choice(_ELEMS)


# every line starts from the same values; `e` holds an expression, `u` is unset
_SETUP = "a=7 b=-3 c=9223372036854775807 d=0 e='a*2+1' i=1 n=5; arr=(10 20 30); declare -A h=([k]=4)"
_SHOW = 'echo "$? r=$r a=$a b=$b c=$c d=$d n=$n i=$i arr=${arr[*]} h=${h[k]}"'


def _script(exprs: list[str]) -> str:
    lines = ["exec 2>&1", "declare -A h"]
    for expr in exprs:
        lines.append(f"unset r u; {_SETUP}; (( r = ({expr}) )); {_SHOW}")
        lines.append(f'unset r u; {_SETUP}; let "r = {expr}" "{expr}"; {_SHOW}')
    return "\n".join(lines) + "\n"


def _exprs(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [_expr(rng, rng.randint(1, 4)) for _ in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_generated_matches_closures(seed: int, tier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script(_exprs(seed, 120))
    generated = _run(script, ALWAYS, monkeypatch)
    closures = _run(script, NEVER, monkeypatch)
    assert generated[1] == closures[1]
    for want, got in zip(closures[0].split("\n"), generated[0].split("\n"), strict=True):
        assert got == want
    # the lines really ran (an error in the script would end it early)
    assert generated[0].count(" r=") == 240


@pytest.mark.skipif(not _bash_52(), reason="GNU bash 5.2 not available at /bin/bash")
@pytest.mark.parametrize("seed", range(4))
def test_generated_matches_bash(seed: int, tier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script(_exprs(seed, 120))
    generated = _run(script, ALWAYS, monkeypatch)
    bash = _real_bash(script)
    assert generated[1] == bash[1]
    for want, got in zip(bash[0].split("\n"), generated[0].split("\n"), strict=True):
        assert got == want


# ------------------------------------------------------------------ edges, both tiers and bash

EDGES = {
    "nounset": "set -u; x=1; echo $(( x + 1 )); (( y + 1 )); echo after $?",
    "nounset-element": "set -u; a=(1); echo $(( a[0] + 1 )); echo $(( a[3] + 1 )); echo after",
    "readonly": "readonly r=1; (( r++ )); echo $? $r; (( r = 5 )); echo $? $r; let r+=1; echo $? $r",
    "integer": "declare -i n=5; (( n += 2 )); echo $n; (( n++ )); echo $n; n='n*2'; echo $n",
    "nameref": "x=3; declare -n ref=x; (( ref += 4 )); echo $x; (( ref++ )); echo $x $(( ref * 2 ))",
    "subscript-text": "a=(1 2); i=1; (( a[i] ** -1 )); echo $?; (( a[i] / (a[0] - 1) + a[-1] )); echo $?",
    "nameref-element": "a=(1 2 3); declare -n ref='a[1]'; (( ref += 40 )); echo ${a[*]} $(( ref ))",
    "exported": "export x=4; (( x++, x *= 3 )); echo $x; env | grep '^x='",
    "allexport": "set -a; (( fresh = 9 )); x=1; (( x++ )); env | grep -E '^(fresh|x)=' | sort",
    "random-seconds": "RANDOM=7; a=$RANDOM; RANDOM=7; (( RANDOM = 7 )); b=$RANDOM; echo $(( a == b ))",
    "optind": "(( OPTIND = 3 )); echo $OPTIND; (( OPTIND++ )); echo $OPTIND",
    "expression-values": "e='a + 1'; a=4; echo $(( e * 2 )); f='g=5, g+1'; echo $(( f )) $g",
    "recursion": "x='x + 1'; echo $(( x )); echo after $?",
    "leading-zero": "x=010; y=08; echo $(( x + 1 )); echo $(( y + 1 )); echo after",
    "spaces-and-signs": "x=' 12 '; y=-5; z='-05'; w=''; echo $(( x + y )) $(( z * 2 )) $(( w + 1 ))",
    "big-values": "x=9223372036854775807; y=9223372036854775808; echo $(( x + 1 )) $(( y )) $(( -x - 2 ))",
    "wrap-ops": "m=-9223372036854775808; echo $(( m / -1 )) $(( m % -1 )) $(( -m )) $(( m - 1 )) $(( 3 << 63 ))",
    "incdec-wrap": "x=9223372036854775807; (( x++ )); echo $x; y=-9223372036854775808; (( y-- )); echo $y",
    "div-errors": "x=0; echo $(( 5 / x )); echo a $?; (( 5 % x )); echo b $?; let 'y = 2 ** -1'; echo c $?",
    "assign-errors": "(( 1 = 2 )); echo a $?; (( x++ ++ )); echo b $?; let '3++'; echo c $?",
    "locals": "f() { local i=0 s=0; for ((i=0; i<30; i++)); do (( s += i * g )); done; echo $s $i; }; g=2; f; echo ${s-unset}",
    "arrays": "a=(); for ((i=0; i<30; i++)); do (( a[i] = i * i, a[i] += 1 )); done; echo ${a[29]} ${#a[@]}",
    "assoc": "declare -A m; for ((i=0; i<30; i++)); do (( m[k]++, m[j] += i )); done; echo ${m[k]} ${m[j]}",
    "subscript-once": "a=(0 0 0 0); i=0; (( a[i++] += 5 )); echo ${a[*]} $i; (( a[++i]++ )); echo ${a[*]} $i",
    "short-circuit": "x=0; (( 0 && x++ )); (( 1 || x++ )); (( 1 && x++ )); (( 0 || x++ )); echo $x",
    "ternary": "x=0; y=0; (( 1 ? x++ : y++ )); (( 0 ? x++ : y++ )); echo $x $y $(( x ? 10 : 20 ))",
    "comma": "(( x = 1, y = x + 1, z = y * 3 )); echo $x $y $z $(( (x, y, z) ))",
    "bases": "echo $(( 16#ff + 2#1010 + 8#17 + 0x10 + 010 )) $(( 64#_ )) $(( 36#Z ))",
    "errexit": "set -e; x=0; (( x++ )) || echo failed-as-status; (( x++ )); echo $x; (( x - x )); echo unreached",
    "loop-tier-switch": "t=0; for ((n=0; n<300; n++)); do t=$(( (t + n*3) % 97 )); (( t2 += n )); let t3+=n; done; echo $t $t2 $t3",
    "function-loop": "f() { local k=$1; echo $(( k * k + k / 2 - k % 3 )); }; for ((i=-30; i<30; i+=7)); do f $i; done",
    # a variable holding a number arithmetic stored (INTS's: the generated reads' and stores' first
    # test), then changed every other way
    "ints-then-attrs": "(( x = 5 )); declare -i x; (( x += 2 )); echo $x; x='x*2'; echo $x; readonly x; (( x++ )); echo $? $x",
    "ints-then-array": "(( x = 5 )); x[1]=7; (( x += 1, y = x + x[1] )); echo ${x[*]} $y; (( x++ )); echo ${x[@]}",
    "ints-then-export": "(( x = 5 )); export x; (( x *= 3, x++ )); echo $x; env | grep '^x='",
    "ints-then-allexport": "(( x = 5, y = 1 )); set -a; (( x++, y = y + 1 )); env | grep -E '^(x|y)=' | sort",
    "ints-local-shadow": "(( x = 5 )); f() { local x=7; (( x = x * 2 )); (( x++ )); echo $x; }; f; echo $x; g() { (( x += 100 )); }; g; echo $x",
    "ints-sizes": "(( x = 9 )); (( x++ )); (( x = x * 1000 - 1 )); (( x = -x )); (( x-- )); echo $x; x=' 12'; (( x++ )); echo $x; x=é; (( x = 3, y = x )); echo $x $y",
    "ints-unset": "(( x = 5 )); unset x; (( x++ )); echo $x; (( y = 3 )); unset y; echo $(( y + 1 )); set -u; (( z = 2 )); unset z; (( z + 1 )); echo after",
    "ints-nameref-target": "(( x = 5 )); declare -n r=x; (( r++ )); (( r = r * 2 )); echo $x $r; declare +n r; (( r++ )); echo $r $x",
    "ints-loop-changes": (
        "t=0; for ((i=0; i<200; i++)); do (( t += i, u = t % 7 )); "
        "case $i in 50) declare -i t;; 100) export u;; 150) t='i*0+1';; 180) readonly u;; esac; done; "
        "echo $t $u"
    ),
}


@pytest.mark.parametrize("name", EDGES, ids=list(EDGES))
def test_edges_generated_matches_closures(name: str, tier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    script = "exec 2>&1\n" + EDGES[name] + "\n"
    assert _run(script, ALWAYS, monkeypatch) == _run(script, NEVER, monkeypatch)


@pytest.mark.skipif(not _bash_52(), reason="GNU bash 5.2 not available at /bin/bash")
@pytest.mark.parametrize("name", EDGES, ids=list(EDGES))
def test_edges_generated_matches_bash(name: str, tier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    script = "exec 2>&1\n" + EDGES[name] + "\n"
    assert _run(script, ALWAYS, monkeypatch) == _real_bash(script)


# ------------------------------------------------------------------ the spec tables, all generated


def _arith_cases() -> list[Case]:
    marks = ("((", "let ", "$[", "declare -i", "typeset -i", "local -i")
    return [c for c in load_all() if any(m in c.script for m in marks)]


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else [])
        for c in _arith_cases()
    ],
)
def test_spec_case_with_every_expression_generated(
    case: Case, tier: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arith, "HOT_CALLS", ALWAYS)
    got = run_sandbash(case)
    assert (got.stdout, got.status) == (case.stdout, case.status), got.stderr


# ------------------------------------------------------------------ the generator itself


def test_source_spells_no_script_text() -> None:
    """Names, subscripts and numbers are constants of the namespace, never text in the source."""
    text = 'evil_name = arr["x)\\nimport os"] + 31337 * other ? q++ : (w -= 60606)'
    gen = _Gen(text)
    result = gen.expr(parse_arith(text), 1)
    source = gen.source(result)
    for piece in ("evil_name", "import", "31337", "other", "60606", "arr"):
        assert piece not in source
    assert set(gen.consts.values()) >= {"evil_name", "arr", 31337, "other", "q", "w", 60606, text}


def test_too_large_or_deep_keeps_closures() -> None:
    wide = parse_arith(" + ".join(["x"] * (MAX_NODES + 1)))
    deep = parse_arith(
        "(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH + "".join(" ? 1 : 2" for _ in range(MAX_DEPTH))
    )
    assert generate(wide, "") is None
    assert generate(deep, "") is None
    assert generate(parse_arith(" + ".join(["x"] * 20)), "") is not None


def test_tier_switch_replaces_the_cache_entry(tier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """After HOT_CALLS evaluations the cache holds the generated function itself, and a holder of
    the first one (a word's template) is forwarded to it."""

    class Vars:
        def __init__(self) -> None:
            self.values: dict[str, str] = {"x": "5"}

        def arith_get(self, name: str, sub: str | None) -> str | None:
            return self.values.get(name)

        def arith_set(self, name: str, sub: str | None, value: int) -> None:
            self.values[name] = str(value)

    monkeypatch.setattr(arith, "HOT_CALLS", 3)
    text = "x += 2"
    first = arith.compiled(text)
    vars_ = Vars()
    results = [first(Evaluator(vars_, text)) for _ in range(5)]
    assert results == [7, 9, 11, 13, 15]
    hot = _COMPILED.get(text)
    assert hot is not None and hot is not first and hot.__code__.co_filename == "<arith>"
    assert hot(Evaluator(vars_, text)) == 17


@pytest.mark.parametrize(
    "text, values",
    [
        ("a / b", {"a": "7", "b": "0"}),
        ("a % (b - b)", {"a": "7", "b": "3"}),
        ("2 ** -b", {"b": "1"}),
        ("x = 1 / 0", {}),
        ("a /= 0", {"a": "4"}),
        ("y", {"y": "1 +"}),
        ("y", {"y": "08"}),
    ],
)
def test_errors_are_the_closures(text: str, values: dict[str, str]) -> None:
    class Vars:
        def arith_get(self, name: str, sub: str | None) -> str | None:
            return values.get(name)

        def arith_set(self, name: str, sub: str | None, value: int) -> None:
            values[name] = str(value)

    node = parse_arith(text)
    gen = generate(node, text)
    assert gen is not None
    errors = []
    # (the generated function names its own text: its caller leaves the evaluator's as it was)
    for fn, ev_text in ((_compile(node), text), (gen, text), (gen, "unrelated + 1")):
        ev = Evaluator(Vars(), ev_text)
        with pytest.raises(arith.ArithError) as info:
            fn(ev)
        errors.append((info.value.message, info.value.text, info.value.token))
        assert ev.text == ev_text
    assert errors[0] == errors[1] == errors[2]


def test_remembered_numbers_are_bounded_and_exact(tier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """INTS (the texts arithmetic stored, read back without parsing) stays within its bound, and
    holds only str(n) -> n, whatever a script stores."""
    monkeypatch.setattr(arith, "HOT_CALLS", ALWAYS)
    r = Bash().exec(
        "for ((i=-1500; i<1500; i++)); do (( x = i * 7919 )); (( y = x, y++ )); done; "
        "a=010 b=' 12' c=-0; (( s = a + b + c + x + y )); echo $s $x $y"
    )
    assert r.stdout == f"{8 + 12 + 1499 * 7919 * 2 + 1} {1499 * 7919} {1499 * 7919 + 1}\n"
    assert 0 < len(INTS) <= INTS_MAX
    assert all(text == str(n) for text, n in INTS.items())
    assert not {"010", " 12", "-0"} & set(INTS)


def test_arith_text_remembers_results_within_64_bits() -> None:
    assert text_fn(lambda: -42)() == "-42" and INTS["-42"] == -42
    assert text_fn(lambda: 1 << 64)() == str(1 << 64) and str(1 << 64) not in INTS


def test_generated_text_is_bounded(tier: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past GEN_CHARS of generated text the cache keeps closures (a generated function holds
    about twice their memory); the results are the same."""
    monkeypatch.setattr(arith, "HOT_CALLS", 2)
    monkeypatch.setattr(arith, "GEN_CHARS", 40)
    script = (
        "for ((i=0; i<5; i++)); do (( a1 = i * 2 + 1 )); (( b22 = a1 * 3 - i )); (( c333 = b22 % 7 )); done"
    )
    r = Bash().exec(script + "; echo $a1 $b22 $c333")
    assert r.stdout == "9 23 2\n"
    kinds = {text: _is_generated(_COMPILED.get(text)) for text in _COMPILED.keys()}
    assert kinds[" a1 = i * 2 + 1 "] and kinds[" b22 = a1 * 3 - i "]
    assert not kinds[" c333 = b22 % 7 "]  # (past the 40 characters)
    assert _COMPILED.generated <= 40


def test_a_text_hot_while_the_budget_is_full_is_generated_once_there_is_room(
    tier: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text (or a template) whose HOT_CALLS-th run finds the generation budget full keeps its
    closures only for now: it asks again after another HOT_CALLS runs, and is generated once the
    cache has room (it starts over when full). It settled on closures for good before, and the
    cache kept them for the rest of the process."""
    monkeypatch.setattr(arith, "HOT_CALLS", 2)
    session = Bash().session()
    loop = "for ((k = 0; k < 6; k++)); do (( d4 = k * 5 - 1 )); e=$(( $k + 3 )); done; echo $d4 $e"
    _COMPILED.generated = arith.GEN_CHARS  # (full)
    assert session.exec(loop).stdout == "24 8\n"
    assert not _is_generated(_COMPILED.get(" d4 = k * 5 - 1 "))
    assert _COMPILED.generated == arith.GEN_CHARS
    _COMPILED.generated = 0  # (room again)
    assert session.exec(loop).stdout == "24 8\n"
    assert _is_generated(_COMPILED.get(" d4 = k * 5 - 1 "))
    assert _COMPILED.generated >= len(" d4 = k * 5 - 1 ") + len(" $k + 3 ")  # (the template too)


def _is_generated(fn: object) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename == "<arith>"
