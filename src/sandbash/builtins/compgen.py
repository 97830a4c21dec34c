"""compgen: the words a completion spec generates, printed one per line, as bash 5.2's compgen.

bash builds the list in a fixed order whatever order the options came in: the actions (-a ... -v,
-A NAME) in the order of its action table, each filtered by the word; then -G's glob (unfiltered),
-W's words (expanded, filtered), -F's function (COMPREPLY) and -C's command (its output lines).
-X removes what its pattern matches (`&` stands for the word, `!` inverts), -P/-S wrap each word,
and last -o dirnames/plusdirs add directory names. Status 1 when nothing was generated.
"""

from __future__ import annotations

from collections.abc import Callable

from ..expand.quoting import single_quote
from ..interp.jobs import listed_jobs, stage_table
from ..shvars.arrays import AssocArray, IndexedArray
from ..stdio.streams import BufferWriter
from ..syntax.lexer import KEY
from ..syntax.reserved import RESERVED_WORDS
from ..vfs.errors import FsError
from . import BUILTINS, builtin
from .bopts import parse_builtin
from .complete import ACTION_NAMES, COMP_SPEC, spec_from
from .core import _SIGNALS
from .help import _topics
from .readline_facts import FUNCTIONS as READLINE_FUNCTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell

# bash's reserved words in its word_token_alist order (what `compgen -k` prints)
KEYWORDS = list(RESERVED_WORDS)


# the bindable functions bash adds when it sets up readline for an interactive shell: a script's
# `compgen -A binding` lists only readline's own
_BASH_BINDINGS = frozenset(
    [
        "alias-expand-line",
        "complete-command",
        "complete-filename",
        "complete-hostname",
        "complete-into-braces",
        "complete-username",
        "complete-variable",
        "dabbrev-expand",
        "display-shell-version",
        "dynamic-complete-history",
        "edit-and-execute-command",
        "glob-complete-word",
        "glob-expand-word",
        "glob-list-expansions",
        "history-and-alias-expand-line",
        "history-expand-line",
        "insert-last-argument",
        "magic-space",
        "possible-command-completions",
        "possible-filename-completions",
        "possible-hostname-completions",
        "possible-username-completions",
        "possible-variable-completions",
        "shell-backward-kill-word",
        "shell-backward-word",
        "shell-expand-line",
        "shell-forward-word",
        "shell-kill-word",
        "shell-transpose-words",
        "spell-correct-word",
        "vi-edit-and-execute-command",
    ]
)


def path_programs(sh: Shell, prefix: str) -> list[str]:
    """Executable files in each PATH directory, in PATH order (as bash's `compgen -c`; /bin and
    /usr/bin list the sandbox's commands, so this agrees with `ls /usr/bin` and `which`)."""
    fs = sh.state.fs
    found: list[str] = []
    for d in (sh.get_str("PATH") or "").split(":"):
        try:
            entries = sorted(fs.listdir(d or "."))
        except FsError:
            continue
        for name in entries:
            if name.startswith(prefix):
                st = fs.try_stat((d or ".").rstrip("/") + "/" + name)
                if st is not None and st.is_program:
                    found.append(name)
    return found


def _files(sh: Shell, word: str, dirs_only: bool) -> list[str]:
    """readline's filename completion: entries of the word's directory that start with its last
    component (`.` and `..` only when that is asked for with a leading dot), the word's own
    directory part (a `~` kept as written) put back in front."""
    head, slash, base = word.rpartition("/")
    directory = head + slash
    real = directory
    if directory.startswith("~"):
        user, _, rest = directory[1:].partition("/")
        home = sh.home_dir(user)
        if home is not None:
            real = home.rstrip("/") + "/" + rest
    fs = sh.state.fs
    try:
        entries = sorted(fs.listdir(real or "."))
    except FsError:
        return []
    if base.startswith("."):
        entries = [".", ".."] + entries
    out = []
    for e in entries:
        if e.startswith(base) and (not dirs_only or fs.is_dir((real or "./") + e)):
            out.append(directory + e)
    return out


def _jobs(sh: Shell, running: bool) -> list[str]:
    stage_table(sh)
    jobs = sorted(listed_jobs(sh).values(), key=lambda j: j.jid)
    return [j.command.split(" ", 1)[0] for j in jobs if not (running and j.done.is_set())]


def _hostnames(sh: Shell) -> list[str]:
    """HOSTFILE (else /etc/hosts): the names after each line's address, comments skipped."""
    path = sh.get_str("HOSTFILE") or "/etc/hosts"
    try:
        text = sh.state.fs.read_text(path)
    except (FsError, UnicodeDecodeError):
        return []
    names: list[str] = []
    for line in text.splitlines():
        names += line.partition("#")[0].split()[1:]
    return names


def _signals() -> list[str]:
    names = ["EXIT"] + [f"SIG{n}" for n in _SIGNALS[1:]] + ["SIGJUNK(32)", "SIGJUNK(33)"]
    names += [f"SIGRTMIN{'+' + str(i) if i else ''}" for i in range(16)]
    names += [f"SIGRTMAX{'-' + str(14 - i) if i < 14 else ''}" for i in range(15)]
    return names + ["DEBUG", "ERR", "RETURN"]


def _arrays(sh: Shell) -> list[str]:
    out = []
    for n in sh.var_names():
        var = sh.var_value(n)
        if var is not None and isinstance(var.value, (IndexedArray, AssocArray)):
            out.append(n)
    return out


def _commands(sh: Shell, word: str) -> list[str]:
    """Aliases, reserved words, functions, enabled builtins, then PATH's programs."""
    st = sh.state
    out = sorted(st.aliases) + KEYWORDS + sorted(st.functions)
    out += [b for b in sorted(BUILTINS) if b not in st.disabled_builtins]
    return out + path_programs(sh, word)


# each action's words (before the word filters them), in the order bash makes them
# (pcomplete.c's gen_action_completions): the actions with a list of their own first, in its
# table's order, then its special cases: commands, files, users, groups, services, directories
_ACTIONS: dict[str, Callable[[Shell, str], list[str]]] = {
    "alias": lambda sh, w: sorted(sh.state.aliases),
    "arrayvar": lambda sh, w: _arrays(sh),
    "binding": lambda sh, w: [f for f in READLINE_FUNCTIONS if f not in _BASH_BINDINGS],
    "builtin": lambda sh, w: sorted(BUILTINS),
    "disabled": lambda sh, w: [b for b in sorted(BUILTINS) if b in sh.state.disabled_builtins],
    "enabled": lambda sh, w: [b for b in sorted(BUILTINS) if b not in sh.state.disabled_builtins],
    "export": lambda sh, w: sorted(sh.va.exported_env()),
    "function": lambda sh, w: sorted(sh.state.functions),
    "helptopic": lambda sh, w: sorted({*_topics(sh), *sh.state.disabled_builtins, "%", "variables"}),
    "hostname": lambda sh, w: _hostnames(sh),
    "job": lambda sh, w: _jobs(sh, False),
    "keyword": lambda sh, w: KEYWORDS,
    "running": lambda sh, w: _jobs(sh, True),
    "setopt": lambda sh, w: list(sh.state.opts),
    "shopt": lambda sh, w: list(sh.state.shopts),
    "signal": lambda sh, w: _signals(),
    "stopped": lambda sh, w: [],  # jobs are never stopped: there is no job control
    "variable": lambda sh, w: sh.var_names(),
    "command": _commands,
    "file": lambda sh, w: _files(sh, w, False),
    "user": lambda sh, w: sorted({"root", sh.rt.identity.user}),
    "group": lambda sh, w: sorted({"root", sh.rt.identity.group}),
    "service": lambda sh, w: [],  # the sandbox has no services database
    "directory": lambda sh, w: _files(sh, w, True),
}
assert set(_ACTIONS) == set(ACTION_NAMES)


def _group_end(text: str, i: int) -> int:
    """The index just past the `$(...)`, `${...}` or backquoted text that starts at `i`."""
    if text[i] == "`":
        end = text.find("`", i + 1)
        return len(text) if end < 0 else end + 1
    close = ")" if text[i + 1] == "(" else "}"
    depth = 0
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 1
        elif c == text[i + 1]:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(text)


def _split_wordlist(text: str, ifs: str, tick: Callable[[], None]) -> list[str]:
    """-W's text cut at IFS characters outside quotes and substitutions, as bash's split_at_delims
    (`tick`, the run's checkpoint, at each cut: a 300,000-word list took seconds)."""
    pieces: list[str] = []
    cur: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'" and i + 1 < len(text):
            step = 2
        elif quote != "'" and (c == "`" or (c == "$" and text[i + 1 : i + 2] in ("(", "{"))):
            step = _group_end(text, i) - i
        else:
            step = 1
            if quote:
                quote = "" if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c in ifs:
                if cur:
                    pieces.append("".join(cur))
                    tick()
                cur = []
                i += 1
                continue
        cur.append(text[i : i + step])
        i += step
    if cur:
        pieces.append("".join(cur))
    return pieces


def _wordlist(sh: Shell, text: str) -> list[str]:
    """-W: each piece expanded as a shell word (split, but not globbed: bash's shellexp), the
    run's budget charged for each (`compgen -W "$(seq 300000)"` ran 13 s past a 2 s deadline)."""
    words: list[str] = []
    expander = sh.expander
    checkpoint = sh.rt.budget.checkpoint
    for piece in _split_wordlist(text, sh.ifs(), checkpoint):
        checkpoint()
        expander._glob_off = True
        try:
            words += expander.word(sh._sub_word(piece, KEY))
        finally:
            expander._glob_off = False
    return words


def _glob(sh: Shell, pattern: str) -> list[str]:
    """-G: the files the pattern matches, as bash's glob_filename (no dotglob, nullglob or failglob)."""
    shopts = sh.state.shopts
    saved = {k: shopts[k] for k in ("dotglob", "failglob", "nullglob")}
    shopts.update(dict.fromkeys(saved, False))
    try:
        return sh.glob(pattern) or []
    finally:
        shopts.update(saved)


def _function(sh: Shell, fname: str, word: str) -> list[str]:
    """-F: the function runs with COMP_* set as bash sets them outside a completion and
    (command, word, previous word) as its arguments; its COMPREPLY is the answer."""
    sh.builtin_error("compgen", "warning: -F option may not work as you expect")
    if fname not in sh.state.functions:
        sh.error(f"completion: function `{fname}' not found")
        return []
    sh.va.set_array("COMP_WORDS", [])
    for name, value in (("COMP_CWORD", "-1"), ("COMP_LINE", ""), ("COMP_POINT", "0")):
        sh.set_var(name, value)
    for name in ("COMP_TYPE", "COMP_KEY"):
        sh.set_var(name, "0")
    line = sh.state.line or 1
    # (run as a command of its own, not a text as eval's: bash calls the function directly, so an
    # error that discards the command line there discards the line compgen is on)
    call = sh.make_parser(f"{single_quote(fname)} compgen {single_quote(word)} ''", line).parse_next()
    if call is not None:
        sh.run_list(call)
    var = sh.var_value("COMPREPLY")
    found: list[str] = []
    if var is not None:
        v = var.value
        found = v.values() if isinstance(v, (IndexedArray, AssocArray)) else [] if v is None else [v]
    for name in ("COMP_WORDS", "COMP_CWORD", "COMP_LINE", "COMP_POINT", "COMP_TYPE", "COMP_KEY", "COMPREPLY"):
        sh.va.unset_var(name)
    return found


def _command(sh: Shell, command: str, word: str) -> list[str]:
    """-C: the command's output lines (empty ones dropped), run as a command substitution."""
    sh.builtin_error("compgen", "warning: -C option may not work as you expect")
    child = sh.fork()
    out = BufferWriter(max_size=sh.rt.limits.max_string_length)
    child.state.fds[1] = out
    child.run_text("export COMP_LINE= COMP_POINT=0 COMP_TYPE=0 COMP_KEY=0", None)
    child.run_text(f"{command} compgen {single_quote(word)} ''", None, line_base=sh.state.line or 1)
    text = out.getvalue().decode("utf-8", "surrogateescape")
    return [line for line in text.split("\n") if line]


def _filter(sh: Shell, words: list[str], pattern: str, word: str) -> list[str]:
    """-X: drop the words the pattern matches (`!pat` keeps only those); `&` is the word."""
    from ..expand.pattern import match

    pat = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and pattern[i + 1 : i + 2] == "&":
            pat.append("\\&")
            i += 2
            continue
        pat.append(word if pattern[i] == "&" else pattern[i])
        i += 1
    text = "".join(pat)
    keep = text.startswith("!")
    text = text[1:] if keep else text
    extglob = sh.state.shopts["extglob"]
    return [w for w in words if match(text, w, extglob) == keep]


def _bash_default(sh: Shell, word: str) -> list[str]:
    """-o bashdefault outside a command line: `$NAME` and `~USER` words complete."""
    if word.startswith("$"):
        return ["$" + n for n in sh.var_names() if n.startswith(word[1:])]
    if word.startswith("~") and "/" not in word:
        return ["~" + u for u in _ACTIONS["user"](sh, word) if u.startswith(word[1:])]
    return []


@builtin("compgen")
def bi_compgen(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, COMP_SPEC)
    if opts is None:
        return 2
    if not opts.items:
        return 0  # nothing asked for: bash answers success without a word
    spec = spec_from(sh, opts, "compgen")
    if spec is None:
        return 2
    word = opts.args[0] if opts.args else ""
    found: list[str] = []
    for action in _ACTIONS:
        if action in spec["A"]:
            found += [w for w in _ACTIONS[action](sh, word) if w.startswith(word)]
    if "G" in spec:
        found += _glob(sh, spec["G"][0])
    if "W" in spec:
        found += [w for w in _wordlist(sh, spec["W"][0]) if w.startswith(word)]
    if "F" in spec:
        found += _function(sh, spec["F"][0], word)
    if "C" in spec:
        found += _command(sh, spec["C"][0], word)
    if "X" in spec:
        found = _filter(sh, found, spec["X"][0], word)
    prefix, suffix = spec.get("P", [""])[0], spec.get("S", [""])[0]
    found = [prefix + w + suffix for w in found]
    options = spec["o"]
    if not found and "bashdefault" in options:
        found = _bash_default(sh, word)
    if not found and ("default" in options or "dirnames" in options):
        found = _files(sh, word, "default" not in options)
    if "plusdirs" in options:
        found += _files(sh, word, True)
    for w in found:
        sh.out(w + "\n")
    return 0 if found else 1
