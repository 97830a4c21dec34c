"""An attacker's review of the fast paths (twelfth session): compiled closures, direct calls,
Vfs.open's one walk, read's split, element stores, Budget.command_stop and the process's caches.
Every case runs compiled and walked (the `walker` fixture); hostile scripts only in the sandbox.

- Deadline: a variable whose value is an expression is evaluated again at each reference
  (a0=1 a1='a0+a0' ... a40='a39+a39': 2**40 evaluations from 40 short texts, no command among
  them); nothing read the clock there, so `(( a40 ))` outlived any timeout (both ways).
- Process caches: field splitting's IFS delimiters (expand/fields.py) kept the first 64 IFS values
  whole, each up to max_string_length long, with two patterns as long, and `re` kept its last 512
  patterns: held by the process after the run, charged to none; so did awk's printf plans (256
  formats) and the TZ zones (64 values, each zone named after the value's letters).
- Robustness: a TZ offset of a day or more was a ValueError out of Bash.exec (printf's %(...)T).
- Values expanded as text: `local v=...` (compiled, and the builtin's plain path) and compound
  items `[k]=v` stored values past max_string_length (only max_memory bounded them).
- Policy and audit: the fast paths decide and record as the walker does (deny lists naming the
  builtins the closures call directly, enable -n, functions named like them, audit-only runs).
- Files: the open fast path refuses what the general walk refuses under read-only grants (links,
  `..`, a directory replaced by a link to a read-only one between two opens of the same path).
- Sessions: a closure compiled under one run's limits obeys the next run's.
"""

from __future__ import annotations

import gc
import re
import tracemalloc
from typing import Any

import pytest
from secharness import assert_ends, run_isolated

from sandbash import Bash
from sandbash.audit import Audit
from sandbash.errors import ExecutionLimitError
from sandbash.expand import fields
from sandbash.interp import evaluator as evaluator_module
from sandbash.limits import Limits
from sandbash.policy import Policy
from sandbash.vfs.facade import Vfs


@pytest.fixture(params=[False, True], ids=["compiled", "walked"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", request.param)
    return bool(request.param)


# ------------------------------------------------------------ deadline

# a0=1, a<i>='a<i-1>+a<i-1>' (and variants): each reference to a40 is 2**40 evaluations
CHAIN = "a0=1; for ((i = 1; i <= 40; i++)); do printf -v a$i 'a%d + a%d' $((i - 1)) $((i - 1)); done; "
ARITH_SITES = {
    "$(( ))": "x=$(( a40 ))",
    "(( ))": "(( a40 ))",
    "let": "let x=a40",
    "declare -i": "declare -i x; x=a40",
    "[[ -eq ]]": "[[ a40 -eq 1 ]]",
    "subscript": "b[a40]=1",
    "substring": "s=abc; x=${s:a40}",
    "for (( ))": "for ((i = 0; i < a40; i++)); do :; done",
    "in a function": "f() { local y; (( y = a40 )); }; f",
    "hot text": "for ((k = 0; k < 300; k++)); do (( y = k > 298 ? a40 : 0 )); done",
    "element values": 'c=(1); for ((i = 1; i <= 40; i++)); do c[i]="c[$((i - 1))] * 2 - c[$((i - 1))]"; done; (( c[40] ))',
    "assoc values": 'declare -A m=([0]=1); for ((i = 1; i <= 40; i++)); do m[$i]="m[$((i - 1))]+m[$((i - 1))]"; done; (( m[40] ))',
}


@pytest.mark.parametrize("site", ARITH_SITES, ids=list(ARITH_SITES))
def test_expression_values_answer_to_the_deadline(site: str, walker: bool) -> None:
    out = run_isolated(
        CHAIN + ARITH_SITES[site] + "; echo finished",
        limits="hardened",
        overrides={"timeout": 1.5, "max_command_count": 10**9, "max_work": 10**12},
    )
    assert out.kind == "limit" and out.limit == "timeout", out.describe()
    assert_ends(out, by_cpu=True)


def test_expression_values_still_evaluate(walker: bool) -> None:
    """The deadline's tick changes nothing a bounded chain gives (2**16 evaluations)."""
    r = Bash().exec(CHAIN.replace("40", "16") + "echo $(( a16 )); (( y = a16 + 1 )); let z=a16*2; echo $y $z")
    assert (r.stdout, r.exit_code) == ("65536\n65537 131072\n", 0)


# ------------------------------------------------------------ process-wide caches

LONG = 200_000


def _held_after(bash: Bash, script: str) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        r = bash.exec(script)
        assert r.exit_code == 0 and r.stdout.endswith("ok\n"), r
        del r
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


IFS_VALUES = {
    # one character repeated: 200,000 characters of key and pattern for a one-character class
    "repeated": f"s=$(printf '%{LONG}s' | tr ' ' :)",
    # whitespace and others mixed
    "mixed": f"s=$(printf '%{LONG // 2}s' | tr ' ' ,)' '",
    # many distinct characters (a class of ~300 after de-duplication): kept by `re` itself
    "distinct": "s=$(printf '%b' $(for ((c = 0x4e00; c < 0x4e00 + 300; c++)); do printf '\\\\u%x' $c; done))",
}


@pytest.mark.parametrize("value", IFS_VALUES, ids=list(IFS_VALUES))
def test_long_ifs_values_are_not_kept(value: str, walker: bool) -> None:
    fields._DELIMITERS.clear()
    bash = Bash(limits=Limits(timeout=60))
    bash.exec("x='a b'; y=($x)")  # (imports)
    script = (
        IFS_VALUES[value] + "; for i in $(seq 30); do IFS=$s$i; x=a:b,c9d; y=($x); done; IFS=' '; echo ok"
    )
    held = _held_after(bash, script)
    # (was 9-13 MB: the values and their patterns)
    assert held < 2_500_000, f"{held} bytes held after the run"
    assert all(len(key) <= fields._DELIMITER_LONGEST for key in fields._DELIMITERS)
    assert all(len(p) <= 4096 for _t, p, _f in re._cache), "re's cache holds a long pattern"  # type: ignore[attr-defined]


# other process caches keyed by a script's text: awk's printf plans (commands/awk/fmt._PLANS, 256
# formats of any length) and the zones of TZ values (posix/zones, 64 of any length, each zone named
# after the value's letters): 40 values of 100,000 characters left 8.7 and 6.0 MB
KEYED_BY_TEXT = {
    "awk format": "echo x | awk -v f=\"$s$i%s\\n\" '{printf f, $1}' >/dev/null",
    "TZ of date": "TZ=$s date -d @$i +%Z >/dev/null; TZ=$s$((i % 20)):$i date >/dev/null",
    "TZ of printf": "TZ=$s$((i % 20)):$i printf '%(%Z)T' 0 >/dev/null",
}


@pytest.mark.parametrize("site", KEYED_BY_TEXT, ids=list(KEYED_BY_TEXT))
def test_caches_keyed_by_text_keep_no_long_text(site: str, walker: bool) -> None:
    bash = Bash(limits=Limits(timeout=60))
    bash.exec("echo a | awk '{printf \"%s\\n\", $1}'; TZ=EST5 date >/dev/null; echo | wc -c")  # (imports)
    # values of this case's own (a cache warmed by another case would hide the growth)
    own = "b" * (2 * list(KEYED_BY_TEXT).index(site) + walker + 1)
    setup = f"s=$(printf '%100000s' | tr ' ' a){own}; "
    held = _held_after(bash, setup + f"for i in $(seq 40); do {KEYED_BY_TEXT[site]}; done; echo ok")
    assert held < 2_500_000, f"{held} bytes held after the run"


SPLITS = [":", ":,", " :", " \t\n", ",:;", "a"]


@pytest.mark.parametrize("chars", SPLITS)
def test_long_ifs_splits_as_its_characters(chars: str, walker: bool) -> None:
    """A long IFS value (each character many times) splits as the short one."""
    text = "a:b,,c d\t;e :f,  g;"
    script = f"x='{text}'; for n in 1 400; do IFS=$(printf \"%.0s$chars\" $(seq $n)); y=($x); IFS=' '; echo \"${{#y[@]}} ${{y[*]}}\"; done"
    r = Bash().exec(script)
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1], r


# ------------------------------------------------------------ values expanded as text

# a declaration's or a compound item's value is expanded as text (no word charge): the store
# checks max_string_length, as set_var does; `local v=...` (VarStore.declare_local(s), compiled
# and the builtin's _local_plain) and `[k]=v` items (Variables.set_array) did not
TEXT_VALUES = {
    "local": "f() { local t=$s$s; }; f",
    "local of two": "f() { local u=1 t=$s$s; }; f",
    "local in a loop": 'f() { local t=$1; }; for i in 1 2 3; do f $s$s; f "$s$s"; done',
    "local -A item": "f() { local -A m=([k]=$s$s); }; f",
    "local -a item": "f() { local -a a=([2]=$s$s); }; f",
    "declare -A item": "declare -A m=([k]=$s$s)",
    "declare -A pair": 'declare -A m=(k "$s$s")',
    "indexed item": "a=([1]=$s$s)",
    "quoted item": 'a=([0]="$s$s")',
    "appended item": "declare -A m; m+=([k]=$s$s)",
    "hot local": "f() { local t=$1$1; }; for ((i = 0; i < 300; i++)); do f x; done; f $s",
}


@pytest.mark.parametrize("shape", TEXT_VALUES, ids=list(TEXT_VALUES))
def test_values_expanded_as_text_are_bounded(shape: str, walker: bool) -> None:
    bash = Bash(limits=Limits(timeout=60, max_string_length=8000))
    with pytest.raises(ExecutionLimitError) as e:
        bash.exec("s=$(printf '%5000s' x); s=${s// /y}; " + TEXT_VALUES[shape] + "; echo not reached")
    assert e.value.limit == "max_string_length"
    # under the limit the same shapes run
    r = bash.exec("s=$(printf '%3000s' x); s=${s// /y}; " + TEXT_VALUES[shape] + "; echo ok")
    assert (r.stdout, r.exit_code) == ("ok\n", 0), r


# ------------------------------------------------------------ policy and audit

# the closures' direct paths: builtins called without dispatch, let/test/[ compiled, functions,
# element stores, read's split, opens of plain paths
POLICY_SCRIPTS = {
    "builtins": "for i in 1 2 3; do let x++; test $x -gt 0; [ $x -gt 0 ]; echo $x; printf '%s\\n' $x; done",
    "enable -n": "enable -n echo test; for i in 1 2 3; do echo $i; test -n x && printf t; done",
    "function named like": "echo() { printf 'f%s\\n' \"$@\"; }; for i in 1 2 3; do echo $i; done; unset -f echo; echo end",
    "alias": "shopt -s expand_aliases; alias p=printf\nfor i in 1 2 3; do p '%s\\n' $i; done",
    "hash and PATH": "for i in 1 2; do hash -p /bin/printf echo; echo -n x$i; PATH=/nowhere; echo y; PATH=/bin; done",
    "direct calls": "f() { let y+=$1; printf '%d\\n' $y; }; for i in 1 2 3 4 5; do f $i; done",
    "calls of big words": "s=$(printf '%9000s' x); f() { printf '%d\\n' ${#1}; }; for i in 1 2 3; do f \"$s\"; done",
    "element stores": "a=(); for i in 1 2 3; do a[i]=$i; (( a[i%2]++ )); done; printf '%s\\n' \"${a[@]}\"",
    "read": "printf 'a b\\nc d\\n' > /out/r; while read -r l; do printf '%s\\n' \"$l\"; done < /out/r",
    "opens": "for i in 1 2 3; do echo $i >> /out/f; echo $i >> /data/f; cat /out/f; done",
}
POLICIES = {
    "deny builtins": lambda: Policy(
        deny=["printf", "let", "test", "["], paths=["/data:ro", "/out:rw"], name="d"
    ),
    "allow list": lambda: Policy(["echo", "cat"], paths=["/data:ro", "/out:rw"], name="a"),
}


_TIMING = re.compile(r"time|duration|elapsed|cpu|run_id|seq|peak|memory")  # (differ run to run)


def _sandbox(policy: Policy | None, events: list[dict[str, Any]]) -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    view.mkdir("/data", parents=True)
    view.mkdir("/out", parents=True)
    view.write_bytes("/data/f", b"kept\n")
    return Bash(fs=vfs, cwd="/out", policy=policy, audit=Audit(sinks=[events.append]))


def _run_both(script: str, policy: str | None) -> list[tuple[str, str, int, list[dict[str, Any]], bytes]]:
    got = []
    for walk in (False, True):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(evaluator_module, "TREE_WALKER", walk)
            events: list[dict[str, Any]] = []
            bash = _sandbox(POLICIES[policy]() if policy else None, events)
            r = bash.exec(script)
            bash.vfs.gate = None
            data = bash.vfs.view("/").read_bytes("/data/f")
        shown = [{k: v for k, v in e.to_dict().items() if not _TIMING.search(k)} for e in events]
        got.append((r.stdout, r.stderr, r.exit_code, shown, data))
    return got


@pytest.mark.parametrize("policy", [*POLICIES, None], ids=[*POLICIES, "audit only"])
@pytest.mark.parametrize("script", POLICY_SCRIPTS, ids=list(POLICY_SCRIPTS))
def test_fast_paths_decide_and_record_as_the_walker(script: str, policy: str | None) -> None:
    compiled, walked = _run_both(POLICY_SCRIPTS[script], policy)
    assert compiled[:3] == walked[:3]
    assert compiled[4] == walked[4]
    if policy is not None:
        assert compiled[4] == b"kept\n"  # a read-only grant holds
    assert compiled[3] == walked[3]
    if policy == "deny builtins" and script == "builtins":
        assert "policy denied" in compiled[1]


# ------------------------------------------------------------ files

FILE_ATTACKS = {
    "plain": "echo x >> /data/f",
    "dot-dot": "echo x >> /out/../data/f",
    "dot": "echo x >> /data/./f",
    "double slash": "echo x >> //data//f",
    "relative": "cd /data; echo x >> f",
    "link to file": "ln -sf /data/f /out/l; echo x >> /out/l",
    "link to dir": "ln -sfn /data /out/d; echo x >> /out/d/f",
    "dir replaced by a link": "rm -rf /out/d; mkdir -p /out/d; echo y >> /out/d/f; rm -rf /out/d; ln -s /data /out/d; echo x >> /out/d/f",
    "renamed under": "mkdir -p /out/e; echo y > /out/e/f; mv /out/e /out/g; ln -sfn /data /out/e; echo x >> /out/e/f",
    "truncate": "echo x > /data/f",
    "read-write": "echo x 1<> /data/f",
    "noclobber": "set -C; echo x >| /data/f",
    "case": "echo x >> /DATA/f; echo x >> /Data/f",
}


@pytest.mark.parametrize("attack", FILE_ATTACKS, ids=list(FILE_ATTACKS))
def test_open_fast_path_keeps_read_only_grants(attack: str) -> None:
    script = f"for i in 1 2 3; do {FILE_ATTACKS[attack]}; done 2>&1; cat /data/f"
    compiled, walked = _run_both(script, "deny builtins")
    assert compiled[:3] == walked[:3]
    assert compiled[4] == walked[4] == b"kept\n"
    assert compiled[3] == walked[3]


# ------------------------------------------------------------ sessions

SESSION_SHAPES = {
    "function": ("f() { (( n++ )); }", "for ((k = 0; k < 300; k++)); do f; done"),
    "let": ("g() { let n++; }", "for ((k = 0; k < 300; k++)); do g; done"),
    "element": ("h() { a[k]=$k; }", "for ((k = 0; k < 300; k++)); do h; done"),
    "builtin": ("p() { printf -v v %s $k; }", "for ((k = 0; k < 300; k++)); do p; done"),
}
STORES = {
    "element": "h() { a[k]=$s$s; }",
    "scalar": "h() { t=$s$s; }",
    "local": "h() { local t=$s$s; }",
    "assoc": "declare -A m; h() { m[$k]=$s$s; }",
    "append": 'h() { a+=("$s$s"); }',
}


@pytest.mark.parametrize("shape", SESSION_SHAPES, ids=list(SESSION_SHAPES))
def test_closures_obey_the_next_runs_command_count(shape: str, walker: bool) -> None:
    define, loop = SESSION_SHAPES[shape]
    sess = Bash(limits=Limits(timeout=60)).session()
    sess.exec(define + "; " + loop + "; " + loop)  # compiled and hot under the first run's limits
    with pytest.raises(ExecutionLimitError) as e:
        sess.exec(loop, limits=Limits(timeout=60, max_command_count=100))
    assert e.value.limit == "max_command_count"
    assert sess.exec("echo ok").stdout == "ok\n"


@pytest.mark.parametrize("store", STORES, ids=list(STORES))
def test_closures_obey_the_next_runs_string_length(store: str, walker: bool) -> None:
    sess = Bash(limits=Limits(timeout=60)).session()
    sess.exec("a=(); s=x; " + STORES[store] + "; for ((k = 0; k < 300; k++)); do h; done")
    with pytest.raises(ExecutionLimitError) as e:
        sess.exec("s=$(printf '%5000s' x); k=7; h", limits=Limits(timeout=60, max_string_length=8000))
    assert e.value.limit == "max_string_length"
    assert sess.exec("echo ok").stdout == "ok\n"


# ------------------------------------------------------------ robustness

# TZ offsets of 24 hours and more (glibc takes up to 24:59:59, then clamps): datetime refuses a
# day's offset, and the ValueError escaped Bash.exec through printf's %(...)T
TZ_SHAPES = ["EST40", "EST24", "EST-30", "aaaa99", "EST5EDT40", "EST5EDT4,M3.2.0/50,M11.1.0", "EST5:99:99"]


@pytest.mark.parametrize("tz", TZ_SHAPES)
def test_tz_offsets_past_a_day_are_no_python_error(tz: str, walker: bool) -> None:
    script = f"TZ={tz} printf '%(%H)T\\n' 0; TZ={tz} date -d @0 +%H; export TZ={tz}; printf '%(%H)T\\n' 0; echo done"
    r = Bash().exec(script)
    assert (r.stdout.endswith("done\n"), r.exit_code, r.stderr) == (True, 0, ""), r
    assert len(set(r.stdout.splitlines()[:3])) == 1, r
