"""The loop shapes a command is put in to be compiled (a loop's body compiles as the loop starts, a
function's the second time it runs): `{cmd}` stands for the command, run three times."""

from __future__ import annotations

LOOPS = [
    "for i in 1 2 3; do {cmd}; done",
    "for ((i=0; i<3; i++)); do {cmd}; done",
    "i=0; while ((i < 3)); do i=$((i+1)); {cmd}; done",
    "i=0; until ((i >= 3)); do ((i++)); {cmd}; done",
    "f() {{ {cmd}; }}; for i in 1 2 3; do f; done",
]
