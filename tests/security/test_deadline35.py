"""Deadline round 35: one long pure-Python pass over one large value, with no deadline check in it.

yq wrote a long string as YAML through PyYAML's Emitter, which decides the scalar's style and writes
it one character at a time in Python with no call back into sandbash: a 9 MB string took ~6 s of CPU
there, and a run that met its 2 s timeout inside it ended seconds late. Now a long scalar is analysed
by whole-text searches and written in pieces, each charged and checked (commands/yqemit.py).

`${x//pat/rep}` made a Python step a match with no deadline check (12 s of CPU for 6 million matches
against a 2 s timeout); it now checks every 1024 matches (expand/paramops.py).

Each row does or repeats the work until the run's timeout ends it: it must end by the `timeout` limit, on time.
Rows run in a forked child (secharness)."""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, verify_bomb

TIME = ("timeout",)
_LOOP = "while :; do {cmd} > /dev/null; done"

SLOW = {
    # plain, double-quoted and literal styles, each of a 9 MB string
    "yq-plain-string": 'yq -n \'{"k": ("a" * 9000000)}\'',
    "yq-quoted-string": 'yq -n \'{"k": ("a\\u0001" * 4500000)}\'',
    "yq-literal-one-long-line": 'yq -n \'{"k": (("a" * 9000000) + "\\nb")}\'',
    "yq-to-yaml": "yq -n '[\"a\" * 9000000] | to_yaml | length'",
    # ${x//pat/rep}: one Python step a match (6 million matches of a 9 MB value: 12 s of CPU)
    "patsub-class": "x=$(yes 'ab cd' | head -c 9000000); y=${x//[ab]/z}",
    "patsub-any-char": "x=$(yes 'ab cd' | head -c 9000000); y=${x//?/-}",
    # (6 MB: each `a` grows by two characters, and 9 MB would grow past max_string_length, a limit
    # met before the timeout when the machine is not loaded)
    "patsub-ampersand": "x=$(yes 'ab cd' | head -c 6000000); y=${x//a/<&>}",
}
CASES = [
    param(
        name,
        _LOOP.format(cmd=cmd),
        timeout=2,
        profile="default",
        overrides={"max_memory": 1 << 30},
        expect=TIME,
    )
    for name, cmd in sorted(SLOW.items())
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_a_long_value_meets_the_deadline")


@pytest.mark.parametrize("case", CASES)
def test_a_long_value_meets_the_deadline(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify_bomb(case, outcomes[case["id"]])
