"""Arithmetic templates (expand/arithwords.py, arith.Template): an arithmetic text whose operands are
expansions is parsed once per shape, each expansion a slot when its value is a plain decimal
number, and the text is parsed as bash would otherwise. The value of an expansion is text that is
then parsed (`x='1+2'; $(( $x*3 ))` is 7, `$(( x*3 ))` 9), so a cached template must never serve a
value of another shape: random values of many shapes go through each template compiled, walked,
with templates turned off, and through real bash where it is installed, with the same output."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

import oracle
from sandbash import Bash
from sandbash.expand import arith, arithwords
from sandbash.interp import evaluator as evaluator_module
from sandbash.syntax.parser import parse
from sandbash.textcache import TextCache

SHAPES = [
    "$(( ${v:-0} + 1 ))",
    "$(( 2 * $v + 1 ))",
    "$(( 10 - ${v} ))",
    "$(( $v ))",
    "$(( ${v} % 7 + $w ))",
    "$(( ${#v} + $w * ${w} ))",
    "$(( $(( w + 1 )) * $w - ${v:-1} ))",
    "$(( ${m[$w]:-0} + ${v:-0} ))",
    # a whole subscript as a slot (`m[$v]`: the subscript's text is the number, else quoted text)
    "$(( m[$v] + 1 ))",
    '$(( m["$v"] * $w ))',
    "$(( m[${v}] - m[$w] ))",
    "$(( m[$v] * m[$v] ))",
    "$(( A[$v] += 2, A[$v] ))",
]


def _values(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    fixed = [
        "",
        "0",
        "00",
        "08",
        "010",
        "-0",
        "-3",
        " 4 ",
        "4 ",
        "0x1f",
        "0X1F",
        "2#101",
        "16#ff",
        "64#_",
        "1e3",
        "1 2",
        "1+2",
        "(3)",
        "-(-2)",
        "b",
        "a",
        "zz",
        "b=2",
        "2#102",
        "1,7",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551616",
        "1.5",
        "0x",
    ]
    out = list(fixed)
    while len(out) < count:
        kind = rng.randrange(7)
        n = rng.randrange(10 ** rng.randrange(1, 21))
        if kind == 0:
            out.append(str(n))
        elif kind == 1:
            out.append(f"-{n}")
        elif kind == 2:
            out.append(f"0{n}")
        elif kind == 3:
            out.append(f"{' ' * rng.randrange(2)}{n}{' ' * rng.randrange(2)}")
        elif kind == 4:
            out.append(f"0x{n:x}")
        elif kind == 5:
            out.append(f"{rng.randrange(2, 37)}#{rng.randrange(1, 36)}")
        else:
            out.append(rng.choice(["b", "a", "zz", "w"]) + rng.choice(["", "+1", "*2", "-w"]))
    return out


def _script(shape: str, values: list[str]) -> str:
    lines = ["a=b b=3 w=2 m=(5 6 7 8); declare -A A=([1]=4 [b]=5 ['1+2']=6 [' 4 ']=7)"]
    for i, v in enumerate(values):
        quoted = v.replace("'", "'\\''")
        lines.append(f"v='{quoted}'; ( echo \"{i} {shape}\" ) 2>&1")
    return "\n".join(lines) + "\n"


def _sandbash(script: str, walker: bool) -> tuple[str, int]:
    saved = evaluator_module.TREE_WALKER
    evaluator_module.TREE_WALKER = walker
    try:
        r = Bash().exec(script)
    finally:
        evaluator_module.TREE_WALKER = saved
    return r.stdout, r.exit_code


@pytest.mark.parametrize("shape", SHAPES)
def test_a_template_gives_what_the_text_gives(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    values = _values(SHAPES.index(shape), 300)
    script = _script(shape, values)
    compiled = _sandbash(script, walker=False)
    walked = _sandbash(script, walker=True)
    assert compiled == walked
    # the shape has a template, which the runs above used
    cmd = parse(f"x={shape}").items[0].cmd
    assert arithwords._arith_template(cmd.assigns[0].value.parts[0].word) is not None  # type: ignore[union-attr]
    monkeypatch.setattr(arithwords, "_arith_template", lambda word: None)
    monkeypatch.setattr(arithwords, "_ARITH_TEMPLATES", TextCache())
    assert compiled == _sandbash(script, walker=False)
    lines = compiled[0].splitlines()
    assert len([ln for ln in lines if ln[:1].isdigit()]) > 100  # (most values are numbers)
    bash = shutil.which("bash")
    if (
        bash is not None
        and "version 5.2" in subprocess.run([bash, "--version"], capture_output=True, text=True).stdout
    ):
        real = oracle.run(["bash", "-c", script], executable=bash, capture_output=True, text=True)
        assert compiled[0] == real.stdout


def test_templates_serve_values_past_the_hot_tier() -> None:
    """A template runs as its closures, then as its generated function: both read the slots."""
    r = Bash().exec(
        "t=0; for ((i=0;i<600;i++)); do t=$(( ${t:-0} * 3 % 1000003 + $i + ${#t} )); done; echo $t"
    )
    t = 0
    for i in range(600):
        t = t * 3 % 1000003 + i + len(str(t))
    assert r.stdout == f"{t}\n"


@pytest.mark.parametrize("walker", [False, True])
def test_subscript_slots_past_the_hot_tier(walker: bool) -> None:
    """`a[$k]++`, `a[$k] += k`, `a[$k] = ...` and `A[$k]` reads as closures and then as the
    generated function (the subscript made from the slot's number each time)."""
    script = (
        "declare -a a; declare -A A; for ((k=0;k<700;k++)); do j=$((k % 5)); ((a[$j]++)); ((++A[$j]));"
        ' ((a[$j] += k)); (( A["$j"] = A[$j] * 2 % 1000 )); a[$j]=$(( a[${j}] % 100003 + A[$j] )); done;'
        ' echo "${a[*]}"; echo "${A[0]} ${A[1]} ${A[2]} ${A[3]} ${A[4]}"'
    )
    a = [0] * 5
    big_a = [0] * 5
    for k in range(700):
        j = k % 5
        a[j] += 1
        big_a[j] += 1
        a[j] += k
        big_a[j] = big_a[j] * 2 % 1000
        a[j] = a[j] % 100003 + big_a[j]
    assert _sandbash(script, walker) == (f"{' '.join(map(str, a))}\n{' '.join(map(str, big_a))}\n", 0)


@pytest.mark.parametrize(
    ("script", "out"),
    [
        # a variable named as a slot is read as a variable, in a value and in the text itself
        ("_sbSlot0_=7; x=_sbSlot0_; for k in 1 2 3; do echo $(( $k + x )); done", "8\n9\n10\n"),
        ("_sbSlot0_=7; for k in 1 2; do echo $(( $k + _sbSlot0_ )); done", "8\n9\n"),
        # a slot is never an assignment's target
        ("for k in 1 2; do (echo $(( $k = 3 ))) 2>&1; done", None),
        # a template inside a template's subscript (a variable's value with a subscript)
        ("a=(10 20 30); i='a[$j]'; j=1; for k in 1 2; do echo $(( $k + i )); done", None),
    ],
)
def test_slot_names_and_nesting(script: str, out: str | None) -> None:
    r = Bash().exec(script)
    if out is not None:
        assert r.stdout == out
    bash = shutil.which("bash")
    if bash is not None:
        real = oracle.run(["bash", "-c", script], executable=bash, capture_output=True, text=True)
        assert (r.stdout, r.exit_code) == (real.stdout, real.returncode)


def test_slot_reads_only_in_templates() -> None:
    """Only a template's tree has slots: the same text parsed as text reads variables."""
    tpl = arith.template_of("_sbSlot0_ + 1", ("_sbSlot0_",))
    assert tpl is not None
    assert arith.template_of("_sbSlot0_ = 1", ("_sbSlot0_",)) is None
    assert arith.template_of("_sbSlot0_++", ("_sbSlot0_",)) is None
    r = Bash().exec("_sbSlot0_=4; echo $(( _sbSlot0_ + 1 ))")
    assert r.stdout == "5\n"
