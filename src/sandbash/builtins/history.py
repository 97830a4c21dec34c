"""history: the history list of a non-interactive shell, as bash 5.2 keeps it.

A script's shell does not record the commands it runs (`set -o history` is off), but `history -s`
adds entries, `-d` deletes them (negative offsets count from the end, `A-B` ranges), `-c` clears,
`-p` expands `!` references, and `-a/-n/-r/-w` move the list to and from a file (HISTFILE, or
`~/.history` as readline's default when HISTFILE is unset).
"""

from __future__ import annotations

from ..interp.control import AbortCommand, ExitShell
from ..interp.histline import histsize, push, stifle
from ..vfs.errors import FsError
from . import builtin
from .bopts import legal_number, parse_builtin
from .histexpand import ExpansionFailed, expand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell

_ENTRY_COST = 64  # bookkeeping per entry charged with its text


@builtin("history")
def bi_history(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "acd:npsrw")
    if opts is None:
        return 2
    stifle(sh.state, histsize(sh.get_str("HISTSIZE")))
    hist = sh.state.history
    args = opts.args
    if sum(opts.has(c) for c in "anrw") > 1:
        sh.builtin_error("history", "cannot use more than one of -anrw")
        return 1
    if opts.has("c"):
        hist.clear()
        sh.state.history_saved = 0
        sh.state.history_base = 1
        if not args:
            return 0
    if opts.has("s"):
        if args:
            if sh.state.opts["history"] and sh.state.history_added and hist:
                hist.pop()  # the `history -s` line itself gives way, as bash removes it
            add_entry(sh, " ".join(args))
            sh.state.history_added = True
        return 0
    if opts.has("p"):
        return _expand_print(sh, args)
    if opts.has("d"):
        return _delete(sh, str(opts.value("d")))
    if not any(opts.has(c) for c in "anrw"):
        return _display(sh, args)
    return _file_op(sh, opts.letters(), args)


def add_entry(sh: Shell, entry: str, session: bool = True) -> None:
    """Add one entry; `session`: a line of this shell's own (what `history -a` appends later),
    not one read from the history file."""
    sh.rt.budget.charge_memory(len(entry) + _ENTRY_COST)
    push(sh.state, entry, histsize(sh.get_str("HISTSIZE")), session)


def _display(sh: Shell, args: list[str]) -> int:
    hist = sh.state.history
    count = len(hist)
    if args:
        if len(args) > 1:
            # get_numeric_arg drops the whole command: under `bash -c` that ends the shell
            sh.builtin_error("history", "too many arguments")
            if sh.state.mode == "c":
                raise ExitShell(1)
            raise AbortCommand(1)
        if not legal_number(args[0]):
            sh.builtin_error("history", f"{args[0]}: numeric argument required")
            return 1
        count = min(max(int(args[0]), 0), len(hist))
    first = len(hist) - count
    base = sh.state.history_base
    sh.out("".join(f"{i + base:5d}  {hist[i]}\n" for i in range(first, len(hist))))
    return 0


def _position(sh: Shell, text: str) -> int | None:
    """A 1-based offset from -d (negative: from the end) as a list index; None when out of range."""
    if not legal_number(text):
        return None
    n = int(text)
    index = len(sh.state.history) + n if n < 0 else n - sh.state.history_base
    return index if 0 <= index < len(sh.state.history) else None


def _delete(sh: Shell, spec: str) -> int:
    hist = sh.state.history
    # `A-B` is a range; a leading `-` belongs to a negative A
    dash = spec.find("-", 1)
    if dash > 0 and dash + 1 < len(spec):
        start, end = _position(sh, spec[:dash]), _position(sh, spec[dash + 1 :])
        if start is None or end is None:
            shown = spec[:dash] if start is None else spec[dash + 1 :]
            sh.builtin_error("history", f"{shown}: history position out of range")
            return 1
        if end < start:
            return 1  # bash fails without a message
        del hist[start : end + 1]
        return 0
    index = _position(sh, spec)
    if index is None:
        sh.builtin_error("history", f"{spec}: history position out of range")
        return 1
    del hist[index]
    return 0


def _expand_print(sh: Shell, args: list[str]) -> int:
    status = 0
    for arg in args:
        try:
            sh.out(expand(sh.state.history, arg, sh.state.history_base) + "\n")
        except ExpansionFailed:
            sh.builtin_error("history", f"{arg}: history expansion failed")
            status = 1
    return status


def _file_op(sh: Shell, letters: str, args: list[str]) -> int:
    name = args[0] if args else sh.get_str("HISTFILE")
    if name is None:
        name = (sh.get_str("HOME") or "") + "/.history"  # readline's default file
    hist = sh.state.history
    try:
        if "w" in letters:
            sh.state.fs.write_bytes(name, _encode(hist))
        elif "a" in letters:
            # bash's append_history(history_lines_this_session): the list's last entries, as many
            # as this shell added since the last -a (lines read from a file since count not)
            count = min(sh.state.history_saved, len(hist))
            if count:
                sh.state.fs.write_bytes(name, _encode(hist[len(hist) - count :]), append=True)
            sh.state.history_saved = 0
        else:
            data = sh.state.fs.read_bytes(name).decode("utf-8", "surrogateescape")
            lines = data.splitlines()
            if "n" in letters:
                lines = lines[sh.state.history_read :]
            sh.state.history_read += len(lines)
            for line in lines:
                add_entry(sh, line, session=False)
    except FsError:
        return 1
    return 0


def _encode(entries: list[str]) -> bytes:
    return "".join(e + "\n" for e in entries).encode("utf-8", "surrogateescape")
