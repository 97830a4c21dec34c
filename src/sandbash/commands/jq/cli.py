"""jq's command-line rules (its own parser: options anywhere, bundled short
flags matched by letter, `--arg name value`, `--args`/`--jsonargs`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    # named arguments in order; values: ("string", s) | ("json", text) | ("slurpfile"/"rawfile", path)
    named: list[tuple[str, str, str]] = field(default_factory=list)
    positional: list[Any] = field(default_factory=list)
    positional_json: list[str] = field(default_factory=list)


def _die(msg: str) -> UsageExit:
    return UsageExit(2, msg + _HINT)


def parse_options(argv: list[str]) -> Options:
    o = Options()
    strings = False
    jsons = False
    done = False
    i = 0
    n = len(argv)
    while i < n:
        a = argv[i]
        i += 1
        optish = a.startswith("-") and (a[1:2] == "-" or a[1:2].isalpha() or a == "-")
        if done or not optish or a == "-":
            if o.program is None:
                o.program = a
            elif strings:
                o.positional.append(a)
            elif jsons:
                o.positional.append(None)
                o.positional_json.append(a)
            else:
                o.files.append(a)
            continue
        if a == "--":
            done = True
            continue
        if a.startswith("-L"):
            if len(a) == 2:
                if i >= n:
                    raise UsageExit(2, "-L takes a parameter: (e.g. -L /search/path or -L/search/path)\n" + _HINT)
                i += 1
            continue
        if a.startswith("--"):
            i = _long(o, a[2:], argv, i)
            if a == "--args":
                strings, jsons = True, False
            elif a == "--jsonargs":
                strings, jsons = False, True
            continue
        for c in a[1:]:
            if not _short(o, c):
                raise _die(f"jq: Unknown option {a}\n")
    return o


_SHORT_FLAGS = {
    "s": "slurp", "r": "raw_output", "a": "ascii", "S": "sort_keys", "R": "raw_input", "n": "null_input",
    "f": "from_file", "e": "exit_status",
}


def _short(o: Options, c: str) -> bool:
    if c in _SHORT_FLAGS:
        setattr(o, _SHORT_FLAGS[c], True)
        return True
    if c == "j":
        o.raw_output = True
        o.raw_no_lf = True
        return True
    if c == "c":
        o.indent = 0
        o.tab = False
        return True
    if c in "CMb":
        return True
    if c == "h":
        raise UsageExit(0, stdout=USAGE)
    if c == "V":
        raise UsageExit(0, stdout=VERSION + "\n")
    return False


_LONG_FLAGS = {
    "slurp": "slurp", "raw-output": "raw_output", "ascii-output": "ascii", "sort-keys": "sort_keys",
    "raw-input": "raw_input", "null-input": "null_input", "from-file": "from_file", "exit-status": "exit_status",
    "seq": "seq", "stream": "stream",
}


def _long(o: Options, name: str, argv: list[str], i: int) -> int:
    n = len(argv)
    if name in _LONG_FLAGS:
        setattr(o, _LONG_FLAGS[name], True)
        return i
    if name == "raw-output0":
        o.raw_output = o.raw_no_lf = o.raw_output0 = True
    elif name == "join-output":
        o.raw_output = o.raw_no_lf = True
    elif name == "compact-output":
        o.indent, o.tab = 0, False
    elif name in ("color-output", "monochrome-output", "unbuffered", "binary", "debug-dump-disasm",
                  "debug-trace", "debug-trace=all", "args", "jsonargs"):
        pass
    elif name == "tab":
        o.tab = True
        o.indent = 1
    elif name == "stream-errors":
        o.stream = o.stream_errors = True
    elif name == "indent":
        if i >= n:
            raise _die("jq: --indent takes one parameter\n")
        try:
            value = int(argv[i].strip() or "0")
        except ValueError:
            value = _atoi(argv[i])
        if value < -1 or value > 7:
            raise _die("jq: --indent takes a number between -1 and 7\n")
        o.tab = value == -1
        o.indent = 2 if value == -1 else value
        return i + 1
    elif name in ("arg", "argjson", "slurpfile", "rawfile"):
        if i + 1 >= n:
            example = {"arg": "varname value", "argjson": "varname text"}.get(name, "varname filename")
            raise _die(f"jq: --{name} takes two parameters (e.g. --{name} {example})\n")
        if all(existing[0] != argv[i] for existing in o.named):
            o.named.append((argv[i], name, argv[i + 1]))
        return i + 2
    elif name == "help":
        raise UsageExit(0, stdout=USAGE)
    elif name == "version":
        raise UsageExit(0, stdout=VERSION + "\n")
    elif name == "build-configuration":
        raise UsageExit(0, stdout="sandbash\n")
    elif name == "library-path":
        return i + 1
    else:
        raise _die(f"jq: Unknown option --{name}\n")
    return i


def _atoi(s: str) -> int:
    digits = ""
    for c in s.strip():
        if c.isdigit() or (not digits and c in "+-"):
            digits += c
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0
