"""jq's command line, declared for the one option parser (commands/options.py): options
anywhere, exact long names, a short word read as a set of letters (`-nr`, never `-rr`),
`-Ldir`/`-L dir`, two-word `--arg NAME VALUE`, and `--args`/`--jsonargs` applying to the
operands after them. jq checks a value (`--indent`, `--argjson`) as it meets it, so the
options are applied in order and the first error, value or usage, is the one reported."""

from __future__ import annotations

from ..options import CommandSpec, Opt, Parsed, UsageError, parse_args
from .decode import ParseError, parse_single

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from typing import Any
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

VERSION = "jq-1.7.1"

_HINT = (
    "Use jq --help for help with command-line options,\n"
    "or see the jq manpage, or online docs  at https://jqlang.github.io/jq\n"
)

USAGE = """Usage:\tjq [OPTIONS] FILTER [FILES...]
\tjq [OPTIONS] --args FILTER [ARGUMENTS...]
\tjq [OPTIONS] --jsonargs FILTER [JSON_VALUES...]

jq is a tool for processing JSON inputs, applying the given filter to
its JSON text inputs and producing the filter's results as JSON on
standard output.

The simplest filter is ., which copies jq's input to its output
unmodified except for formatting. For more advanced filters see
the jq(1) manpage ("man jq") and/or https://jqlang.github.io/jq/.

Example:

\t$ echo '{"foo": 0}' | jq .
\t{
\t  "foo": 0
\t}

Command options:
  -n, --null-input          use `null` as the single input value;
  -R, --raw-input           read each line as string instead of JSON;
  -s, --slurp               read all inputs into an array and use it as
                            the single input value;
  -c, --compact-output      compact instead of pretty-printed output;
  -r, --raw-output          output strings without escapes and quotes;
      --raw-output0         implies -r and output NUL after each output;
  -j, --join-output         implies -r and output without newline after
                            each output;
  -a, --ascii-output        output strings by only ASCII characters
                            using escape sequences;
  -S, --sort-keys           sort keys of each object on output;
  -C, --color-output        colorize JSON output;
  -M, --monochrome-output   disable colored output;
      --tab                 use tabs for indentation;
      --indent n            use n spaces for indentation (max 7 spaces);
      --unbuffered          flush output stream after each output;
      --stream              parse the input value in streaming fashion;
      --stream-errors       implies --stream and report parse error as
                            an array;
      --seq                 parse input/output as application/json-seq;
  -f, --from-file file      load filter from the file;
  -L directory              search modules from the directory;
      --arg name value      set $name to the string value;
      --argjson name value  set $name to the JSON value;
      --slurpfile name file set $name to an array of JSON values read
                            from the file;
      --rawfile name file   set $name to string contents of file;
      --args                consume remaining arguments as positional
                            string values;
      --jsonargs            consume remaining arguments as positional
                            JSON values;
  -e, --exit-status         set exit status code based on the output;
  -V, --version             show the version;
  --build-configuration     show jq's build configuration;
  -h, --help                show the help;
  --                        terminates argument processing;

Named arguments are also available as $ARGS.named[], while
positional arguments are available as $ARGS.positional[].
"""


class UsageExit(Exception):
    def __init__(self, status: int, message: str = "", stdout: str = "") -> None:
        super().__init__(status)
        self.status = status
        self.message = message
        self.stdout = stdout


@dataclass
class Options:
    program: str | None = None
    from_file: bool = False
    files: list[str] = field(default_factory=list)
    null_input: bool = False
    raw_input: bool = False
    slurp: bool = False
    raw_output: bool = False
    raw_no_lf: bool = False
    raw_output0: bool = False
    ascii: bool = False
    sort_keys: bool = False
    indent: int = 2
    tab: bool = False
    seq: bool = False
    stream: bool = False
    stream_errors: bool = False
    exit_status: bool = False
    unbuffered: bool = False
    # named arguments in order; values: ("string", s) | ("json", text) | ("slurpfile"/"rawfile", path)
    named: list[tuple[str, str, str]] = field(default_factory=list)
    positional: list[Any] = field(default_factory=list)
    positional_json: list[str] = field(default_factory=list)


def _die(msg: str) -> UsageExit:
    return UsageExit(2, msg + _HINT)


def _optish(word: str) -> bool:
    """jq's isoptish: `--...` or `-` and a letter; `-`, `-1`, `-.` are operands."""
    second = word[1:2]
    return second == "-" or (second.isascii() and second.isalpha())


_NAMED = ("arg", "argjson", "slurpfile", "rawfile")
_FLAGS = (
    ("s", "slurp"),
    ("r", "raw-output"),
    (None, "raw-output0"),
    ("j", "join-output"),
    ("c", "compact-output"),
    ("C", "color-output"),
    ("M", "monochrome-output"),
    ("a", "ascii-output"),
    (None, "unbuffered"),
    ("S", "sort-keys"),
    ("R", "raw-input"),
    ("n", "null-input"),
    ("f", "from-file"),
    ("b", "binary"),
    (None, "tab"),
    (None, "seq"),
    (None, "stream"),
    (None, "stream-errors"),
    ("e", "exit-status"),
    (None, "args"),
    (None, "jsonargs"),
    (None, "debug-dump-disasm"),
    (None, "debug-trace=all"),
    (None, "debug-trace"),
)
SPEC = CommandSpec(
    name="jq",
    usage="[OPTIONS] FILTER [FILES...]",
    add_help=False,
    long_prefixes=False,
    long_equals=False,
    bundle="set",
    operand_if=lambda word: not _optish(word),
    opts=(
        *(Opt(short, long) for short, long in _FLAGS),
        Opt("L", dest="library_path", arg="required", multi=True),
        Opt(None, "indent", arg="required"),
        *(Opt(None, name, arg="required", nargs=2) for name in _NAMED),
        Opt("h", "help", stop=True),
        Opt("V", "version", stop=True),
        Opt(None, "build-configuration", stop=True),
    ),
)

# what each option sets on Options, in the order given (later ones undo earlier: -c, --tab)
_SETS: dict[str, dict[str, Any]] = {
    "slurp": {"slurp": True},
    "raw_output": {"raw_output": True},
    "ascii_output": {"ascii": True},
    "sort_keys": {"sort_keys": True},
    "raw_input": {"raw_input": True},
    "null_input": {"null_input": True},
    "from_file": {"from_file": True},
    "exit_status": {"exit_status": True},
    "seq": {"seq": True},
    "unbuffered": {"unbuffered": True},
    "stream": {"stream": True},
    "raw_output0": {"raw_output": True, "raw_no_lf": True, "raw_output0": True},
    "join_output": {"raw_output": True, "raw_no_lf": True},
    "compact_output": {"indent": 0, "tab": False},
    "tab": {"tab": True, "indent": 1},
    "stream_errors": {"stream": True, "stream_errors": True},
}


def parse_options(argv: list[str]) -> Options:
    try:
        parsed, operands = parse_args(SPEC, argv)
    except UsageError as e:
        if e.parsed is not None:
            _apply(Options(), e.parsed)  # a bad value given before the bad word is reported first
        raise _usage_error(e) from None
    if "help" in parsed:
        raise UsageExit(0, stdout=USAGE)
    if "version" in parsed:
        raise UsageExit(0, stdout=VERSION + "\n")
    if "build_configuration" in parsed:
        raise UsageExit(0, stdout="sandbash\n")
    o = Options()
    modes = _apply(o, parsed)
    for word, at in zip(operands, parsed.operand_at, strict=True):
        mode = modes[at]
        if o.program is None:
            o.program = word
        elif mode == "args":
            o.positional.append(word)
        elif mode == "jsonargs":
            o.positional.append(None)
            o.positional_json.append(word)
        else:
            o.files.append(word)
    return o


def _apply(o: Options, parsed: Parsed) -> list[str]:
    """Set `o` from the options in order, checking values as jq does when it meets them; the
    operand mode (`args`, `jsonargs` or '') in force after each count of options."""
    mode = ""
    modes = [mode]
    for key, value in parsed.order:
        if key in _SETS:
            for attr, setting in _SETS[key].items():
                setattr(o, attr, setting)
        elif key in ("args", "jsonargs"):
            mode = key
        elif key == "indent":
            indent = _atoi(value)
            if indent < -1 or indent > 7:
                raise _die("jq: --indent takes a number between -1 and 7\n")
            o.tab = indent == -1
            o.indent = 2 if indent == -1 else indent
        elif key in _NAMED:
            name, text = value
            if all(existing[0] != name for existing in o.named):
                if key == "argjson":
                    _check_json(text, "--argjson")
                o.named.append((name, key, text))
        modes.append(mode)
    return modes


def _check_json(text: str, option: str) -> None:
    try:
        parse_single(text)
    except ParseError:
        raise _die(f"jq: invalid JSON text passed to {option}\n") from None


def _usage_error(e: UsageError) -> UsageExit:
    if e.kind != "needs_value":
        return _die(f"jq: Unknown option {e.word}\n")
    if e.name == "L":
        return _die("-L takes a parameter: (e.g. -L /search/path or -L/search/path)\n")
    if e.name == "indent":
        return _die("jq: --indent takes one parameter\n")
    example = {"arg": "varname value", "argjson": "varname text"}.get(e.name, "varname filename")
    return _die(f"jq: --{e.name} takes two parameters (e.g. --{e.name} {example})\n")


def _atoi(s: str) -> int:
    """C's atoi: leading blanks, a sign, the digits that follow (0 when there are none)."""
    text = s.lstrip(" \t\n\v\f\r")
    end = 1 if text[:1] in ("+", "-") else 0
    while end < len(text) and text[end] in "0123456789":
        end += 1
    digits = text[:end]
    return int(digits) if digits.lstrip("+-") else 0
