"""Attack round 14: max_array_elements, decoupled from the snapshot bound and raised.

`mapfile` of a file past 100,000 lines ended with max_array_elements where bash runs it. The
default could not simply be raised: the snapshot decoder's bound on JSON values was 24 x
max_array_elements (the lists a restore reads: variables, functions, aliases, positional
parameters, each bounded by that count). Those lists now have a bound of their own,
`restored_entries` (the session's memory at 1 KiB an entry, at least 20,000), and the default is
1,000,000. Measured (peak resident, default limits, 37 MB at start): `mapfile` of 990,000 lines
261 MB; the doubling array ends at the bound with 204 MB. At 10,000,000 the doubling array held
710 MB and awk's split() of 9 M characters 1.9 GB (its elements are made before they are
counted), so awk's own bound stays at most a million (ten times the shell's, as before).
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import _spec, param, run_isolated, verify_bomb

from sandbash import Bash, Limits
from sandbash.sessions.errors import SnapshotError
from sandbash.sessions.snapshot import max_snapshot_values, restored_entries


def test_mapfile_past_the_old_bound_runs_as_in_bash() -> None:
    r = Bash().exec(
        "seq 150000 > f; mapfile -t a < f; echo ${#a[@]} ${a[149999]}; b=(${a[@]:0:120000}); echo ${#b[@]}"
    )
    assert (r.stdout, r.exit_code) == ("150000 150000\n120000\n", 0), r.stderr


def test_a_session_with_a_large_array_snapshots_and_restores() -> None:
    bash = Bash()
    session = bash.session()
    session.exec("mapfile -t a < <(seq 130000)")
    restored = bash.restore(session.snapshot())
    assert restored.exec("echo ${#a[@]} ${a[129999]}").stdout == "130000 130000\n"


def test_snapshot_bound_no_longer_follows_max_array_elements() -> None:
    """The decoder's bound comes from what a session may keep, not from an array's length."""
    small, huge = Limits(), Limits(max_array_elements=10**8)
    assert max_snapshot_values(Bash(limits=small)) == max_snapshot_values(Bash(limits=huge))
    assert restored_entries(huge) == restored_entries(small) == (128 << 20) // 1024
    assert restored_entries(Limits(max_session_memory=1 << 20)) == 20_000


def test_restored_entries_bound_refuses_more_aliases() -> None:
    bash = Bash(limits=Limits(max_session_memory=8 << 20))
    session = bash.session()
    session.exec("for i in {1..20001}; do alias a$i=x; done")
    with pytest.raises(SnapshotError, match="aliases"):
        bash.restore(session.snapshot())


# memory stays bounded at the new default: each ends with a named limit, within max_memory
BOMBS = [
    param(
        "doubling-array",
        'a=(x); for i in {1..40}; do a+=("${a[@]}"); done',
        timeout=20,
        expect=("max_array_elements", "max_memory"),
        profile="default",
        overrides={"max_memory": 96 << 20},
    ),
    param(
        "awk-split-chars",
        'awk \'BEGIN{s=sprintf("%*c", 9000000, "a"); print split(s, a, "")}\'',
        timeout=20,
        expect=("max_array_elements", "max_memory"),
        profile="default",
        overrides={"max_memory": 96 << 20},
    ),
    param(
        "mapfile-endless",
        "yes | mapfile a",
        timeout=20,
        expect=("max_array_elements", "max_memory"),
        profile="default",
        overrides={"max_memory": 96 << 20},
    ),
    param(
        "read-a-long-line",
        "yes x | head -c 9000000 | tr '\\n' ' ' | { read -a a; echo ${#a[@]}; }",
        timeout=20,
        expect=("max_array_elements", "max_memory", "max_string_length"),
        profile="default",
        overrides={"max_memory": 96 << 20},
    ),
    # the compiled read -a of a loop (interp/fastread: from a here-string, from the file itself)
    # splits no further than the array may hold, as the builtin does
    param(
        "read-a-here-string-in-a-loop",
        "s=$(yes x | head -c 200000 | tr '\\n' ' '); for i in 1 2; do IFS=' ' read -ra a <<< \"$s\"; done",
        timeout=20,
        expect=("max_array_elements",),
        profile="default",
        overrides={"max_array_elements": 10000},
    ),
    param(
        "read-a-file-in-a-loop",
        "yes x | head -c 200000 | tr '\\n' ' ' > l; while read -r -a a; do :; done < l",
        timeout=20,
        expect=("max_array_elements",),
        profile="default",
        overrides={"max_array_elements": 10000},
    ),
]


@pytest.mark.parametrize("case", BOMBS)
def test_array_growth_stays_bounded_at_the_new_default(case: dict[str, Any]) -> None:
    verify_bomb(case, run_isolated(**_spec(case)))
