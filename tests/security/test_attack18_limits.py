"""Attack round 18: growth without end in sort and ed.

- sort read its records by `buf + chunk` for every chunk that held no separator: input with no
  newline at all (`tr -d '\\n' < /dev/zero | sort`) was quadratic and charged nothing, and ran
  to the timeout (round 17 left it). Its reader now joins a record's chunks once and charges
  what it holds of an unfinished one to max_memory, as `Stream.lines` does.
- ed's `s///g` searched the rest of a line once per match, and each search converted the whole
  line again (quadratic), with no clock read inside the loop: `s/a/&&&…/g` repeated on one
  line ended its run seconds after the timeout and went on working after exec returned (the
  process aborted at exit with a C++ `terminate`). The searches now share one conversion, and
  the pieces built are charged to max_memory and their count to the deadline.

Rows run in a forked child (secharness: peak RSS watched, threads left after the run counted)
with the default profile.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, verify, verify_bomb

NO_NEWLINE = "tr -d '\\n' < /dev/zero"


def bomb(case_id: str, script: str, timeout: float = 30) -> Any:
    return param(case_id, script, timeout=timeout, profile="default", expect=("max_memory",))


BOMBS = [
    bomb("sort-line-without-end", NO_NEWLINE + " | sort | wc -c"),
    bomb("sort-z-record-without-end", "tr -d '\\0' < /dev/urandom | sort -z | wc -c"),
    bomb("sort-merge-line-without-end", NO_NEWLINE + " | sort -m - | wc -c"),
    bomb("sort-check-line-without-end", NO_NEWLINE + " | sort -c; echo $?"),
    bomb("sort-unique-line-without-end", "yes a | tr -d '\\n' | sort -u | wc -c"),
]


@pytest.fixture(scope="module")
def bomb_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_a_record_without_end_ends_with_max_memory")


@pytest.mark.parametrize("case", BOMBS)
def test_a_record_without_end_ends_with_max_memory(
    case: dict[str, Any], bomb_outcomes: dict[str, Outcome]
) -> None:
    verify_bomb(case, bomb_outcomes[case["id"]])


# one line of `a` made 27 times longer by each substitution: 66, 1782, 48114, 1.3 M, 35 M, ...
GROW = "s/a/&&&&&&&&&&&&&&&&&&&&&&&&&&&/g\\n"
ED_GROWTH = "printf 'a\\n' > f; printf 's/a/" + "a" * 66 + "/\\n" + GROW * 6 + ",p\\n' | ed -s f | wc -c"

# Each ends on time (the timeout or max_memory, whichever first) with no thread still working
# after exec returned (secharness counts them). The two s rows fell; `g/a/t.` and `0r f`
# doubling held (a guard: each ends on the deadline, its lines charged).
DEADLINE = [
    param(
        "ed-subst-global-growth", ED_GROWTH, timeout=3, profile="default", expect=("timeout", "max_memory")
    ),
    param(
        "ed-subst-numbered-on-long-line",
        "head -c 3000000 /dev/zero | tr '\\0' a > f; echo >> f; "
        "for i in 1 2 3 4 5 6 7 8; do echo 's/a/b/2999999'; done | ed -s f; wc -c < f",
        timeout=3,
        profile="default",
        expect=("timeout", "max_memory", "result"),
    ),
    param(
        "ed-global-copy-doubling",
        "printf 'a\\n%.0s' {1..1000} > f; { printf 'g/a/t.\\n%.0s' {1..20}; echo '$='; } | ed -s f",
        timeout=3,
        profile="default",
        expect=("timeout", "max_memory"),
    ),
    param(
        "ed-read-doubling",
        "head -c 1000000 /dev/zero | tr '\\0' '\\n' > f; { printf '0r f\\n0r f\\nw f\\n%.0s' {1..20}; } | ed -s f",
        timeout=3,
        profile="default",
        expect=("timeout", "max_memory"),
    ),
]


@pytest.fixture(scope="module")
def deadline_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_ed_growth_ends_on_time_and_stops_working")


@pytest.mark.parametrize("case", DEADLINE)
def test_ed_growth_ends_on_time_and_stops_working(
    case: dict[str, Any], deadline_outcomes: dict[str, Outcome]
) -> None:
    verify(case, deadline_outcomes[case["id"]])
