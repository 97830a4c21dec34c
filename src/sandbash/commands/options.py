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

Tools with their own grammar are declarations too, through a spec's variants: exact
long names (`long_prefixes=False`, `long_equals=False`: jq), Go pflag's `-o=json`
(`short_equals`, with `Opt.implied` for `-r` / `-r=false`: yq), a word that is a set of
letters (`bundle="set"`: jq) or one option (`bundle="none"`: kill, dirs), a value that
is always the next word (`Opt.attached=False`: tree's `-L 2`), two-word values
(`Opt.nargs=2`: jq's `--arg NAME VALUE`), options that end the parse (`Opt.stop`), and
`-X` / `+X` words that name no option being one option's value (`dash_value`: kill's
`-9` / `-KILL`, dirs' `+2`). Errors are `UsageError`s that say what went wrong
(`kind`, `name`, `word`), so each tool words them its own way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..leanclass import Declared

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from typing import Any
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass, field

VERSION = "0.1.0"


class OptionValueError(Exception):
    """An option's value that its `type` refuses; `message` is the whole line after `NAME: `.
    `status` and `usage`: what a builtin does then (bash's read: status 1, no usage line)."""

    def __init__(self, message: str, status: int = 2, usage: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.usage = usage
        self.option: Opt | None = None  # set by the parser: the option and the text it refused
        self.value: Any = None


@dataclass(frozen=True, slots=True)
class Opt(metaclass=Declared):
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
    type: Callable[[Any], Any] | None = None  # a str, or a tuple of them when nargs > 1
    group: str | None = None
    nargs: int = 1  # a required value of several words, stored as a tuple (jq's --arg NAME VALUE)
    attached: bool = (
        True  # False: the value is always the next word, the word's other letters go on (tree -L)
    )
    attached_if: Callable[[str], bool] | None = (
        None  # bundle "none": which attached values count (kill -sTERM)
    )
    stop: bool = (
        False  # the parse ends once this option is met (jq -h); the words after it are operands, unread
    )
    implied: Any = None  # what an optional option stores given no value (pflag's NoOptDefVal)

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
class CommandSpec(metaclass=Declared):
    name: str
    usage: str = "[OPTION]... [FILE]..."
    summary: str = ""
    opts: tuple[Opt, ...] = ()
    # options end at the first operand (GNU's "+" getopt strings: env, xargs, find, basename)
    stop_at_operand: bool = False
    usage_status: int = 1  # exit status of a usage error (2 for grep, diff, ...)
    help_extra: str = ""
    # legacy numeric option: `head -5` means `head -n 5` (the Opt key given here); the digits-only
    # case of dash_value below
    numeric: str | None = None
    # a callable deciding that an argument starting with '-' is an operand (e.g. `-5` for some)
    operand_if: Callable[[str], bool] | None = None
    add_help: bool = True
    builtin: bool = False  # bash's internal_getopt instead of GNU getopt_long
    plus: bool = False  # builtin mode: `+x` turns a flag off (set, declare)
    # the grammar's variants; the defaults are GNU getopt_long's
    long_prefixes: bool = True  # unique prefixes of long names (`--verb` for `--verbose`)
    long_equals: bool = True  # `--name=value`; False: the whole word is the name (jq's `--debug-trace=all`)
    short_equals: bool = False  # Go pflag: `-o=json`; an optional value is given only that way (`-r=false`)
    # "getopt": a word's letters one by one; "set": the word is a set of known letters, each at most
    # once, a value option only first (jq); "none": a word is one option, `-c` or `-cVALUE` (kill, dirs)
    bundle: str = "getopt"
    # a word `-X` (or `+X` in plus mode) naming no option is the value X of the option with this key
    dash_value: str | None = None
    dash_value_if: Callable[[str], bool] | None = None  # which words that hook takes (default: all)
    dash_value_once: bool = False  # once the key has a value, such a word is an operand (kill -9 -PGID)
    dash_value_signs: str = "-"  # the signs that hook takes ("-+": dirs' `+2` and `-2`)
    # a usage error's lines between its message and the Try line (GNU grep's usage() prints its
    # Usage line there), and the Try line's opening quote (gzip still writes a backquote)
    usage_note: str = ""
    try_quote: str = "'"
    # the program a wrapper script runs, which names its usage errors (gunzip and zcat run gzip);
    # `name` stays the script's own, in its --help
    runs: str | None = None


class UsageError(Exception):
    """A command-line error; `message` is the first line GNU prints. `kind` says which ('unknown',
    'ambiguous', 'needs_value', 'no_value'), `name` is the option as given (a letter, or a long name
    without its dashes), `word` the whole argument, `parsed` what was parsed before it, `at`
    where a letter stands in the word."""

    def __init__(
        self,
        message: str,
        kind: str = "",
        name: str = "",
        word: str = "",
        parsed: Parsed | None = None,
        at: int = 0,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.name = name
        self.word = word
        self.parsed = parsed
        self.at = at  # where in `word` a short option's letter stands


class HelpRequested(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(slots=True)
class Parsed(metaclass=Declared):
    """Parsed options: `values` by key, `order` lists (key, value) as given and
    `signs` the sign each was given with (`-`, or `+` in builtin mode)."""

    values: dict[str, Any] = field(default_factory=dict)
    order: list[tuple[str, Any]] = field(default_factory=list)
    signs: list[str] = field(default_factory=list)
    # for each operand, how many options came before it (jq's --args applies to what follows it)
    operand_at: list[int] = field(default_factory=list)
    dashdash: int | None = None  # how many operands came before a `--`, when there was one

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
    if opt.type is not None and isinstance(value, (str, tuple)):
        try:
            value = opt.type(value)
        except OptionValueError as e:
            e.option, e.value = opt, value
            raise
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
    return _Gnu(spec, args).run()


# a spec's option tables by letter and by long name, built once per spec (parsing is on every
# command's path); the spec is kept with them so that its id is not reused. A few commands build
# a spec per call (diff3), so the cache is bounded: past _TABLES_MAX specs it starts again.
_TABLES: dict[int, tuple[CommandSpec, dict[str, Opt], dict[str, Opt]]] = {}
_TABLES_MAX = 1024


def _tables(spec: CommandSpec) -> tuple[CommandSpec, dict[str, Opt], dict[str, Opt]]:
    found = _TABLES.get(id(spec))
    if found is None or found[0] is not spec:
        if len(_TABLES) >= _TABLES_MAX:
            _TABLES.clear()
        found = _TABLES[id(spec)] = (
            spec,
            {o.short: o for o in spec.opts if o.short},
            {o.long: o for o in spec.opts if o.long},
        )
    return found


class _Gnu:
    """One GNU-style parse (getopt_long and the variants a spec declares): options and operands
    mixed, `--` ends the options."""

    __slots__ = ("spec", "args", "i", "parsed", "operands", "shorts", "longs")

    def __init__(self, spec: CommandSpec, args: Sequence[str]) -> None:
        self.spec = spec
        self.args = args
        self.i = 0
        self.parsed = Parsed()
        self.operands: list[str] = []
        _, self.shorts, self.longs = _tables(spec)

    def run(self) -> tuple[Parsed, list[str]]:
        spec, args, parsed, operands = self.spec, self.args, self.parsed, self.operands
        at = parsed.operand_at
        n = len(args)
        while self.i < n:
            arg = args[self.i]
            self.i += 1
            if arg[:1] != "-" or arg == "-":
                operands.append(arg)
                at.append(len(parsed.order))
                if spec.stop_at_operand:
                    self._operands(args[self.i :])
                    break
            elif arg == "--":
                parsed.dashdash = len(operands)
                self._operands(args[self.i :])
                break
            elif arg[1] == "-":
                if self._long(arg):
                    self._operands(args[self.i :])  # an option that ends the parse: the rest, unread
                    break
            elif self._dash_value(arg):
                continue
            elif spec.operand_if is not None and spec.operand_if(arg):
                operands.append(arg)
                at.append(len(parsed.order))
                if spec.stop_at_operand:
                    self._operands(args[self.i :])
                    break
            elif self._short_word(arg):
                self._operands(args[self.i :])
                break
        return parsed, operands

    def _operands(self, words: Sequence[str]) -> None:
        self.operands.extend(words)
        self.parsed.operand_at.extend([len(self.parsed.order)] * len(words))

    def _error(self, message: str, kind: str, name: str, word: str, at: int = 0) -> UsageError:
        return UsageError(message, kind, name, word, self.parsed, at)

    def _take(self, opt: Opt, first: str | None, name: str, word: str, at: int = 0) -> Any:
        """The value of an option that requires one: `first` (attached) and the next words."""
        words = [] if first is None else [first]
        while len(words) < opt.nargs:
            if self.i >= len(self.args):
                message = (
                    f"option '--{name}' requires an argument"
                    if word.startswith("--")
                    else f"option requires an argument -- '{name}'"
                )
                raise self._error(message, "needs_value", name, word, at)
            words.append(self.args[self.i])
            self.i += 1
        return words[0] if opt.nargs == 1 else tuple(words)

    def _dash_value(self, arg: str) -> bool:
        """`head -5`, kill's `-9`: a word that names no option is one option's value. `numeric` is
        the digits-only case of the dash_value hook."""
        spec = self.spec
        if spec.dash_value is not None:
            key = spec.dash_value
            if spec.dash_value_if is not None and not spec.dash_value_if(arg):
                return False
        elif spec.numeric is not None and arg[1:].isdigit():
            key = spec.numeric
        else:
            return False
        if spec.dash_value_once and key in self.parsed.values:
            return False
        opt = self.shorts.get(key) or next((o for o in spec.opts if o.key == key), None)
        if opt is None:
            return False
        _store(self.parsed, opt, arg[1:])
        return True

    def _long(self, arg: str) -> bool:
        """One `--name[=value]` word; True when the parse ends here."""
        spec, longs = self.spec, self.longs
        if spec.long_equals:
            name, eq, value = arg[2:].partition("=")
        else:
            name, eq, value = arg[2:], "", ""
        opt = longs.get(name)
        if opt is None:
            opt = self._long_prefix(arg, name, eq)
        long_name = opt.long or name
        if opt.arg == "none":
            if eq:
                raise self._error(
                    f"option '--{long_name}' doesn't allow an argument", "no_value", long_name, arg
                )
            _store(self.parsed, opt, opt.const)
        elif opt.arg == "required":
            _store(self.parsed, opt, self._take(opt, value if eq else None, long_name, arg))
        else:
            _store(self.parsed, opt, value if eq else opt.implied)
        return opt.stop

    def _long_prefix(self, arg: str, name: str, eq: str) -> Opt:
        """A long name not declared as given: --help/--version, or a unique prefix of one."""
        spec, longs = self.spec, self.longs
        unknown = f"unrecognized option '--{name}'" if not eq else f"unrecognized option '{arg}'"
        if not spec.long_prefixes:
            raise self._error(unknown, "unknown", name, arg)
        if spec.add_help and name and "help".startswith(name) and not any(l.startswith(name) for l in longs):
            raise HelpRequested(help_text(spec))
        if (
            spec.add_help
            and name
            and "version".startswith(name)
            and len(name) >= 4
            and not any(l.startswith(name) for l in longs)
        ):
            raise HelpRequested(version_text(spec))
        if spec.add_help and name in ("help", "version"):
            # an exact name wins over the longer ones it begins (getopt_long: `sort --version`
            # beside --version-sort)
            raise HelpRequested(help_text(spec) if name == "help" else version_text(spec))
        matches = [l for l in longs if l.startswith(name)]
        if spec.add_help:
            matches += [l for l in ("help", "version") if l.startswith(name) and l not in longs]
        # several spellings of the same option are not ambiguous
        distinct = {id(longs[m]) if m in longs else m for m in matches}
        if not matches:
            raise self._error(unknown, "unknown", name, arg)
        if len(distinct) > 1:
            poss = " ".join(f"'--{m}'" for m in matches)
            # glibc names the argument as given, value included: `--co=x`
            raise self._error(f"option '{arg}' is ambiguous; possibilities: {poss}", "ambiguous", name, arg)
        if matches[0] == "help" and matches[0] not in longs:
            raise HelpRequested(help_text(spec))
        if matches[0] == "version" and matches[0] not in longs:
            raise HelpRequested(version_text(spec))
        return longs[matches[0]]

    def _short_word(self, arg: str) -> bool:
        """One `-abc` word; True when the parse ends here."""
        if self.spec.bundle == "set":
            return self._letter_set(arg)
        j = 1
        while j < len(arg):
            ch = arg[j]
            j += 1
            opt = self.shorts.get(ch)
            if opt is None:
                raise self._error(f"invalid option -- '{ch}'", "unknown", ch, arg, j - 1)
            rest = arg[j:]
            if opt.arg == "none":
                _store(self.parsed, opt, opt.const)
            elif not opt.attached:
                _store(self.parsed, opt, self._take(opt, None, ch, arg, j - 1))
            elif self.spec.short_equals and rest[:1] == "=" and len(rest) > 1:
                _store(self.parsed, opt, rest[1:])
                return opt.stop
            elif opt.arg == "required":
                _store(self.parsed, opt, self._take(opt, rest or None, ch, arg, j - 1))
                return opt.stop
            elif self.spec.short_equals:
                _store(self.parsed, opt, opt.implied)  # pflag: `-rn` is -r then -n
            else:
                _store(self.parsed, opt, rest if rest else opt.implied)
                return opt.stop
            if opt.stop:
                return True
        return False

    def _letter_set(self, arg: str) -> bool:
        """jq's short options: a value option only as the word's first letter (`-Ldir`, `-L dir`);
        otherwise each declared letter found in the word counts once, and the word must hold
        nothing else (`-nr`, not `-rr`). Letters that end the parse act before that check."""
        first = self.shorts.get(arg[1])
        if first is not None and first.arg != "none":
            _store(self.parsed, first, self._take(first, arg[2:] or None, arg[1], arg))
            return first.stop
        found = [o for o in self.spec.opts if o.short and o.arg == "none" and o.short in arg[1:]]
        for opt in found:
            _store(self.parsed, opt, opt.const)
        if any(o.stop for o in found):
            return True
        if len(found) != len(arg) - 1:
            letters = arg[1:]
            # the first letter that is no option, or one given again
            known = {o.short for o in found}
            at = next(k for k, c in enumerate(letters, 1) if c not in known or c in letters[: k - 1])
            raise self._error(f"invalid option -- '{arg[at]}'", "unknown", arg[at], arg, at)
        return False


def _parse_builtin(spec: CommandSpec, args: Sequence[str]) -> tuple[Parsed, list[str]]:
    """bash's internal_getopt: options only before the first operand; `--help` is HelpRequested
    with the builtin's name (bash prints the builtin's help and gives status 2)."""
    parsed = Parsed()
    shorts = {o.short: o for o in spec.opts if o.short}
    signs = "-+" if spec.plus else "-"
    i = 0
    n = len(args)
    while i < n:
        word = args[i]
        if word == "--":
            i += 1
            parsed.dashdash = 0
            break
        if word == "--help" and spec.add_help:
            raise HelpRequested(spec.name)
        if spec.bundle == "none" or spec.dash_value:
            taken, end = _builtin_word(spec, shorts, parsed, args, i)
            i += taken
            if end:
                break
            if taken:
                continue
        if len(word) < 2 or word[0] not in signs:
            break
        sign = word[0]
        for j in range(1, len(word)):
            c = word[j]
            opt = shorts.get(c)
            if opt is None:
                raise UsageError(f"{sign}{c}: invalid option", "unknown", c, word, parsed)
            if opt.arg == "none":
                _store(parsed, opt, opt.const, sign)
                continue
            value: str | None = (word[j + 1 :] or None) if opt.attached else None
            if value is None and i + 1 < n and (opt.arg == "required" or args[i + 1][:1] not in ("-", "+")):
                i += 1
                value = args[i]
            if value is None and opt.arg == "required":
                raise UsageError(f"{sign}{c}: option requires an argument", "needs_value", c, word, parsed)
            _store(parsed, opt, value, sign)
            if opt.attached:
                break
        i += 1
    parsed.operand_at = [len(parsed.order)] * (n - i)
    return parsed, list(args[i:])


def _builtin_word(
    spec: CommandSpec, shorts: dict[str, Opt], parsed: Parsed, args: Sequence[str], i: int
) -> tuple[int, bool]:
    """A word read whole (bundle "none", and the dash_value hook): how many words it took (0: not
    read here), and whether the options end after them."""
    word = args[i]
    sign = word[:1]
    signs = "-+" if spec.plus else "-"
    opt = shorts.get(word[1:2]) if spec.bundle == "none" and sign in signs else None
    if opt is not None and (
        word[2:] == ""
        or (opt.arg != "none" and opt.attached and (opt.attached_if is None or opt.attached_if(word[2:])))
    ):
        if opt.arg == "none":
            _store(parsed, opt, opt.const, sign)
            return 1, opt.stop
        if word[2:]:
            _store(parsed, opt, word[2:], sign)
            return 1, opt.stop
        if i + 1 >= len(args):
            raise UsageError(f"{word}: option requires an argument", "needs_value", word[1], word, parsed)
        _store(parsed, opt, args[i + 1], sign)
        return 2, opt.stop
    key = spec.dash_value
    if (
        key is not None
        and sign
        and sign in spec.dash_value_signs
        and (spec.dash_value_if is None or spec.dash_value_if(word))
    ):
        if spec.dash_value_once and key in parsed.values:
            return 0, True
        _store(parsed, next(o for o in spec.opts if o.key == key), word[1:], sign)
        return 1, False
    return 0, spec.bundle == "none" and (len(word) < 2 or sign not in signs)


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


# The GNU package whose behaviour a command follows, named on --version's first line as GNU's own
# (`sort (GNU coreutils) 9.1`): scripts test `sed --version | grep -q GNU` to choose GNU's syntax
# over BSD's (`sed -i ''`), and read the release from that line. The second line says what runs.
COREUTILS = frozenset(
    [
        "arch",
        "b2sum",
        "base32",
        "base64",
        "basename",
        "basenc",
        "cat",
        "chgrp",
        "chmod",
        "chown",
        "cksum",
        "comm",
        "cp",
        "csplit",
        "cut",
        "date",
        "dd",
        "df",
        "dir",
        "dircolors",
        "dirname",
        "du",
        "echo",
        "env",
        "expand",
        "expr",
        "factor",
        "false",
        "fmt",
        "fold",
        "groups",
        "head",
        "hostid",
        "id",
        "install",
        "join",
        "link",
        "ln",
        "logname",
        "ls",
        "md5sum",
        "mkdir",
        "mkfifo",
        "mknod",
        "mktemp",
        "mv",
        "nice",
        "nl",
        "nohup",
        "nproc",
        "numfmt",
        "od",
        "paste",
        "pathchk",
        "pinky",
        "pr",
        "printenv",
        "printf",
        "ptx",
        "pwd",
        "readlink",
        "realpath",
        "rm",
        "rmdir",
        "seq",
        "sha1sum",
        "sha224sum",
        "sha256sum",
        "sha384sum",
        "sha512sum",
        "shred",
        "shuf",
        "sleep",
        "sort",
        "split",
        "stat",
        "stdbuf",
        "stty",
        "sum",
        "sync",
        "tac",
        "tail",
        "tee",
        "test",
        "timeout",
        "touch",
        "tr",
        "true",
        "truncate",
        "tsort",
        "tty",
        "uname",
        "unexpand",
        "uniq",
        "unlink",
        "users",
        "vdir",
        "wc",
        "who",
        "whoami",
        "yes",
    ]
)
_GNU_PACKAGES: dict[str, tuple[str, str]] = {
    "sed": ("GNU sed", "4.9"),
    "grep": ("GNU grep", "3.8"),
    "egrep": ("GNU grep", "3.8"),
    "fgrep": ("GNU grep", "3.8"),
    "find": ("GNU findutils", "4.9.0"),
    "xargs": ("GNU findutils", "4.9.0"),
    "diff": ("GNU diffutils", "3.8"),
    "cmp": ("GNU diffutils", "3.8"),
    "diff3": ("GNU diffutils", "3.8"),
    "sdiff": ("GNU diffutils", "3.8"),
    "tar": ("GNU tar", "1.34"),
}


# Programs whose own first line is not `NAME (PACKAGE) RELEASE`: it is written as they write it
_OWN_FIRST_LINE: dict[str, tuple[str, str]] = {
    "ed": ("GNU ed 1.19", "GNU ed 1.19"),
    "patch": ("GNU patch 2.7.6", "GNU patch 2.7.6"),
    "bc": ("bc 1.07.1", "GNU bc 1.07.1"),
}


def version_line(name: str) -> str:
    """`NAME --version`'s text: GNU's first line for a command that follows a GNU package."""
    own = _OWN_FIRST_LINE.get(name)
    if own is not None:
        first, follows = own
        return f"{first}\nsandbash {VERSION}: {follows}'s behaviour, in Python.\n"
    package = ("GNU coreutils", "9.1") if name in COREUTILS else _GNU_PACKAGES.get(name)
    if package is None:
        return f"{name} (sandbash) {VERSION}\n"
    gnu, release = package
    return f"{name} ({gnu}) {release}\nsandbash {VERSION}: {gnu} {release}'s behaviour, in Python.\n"


def version_text(spec: CommandSpec) -> str:
    return version_line(spec.name)


def usage_message(
    spec: CommandSpec, message: str, name: str | None = None, help_name: str | None = None
) -> str:
    """GNU's usage error: `name` opens the message (getopt's argv[0]), `help_name` is in the Try line."""
    name = name or spec.name
    help_name = help_name or spec.name
    return (
        f"{name}: {message}\n{spec.usage_note}Try {spec.try_quote}{help_name} --help' for more information.\n"
    )
