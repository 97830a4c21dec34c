"""Attack round 17: input that grows one item or one line without end.

- `xargs -I{}` built each command line before sizing it: forty thousand marks in the initial
  arguments and a 100 KB input line made gigabytes (3.8 GB resident for one row, 7.6 GB with
  `-s 1000000000`) before `max_argument_bytes` ended the run. findutils sizes each argument
  as it is built and stops with 'command too long' (bc_do_insert); sandbash now does the same,
  and reads no more of an item than the command line could hold ('argument line too long').
- `Stream.lines()` joined a line's chunks by `bytes +=` (quadratic: a 100 MB line with no
  newline through `sed p` ran past a 30 s timeout; GNU sed takes a second) and held it without
  charging it: input with no newline at all (`tr -d '\\n' < /dev/zero`) through sed, head,
  date -f or xargs now ends with max_memory, in linear time.

Rows run in a forked child (secharness: peak RSS watched, RLIMIT_AS) with the default profile.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, pooled, verify_bomb

MEM = ("max_memory",)
# forty thousand marks, as eight words of five thousand
MARKS = "r=$(printf '{}%.0s' {1..5000}); "
LONG_LINE = "head -c 100000 /dev/zero | tr '\\0' a > l; echo >> l; "
NO_NEWLINE = "tr -d '\\n' < /dev/zero"


def bomb(case_id: str, script: str, expect: tuple[str, ...] = MEM, timeout: float = 30) -> Any:
    return param(case_id, script, timeout=timeout, profile="default", expect=expect)


CASES = [
    bomb("sed-line-without-end", NO_NEWLINE + " | sed p | wc -c"),
    bomb("sed-z-record-without-end", "tr -d '\\0' < /dev/urandom | sed -z p | wc -c"),
    bomb("head-all-but-line-without-end", NO_NEWLINE + " | head -n -1 | wc -c"),
    bomb("date-file-line-without-end", "tr '\\0' a < /dev/zero | date -f - | wc -c"),
    bomb("xargs-line-without-end", "yes 'a ' | tr -d '\\n' | xargs echo | wc -c"),
    bomb("xargs-I-line-without-end", NO_NEWLINE + " | xargs -I{} echo {} | wc -c"),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_a_line_without_end_ends_with_max_memory")


@pytest.mark.parametrize("case", CASES)
def test_a_line_without_end_ends_with_max_memory(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])


# (script, stdout): findutils' answers, reached without building the line
RESULTS = {
    "xargs-I-many-marks": (
        MARKS + LONG_LINE + "xargs -I{} echo $r $r $r $r $r $r $r $r < l | wc -c; echo $?",
        "0\n0\n",
    ),
    "xargs-I-many-marks-largest-size": (
        MARKS + LONG_LINE + "xargs -I{} -s 1000000000 printf %s $r $r $r $r $r $r $r $r < l 2>&1 | tail -1",
        "xargs: command too long\n",
    ),
    "xargs-I-many-arguments": (
        LONG_LINE + "xargs -I{} echo $(printf '{} %.0s' {1..5000}) < l 2>&1; echo $?",
        "xargs: argument list too long\n1\n",
    ),
    "xargs-I-empty-mark": (
        LONG_LINE + "xargs -I '' echo x < l 2>&1; echo $?",
        "xargs: command too long\n1\n",
    ),
    # a 100 MB line is an ordinary input once its chunks are joined once
    "sed-100-megabyte-line": ("head -c 100000000 /dev/zero | sed p | wc -c", "200000001\n"),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_long_input_lines_end_as_gnu_within_the_budget(name: str) -> None:
    specs = {
        k: {"script": s, "limits": "default", "overrides": {"timeout": 60}} for k, (s, _) in RESULTS.items()
    }
    out = pooled("attack17-long-lines", specs)[name]
    assert out.kind == "result", out.describe()
    assert out.stdout.decode() == RESULTS[name][1], out.describe()
    assert out.extra["peak_rss"] < (256 << 20) + (150 << 20), out.describe()
