"""The deadline holds when one step of a loop is big.

The clock is read every 64 commands or charges (Budget.checkpoint, command_slow, LoopFrame.check):
cheap for small steps, but one step that expands a 200,000-element array takes a fraction of a
second, so 64 of them ran far past the deadline (3-6 s of CPU for a 1 s timeout; with a million
elements, until max_expansion_bytes ended the run 10-30 s after a 4 s timeout). Expansions now read
the clock every BIG_EXPANSION characters (Budget.charge_expansion), so each loop ends with `timeout`
within a step of it: asserted by the CPU the run took, not the wall time (a loaded host).
"""

from __future__ import annotations

import time

import pytest

from sandbash import Bash, Limits
from sandbash.errors import ExecutionLimitError

LINES = "".join(f"{i}\n" for i in range(200_000))
FILL = "mapfile -t a < /d; "

LOOPS = {
    "copy": FILL + 'while :; do b=("${a[@]}"); done',
    "keys": FILL + 'while :; do k=("${!a[@]}"); done',
    "prefix-each": FILL + 'while :; do b=("${a[@]/#/x}"); done',
    "upper-each": FILL + 'while :; do b=("${a[@]^^}"); done',
    "read-a-line": 'x=$(tr "\\n" " " < /d); while :; do read -ra f <<< "$x"; done',
    "printf-all": FILL + 'while :; do printf "%s\\n" "${a[@]}" > /dev/null; done',
    "for-words": "x=$(< /d); while :; do for w in $x; do :; done; done",
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_a_loop_of_big_steps_ends_at_its_deadline(name: str) -> None:
    bash = Bash(files={"/d": LINES}, limits=Limits(timeout=1, max_arguments=1 << 20))
    cpu = time.process_time()
    with pytest.raises(ExecutionLimitError) as caught:
        bash.exec(LOOPS[name])
    assert caught.value.limit == "timeout", caught.value
    # (CPU, not wall: the host may be busy; a step is a tenth of a second, 64 were seconds)
    assert time.process_time() - cpu < 1 + 2, "late"


def test_timeout_command_ends_a_loop_of_big_steps() -> None:
    # (`timeout`'s own budget reads its own deadline at a big expansion too: SubBudget)
    bash = Bash(files={"/d": LINES}, limits=Limits(timeout=60))
    inner = 'mapfile -t a < /d; while :; do k=("${!a[@]}"); done'
    r = bash.exec(f"timeout 2 bash -c '{inner}'; echo \"rc=$?\"")
    assert r.stdout == "rc=124\n", r
