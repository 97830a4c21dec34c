"""Attack round 26: what was built recently (python3's stdlib modules, tar's hard links, the
/dev/fd reopen, gzip's new names and options) and last round's leftovers.

Fell and fixed: sort keeps a run of identical lines once with a count, and wrote the copies back
as one bytes object of them all (`(line + sep) * count`), or, for --debug and after a spill, as a
list with a slot for every copy: `zcat bomb | sort` of 200 million empty lines grew 200 MB under
max_memory 64 MiB, 50 million lines after a spill 410 MB. The copies are now written a megabyte at
a time and handed on one at a time.
"""

from __future__ import annotations

import pytest
from secharness import run_isolated

from sandbash import Limits

MIB = 1 << 20
ZEROS = "head -c {n} /dev/zero | tr '\\0' '\\n'"

# (max_memory MiB, script, the output that shows the run was whole)
SORT_COUNTED = {
    # one line counted 30 million times: the copies were one 30 MB bytes object ... of 240 MB of slots
    "counted-emit": (16, ZEROS.format(n=30_000_000) + " | sort | wc -l", "30000000\n"),
    "counted-debug": (16, ZEROS.format(n=3_000_000) + " | sort --debug | wc -l", "6000000\n"),
    # after a spill the last run was expanded into a list before the merge
    "counted-after-spill": (
        32,
        "{ seq 400000; " + ZEROS.format(n=12_000_000) + "; } | sort | wc -l",
        "12400000\n",
    ),
    "counted-reversed": (16, ZEROS.format(n=30_000_000) + " | sort -r | uniq -c", "30000000 \n"),
}


@pytest.mark.parametrize("name", sorted(SORT_COUNTED))
def test_sort_of_repeated_lines_stays_within_max_memory(name: str) -> None:
    mib, script, expected = SORT_COUNTED[name]
    limits = Limits(
        max_memory=mib * MIB, max_filesystem_bytes=256 * MIB, max_output_size=1 << 30, timeout=120
    )
    out = run_isolated(script, limits=limits)
    assert out.kind == "result" and out.stdout.decode() == expected, out.describe()
    assert out.extra["peak_rss"] <= mib * MIB, f"grew {out.extra['peak_rss'] >> 20} MiB: " + out.describe()
