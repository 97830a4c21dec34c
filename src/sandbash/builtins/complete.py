"""complete and compopt: completion specs kept per shell and listed as bash 5.2 lists them.

Specs only matter at an interactive prompt with programmable completion; a script can still define,
list (`complete -p`), change (`compopt`) and remove (`complete -r`) them, with bash's messages.
"""

from __future__ import annotations

from ..expand.quoting import single_quote
from . import builtin
from .bopts import BuiltinOpts, parse_builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..interp.shell import Shell

ACTION_LETTERS = "abcdefgjksuv"
ACTION_NAMES = {
    "alias": "a",
    "arrayvar": "",
    "binding": "",
    "builtin": "b",
    "command": "c",
    "directory": "d",
    "disabled": "",
    "enabled": "",
    "export": "e",
    "file": "f",
    "function": "",
    "group": "g",
    "helptopic": "",
    "hostname": "",
    "job": "j",
    "keyword": "k",
    "running": "",
    "service": "s",
    "setopt": "",
    "shopt": "",
    "signal": "",
    "stopped": "",
    "user": "u",
    "variable": "v",
}
COMP_OPTIONS = ("bashdefault", "default", "dirnames", "filenames", "noquote", "nosort", "nospace", "plusdirs")
COMP_SPEC = "abcdefgjksuvo:A:G:W:F:C:X:P:S:"
# the names bash files the -D, -E and -I specs under (they share the hash table with commands)
_SPECIAL = {"I": "_InitialWorD_", "D": "_DefaultCmD_", "E": "_EmptycmD_"}
_ARGS = ("G", "W", "P", "S", "X", "C")


def _bucket(name: str) -> int:
    """bash's FNV-1 string hash into its 512 completion buckets: `complete -p` walks them in order."""
    h = 2166136261
    for b in name.encode("utf-8", "surrogateescape"):
        h = ((h * 16777619) & 0xFFFFFFFF) ^ b
    return h & 511


def spec_from(sh: Shell, opts: BuiltinOpts, name: str) -> dict[str, list[str]] | None:
    """Actions (-x letters and -A names), -o options and the valued options; None after an error."""
    spec: dict[str, list[str]] = {"A": [], "o": []}
    for c, value, _ in opts.items:
        if c in ACTION_LETTERS:
            spec["A"].append(next(n for n, letter in ACTION_NAMES.items() if letter == c))
        elif c == "A" and value is not None:
            if value not in ACTION_NAMES:
                sh.builtin_error(name, f"{value}: invalid action name")
                return None
            spec["A"].append(value)
        elif c == "o" and value is not None:
            if value not in COMP_OPTIONS:
                sh.builtin_error(name, f"{value}: invalid option name")
                return None
            spec["o"].append(value)
        elif value is not None and c in _ARGS + ("F",):
            spec[c] = [value]
    return spec


def spec_ok(spec: object, text_limit: int) -> bool:
    """Whether `spec` is one `spec_from` makes (a snapshot's completions are restored only then:
    `complete -p` would fail on an action name it does not know)."""
    if (
        not isinstance(spec, dict)
        or not isinstance(spec.get("A"), list)
        or not isinstance(spec.get("o"), list)
    ):
        return False
    if any(not isinstance(a, str) or a not in ACTION_NAMES for a in spec["A"]) or len(spec["A"]) > 64:
        return False
    if any(not isinstance(o, str) or o not in COMP_OPTIONS for o in spec["o"]) or len(spec["o"]) > 64:
        return False
    return all(
        k in ("A", "o")
        or (
            k in _ARGS + ("F",)
            and isinstance(v, list)
            and len(v) == 1
            and isinstance(v[0], str)
            and len(v[0]) <= text_limit
        )
        for k, v in spec.items()
    )


def _line(name: str, spec: dict[str, list[str]]) -> str:
    words = ["complete"]
    words += [f"-o {o}" for o in COMP_OPTIONS if o in spec["o"]]
    actions = set(spec["A"])
    words += [
        f"-{ACTION_NAMES[n]}" for n in sorted(actions, key=lambda n: ACTION_NAMES[n]) if ACTION_NAMES[n]
    ]
    words += [f"-A {n}" for n in sorted(actions) if not ACTION_NAMES[n]]
    words += [f"-{c} {single_quote(spec[c][0])}" for c in _ARGS if c in spec]
    words += [f"-F {spec['F'][0]}"] if "F" in spec else []
    special = next((f"-{k}" for k, v in _SPECIAL.items() if v == name), None)
    return " ".join(words + [special or name]) + "\n"


def _names(sh: Shell, opts: BuiltinOpts) -> list[str]:
    return [_SPECIAL[c] for c in "DEI" if opts.has(c)] + opts.args


@builtin("complete")
def bi_complete(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "prDEI" + COMP_SPEC)
    if opts is None:
        return 2
    table = sh.state.completions
    names = _names(sh, opts)
    if opts.has("p") or (not names and not opts.items):
        return _print(sh, table, names)
    if opts.has("r"):
        if not names:
            table.clear()
            return 0
        status = 0
        for name in names:
            if table.pop(name, None) is None:
                sh.builtin_error("complete", f"{name}: no completion specification")
                status = 1
        return status
    spec = spec_from(sh, opts, "complete")
    if spec is None:
        return 2
    for name in names:
        table.pop(name, None)  # a new definition goes to the head of its bucket
        table[name] = {k: list(v) for k, v in spec.items()}
    return 0


def _print(sh: Shell, table: dict[str, dict[str, list[str]]], names: list[str]) -> int:
    if names:
        status = 0
        for name in names:
            spec = table.get(name)
            if spec is None:
                sh.builtin_error("complete", f"{name}: no completion specification")
                status = 1
            else:
                sh.out(_line(name, spec))
        return status
    # bash walks its hash buckets in order, the newest entry of a bucket first
    for name in sorted(reversed(table), key=_bucket):
        sh.out(_line(name, table[name]))
    return 0


@builtin("compopt")
def bi_compopt(sh: Shell, argv: list[str]) -> int:
    opts = parse_builtin(sh, argv, "+o:DEI")
    if opts is None:
        return 2
    names = _names(sh, opts)
    if not names:
        # outside a completion function there is no current spec to change
        sh.builtin_error("compopt", "not currently executing completion function")
        return 1
    for _, value, _ in opts.items:
        if value is not None and value not in COMP_OPTIONS:
            sh.builtin_error("compopt", f"{value}: invalid option name")
            return 2
    status = 0
    for name in names:
        spec = sh.state.completions.get(name)
        if spec is None:
            sh.builtin_error("compopt", f"{name}: no completion specification")
            status = 1
            continue
        for c, value, sign in opts.items:
            if c != "o" or value is None:
                continue
            if sign == "-" and value not in spec["o"]:
                spec["o"].append(value)
            elif sign == "+" and value in spec["o"]:
                spec["o"].remove(value)
    return status
