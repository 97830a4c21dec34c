"""T-TEN-5 for the fast paths' process-wide caches: what they keep is charged to no run and outlives
it, so each is bounded in the text behind it, not only in entries.

The caches attacked here: cmdsub's plans of `$( )` bodies, of functions called in `$( )` and of
pipelines' first stages, with the outputs they make once (Plan.const, FuncPlan.const), the
arithmetic templates of `$(( ... $x ... ))` (expand/arithwords.py), the literal words known not to
glob (expand/segments.py, never cleared) and a shell's `case` tests (Compiler.case_tests). Before
their bounds, one run could leave the process holding (measured, each site run 30 times with ~200 KB texts): 12 MB of
syntax nodes per cache, 120 KB per `printf '%60000s'` constant (20 characters of text; 4096 of them
~500 MB), 400 KB per 4 KB arithmetic template (4096 of them ~1.6 GB, never cleared), 230 KB per
200 KB word with a lone `[`.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from sandbash import Bash
from sandbash.api import Session
from sandbash.expand import arithwords, segments
from sandbash.interp import cmdsub
from sandbash.limits import Limits

BIG = 200_000  # characters of one long text

# each site runs 30 times with $i distinct (eval makes a new node each time); `$s` is BIG characters
SITES = {
    "printf constant": "eval \"x=\\$(printf '%60000s' $i)\"",
    "echo of a long word": 'eval "x=\\$(echo $s$i)"',
    "long first stage": 'eval "echo $s$i | :"',
    "compound first stage": 'eval "{ : $s$i; } | :"',
    "function of long text": 'eval "f() { : $s$i; }"; x=$(f)',
    "function of a long echo": 'eval "f() { echo $s$i; }"; x=$(f)',
    "printf function": "eval \"f() { printf '%60000s' $i; }\"; x=$(f)",
    "arithmetic template": 'eval "x=\\$(( ${t}\\$y + $i ))"',
    "literal with an inactive glob character": 'eval "echo [$s$i >/dev/null"',
}

SETUP = f"s=$(printf '%{BIG}s' | tr ' ' a); t=$(seq 700 | tr '\\n' +); y=1; "


def _held_after(bash: Bash | Session, script: str) -> int:
    """Bytes still allocated after the run ended (measured from before it started)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = bash.exec(script)
        assert result.exit_code == 0, result
        assert result.stdout.endswith("ok\n"), result
        del result
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("site", SITES, ids=list(SITES))
def test_fast_path_caches_keep_nothing_a_run_made_from_long_text(site: str) -> None:
    bash = Bash(limits=Limits(timeout=60))
    bash.exec("x=$(echo warm); echo a | :; f() { echo b; }; x=$(f); y=1; x=$(( y + 1 ))")  # (imports)
    held = _held_after(bash, SETUP + f"for i in $(seq 30); do {SITES[site]}; done; echo ok")
    assert held < 3_000_000, f"{held} bytes held after the run"
    for cache, bound in ((cmdsub._PLANS, cmdsub._PLANS_HELD), (cmdsub._FUNCS, cmdsub._FUNCS_HELD)):
        assert bound.chars <= cmdsub._CHARS
        assert len(cache) <= cmdsub._CACHE_MAX
    assert cmdsub._STAGES_HELD.chars <= cmdsub._CHARS
    for _body, plan in cmdsub._PLANS.values():
        assert sum(len(w.text) for w in plan.cmd.words) <= cmdsub._LONGEST
        assert plan.const is None or len(plan.const[1]) <= cmdsub._LONGEST
    assert all(len(fdef.text) <= cmdsub._LONGEST for fdef, _ in cmdsub._FUNCS.values())
    assert all(type(cmd).__name__ == "SimpleCommand" for cmd, _ in cmdsub._STAGES.values())
    assert all(len(text) <= 256 for text in segments._NO_GLOB)
    templates = arithwords._ARITH_TEMPLATES
    assert all(len(text) <= templates.longest for text in templates.keys())
    assert templates.held() <= templates.chars


def test_plan_caches_are_bounded_in_text() -> None:
    """Many short texts: the caches start again past their bound in characters, as past their
    entries, and a made output counts in it (with its plan's words)."""
    bash = Bash(limits=Limits(timeout=60))
    # 600 distinct constants of 3000 characters: ~3.6 M characters made, over the bound of one cache
    r = bash.exec("for i in $(seq 600); do eval \"x=\\$(printf '%3000s' $i)\"; done; echo ${#x}")
    assert r.stdout == "3000\n", r
    assert cmdsub._PLANS_HELD.chars <= cmdsub._CHARS
    kept = sum(2 * len(p.const[1]) for _, p in cmdsub._PLANS.values() if p.const is not None)
    assert 0 < kept <= cmdsub._CHARS


@pytest.mark.parametrize(
    "script",
    [
        "get() { echo ok; }; for i in 1 2 3; do x=$(get); done; echo $x",
        "for i in 1 2 3; do x=$(printf '%5s' ok); done; echo $x",
        "for i in 1 2 3; do x=$(echo ok); done; echo $x",
    ],
)
def test_small_outputs_are_still_made_once(script: str) -> None:
    """The bound keeps the fast path: a small constant output is remembered by its plan."""
    r = Bash().exec(script)
    assert r.stdout.strip().endswith("ok"), r
    consts = [p.const for _, p in cmdsub._PLANS.values() if p.const is not None]
    funcs = [f.const for _, f in cmdsub._FUNCS.values() if f is not None and f.const is not None]
    assert consts or funcs


def test_a_shells_case_cache_is_bounded_by_the_trees_it_keeps() -> None:
    """The compiler's `case` tests (Compiler.case_tests, used by the walker too) are remembered with
    their node, which holds the bodies: like the compiled codes, they are bounded by the size of the
    trees they keep alive (_WEIGHT_MAX), not only by their number. 200 eval'd `case` commands with
    100 KB bodies left a session holding 40 MB after the run (2048 of them, ~400 MB)."""
    from sandbash.interp import compiler

    session = Bash(limits=Limits(timeout=60)).session()
    session.exec("case a in a) :;; esac")  # (imports)
    held = _held_after(
        session,
        "s=$(printf '%100000s' | tr ' ' a); for i in $(seq 200); do eval \"case a in a) : $s$i;; esac\"; done; echo ok",
    )
    assert held < 20_000_000, f"{held} bytes held after the run"
    comp = session.shell.ev.comp
    assert comp is not None
    assert comp.case_weight <= compiler._WEIGHT_MAX + 300_000


def test_arith_template_values_and_shapes_are_bounded() -> None:
    """A template (`$(( ${m[$w]:-0} + 1 ))`, arithwords) is cached by its shape: distinct values
    through it add nothing to the text cache (arith._COMPILED gave an entry to each new text, 3000
    of them here), and distinct shapes, each run past the hot tier so that it has a generated
    function, stay within the template cache's bound in text and the generated functions' bound."""
    from sandbash.expand import arith

    arith._COMPILED.clear()
    r = Bash().exec(
        "declare -A m; w=k; for ((i=0;i<3000;i++)); do m[$w]=$(( ${m[$w]:-0} + 7919 )); done; echo ${m[k]}"
    )
    assert r.stdout == f"{3000 * 7919}\n", r
    assert len(arith._COMPILED._data) < 50
    script = (
        'for i in $(seq 400); do eval "f() { for ((j=0;j<300;j++)); do x=\\$(( \\$j * $i + \\${#x} )); done; }";'
        " f; done; echo $x ok"
    )
    r = Bash(limits=Limits(timeout=120)).exec(script)
    assert r.stdout == f"{299 * 400 + len(str(298 * 400 + 6))} ok\n", r
    templates = arithwords._ARITH_TEMPLATES
    assert templates.held() <= templates.chars
    assert all(len(text) <= templates.longest for text in templates.keys())
    assert arith._COMPILED.generated <= arith.GEN_CHARS
    hot = [
        hit[0]
        for hit in templates._data.values()
        if hit[0] is not None and hit[0][0].calls >= arith.HOT_CALLS
    ]
    assert hot  # (the shapes did reach the generated tier)
