"""Memory bombs in commands: the structures commands build are charged to max_memory.

Each row runs in a forked child (secharness: RLIMIT_AS, peak RSS watched) with
the default profile (max_memory 256 MB) and must end with a named limit within
its timeout plus 2 s, with the child's peak resident growth under max_memory +
150 MB and no Python exception (`verify_bomb`). Most end at max_memory; a few
meet a nearer bound first (a string or array cap, jq's encoder cap) and say so.
Inputs are made inside the run (seq, yes, head) or given as files, so that a
row is a few lines of shell.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, pooled, verify_bomb

from sandbash import Bash

MEM = ("max_memory",)
# a smaller budget for the rows that build their structure a few elements at a
# time in Python (jq generators): the same bomb, reaching the budget sooner
SMALL = {"max_memory": 64 << 20}
# room on the virtual filesystem for the two large inputs some rows write
ROOM = {"max_filesystem_bytes": 400 << 20}
# 400 MB of short lines / of one line without a newline
LINES = "yes abcdefghijklmnopqrstuvwxyz | head -c 400000000"
ONE_LINE = "head -c 400000000 /dev/zero | tr '\\0' a"

# a YAML document whose aliases expand nine levels deep: 9**9 strings
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8)
)


# 50,000 empty files in one directory, walked under a 16 MB budget
BIG_DIR = {f"/big/f{i:06d}": b"" for i in range(50_000)}
BIG_DIR_LIMITS = {"max_memory": 16 << 20, "max_filesystem_files": 1_000_000}


def bomb(
    case_id: str,
    script: str,
    expect: tuple[str, ...] = MEM,
    *,
    timeout: float = 30,
    overrides: dict[str, float] | None = None,
    **kw: Any,
) -> Any:
    return param(
        case_id, script, timeout=timeout, profile="default", expect=expect, overrides=overrides or {}, **kw
    )


CASES = [
    # tac holds its whole input
    bomb("tac-many-lines", LINES + " | tac | head -1"),
    bomb("tac-one-line", ONE_LINE + " | tac | wc -c"),
    # jq: collected arrays, shared sub-values, repetition
    bomb(
        "jq-paths-of-deep-value",
        "jq -n 'reduce range(19000) as $i (0; [.]) | [paths] | length'",
        overrides=SMALL,
    ),
    bomb("jq-collect-range", "jq -n '[range(1e8)] | length'", overrides=SMALL),
    bomb("jq-collect-repeat", "jq -n '[limit(100000000; repeat(\"abcdefgh\"))] | length'", overrides=SMALL),
    bomb("jq-collect-long-strings", "jq -n '[range(100) | \"x\" * 5000000] | length'"),
    bomb("jq-string-repeat", "jq -n '\"x\" * 1e9 | length'", ("max_string_length", "max_memory")),
    bomb(
        "jq-until-doubling",
        "jq -n '[1] | until(length > 1e9; . + .) | length'",
        ("max_array_elements", "max_memory"),
    ),
    bomb(
        "jq-tojson-shared",
        "jq -n 'reduce range(30) as $i ([1]; [., .]) | tojson | length'",
        ("max_string_length", "max_memory"),
    ),
    # flatten walks ~300K leaves a second: on a loaded host the deadline may come first
    bomb(
        "jq-flatten-shared",
        "jq -n 'reduce range(30) as $i ([1]; [., .]) | flatten | length'",
        ("max_memory", "timeout"),
        overrides=SMALL,
    ),
    bomb(
        "jq-reduce-keeps-strings",
        'jq -n \'reduce range(1000) as $i ([]; . + ["y" * 5000000 + "\\($i)"]) | length\'',
        ("max_memory", "max_array_elements"),
    ),
    # yq: aliases expand to a tree
    bomb("yq-alias-bomb", "yq '.i[0][0]' /b.yaml", files={"/b.yaml": ALIAS_BOMB}),
    bomb("yq-alias-bomb-json", "yq -o json . /b.yaml | wc -c", files={"/b.yaml": ALIAS_BOMB}),
    # awk arrays and strings
    bomb("awk-array-of-distinct-strings", 'awk \'BEGIN{s=sprintf("%100000s",""); while(1) a[i++]=s i}\''),
    bomb(
        "awk-array-of-built-strings",
        'awk \'BEGIN{s=sprintf("%1000000s",""); '
        'while(1) { t = t s; if (length(t) > 5000000) { a[i++] = t; t = "" } } }\'',
    ),
    bomb(
        "awk-string-doubling", "awk 'BEGIN{s=\"x\"; while(1) s = s s}'", ("max_string_length", "max_memory")
    ),
    # diff's line tables
    bomb(
        "diff-large-files",
        "seq 1 2000000 > /tmp/a; seq 2 2000001 | sed 's/0/o/' > /tmp/b; diff /tmp/a /tmp/b | tail -1",
        overrides=ROOM,
        timeout=25,
    ),
    # sed's hold space
    bomb(
        "sed-hold-space",
        "yes \"$(printf '%100000s')\" | sed 'H;$!d' | wc -c",
        ("max_string_length", "max_memory"),
    ),
    # bc array elements holding big numbers
    bomb(
        "bc-array-of-big-numbers",
        "echo 'x=7^40000; for(i=0;i<1000000;i++) a[i]=x+i' | bc",
        overrides={"max_work": 10**12},
    ),
    # shuf's lines and permutation
    bomb("shuf-input-range", "shuf -i 1-1000000000 | head -1"),
    bomb("shuf-many-lines", LINES + " | shuf | head -1"),
    # commands that buffer lines, words, tokens or groups
    bomb("column-table", "yes 'a b c d e f g' | head -c 300000000 | column -t | tail -1"),
    bomb("fmt-one-paragraph", ONE_LINE + " | fmt | tail -1"),
    bomb("tsort-many-edges", "seq 1 1500000 | awk '{print $1, $1+1}' | tsort | tail -1", timeout=30),
    bomb(
        "grep-pattern-list",
        "seq 1 5000000 > /tmp/p; echo 5 | grep -F -f /tmp/p | wc -l",
        overrides=ROOM,
        timeout=25,
    ),
    bomb("csplit-one-line", ONE_LINE + " | csplit - '/zzz/' '{*}' | tail -1"),
    bomb(
        "join-equal-keys",
        "seq 1 3000000 > /tmp/a; yes 1 | head -3000000 > /tmp/b; join /tmp/a /tmp/b | tail -1",
        overrides=ROOM,
        timeout=25,
    ),
    bomb("split-line-bytes", ONE_LINE + " | split -C 1000 - /tmp/x"),
    # walks of a directory with more names than a small budget holds
    bomb("find-huge-directory", "find /big | wc -l", files=BIG_DIR, overrides=BIG_DIR_LIMITS),
    bomb("ls-recursive-huge-directory", "ls -R /big | wc -l", files=BIG_DIR, overrides=BIG_DIR_LIMITS),
    # a line longer than a chunk is joined once, and charged while it grows
    bomb("long-line-through-records", ONE_LINE + " | column | wc -c"),
    # tail keeps its last lines (or bytes): one endless line must not grow without bound
    bomb("tail-endless-line", "tail -n 1 /dev/zero | wc -c"),
    bomb("tail-endless-line-stdin", ONE_LINE + " | tail -n 2 | wc -c"),
    bomb("tail-huge-byte-count", "tail -c 999999999999 /dev/zero | wc -c"),
    bomb("head-all-but-huge-byte-count", "head -c -999999999999 /dev/zero | wc -c"),
    bomb("head-all-but-many-lines", LINES + " | head -n -999999999999 | wc -c"),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_command_memory_bomb_ends_with_a_named_limit")


@pytest.mark.parametrize("case", CASES)
def test_command_memory_bomb_ends_with_a_named_limit(
    case: dict[str, Any], outcomes: dict[str, Outcome]
) -> None:
    verify_bomb(case, outcomes[case["id"]])


# sort spills runs sized by the budget: large inputs sort completely, in bounded
# memory (the spilled runs are kept compressed in memory, charged to max_memory)
SORTS = {
    "distinct": (
        "seq 1 2500000 | sed 's/$/ abcdefghijklmnopqrstuvwxyz/' | sort -r | head -2",
        "999999 abcdefghijklmnopqrstuvwxyz\n999998 abcdefghijklmnopqrstuvwxyz\n",
    ),
    "keyed": ("seq 1 3000000 | sort -t: -k1,1nr | head -2", "3000000\n2999999\n"),
}


@pytest.mark.parametrize("name", sorted(SORTS))
def test_sort_of_large_input_spills_within_the_budget(name: str) -> None:
    # (the test is that they finish, in bounded memory: ~15 s of CPU each, run together; the
    # timeout leaves room for a host at load 30, where 60 s ran out once)
    specs = {
        k: {"script": s, "limits": "default", "overrides": {"timeout": 180, **ROOM}}
        for k, (s, _) in SORTS.items()
    }
    out = pooled("sort-spills", specs)[name]
    assert out.kind == "result", out.describe()
    assert out.stdout.decode() == SORTS[name][1], out.describe()
    assert out.extra["peak_rss"] < (256 << 20) + (150 << 20), out.describe()


# ordinary use under the hardened profile (max_memory 64 MB) is unaffected
ORDINARY = [
    ("seq 1 100000 | sort -rn | head -1", "100000\n"),
    ("seq 1 50000 | tac | head -1", "50000\n"),
    ("jq -n '[range(100000)] | length'", "100000\n"),
    ("jq -n 'reduce range(20000) as $i ([]; . + [$i]) | length'", "20000\n"),
    ("jq -n 'reduce range(20) as $i ([1]; [., .]) | flatten | length'", "1048576\n"),
    ("jq -c -n '[limit(3; repeat(1))]'", "[1,1,1]\n"),
    ("printf 'a: &x [1, 2]\\nb: *x\\n' | yq -o json -I 0 '.b'", "[1,2]\n"),
    ("seq 1 20000 > /tmp/a; seq 2 20001 > /tmp/b; diff /tmp/a /tmp/b | wc -l", "4\n"),
    ("awk 'BEGIN{for(i=0;i<200000;i++) a[i]=i; print length(a)}'", "200000\n"),
    ("seq 1 10000 | shuf | sort -n | tail -1", "10000\n"),
    ("seq 1 1000 | awk '{print $1, $1+1}' | tsort | tail -1", "1001\n"),
    ("seq 1 30000 | paste -sd, | wc -c", "168894\n"),
    ("yes 'a b' | head -1000 | column -t | tail -1", "a  b\n"),
]


@pytest.mark.parametrize(("script", "expected"), ORDINARY)
def test_ordinary_use_is_unaffected(script: str, expected: str) -> None:
    r = Bash(limits="hardened").exec(script, limits={"timeout": 60})
    assert (r.stdout, r.exit_code) == (expected, 0), r.stderr
