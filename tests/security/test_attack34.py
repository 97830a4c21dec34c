"""Attack round 34: what yq decodes and writes, charged before it is built; its parsers' deadline.

yq read a whole input with nothing charged but its bytes, given back before the documents were built:
PyYAML composes a document as nodes of ~1 KB each (the node, two marks, its events) before it builds
the values, and a list of every document was held while only the current one was charged. Under a
64 MB max_memory, 3.4 MB of `- [1, 2, {a: b}]` lines held 897 MB (50 s of CPU, no deadline check:
138 s against a 60 s timeout), 3 MB of `[],` as YAML 1050 MB and as JSON (`-p json`, no text_cost
charged as jq's decoder charges it) 738 MB; under 256 MB, 6.5 MB of TOML 390 MB and a 3.2 MB JSON
file written as YAML (the dumper's nodes and tables) 542 MB. Now: PyYAML's nodes are charged as
composed and represented (commands/yqyaml.py), JSON through JsonStream's text_cost, TOML at 80 bytes
a character before tomllib parses it; the reader takes its text a piece at a time with a deadline
check each, and tomllib (no hook) is watched by a call trace on its thread while it parses a large
text.

Rows run in a forked child (secharness: peak RSS watched, RLIMIT_AS).
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, pooled, verify_bomb

MEM = ("max_memory",)
TIME = ("timeout",)

_FLOW_EMPTY = "(printf '['; yes '[],' | head -n {n} | tr -d '\\n'; echo '1]')"
_MIXED_JSON = "(printf '['; yes '[1,2,{{\"a\":\"b\"}}],' | head -n {n} | tr -d '\\n'; echo '1]')"

BOMBS = {
    # each row: the shape it guards, and the limits that may end it
    "yaml-block-sequence": (
        "yes -- '- [1, 2, {a: b}]' | head -n 200000 > /tmp/y.yaml; yq length /tmp/y.yaml",
        MEM,
    ),
    "yaml-flow-empty-arrays": (_FLOW_EMPTY.format(n=1000000) + " > /tmp/a.yaml; yq length /tmp/a.yaml", MEM),
    "yaml-from-stdin": ("yes -- '- {k: v, l: [1, 2]}' | head -n 200000 | yq length", MEM),
    "yaml-mappings": ("seq 1 300000 | sed 's/.*/k&: [&, x]/' > /tmp/m.yaml; yq length /tmp/m.yaml", MEM),
    "json-input": (_FLOW_EMPTY.format(n=3000000) + " > /tmp/a.json; yq -p json length /tmp/a.json", MEM),
    "json-by-extension": (_MIXED_JSON.format(n=400000) + " > /tmp/b.json; yq length /tmp/b.json", MEM),
    "toml-input": (
        "seq 1 300000 | sed 's/.*/k& = [1,2,{a=1}]/' > /tmp/t.toml; yq -p toml -o json length /tmp/t.toml",
        MEM,
    ),
    # the dumper's nodes and tables past what the value it writes holds (270 MB under 128 MB)
    "yaml-output": (
        _MIXED_JSON.format(n=100000) + " > /tmp/b.json; yq -p json -o yaml . /tmp/b.json | wc -c",
        MEM,
    ),
    "to-yaml-in-a-program": (
        _MIXED_JSON.format(n=100000) + " > /tmp/b.json; yq -p json -o json 'to_yaml | length' /tmp/b.json",
        MEM,
    ),
    # scalars written a word at a time (one 9 MB string held 280 MB under 256 MB; a scalar of 64K
    # characters or more is now written in 256 KB pieces, commands/yqemit.py: shorter ones still go
    # a word at a time)
    "to-yaml-strings-of-words": ("yq -n '[range(150) | \"a b\" * 20000] | to_yaml | length'", MEM),
    "from-yaml-in-a-program": ('yq -n \'"[" + ("[]," * 2000000) + "1]" | from_yaml | length\'', MEM),
}

CASES = [
    param(
        name,
        script,
        timeout=60,
        profile="default",
        overrides={"max_memory": (128 if "to-yaml" in name or "yaml-output" in name else 64) << 20},
        expect=expect,
    )
    for name, (script, expect) in sorted(BOMBS.items())
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_yq_charges_what_it_decodes_and_writes")


@pytest.mark.parametrize("case", CASES)
def test_yq_charges_what_it_decodes_and_writes(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])


# parsers in Python with no deadline check of their own: each ends by the run's timeout
SLOW = {
    "yaml-comments": "yes '# a comment line of some length here' | head -c 30000000 > /tmp/c.yaml; yq . /tmp/c.yaml",
    "yaml-one-long-scalar": "head -c 8000000 /dev/zero | tr '\\0' a > /tmp/s.yaml; yq length /tmp/s.yaml",
    "toml-tables": "seq 1 150000 | sed 's/.*/[t&]\\nx = [1, 2]/' > /tmp/t.toml; yq -p toml length /tmp/t.toml",
}
SLOW_CASES = [
    param(name, script, timeout=3, profile="default", overrides={"max_memory": 1 << 30}, expect=TIME)
    for name, script in sorted(SLOW.items())
]


@pytest.fixture(scope="module")
def slow_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_yq_parsers_meet_the_deadline")


@pytest.mark.parametrize("case", SLOW_CASES)
def test_yq_parsers_meet_the_deadline(case: dict[str, Any], slow_outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, slow_outcomes[case["id"]])


# what fits answers as before
RESULTS = {
    "yaml-20k-lines": ("yes -- '- [1, 2, {a: b}]' | head -n 20000 | yq '.[19999][2].a'", "b\n"),
    "yaml-documents": ("yes -- '--- {a: 1}' | head -n 2000 | yq -N '.a' | uniq -c", "   2000 1\n"),
    "yaml-aliases": (
        "printf 'a: &x [1, 2]\\nb: *x\\nc: *x\\n' | yq -o json -I 0 '[.b, .c]'",
        "[[1,2],[1,2]]\n",
    ),
    "json-50k": (_MIXED_JSON.format(n=50000) + " | yq -p json '.[49999][2].a'", '"b"\n'),
    "toml-30k": (
        "seq 1 30000 | sed 's/.*/k& = [1,2,{a=1}]/' | yq -p toml -o json '.k30000[2].a'",
        "1\n",
    ),
    "yaml-output-20k": (
        _MIXED_JSON.format(n=20000) + " | yq -p json -o yaml '.[19999]'",
        "- 1\n- 2\n- a: b\n",
    ),
    "to-yaml-a-long-string-of-words": ("yq -n '[\"a b\" * 3000000] | to_yaml | length'", "9000002\n"),
    "from-and-to-yaml": ("yq -n '\"a: [1, {b: c}]\" | from_yaml | .a[1] | to_yaml'", "b: c\n"),
    "bad-yaml": (
        "printf 'a: [1\\n' | yq . 2>&1 | head -c 17; echo; yq . /nonexistent",
        "Error: bad file '\n",
    ),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_yq_within_the_budget_answers_as_before(name: str) -> None:
    specs = {
        k: {"script": s, "limits": "default", "overrides": {"timeout": 60}} for k, (s, _) in RESULTS.items()
    }
    out = pooled("attack34-yq", specs)[name]
    assert out.kind == "result", out.describe()
    assert out.stdout.decode() == RESULTS[name][1], out.describe()
