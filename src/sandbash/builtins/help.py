"""The `help` builtin: short usage lines for builtins and the commands that exist."""

from __future__ import annotations

from ..expand.quoting import single_quote
from ..vfs.errors import FsError
from .synopsis import USAGE as USAGE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell

# the grammar's reserved words are help topics too
KEYWORD_USAGE = {
    "case": "case WORD in [PATTERN [| PATTERN]...) COMMANDS ;;]... esac",
    "coproc": "coproc [NAME] command [redirections]",
    "for": "for NAME [in WORDS ... ] ; do COMMANDS; done",
    "for ((": "for (( exp1; exp2; exp3 )); do COMMANDS; done",
    "function": "function name { COMMANDS ; } or name () { COMMANDS ; }",
    "if": "if COMMANDS; then COMMANDS; [ elif COMMANDS; then COMMANDS; ]... [ else COMMANDS; ] fi",
    "select": "select NAME [in WORDS ... ;] do COMMANDS; done",
    "time": "time [-p] pipeline",
    "until": "until COMMANDS; do COMMANDS-2; done",
    "while": "while COMMANDS; do COMMANDS-2; done",
    "[[ ... ]]": "[[ expression ]]",
    "(( ... ))": "(( expression ))",
    "{ ... }": "{ COMMANDS ; }",
    # topics without a command of their name: a job spec alone, and the shell's variables
    "%": "job_spec [&]",
    "variables": "variables - Names and meanings of some shell variables",
}
# one line each, in our words (`help -d`)
DESCRIPTION = {
    ":": "Do nothing and succeed (the arguments are still expanded).",
    ".": "Run the commands of a file in the current shell.",
    "source": "Run the commands of a file in the current shell.",
    "[": "Test a condition; the last argument must be `]'.",
    "test": "Test a condition: file types, string and number comparisons.",
    "alias": "Define aliases, or show them.",
    "unalias": "Remove alias definitions.",
    "bg": "Resume a stopped job in the background.",
    "fg": "Bring a job to the foreground.",
    "jobs": "List the shell's background jobs.",
    "disown": "Remove jobs from the job table.",
    "suspend": "Stop the shell until it gets SIGCONT.",
    "wait": "Wait for background jobs and give their status.",
    "kill": "Send a signal to jobs or processes of the sandbox.",
    "break": "Leave a for, while, until or select loop.",
    "continue": "Go on with the next iteration of a loop.",
    "builtin": "Run a shell builtin, skipping functions of the same name.",
    "command": "Run a command, skipping functions; or describe commands (-v, -V).",
    "caller": "Show the line and file of the current function call.",
    "cd": "Change the current directory.",
    "pwd": "Print the current directory.",
    "pushd": "Push a directory onto the directory stack and change to it.",
    "popd": "Pop a directory off the directory stack and change to the next.",
    "dirs": "Show the directory stack.",
    "compgen": "List the completions of a word (commands, files, variables, ...).",
    "complete": "Say how arguments of a command are completed.",
    "compopt": "Change completion options.",
    "declare": "Set variables' values and attributes, or show them.",
    "typeset": "Set variables' values and attributes (the same as declare).",
    "local": "Make variables local to the current function.",
    "export": "Mark variables for export to the commands run.",
    "readonly": "Make variables unchangeable.",
    "unset": "Remove variables or functions.",
    "echo": "Print the arguments, separated by spaces.",
    "printf": "Print the arguments formatted by FORMAT.",
    "enable": "Turn shell builtins on or off.",
    "eval": "Run the arguments, joined, as shell commands.",
    "exec": "Replace the shell with a command, or apply redirections to the shell.",
    "exit": "Leave the shell with a status.",
    "logout": "Leave a login shell.",
    "false": "Fail (status 1).",
    "true": "Succeed (status 0).",
    "getopts": "Parse options from positional parameters.",
    "hash": "Remember or show where commands were found.",
    "help": "Show help about builtins and the commands of the sandbox.",
    "history": "Display or manipulate the history list.",
    "fc": "List history entries, or edit them and run them again.",
    "bind": "Show readline's key bindings and variables (a script's shell has no line editing).",
    "let": "Evaluate arithmetic expressions.",
    "mapfile": "Read lines into an indexed array.",
    "readarray": "Read lines into an indexed array (the same as mapfile).",
    "read": "Read a line from standard input and split it into variables.",
    "return": "Leave a function or sourced file with a status.",
    "set": "Set shell options and positional parameters, or show variables.",
    "shift": "Move the positional parameters to the left.",
    "shopt": "Set or show the optional shell behaviours.",
    "times": "Show the user and system times used.",
    "trap": "Run commands when the shell gets signals or other events.",
    "type": "Say how each name would be run.",
    "ulimit": "Show or change resource limits.",
    "umask": "Show or set the mask for new files' permissions.",
    "case": "Run the commands of the first pattern matching a word.",
    "coproc": "Run a command asynchronously, connected to the shell by a pipe.",
    "for": "Run commands once for each word.",
    "for ((": "Run commands while an arithmetic condition holds (C-style loop).",
    "function": "Define a shell function.",
    "if": "Run commands depending on conditions.",
    "select": "Offer a numbered menu of words and run commands on the choice.",
    "time": "Report the time a pipeline took.",
    "until": "Run commands until a test succeeds.",
    "while": "Run commands while a test succeeds.",
    "[[ ... ]]": "Test a conditional expression (patterns, regular expressions, no word splitting).",
    "(( ... ))": "Evaluate an arithmetic expression; status 0 when it is not zero.",
    "{ ... }": "Group commands as one.",
    "%": "Bring a job to the foreground, or with & resume it in the background.",
    "variables": "The variables the shell sets or reads, and what they mean.",
}


# commands whose own parser has no --help (GNU's neither): their usage, for `help NAME`
_SHELL_USAGE = (
    "{0} [-eux] [-o OPTION] [-c COMMAND [NAME [ARG...]] | -s [ARG...] | FILE [ARG...]]\n"
    "    Run a child shell in the sandbox (same filesystem; exported variables and functions)."
)
COMMAND_USAGE = {
    "bash": _SHELL_USAGE.format("bash"),
    "sh": _SHELL_USAGE.format("sh"),
    "getconf": "getconf [-v SPEC] VARIABLE [PATHNAME]\n    Print the value of a system configuration VARIABLE.",
    "man": "man PAGE\n    There are no manual pages in the sandbox: use `help COMMAND' or `COMMAND --help'.",
    "whatis": "whatis NAME\n    There are no manual pages in the sandbox: use `help COMMAND' or `COMMAND --help'.",
    "mesg": "mesg [n|y]\n    Control write access of others to your terminal (there is no terminal here).",
    "xxd": "xxd [options] [infile [outfile]]\n    xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\n"
    "    Make a hex dump, or turn one back into bytes (-r); `xxd -h' lists the options (on stderr, as xxd).",
    "which": "which [-a] NAME...\n    Print the path of each NAME found in PATH (-a: every match, not only the first).",
    "yq": "yq [-r] [-o FORMAT] [-p FORMAT] [-i] FILTER [FILE]...\n"
    "    Process YAML (and JSON, TOML, XML) with jq-style FILTERs.",
    "python3": "python3 [-c CODE | FILE | -] [ARG...]\n"
    "    Run a Python program in Monty, a sandboxed subset of Python 3 (`python3 -h` lists it).",
    "python": "python [-c CODE | FILE | -] [ARG...]\n    The same as python3.",
    "sqlite3": "sqlite3 [OPTIONS] [FILE] [SQL...]\n"
    "    The SQLite shell over database files of the sandbox (modes, dot-commands, -cmd, -bail).",
    "lua": "lua [-e STAT] [-l MOD] [-v] [-E] [-W] [SCRIPT [ARG...] | -]\n"
    "    Run a Lua 5.4 program (lupa): string, table, math, utf8, coroutine; io and os over the\n"
    "    sandbox's files; io.popen/os.execute run in this shell; no debug, no C modules.",
    "lua5.4": "lua5.4 ...\n    The same as lua.",
    "node": "node [-e CODE | -p CODE | SCRIPT | -] [ARG...]\n"
    "    Run JavaScript in QuickJS with node's console, process, Buffer, timers and require of\n"
    "    fs, path, child_process (execSync), readline, util, os, events, assert and local files.",
    "js": "js ...\n    The same as node.",
}

HEADER = """sandbash: GNU bash 5.2 semantics in a sandbox.
These shell commands are defined internally.  Type `help' to see this list.
Type `help name' to find out more about the function `name'.
Use `info bash' to find out more about the shell in general.
Use `man -k' or `info' to find out more about commands not in this list.

A star (*) next to a name means that the command is disabled.

"""


def listing(entries: list[tuple[str, bool]], columns: int, utf8: bool) -> str:
    """bash's `help` with no name: every synopsis in two columns, down the first then the second,
    each column half of COLUMNS wide, a long synopsis cut with `>`, a disabled builtin marked `*`."""
    width = min(columns // 2, 128)  # bash's blurb buffer is 128 bytes
    width = width if width > 3 else 40
    height = (len(entries) + 1) // 2
    lines: list[str] = []
    for i in range(height):
        left = _cell(entries[i], width, 0, utf8)
        if 2 * i >= len(entries) or i + height >= len(entries):
            lines.append(left)
            continue
        lines.append(left.ljust(width) + _cell(entries[i + height], width, 1, utf8))
    return "".join(line + "\n" for line in lines)


def _cell(entry: tuple[str, bool], width: int, second: int, utf8: bool) -> str:
    """One column's text: the mark, then the synopsis, cut with `>` when it comes near the column's
    edge (the second column one character earlier). bash cuts in two ways: by bytes in the C
    locale (a synopsis of exactly the kept length gets its `>` too), by characters in a multibyte
    one (the `>` replaces the last character that fits)."""
    synopsis, enabled = entry
    mark = " " if enabled else "*"
    if utf8:
        if len(synopsis) < width - 3:
            return mark + synopsis
        return mark + synopsis[: min(len(synopsis), width - 2) - 1 - second] + ">"
    keep = width - 3 - second
    return mark + (synopsis[:keep] + ">" if len(synopsis) >= keep else synopsis)


def _topics(sh: Shell, disabled: bool = False) -> dict[str, str]:
    """Every help topic (enabled builtins, the disabled ones too when DISABLED, and the reserved
    words) with its synopsis, sorted as bash lists them."""
    from . import BUILTINS

    found = {
        n: USAGE.get(n, n)
        for n in BUILTINS
        if (disabled or n not in sh.state.disabled_builtins) and sh.ex.command_visible(n)
    }
    found.update(KEYWORD_USAGE)
    return dict(sorted(found.items()))


def _matching(topics: dict[str, str], pattern: str) -> list[str]:
    """bash's rule: the topic of that exact name, else every topic the pattern matches as a glob or starts."""
    from ..expand.pattern import match

    if pattern in topics:  # an exact name first (`help read` is not also readarray and readonly)
        return [pattern]
    return [t for t in topics if t.startswith(pattern) or match(pattern, t)]


def _describe(name: str, synopsis: str, form: str) -> str:
    """One topic: -d (name - description), -s (name: synopsis), -m (a manual page), or both lines."""
    description = DESCRIPTION.get(name, "")
    if form == "d":
        return f"{name} - {description}\n"
    if form == "s":
        return f"{name}: {synopsis}\n"
    if form == "m":
        return (
            f"NAME\n    {name} - {description}\n\nSYNOPSIS\n    {synopsis}\n\nDESCRIPTION\n    {description}\n\n"
            "SEE ALSO\n    bash(1)\n\n"
        )
    return f"{name}: {synopsis}\n    {description}\n" if description else f"{name}: {synopsis}\n"


def _no_topic(name: str) -> str:
    return f"no help topics match `{name}'.  Try `help help' or `man -k {name}' or `info {name}'."


def _commands(sh: Shell) -> list[str]:
    """The commands this sandbox offers: what /usr/bin lists (the policy and network settings applied)."""
    try:
        return sorted(sh.state.fs.listdir("/usr/bin"))
    except FsError:
        return []


def _wrap(words: list[str], width: int = 78) -> list[str]:
    lines: list[str] = []
    line = " "
    for w in words:
        if len(line) + 1 + len(w) > width:
            lines.append(line)
            line = " "
        line += " " + w
    if line.strip():
        lines.append(line)
    return lines


def run_help(sh: Shell, argv: list[str]) -> int:
    """`help`: builtins and their usage; with no name, also the commands in /usr/bin; `help COMMAND`
    shows a command's own `--help` (run through the executor, so the policy applies)."""
    from .bopts import parse_builtin

    opts = parse_builtin(sh, argv, "dms")
    if opts is None:
        return 2
    form = next((c for c in "dms" if opts.has(c)), "")  # bash: -d before -m before -s
    names = opts.args
    if not names:
        return sh.run_unchecked(lambda: _help_listing(sh))
    return _help_topics(sh, names, form)


def _help_listing(sh: Shell) -> int:
    """`help` with no name: every builtin's synopsis, then the sandbox's commands."""
    from ..interp.loops import c_atoi

    topics = _topics(sh, disabled=True)
    entries = [(text, name not in sh.state.disabled_builtins) for name, text in topics.items()]
    columns = c_atoi(sh.get_str("COLUMNS") or "")
    sh.out(HEADER + listing(entries, columns if columns > 0 else 80, not sh.locale_bytes()))
    commands = _commands(sh)
    sh.out("\nCommands (in /usr/bin): `help COMMAND' or `COMMAND --help' shows a command's options.\n")
    sh.out("\n".join(_wrap(commands)) + "\n")
    gate = sh.rt.policy_gate
    if gate is not None:
        _, remediation, denied = gate.listing(set(commands) | _denied_candidates(sh))
        if remediation:
            sh.out("Commands needing remediation mode: " + " ".join(remediation) + "\n")
        if denied:
            sh.out("Commands denied by policy: " + " ".join(denied) + "\n")
        sh.out("".join(line + "\n" for line in gate.host_help()))  # host mode: services, elevation
    return 0


def _help_topics(sh: Shell, patterns: list[str], form: str) -> int:
    """`help PATTERN...`: the builtins and reserved words matching each pattern, else a command of
    /usr/bin by its exact name (its own --help); bash's error only when nothing matched at all."""
    from ..expand.pattern import has_glob

    topics = _topics(sh)
    listed = set(_commands(sh))
    status = 0
    matched = False
    if has_glob(patterns[0]):
        # bash: one heading naming every pattern, when the first one is a pattern, matches or not
        plural = "s" if len(patterns) > 1 else ""
        sh.out(f"Shell commands matching keyword{plural} `{', '.join(patterns)}'\n\n")
    for pattern in patterns:
        found = _matching(topics, pattern)
        for name in found:
            sh.out(_describe(name, topics[name], form))
        if found:
            matched = True
        elif pattern in listed and pattern in COMMAND_USAGE:
            sh.out(f"{pattern}: {COMMAND_USAGE[pattern]}\n")
            matched = True
        elif pattern in listed:
            status = sh.run_text(f"command -- {single_quote(pattern)} --help", None) or status
            matched = True
    if not matched:
        sh.builtin_error("help", _no_topic(patterns[-1]))
        return 1
    return status


def _denied_candidates(sh: Shell) -> set[str]:
    """Every command of this sandbox's table, its custom commands included (the denied ones are
    not in /usr/bin)."""
    return set(sh.rt.commands.names())
