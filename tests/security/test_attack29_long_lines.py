"""Attack round 29: one long line, finite, handed to a command whole.

A line's chunks were charged to max_memory only while its end was awaited: once the line was
joined and handed to the command (`split_records`, `Stream.lines`, sort's reader, awk's record
reader), it and every copy the command made of it were held uncharged. A 200 MB line with no
newline (`head -c 200000000 /dev/zero`), under the default 256 MB max_memory, made `rev` hold
1.1 GB, `nl`/`cat -n`/`paste`/`comm`/`sed p` 780 MB, `uniq`/`xargs`/`cut -d` 590 MB, `sort` 780 MB
before its limit, `lua`'s `io.read("a")` and Monty's `sys.stdin.read()` 400 MB; `numfmt` ran past
the deadline at 975 MB. A line now stays charged while the command holds it, with one derived
copy (`batch_charge`); whole-input reads charge the parts and their joined copy (`read_all`).
awk's record reader appended a chunk at a time to a growing buffer and searched it from the start
each time (quadratic: a 20 MB line took 4 s, with `RS=z+` 24 s; 200 MB outlived the deadline).
sed's `N`, `G` and `H` made a new copy of the whole pattern or hold space a line (quadratic: the
join-lines idiom `sed ':a;N;$!ba;s/\n/ /g'` took 7 s over 100,000 lines, GNU 0.03 s) and held
them uncharged: they grow in place now, charged to max_memory. awk's `s = s $0 ","` copied s a
record (28 s over 100,000 lines, gawk 0.02 s): a global's string grows in place now.

Rows run in a forked child (secharness: peak RSS watched, RLIMIT_AS) with the default profile.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, pooled, verify_bomb

MEM = ("max_memory",)
# a 200 MB line with no newline: finite, below max_memory while it is read, over it once held
LINE = "head -c 200000000 /dev/zero | "

COMMANDS = {
    "rev": "rev",
    "nl": "nl",
    "cat-n": "cat -n",
    "paste": "paste -",
    "comm": "comm - /dev/null",
    "join": "join - /dev/null",
    "uniq": "uniq -c",
    "cut-chars": "cut -c1-5",
    "cut-fields": "cut -d a -f 2",
    "numfmt": "numfmt",
    "fold": "fold -w 300000000",
    "column": "column",
    "sed-p": "sed p",
    "sed-s": "sed 's/a/b/g'",
    "sed-select": "tr '\\0' a | sed -n '/x/p'",
    "sort": "sort",
    "sort-n": "sort -n",
    "xargs": "tr '\\0' a | xargs echo",
    "awk": "awk 1",
    "awk-paragraph": "awk -v RS= 1",
    "awk-regex-rs": "awk -v RS='z+' 1",
    "lua-read-all": "lua -e 'print(#io.read(\"a\"))'",
    "python-read": "python3 -c 'import sys; print(len(sys.stdin.read()))'",
    "python-buffer-read": "python3 -c 'import sys; print(len(sys.stdin.buffer.read()))'",
}

# lines of a thousand characters gathered into one pattern or hold space without end
KILO = "yes $(printf 'x%.0s' {1..1000}) | "
SPACES = {
    "sed-N-loop-without-end": KILO + "sed ':a;N;ba' | wc -c",
    "sed-H-without-end": KILO + "sed -n 'H;$!d;x;p' | wc -c",
}

CASES = [
    param(
        f"{name}-200-megabyte-line",
        LINE + cmd + " | wc -c",
        timeout=60,
        profile="default",
        expect=MEM,
    )
    for name, cmd in sorted(COMMANDS.items())
] + [
    param(name, script, timeout=60, profile="default", expect=("max_memory", "max_string_length"))
    for name, script in sorted(SPACES.items())
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_a_long_line_held_by_a_command_is_charged")


@pytest.mark.parametrize("case", CASES)
def test_a_long_line_held_by_a_command_is_charged(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])


# a 20 MB line is an ordinary input: each command answers as GNU does (one line, its length)
MID = "head -c 20000000 /dev/zero | tr '\\0' a | "
RESULTS = {
    "rev": (MID + "rev | wc -c", "20000000\n"),
    "cat-n": (MID + "cat -n | wc -c", "20000007\n"),
    "uniq-c": (MID + "uniq -c | wc -c", "20000009\n"),
    "sort": (MID + "sort | wc -c", "20000001\n"),
    "cut": (MID + "cut -c1-3", "aaa\n"),
    "awk-length": (MID + "awk '{print length}'", "20000000\n"),
    # a 40 MB record searched for a regex separator: linear (the quadratic reader took minutes)
    "awk-regex-rs-40mb": (
        "head -c 40000000 /dev/zero | tr '\\0' a | awk -v RS='z+' '{n+=length} END{print NR, n}'",
        "1 40000000\n",
    ),
    "awk-paragraph-40mb": (
        "head -c 40000000 /dev/zero | tr '\\0' a | awk -v RS= '{print length}'",
        "40000000\n",
    ),
    "lua-read-all": (MID + "lua -e 'print(#io.read(\"a\"))'", "20000000\n"),
    # 300,000 lines joined by sed's idioms: linear (the copy a line took over a minute)
    "sed-join-lines": ("seq 1 300000 | sed ':a;N;$!ba;s/\\n/ /g' | wc -c", "1988895\n"),
    "awk-append-lines": ("seq 1 300000 | awk '{s = s $0 \",\"} END{print length(s)}'", "1988895\n"),
    "sed-hold-lines": ("seq 1 300000 | sed -n 'H;${x;s/\\n/,/g;p}' | wc -c", "1988896\n"),
    "python-read": (MID + "python3 -c 'import sys; print(len(sys.stdin.read()))'", "20000000\n"),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_long_lines_within_the_budget_answer_as_gnu(name: str) -> None:
    specs = {
        k: {"script": s, "limits": "default", "overrides": {"timeout": 60}} for k, (s, _) in RESULTS.items()
    }
    out = pooled("attack29-long-lines", specs)[name]
    assert out.kind == "result", out.describe()
    assert out.stdout.decode() == RESULTS[name][1], out.describe()
    assert out.extra["peak_rss"] < (256 << 20) + (150 << 20), out.describe()
