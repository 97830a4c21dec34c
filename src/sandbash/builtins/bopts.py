"""Option parsing for builtins, as bash's internal_getopt does it.

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

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..interp.shell import Shell


@dataclass
class BuiltinOpts:
    """What one builtin call was given: options in order (letter, value, `+` or `-`) and operands."""

    items: list[tuple[str, str | None, str]] = field(default_factory=list)
    args: list[str] = field(default_factory=list)

    def has(self, letter: str) -> bool:
        return any(c == letter for c, _, _ in self.items)

    def value(self, letter: str) -> str | None:
        """The last value given to `letter` (None when absent)."""
        found = None
        for c, v, _ in self.items:
            if c == letter:
                found = v
        return found

    def letters(self) -> str:
        return "".join(c for c, _, _ in self.items)


def usage(sh: Shell, name: str) -> None:
    """`NAME: usage: SYNOPSIS` on stderr (the synopsis `help` shows)."""
    from .help import USAGE

    synopsis = USAGE.get(name)
    if synopsis is not None:
        sh.write_err(f"{name}: usage: {synopsis}\n")


def parse_builtin(sh: Shell, argv: list[str], spec: str) -> BuiltinOpts | None:
    """Parse `argv` (argv[0] is the builtin's name); None after printing the error (status 2)."""
    name = argv[0]
    plus = spec.startswith("+")
    letters = spec.lstrip("+")
    out = BuiltinOpts()
    i = 1
    while i < len(argv):
        word = argv[i]
        if len(word) < 2 or word[0] not in ("-+" if plus else "-"):
            break
        if word == "--":
            i += 1
            break
        if word == "--help":
            from . import BUILTINS

            BUILTINS["help"](sh, ["help", name])
            return None
        sign = word[0]
        j = 1
        while j < len(word):
            c = word[j]
            at = letters.find(c)
            if at < 0 or c in ":#;":
                sh.builtin_error(name, f"{sign}{c}: invalid option")
                usage(sh, name)
                return None
            kind = letters[at + 1 : at + 2]
            if kind == ";":
                if j + 1 < len(word):
                    out.items.append((c, word[j + 1 :], sign))
                elif i + 1 < len(argv) and argv[i + 1][:1] not in ("-", "+"):
                    i += 1
                    out.items.append((c, argv[i], sign))
                else:
                    out.items.append((c, None, sign))
                break
            if kind in (":", "#"):
                if j + 1 < len(word):
                    value = word[j + 1 :]
                elif i + 1 < len(argv):
                    i += 1
                    value = argv[i]
                else:
                    sh.builtin_error(name, f"{sign}{c}: option requires an argument")
                    usage(sh, name)
                    return None
                if kind == "#" and not _is_number(value):
                    sh.builtin_error(name, f"{value}: invalid number")
                    usage(sh, name)
                    return None
                out.items.append((c, value, sign))
                break
            out.items.append((c, None, sign))
            j += 1
        i += 1
    out.args = argv[i:]
    return out


def no_options(sh: Shell, argv: list[str]) -> list[str] | None:
    """bash's no_options(): a builtin that takes no options still rejects `-x` and consumes `--`."""
    opts = parse_builtin(sh, argv, "")
    return None if opts is None else opts.args


def invalid_number(sh: Shell, name: str, text: str) -> None:
    """bash's sh_invalidnum: the kind of number the text looked like (hex, octal, decimal)."""
    body = text.lstrip(" \t")
    body = body[1:] if body[:1] in ("-", "+") else body
    kind = "invalid hex number" if body[:2] in ("0x", "0X") else "invalid octal number" if body[:1] == "0" else "invalid number"
    sh.builtin_error(name, f"{text}: {kind}")


def legal_number(text: str) -> bool:
    """bash's legal_number: optional blanks and sign, decimal digits, optional trailing blanks."""
    return _is_number(text.strip(" \t\n"))


def _is_number(text: str) -> bool:
    body = text[1:] if text[:1] in ("-", "+") else text
    return body.isdigit()
