"""ulimit: per-shell soft and hard limits, shown and checked as bash 5.2 on Linux does.

The starting values are the sandbox's own (open files from max_file_descriptors, cpu time from the
run's timeout, file size from the filesystem quota, ...). A script may lower a limit or raise a soft
one up to its hard limit, like an unprivileged user; the table lives on the shell state, so a subshell
inherits it and its changes stay there. The table records what the script asked for; the sandbox's
own limits are what is enforced.
"""

from __future__ import annotations

from . import builtin
from .bopts import invalid_number, parse_builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell
    from ..limits import Limits

Value = int | None  # None: unlimited

# bash's table order (`ulimit -a`): letter, description, unit; -b -k -P -T do not exist on Linux
_TABLE: list[tuple[str, str, str]] = [
    ("R", "real-time non-blocking time", "microseconds"),
    ("c", "core file size", "blocks"),
    ("d", "data seg size", "kbytes"),
    ("e", "scheduling priority", ""),
    ("f", "file size", "blocks"),
    ("i", "pending signals", ""),
    ("l", "max locked memory", "kbytes"),
    ("m", "max memory size", "kbytes"),
    ("n", "open files", ""),
    ("p", "pipe size", "512 bytes"),
    ("q", "POSIX message queues", "bytes"),
    ("r", "real-time priority", ""),
    ("s", "stack size", "kbytes"),
    ("t", "cpu time", "seconds"),
    ("u", "max user processes", ""),
    ("v", "virtual memory", "kbytes"),
    ("x", "file locks", ""),
]
_DESC = {letter: (desc, unit) for letter, desc, unit in _TABLE}
_RLIM_INFINITY = (1 << 64) - 1
_SPEC = "SHa" + "".join(letter + ";" for letter, _, _ in _TABLE)  # each takes an optional value


def _defaults(lim: Limits) -> dict[str, tuple[Value, Value]]:
    """(soft, hard) at the start: the sandbox's limits are hard; the rest as a usual Linux account."""
    fixed: dict[str, Value] = {
        "e": 0,
        "i": 0,
        "l": 8192,
        "p": 8,
        "q": 819200,
        "r": 0,
        "f": lim.max_filesystem_bytes // 1024,
        "n": lim.max_file_descriptors,
        "t": int(lim.timeout),
        "u": lim.max_pipeline_depth,
    }
    table: dict[str, tuple[Value, Value]] = {letter: (None, None) for letter in _DESC}
    table.update({letter: (v, v) for letter, v in fixed.items()})
    table["c"] = (0, None)
    table["s"] = (8192, None)
    return table


LETTERS = frozenset(_DESC)


def within_own(table: dict[str, tuple[Value, Value]], lim: Limits) -> dict[str, tuple[Value, Value]]:
    """A table from elsewhere (a snapshot's) as this sandbox lets a script set it: a hard limit
    never above this sandbox's own (a script may only lower one), a soft one never above its
    hard one; a letter the table has not keeps this sandbox's own value."""
    own = _defaults(lim)
    kept: dict[str, tuple[Value, Value]] = {}
    for letter, (soft, hard) in table.items():
        own_soft, own_hard = own[letter]
        if letter == "p":
            continue  # (the pipe size is the system's: no script changes it)
        if not _fits(hard, own_hard):
            hard = own_hard
        if not _fits(soft, hard):
            soft = hard
        if (soft, hard) != (own_soft, own_hard):
            kept[letter] = (soft, hard)
    return kept


def _get(sh: Shell, letter: str) -> tuple[Value, Value]:
    own = sh.state.ulimits.get(letter)
    return own if own is not None else _defaults(sh.rt.limits)[letter]


def _show(value: Value) -> str:
    return "unlimited" if value is None else str(value)


def _label(letter: str) -> str:
    desc, unit = _DESC[letter]
    unitstr = f"({unit}, -{letter}) " if unit else f"(-{letter}) "
    return f"{desc:<20} {unitstr:>20}"


def _print(sh: Shell, letter: str, hard: bool, labelled: bool) -> None:
    soft_v, hard_v = _get(sh, letter)
    sh.out((_label(letter) if labelled else "") + _show(hard_v if hard else soft_v) + "\n")


def _fits(new: Value, bound: Value) -> bool:
    return bound is None or (new is not None and new <= bound)


def _set(sh: Shell, letter: str, text: str, soft: bool, hard: bool) -> int:
    old_soft, old_hard = _get(sh, letter)
    new: Value
    if text == "unlimited":
        new = None
    elif text in ("hard", "soft"):
        new = old_hard if text == "hard" else old_soft
    elif (text.isdigit() and text.isascii()) or text == "":  # no sign, no blanks
        new = int(text or "0")
        scaled = new * (512 if letter == "p" else 1024 if _DESC[letter][1] in ("blocks", "kbytes") else 1)
        if scaled >= _RLIM_INFINITY:  # the kernel's value is 64 bits, in bytes for most of them
            sh.builtin_error("ulimit", f"{text}: limit out of range")
            return 1
    else:
        invalid_number(sh, "ulimit", text)
        return 1
    new_soft = new if soft else old_soft
    new_hard = new if hard else old_hard
    if letter == "p":  # the pipe size is fixed by the system
        reason = "Invalid argument"
    elif not _fits(new_hard, old_hard):  # only a privileged process may raise a hard limit
        reason = "Operation not permitted"
    elif not _fits(new_soft, new_hard):
        reason = "Invalid argument"
    else:
        sh.state.ulimits[letter] = (new_soft, new_hard)
        return 0
    sh.builtin_error("ulimit", f"{_DESC[letter][0]}: cannot modify limit: {reason}")
    return 1


@builtin("ulimit")
def bi_ulimit(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, _SPEC)
    if opts is None:
        return 2
    show_hard = opts.has("H") and not opts.has("S")
    if opts.has("a"):
        for letter, _, _ in _TABLE:
            _print(sh, letter, show_hard, labelled=True)
        return 0
    # each resource letter carries its own value (`-c 5 -e`); a lone operand goes to the last one
    cmds = [(c, v) for c, v, _ in opts.items if c not in "SH"] or [("f", None)]
    if opts.args and cmds[-1][1] is None:
        cmds[-1] = (cmds[-1][0], opts.args[0])
    both = not (opts.has("S") or opts.has("H"))
    for letter, value in cmds:
        if value is None:
            _print(sh, letter, show_hard, labelled=len(cmds) > 1)
        elif _set(sh, letter, value, soft=both or opts.has("S"), hard=both or opts.has("H")):
            return 1  # bash stops at the first limit it cannot change
    return 0
