"""A generated loop's `(( ))` wrapper (interp/loopgen.py, interp/arithfor.py; issue 23, pf-kw31):
the innermost scope bound once a run (loopgen.SCOPE), no nested-evaluation test inside a loop,
and a `for ((;;))` body's first and last `(( ))` keeping `sh.arith_cmd` set between the loop's
parts. That the loops are written so, and that every shape gives the walker's stdout, stderr and
status (the same shapes against bash: tests/spec/cases/pf_kw31_loop_wrapper.txt, run here
generated and walked)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash
from sandbash.interp import arithfor, compiler, loopgen
from sandbash.interp import evaluator as evaluator_module


def _sources(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources of the loops generated while the test runs (arithfor's and loopgen's)."""
    made: list[str] = []
    for module in (arithfor, loopgen):
        original = module.function_of

        def spy(
            source: str, filename: str, name: str, namespace: dict[str, object], original: Any = original
        ) -> Any:
            made.append(source)
            return original(source, filename, name, namespace)

        monkeypatch.setattr(module, "function_of", spy)
    return made


def _run(script: str, walker: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
    r = Bash().exec(script)
    return r.stdout, r.stderr, r.exit_code


def test_a_for_body_of_one_arith_command_is_written_without_the_wrapper(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`for ((;;)) do (( ... )); done`: its scope bound once (no `ev.scopes[-1]` a step), no
    nested-evaluation test, and `sh.arith_cmd` set only by the step, emptied only on the slow ways."""
    made = _sources(monkeypatch)
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    script = "t=0\nfor ((n = 0; n < 3000; n++)); do (( t = (t + n * 7) % 100003 )); done\necho $t"
    assert Bash().exec(script).stdout == _run(script, True, monkeypatch)[0]
    (source,) = [s for s in made if "def run(loop, _n, _stop, _body, _status)" in s]
    assert source.count("ev.scopes[-1]") == 1 and "_t = ev.scopes[-1]" in source
    assert "ev.depth" not in source
    body = source[source.index("if not _cond:") : source.index("except LoopControl")]
    stores = [line.strip() for line in body.splitlines() if "sh.arith_cmd =" in line]
    # (before the closure's way, an error's report, set -e's exit and process substitutions' end)
    assert stores == ['sh.arith_cmd = ""'] * 4
    assert "finally:\n" in body  # (the process substitutions' only)


def test_a_while_loop_binds_its_scope_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _sources(monkeypatch)
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    script = "f() { local k=0 s=0; while (( k < 3000 )); do (( s += k )); (( k++ )); done; echo $s; }; f"
    assert Bash().exec(script).stdout == "4498500\n"
    (source,) = [s for s in made if "def run(loop, _n, _stop, _cond, _body, _status)" in s]
    assert source.count("ev.scopes[-1]") == 1 and source.count("_t.get(") >= 3
    assert "ev.depth" not in source


# bodies of each shape around the first and last command (the texts warmed first, so that the loop
# is generated with them written in), with refusals named `((: ` and not, set -x and a DEBUG trap
# turned on late, errors, a function called from the body and `continue`/`break`
_BODIES = [
    "(( s += k ))",
    "(( s += k )); (( s -= 1 ))",
    ": $k; (( s += k ))",
    "x=$(( k == 2999 ? nr = 1 : 0 )); (( s++ ))",
    "(( s++ )); x=$(( k == 2999 ? nr = 1 : 0 ))",
    "(( s += k )); : $k",
    "(( s += k )); g; (( s++ ))",
    "(( k == 2999 ? nr = 1 : 0 )); (( s++ ))",
    "(( s++ )); (( k == 2999 ? nr = 1 : 0 ))",
    "(( k == 2999 ? nr = 1 : 0 ))",
    "(( k == 2998 ? 0 : 1 )) || set -x; (( k == 2999 ? nr = 1 : s++ ))",
    "(( k == 2999 ? nr = 1 : s++ )); (( k == 2998 ? 0 : 1 )) || set -x",
    "(( k == 2999 ? nr = 1 : s++ )); (( k == 2998 ? 0 : 1 )) || trap 'x=$(( nr = 2 ))' DEBUG",
    "(( k == 2999 ? s += 1 / z : s++ ))",
    "(( s++ )); (( k == 2999 ? s += 1 / z : 0 ))",
    "(( k == 2990 )) && continue; (( s += 2 ))",
    "(( s += 2 )); (( k == 2990 )) && break",
    "(( k == 2999 ? ro = 1 : s++ ))",
    "(( s++ )); (( k % 1000 == 999 ? 0 : 1 ))",
]


@pytest.mark.parametrize("body", _BODIES)
@pytest.mark.parametrize("loop", ["for", "while"])
def test_every_body_shape_runs_as_the_walker_runs_it(
    body: str, loop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if loop == "for":
        head = "for ((k = 0; k < {n}; k++)); do {body}; done"
    else:
        head = "k=0; while (( k < {n} )); do (( k++ )); {body}; done"
    script = (
        "exec 2>&1\ndeclare -n nr\nreadonly ro=1\nz=0 s=0\ng() { local s=5; (( s++ )); }\n"
        + head.format(n=600, body=body)
        + "\ntrap - DEBUG; set +x\n"
        + head.format(n=3000, body=body)
        + '\necho "status $? k=$k s=$s"\ntrap - DEBUG; set +x\ny=$(( nr = 3 )); echo "y=$y"'
    )
    compiled = _run(script, False, monkeypatch)
    assert compiled == _run(script, True, monkeypatch)
    assert "status" in compiled[0]


def test_set_e_after_a_false_last_command(monkeypatch: pytest.MonkeyPatch) -> None:
    script = "set -e\nfor ((k = 1; k < 3000; k++)); do (( s = k )); (( k % 2999 )); done\necho no"
    compiled = _run(script, False, monkeypatch)
    assert compiled == _run(script, True, monkeypatch) == ("", "", 1)


SPEC = Path(__file__).resolve().parents[2] / "spec"


def _cases() -> list[Any]:
    sys.path.insert(0, str(SPEC))
    from spec_loader import parse

    return list(parse(SPEC / "cases" / "pf_kw31_loop_wrapper.txt").cases)


@pytest.mark.parametrize("walker", [False, True], ids=["generated", "walked"])
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.id)
def test_the_table_agrees_both_ways(case: Any, walker: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from spec_loader import run_sandbash

    monkeypatch.setattr(evaluator_module, "TREE_WALKER", walker)
    monkeypatch.setattr(compiler, "NO_FUNCGEN", False)
    got = run_sandbash(case)
    assert (got.stdout, got.status) == (case.stdout, case.status), got.stderr


# ---------------------------------------------------------------- `local`'s one flag (RunMode.local_why)


def test_every_change_of_a_reason_is_told() -> None:
    """RunMode.local_why follows set -a, localvar_inherit, a function named `local` and `enable -n
    local` through every way each can change, in a fork as in its parent."""
    from sandbash.interp.runmode import LOCAL_ALLEXPORT, LOCAL_DISABLED, LOCAL_FUNCTION, LOCAL_INHERIT

    session = Bash().session()
    st = session.shell.state
    mode = st.run_mode
    assert mode.local_why == 0
    st.opts["allexport"] = True
    assert mode.local_why == LOCAL_ALLEXPORT
    st.opts.update(allexport=False)
    st.shopts["localvar_inherit"] = True
    assert mode.local_why == LOCAL_INHERIT
    st.shopts.update(localvar_inherit=False)
    st.disabled_builtins.add("local")
    assert mode.local_why == LOCAL_DISABLED
    st.disabled_builtins -= {"local", "x"}
    assert mode.local_why == 0
    st.disabled_builtins |= {"local"}
    st.disabled_builtins.clear()
    assert mode.local_why == 0
    session.exec("local() { :; }")
    assert mode.local_why == LOCAL_FUNCTION
    fdef = st.functions.pop("local")
    assert mode.local_why == 0
    st.functions["local"] = fdef
    assert mode.local_why == LOCAL_FUNCTION
    child = st.fork()
    assert child.run_mode.local_why == LOCAL_FUNCTION and child.run_mode is not mode
    child.functions.pop("local")
    assert child.run_mode.local_why == 0 and mode.local_why == LOCAL_FUNCTION
    del st.functions["local"]
    st.opts["allexport"] = True
    st.shopts["localvar_inherit"] = True
    st.disabled_builtins.update(["local"])
    child = st.fork(lazy=True)
    assert child.run_mode.local_why == LOCAL_ALLEXPORT | LOCAL_INHERIT | LOCAL_DISABLED
    child.disabled_builtins.discard("local")
    child.shopts.pop("localvar_inherit")
    child.opts["allexport"] = False
    assert child.run_mode.local_why == 0
    assert mode.local_why == LOCAL_ALLEXPORT | LOCAL_INHERIT | LOCAL_DISABLED


def test_a_restored_session_keeps_local_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot's disabled builtins are told as they are restored: a hot body's `local` after
    the restore is the general way's (`local: command not found`)."""
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", False)
    session = Bash().session()
    session.exec("enable -n local")
    restored = Bash().restore(session.snapshot())
    script = 'f() { local v="$1"; echo "v=$v"; }; for ((i = 0; i < 400; i++)); do f $i; done 2>/dev/null | tail -1; f x'
    r = restored.exec(script)
    assert r.stdout == "v=\nv=\n" and "local: command not found" in r.stderr
    assert Bash().session().exec(script).stdout == "v=399\nv=x\n"
