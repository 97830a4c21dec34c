"""fc and bind: the history editor and readline's key bindings, as a bash 5.2 script's shell has them.

fc works on the list `history` keeps (`history -s` adds entries): `-l` lists, `-s [pat=rep] [cmd]`
(or `-e -`) runs an entry again, echoing it to stderr first and putting it in place of the last
entry, and `-e ENAME` writes entries to a temp file, runs `ENAME FILE` (default
`${FCEDIT:-${EDITOR:-vi}}`) and then runs the file, echoing each command as it is read. bash
believes the last entry is the fc command itself when `history -s` (or fc) added it, so the edit
form drops that entry first; numbers out of range clamp as bash's fc_gethnum does.

bind: a script's shell has no line editing, so every call warns first and then does what it can:
listings and queries from readline's default emacs keymap (readline_facts), usage errors.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager

from ..interp.control import ReturnFromFunction
from ..limits import LimitExceeded, LimitKind
from ..vfs.errors import FsError
from . import builtin
from .bopts import legal_number, parse_builtin, usage
from .history import add_entry
from .readline_facts import FUNCTIONS, KEYMAPS, VARIABLES, Bindings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell

_INVALID = -2  # fc_gethnum's HIST_INVALID ("history specification out of range")
_TEMP_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


# ------------------------------------------------------------ fc


def _fc_number(word: str) -> bool:
    return legal_number(word[1:] if word.startswith("-") else word)


def _split_options(argv: list[str]) -> tuple[list[str], list[str]]:
    """bash stops reading fc's options at a word that is a number (`fc -l -5`): (option words,
    operands)."""
    k = 1
    while k < len(argv):
        word = argv[k]
        if word == "--":
            return argv[: k + 1], argv[k + 1 :]
        if _fc_number(word) or not word.startswith("-") or word == "-":
            break
        k += 2 if word.endswith("e") and "e" not in word[1:-1] else 1  # -e takes the next word
    return argv[:k], argv[k:]


def _last(sh: Shell) -> int:
    """The index fc takes for the newest entry: bash skips one more when both its history
    recording (`set -o history`, or after an fc edit) and the last addition (`history -s`, the
    line just read) say the last entry is the current command."""
    st = sh.state
    remember = st.history_remember or st.opts["history"]
    return len(st.history) - 1 - (1 if st.history_added and remember else 0)


def _hnum(sh: Shell, word: str | None, first: bool, listing: bool) -> int:
    """bash's fc_gethnum: the list index `word` names (a number, negative from the end, or a
    prefix of an entry), -1 when no entry starts with it, _INVALID for `-0` outside -l."""
    hist = sh.state.history
    last = _last(sh)
    if word is None:
        return last
    if _fc_number(word):
        n = int(word)
        if n < 0:
            return max(n + last + 1, 0)
        if n == 0:
            return (last if listing else _INVALID) if word.startswith("-") else last
        n -= sh.state.history_base
        return (0 if first else last) if n >= last or n < 0 else n
    for j in range(last, -1, -1):
        if hist[j].startswith(word):
            return j
    return -1


def _replace_last(sh: Shell, command: str) -> None:
    """fc_replhist: the command run takes the place of the last entry (bash's `fc ...` line)."""
    command = command.removesuffix("\n")
    if not command:
        return
    if sh.state.history:
        sh.state.history.pop()
    add_entry(sh, command)
    sh.state.history_added = True


@contextmanager
def _nested(sh: Shell) -> Iterator[None]:
    """What fc runs counts as an eval level (fc -s inside the edited file inside ...: bounded)."""
    limit = sh.rt.limits.max_substitution_depth
    if sh.subst_depth + sh.eval_depth >= limit:
        raise LimitExceeded(LimitKind.MAX_SUBSTITUTION_DEPTH, limit)
    saved_line = sh.state.line
    sh.eval_depth += 1
    try:
        sh.state.command_builtin = False
        yield
    finally:
        sh.eval_depth -= 1
        sh.state.line = saved_line


def _run(sh: Shell, text: str, source: str) -> int:
    with _nested(sh):
        return sh.run_text(text, source, line_base=sh.state.line or 1)


def _substitute(command: str, pat: str, rep: str) -> str:
    """bash's strsub, every occurrence; an empty pattern stands for each character."""
    if not pat:
        return rep * len(command)
    return command.replace(pat, rep)


def _fc_execute(sh: Shell, args: list[str]) -> int:
    subs: list[tuple[str, str]] = []
    while args and "=" in args[0]:
        pat, _, rep = args.pop(0).partition("=")
        subs.append((pat, rep))
    index = _hnum(sh, args[0] if args else None, False, False)
    if index < 0 or index >= len(sh.state.history):
        sh.builtin_error("fc", "no command found")
        return 1
    command = sh.state.history[index]
    for pat, rep in subs:
        command = _substitute(command, pat, rep)
    sh.write_err(command + "\n")
    _replace_last(sh, command)
    return _run(sh, command, "fc")


def _range(sh: Shell, args: list[str], listing: bool) -> tuple[int, int] | int:
    """(first, last) indices for -l and the edit form, or the status after an error."""
    hist = sh.state.history
    last = _last(sh)
    if args:
        first = _hnum(sh, args[0], True, listing)
        end = _hnum(sh, args[1], False, listing) if len(args) > 1 else (last if listing else first)
    elif listing:
        first, end = max(last - 15, 0), last
    else:
        first = end = last
    if not listing and sh.state.history_added:
        hist.pop()  # bash takes the last entry for the fc command itself
        last = len(hist) - 1
        if last < 0:
            return 0, -1  # nothing left: the editor gets an empty file
        # bash clamps one end (the other only points past the list in cases it cannot reach)
        first, end = min(first, last), min(end, last)
    if first == _INVALID or end == _INVALID:
        sh.builtin_error("fc", "history specification out of range")
        return 1
    if first < 0 or end < 0:
        sh.builtin_error("fc", "no command found")
        return 1
    return first, end


@builtin("fc")
def bi_fc(sh: Shell, argv: list[str]) -> int:
    head, rest = _split_options(argv)
    opts = parse_builtin(sh, head, "e:lnrs")
    if opts is None:
        return 2
    args = opts.args + rest
    ename = opts.value("e")
    if opts.has("s") or ename == "-":
        return _fc_execute(sh, args)
    listing = opts.has("l")
    if not sh.state.history:
        return 0
    found = _range(sh, args, listing)
    if isinstance(found, int):
        return found
    first, end = found
    reverse = opts.has("r")
    if end < first and end >= 0:
        first, end, reverse = end, first, True
    order = range(end, first - 1, -1) if reverse else range(first, end + 1)
    hist = sh.state.history
    if not listing:
        return _fc_edit(sh, [hist[i] for i in order], ename)
    numbers = not opts.has("n")
    sep = "\t" if sh.state.opts["posix"] else "\t "
    base = sh.state.history_base
    sh.out("".join((str(i + base) if numbers else "") + sep + hist[i] + "\n" for i in order))
    return 0


def _temp_name(sh: Shell) -> str:
    """sh_mktmpfp's name: $TMPDIR when it is a writable directory, else /tmp."""
    fs = sh.state.fs
    tmpdir = sh.get_str("TMPDIR") or ""
    if not tmpdir or not fs.is_dir(tmpdir) or not fs.access(tmpdir, 3):
        tmpdir = "/tmp"
    tail = "".join(_TEMP_CHARS[b % len(_TEMP_CHARS)] for b in fs.vfs.random_bytes(6))
    return f"{tmpdir.rstrip('/')}/bash-fc.{tail}"


def _fc_edit(sh: Shell, lines: list[str], ename: str | None) -> int:
    fs = sh.state.fs
    name = _temp_name(sh)
    try:
        fs.write_bytes(name, "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape"))
    except FsError as e:
        sh.builtin_error("fc", f"{name}: cannot open temp file: {e.message}")
        return 1
    try:
        editor = ename if ename is not None else "${FCEDIT:-${EDITOR:-vi}}"
        if _run(sh, f"{editor} {name}", "fc") != 0:
            return 1
        try:
            text = fs.read_bytes(name).decode("utf-8", "surrogateescape")
        except FsError as e:
            sh.error(f"{name}: {e.message}")
            return 1
        for line in text.splitlines():
            if line.strip():
                add_entry(sh, line)
                sh.state.history_added = True
        return _run_echoing(sh, text, name)
    finally:
        try:
            fs.unlink(name)
        except FsError as e:
            if e.errno != errno.ENOENT:
                raise


def _run_echoing(sh: Shell, text: str, name: str) -> int:
    """Run the edited file as bash does (as `source` runs a file, so errors name it), with
    `set -v` on so each command is echoed as it is read; bash's history recording stays on."""
    st = sh.state
    saved = st.opts["verbose"]
    st.opts["verbose"] = True
    st.history_remember = True
    st.sources.append(name)
    st.source_lines.append((st.line, len(st.frames)))
    try:
        with _nested(sh):
            return sh.run_text(text, None)
    except ReturnFromFunction as r:
        return r.status
    finally:
        st.sources.pop()
        st.source_lines.pop()
        st.opts["verbose"] = saved


# ------------------------------------------------------------ bind


_USAGE_BIND_LETTERS = "lvpVPsSXf:q:u:m:r:x:"


def _keys_shown(bindings: Bindings, function: str) -> str | None:
    """Up to five of the keys bound to `function`, as readline names them, ending the sentence
    (`, ...` when there are more); None when unbound."""
    keys = [key for key, fn in bindings if fn == function]
    if not keys:
        return None
    return ", ".join(f'"{k}"' for k in keys[:5]) + (", ..." if len(keys) > 5 else ".")


def _query(sh: Shell, bindings: Bindings, function: str) -> int:
    if function not in FUNCTIONS:
        sh.builtin_error("bind", f"`{function}': unknown function name")
        return 1
    shown = _keys_shown(bindings, function)
    if shown is None:
        sh.out(f"{function} is not bound to any keys.\n")
        return 1
    sh.out(f"{function} can be invoked via {shown}\n")
    return 0


def _list_bindings(sh: Shell, bindings: Bindings, readable: bool) -> None:
    """bind -P (sentences) or -p (inputrc lines), functions in name order, after a blank line."""
    out = ["\n"]
    for fn in FUNCTIONS:
        if readable:
            shown = _keys_shown(bindings, fn)
            out.append(
                f"{fn} is not bound to any keys\n" if shown is None else f"{fn} can be found on {shown}\n"
            )
            continue
        keys = [f'"{key}": {fn}\n' for key, bound in bindings if bound == fn]
        out.extend(keys or [f"# {fn} (not bound)\n"])
    sh.out("".join(out))


def _list_variables(sh: Shell, keymap_name: str, readable: bool) -> None:
    values = [(name, keymap_name if name == "keymap" else value) for name, value in VARIABLES]
    if readable:
        sh.out("".join(f"{name} is set to `{value}'\n" for name, value in values))
    else:
        sh.out("".join(f"set {name} {value}\n" for name, value in values))


@builtin("bind")
def bi_bind(sh: Shell, argv: list[str]) -> int:
    sh.builtin_error("bind", "warning: line editing not enabled")
    for word in argv[1:]:
        if word == "--help":  # bind answers --help with its usage line, as a usage error
            usage(sh, "bind")
            return 2
        if word == "--" or not word.startswith("-"):
            break
    opts = parse_builtin(sh, argv, _USAGE_BIND_LETTERS)
    if opts is None:
        return 2
    keymap = str(opts.value("m") or "emacs")
    if keymap not in KEYMAPS:
        sh.builtin_error("bind", f"`{keymap}': invalid keymap name")
        return 1
    bindings, keymap_name = KEYMAPS[keymap]
    letters = opts.letters()
    if "l" in letters:
        sh.out("".join(f + "\n" for f in FUNCTIONS))
    if "P" in letters:
        _list_bindings(sh, bindings, True)
    if "p" in letters:
        _list_bindings(sh, bindings, False)
    if "V" in letters:
        _list_variables(sh, keymap_name, True)
    if "v" in letters:
        _list_variables(sh, keymap_name, False)
    # -s, -S and -X list macros and shell-command bindings: readline's defaults have none
    status = 0
    if opts.has("f"):
        name = str(opts.value("f"))
        try:
            sh.state.fs.read_bytes(name)
        except FsError as e:
            sh.builtin_error("bind", f"{name}: cannot read: {e.message}")
            return 1
    if opts.has("q"):
        status = _query(sh, bindings, str(opts.value("q")))
    if opts.has("u") and str(opts.value("u")) not in FUNCTIONS:
        sh.builtin_error("bind", f"`{opts.value('u')}': unknown function name")
        return 1
    command = opts.value("x")
    if command is not None and not str(command).lstrip().startswith('"'):
        sh.builtin_error("bind", f"{command}: first non-whitespace character is not `\"'")
        return 1
    for arg in opts.args:  # readline parses each as an inputrc line; no binding can take effect
        if ":" not in arg:
            sh.write_err(f"readline: {arg}: no key sequence terminator\n")
    return status
