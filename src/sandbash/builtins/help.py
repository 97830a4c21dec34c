"""The `help` builtin: short usage lines for builtins and the commands that exist."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..expand.quoting import single_quote
from ..vfs.errors import FsError

if TYPE_CHECKING:
    from ..interp.shell import Shell

USAGE = {
    ":": ": [arguments]", ".": ". filename [arguments]", "alias": "alias [-p] [name[=value] ... ]",
    "break": "break [n]", "builtin": "builtin [shell-builtin [arg ...]]", "caller": "caller [expr]",
    "cd": "cd [-L|[-P [-e]] [-@]] [dir]", "command": "command [-pVv] command [arg ...]",
    "compgen": "compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [word]",
    "continue": "continue [n]", "declare": "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]",
    "dirs": "dirs [-clpv] [+N] [-N]", "echo": "echo [-neE] [arg ...]", "enable": "enable [-a] [-dnps] [-f filename] [name ...]",
    "eval": "eval [arg ...]", "exec": "exec [-cl] [-a name] [command [argument ...]] [redirection ...]",
    "exit": "exit [n]", "export": "export [-fn] [name[=value] ...] or export -p", "false": "false",
    "getopts": "getopts optstring name [arg ...]", "hash": "hash [-lr] [-p pathname] [-dt] [name ...]",
    "help": "help [-dms] [pattern ...]", "jobs": "jobs [-lnprs] [jobspec ...] or jobs -x command [args]",
    "kill": "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]",
    "let": "let arg [arg ...]", "local": "local [option] name[=value] ...",
    "mapfile": "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]",
    "popd": "popd [-n] [+N | -N]", "printf": "printf [-v var] format [arguments]",
    "pushd": "pushd [-n] [+N | -N | dir]", "pwd": "pwd [-LP]",
    "read": "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]",
    "readarray": "readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]",
    "readonly": "readonly [-aAf] [name[=value] ...] or readonly -p", "return": "return [n]",
    "set": "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]", "shift": "shift [n]",
    "shopt": "shopt [-pqsu] [-o] [optname ...]", "source": "source filename [arguments]",
    "test": "test [expr]", "[": "[ arg... ]", "times": "times", "trap": "trap [-lp] [[arg] signal_spec ...]",
    "true": "true", "type": "type [-afptP] name [name ...]", "typeset": "typeset [-aAfFgiIlnrtux] name[=value] ...",
    "ulimit": "ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]", "umask": "umask [-p] [-S] [mode]",
    "unalias": "unalias [-a] name [name ...]", "unset": "unset [-f] [-v] [-n] [name ...]",
    "wait": "wait [-fn] [-p var] [id ...]", "logout": "logout [n]", "times ": "times",
    "bg": "bg [job_spec ...]", "fg": "fg [job_spec]", "disown": "disown [-h] [-ar] [jobspec ... | pid ...]",
    "suspend": "suspend [-f]",
}


# commands whose own parser has no --help (GNU's neither): their usage, for `help NAME`
_SHELL_USAGE = ("{0} [-eux] [-o OPTION] [-c COMMAND [NAME [ARG...]] | -s [ARG...] | FILE [ARG...]]\n"
                "    Run a child shell in the sandbox (same filesystem; exported variables and functions).")
COMMAND_USAGE = {
    "bash": _SHELL_USAGE.format("bash"),
    "sh": _SHELL_USAGE.format("sh"),
    "getconf": "getconf [-v SPEC] VARIABLE [PATHNAME]\n    Print the value of a system configuration VARIABLE.",
    "man": "man PAGE\n    There are no manual pages in the sandbox: use `help COMMAND' or `COMMAND --help'.",
    "whatis": "whatis NAME\n    There are no manual pages in the sandbox: use `help COMMAND' or `COMMAND --help'.",
    "mesg": "mesg [n|y]\n    Control write access of others to your terminal (there is no terminal here).",
    "which": "which [-a] NAME...\n    Print the path of each NAME found in PATH (-a: every match, not only the first).",
    "yq": "yq [-r] [-o FORMAT] [-p FORMAT] [-i] FILTER [FILE]...\n"
          "    Process YAML (and JSON, TOML, XML) with jq-style FILTERs.",
}

HEADER = """sandbash: GNU bash 5.2 semantics in a sandbox.
These shell commands are defined internally.  Type `help' to see this list.
Type `help name' to find out more about the function `name'.
"""


def help_text(args: list[str]) -> tuple[str, int]:
    """`help` for builtins only: (text, status); the builtin `help` adds the commands (run_help)."""
    from . import BUILTINS

    names = [a for a in args if not a.startswith("-")]
    if not names:
        lines = [HEADER]
        for name in sorted(BUILTINS):
            lines.append(USAGE.get(name, name))
        return "\n".join(lines) + "\n", 0
    out: list[str] = []
    for n in names:
        if n not in USAGE:
            return f"bash: help: {_no_topic(n)}\n", 1
        out.append(f"{n}: {USAGE[n]}")
    return "\n".join(out) + "\n", 0


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
    from . import BUILTINS

    names = [a for a in argv[1:] if not a.startswith("-")]
    hidden = [n for n in names if not sh.command_visible(n)]
    if hidden:
        sh.builtin_error("help", _no_topic(hidden[0]))
        return 1
    if not names:
        text, _ = help_text([])
        sh.out(text)
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
        return 0
    status = 0
    listed = set(_commands(sh))
    for n in names:
        if n in USAGE and n in BUILTINS:
            sh.out(f"{n}: {USAGE[n]}\n")
        elif n in COMMAND_USAGE and n in listed:
            sh.out(f"{n}: {COMMAND_USAGE[n]}\n")
        elif n in listed:
            status = sh.run_text(f"command -- {single_quote(n)} --help", None) or status
        else:
            sh.builtin_error("help", _no_topic(n))
            status = 1
    return status


def _denied_candidates(sh: Shell) -> set[str]:
    """Every command of the table (the denied ones are not in /usr/bin)."""
    from ..commands import registry

    return set(registry.names())
