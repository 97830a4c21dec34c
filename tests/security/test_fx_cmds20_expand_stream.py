"""expand and unexpand stream a line without end (fx-cmds20).

Both read their input a line at a time, so one line larger than max_memory (`head -c 24M
/dev/zero | tr '\\0' a | expand`) ended with max_memory where GNU's tools stream it. They now keep
GNU's state across reads (expand: the column and whether only blanks came; unexpand: the column,
its flags and the blanks pending until a tab stop decides them) and write what each read
finishes. Files run on as one input, as GNU's next_file makes them.

Rows run in a forked child (secharness: peak RSS watched) with the default profile and a
max_memory well under the input's size, so a row that passes streamed it.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

SMALL = {"max_memory": 8 << 20}


def streams(case_id: str, script: str, contains: str) -> Any:
    return param(
        case_id, script, timeout=90, profile="default", expect=("result",), overrides=SMALL, contains=contains
    )


def bounded(case_id: str, script: str) -> Any:
    return param(case_id, script, timeout=90, profile="default", expect=("max_memory",), overrides=SMALL)


ROWS = [
    streams("expand-line-without-end", "head -c 24M /dev/zero | tr '\\0' a | expand | wc -c", "25165824\n"),
    streams("expand-tabs", "head -c 12M /dev/zero | tr '\\0' '\\t' | expand -t 2 | wc -c", "25165824\n"),
    streams(
        "expand-initial",
        "yes 'a\tb' | tr -d '\\n' | head -c 12M | expand -i | tail -c 6 | od -An -c",
        "a  \\t   b   a  \\t   b",
    ),
    streams(
        "unexpand-all",
        "yes 'x       ' | tr -d '\\n' | head -c 12M | unexpand -a | wc -c",
        "3145728\n",
    ),
    # held (a guard): a tab stop far away keeps its pending blanks, charged
    bounded("unexpand-far-stop", "head -c 24M /dev/zero | tr '\\0' ' ' | unexpand -t 999999999 | wc -c"),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_expand_unexpand_stream")


@pytest.mark.parametrize("case", ROWS)
def test_expand_unexpand_stream(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify(case, outcomes[case["id"]])
