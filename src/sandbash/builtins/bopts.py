"""Option parsing for builtins, as bash's internal_getopt does it: the builtin mode of the one
option parser (commands/options.py), with bash's letter strings and messages.

Builtins do not permute: options end at the first word that is not an option, at `--` (consumed) or
at a lone `-` (kept as an operand). `spec` lists the option letters; a letter followed by `:` takes a
value (attached, `-pVALUE`, or the next word), followed by `#` a numeric value, followed by `;` an
optional value (attached, or the next word unless that looks like an option: ulimit's `-c 5 -e`). A leading `+` in
`spec` also accepts `+x` forms (set, declare). Errors print bash's two lines and give status 2:

    bash: line 1: alias: -Z: invalid option
    alias: usage: alias [-p] [name[=value] ... ]

`--help` prints the builtin's help and gives status 2, as bash 5.2 does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..posix import number_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from typing import Any

    from ..commands.options import CommandSpec
    from ..interp.shell import Shell
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass, field


@dataclass
class BuiltinOpts:
    """What one builtin call was given: options in order (letter, value, `+` or `-`) and operands."""

    items: list[tuple[str, Any, str]] = field(default_factory=list)
    args: list[str] = field(default_factory=list)

    def has(self, letter: str) -> bool:
        return any(c == letter for c, _, _ in self.items)

    def value(self, letters: str, default: Any = None) -> Any:
        """The last value given to any of `letters` (bash: the last one wins; read's -n and -N
        share one count), `default` when none was given."""
        found = default
        for c, v, _ in self.items:
            if c in letters:
                found = v
        return found

    def last(self) -> dict[str, Any]:
        """Each letter given with its last value (None for a flag)."""
        return {c: v for c, v, _ in self.items}

    def letters(self) -> str:
        return "".join(c for c, _, _ in self.items)


def usage(sh: Shell, name: str) -> None:
    """`NAME: usage: SYNOPSIS` on stderr (the synopsis `help` shows)."""
    from .synopsis import USAGE  # (the table is read by usage errors and `help` only)

    synopsis = USAGE.get(name)
    if synopsis is not None:
        sh.write_err(f"{name}: usage: {synopsis}\n")


Converter = Callable[[str], "Any"]  # (a string: typing is not imported at run time)
_SPECS: dict[tuple[str, str, tuple[tuple[str, Converter], ...]], CommandSpec] = {}
_KINDS = {"": "none", ":": "required", "#": "required", ";": "optional"}


def _number(text: str) -> str:
    from ..commands.options import OptionValueError

    if not _is_number(text):
        raise OptionValueError(f"{text}: invalid number")
    return text


def builtin_spec(name: str, letters: str, types: Mapping[str, Converter] | None = None) -> CommandSpec:
    """bash's letter string as a builtin-mode spec of the one option parser (commands/options.py);
    `types` converts a letter's value while parsing, as bash checks it in its getopt loop."""
    key = (name, letters, tuple(sorted((types or {}).items())))
    spec = _SPECS.get(key)
    if spec is None:
        from ..commands.options import CommandSpec, Opt

        opts = []
        body = letters.lstrip("+")
        k = 0
        while k < len(body):
            letter = body[k]
            kind = body[k + 1 : k + 2] if body[k + 1 : k + 2] in (":", "#", ";") else ""
            convert = (types or {}).get(letter) or (_number if kind == "#" else None)
            opts.append(Opt(letter, dest=letter, arg=_KINDS[kind], const=None, type=convert))
            k += 1 + len(kind)
        spec = _SPECS[key] = CommandSpec(
            name=name, opts=tuple(opts), builtin=True, plus=letters.startswith("+")
        )
    return spec


def parse_builtin_status(
    sh: Shell, argv: list[str], spec: str, types: Mapping[str, Converter] | None = None
) -> BuiltinOpts | int:
    """Parse `argv` (argv[0] is the builtin's name); after printing an error, the status to return
    (2, or what a value's converter says)."""
    if len(argv) < 2 or argv[1][:1] not in ("-", "+"):
        # no option: the parser would end its options at the first word (builtins do not permute)
        # and give every word as an operand. The usual `export NAME=value`, `cd DIR`, `local x`
        # take this way, and a script whose builtins are given no option never loads the parser
        # (commands/options.py, ~2 M instructions of a start-up)
        return BuiltinOpts([], argv[1:])
    from ..commands.options import HelpRequested, OptionValueError, UsageError, parse_args

    name = argv[0]
    try:
        parsed, args = parse_args(builtin_spec(name, spec, types), argv[1:])
    except HelpRequested:
        from . import BUILTINS

        BUILTINS["help"](sh, ["help", name])
        return 2
    except UsageError as e:
        sh.builtin_error(name, e.message)
        usage(sh, name)
        return 2
    except OptionValueError as e:
        sh.builtin_error(name, e.message)
        if e.usage:
            usage(sh, name)
        return e.status
    items = [(key, value, sign) for (key, value), sign in zip(parsed.order, parsed.signs, strict=True)]
    return BuiltinOpts(items, args)


def parse_builtin(sh: Shell, argv: list[str], spec: str) -> BuiltinOpts | None:
    """Parse `argv` (argv[0] is the builtin's name); None after printing the error (status 2)."""
    opts = parse_builtin_status(sh, argv, spec)
    return None if isinstance(opts, int) else opts


def wants_help(sh: Shell, argv: list[str]) -> bool:
    """bash's CHECK_HELPOPT, for builtins without options (exit, return, shift, break, continue,
    let, logout): a first word `--help` prints the builtin's help; the caller returns 2."""
    if argv[1:2] != ["--help"]:
        return False
    from . import BUILTINS

    BUILTINS["help"](sh, ["help", argv[0]])
    return True


def no_options(sh: Shell, argv: list[str]) -> list[str] | None:
    """bash's no_options(): a builtin that takes no options still rejects `-x` and consumes `--`."""
    opts = parse_builtin(sh, argv, "")
    return None if opts is None else opts.args


def invalid_number(sh: Shell, name: str, text: str) -> None:
    """bash's sh_invalidnum: the kind of number the text looked like (hex, octal, decimal)."""
    sh.builtin_error(name, invalid_number_message(text))


def invalid_number_message(text: str) -> str:
    # bash looks at the text as given: ` 0x1`, `+0x1` and `-0x1` are plain "invalid number"s
    kind = (
        "invalid hex number"
        if text[:2] in ("0x", "0X")
        else "invalid octal number"
        if text[:1] == "0"
        else "invalid number"
    )
    return f"{text}: {kind}"


def legal_number(text: str) -> bool:
    """bash's legal_number: optional blanks and sign, decimal digits, optional trailing blanks."""
    return _is_number(number_text(text))


def _is_number(text: str) -> bool:
    body = text[1:] if text[:1] in ("-", "+") else text
    return body.isdigit()
