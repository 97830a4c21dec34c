"""A scope's running charge (issue 23, pf-call21): `Scope.size` is what was charged to max_memory
for the variables the scope holds, kept as each charge is made, so a call's scope gives it back as
it returns without walking its variables (Scope.nbytes counts them).

The sum must agree with the count wherever a scope is charged: checked at every variable read and
write while the spec cases that use functions run (compiled and walked), and as each scope is
given back; and shapes that charge a function's scope in unusual ways (a temporary binding made
local, `declare` with a value on a caller's local, arrays grown, unset, namerefs, arithmetic,
read, printf -v) give back all they held.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash, ExecutionLimitError, Limits
from sandbash.expand.arith import Evaluator
from sandbash.interp.variables import Variables
from sandbash.shvars.vars import Scope, VarStore

from .walking import held_change, walking

SPEC = Path(__file__).resolve().parents[2] / "spec"


class Checks:
    """What sized() saw: the scopes checked and the disagreements (kept, not raised: the shell
    could catch an exception)."""

    def __init__(self) -> None:
        self.count = 0
        self.released = 0
        self.wrong: list[str] = []


def _wrong(scope: Scope, where: str) -> str | None:
    if scope.acct is None or scope.size == scope.nbytes():
        return None
    return f"{where}: size {scope.size} != nbytes {scope.nbytes()} ({sorted(scope)})"


@contextmanager
def sized() -> Iterator[Checks]:
    """Every charged scope above the globals agrees with its count before each variable read
    and write, and each scope given back agrees as it is popped or released. The
    globals and a subshell's copies of its parent's scopes are left out: what they hold was
    charged to the account as a whole (the shell's start, VarStore._copy), and they are never
    popped."""
    checks = Checks()
    copies: list[Scope] = []  # (held, so that an id is not reused while the check runs)
    copied: set[int] = set()

    def check_store(store: VarStore | None, where: str) -> None:
        if store is None or type(store).__name__.startswith("_Lazy"):
            return
        for scope in store.scopes[1:]:
            if id(scope) in copied or scope.acct is not store.acct:
                continue
            checks.count += 1
            wrong = _wrong(scope, where)
            if wrong is not None:
                checks.wrong.append(wrong)

    def wrap(cls: type, name: str, store_of: Callable[[Any], VarStore | None]) -> None:
        original = getattr(cls, name)

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            # (before, not after: a builtin may be half-way through a charge as one of its
            # calls returns, `declare -u v=x` moving what its carrier scope was charged)
            check_store(store_of(self), name)
            return original(self, *args, **kwargs)

        patch.setattr(cls, name, wrapper)

    def shell_store(ev: Evaluator) -> VarStore | None:
        state = getattr(ev.vars, "state", None)
        return state.vars if state is not None else None

    release = Scope.release
    clone = Scope.clone
    init = VarStore.__init__
    copy = VarStore._copy

    class Stack(list[Scope]):
        """A store's scopes, each checked as it is popped (call_function's `scopes.pop()`)."""

        def pop(self, *args: Any) -> Scope:
            scope = super().pop(*args)
            if id(scope) not in copied and scope.acct is not None:
                checks.released += 1
                wrong = _wrong(scope, "pop")
                if wrong is not None:
                    checks.wrong.append(wrong)
            return scope

    def checked_init(self: VarStore) -> None:
        init(self)
        self.scopes = Stack(self.scopes)
        # (the globals are never popped nor given back while their account is open: the
        # variables a shell starts with are charged to the account, not to them)
        copies.append(self.scopes[0])
        copied.add(id(self.scopes[0]))

    def checked_copy(self: VarStore, source: VarStore) -> None:
        copy(self, source)
        self.scopes = Stack(self.scopes)

    def checked_release(self: Scope) -> None:
        # (a function's or a command's: the collector may drop the globals of a shell made
        # before the check began, and those never agree, see above)
        if id(self) not in copied and self.acct is not None and (self.func or self.temp):
            checks.released += 1
            wrong = _wrong(self, "release")
            if wrong is not None:
                checks.wrong.append(wrong)
        release(self)

    def recorded_clone(self: Scope) -> Scope:
        new = clone(self)
        copies.append(new)
        copied.add(id(new))
        return new

    with pytest.MonkeyPatch.context() as patch:
        for method in ("lookup", "store_plain", "set_var", "get_str", "arith_get", "unset"):
            if hasattr(Variables, method):
                wrap(Variables, method, lambda va: va.state.vars)
        for method in (
            "find",
            "find_scope",
            "declare_local",
            "declare_locals",
            "declare_each",
            "push",
            "pop",
        ):
            wrap(VarStore, method, lambda store: store)
        wrap(Evaluator, "set", shell_store)
        patch.setattr(Scope, "release", checked_release)
        patch.setattr(Scope, "__del__", checked_release)
        patch.setattr(Scope, "clone", recorded_clone)
        patch.setattr(VarStore, "__init__", checked_init)
        patch.setattr(VarStore, "_copy", checked_copy)
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
def test_size_agrees_over_spec_cases(walker: bool) -> None:
    sys.path.insert(0, str(SPEC))
    try:
        from spec_loader import run_sandbash  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SPEC))
    cases = _spec_cases()
    assert len(cases) > 300
    with walking(walker), sized() as checks:
        for case in cases:
            run_sandbash(case)
    assert not checks.wrong, sorted(set(checks.wrong))[:20]
    assert checks.count > 10_000
    assert checks.released > 100


# shapes that charge a function's scope other than by `local NAME=WORD` and `NAME=WORD`
SHAPES = [
    # a call's temporary binding made local, exported, unset; a binding of a builtin inside
    'f() { local v; v+=$1; export w; unset u; }\nv=a w=b u=c f "$big"',
    # declare/typeset/readonly with values, arrays grown element by element and as a whole
    'f() { declare -a a=(1 2 "$1"); a+=("$1" x); a[7]=$1; local -A m=([k]=$1); m[j]=$1; unset "a[1]"; }\nf "$big"',
    'f() { local -i n=5; n+=7; typeset -u s=$1; readonly r=$1; local x=$1; unset x; x=$1; }\nf "$big"',
    # a caller's local charged by its callee: dynamic scope, namerefs, arithmetic, read, printf -v
    'g() { x=$1$1; local -n ref=y; ref=$1; (( z = 123456789 * 1000 )); read -r q <<< "$1"; printf -v p %s "$1"; }\n'
    'f() { local x y z q p; g "$1"; }\nf "$big"',
    # a subshell and a command substitution inside the call; eval and source of locals
    'f() { local s=$1; ( local t=$1; s=x ); v=$(local u=$1; echo ${#u}); eval "local e=\\$1"; }\nf "$big"',
    # mapfile and read -a into locals; a local array unset whole
    'f() { local -a m; mapfile -t m <<< "$1"; local -a r; read -ra r <<< "$1 $1"; unset m; }\nf "$big"',
]


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
@pytest.mark.parametrize("script", SHAPES)
def test_shapes_give_back_what_they_held(script: str, walker: bool) -> None:
    *defs, call = script.split("\n")
    setup = 'big=$(printf "%5000s"); big=${big// /é}\n' + "\n".join(defs)
    with sized() as checks:
        _, first = held_change(setup, f"{call}; {call}", walker)
        out, more = held_change(setup, "; ".join([call] * 20), walker)
    assert not checks.wrong, checks.wrong
    assert checks.released > 0
    # (the first calls may leave globals and hash entries: twenty leave no more than two)
    assert more - first < 1024, (out, first, more)


@pytest.mark.parametrize("walker", [False, True], ids=["compiled", "walked"])
def test_function_growing_locals_in_a_loop_ends_on_max_memory(walker: bool) -> None:
    """A call's locals are charged as they grow, and scopes given back as calls return make no
    room for more than max_memory: a function growing its locals in a loop ends on that limit,
    so does a recursion whose every level holds a larger local, while a loop of calls whose
    locals are given back runs to its end."""
    limits = Limits(max_memory=8 << 20, max_string_length=1 << 30, max_expansion_bytes=1 << 40)
    scripts = [
        "f() { local a=x b; while :; do a+=$a; b+=$a; done; }; f",
        'f() { local v=$1$1; (( ${#v} > 1 << 24 )) && return; f "$v"; }; f x; echo over',
        'f() { local v=$1 w; for ((i = 0; i < 1 << 20; i++)); do w+=$v; done; }; f "$(printf "%99s")"',
    ]
    for script in scripts:
        with walking(walker), pytest.raises(ExecutionLimitError) as e:
            Bash(limits=limits).exec(script)
        assert e.value.limit == "max_memory", script
    fine = 'f() { local v=$1$1$1$1; v+=$v; }; for ((i = 0; i < 3000; i++)); do f "$i$big"; done; echo $i'
    with walking(walker):
        r = Bash(limits=limits).exec(f'big=$(printf "%1000s"); {fine}')
    assert (r.stdout, r.exit_code) == ("3000\n", 0)
