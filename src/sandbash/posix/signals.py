"""Linux signal names and numbers: one table for the shell (`kill -l`, `trap`), procps `kill` and `timeout`.

`NAMES[n]` is the name bash gives signal n (1-31; 0 is EXIT, the shell's own pseudo-signal). Real-time
signals (34-64) are named by the code that needs them, from RTMIN/RTMAX.
"""

from __future__ import annotations

NAMES: tuple[str, ...] = (
    "EXIT",
    "HUP",
    "INT",
    "QUIT",
    "ILL",
    "TRAP",
    "ABRT",
    "BUS",
    "FPE",
    "KILL",
    "USR1",
    "SEGV",
    "USR2",
    "PIPE",
    "ALRM",
    "TERM",
    "STKFLT",
    "CHLD",
    "CONT",
    "STOP",
    "TSTP",
    "TTIN",
    "TTOU",
    "URG",
    "XCPU",
    "XFSZ",
    "VTALRM",
    "PROF",
    "WINCH",
    "IO",
    "PWR",
    "SYS",
)

# other names the kernel headers give the same numbers (procps `kill -l` prints POLL for 29)
ALIASES: dict[str, int] = {"IOT": 6, "CLD": 17, "POLL": 29}

# name -> number for 1-31, the aliases included, in number order (an alias after its main name)
NUMBERS: dict[str, int] = {}
for _n, _name in enumerate(NAMES[1:], 1):
    NUMBERS[_name] = _n
    NUMBERS.update({a: v for a, v in ALIASES.items() if v == _n})
