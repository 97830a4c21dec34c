"""One option parser for every command and builtin.

A command declares its options once in a `CommandSpec`; `parse_args` turns an
argv into (options, operands). Two modes:
- GNU (`getopt_long`): bundled flags (`-rn`), attached values (`-n5`, `-I{}`),
  `--long=v` and `--long v`, unique long prefixes, `--`, operands mixed with
  options (unless the spec stops at the first operand), GNU's usage errors; the
  same spec generates `--help` and `--version`.
- bash builtin (`internal_getopt`, `builtin=True`): no permutation (options end at
  the first operand, at `--` (consumed) or at a lone `-`), `+x` flags where the spec
  allows them, no long options; errors are bash's (`-Z: invalid option`, then the
  builtin's `usage:` line, printed by builtins/bopts.py).
Values are typed: an `Opt.type` converts the text while parsing (a bad value is an
`OptionValueError` naming it), and options of one `group` store into one key, the
last one given winning (`ls -l -1`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

VERSION = "0.1.0"


class OptionValueError(Exception):
    """An option's value that its `type` refuses; `message` is the whole line after `NAME: `.
    `status` and `usage`: what a builtin does then (bash's read: status 1, no usage line)."""

    def __init__(self, message: str, status: int = 2, usage: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.usage = usage


@dataclass(frozen=True, slots=True)
class Opt:
    """One option. `arg`: 'none', 'required' or 'optional' (GNU: an optional value
    must be attached, `-x5`, `--x=5`; builtin mode: attached, or the next word unless
    it looks like an option, as ulimit's). `type` converts a value as it is parsed;
    options sharing a `group` store into that one key (a flag stores its `const`, or
    its own name when `const` is left True), the last one given wins."""

    short: str | None = None
    long: str | None = None
    arg: str = "none"
    dest: str | None = None
    multi: bool = False  # collect every value, in order
    count: bool = False  # count occurrences
    const: Any = True  # the value stored for a flag
    help: str = ""
    metavar: str = ""
    type: Callable[[str], Any] | None = None
    group: str | None = None

    @property
    def key(self) -> str:
        if self.group:
            return self.group
        if self.dest:
            return self.dest
        if self.long:
            return self.long.replace("-", "_")
        assert self.short is not None
        return self.short


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    usage: str = "[OPTION]... [FILE]..."
    summary: str = ""
    opts: tuple[Opt, ...] = ()
    stop_at_operand: bool = False  # options end at the first operand (env, xargs, find)
    usage_status: int = 1  # exit status of a usage error (2 for grep, diff, ...)
    help_extra: str = ""
    # legacy numeric option: `head -5` means `head -n 5` (the Opt key given here)
    numeric: str | None = None
    # a callable deciding that an argument starting with '-' is an operand (e.g. `-5` for some)
    operand_if: Callable[[str], bool] | None = None
    add_help: bool = True
    builtin: bool = False  # bash's internal_getopt instead of GNU getopt_long
    plus: bool = False  # builtin mode: `+x` turns a flag off (set, declare)


class UsageError(Exception):
    """A command-line error; `message` is the first line GNU prints."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class HelpRequested(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(slots=True)
class Parsed:
    """Parsed options: `values` by key, `order` lists (key, value) as given and
    `signs` the sign each was given with (`-`, or `+` in builtin mode)."""

    values: dict[str, Any] = field(default_factory=dict)
    order: list[tuple[str, Any]] = field(default_factory=list)
    signs: list[str] = field(default_factory=list)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def has(self, key: str) -> bool:
        return key in self.values

    def __getitem__(self, key: str) -> Any:
        return self.values.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.values


def _store(parsed: Parsed, opt: Opt, value: Any, sign: str = "-") -> None:
    key = opt.key
    if opt.type is not None and isinstance(value, str):
        value = opt.type(value)  # raises OptionValueError
    elif opt.group and opt.arg == "none" and value is True:
        value = opt.long or opt.short
    parsed.order.append((key, value))
    parsed.signs.append(sign)
    if opt.count:
        parsed.values[key] = parsed.values.get(key, 0) + 1
    elif opt.multi:
        parsed.values.setdefault(key, []).append(value)
    else:
        parsed.values[key] = value


def parse_args(spec: CommandSpec, args: Sequence[str]) -> tuple[Parsed, list[str]]:
    if spec.builtin:
        return _parse_builtin(spec, args)
    parsed = Parsed()
    operands: list[str] = []
    shorts = {o.short: o for o in spec.opts if o.short}
    longs = {o.long: o for o in spec.opts if o.long}
    i = 0
    n = len(args)
    while i < n:
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg[2:].partition("=")
            if spec.add_help and name and "help".startswith(name) and name not in longs and not any(
                l.startswith(name) for l in longs
            ):
                raise HelpRequested(help_text(spec))
            if spec.add_help and name and "version".startswith(name) and len(name) >= 4 and not any(
                l.startswith(name) for l in longs
            ):
                raise HelpRequested(version_text(spec))
            opt = longs.get(name)
            if opt is None:
                matches = [l for l in longs if l.startswith(name)]
                if spec.add_help:
                    matches += [l for l in ("help", "version") if l.startswith(name) and l not in longs]
                # several spellings of the same option are not ambiguous
                distinct = {id(longs[m]) if m in longs else m for m in matches}
                if not matches:
                    raise UsageError(f"unrecognized option '--{name}'" if not eq else f"unrecognized option '{arg}'")
                if len(distinct) > 1:
                    poss = " ".join(f"'--{m}'" for m in matches)
                    # glibc names the argument as given, value included: `--co=x`
                    raise UsageError(f"option '{arg}' is ambiguous; possibilities: {poss}")
                if matches[0] == "help" and matches[0] not in longs:
                    raise HelpRequested(help_text(spec))
                if matches[0] == "version" and matches[0] not in longs:
                    raise HelpRequested(version_text(spec))
                opt = longs[matches[0]]
            long_name = opt.long
            if opt.arg == "none":
                if eq:
                    raise UsageError(f"option '--{long_name}' doesn't allow an argument")
                _store(parsed, opt, opt.const)
            elif opt.arg == "required":
                if not eq:
                    if i >= n:
                        raise UsageError(f"option '--{long_name}' requires an argument")
                    value = args[i]
                    i += 1
                _store(parsed, opt, value)
            else:
                _store(parsed, opt, value if eq else None)
            continue
        if arg.startswith("-") and len(arg) > 1 and not (spec.operand_if and spec.operand_if(arg)):
            if spec.numeric and arg[1:].isdigit():
                opt = shorts.get(spec.numeric) or next((o for o in spec.opts if o.key == spec.numeric), None)
                if opt is not None:
                    _store(parsed, opt, arg[1:])
                    continue
            j = 1
            while j < len(arg):
                ch = arg[j]
                j += 1
                opt = shorts.get(ch)
                if opt is None:
                    raise UsageError(f"invalid option -- '{ch}'")
                if opt.arg == "none":
                    _store(parsed, opt, opt.const)
                    continue
                rest = arg[j:]
                if opt.arg == "required":
                    if rest:
                        _store(parsed, opt, rest)
                    elif i < n:
                        _store(parsed, opt, args[i])
                        i += 1
                    else:
                        raise UsageError(f"option requires an argument -- '{ch}'")
                else:
                    _store(parsed, opt, rest if rest else None)
                break
            continue
        operands.append(arg)
        if spec.stop_at_operand:
            operands.extend(args[i:])
            break
    return parsed, operands


def _parse_builtin(spec: CommandSpec, args: Sequence[str]) -> tuple[Parsed, list[str]]:
    """bash's internal_getopt: options only before the first operand; `--help` is HelpRequested
    with the builtin's name (bash prints the builtin's help and gives status 2)."""
    parsed = Parsed()
    shorts = {o.short: o for o in spec.opts if o.short}
    i = 0
    n = len(args)
    while i < n:
        word = args[i]
        if len(word) < 2 or word[0] not in ("-+" if spec.plus else "-"):
            break
        if word == "--":
            i += 1
            break
        if word == "--help" and spec.add_help:
            raise HelpRequested(spec.name)
        sign = word[0]
        for j in range(1, len(word)):
            c = word[j]
            opt = shorts.get(c)
            if opt is None:
                raise UsageError(f"{sign}{c}: invalid option")
            if opt.arg == "none":
                _store(parsed, opt, opt.const, sign)
                continue
            value: str | None = word[j + 1 :] or None
            if value is None and i + 1 < n and (opt.arg == "required" or args[i + 1][:1] not in ("-", "+")):
                i += 1
                value = args[i]
            if value is None and opt.arg == "required":
                raise UsageError(f"{sign}{c}: option requires an argument")
            _store(parsed, opt, value, sign)
            break
        i += 1
    return parsed, list(args[i:])


def help_text(spec: CommandSpec) -> str:
    lines = [f"Usage: {spec.name} {spec.usage}".rstrip()]
    if spec.summary:
        lines.append(spec.summary)
    if spec.opts:
        lines.append("")
        rows = []
        for o in spec.opts:
            if not o.help:
                continue
            left = []
            if o.short:
                left.append(f"-{o.short}")
            if o.long:
                meta = o.metavar or ("ARG" if o.arg != "none" else "")
                if o.arg == "required":
                    left.append(f"--{o.long}={meta}")
                elif o.arg == "optional":
                    left.append(f"--{o.long}[={meta}]")
                else:
                    left.append(f"--{o.long}")
            elif o.arg != "none" and o.short:
                left[-1] += f" {o.metavar or 'ARG'}"
            text = ", ".join(left)
            if not o.short:
                text = "    " + text
            rows.append((text, o.help))
        width = min(max((len(r[0]) for r in rows), default=0) + 2, 30)
        for left_text, help_ in rows:
            if len(left_text) + 2 > width:
                lines.append(f"  {left_text}")
                lines.append(" " * (width + 2) + help_)
            else:
                lines.append(f"  {left_text.ljust(width)}{help_}")
        lines.append("      --help        display this help and exit")
        lines.append("      --version     output version information and exit")
    if spec.help_extra:
        lines.append("")
        lines.append(spec.help_extra.rstrip("\n"))
    return "\n".join(lines) + "\n"


def version_text(spec: CommandSpec) -> str:
    return f"{spec.name} (sandbash) {VERSION}\n"


def usage_message(spec: CommandSpec, message: str) -> str:
    return f"{spec.name}: {message}\nTry '{spec.name} --help' for more information.\n"
