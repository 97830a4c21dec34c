"""Attack round 31: what jq's decoder builds, charged before it is built; awk's record loop.

The values a JSON text decodes to were not charged: `jq -s` charged each slurped value's top-level
shell only, and one value the C scanner built in a single call was charged nothing. Under the
default 256 MB max_memory, 5,000,000 `[[[[1]]]]` slurped held 1.1 GB, 5,000,000
`{"a":1,"b":[1,2],"c":"xyz"}` 435 MB, a 60 MB array of `[]` 1.8 GB (and answered), a 120 MB array
of floats 842 MB. The decoder now charges what a text decodes to by counting its brackets, commas,
colons and quotes (jq/memory.py text_cost): values as they are read, a value spanning more than
1 MB of text before the scanner builds it.

awk's record loop (records_batched) counted a round of its array check per batch of records, and
measured the arrays every 64 rounds: a batch of `yes` is 32,768 records, so `{c[NR][1]=1}` grew
1 GB (`{a[NR]=$1; b[NR]=$1}` 816 MB) under a 64 MB max_memory before the first check. A batch now
counts a round per 64 records, as the one-record path does.

Rows run in a forked child (secharness: peak RSS watched, RLIMIT_AS) with the default profile.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, pooled, verify_bomb

MEM = ("max_memory",)

BOMBS = {
    # each row: the shape it guards
    "slurp-nested-arrays": ("yes '[[[[1]]]]' | head -n 5000000 | jq -s length", MEM),
    "slurp-mixed-objects": ('yes \'{"a":1,"b":[1,2],"c":"xyz"}\' | head -n 5000000 | jq -s length', MEM),
    "inputs-nested-objects": (
        'yes \'{"a":{"b":{"c":{}}}}\' | head -n 5000000 | jq -n \'[inputs] | length\'',
        MEM,
    ),
    "one-array-of-empty-arrays": (
        "(printf '['; yes '[],' | head -n 20000000 | tr -d '\\n'; echo '1]') | jq length",
        MEM,
    ),
    "one-array-of-floats": (
        "(printf '['; yes '1.5,' | head -n 30000000 | tr -d '\\n'; echo '1]') | jq length",
        MEM,
    ),
    "one-object-from-a-file": (
        "{ printf '{'; seq -f '\"k%g\":{},' 1 3000000 | tr -d '\\n'; echo '\"z\":1}'; } > /tmp/o.json; jq length /tmp/o.json",
        MEM,
    ),
    # the slow parser (a lone surrogate escape sends a value to it) builds as it reads
    "slow-parser-array": (
        "(printf '[\"\\\\ud83d\\\\ude00\",'; yes '[],' | head -n 20000000 | tr -d '\\n'; echo '1]') | jq length",
        MEM,
    ),
}

# awk arrays grown by the record loop (a batch of records between two checks)
AWK = ("max_memory", "max_array_elements")
AWK_BOMBS = {
    "awk-record-array": "{a[NR]=$0}",
    "awk-record-two-arrays": "{a[NR]=$1; b[NR]=$1}",
    "awk-record-subarrays": "{c[NR][1]=1}",
    "awk-record-counts": "{a[NR]++}",
    "awk-record-split": '{n = split($0 NR, t, ""); a[NR] = t[1]}',
}
BOMBS.update(
    {name: (f"yes | head -n 3000000 | awk '{prog}' | tail -1", AWK) for name, prog in AWK_BOMBS.items()}
)

CASES = [
    param(name, script, timeout=60, profile="default", expect=expect)
    for name, (script, expect) in sorted(BOMBS.items())
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_decoded_json_is_charged_before_it_is_built")


@pytest.mark.parametrize("case", CASES)
def test_decoded_json_is_charged_before_it_is_built(
    case: dict[str, Any], outcomes: dict[str, Outcome]
) -> None:
    verify_bomb(case, outcomes[case["id"]])


# what fits answers as jq does
RESULTS = {
    "slurp-200k-objects": ('yes \'{"a":1,"b":[1,2]}\' | head -n 200000 | jq -s length', "200000\n"),
    "slurp-nested-200k": ("yes '[[[[1]]]]' | head -n 200000 | jq -s 'map(.[0][0][0][0]) | add'", "200000\n"),
    "stream-a-file-of-600k": (
        'yes \'{"a":1,"b":[1,2],"c":"xyz"}\' | head -n 600000 > /tmp/x.json; jq -c .b /tmp/x.json | uniq -c',
        " 600000 [1,2]\n",
    ),
    "one-array-of-1m-floats": (
        "(printf '['; yes '1.5,' | head -n 1000000 | tr -d '\\n'; echo '1]') | jq add",
        "1500001\n",
    ),
    "awk-record-array-fits": ("yes | head -n 200000 | awk '{a[NR]=$0} END{print length(a)}'", "200000\n"),
    "slow-parser-value": (
        "printf '[\"\\\\ud83d\\\\ude00\",[1],{\"a\":[2]}]\\n[3]' | jq -c '.[1:]'",
        '[[1],{"a":[2]}]\n[]\n',
    ),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_json_within_the_budget_answers_as_jq(name: str) -> None:
    specs = {
        k: {"script": s, "limits": "default", "overrides": {"timeout": 60}} for k, (s, _) in RESULTS.items()
    }
    out = pooled("attack31-jq-decoded", specs)[name]
    assert out.kind == "result", out.describe()
    assert out.stdout.decode() == RESULTS[name][1], out.describe()
    assert out.extra["peak_rss"] < (256 << 20) + (150 << 20), out.describe()
