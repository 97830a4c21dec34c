"""Variable values the static check may use before the run (issue 19): `X=/etc/passwd; cat $X`
is decided on /etc/passwd, and `cat $HOME/x` on the environment's HOME.

A value is used only when nothing else in the script can change it, judged conservatively on the
script's own text: the name is written exactly once, by a plain top-level statement `NAME=word`
whose word the check expands statically (or never, for an environment value), and the script
has no construct that could write a variable whose name is not spelled out (eval, source, `.`,
a command name known only at run time, a declaration or `read`-like builtin with quoted,
escaped or expanded words). The walk adds the value when it passes the assignment, so a use
before it stays a run-time value. Shell-managed variables (PWD, RANDOM, ...) are never used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from ..syntax import ast as A

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# set or changed by the shell itself while the script runs
SHELL_MANAGED = frozenset(
    {
        "PWD",
        "OLDPWD",
        "RANDOM",
        "SRANDOM",
        "SECONDS",
        "LINENO",
        "BASHPID",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "PPID",
        "UID",
        "EUID",
        "SHLVL",
        "_",
        "FUNCNAME",
        "OPTIND",
        "OPTARG",
        "OPTERR",
        "REPLY",
        "PIPESTATUS",
        "COLUMNS",
        "LINES",
        "HISTCMD",
        "IFS",
        "BASH_REMATCH",
        "BASH_SOURCE",
        "BASH_LINENO",
        "BASH_COMMAND",
        "BASH_SUBSHELL",
        "BASH_ARGC",
        "BASH_ARGV",
        "BASH_ARGV0",
        "COMP_WORDS",
        "DIRSTACK",
        "GROUPS",
        "HOSTNAME",
        "MAPFILE",
        "COPROC",
    }
)
# builtins that can set a variable named by a word
WRITER_BUILTINS = frozenset(
    {
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "read",
        "mapfile",
        "readarray",
        "printf",
        "getopts",
        "unset",
        "let",
        "builtin",
        "command",
        "exec",
        "enable",
        "alias",
        "caller",
        "wait",
        "coproc",
        "set",
    }
)
OPAQUE_BUILTINS = frozenset({"eval", "source", "."})


@dataclasses.dataclass
class KnownValues:
    """`pending`: id of a top-level assignment statement -> the name it sets (the walk records
    the value when it gets there); `env`: environment values the script never writes;
    `unquoted`: whether unquoted uses may be resolved (IFS is never written)."""

    pending: dict[int, str]
    env: dict[str, str]
    unquoted: bool


NOTHING = KnownValues({}, {}, False)


def plan(body: A.CommandList, script: str, env: Mapping[str, str]) -> KnownValues:
    nodes = list(_nodes(body))
    if _opaque(nodes):
        return NOTHING
    writes = _written_names(script)
    pending: dict[int, str] = {}
    for item in body.items:
        cmd = item.cmd
        if isinstance(cmd, A.Pipeline) and len(cmd.cmds) == 1 and not cmd.negate and not cmd.timed:
            cmd = cmd.cmds[0]
        if item.background or not isinstance(cmd, A.SimpleCommand) or cmd.words or len(cmd.assigns) != 1:
            continue
        a = cmd.assigns[0]
        if (
            a.value is not None
            and a.sub is None
            and not a.append
            and a.array is None
            and writes.get(a.name, 0) == 1
            and a.name not in SHELL_MANAGED
        ):
            pending[id(cmd)] = a.name
    known_env = {
        k: v for k, v in env.items() if k.isidentifier() and k not in SHELL_MANAGED and writes.get(k, 0) == 0
    }
    return KnownValues(pending, known_env, writes.get("IFS", 0) == 0)


def _nodes(node: Any) -> Iterator[Any]:
    """Every syntax node (commands, words, parts, substitutions, function bodies)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple | list):
            stack.extend(n)
            continue
        if type(n).__module__ != A.__name__:
            continue
        yield n
        # the node classes (real dataclasses or syntax/nodeclass.py's) all name their fields here
        for name in getattr(type(n), "__match_args__", ()):
            value = getattr(n, name, None)
            if isinstance(value, tuple | list) or type(value).__module__ == A.__name__:
                stack.append(value)


def _static(w: A.Word) -> bool:
    """A word whose source text is its value (no quotes, escapes or expansions)."""
    return all(isinstance(p, A.Lit) for p in w.parts) and not any(c in w.text for c in "$`\\'\"")


def _opaque(nodes: list[Any]) -> bool:
    """Whether some command could set a variable whose name the script does not spell out."""
    for n in nodes:
        if isinstance(n, A.Coproc):
            return True
        if not isinstance(n, A.SimpleCommand) or not n.words:
            continue
        first = n.words[0]
        if not _static(first):
            return True  # `$cmd X`: what runs is known only then
        name = first.text.rsplit("/", 1)[-1]
        if name in OPAQUE_BUILTINS:
            return True
        if name in WRITER_BUILTINS and not all(_static(w) or _plain_assign_word(w) for w in n.words[1:]):
            return True
    return False


def _plain_assign_word(w: A.Word) -> bool:
    return (
        len(w.parts) == 1
        and isinstance(w.parts[0], A.AssignWord)
        and "=" in w.text
        and w.text.partition("=")[0].isidentifier()
    )


def _written_names(script: str) -> dict[str, int]:
    """How many times each identifier appears in the text other than as a plain read (`$X`,
    `${X}`, `${X...}` without an assigning operator): a conservative count of its writers."""
    counts: dict[str, int] = {}
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c.isalpha() or c == "_":
            j = i
            while j < n and (script[j].isalnum() or script[j] == "_"):
                j += 1
            word = script[i:j]
            if not _read_only_use(script, i, j):
                counts[word] = counts.get(word, 0) + 1
            i = j
            continue
        i += 1
    return counts


def _read_only_use(script: str, start: int, end: int) -> bool:
    if start >= 1 and script[start - 1] == "$":
        return True
    if start >= 3 and script[start - 3 : start] in ("${#", "${!"):
        return True
    if start >= 2 and script[start - 2 : start] == "${":
        rest = script[end : end + 2]
        return not (rest.startswith("=") or rest == ":=")
    return False
