"""Attack round 30: jq holding its whole input.

`jq -s` collected every decoded input into one array with nothing charged: 5,000,000 small
objects (`yes '{"a":1}' | head -n 5000000 | jq -s length`) held 977 MB resident under the default
256 MB max_memory and answered. `jq -R -s` joined the input's lines (a string object a line)
before anything looked at the size: a 200 MB input held 4.1 GB. `--seq` parsed the whole input
joined, uncharged. The slurped array is now collected as `[inputs]` is (batches charged to the
run's memory as they are taken), `-R -s` reads at most max_string_length bytes (the one string it
makes), and `--seq`'s text is charged while it is parsed.

Rows run in a forked child (secharness: peak RSS watched, RLIMIT_AS) with the default profile.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, pooled, verify_bomb

MEM = ("max_memory",)

BOMBS = {
    "slurp-small-objects": ("yes '{\"a\":1}' | head -n 5000000 | jq -s length", MEM),
    "slurp-arrays": ("yes '[1,2]' | head -n 5000000 | jq -s length", MEM),
    "slurp-strings": ("yes '\"abc\"' | head -n 5000000 | jq -s length", MEM),
    "null-input-inputs": ("yes '{\"a\":1}' | head -n 5000000 | jq -n '[inputs] | length'", MEM),
    "raw-slurp": ("yes | head -c 200000000 | jq -R -s length", ("max_string_length",)),
    "raw-slurp-endless": ("yes | jq -R -s length", ("max_string_length",)),
    "seq-whole-input": ("yes '\x1e1' | head -c 300000000 | jq --seq -c . | wc -l", MEM),
}

CASES = [
    param(name, script, timeout=60, profile="default", expect=expect)
    for name, (script, expect) in sorted(BOMBS.items())
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_jq_holding_its_whole_input_is_charged")


@pytest.mark.parametrize("case", CASES)
def test_jq_holding_its_whole_input_is_charged(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])


# what fits answers as jq does
RESULTS = {
    "slurp-200k-objects": ("yes '{\"a\":1}' | head -n 200000 | jq -s 'length'", "200000\n"),
    "slurp-add": ("seq 100000 | jq -s add", "5000050000\n"),
    "raw-slurp-9mb": ("yes | head -c 9000000 | jq -R -s length", "9000000\n"),
    "raw-slurp-keeps-newlines": ("printf 'a\\nb\\n\\nc' | jq -R -s -c .", '"a\\nb\\n\\nc"\n'),
    "seq": ("printf '\\x1e1\\n\\x1e[2]\\n' | jq --seq -c .", "\x1e1\n\x1e[2]\n"),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_jq_inputs_within_the_budget_answer_as_jq(name: str) -> None:
    specs = {
        k: {"script": s, "limits": "default", "overrides": {"timeout": 60}} for k, (s, _) in RESULTS.items()
    }
    out = pooled("attack30-jq-inputs", specs)[name]
    assert out.kind == "result", out.describe()
    assert out.stdout.decode() == RESULTS[name][1], out.describe()
    assert out.extra["peak_rss"] < (256 << 20) + (150 << 20), out.describe()
