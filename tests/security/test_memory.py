"""Memory bombs in the interpreter: every run ends with a named limit, in bounded memory.

Each row runs in a forked child under RLIMIT_AS (see secharness.py) with the
default profile (max_memory 256 MB) unless it says otherwise; `verify_bomb`
checks the limit that ended it, that it ended within its timeout plus 2 s, the
child's peak resident growth (under max_memory + 150 MB) and that no Python
exception escaped. Rows marked "lifted" raise max_expansion_bytes (the per-run
bound on expanded text, which would otherwise stop them first) so that the
memory budget itself is what ends them.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import BOMB_RSS_SLACK, Outcome, batch, param, pooled, run_isolated, verify_bomb

from sandbash import Bash, ExecutionLimitError

MEM = ("max_memory",)
LIFT = {"max_expansion_bytes": 10**12}
# a 9 MB value: under max_string_length (10 MiB) so only the total can stop the bombs built on it
BIG = "x=$(printf '%9000000s'); "
# a 1 MB value of letters (word splitting leaves it whole)
MB = "x=$(printf '%1000000s' | tr ' ' a); "
# forty 9 MB lines on a stream
LINES = "<(for i in {1..40}; do printf '%9000000s\\n' $i; done)"


def bomb(
    case_id: str,
    script: str,
    expect: tuple[str, ...] = MEM,
    *,
    lifted: bool = True,
    timeout: float = 10,
    profile: str = "default",
    overrides: dict[str, float] | None = None,
    **kw: Any,
) -> Any:
    over = {**(LIFT if lifted else {}), **(overrides or {})}
    return param(case_id, script, timeout=timeout, profile=profile, expect=expect, overrides=over, **kw)


CASES = [
    # the issue's own example, as is: the per-run expansion bound or the memory budget ends it
    bomb(
        "array-of-big-values",
        BIG + "for i in {1..250}; do a[i]=$x$i; done",
        ("max_memory", "max_expansion_bytes"),
        lifted=False,
    ),
    bomb("array-of-big-values-lifted", BIG + "for i in {1..250}; do a[i]=$x$i; done"),
    bomb("scalar-variables", BIG + 'for i in {1..250}; do eval "v$i=\\$x\\$i"; done'),
    bomb("assoc-array", BIG + "declare -A m; for i in {1..250}; do m[k$i]=$x$i; done"),
    bomb("array-append-elements", BIG + "for i in {1..250}; do a[i]=$x; a[i]+=$i; done"),
    bomb("array-compound-append", BIG + 'for i in {1..250}; do a+=("$x$i"); done'),
    bomb(
        "many-small-variables",
        "y=$(printf '%100000s'); for ((i=0;;i++)); do eval \"v$i=\\$y\"; done",
        timeout=20,
    ),
    bomb("locals-in-recursion", BIG + "f(){ local v=$x$1; f $(($1 + 1)); }; f 0"),
    bomb("arguments-in-recursion", BIG + 'f(){ f "$1" "$x"; }; f 0'),
    bomb(
        "arguments-doubling",
        'f(){ f "$@" "$@"; }; f a',
        # (a function's words: an array's worth, 100,000 here, plus max_arguments)
        ("max_array_elements", "max_memory", "max_call_depth"),
        overrides={"max_array_elements": 100_000},
    ),
    bomb(
        "positional-growing",
        BIG + 'for i in {1..200}; do set -- "$@" "$x"; done',
        ("max_argument_bytes", "max_memory"),
    ),
    bomb(
        "heredoc-in-loop", "x=$(printf '%900000s'); for ((i=0;;i++)); do a[i]=$(cat <<EOF\n$x$i\nEOF\n); done"
    ),
    bomb("herestrings-kept-on-fds", BIG + 'for i in {3..200}; do eval "exec $i<<<\\"\\$x\\$i\\""; done'),
    bomb(
        "heredocs-kept-on-fds",
        "x=$(printf '%900000s'); for i in {3..900}; do eval \"exec $i<<EOF\n\\$x\\$i\nEOF\"; done",
    ),
    bomb("captures-in-loop", "for i in {1..300}; do a[i]=$(printf '%9000000s'); done"),
    bomb("mapfile-big-lines", "mapfile -t a < " + LINES),
    bomb("mapfile-endless", "yes | mapfile a", ("max_array_elements", "max_memory"), lifted=False),
    bomb("read-loop-big-lines", 'while IFS= read -r l; do a+=("$l"); done < ' + LINES),
    bomb(
        "read-fields-big-lines",
        "while read -r k v; do a+=(\"$v\"); done < <(y=$(printf '%9000000s' | tr ' ' v);"
        ' for i in {1..40}; do echo "k $y$i"; done)',
        timeout=20,
    ),
    bomb(
        "function-bodies",
        "x=$(printf '%250000s' | tr ' ' a); for i in {1..600}; do eval \"f$i(){ echo $x$i; }\"; done",
        profile="hardened",
        timeout=20,
    ),
    bomb(
        "function-bodies-dense",
        "s=':;'; while ((${#s} < 8000)); do s=$s$s; done; for ((i=0;;i++)); do eval \"f$i(){ $s }\"; done",
        profile="hardened",
        overrides={"max_memory": 16 << 20},
    ),
    bomb("child-shell-arrays", "export " + BIG + "bash -c 'for i in {1..250}; do a[i]=$x$i; done'"),
    bomb("pipeline-stage-arrays", BIG + "for i in {1..250}; do a[i]=$x$i; done | cat"),
    bomb("subshell-arrays", BIG + "(for i in {1..250}; do a[i]=$x$i; done)"),
    bomb("background-job-arrays", BIG + "{ for i in {1..250}; do a[i]=$x$i; done; } & wait"),
    bomb("command-sub-arrays", BIG + "y=$(for i in {1..250}; do a[i]=$x$i; done)"),
    bomb("process-sub-arrays", BIG + "cat <(for i in {1..250}; do a[i]=$x$i; done)"),
    bomb("unset-does-not-hide-growth", BIG + "for i in {1..250}; do a[i]=$x$i; unset b; b=1; done"),
    bomb("hardened-array", MB + "for i in {1..200}; do a[i]=$x$i; done", profile="hardened"),
    bomb(
        "hardened-recursion-locals",
        MB + "f(){ local v=$x$1; f $(($1 + 1)); }; f 0",
        profile="hardened",
        expect=("max_memory", "max_call_depth"),
    ),
    # bounds that stop a value from being built at all
    bomb("capture-endless", "x=$(yes)", ("max_string_length", "max_output_size"), lifted=False),
    bomb(
        "capture-doubling",
        "x=a; while :; do x=$(echo $x$x); done",
        ("max_string_length", "max_argument_bytes"),
        lifted=False,
    ),
    bomb("value-doubling", "x=a; while :; do x=$x$x; done", ("max_string_length",), lifted=False),
    bomb(
        "words-of-one-command",
        # (a program's words: a builtin's may be as long as half of max_memory, Limits.shell_words)
        MB + "cat $x$x$x$x$x $x$x$x$x$x $x$x$x$x$x",
        ("max_argument_bytes",),
        lifted=False,
    ),
    bomb(
        "fields-of-one-expansion",
        "y='a a a a a a a a'; while ((${#y} < 4000000)); do y=$y$y; done; set -- $y",
        ("max_array_elements", "max_arguments"),
        lifted=False,
        # (the count bound this row is about, at its old default: a million words took 3 s of
        # CPU on a loaded host, past the row's time)
        overrides={"max_array_elements": 100_000},
    ),
    bomb(
        "array-doubling",
        'a=(x); while :; do a=("${a[@]}" "${a[@]}"); done',
        ("max_array_elements", "max_arguments"),
        lifted=False,
        overrides={"max_array_elements": 100_000},
    ),
    bomb("expanded-text-per-run", MB + 'while :; do y="$x"; done', ("max_expansion_bytes",), lifted=False),
    bomb(
        "endless-line",
        "head -c 50000000 /dev/zero | tr '\\0' a | { read -r l; echo ${#l}; }",
        ("max_string_length",),
        lifted=False,
    ),
    bomb("eval-nesting", 's=\'eval "$s"\'; eval "$s"', ("max_substitution_depth",), lifted=False),
    bomb(
        "process-sub-nesting",
        "f(){ cat <(f); }; f",
        ("max_substitution_depth", "max_threads", "max_call_depth"),
        lifted=False,
    ),
    bomb(
        "fds-count",
        "for i in $(seq 3 100000); do exec {fd}>/dev/null; done",
        ("max_file_descriptors",),
        lifted=False,
    ),
    # what a Session keeps between runs
    bomb(
        "session-retained",
        "echo more",
        ("max_session_memory",),
        session_scripts=(BIG + "for i in {1..20}; do a[i]=$x$i; done",),
    ),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_memory_bomb_ends_with_a_named_limit")


@pytest.mark.parametrize("case", CASES)
def test_memory_bomb_ends_with_a_named_limit(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])


# ------------------------------------------------------------ what is released is not charged again

RELEASED = [
    # each holds at most one 9 MB value at a time, N=60 times over: 540 MB (twice max_memory) if
    # nothing were released
    "for ((i = 1; i <= N; i++)); do y=$x$i; done",
    "for ((i = 1; i <= N; i++)); do a[0]=$x$i; done",
    "for ((i = 1; i <= N; i++)); do a[i]=$x$i; unset 'a[i]'; done",
    'for ((i = 1; i <= N; i++)); do a=("$x$i"); done',
    "for ((i = 1; i <= N; i++)); do y=$x$i; unset y; done",
    "f(){ local v=$x$1; }; for ((i = 1; i <= N; i++)); do f $i; done",
    'f(){ :; }; for ((i = 1; i <= N; i++)); do f "$x$i"; done',
    'for ((i = 1; i <= N; i++)); do y=$(printf %s "$x"); done',
    "for ((i = 1; i <= N; i++)); do (y=$x$i); done",
    'for ((i = 1; i <= N; i++)); do echo "$x$i" | wc -c >/dev/null; done',
    "declare -A m; for ((i = 1; i <= N; i++)); do m[k]=$x$i; done",
    "for ((i = 1; i <= N; i++)); do y=$x; y+=$i; done",
    'for ((i = 1; i <= N; i++)); do cat <<<"$x$i" >/dev/null; exec 3<<<"$x$i"; done',
]


@pytest.mark.parametrize("script", RELEASED)
def test_released_memory_is_given_back(script: str) -> None:
    specs: dict[str, dict[str, Any]] = {
        s: {
            "script": "N=60; " + BIG + s + "; echo done",
            "limits": "default",
            "overrides": {"timeout": 20, **LIFT},
        }
        for s in RELEASED
    }
    out = pooled("released", specs)[script]
    if out.kind == "hang" or out.limit == "timeout":  # a loaded host: once more on its own
        out = run_isolated(**specs[script])
    assert out.kind == "result" and out.stdout.endswith(b"done\n"), out.describe()
    # and what the process really holds stays within the budget too
    assert out.extra["peak_rss"] <= out.max_memory + BOMB_RSS_SLACK, out.extra["peak_rss"] >> 20


def test_session_runs_see_what_the_session_holds() -> None:
    sess = Bash().session()
    sess.exec(BIG + "for i in {1..10}; do a[i]=$x$i; done", limits=LIFT)  # 90 MB kept
    with pytest.raises(ExecutionLimitError) as e:
        sess.exec(
            "for i in {11..30}; do a[i]=$x$i; done",
            limits={"max_session_memory": 10**12, "max_expansion_bytes": 10**12},
        )
    assert e.value.limit == "max_memory"


def test_session_over_its_cap_starts_over() -> None:
    sess = Bash().session()
    sess.exec("cd /tmp")
    with pytest.raises(ExecutionLimitError) as e:
        sess.exec(
            BIG + "for i in {1..20}; do a[i]=$x$i; done; echo kept", limits={"max_expansion_bytes": 10**12}
        )
    assert e.value.limit == "max_session_memory"
    assert e.value.result.stdout == "kept\n"  # the run's own result is reported
    r = sess.exec("echo ${#a[@]} $PWD")
    assert r.stdout == "0 /tmp\n"  # a fresh shell, in the same directory
