"""VarStore.local_names (issue 23, pf-scope8): every name bound in a scope above the globals is in
it, so a name not in it is read and written in the globals without walking the scopes.

Three guards: the tree adds names to scopes only through Scope's own methods (which add them to
the set) and pushes scopes only through VarStore.push and call_function (which give a scope the
set and add its names), an AST scan; the invariant checked at every variable read and write while
the spec cases that use functions run (compiled and walked); and shapes that add names to a
function's scope in unusual ways (temporary bindings, `local -`, getopts, read, printf -v, export,
propagation at return, subshells, traps, eval, source), compiled and walked.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash
from sandbash.expand.arith import Evaluator
from sandbash.interp.variables import Variables
from sandbash.shvars.vars import NAMES_CAP, Scope, Var, VarStore

from .walking import walking

SRC = Path(__file__).resolve().parents[3] / "src" / "sandbash"
SPEC = Path(__file__).resolve().parents[2] / "spec"

# dict's methods that add a key: Scope overrides each to add the name to its `names`
_ADDING = ("__setitem__", "setdefault", "update", "__ior__")


def test_scope_overrides_every_adding_method() -> None:
    for method in _ADDING:
        assert method in Scope.__dict__, method
    store = VarStore()
    scope = Scope(False, True)
    store.push(scope)
    scope["a"] = Var("1")
    scope.setdefault("b", Var())
    scope.update({"c": Var()}, d=Var())
    scope |= {"e": Var()}
    assert {"a", "b", "c", "d", "e"} <= store.local_names


def _dict_method_uses(tree: ast.AST) -> list[tuple[int, str]]:
    """`dict.__setitem__` and the other adding methods taken from dict itself (bypassing Scope's
    overrides), and `super().<adding method>` in a subclass of Scope."""
    found = []
    scope_classes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "Scope" for b in node.bases)
    ]
    in_scope_class = {id(n) for c in scope_classes for n in ast.walk(c)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _ADDING:
            base = node.value
            if isinstance(base, ast.Name) and base.id == "dict":
                found.append((node.lineno, f"dict.{node.attr}"))
            if (
                isinstance(base, ast.Call)
                and isinstance(base.func, ast.Name)
                and base.func.id == "super"
                and id(node) in in_scope_class
            ):
                found.append((node.lineno, f"super().{node.attr}"))
    return found


def _scope_pushes(tree: ast.AST) -> list[tuple[int, str]]:
    """`<...>scopes.append/insert/extend(...)` and `scopes[i] = ...`: a scope put on a stack of
    scopes other than by VarStore.push."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("append", "insert", "extend", "__setitem__", "__iadd__"):
                base = node.func.value
                name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
                if name == "scopes":
                    found.append((node.lineno, f"scopes.{node.func.attr}"))
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript):
                    v = t.value
                    name = v.attr if isinstance(v, ast.Attribute) else getattr(v, "id", "")
                    if name == "scopes":
                        found.append((node.lineno, "scopes[...] ="))
                if isinstance(node, ast.AugAssign):
                    name = t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "")
                    if name == "scopes":
                        found.append((node.lineno, "scopes +="))
    return found


# where the bypasses are the invariant's own work, or fill a dict that is no Scope
_ALLOWED = {
    ("interp/builtin_table.py", "dict.__setitem__"),  # (BUILTINS)
    ("shvars/vars.py", "dict.__setitem__"),
    ("shvars/vars.py", "dict.setdefault"),
    ("shvars/vars.py", "dict.update"),
    ("interp/calls.py", "scopes.append"),
    # (a generated body's local, VarStore.declare_local's common case: its name added to
    # local_names first, as there)
    ("interp/steps.py", "dict.setdefault"),
    # (the options and traps that tell their RunMode: dict's own mutators, wrapped)
    ("interp/runmode.py", "dict.__setitem__"),
    ("interp/runmode.py", "dict.__ior__"),
    ("interp/runmode.py", "dict.update"),
    ("interp/runmode.py", "dict.setdefault"),
    ("shvars/vars.py", "scopes.append"),
}


def test_no_scope_write_bypasses_local_names() -> None:
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("commands/"):
            continue  # (commands run as separate programs: they never see a shell's scopes)
        tree = ast.parse(path.read_text(), rel)
        for line, what in _dict_method_uses(tree) + _scope_pushes(tree):
            if (rel, what) not in _ALLOWED:
                bad.append(f"{rel}:{line}: {what}")
    assert not bad, "add names/scopes through Scope's methods and VarStore.push:\n" + "\n".join(bad)


def test_scan_catches_bypasses() -> None:
    tree = ast.parse(
        "dict.__setitem__(s, 'x', v)\nclass S(Scope):\n def f(self): super().update(x)\n"
        "class D(dict):\n def f(self): super().update(x)\nst.vars.scopes.append(s)\n"
        "scopes.insert(1, s)\nscopes[1] = s\nself.scopes += [s]\n"
    )
    assert len(_dict_method_uses(tree)) == 2
    assert len(_scope_pushes(tree)) == 4


# ---------------------------------------------------------------- the invariant, checked live


def _violations(store: VarStore) -> list[str]:
    scopes = store.scopes
    names = store.local_names
    found = []
    for scope in scopes[1:]:
        if scope.names is not names:
            found.append("a scope above the globals without the store's set")
        missing = set(scope) - names
        if missing:
            found.append(f"bound above the globals, not in local_names: {sorted(missing)}")
    if scopes[0].names is not None:
        found.append("the globals hold the set")
    return found


class Checks:
    """What checked() saw: the checks made (`deep`: with a function's or a command's scope on
    the stack) and the violations found (kept, not raised: the shell could catch an exception)."""

    def __init__(self) -> None:
        self.count = 0
        self.deep = 0
        self.violations: list[str] = []


@contextmanager
def checked() -> Iterator[Checks]:
    """Variables' reads and writes, VarStore's searches and the arithmetic's store check the
    invariant first."""
    checks = Checks()

    def wrap(cls: type, name: str, store_of: Callable[[Any], VarStore | None]) -> None:
        original = getattr(cls, name)

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            store = store_of(self)
            if store is not None and not type(store).__name__.startswith("_Lazy"):
                checks.violations += _violations(store)
                checks.count += 1
                checks.deep += len(store.scopes) > 1
            return original(self, *args, **kwargs)

        patch.setattr(cls, name, wrapper)

    def shell_store(ev: Evaluator) -> VarStore | None:
        state = getattr(ev.vars, "state", None)
        return state.vars if state is not None else None

    with pytest.MonkeyPatch.context() as patch:
        for method in ("lookup", "store_plain", "set_var", "get_str", "arith_get"):
            if hasattr(Variables, method):
                wrap(Variables, method, lambda va: va.state.vars)
        for method in ("find", "find_scope", "declare_local", "declare_locals"):
            wrap(VarStore, method, lambda store: store)
        wrap(Evaluator, "set", shell_store)
        yield checks


def _spec_cases() -> list[Any]:
    sys.path.insert(0, str(SPEC))
    try:
        from spec_loader import load_all  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SPEC))
    words = ("local ", "declare ", "typeset ", "() {", "(){", "function ")
    return [c for c in load_all() if any(w in c.script for w in words) and not c.xfail]


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
def test_invariant_holds_over_spec_cases(walker: bool) -> None:
    sys.path.insert(0, str(SPEC))
    try:
        from spec_loader import run_sandbash  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SPEC))
    cases = _spec_cases()
    assert len(cases) > 300
    with walking(walker), checked() as checks:
        for case in cases:
            run_sandbash(case)
    assert not checks.violations, sorted(set(checks.violations))
    assert checks.deep > 10_000


SHAPES = [
    # temporary bindings of a call, and of a builtin inside a function
    "g=0; f() { echo $g; g=1; echo $g; }; g=5 f; echo $g\nh() { g=7 eval 'echo $g; g=8'; echo $g; }; h",
    # local -, getopts' OPTIND, read, printf -v, mapfile into locals and globals
    "f() { local -; set -u; local OPTIND; getopts a o -a; echo $o $OPTIND; }; f; echo ${o-unset}",
    "f() { local r p; read r <<< in; printf -v p %s pv; read q <<< gq; echo $r $p $q; }; f; echo ${r-u} $q",
    # export/readonly of a temporary binding propagate to the caller's scope at return
    "f() { export v; readonly w; }; g() { v=1 w=2 f; echo ${v-u} ${w-u}; }; g; echo ${v-u} ${w-u}",
    "f() { x=inner; }; g() { local x=g; x=t f; echo $x; }; g; echo ${x-u}",
    # declare -g, namerefs, unset revealing the outer binding, at depth
    "x=G; a() { local x=A; b; echo a:$x; }; b() { declare -g x=B; unset x; echo b:$x; c; }; "
    "c() { local -n r=x; r=C; echo c:$x; }; a; echo top:$x",
    "d() { (( $1 )) && { local v$1=$1; d $(( $1 - 1 )); }; echo ${v1-u}${v3-u}; }; d 4; echo ${v1-u}",
    # subshells, $( ), traps and source inside functions
    "f() { local s=1; ( s=2; t=3; echo $s$t ); echo $s ${t-u} $(echo $s; local z=9; echo $z); }; f",
    "f() { local x=1; trap 'x=trap; y=trap' USR1; kill -USR1 $$; echo $x $y; }; f; echo ${x-u} $y",
    "echo 'q=src; local l=src' > lib.sh; f() { local l; . ./lib.sh; echo $q $l; }; f; echo $q ${l-u}",
    # arithmetic reads and writes at depth: globals, locals of callers, new names
    "n=3; f() { local i=$1; (( i > 0 )) && f $(( i - 1 )); (( n += i, m = n * 2 )); }; f 3; echo $n $m",
]


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
@pytest.mark.parametrize("script", SHAPES)
def test_shapes_keep_the_invariant(script: str, walker: bool) -> None:
    with walking(False):
        plain = Bash().exec(script)
    with walking(walker), checked() as checks:
        got = Bash().exec(script)
    assert (got.stdout, got.exit_code) == (plain.stdout, plain.exit_code)
    assert not checks.violations, checks.violations
    assert checks.deep > 0


def test_local_names_bounded() -> None:
    """Names made local, each in its own call, deep in a stack (or at the top level) do not pile
    up past names_cap: they are memory no one is charged for once their scopes are gone."""
    seen: list[int] = []
    original = Variables.lookup

    def lookup(self: Variables, name: str) -> Any:
        seen.append(len(self.state.vars.local_names))
        return original(self, name)

    script = (
        'f() { local "v$1"=1; echo -n "${v1-}"; }\n'
        f"main() {{ local i; for ((i = 0; i < {3 * NAMES_CAP}; i++)); do f $i; done; }}\n"
        f"main; for ((j = 0; j < {3 * NAMES_CAP}; j++)); do f $j; done; echo; echo ${{i-u}} ${{v1-u}}"
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Variables, "lookup", lookup)
        r = Bash().exec(script)
    assert (r.stdout, r.exit_code) == ("1" * 2 + "\nu u\n", 0), r.stderr
    assert len(seen) > 6 * NAMES_CAP
    assert max(seen) <= NAMES_CAP + 2
