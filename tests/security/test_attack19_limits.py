"""Attack round 19: fold held one whole line.

fold read its input a line at a time, so a line without end (`head -c 300M /dev/zero | fold -w 5`)
ended with max_memory where GNU's fold streams it in pieces of the width. fold now keeps GNU's
state across reads (the output line being built and its column: at most the width) and writes
each finished piece as its input arrives; only a huge `-w` on a line without end holds more, as
GNU's buffer does, and that is charged (a guard row). fmt and pr still read a paragraph or a
page whole: guards that they end on max_memory, not on the host's memory.

Rows run in a forked child (secharness: peak RSS watched) with the default profile and a
max_memory well under the input's size, so a row that passes streamed it.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

SMALL = {"max_memory": 16 << 20}
ZEROS = "head -c 48M /dev/zero"


def streams(case_id: str, script: str, contains: str) -> Any:
    return param(
        case_id, script, timeout=60, profile="default", expect=("result",), overrides=SMALL, contains=contains
    )


def bounded(case_id: str, script: str) -> Any:
    return param(case_id, script, timeout=60, profile="default", expect=("max_memory",), overrides=SMALL)


ROWS = [
    # fell, fixed: each streamed in pieces of the width
    streams("fold-line-without-end", ZEROS + " | fold -w 5 | tail -c 12 | od -An -c", "\\0  \\0  \\n"),
    streams("fold-bytes", ZEROS + " | tr '\\0' a | fold -b -w 7 | tail -c 9", "aaaaa\naaa"),
    streams(
        "fold-spaces",
        "yes 'ab ' | tr -d '\\n' | head -c 24M | fold -s -w 10 | tail -n 2",
        "ab ab ab \nab ab ",
    ),
    streams("fold-tabs", "head -c 12M /dev/zero | tr '\\0' '\\t' | fold -w 9 | wc -l", "12582911\n"),
    streams(
        "fold-files-each-from-column-0", "head -c 24M /dev/zero > f; fold -w 4 f f | wc -l", "12582910\n"
    ),
    # held (guards): what must be held is charged
    bounded("fold-huge-width", ZEROS + " | fold -w 999999999999 | wc -c"),
    bounded("fmt-line-without-end", ZEROS + " | tr '\\0' a | fmt | wc -c"),
    bounded("pr-line-without-end", ZEROS + " | tr '\\0' a | pr | wc -c"),
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_fold_streams_and_the_rest_is_charged")


@pytest.mark.parametrize("case", ROWS)
def test_fold_streams_and_the_rest_is_charged(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    verify(case, outcomes[case["id"]])
