"""`while read` loops (issue 23, pf-read35): the compiled `read` (fastread.read_code) takes the field
of one name under the default or an empty IFS without split_read_fields' call, in the closure and
in a generated loop's condition. The results are the walker's for every read shape, input and
change made in the middle of a generated loop (the variables read into, IFS, a function or `enable
-n` hiding the builtin, traps, `set -x`, `set -e`), and the policy, the audit and the run's limits
decide as they did; the same loops against bash are tests/spec/cases/pf-read35.txt."""

from __future__ import annotations

import threading

import pytest

from sandbash import Bash, CancelToken, ExecutionCancelled, ExecutionLimitError, Policy
from sandbash.interp import compiler, loopgen

from .walking import compiled_and_walked, started_argvs, walking

LINES = "".join(f"user{i},item{i % 7}, {i % 5} \n" for i in range(2500))
ODD = (
    " \t \n\t\n \r x \v\n\f\n"
    + "".join(f"  a\\{i}  b\tc \n\n" if i % 3 else f"x{i}\\\ny{i}\n" for i in range(3500))
    + "last,no newline"
)
FILES = {"/d/f.csv": LINES, "/d/odd.txt": ODD, "/d/nul.txt": "".join(f"r{i}\0" for i in range(2500))}


def _generated(comp: compiler.Compiler) -> list[bool]:
    """For each loop of `comp` asked for: whether it was handed to a generated function."""
    return [
        getattr(getattr(run, "__code__", None), "co_filename", "") == loopgen.FILE
        for _, run in comp.whiles.values()
    ]


def _both(script: str, **kw: object) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    """The script's (stdout, stderr, status) over FILES compiled, then walked."""
    return compiled_and_walked(script, files=FILES, **kw)


# the forms a model writes, over each input: each past loopgen.PLAIN_STEPS, handed over
WRITTEN = [
    'while read -r line; do x=$line; done < /d/f.csv; echo "[$x] $?"',
    'while IFS= read -r line; do x=$line; done < /d/f.csv; echo "[$x]"',
    'while IFS=, read -r a b c; do x=$c; done < /d/f.csv; echo "[$a|$b|$c|$x]"',
    'while read -r -a arr; do x=${arr[1]}; done < /d/f.csv; echo "${#arr[@]} [$x]"',
    'while IFS=, read -r -a arr; do x=${arr[2]}; done < /d/f.csv; echo "${#arr[@]} [$x]"',
    "while read -r -d '' v; do x=$v; done < /d/nul.txt; echo \"[$x] [$v]\"",
    'while read; do x=$REPLY; done < /d/odd.txt; echo "[$x] [$REPLY]"',
    'while read a b; do x=$a; y=$b; done < /d/odd.txt; echo "[$x] [$y] [$a]"',
    "while IFS=' ,' read -r a b; do x=$b; done < /d/f.csv; echo \"[$x]\"",
    # one name: IFS the default (unset, set to it, bound to it), empty, or another white space
    'while read -r l; do s+="<$l>"; done < /d/odd.txt; echo "$s [$x] [$l]"',
    'while read -r -d b l; do s+="<$l>"; done < /d/odd.txt; echo "$s [$x] [$l]"',
    'unset IFS; while read -r l; do s+="<$l>"; done < /d/odd.txt; echo "$s [$x] [$l]"',
    'IFS=$\' \\t\\n\'; while read -r l; do s+="<$l>"; done < /d/odd.txt; echo "$s [$x]"',
    'while IFS=$\' \\t\\n\' read -r l; do s+="<$l>"; done < /d/odd.txt; echo "$s [$x]"',
    'while IFS= read -r -d b l; do s+="<$l>"; done < /d/odd.txt; echo "$s [$x] [$l]"',
    'IFS=\' \'; while read -r l; do s+="<$l>"; done < /d/odd.txt; echo "$s [$x]"',
    'f() { local IFS=$\'\\t\'; while read -r l; do s+="<$l>"; done < /d/odd.txt; }; f; echo "$s [$x]"',
    "cat /d/f.csv | while read -r line; do x=$line; done; echo $?",
    'cat /d/f.csv | { while IFS=, read -r a b c; do x=$a; done; echo "[$x]"; }',
    'while IFS=, read -r a b; do x=$a; done < <(cat /d/f.csv); echo "[$x] [$b]"',
    'while read -r l; do x=$l; done <<< "$(cat /d/odd.txt)"; echo "[$x]"',
    'exec 3< /d/f.csv; while read -r -u 3 l; do x=$l; done; echo "[$x]"',
    'while read -r -n 4 l; do x=$l; done < /d/f.csv; echo "[$x]"',
    'while read -r -N 3 l; do x=$l; done < /d/f.csv; echo "[$x]"',
    'f() { local l x; while read -r l; do x=$l; done < /d/f.csv; echo "[$x]"; }; f',
]


@pytest.mark.parametrize("script", WRITTEN)
def test_a_generated_read_loop_does_what_the_walker_does(
    script: str, compilers: list[compiler.Compiler]
) -> None:
    compiled, walked = _both(script)
    assert compiled == walked
    # (the compiled run's shells: its own and a pipeline's or a substitution's)
    assert any(True in _generated(comp) for comp in compilers)


# changes in the middle of a generated loop: what the condition's read meets then
CHANGED = [
    # the variables read into: readonly (the read fails, the loop ends), a reference, an integer,
    # an array, unset
    "while read -r v; do x=$v; [ ${v%%,*} = user2200 ] && readonly v; done < /d/f.csv; echo $? [$x]",
    "while IFS=, read -r a b; do x=$a; [ $a = user2300 ] && readonly b; done < /d/f.csv; echo $? [$x]",
    'while read -r v; do x=$v; [ "${v%%,*}" = user2200 ] && declare -n v=w; done < /d/f.csv; echo [$w] [$x]',
    'while IFS=, read -r v q; do x=$v; [ "$v" = user2200 ] && declare -n v=IFS; done < /d/f.csv; echo [$IFS] [$x]',
    "while IFS=, read -r a b c; do x=$c; [ $a = user2300 ] && declare -i c; done < /d/f.csv; echo [$c] [$x]",
    "while read -r v; do x=$v; [ ${v%%,*} = user2200 ] && declare -a v; done < /d/f.csv; echo [${v[0]}] [$x]",
    "while read -r -a a; do x=${a[0]}; [ $x = user2200,item0, ] && readonly a; done < /d/f.csv; echo $? [$x]",
    "while read -r -a a; do x=${a[0]}; [ $x = user2200,item0, ] && { unset a; declare -A a; }; done < /d/f.csv; echo $? [$x]",
    # IFS: changed, made readonly under a binding, unset
    "while read -r a b; do x=$b; [ $a = user2200,item0, ] && IFS=,; done < /d/f.csv; echo [$x]",
    "while IFS=, read -r a b; do x=$b; [ $a = user2200 ] && readonly IFS; done < /d/f.csv; echo $? [$x]",
    "while read -r a b; do x=$b; [ $a = user2200,item0, ] && unset IFS; done < /d/f.csv; echo [$x]",
    # the builtin hidden by a function or disabled
    "while read -r v; do x=$v; [ ${v%%,*} = user2200 ] && read() { echo fn; return 1; }; done < /d/f.csv; echo $? [$x]",
    "while read -r v; do x=$v; [ ${v%%,*} = user2200 ] && enable -n read; done < /d/f.csv; echo $? [$x]",
    # traps, set -x, set -e, LINENO in the condition
    "while read -r v; do x=$v; [ ${v%%,*} = user2200 ] && trap 'echo D $LINENO' DEBUG; done < /d/f.csv 2>&1 | tail -n 3",
    "set -e; trap 'echo ERR' ERR; while read -r v; do x=$v; done < /d/f.csv; echo after $?",
    "while read -r v; do x=$v; [ ${v%%,*} = user2450 ] && set -x; done < /d/f.csv 2>&1 | tail -n 4",
    "f() { while read -r v; do x=$v; done < /d/f.csv; }; trap 'echo R' RETURN; f; echo $? [$x]",
    # a condition that is more than the read: its closure called
    'until ! IFS=, read -r a b; do x=$b; done < /d/f.csv; echo "[$x]"',
    'while read -r a && [ "$a" != user2400,item6, ]; do x=$a; done < /d/f.csv; echo "[$x]"',
    # the input changed: a descriptor closed, a directory
    "exec 3< /d/f.csv; while read -r -u 3 v; do x=$v; [ ${v%%,*} = user2200 ] && exec 3<&-; done; echo $? [$x]",
    "exec 3< /d/f.csv; while read -r -u 3 v; do x=$v; [ ${v%%,*} = user2200 ] && exec 3< /d; done; echo $? [$x]",
]


@pytest.mark.parametrize("script", CHANGED)
def test_changes_mid_loop_are_the_walkers(script: str) -> None:
    compiled, walked = _both(script)
    assert compiled == walked


def test_a_policy_that_denies_read_refuses_it_at_every_step() -> None:
    script = "while read -r l; do x=${l%%,*}; done < /d/f.csv; echo $? $x"
    compiled, walked = _both(script, policy=Policy(deny=["read"]))
    assert compiled == walked
    out, err, _status = compiled
    assert out == "0\n" and err.count("policy denied") == 1  # (the loop ends at its first refusal)
    # (refused at each line: a loop that goes on after a refused read)
    script = "n=0; while [ $n -lt 2200 ]; do n=$((n+1)); read -r l; done < /d/f.csv; echo $n"
    compiled, walked = _both(script, policy=Policy(deny=["read"]))
    assert compiled == walked and compiled[1].count("policy denied") == 2200


def test_the_audit_sees_each_read() -> None:
    script = "while IFS=, read -r a b; do x=$a; done < /d/f.csv; echo $x"
    compiled_argvs, walked_argvs = started_argvs(script, files=FILES)
    assert compiled_argvs == walked_argvs
    assert compiled_argvs.count(("read", "-r", "a", "b")) == 2501


@pytest.mark.parametrize(
    ("script", "limits", "kind"),
    [
        # a huge last line: max_string_length, then max_memory
        (
            "{ cat /d/f.csv; head -c 300000 /dev/zero | tr '\\0' x; echo; } | while read -r l; do x=$l; done",
            {"max_string_length": 100000},
            "max_string_length",
        ),
        (
            "{ cat /d/f.csv; head -c 3000000 /dev/zero | tr '\\0' x; echo; } | while IFS=, read -r a b; do x=$a; done",
            {"max_memory": 2_000_000},
            "max_memory",
        ),
        (
            "while IFS=, read -r -a f; do x=$f; done < /d/f.csv",
            {"max_loop_iterations": 2300},
            "max_loop_iterations",
        ),
        ("while read -r l; do x=$l; done < /d/f.csv", {"max_command_count": 4000}, "max_command_count"),
    ],
)
def test_the_limit_that_ends_the_walk_ends_the_generated_loop(
    script: str, limits: dict[str, int], kind: str
) -> None:
    seen = []
    for walker in (False, True):
        with walking(walker), pytest.raises(ExecutionLimitError) as e:
            Bash(files=FILES).exec(script + "; echo after", limits=limits)  # type: ignore[arg-type]
        seen.append(e.value.limit)
    assert seen == [kind, kind]


@pytest.mark.parametrize(
    "script",
    [
        "yes 'a,b' | while IFS=, read -r a b; do x=$b; done",
        "while read -r -a f; do x=$f; done < <(yes 'a b')",
        "yes | while read; do :; x=1; done",
    ],
)
def test_the_deadline_ends_a_loop_over_an_endless_pipe(script: str) -> None:
    limits = {"timeout": 0.5, "max_loop_iterations": 10**12, "max_command_count": 10**12, "max_work": 10**15}
    with walking(False), pytest.raises(ExecutionLimitError) as e:
        Bash().exec(script, limits=limits)
    assert e.value.limit == "timeout"


def test_cancellation_ends_a_written_in_read() -> None:
    token = CancelToken()
    timer = threading.Timer(0.3, token.cancel)
    timer.start()
    try:
        with walking(False), pytest.raises(ExecutionCancelled):
            Bash().exec(
                "yes a,b | while IFS=, read -r a b; do x=$a; done", cancel=token, limits={"timeout": 30}
            )
    finally:
        timer.cancel()


def test_read_t_keeps_the_builtin_and_the_walkers_results() -> None:
    script = "while read -r -t 5 l; do x=$l; done < /d/f.csv; echo $? [$x]"
    compiled, walked = _both(script)
    assert compiled == walked and compiled[0] == "0 [user2499,item0, 4]\n"
