"""Code a run evaluates from variable *contents*, for the static check (check_walk.py).

Bash expands a subscript whenever it evaluates a variable name or an arithmetic expression, and
that expansion runs command substitutions: `x='a[$(rm f)]'; echo $((x))` runs `rm`, and so do
`[[ $x -eq 1 ]]`, `let x`, `${a[x]}`, `printf -v 'a[$(rm f)]'`, `read 'a[$(rm f)]'`,
`declare -n r='a[$(rm f)]'`, `unset`/`[[ -v ]]`/`test -v` with such a name, and an integer
variable (`declare -i`) given such a value. None of it shows in the script's syntax.

The walker records, flow-insensitively over the whole script (function bodies and static
`eval`/`bash -c` texts included):
- every variable the script assigns and whether each value is *plain* (static text without `[`,
  arithmetic results, lengths, numeric specials): only a plain variable is safe in arithmetic;
- every arithmetic context and the names it reads.
A site whose arithmetic reads a variable that is not plain (assigned at run time by `read`,
`$(...)`, `$1`, ...; or never assigned and given by the environment) is `requires_execution`.
Static names with subscripts holding `$` or a backquote are reported where they appear.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..syntax import ast as A

# a word whose text only the run knows (a substitution inside arithmetic, a run-time word)
UNKNOWN_TEXT = "\0text"
# ${x@P}: x's value is expanded as a prompt string, and bash runs the command substitutions in it
PROMPT_TEXT = "\0prompt"
# shell variables whose values are always numbers or flag letters
NUMERIC = frozenset(
    {
        "#",
        "?",
        "$",
        "!",
        "-",
        "RANDOM",
        "SRANDOM",
        "LINENO",
        "SECONDS",
        "EPOCHSECONDS",
        "BASHPID",
        "PPID",
        "UID",
        "EUID",
        "OPTIND",
        "SHLVL",
        "HISTCMD",
    }
)
# builtins whose operands (or option values) are variable names
NAME_BUILTINS = frozenset(
    {
        "read",
        "printf",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "unset",
        "getopts",
        "mapfile",
        "readarray",
        "wait",
        "let",
    }
)
DECLARE = frozenset({"declare", "typeset", "local", "export", "readonly"})
# builtins that assign the names they are given a value only the run knows
RUNTIME_ASSIGN = frozenset({"read", "printf", "getopts", "mapfile", "readarray", "wait"})
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOLLAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])")
_ARITH_OPS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


def text_refs(text: str) -> set[str]:
    """The variable names an arithmetic text reads (a superset: `16#ff` counts `ff`)."""
    refs = set(IDENT.findall(text)) | set(_DOLLAR.findall(text))
    if "$(" in text or "`" in text:
        refs.add(UNKNOWN_TEXT)
    return refs


def word_refs(w: A.Word | None) -> set[str]:
    """Names read by the arithmetic inside a word: `$((...))`, indexed subscripts `${a[i]}`,
    substring offsets `${x:o:l}`; and `x` of `${!x}` (its value is a name bash evaluates)."""
    if w is None:
        return set()
    out: set[str] = set()
    _parts_refs(w.parts, out)
    return out


def _parts_refs(parts: Iterable[A.Part], out: set[str]) -> None:
    for p in parts:
        if isinstance(p, A.ArithSub):
            out |= text_refs(p.text)
        elif isinstance(p, A.DQ):
            _parts_refs(p.parts, out)
        elif isinstance(p, A.Brace | A.ExtGlob):
            for alt in p.alts:
                _parts_refs(alt, out)
        elif isinstance(p, A.Param):
            if p.prefix == "!" and not p.names_suffix and p.sub not in ("@", "*"):
                out.add(p.name)  # ${!x}: x's value is a name, whose subscript is evaluated
            if p.sub is not None and p.sub not in ("@", "*"):
                out |= text_refs(p.sub)
            op = p.op
            if op is not None and op.op is A.Op.AT_PROMPT:
                out.add(PROMPT_TEXT)
            if op is not None:
                if op.kind is A.OpKind.SLICE:
                    for arg in (op.arg, getattr(op, "arg2", None)):
                        if arg is not None:
                            out |= text_refs(arg.text)
                else:
                    out |= word_refs(op.arg)
                    out |= word_refs(getattr(op, "arg2", None))
        elif isinstance(p, A.AssignWord):
            out |= assign_refs(p.assign)


def assign_refs(a: A.Assign) -> set[str]:
    """Names an assignment's own arithmetic reads: its subscript, the keys of a compound value
    (`a=([x]=1)`: an indexed array's key is arithmetic) and arithmetic inside the words."""
    out = text_refs(a.sub) if a.sub is not None else set()
    out |= word_refs(a.value)
    for item in a.array or ():
        out |= word_refs(item.key) | word_refs(item.value)
        if item.key is not None:
            out |= text_refs(item.key.text)
    return out


def value_refs(a: A.Assign) -> set[str]:
    """Names the value reads when the variable is an integer (`declare -i n; n=x` evaluates `x`)."""
    if a.array is not None:
        return set().union(*(text_refs(i.value.text) for i in a.array))
    return text_refs(a.value.text) if a.value is not None else set()


def plain_word(w: A.Word | None) -> bool:
    """Whether a value is plain: no `[`, nothing but literals, arithmetic results, lengths and
    numeric specials."""
    return w is None or _plain_parts(w.parts)


def _plain_parts(parts: Iterable[A.Part]) -> bool:
    for p in parts:
        if isinstance(p, A.Lit | A.SQ | A.Esc):
            if "[" in p.text:
                return False
        elif isinstance(p, A.DQ):
            if not _plain_parts(p.parts):
                return False
        elif isinstance(p, A.ArithSub):
            continue
        elif isinstance(p, A.Param):
            if not (p.prefix == "#" or (p.name in NUMERIC and p.op is None and p.sub is None)):
                return False
        else:
            return False
    return True


def plain_assign(a: A.Assign) -> bool:
    if a.array is not None:
        return all(plain_word(i.value) for i in a.array)
    return plain_word(a.value)


def subscript_code(name: str) -> bool:
    """A static variable name whose subscript runs commands when bash evaluates it."""
    _, bracket, sub = name.partition("[")
    return bool(bracket) and ("$" in sub or "`" in sub)


@dataclass
class HiddenUses:
    """What the walker collected; `judge` names the sites that need the run."""

    plain: dict[str, bool] = field(default_factory=dict)  # name -> every value assigned is plain
    integers: set[str] = field(default_factory=set)  # names declared -i
    uses: list[tuple[int, set[str]]] = field(default_factory=list)  # (site index, names read)
    # (site, name, names its value reads): evaluated as arithmetic if the name is an integer variable
    int_values: list[tuple[int, str, set[str]]] = field(default_factory=list)
    namerefs: list[tuple[str, str]] = field(default_factory=list)  # (nameref, the variable it names)

    def assign(self, name: str, plain: bool) -> None:
        self.plain[name] = self.plain.get(name, True) and plain

    def use(self, site: int, refs: set[str]) -> None:
        if refs:
            self.uses.append((site, refs))

    def unsafe(self, name: str, env: Mapping[str, str]) -> bool:
        if name in (UNKNOWN_TEXT, PROMPT_TEXT) or name in ("@", "*") or name.isdigit():
            return True
        if name in NUMERIC:
            return False
        if name in self.plain:
            return not self.plain[name] or "[" in env.get(name, "")
        return "[" in env.get(name, "")

    def merge_namerefs(self, env: Mapping[str, str]) -> None:
        """A nameref and the variable it names read and write one value: either unsafe makes
        both unsafe (until nothing changes: namerefs may chain)."""
        changed = bool(self.namerefs)
        while changed:
            changed = False
            for ref, target in self.namerefs:
                if self.unsafe(ref, env) != self.unsafe(target, env):
                    self.plain[ref] = self.plain[target] = False
                    changed = True

    def judge(self, env: Mapping[str, str]) -> dict[int, str]:
        """Site index -> why its run may evaluate code hidden in a variable."""
        self.merge_namerefs(env)
        out: dict[int, str] = {}
        for site, refs in self.uses:
            bad = sorted(n for n in refs if self.unsafe(n, env))
            if bad and site not in out and bad[0] == PROMPT_TEXT:
                out[site] = "${name@P} expands a value as a prompt string: command substitutions in it run"
            elif bad and site not in out:
                what = (
                    "the output of a substitution"
                    if bad[0] == UNKNOWN_TEXT
                    else f"'{bad[0]}', whose value only the run knows"
                )
                out[site] = f"arithmetic evaluates {what}; a subscript in it (a[$(...)]) would run commands"
        for site, name, refs in self.int_values:
            if name in self.integers and site not in out and any(self.unsafe(n, env) for n in refs):
                out[site] = (
                    f"'{name}' is an integer variable: the value assigned is evaluated as arithmetic "
                    "and its subscripts may run commands"
                )
        return out


def cond_refs(e: A.CondBinary) -> set[str]:
    """`[[ L -eq R ]]`: both operands are arithmetic expressions (after expansion)."""
    if e.op not in _ARITH_OPS:
        return set()
    return text_refs(e.left.text) | text_refs(e.right.text)


def builtin_names(name: str, args: list[str | None]) -> tuple[list[str], bool, bool]:
    """(variable names a name-taking builtin gets, whether it declares -i, whether -n). Names
    are what precedes `=`; options are skipped as far as they are simple."""
    names: list[str] = []
    integer = nameref = False
    takes_value = {
        "printf": "v",
        "read": "adptnNu",
        "mapfile": "dnOsuCc",
        "readarray": "dnOsuCc",
        "wait": "p",
    }.get(name, "")
    names_after = {"printf": "v", "read": "a", "wait": "p"}.get(name, "")
    i = 0
    operands = False
    while i < len(args):
        a = args[i]
        i += 1
        if a is None:
            continue
        if not operands and a.startswith(("-", "+")) and len(a) > 1 and name != "let":
            if a == "--":
                operands = True
                continue
            flags = a[1:]
            if a[0] == "-" and name in DECLARE:
                integer = integer or "i" in flags
                nameref = nameref or "n" in flags
            for j, c in enumerate(flags):
                if c in takes_value:
                    value = flags[j + 1 :] or (args[i] if i < len(args) else None)
                    if not flags[j + 1 :]:
                        i += 1
                    if c in names_after and value is not None:
                        names.append(value)
                    break
            continue
        if name == "printf":
            break  # the format and its arguments
        if name == "getopts":
            names += [x for x in args[i : i + 1] if x is not None]
            break
        operands = True
        names.append(a)
    return names, integer, nameref
