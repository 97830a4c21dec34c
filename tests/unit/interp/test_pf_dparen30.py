"""`(( ))` commands with expansions (arithmetic templates: `(( len += ${#t} ))`) written into a
hot loop's generated steps (interp/loopgen.py's Writer.template; issue 23, pf-dparen30): that they
are written in once their template is generated (and the loop renewed when it was not yet), that
the source spells no script text, and that every value a slot can hold, every attribute of the
variables involved and every way the command can fail gives the walker's stdout, stderr and status.
The same shapes against bash: tests/spec/cases/pf_dparen30_templates.txt. Also the scopes a
compiled expansion reads its variable from in place (Shell.plain_scopes; the shapes against bash:
tests/spec/cases/pf_dparen30_lookups.txt)."""

from __future__ import annotations

import itertools

import pytest

from sandbash import Bash
from sandbash.expand import arith
from sandbash.interp import arithfor, compiler, loopgen, shell
from sandbash.interp import evaluator as evaluator_module
from sandbash.interp.shell import Shell
from sandbash.limits import Limits
from sandbash.stdio.streams import BufferWriter


def _run(script: str, walker: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
    r = Bash().exec(script)
    return r.stdout, r.stderr, r.exit_code


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts Shell.arith_slots' calls (the way a template runs when it is not written in)."""
    calls = [0]
    original = shell.Shell.arith_slots

    def spy(self: shell.Shell, tpl: arith.Template, slots: tuple[int | str, ...]) -> int:
        calls[0] += 1
        return original(self, tpl, slots)

    monkeypatch.setattr(shell.Shell, "arith_slots", spy)
    return calls


@pytest.mark.parametrize("loop", ["while", "for"])
def test_a_hot_template_is_written_into_the_loop(loop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    calls = _counting(monkeypatch)
    # (texts no other test evaluates: the template cache is process-wide)
    head = "while (( k < 3000 )); do (( k++ ))" if loop == "while" else "for ((k = 0; k < 3000; k++)); do"
    script = f"k=0 t=abc s=0 n=4\n{head}\n(( s += ${{#t}} * $n + 30{len(loop)} ))\ndone\necho $s"
    out = Bash().exec(script).stdout
    assert out == f"{3000 * (3 * 4 + 300 + len(loop))}\n"
    assert calls[0] < 1100  # (the loop's generated steps run it from about the 256th)


def test_a_loop_made_before_its_template_is_hot_is_made_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    calls = _counting(monkeypatch)
    # the template runs every third step: the loop is generated (its literal texts hot) before it is
    script = (
        "k=0 t=abcd s=0\nwhile (( k < 6000 )); do (( k++ ))\n(( k % 3 == 0 )) || continue\n"
        "(( s += ${#t} + 17 ))\ndone\necho $s"
    )
    # (`continue` in an `||` list: the template's command is top-level, after it)
    out = Bash().exec(script).stdout
    assert out == f"{2000 * 21}\n"
    assert calls[0] < 1100


def test_the_template_source_spells_no_script_text(compilers: list[compiler.Compiler]) -> None:
    script = (
        "n=0 evil_len=0 import_os=abc other=3\n"
        "while (( n++ < 3000 )); do (( evil_len += ${#import_os} * $other + 31337 )); done"
    )
    made: list[str] = []
    original = loopgen.function_of

    def spy(source: str, filename: str, name: str, namespace: dict[str, object]) -> object:
        made.append(source)
        return original(source, filename, name, namespace)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(evaluator_module, "TREE_WALKER", False)
        mp.setattr(loopgen, "function_of", spy)
        Bash().exec(script)
    assert made and any("_sv = None" in source for source in made)
    for piece in ("evil_len", "import_os", "other", "31337", "_sbSlot"):
        assert not any(piece in source for source in made)


# what a `$v` slot and a `${#t}` slot can hold, set late in the loop (after it is generated)
VALUES = [
    "",
    "0",
    "7",
    "007",
    "08",
    "-3",
    "+4",
    " 5",
    "9" * 18,
    "9" * 19,
    "0x1f",
    "2#101",
    "k",
    "k+1",
    "1+",
    "é",
    "a[1]",
]


@pytest.mark.parametrize("value", VALUES)
def test_a_slots_values_are_the_walkers(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    quoted = value.replace("'", "'\\''")
    script = (
        "exec 2>&1\na=(3 4 5) k=0 s=0 v=1\nwhile (( k < 1400 )); do (( k++ ))\n"
        f"(( k == 1390 )) && v='{quoted}'\n(( s += $v ))\n"
        '(( k > 1388 )) && echo "k=$k s=$s"\ndone\necho end $s'
    )
    assert _run(script, False, monkeypatch) == _run(script, True, monkeypatch)


KINDS = {
    "plain": "t=abc",
    "empty": "t=",
    "unset": "unset t",
    "non-ascii": "t=$'caf\\xc3\\xa9'",
    "invalid-bytes": "t=$'a\\xff\\xfeb'",
    "c-locale": "LC_ALL=C; t=$'caf\\xc3\\xa9'",
    "array": "t=(one two three)",
    "assoc": "unset t; declare -A t=([0]=four [x]=y)",
    "integer": "unset t; declare -i t=12345",
    "nameref": "unset t; u=refd; declare -n t=u",
    "nameref-element": "unset t; a=(p qq rrr); declare -n t='a[2]'",
    "exported": "export t=exported",
    "readonly-target": "readonly s",
    "integer-target": "declare -i s",
    "nounset-unset": "set -u; unset t",
}


@pytest.mark.parametrize(("kind", "where"), list(itertools.product(sorted(KINDS), ["global", "local"])))
def test_a_length_slots_variables_are_the_walkers(
    kind: str, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (
        "k=0 s=0 t=start\nwhile (( k < 1400 )); do (( k++ ))\n"
        f'if (( k == 1390 )); then {KINDS[kind]}; fi\n(( s += ${{#t}} * 2 ))\n(( ${{#t}} - 5 )) || echo "five at $k"\n'
        'done\necho "s=$s st=$?"'
    )
    if where == "local":
        body = f'f() {{\nlocal k s t\n{body}\n}}\nt=global s=1\nf\necho "after $? t=$t s=$s"'
    script = "exec 2>&1\n" + body
    assert _run(script, False, monkeypatch) == _run(script, True, monkeypatch)


SHAPES = {
    "other-slots": "a=(4 5 6) k=0 t=ab s=0 n=2\nwhile (( k < 1500 )); do (( ++k ))\n"
    "(( s += $(( k % 3 )) + ${#t} + ${a[k % 3]} + ${a[1]:-9} + ${#a[@]} + ${#a[n]} ))\n"
    "(( k == 1450 )) && { t=abcdef; a=(7); }; done\necho $s",
    "errexit": "set -e\nk=0 t=ab\nwhile (( k < 1500 )); do (( ++k )); (( k == 1450 )) && t=; (( ${#t} )); done\necho never",
    "errexit-guarded": "set -e\nk=0 t=ab\nwhile (( k < 1500 )); do (( ++k )); (( k == 1450 )) && t=; (( ${#t} )) || :; done\necho $k",
    "err-trap": "trap 'echo \"ERR $LINENO $?\"' ERR\nk=0 t=ab\nwhile (( k < 1500 )); do (( ++k )); (( k == 1495 )) && t=\n(( ${#t} ))\ndone",
    "xtrace": "k=0 t=ab s=0\nwhile (( k < 1500 )); do (( ++k )); (( s += ${#t} + $k ))\n(( k == 1497 )) && set -x; done\nset +x\necho $s",
    "debug-trap": "k=0 t=ab s=0\nwhile (( k < 1500 )); do (( ++k )); (( s += ${#t} ))\n"
    "(( k == 1498 )) && trap 'echo \"D $BASH_COMMAND $LINENO\"' DEBUG; done\ntrap - DEBUG\necho $s",
    "division": "k=0 t=ab s=0\nwhile (( k < 1500 )); do (( ++k )); (( k == 1450 )) && t=; (( s += 100 / ${#t} )); t=ab; done\necho $s",
    "arrays": "declare -a h; declare -A m\nk=0\nwhile (( k < 1500 )); do (( ++k )); j=$(( k % 4 )); (( h[$j] += ${#j} + $k ))\n"
    '(( m[$j]++ )); (( m["x$j"] += 2 )); done\necho "${h[*]} ${m[*]} ${!m[*]}"',
    "two-slots": "k=0 t=abc s=0 n=5\nwhile (( k < 1500 )); do (( ++k )); (( s += ${#t} * $n, n = k % 9 )); (( k == 1400 )) && n=09; done\necho $s $n",
    "nested": "a=(10 20 30 40) t=abc x='a[${#t}] + 1' k=0 s=0\nwhile (( k < 1500 )); do (( ++k )); (( s += ${#t} + x ))\n"
    "(( k == 1450 )) && t=a; done\necho $s",
    "break-continue": "k=0 t=abc s=0\nwhile (( k < 3000 )); do (( ++k )); (( s += ${#t} ))\n"
    "(( k % 100 )) || continue; (( k == 2500 )) && break; (( s++ )); done\necho $k $s",
    "positional": "set -- 4 abc\nk=0 s=0\nwhile (( k < 1500 )); do (( ++k )); (( s += $1 * ${#2} + $# )); (( k == 1450 )) && set -- x; done\necho $s",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes_are_the_walkers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    script = "exec 2>&1\n" + SHAPES[name]
    assert _run(script, False, monkeypatch) == _run(script, True, monkeypatch)


def test_plain_scopes_are_the_stores_own_and_never_copy_a_lazy_one() -> None:
    """Shell.plain_scopes (stringfn.inner_scopes reads a variable in place with them): the store's
    own scopes and local names; None for a special name, and for a lazy subshell's store whose
    scopes are not copied yet (asking must not copy them)."""
    sh, _ = Bash()._new_shell(Limits(), None, {}, "/home/user", b"", BufferWriter(), BufferWriter(), "c")
    store = sh.state.vars
    found = sh.plain_scopes("x")
    assert found is not None and found[0] is store.scopes and found[1] is store.local_names
    for name in ("RANDOM", "LINENO", "_", "PIPESTATUS", "FUNCNAME", "SECONDS", "BASH_COMMAND", "PATH"):
        assert sh.plain_scopes(name) is None, name
    child = Shell(sh.state.fork(lazy=True), sh.rt)
    assert child.plain_scopes("x") is None
    assert child.state.vars.source is store  # (not copied by asking)
    assert child.state.vars.scopes is not store.scopes  # (copied on its first read)
    found = child.plain_scopes("x")
    assert found is not None and found[0] is child.state.vars.scopes


@pytest.mark.parametrize("part", ["k < ${#a[@]}", "k < $n", "k < ${#s} * 300 + $n - 900"])
def test_a_for_loops_template_condition_is_generated(part: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    calls = _counting(monkeypatch)
    made: list[str] = []
    original = arithfor.function_of

    def spy(source: str, filename: str, name: str, namespace: dict[str, object]) -> object:
        made.append(source)
        return original(source, filename, name, namespace)

    monkeypatch.setattr(arithfor, "function_of", spy)
    script = f"a=() n=3000 s=abc\nfor ((j = 0; j < 3000; j++)); do a+=($j); done\nt=0\nfor ((k = 0; {part}; k++)); do (( t += k )); done\necho $k $t"
    assert Bash().exec(script).stdout == f"3000 {sum(range(3000))}\n"
    assert calls[0] < 1100  # (the condition's template runs in the generated steps)
    assert any("_sv = None" in source for source in made)


FOR_SHAPES = {
    "other-slots": "n=2000 a=(1 2) t=abc\nm=0\nfor ((k = 0; k < $(( n )) + ${a[1]} - ${#t}; k++)); do (( m++ ))\n"
    "(( k == 1500 )) && n=1800; done\necho $k $m",
    "count-changes": "a=(); for ((j = 0; j < 2000; j++)); do a[j]=$j; done\nn=0\n"
    "for ((k = 0; k < ${#a[@]}; k++)); do (( n++ )); (( k == 1500 )) && unset 'a[1999]' 'a[5]'; (( k == 1800 )) && a+=(x); done\necho $k $n",
    "limit-kinds": "lim=2000 n=0\nfor ((k = 0; k < $lim; k++)); do (( n++ )); case $k in 1500) lim=1900 ;; 1600) lim=07777 ;;\n"
    "1700) lim=0x7d0 ;; 1800) lim=k-1 ;; esac; done\necho $k $n $?",
    "limit-errors": "for v in '1+' 08 '' 'é' '2#2'; do lim=3000\nfor ((k = 0; k < $lim; k++)); do (( k == 1500 )) && lim=$v; done; echo \"$v: $? $k\"; done",
    "step-template": "d=1 n=0\nfor ((k = 0; k < 5000; k += $d)); do (( n++ )); (( k == 1500 )) && d=3; (( k == 3000 )) && d=k-2990; done\necho $k $n",
    "step-error": "d=1\nfor ((k = 0; k < 5000; k += 9 / $d)); do (( k == 1500 )) && d=0; done\necho $k $?",
    "traced": "a=(1 2 3)\nfor ((k = 0; k < ${#a[@]} * 600; k++)); do (( k == 1797 )) && set -x; done\nset +x\necho $k",
    "debug": "a=(1 2 3)\nfor ((k = 0; k < ${#a[@]} * 600; k++)); do (( k == 1797 )) && trap 'echo \"D $BASH_COMMAND\"' DEBUG; done\n"
    "trap - DEBUG\necho $k",
    "local-array": "f() { local -a a=(); local k n=0; for ((k = 0; k < 2000; k++)); do a+=($k); done\n"
    "for ((k = 0; k < ${#a[@]}; k++)); do (( n += a[k] )); (( k == 1900 )) && local -A a=([x]=1); done; echo $k $n; }\na=(1); f; echo ${#a[@]}",
    "nameref": "b=(); for ((j = 0; j < 2000; j++)); do b+=($j); done\ndeclare -n r=b\nn=0\n"
    "for ((k = 0; k < ${#r[@]}; k++)); do (( n++ )); (( k == 1500 )) && r=(1 2 3); done\necho $k $n",
    "nounset": "set -u\na=(); for ((j = 0; j < 2000; j++)); do a+=($j); done\nfor ((k = 0; k < ${#a[@]}; k++)); do (( k == 1500 )) && unset a; done\necho never",
    "break-continue": "a=(); for ((j = 0; j < 3000; j++)); do a+=($j); done\nn=0\n"
    "for ((k = 0; k < ${#a[@]}; k++)); do (( k % 7 )) || continue; (( n++ )); (( k == 2900 )) && break; done\necho $k $n",
}


@pytest.mark.parametrize("name", sorted(FOR_SHAPES))
def test_for_loop_template_parts_are_the_walkers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    script = "exec 2>&1\n" + FOR_SHAPES[name]
    assert _run(script, False, monkeypatch) == _run(script, True, monkeypatch)


@pytest.mark.parametrize("loop", ["while", "for"])
def test_a_loop_generated_before_its_only_template_is_hot_waits_for_it(
    loop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the header's texts hot first (another loop with the same header), so the loop is generated
    # at its first check while its body's only command, a template, is still cold: the body stays
    # a closure and the loop must still be made again once the template is generated (it ran the
    # template through the closure for ever: 3000 calls)
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    head = "while (( k < 3007 )); do (( k++ ))" if loop == "while" else "for ((k = 0; k < 3007; k++)); do"
    Bash().exec(f"k=0 s=0\n{head}\n(( s++ ))\ndone")
    calls = _counting(monkeypatch)
    script = f"k=0 t=abcd s=0 n=5\n{head}\n(( s += ${{#t}} * $n + 40{len(loop)} ))\ndone\necho $s"
    out = Bash().exec(script).stdout
    assert out == f"{3007 * (4 * 5 + 400 + len(loop))}\n"
    assert calls[0] < 1100
